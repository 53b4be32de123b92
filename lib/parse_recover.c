/*
 * parse_recover.c - default-mode recoveries that end or begin a message
 * around a broken header: a header cut off by a stop or the end of the
 * stream (its words split into a header and content: F7, F10), and text
 * after <|return|> or <|call|> (F9; F2 when it is a header) kept as a
 * message when another message follows (text after <|end|> is read as a
 * header instead: parse_step.c).  Calls the
 * content and header layers below it (parser_int.h lists the layers).
 */
#include <string.h>

#include "parser_int.h"

/*
 * The offset in p->hdr of the text at offset c of p->hs (header_split):
 * hs is hdr with each invalid sequence as U+FFFD and, before c only, some
 * blanks dropped, so the text from c on is that of the same bytes of hdr.
 */
static size_t
hdr_raw_off(const hm_parser *p, size_t c)
{
	const char *s = p->hdr.p;
	size_t n = p->hdr.len, i = 0, v, o = 0, want;
	int err;

	/* The lossy length of hdr, less that of the text from c. */
	for (;;) {
		v = hm__utf8_check(s + i, n - i, &err);
		o += v;
		i += v;
		if (i >= n)
			break;
		o += 3;
		i = err < 0 ? n : i + (size_t)err;
	}
	want = o - (p->hs.len - c);
	for (i = o = 0;;) {
		v = hm__utf8_check(s + i, n - i, &err);
		if (o + v >= want)
			return i + (want - o);
		o += v;
		i += v;
		if (i >= n)
			return n;
		o += 3;
		i = err < 0 ? n : i + (size_t)err;
	}
}

/*
 * The header ended without <|message|> (a stop token, <|start|>, EOS, or it
 * grew too long).  Default mode: make a message of it when it holds text.
 * go_on: switch to content instead of ending the message.
 */
void
hm__p_header_recover(hm_parser *p, hm_stop stop, int go_on)
{
	struct hdr h;
	size_t c, r, tail = 0;
	int consumed, err, plain, hold, role = p->first_msg ? p->next_role : R_NONE;
	uint64_t hat = p->hdr_at;
	hm_buf body = { 0 };

	p->next_role = R_NONE;
	if (go_on) {
		/* Keep an incomplete character for the content. */
		hm__utf8_check(p->hdr.p, p->hdr.len, &err);
		if (err < 0) {
			size_t v = p->hdr.len;

			while (v > 0 && ((unsigned char)p->hdr.p[v - 1] & 0xC0) == 0x80)
				v--;
			if (v > 0)
				v--;
			tail = p->hdr.len - v;
		}
		p->hdr.len -= tail;
	}
	c = hm__p_header_split(p, role, &h, &consumed);
	if (c == (size_t)-1 && !p->strict) {
		size_t i;

		/* No role, yet text: the model's, so the assistant's (F2). */
		for (i = 0; i < p->hdr.len && hm_p_is_aws((unsigned char)p->hdr.p[i]); i++)
			;
		if (i < p->hdr.len) {
			hm__p_warn(p, hat, HM_F_NO_START, "header without a role: assistant assumed", NULL, 0);
			c = hm__p_header_split(p, HM_ROLE_ASSISTANT, &h, &consumed);
		}
	}
	if (c == (size_t)-1) {
		if (stop == HM_STOP_EOS) {
			p->trunc = 1;
			hm__p_warn(p, hat, HM_F_TRUNCATED, "stream ended inside a header", NULL, 0);
		} else
			hm__p_warn(p, hat, HM_F_HEADER, "header without a role skipped", NULL, 0);
		p->state = go_on ? S_SKIP : S_START;
		return;
	}
	if (c >= p->hs.len && !go_on) {
		/* Nothing but a header. */
		if (stop == HM_STOP_EOS) {
			if (p->hdr.len || !p->first_msg || p->role0 == R_NONE) {
				p->trunc = 1;
				hm__p_warn(p, hat, HM_F_TRUNCATED, "stream ended inside a header", NULL, 0);
			}
			p->state = S_START;
			return;
		}
		if (!consumed) {
			if (p->hdr.len)
				hm__p_warn(p, hat, HM_F_NO_MESSAGE, "empty header skipped", NULL, 0);
			p->state = S_START;
			return;
		}
	}
	/* The content is the header's bytes from r on, checked as content. */
	r = hdr_raw_off(p, c);
	if (hm__utf8_check(p->hdr.p, r, &err) < r)
		hm__p_warn(p, hat, HM_F_UTF8, "invalid UTF-8 in header replaced by U+FFFD", NULL, 0);
	plain = !consumed && p->first_msg && !p->saw_special;
	/*
	 * F18: text with no channel (no header, or a role alone) waits until
	 * the next message tells whether it was reasoning.
	 */
	hold = !h.has[P_CHAN] && !h.has[P_RCPT] && !p->holding && !p->strict &&
	    !(plain && p->marker.len) && h.role == HM_ROLE_ASSISTANT;
	if (hold) {
		/* F18: held until the next message tells what it is. */
		p->held = 1;
		p->hq = p->qlen;
		p->ha = p->arena.len;
	}
	if (h.has[P_RCPT] && h.off[P_RCPT] >= 13 && !memcmp(p->hs.p + h.off[P_RCPT] - 13, "<|constrain|>", 13))
		hm__p_warn(p, hat, HM_F_CONTENT_TYPE, "\"<|constrain|>%s\" names a tool, not a content type: taken as the recipient",
		    p->hs.p + h.off[P_RCPT], h.len[P_RCPT]);
	if (consumed)
		hm__p_warn(p, hat, HM_F_NO_MESSAGE, "no <|message|> after the header: the rest is content", NULL, 0);
	else if (!(plain && p->marker.len))
		hm__p_warn(p, hat, HM_F_NO_HEADER, "text without a header taken as content", NULL, 0);
	hm_buf_add(&body, p->hdr.p + r, p->hdr.len + tail - r);
	if (plain && p->marker.len) {
		/* --marker: plain text starts as reasoning. */
		h.off[P_CHAN] = p->hs.len;
		h.len[P_CHAN] = 8;
		h.has[P_CHAN] = 1;
		hm_buf_adds(&p->hs, "analysis");
	}
	hm__p_emit_start(p, &h, p->hs.p, hat);
	if (hold) {
		p->holding = 1;
		p->hstart = p->qlen - 1;
	}
	hm__p_content_begin(p, p->hdr_off + r);
	p->state = S_CONTENT;
	/* Text after <|end|> without a header: like plain text, not cut off at the end. */
	p->plain = plain || (p->no_start && !consumed);
	if (plain && p->marker.len)
		p->split = 2;
	else if (plain && hold && p->text_mode)
		p->split = 1; /* F18 with stripped specials: `I think.assistantfinal4` */
	if (body.len)
		hm__p_content_bytes_to(p, body.p, body.len, p->hdr_off + r + body.len);
	p->oom |= body.oom;
	hm_buf_free(&body);
	if (!go_on)
		hm__p_finish_msg(p, stop);
}

void
hm__p_junk_add(hm_parser *p, const char *s, size_t n)
{
	if (s)
		hm_buf_add(&p->junk, s, n);
	else
		hm_buf_add(&p->junk, "\xEF\xBF\xBD", 3);
	p->junk_end = p->text_mode ? p->unit_end : p->pos + 1;
	if (p->junk.oom)
		p->oom = 1;
}

/* The text after a stop is a role word alone (`assistant`): its index, or -1. */
int
hm__p_junk_role(hm_parser *p)
{
	size_t a = 0, b = p->junk.len;

	while (a < b && hm_p_is_aws((unsigned char)p->junk.p[a]))
		a++;
	while (b > a && hm_p_is_aws((unsigned char)p->junk.p[b - 1]))
		b--;
	return hm__p_role_index(p->junk.p + a, b - a);
}

/* The text after a stop is header words (`to=functions.f`), not prose. */
int
hm__p_junk_header(hm_parser *p)
{
	hm_buf t = { 0 };
	size_t i;
	int r;

	for (i = 0; i < p->junk.len && hm_p_is_aws((unsigned char)p->junk.p[i]); i++)
		;
	if (i == p->junk.len || p->junk.len - i < 3 || memcmp(p->junk.p + i, "to=", 3))
		return 0;
	hm__p_add_lossy(&t, p->junk.p, p->junk.len);
	r = !t.oom && !hm__hdr_is_prose(t.p, t.len);
	p->oom |= t.oom;
	hm_buf_free(&t);
	return r;
}

/*
 * Text after a stop, and another message after it: not what follows a
 * completion's last stop (F9's to skip) but model output, kept.  Reasoning
 * or answer?  In doubt: reasoning.
 */
void
hm__p_junk_keep(hm_parser *p, hm_stop stop)
{
	struct hdr h;
	uint64_t pos = p->pos, end = p->unit_end;

	p->junk_on = 0;
	memset(&h, 0, sizeof h);
	h.role = HM_ROLE_ASSISTANT;
	h.has[P_CHAN] = 1;
	h.len[P_CHAN] = 8;
	if (p->holding == 1)
		hm__p_hold_release(p, 1);
	if (stop == HM_STOP_NONE && !p->holding) {
		/* Kept only if a stop follows: else it was after the last one. */
		p->holding = 2;
		p->hq = p->qlen;
		p->ha = p->arena.len;
	}
	hm__p_warn(p, p->junk_at, HM_F_AFTER_STOP, stop == HM_STOP_NONE ?
	    "text after a stop, before another message, kept as reasoning (analysis)" :
	    "text after a stop, ended by another stop, kept as reasoning (analysis)", NULL, 0);
	p->pos = p->junk_at;
	p->unit_end = p->junk_at;
	hm__p_emit_start(p, &h, "analysis", p->junk_at);
	p->state = S_CONTENT;
	hm__p_content_bytes_to(p, p->junk.p, p->junk.len, p->junk_at + p->junk.len);
	p->pos = stop == HM_STOP_NONE ? p->junk_end : pos;
	hm__p_finish_msg(p, stop);
	p->jend = p->qlen;
	p->pos = pos;
	p->unit_end = end;
	hm_buf_reset(&p->junk);
}
