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
 * The offset in p->h.text of the text at offset c of p->h.hs (header_split):
 * hs is hdr with each invalid sequence as U+FFFD and, before c only, some
 * blanks dropped, so the text from c on is that of the same bytes of hdr.
 */
static size_t
hdr_raw_off(const hm_parser *p, size_t c)
{
	const char *s = p->h.text.p;
	size_t n = p->h.text.len, i = 0, v, o = 0, want;
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
	want = o - (p->h.hs.len - c);
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
	int consumed, err, plain, hold, role = p->st.first_msg ? p->st.next_role : R_NONE;
	uint64_t hat = p->h.at;
	hm_buf body = { 0 };

	p->st.next_role = R_NONE;
	if (go_on) {
		/* Keep an incomplete character for the content. */
		hm__utf8_check(p->h.text.p, p->h.text.len, &err);
		if (err < 0) {
			size_t v = p->h.text.len;

			while (v > 0 && ((unsigned char)p->h.text.p[v - 1] & 0xC0) == 0x80)
				v--;
			if (v > 0)
				v--;
			tail = p->h.text.len - v;
		}
		p->h.text.len -= tail;
	}
	c = hm__p_header_split(p, role, &h, &consumed);
	if (c == (size_t)-1 && !p->cf.strict) {
		size_t i;

		/* No role, yet text: the model's, so the assistant's (F2). */
		for (i = 0; i < p->h.text.len && hm_p_is_aws((unsigned char)p->h.text.p[i]); i++)
			;
		if (i < p->h.text.len) {
			hm__p_warn(p, hat, HM_F_NO_START, "header without a role: assistant assumed", NULL, 0);
			c = hm__p_header_split(p, HM_ROLE_ASSISTANT, &h, &consumed);
		}
	}
	if (c == (size_t)-1) {
		if (stop == HM_STOP_EOS) {
			p->q.trunc = 1;
			hm__p_warn(p, hat, HM_F_TRUNCATED, "stream ended inside a header", NULL, 0);
		} else
			hm__p_warn(p, hat, HM_F_HEADER, "header without a role skipped", NULL, 0);
		p->st.state = go_on ? S_SKIP : S_START;
		return;
	}
	if (c >= p->h.hs.len && !go_on) {
		/* Nothing but a header. */
		if (stop == HM_STOP_EOS) {
			if (p->h.text.len || !p->st.first_msg || p->cf.role0 == R_NONE) {
				p->q.trunc = 1;
				hm__p_warn(p, hat, HM_F_TRUNCATED, "stream ended inside a header", NULL, 0);
			}
			p->st.state = S_START;
			return;
		}
		if (!consumed) {
			if (p->h.text.len)
				hm__p_warn(p, hat, HM_F_NO_MESSAGE, "empty header skipped", NULL, 0);
			p->st.state = S_START;
			return;
		}
	}
	/* The content is the header's bytes from r on, checked as content. */
	r = hdr_raw_off(p, c);
	if (hm__utf8_check(p->h.text.p, r, &err) < r)
		hm__p_warn(p, hat, HM_F_UTF8, "invalid UTF-8 in header replaced by U+FFFD", NULL, 0);
	plain = !consumed && p->st.first_msg && !p->st.saw_special;
	/*
	 * F18: text with no channel (no header, or a role alone) waits until
	 * the next message tells whether it was reasoning.
	 */
	hold = !h.has[P_CHAN] && !h.has[P_RCPT] && !p->q.holding && !p->cf.strict &&
	    !(plain && p->cf.marker.len) && h.role == HM_ROLE_ASSISTANT;
	if (hold) {
		/* F18: held until the next message tells what it is. */
		p->q.hq = p->q.len;
		p->q.ha = p->q.arena.len;
	}
	if (h.has[P_RCPT] && h.off[P_RCPT] >= 13 && !memcmp(p->h.hs.p + h.off[P_RCPT] - 13, "<|constrain|>", 13))
		hm__p_warn(p, hat, HM_F_CONTENT_TYPE, "\"<|constrain|>%s\" names a tool, not a content type: taken as the recipient",
		    p->h.hs.p + h.off[P_RCPT], h.len[P_RCPT]);
	if (consumed)
		hm__p_warn(p, hat, HM_F_NO_MESSAGE, "no <|message|> after the header: the rest is content", NULL, 0);
	else if (!(plain && p->cf.marker.len))
		hm__p_warn(p, hat, HM_F_NO_HEADER, "text without a header taken as content", NULL, 0);
	hm_buf_add(&body, p->h.text.p + r, p->h.text.len + tail - r);
	if (plain && p->cf.marker.len) {
		/* --marker: plain text starts as reasoning. */
		h.off[P_CHAN] = p->h.hs.len;
		h.len[P_CHAN] = 8;
		h.has[P_CHAN] = 1;
		hm_buf_adds(&p->h.hs, "analysis");
	}
	hm__p_emit_start(p, &h, p->h.hs.p, hat);
	if (hold) {
		p->q.holding = 1;
		p->q.hstart = p->q.len - 1;
	}
	hm__p_content_begin(p, p->h.off + r);
	p->st.state = S_CONTENT;
	/* Text after <|end|> without a header: like plain text, not cut off at the end. */
	p->c.plain = plain || (p->st.no_start && !consumed);
	if (plain && p->cf.marker.len)
		p->c.split = 2;
	else if (plain && hold && p->in.text_mode)
		p->c.split = 1; /* F18 with stripped specials: `I think.assistantfinal4` */
	if (body.len)
		hm__p_content_bytes_to(p, body.p, body.len, p->h.off + r + body.len);
	p->q.oom |= body.oom;
	hm_buf_free(&body);
	if (!go_on)
		hm__p_finish_msg(p, stop);
}

void
hm__p_junk_add(hm_parser *p, const char *s, size_t n)
{
	if (s)
		hm_buf_add(&p->r.junk, s, n);
	else
		hm_buf_add(&p->r.junk, "\xEF\xBF\xBD", 3);
	p->r.junk_end = p->in.text_mode ? p->st.unit_end : p->st.pos + 1;
	if (p->r.junk.oom)
		p->q.oom = 1;
}

/* The text after a stop is a role word alone (`assistant`): its index, or -1. */
int
hm__p_junk_role(hm_parser *p)
{
	size_t a = 0, b = p->r.junk.len;

	while (a < b && hm_p_is_aws((unsigned char)p->r.junk.p[a]))
		a++;
	while (b > a && hm_p_is_aws((unsigned char)p->r.junk.p[b - 1]))
		b--;
	return hm__p_role_index(p->r.junk.p + a, b - a);
}

/* The text after a stop is header words (`to=functions.f`), not prose. */
int
hm__p_junk_header(hm_parser *p)
{
	hm_buf t = { 0 };
	size_t i;
	int r;

	for (i = 0; i < p->r.junk.len && hm_p_is_aws((unsigned char)p->r.junk.p[i]); i++)
		;
	if (i == p->r.junk.len || p->r.junk.len - i < 3 || memcmp(p->r.junk.p + i, "to=", 3))
		return 0;
	hm__p_add_lossy(&t, p->r.junk.p, p->r.junk.len);
	r = !t.oom && !hm__hdr_is_prose(t.p, t.len);
	p->q.oom |= t.oom;
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
	uint64_t pos = p->st.pos, end = p->st.unit_end;

	p->r.junk_on = 0;
	memset(&h, 0, sizeof h);
	h.role = HM_ROLE_ASSISTANT;
	h.has[P_CHAN] = 1;
	h.len[P_CHAN] = 8;
	if (p->q.holding == 1)
		hm__p_hold_release(p, 1);
	if (stop == HM_STOP_NONE && !p->q.holding) {
		/* Kept only if a stop follows: else it was after the last one. */
		p->q.holding = 2;
		p->q.hq = p->q.len;
		p->q.ha = p->q.arena.len;
	}
	hm__p_warn(p, p->r.junk_at, HM_F_AFTER_STOP, stop == HM_STOP_NONE ?
	    "text after a stop, before another message, kept as reasoning (analysis)" :
	    "text after a stop, ended by another stop, kept as reasoning (analysis)", NULL, 0);
	p->st.pos = p->r.junk_at;
	p->st.unit_end = p->r.junk_at;
	hm__p_emit_start(p, &h, "analysis", p->r.junk_at);
	p->st.state = S_CONTENT;
	hm__p_content_bytes_to(p, p->r.junk.p, p->r.junk.len, p->r.junk_at + p->r.junk.len);
	p->st.pos = stop == HM_STOP_NONE ? p->r.junk_end : pos;
	hm__p_finish_msg(p, stop);
	p->q.jend = p->q.len;
	p->st.pos = pos;
	p->st.unit_end = end;
	hm_buf_reset(&p->r.junk);
}
