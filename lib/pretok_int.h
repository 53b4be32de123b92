/* pretok_int.h - the o200k split pattern as a hand-written scanner. */
#ifndef HM_PRETOK_INT_H
#define HM_PRETOK_INT_H

#include <stddef.h>

/*
 * The end of the piece that starts at s[i] (i < n), as the o200k
 * pre-tokenizer pattern (spec §1.3) would match it.  s[0..n) must be valid
 * UTF-8.  Pieces are found by calling this with i = the previous end.
 */
size_t hm__pretok_next(const unsigned char *s, size_t n, size_t i);
/* The same without the fast path for ASCII, so tests can compare the two. */
size_t hm__pretok_general(const unsigned char *s, size_t n, size_t i);

#endif
