/*
 * parser_int.h - internals shared by the parser and the writers.
 */
#ifndef HM_PARSER_INT_H
#define HM_PARSER_INT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Examine buf[0..n) as UTF-8.  Returns the length of the valid prefix and
 * sets *err to 0 (all valid), the length of the first invalid sequence (the
 * maximal subpart U+FFFD replaces), or -1 when the bytes end inside a
 * sequence that more bytes could complete.
 */
size_t hm_utf8_check(const char *buf, size_t n, int *err);

/*
 * Join each run of ordinary content tokens into one HM_EV_DELTA (at: its
 * first token) instead of one per token.  The text is the same; only the
 * delta boundaries move, so they then depend on how the input was fed.
 * For shapes that print whole messages.
 */
struct hm_parser;
void hm_parser_set_merge(struct hm_parser *p, int on);

/*
 * An input token that could not be read (a word that is not an id) keeps
 * its place: the next token fed is one further on.  Only when all that
 * was fed has been pulled.
 */
void hm_parser_skip(struct hm_parser *p);

/*
 * The smallest position (token index or byte offset) that an event not
 * yet pulled may name, for a caller that maps positions back to where its
 * input came from: it may forget what lies before.
 */
uint64_t hm_parser_oldest(const struct hm_parser *p);

#endif
