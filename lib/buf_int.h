/*
 * buf_int.h - UTF-8 helpers shared by every module that produces text (the
 * buffer itself, hm_buf, is public in harmony.h).
 */
#ifndef HM_BUF_INT_H
#define HM_BUF_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "harmony.h"

/* hm_buf and its appenders are public: see harmony.h. */

/*
 * hm_buf_add and hm_buf_addc for hot paths: inline when the buffer has
 * room (and has not failed), the function otherwise; same result.
 */
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

static inline void
hm__buf_put(hm_buf *b, const void *p, size_t n)
{
	if (b->cap - b->len > n && !b->oom) {
		if (n)
			memcpy(b->p + b->len, p, n);
		b->len += n;
		b->p[b->len] = '\0';
	} else
		hm_buf_add(b, p, n);
}

static inline void
hm__buf_putc(hm_buf *b, char c)
{
	if (b->cap - b->len > 1 && !b->oom) {
		b->p[b->len++] = c;
		b->p[b->len] = '\0';
	} else
		hm_buf_add(b, &c, 1);
}

/* Append a UTF-8 encoded code point. */
void hm__buf_add_cp(hm_buf *b, uint32_t cp);

/* hm_utf8_decode is public: see harmony.h. */

#endif
