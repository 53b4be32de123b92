/*
 * buf_int.h - UTF-8 helpers shared by every module that produces text (the
 * buffer itself, hm_buf, is public in harmony.h).
 */
#ifndef HM_BUF_INT_H
#define HM_BUF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "harmony.h"

/* hm_buf and its appenders are public: see harmony.h. */

/* Append a UTF-8 encoded code point. */
void hm_buf_add_cp(hm_buf *b, uint32_t cp);

/*
 * Decode one UTF-8 sequence at s[0..n).  Returns its length (1..4) and sets
 * *cp, or returns 0 when the bytes at s do not start a valid sequence (then
 * *cp is undefined); *bad is set to the length of the maximal invalid
 * subpart to skip (what U+FFFD replaces, as Python and WHATWG do).
 */
size_t hm_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp, size_t *bad);

#endif
