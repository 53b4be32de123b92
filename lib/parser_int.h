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

#endif
