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

/* ---------------------------------------------------------------- the tolerant header grammar (parse_header.c) */

#include "buf_int.h"

enum { HM_HF_NAME, HM_HF_RCPT, HM_HF_CHAN, HM_HF_CTYPE };

/* What hm__hdr_loose repaired. */
enum {
	HM_HP_REPEAT = 1 << 0,   /* a part written twice */
	HM_HP_DIFFER = 1 << 1,   /* ... with different values: the last kept */
	HM_HP_ANALYSIS = 1 << 2, /* channels differ, one is analysis: analysis */
	HM_HP_ODD_NAME = 1 << 3, /* a recipient that is not a plain identifier */
	HM_HP_SPECIAL = 1 << 4,  /* another special token between the parts */
	HM_HP_EMPTY = 1 << 5,    /* <|channel|>, to= or <|constrain|> with no value */
	HM_HP_BLANK = 1 << 6,    /* blanks between a marker and its value */
	HM_HP_JUNK = 1 << 7,     /* words that are no part: junk_off, junk_len */
	HM_HP_NO_ROLE = 1 << 8,  /* no role where one was needed: assistant */
	HM_HP_LONE = 1 << 9,     /* a lone word taken for the recipient */
	HM_HP_BARE_CHAN = 1 << 10, /* a channel name without <|channel|> */
};

/* A header read part by part; fields are buf[off, off + len) when has. */
struct hm_hdr_parts {
	int role;  /* 0..4: user, assistant, system, developer, tool */
	size_t off[4], len[4];
	unsigned char has[4];
	unsigned flags;
	size_t junk_off, junk_len; /* into the header text */
	hm_buf buf;                /* the caller frees it */
};

/*
 * Read the header s[0..n) (valid UTF-8) with the tolerant grammar: the
 * parts in any order, blanks anywhere, a part repeated (the last value
 * kept), a special token ending whatever part it follows.  role: the role
 * already known (0..4), or -1 to read it from the header.  0, or -1 when
 * out of memory.  No name, recipient or channel holds `<|`; a content type
 * does only as its leading `<|constrain|>`.
 */
int hm__hdr_loose(const char *s, size_t n, int role, struct hm_hdr_parts *out);

/* Length of the special-token text (`<|x|>`, or a bare `<|`) at s[i], or 0. */
size_t hm__hdr_mark_len(const char *s, size_t n, size_t i);

/*
 * Whether the text s[0..n) (valid UTF-8) that opens an assistant message
 * before its first special token is prose rather than header words: a
 * word that is no part of a header (`I think.`), not `to=f json`.
 */
int hm__hdr_is_prose(const char *s, size_t n);

/* Whether s[0..n) is a content type written bare (json, code, ...). */
int hm__ctype_word(const char *s, size_t n);

#endif
