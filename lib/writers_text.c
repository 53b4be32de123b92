/*
 * writers_text.c - the text shape: a readable transcript, each message
 * under a [role:name channel -> recipient type] line, in color
 * (HM_WRITER_COLOR) for a terminal.
 */
#include <stddef.h>
#include <string.h>

#include "harmony.h"
#include "writers_int.h"

/*
 * Text for a terminal: control characters other than newline and tab (an
 * escape sequence could recolor, move or retitle the terminal) are shown
 * as \xHH, C1 controls as \u00HH.
 */
static void
text_body(int *nomem, hm_buf *b, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i, start = 0;

	for (i = 0; i < n; i++) {
		unsigned c = s[i];

		if ((c >= 0x20 && c != 0x7F && c != 0xC2) || c == '\n' || c == '\t')
			continue;
		if (c == 0xC2 && !(i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9F))
			continue;
		hm__add(nomem, b, s + start, i - start);
		if (c == 0xC2) {
			c = s[++i];
			hm__adds(nomem, b, "\\u00");
		} else
			hm__adds(nomem, b, "\\x");
		hm__putc(nomem, b, hex[c >> 4]);
		hm__putc(nomem, b, hex[c & 15]);
		start = i + 1;
	}
	hm__add(nomem, b, s + start, n - start);
}

#define C_RESET "\033[0m"

/* The state: one record's. */
struct text {
	int nwritten; /* messages written in this record */
};

static struct text *
text(const hm_writer *w)
{
	return w->st;
}

static void
text_begin(hm_writer *w)
{
	text(w)->nwritten = 0;
}

static int
is_exact(const hm_buf *b, const char *s)
{
	return b->len == strlen(s) && !memcmp(b->p, s, b->len);
}

static const char *
chan_color(const struct hm_witem *it)
{
	if (strcmp(it->role, "assistant"))
		return "\033[33m";
	if (it->has_rcpt)
		return "\033[35m";
	if (it->has_chan && is_exact(&it->chan, "analysis"))
		return "\033[2m";
	if (it->has_chan && is_exact(&it->chan, "commentary"))
		return "\033[36m";
	return "\033[32m";
}

static void
text_start(hm_writer *w, struct hm_witem *it)
{
	hm_buf *b = &w->out;
	int color = (w->flags & HM_WRITER_COLOR) != 0;

	if (text(w)->nwritten)
		hm__putc(&w->nomem, b, '\n');
	if (color)
		hm__adds(&w->nomem, b, "\033[1m");
	hm__putc(&w->nomem, b, '[');
	hm__adds(&w->nomem, b, it->role);
	if (it->has_name) {
		hm__putc(&w->nomem, b, ':');
		text_body(&w->nomem, b, it->name.p, it->name.len);
	}
	if (color) {
		hm__adds(&w->nomem, b, C_RESET);
		hm__adds(&w->nomem, b, chan_color(it));
	}
	if (it->has_chan) {
		hm__putc(&w->nomem, b, ' ');
		text_body(&w->nomem, b, it->chan.p, it->chan.len);
	}
	if (it->has_rcpt) {
		hm__adds(&w->nomem, b, " -> ");
		text_body(&w->nomem, b, it->rcpt.p, it->rcpt.len);
	}
	if (it->has_ctype) {
		hm__putc(&w->nomem, b, ' ');
		text_body(&w->nomem, b, it->ctype.p, it->ctype.len);
	}
	if (color)
		hm__adds(&w->nomem, b, C_RESET "\033[1m");
	hm__putc(&w->nomem, b, ']');
	if (color)
		hm__adds(&w->nomem, b, C_RESET);
	hm__putc(&w->nomem, b, '\n');
}

static void
text_delta(hm_writer *w, struct hm_witem *it, const char *s, size_t n)
{
	(void)it;
	text_body(&w->nomem, &w->out, s, n);
}

static void
text_end(hm_writer *w, struct hm_witem *it)
{
	hm_buf *b = &w->out;

	if (it->stop == HM_STOP_EOS)
		hm__adds(&w->nomem, b, (w->flags & HM_WRITER_COLOR) ?
		    "\n\033[31m[truncated]" C_RESET : "\n[truncated]");
	hm__putc(&w->nomem, b, '\n');
	text(w)->nwritten++;
}

const struct hm_wshape hm__w_text = {
	.name = "text",
	.size = sizeof(struct text),
	.begin = text_begin,
	.start = text_start,
	.delta = text_delta,
	.end = text_end,
};

