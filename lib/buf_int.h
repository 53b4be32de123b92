/*
 * buf_int.h - a growable byte buffer and JSON string writing, shared by
 * every module that produces text.
 */
#ifndef HM_BUF_INT_H
#define HM_BUF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "harmony.h"

/* Zero-initialise ({0}) before use.  `p` is NUL-terminated when non-NULL. */
typedef struct hm_buf {
	char *p;
	size_t len, cap;
	int oom; /* sticky: an append failed */
} hm_buf;

/* Make room for n more bytes; 0 on success, -1 (and oom set) on failure. */
int hm_buf_reserve(hm_buf *b, size_t n);
void hm_buf_add(hm_buf *b, const void *p, size_t n);
void hm_buf_adds(hm_buf *b, const char *s);
void hm_buf_addc(hm_buf *b, char c);
void hm_buf_addu(hm_buf *b, unsigned long long v);
void hm_buf_free(hm_buf *b);
/* Empty the buffer, keep the storage. */
void hm_buf_clear(hm_buf *b);

/*
 * Append s[0..n) as a quoted JSON string, escaped the way serde_json
 * writes it: `"` and `\` escaped, U+0000..U+001F as \b \f \n \r \t or
 * \u00xx, everything else (including `/`, U+007F, non-ASCII) raw.
 * Invalid UTF-8 is written as U+FFFD.
 */
void hm_buf_json_str(hm_buf *b, const char *s, size_t n);
/* The same without the quotes (for a string written in pieces). */
void hm_buf_json_body(hm_buf *b, const char *s, size_t n);

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
