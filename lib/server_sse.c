/*
 * server_sse.c - Server-Sent Events framing (hm_sse): bytes in any pieces, the
 * data of each event out.  Lines end with LF, CRLF or a lone CR; a CR
 * that ends a piece waits for the next piece to tell whether an LF
 * follows it, so every cut of a stream gives the same events.
 */
#include <stdlib.h>
#include <string.h>

#include "buf_int.h"

struct hm_sse {
	hm_buf line;      /* the line being read */
	hm_buf data;      /* data lines of the event being read, joined by \n */
	hm_buf out;       /* the data of the last event handed out */
	int has_data;     /* the event being read has a data: line */
	int cr;           /* the last byte taken was a CR: skip one LF */
	size_t lineno;    /* the number of the line being read, from 1 */
	size_t data_line; /* ... of the event's first data: line */
	size_t out_line;  /* ... of the event handed out */
	int nomem;        /* an append to line, data or out failed: every call
	                     says HM_ENOMEM from then on */
};

hm_sse *
hm_sse_new(void)
{
	hm_sse *s = calloc(1, sizeof *s);

	if (s)
		s->lineno = 1;
	return s;
}

void
hm_sse_free(hm_sse *s)
{
	if (!s)
		return;
	hm_buf_free(&s->line);
	hm_buf_free(&s->data);
	hm_buf_free(&s->out);
	free(s);
}

/* The event read so far goes out: 1 when it had data. */
static int
dispatch(hm_sse *s)
{
	if (!s->has_data)
		return 0;
	hm_buf_reset(&s->out);
	hm__add(&s->nomem, &s->out, s->data.p ? s->data.p : "", s->data.len);
	(void)hm__reserve(&s->nomem, &s->out, 1);
	if (s->out.p)
		s->out.p[s->out.len] = '\0';
	s->out_line = s->data_line;
	hm_buf_reset(&s->data);
	s->has_data = 0;
	return 1;
}

/* A whole line (without its end): 1 when it ends an event with data. */
static int
take_line(hm_sse *s, const char *p, size_t n)
{
	size_t k;

	if (!n)
		return dispatch(s);
	if (p[0] == ':')
		return 0; /* a comment: keep-alives, pings */
	for (k = 0; k < n && p[k] != ':'; k++)
		;
	if (k != 4 || memcmp(p, "data", 4))
		return 0; /* event:, id:, retry: and unknown fields */
	/* "data" with no colon is a data line with an empty value */
	if (k < n)
		k++;
	if (k < n && p[k] == ' ')
		k++;
	if (s->has_data)
		hm__putc(&s->nomem, &s->data, '\n');
	else
		s->data_line = s->lineno;
	s->has_data = 1;
	hm__put(&s->nomem, &s->data, p + k, n - k);
	return 0;
}

hm_status
hm_sse_feed(hm_sse *s, const char *buf, size_t len, size_t *used, int *event)
{
	size_t i = 0, st;
	int ev = 0;

	*event = 0;
	*used = 0;
	if (s->nomem)
		return HM_ENOMEM;
	while (i < len && !ev) {
		if (s->cr) {
			s->cr = 0;
			if (buf[i] == '\n') {
				i++;
				continue;
			}
		}
		for (st = i; i < len && buf[i] != '\n' && buf[i] != '\r'; i++)
			;
		if (i == len) {
			hm__put(&s->nomem, &s->line, buf + st, i - st);
			break;
		}
		s->cr = buf[i] == '\r';
		if (s->line.len) {
			hm__put(&s->nomem, &s->line, buf + st, i - st);
			ev = take_line(s, s->line.p, s->line.len);
			hm_buf_reset(&s->line);
		} else
			ev = take_line(s, buf + st, i - st);
		s->lineno++;
		i++;
	}
	*used = i;
	*event = ev;
	return s->nomem ? HM_ENOMEM : HM_OK;
}

hm_status
hm_sse_finish(hm_sse *s, int *event)
{
	int ev = 0;

	*event = 0;
	if (s->nomem)
		return HM_ENOMEM;
	if (s->line.len) {
		ev = take_line(s, s->line.p, s->line.len);
		hm_buf_reset(&s->line);
	}
	s->cr = 0;
	/* A stream cut off before its blank line still gives its last event. */
	ev = dispatch(s) || ev;
	*event = ev;
	return s->nomem ? HM_ENOMEM : HM_OK;
}

const char *
hm_sse_data(const hm_sse *s, size_t *len, size_t *line)
{
	*len = s->out.len;
	if (line)
		*line = s->out_line;
	return s->out.p ? s->out.p : "";
}
