/*
 * buf_int.h - appending to a buffer an object owns (the one out-of-memory
 * path), and UTF-8 and JSON helpers shared by every module that produces
 * text (the buffer itself, hm_buf, is public in harmony.h).
 */
#ifndef HM_BUF_INT_H
#define HM_BUF_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "harmony.h"

/* hm_buf and its appenders are public: see harmony.h. */

/*
 * The byte a JSON escape `\c` stands for (c one of " \ / b f n r t), or
 * -1: `\u` (four hex digits follow) or no escape at all.
 */
static inline int
hm__json_escape(char c)
{
	switch (c) {
	case '"': case '\\': case '/': return c;
	case 'b': return '\b';
	case 'f': return '\f';
	case 'n': return '\n';
	case 'r': return '\r';
	case 't': return '\t';
	default: return -1;
	}
}

/* What an object reset for reuse keeps of a buffer's storage, at most. */
#define HM__KEEP_MAX (1u << 20)

/*
 * Empty b for reuse, a failed append forgotten (objects are reset after
 * HM_ENOMEM too): its storage is kept up to HM__KEEP_MAX bytes, so that
 * one huge input does not hold its memory for all that follow.
 */
static inline void
hm__buf_clear(hm_buf *b)
{
	if (b->cap > HM__KEEP_MAX) {
		hm_buf_free(b);
		return;
	}
	b->len = 0;
	b->oom = 0;
	if (b->p)
		b->p[0] = '\0';
}

/*
 * Appending to a buffer an object owns.  Each object (a parser, a writer,
 * a server reader, ...) has one out-of-memory flag, and every append to
 * one of its buffers names it: an allocation that fails sets it there,
 * in hm__reserve, and the object checks that one flag on its way out and
 * reports HM_ENOMEM (SQLite's db->mallocFailed).  The buffer's own flag
 * is set too, so a failed buffer takes no more.  A buffer standing alone
 * owns itself: hm_buf_add(b, ...) is hm__add(&b->oom, b, ...).
 */
hm_status hm__reserve(int *nomem, hm_buf *b, size_t n);
void hm__add(int *nomem, hm_buf *b, const void *p, size_t n);
void hm__adds(int *nomem, hm_buf *b, const char *s);
void hm__addu(int *nomem, hm_buf *b, unsigned long long v);
/* A code point, UTF-8 encoded. */
void hm__add_cp(int *nomem, hm_buf *b, uint32_t cp);
/* hm_buf_json_body and hm_buf_json_str, owned. */
void hm__json_body(int *nomem, hm_buf *b, const char *s, size_t n);
void hm__json_str(int *nomem, hm_buf *b, const char *s, size_t n);

/* hm__add and one byte of it for hot paths: inline while there is room. */
static inline void
hm__put(int *nomem, hm_buf *b, const void *p, size_t n)
{
	if (b->cap - b->len > n && !b->oom) {
		if (n)
			memcpy(b->p + b->len, p, n);
		b->len += n;
		b->p[b->len] = '\0';
	} else
		hm__add(nomem, b, p, n);
}

static inline void
hm__putc(int *nomem, hm_buf *b, char c)
{
	if (b->cap - b->len > 1 && !b->oom) {
		b->p[b->len++] = c;
		b->p[b->len] = '\0';
	} else
		hm__add(nomem, b, &c, 1);
}

/* hm__addu for hot paths: a single digit inline. */
static inline void
hm__putu(int *nomem, hm_buf *b, unsigned long long v)
{
	if (v < 10)
		hm__putc(nomem, b, (char)('0' + v));
	else
		hm__addu(nomem, b, v);
}

/* hm_utf8_decode is public: see harmony.h. */

#endif
