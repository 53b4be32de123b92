/*
 * parse_step.c - the state machine (struct p_machine and struct p_input,
 * which it owns): the input fed and read, the fast path that makes runs
 * of plain content tokens deltas, and the step: one unit (a token, or in
 * text mode a run of ordinary bytes or one special token) moves the parser
 * between start, header, content and skip; the end of the stream; F17
 * (<|start|> or <|channel|> inside content held until the units after it
 * tell a header from text) and F9 (text after a stop kept as a message),
 * which step units again at their own positions; and the text-input
 * scanner that cuts reads into units.  Only this file moves the state:
 * the layers below return where to go.  Called by parse.c; calls the
 * layers below it.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser_int.h"
#include "vocab_int.h"

/* ---------------------------------------------------------------- the machine */

void
hm__p_machine_init(hm_parser *p)
{
	p->st.next_role = p->cf.role0 == R_AUTO ? R_NONE : p->cf.role0;
	p->st.state = S_START;
	p->st.first = 1;
}

/* A header begins at `at`. */
static void
to_header(hm_parser *p, uint64_t at)
{
	hm__p_header_begin(p, at);
	p->st.started = 1;
	p->st.no_start = 0;
	p->st.after_end = 0;
	p->st.state = S_HEADER;
}

/* The role a header is read with: the one given for the first, once. */
static int
take_role(hm_parser *p)
{
	int role = p->st.first_msg ? p->st.next_role : R_NONE;

	p->st.next_role = R_NONE;
	return role;
}

/* <|message|> ends the header. */
static void
header_done(hm_parser *p)
{
	int role = take_role(p);

	p->st.state = hm__p_header_done(p, role);
}

/* The header ended without <|message|>. */
static void
header_recover(hm_parser *p, hm_stop stop, int go_on)
{
	int role = take_role(p);

	p->st.state = hm__p_header_recover(p, role, stop, go_on);
}

/* The message ends: a start follows. */
static void
finish_msg(hm_parser *p, hm_stop stop)
{
	hm__p_finish_msg(p, stop);
	p->st.state = S_START;
}

/* A strict-mode failure: the error, and nothing more. */
static void
fail(hm_parser *p, const char *msg, size_t n)
{
	hm__p_fail(p, p->st.pos, msg, n);
	p->st.state = S_DONE;
}

static int
is_stop(uint32_t id)
{
	return id == HM_TOK_RETURN || id == HM_TOK_END || id == HM_TOK_CALL;
}

static hm_stop
stop_of(uint32_t id)
{
	return id == HM_TOK_RETURN ? HM_STOP_RETURN : id == HM_TOK_CALL ?
	    HM_STOP_CALL : HM_STOP_END;
}

static void
first_unit(hm_parser *p, int is_start)
{
	p->st.first = 0;
	if (p->cf.cont && !is_start) {
		/* a prefill continued: its content from the first unit on */
		struct hdr h;

		memset(&h, 0, sizeof h);
		h.role = p->cf.role0 >= 0 ? p->cf.role0 : HM_ROLE_ASSISTANT;
		if (p->cf.cont_chan) {
			h.has[P_CHAN] = 1;
			h.len[P_CHAN] = p->cf.cont_name.len;
		}
		p->st.started = 1;
		p->st.first_msg = 0;
		p->st.next_role = R_NONE;
		hm__p_emit_start(p, &h, p->cf.cont_name.p ? p->cf.cont_name.p : "", p->st.pos,
		    p->st.pos, 0);
		p->st.state = S_CONTENT;
		return;
	}
	if (p->cf.role0 == R_AUTO)
		p->st.next_role = is_start ? R_NONE : HM_ROLE_ASSISTANT;
	if (p->st.next_role != R_NONE) {
		to_header(p, p->st.pos);
		p->st.first_msg = 1;
	}
}

static void
skip_warn(hm_parser *p, uint64_t at, const char *what)
{
	if (p->st.skip_warned)
		return;
	p->st.skip_warned = at + 1;
	hm__p_warn(p, at, HM_F_AFTER_STOP, what, NULL, 0);
}


/*
 * Text (or a special token that opens no header) after an <|end|>: the
 * model goes on, so it is a message of its own.  It is read as a header
 * given the assistant's role, as the text that opens a completion is: a
 * header if <|message|> ends it, else a message without one (F8; F18 when
 * a message with a channel follows).  k: blanks to skip (text input).
 */
static void
after_end_text(hm_parser *p, uint32_t id, int special, const char *s, size_t n,
    size_t k)
{
	p->st.pos += k;
	to_header(p, p->st.pos);
	p->st.first_msg = 1;
	p->st.next_role = HM_ROLE_ASSISTANT;
	p->st.no_start = 1;
	hm__p_step(p, id, special, k ? s + k : s, n - k);
	p->st.pos -= k;
}

/*
 * The text held since a stop (p->r.junk) turns out to be a header whose
 * <|start|>assistant was left out: an assistant message starts with it,
 * at the junk's position.
 */
static void
junk_to_header(hm_parser *p)
{
	uint64_t jat = p->r.junk_at;
	hm_buf jt = hm__p_junk_take(p);

	hm__p_warn(p, jat, HM_F_NO_START, "header without <|start|>: assistant assumed", NULL, 0);
	p->st.skip_warned = 0;
	to_header(p, jat);
	p->st.first_msg = 1;
	p->st.next_role = HM_ROLE_ASSISTANT;
	hm__p_header_add(p, jt.p, jt.len);
	hm_buf_free(&jt);
}

static int
ident_byte(char c)
{
	return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/*
 * After `<|start|>ROLE` in content, the text t[0..n) (n > 0) glued to the
 * role: a header when it is the role again or, for the assistant, a
 * channel name or `to=` (`<|start|>assistantfinal`): 1, 0, or -1 when
 * more is needed (never with closed).
 */
static int
peek_glued(int role, const char *t, size_t n, int closed)
{
	const char *w;
	size_t j, m;
	int more = 0;

	/* the role, then for the assistant each channel and `to=` */
	for (j = 0; j < (role == HM_ROLE_ASSISTANT ? HM__NCHANS + 2u : 1u); j++) {
		w = !j ? hm__role_names[role] : j <= HM__NCHANS ? hm__chan_names[j - 1] : "to=";
		m = strlen(w);
		if (n < m) {
			more |= !memcmp(t, w, n);
			continue;
		}
		if (memcmp(t, w, m))
			continue;
		if (j == HM__NCHANS + 1 || (n > m && !ident_byte(t[m])))
			return 1;
		if (n == m)
			return closed ? 1 : -1;
	}
	return more && !closed ? -1 : 0;
}

/*
 * After <|start|> or <|channel|> in content: 1 when the text t[0..n)
 * after it begins a header (a role, a channel name), 0 when it does not,
 * -1 when more is needed (never with closed: nothing more comes).
 */
static int
peek_header(uint32_t id, const char *t, size_t n, int closed)
{
	size_t i = 0, k, m;
	int more = 0, r;

	if (id == HM_TOK_CHANNEL)
		while (i < n && (t[i] == ' ' || t[i] == '\t'))
			i++;
	for (k = 0; k < (id == HM_TOK_START ? (size_t)HM__NROLES : (size_t)HM__NCHANS); k++) {
		const char *w = id == HM_TOK_START ? hm__role_names[k] : hm__chan_names[k];

		m = strlen(w);
		if (n - i < m) {
			if (!memcmp(t + i, w, n - i))
				more = 1;
			continue;
		}
		if (memcmp(t + i, w, m))
			continue;
		if (n - i == m)
			return closed ? 1 : -1;
		if (!ident_byte(t[i + m]))
			return 1;
		if (id == HM_TOK_START && (r = peek_glued((int)k, t + i + m, n - i - m, closed)))
			return r;
	}
	return more && !closed ? -1 : 0;
}

/* S_PEEK: decide when the units held tell; then run them again. */
static void
peek_decide(hm_parser *p, int closed)
{
	const struct punit *v = p->r.pk, *u;
	const hm_buf *pb = &p->r.pkb;
	struct punit *vt;
	hm_buf b;
	size_t n = p->r.npk, i, tl = 0;
	uint64_t pos = p->st.pos, end = p->st.unit_end;
	int r;

	if (p->nomem)
		return; /* a unit held may lack its bytes: the parser stops */
	/* The ordinary text after the token, up to the next special. */
	for (i = 1; i < n && v[i].known && !v[i].special; i++)
		tl = v[i].off + v[i].len - v[1].off;
	if (i < n)
		closed = 1;
	r = peek_header(v[0].id, n > 1 ? pb->p + v[1].off : "", tl, closed);
	if (r < 0)
		return;
	/* The units go again through the machine, which may peek anew. */
	hm__p_peek_take(p, &vt, &n, &b);
	v = vt;
	p->st.pos = v[0].pos;
	p->st.unit_end = v[0].end;
	if (r > 0) {
		finish_msg(p, HM_STOP_NONE);
		hm__p_warn(p, p->st.pos, HM_F_SPECIAL, v[0].id == HM_TOK_START ?
		    "<|start|> inside a message ends it" :
		    "<|channel|> inside a message ends it: assistant assumed", NULL, 0);
		to_header(p, p->st.pos);
		if (v[0].id == HM_TOK_CHANNEL) {
			p->st.first_msg = 1;
			p->st.next_role = HM_ROLE_ASSISTANT;
			hm__p_header_add(p, b.p + v[0].off, v[0].len);
		} else {
			p->st.first_msg = 0;
			p->st.next_role = R_NONE;
		}
	} else {
		/* Text after all, as the reference has it. */
		p->st.state = S_CONTENT;
		hm__p_content_special(p, b.p + v[0].off, v[0].len);
	}
	for (i = 1; i < n; i++) {
		u = &v[i];
		p->st.pos = u->pos;
		p->st.unit_end = u->end;
		hm__p_step(p, u->id, u->special, u->known ? b.p + u->off : NULL, u->len);
	}
	p->st.pos = pos;
	p->st.unit_end = end;
	free(vt);
	hm_buf_free(&b);
}

/*
 * F13: the header so far is text whose special tokens a server stripped:
 * its messages have started (1).
 */
static int
stripped_start(hm_parser *p, int at_end)
{
	int r = hm__p_stripped_start(p, at_end);

	if (r > 0) {
		p->st.next_role = R_NONE;
		p->st.state = S_CONTENT;
	}
	return r;
}

/*
 * Text after a stop, and another message after it: not what follows a
 * completion's last stop (F9's to skip) but model output, kept.  Reasoning
 * or answer?  In doubt: reasoning.  Its units are stepped at the text's
 * own position.
 */
static void
junk_keep(hm_parser *p, hm_stop stop)
{
	struct hdr h;
	uint64_t pos = p->st.pos, end = p->st.unit_end, at = p->r.junk_at;
	const hm_buf *j = &p->r.junk;

	memset(&h, 0, sizeof h);
	h.role = HM_ROLE_ASSISTANT;
	h.has[P_CHAN] = 1;
	h.len[P_CHAN] = 8;
	if (p->q.holding == 1)
		hm__p_hold_release(p, 1);
	if (stop == HM_STOP_NONE && !p->q.holding) {
		/* Kept only if a stop follows: else it was after the last one. */
		hm__p_hold_mark(p);
		hm__p_hold_on(p, 2);
	}
	hm__p_warn(p, at, HM_F_AFTER_STOP, stop == HM_STOP_NONE ?
	    "text after a stop, before another message, kept as reasoning (analysis)" :
	    "text after a stop, ended by another stop, kept as reasoning (analysis)", NULL, 0);
	p->st.pos = at;
	p->st.unit_end = at;
	hm__p_emit_start(p, &h, "analysis", at, at, 0);
	p->st.state = S_CONTENT;
	hm__p_content_bytes_to(p, j->p, j->len, at + j->len);
	p->st.pos = stop == HM_STOP_NONE ? p->r.junk_end : pos;
	finish_msg(p, stop);
	hm__p_hold_end(p);
	p->st.pos = pos;
	p->st.unit_end = end;
	hm__p_junk_close(p);
}

/*
 * The state machine, a function a state; hm__p_step dispatches.  Each
 * takes one token (or text unit): id, whether it is special, its bytes
 * s/n (NULL for an unknown id).
 */

/* S_START in strict mode: anything but <|start|> fails, as the reference. */
static void
start_strict(hm_parser *p, uint32_t id, int special, const char *s)
{
	if (s && !special && p->in.text_mode) {
		static const char msg[] = "Unexpected text while expecting start token 200006";

		fail(p, msg, sizeof msg - 1);
	} else {
		char b[80];
		int k = snprintf(b, sizeof b, "Unexpected token %lu while expecting start token 200006",
		    (unsigned long)id);

		fail(p, b, (size_t)k);
	}
}

/* S_START, text or an unknown id (not special): blanks, the model's own text, junk. */
static void
start_text(hm_parser *p, uint32_t id, int special, const char *s, size_t n)
{
	/* Whitespace between messages is not worth a word. */
	size_t i = 0;

	while (!special && s && i < n && hm__p_is_aws((unsigned char)s[i]))
		i++;
	if (!special && s && i == n)
		return;
	if (!p->st.started) {
		/*
		 * --role none, yet no <|start|>: the model's own text.
		 * Text: it starts after the blanks, as when they came
		 * in a read of their own.
		 */
		size_t k = p->in.text_mode ? i : 0;

		p->st.pos += k;
		hm__p_warn(p, p->st.pos, HM_F_NO_START, "stream does not start with <|start|>: assistant assumed", NULL, 0);
		to_header(p, p->st.pos);
		p->st.first_msg = 1;
		p->st.next_role = HM_ROLE_ASSISTANT;
		hm__p_step(p, id, special, k ? s + k : s, n - k);
		p->st.pos -= k;
		return;
	}
	if (p->st.after_end) {
		after_end_text(p, id, special, s, n, p->in.text_mode ? i : 0);
		return;
	}
	if (!p->st.skip_warned && !p->r.junk_on) {
		hm__p_junk_open(p, p->st.pos + (p->in.text_mode ? i : 0), s ? s + i : NULL, n - i);
		p->st.state = S_SKIP;
		return;
	}
	skip_warn(p, p->st.pos + (p->in.text_mode ? i : 0),
	    "tokens after a stop skipped up to the next <|start|>");
	p->st.state = S_SKIP;
}

/* S_START: between messages. */
static void
step_start(hm_parser *p, uint32_t id, int special, const char *s, size_t n)
{
	p->st.first_msg = 0;
	if (special && id == HM_TOK_START) {
		p->st.skip_warned = 0;
		to_header(p, p->st.pos);
		return;
	}
	if (p->cf.strict) {
		start_strict(p, id, special, s);
		return;
	}
	if (special && is_stop(id)) {
		if (id != HM_TOK_END)
			p->st.after_end = 0;
		hm__p_warn(p, p->st.pos, HM_F_AFTER_STOP, "stray stop token ignored", NULL, 0);
		return;
	}
	if (special && id == HM_TOK_CHANNEL) {
		hm__p_warn(p, p->st.pos, HM_F_NO_START, "<|channel|> without <|start|>: assistant assumed", NULL, 0);
		to_header(p, p->st.pos);
		p->st.first_msg = 1;
		p->st.next_role = HM_ROLE_ASSISTANT;
		hm__p_header_add(p, s, n);
		return;
	}
	start_text(p, id, special, s, n);
}

/* S_SKIP, at <|start|> or <|channel|>: the skipped text ends, a header begins. */
static void
skip_to_header(hm_parser *p, uint32_t id, const char *s, size_t n)
{
	int role = HM_ROLE_ASSISTANT;

	if (p->r.junk_on && id == HM_TOK_CHANNEL && (role = hm__p_junk_role(p)) >= 0) {
		/* `<|end|>assistant<|channel|>`: <|start|> left out. */
		hm__p_warn(p, p->r.junk_at, HM_F_NO_START, "header without <|start|>", NULL, 0);
		hm__p_junk_close(p);
	} else if (p->r.junk_on && id == HM_TOK_CHANNEL && hm__p_junk_header(p)) {
		/* `<|call|>to=functions.f<|channel|>`: the header's start. */
		junk_to_header(p);
		hm__p_header_add(p, s, n);
		return;
	} else {
		role = HM_ROLE_ASSISTANT;
		if (p->r.junk_on)
			junk_keep(p, HM_STOP_NONE);
		if (id == HM_TOK_CHANNEL)
			hm__p_warn(p, p->st.pos, HM_F_NO_START, "<|channel|> without <|start|>: assistant assumed", NULL, 0);
	}
	p->st.skip_warned = 0;
	p->st.first_msg = 0;
	to_header(p, p->st.pos);
	if (id == HM_TOK_CHANNEL) {
		/* A message without <|start|> after skipped text: not lost. */
		p->st.first_msg = 1;
		p->st.next_role = role;
		hm__p_header_add(p, s, n);
	}
}

/* S_SKIP: text after a stop, kept (F9) until what it was shows. */
static void
step_skip(hm_parser *p, uint32_t id, int special, const char *s, size_t n)
{
	if (special && (id == HM_TOK_START || id == HM_TOK_CHANNEL)) {
		skip_to_header(p, id, s, n);
	} else if (p->r.junk_on && special && id == HM_TOK_MESSAGE) {
		/* `<|call|>commentary to=f json<|message|>`: the text was a header. */
		junk_to_header(p);
		header_done(p);
	} else if (p->r.junk_on && special && is_stop(id)) {
		/* Text and a stop: a message without a header, not the last. */
		junk_keep(p, stop_of(id));
		p->st.state = S_START;
		p->st.after_end = id == HM_TOK_END;
	} else if (p->r.junk_on)
		hm__p_junk_add(p, s, n);
}

/*
 * F21 (issue 35, shape d): a call's header that never reached <|message|>
 * ran on over its arguments into the next header, the <|call|> and
 * <|start|> between them stripped: `to=functions.f json{"a":1}assistant`
 * before <|channel|>, or `...{"a":1}assistantfinal` before <|message|>
 * (msg).  When the header's text is a recipient's header, one whole JSON
 * value and then only such words, the call ends after the value (its stop
 * assumed, F19) and the words start the next header, which the special
 * token then goes on; else nothing changes.
 */
static void
glued_split(hm_parser *p, int msg)
{
	const char *t = p->h.text.p;
	size_t n = p->h.text.len, j, k, r, e;
	struct hm_jcheck jc;
	hm_buf rest = { 0 };
	uint64_t at, pos = p->st.pos;
	int ok;

	if (p->cf.strict || n < 15)
		return;
	/*
	 * First what every header but these fails at once: its end is
	 * `}assistant` or `]assistant` (before <|channel|>), or that and a
	 * channel name (before <|message|>), blanks between allowed; byte
	 * tests first, as this runs at the end of every header.
	 */
	k = 0;
	for (e = n; e > 0 && hm__p_is_aws((unsigned char)t[e - 1]); e--)
		;
	r = e;
	if (msg) {
		/* the channel name, known by its last letter */
		k = t[e - 1] == 'l' ? 5 : t[e - 1] == 's' ? 8 : t[e - 1] == 'y' ? 10 : 0;
		if (!k || e < k + 11)
			return;
		for (e -= k; e > 0 && hm__p_is_aws((unsigned char)t[e - 1]); e--)
			;
	}
	if (e < 11 || t[e - 1] != 't' || (t[e - 10] != '}' && t[e - 10] != ']' &&
	    !hm__p_is_aws((unsigned char)t[e - 10])) || memcmp(t + e - 9, "assistant", 9) ||
	    (msg && hm__chan_index(t + r - k, k) < 0))
		return;
	for (e -= 9; e > 0 && hm__p_is_aws((unsigned char)t[e - 1]); e--)
		;
	if (e == 0 || (t[e - 1] != '}' && t[e - 1] != ']'))
		return;
	for (j = 0; j < n && t[j] != '{' && t[j] != '['; j++)
		;
	if (j == n)
		return;
	for (k = 0; k + 3 <= j && memcmp(t + k, "to=", 3); k++)
		;
	if (k + 3 > j)
		return; /* no recipient before the value */
	hm__jcheck_init(&jc);
	hm__jcheck_feed(&jc, t + j, n - j);
	if (hm__jcheck_bad(&jc) && !hm__jcheck_unfeed_tail(&jc))
		return;
	if (!hm__jcheck_done(&jc))
		return;
	k = j + jc.end;
	for (r = k; r < n && hm__p_is_aws((unsigned char)t[r]); r++)
		;
	for (e = n; e > r && hm__p_is_aws((unsigned char)t[e - 1]); e--)
		;
	if (e - r < 9 || memcmp(t + r, "assistant", 9))
		return;
	if (msg) {
		size_t c = r + 9;

		while (c < e && hm__p_is_aws((unsigned char)t[c]))
			c++;
		ok = hm__chan_index(t + c, e - c) >= 0;
	} else
		ok = e == r + 9;
	if (!ok)
		return;
	hm__add(&p->nomem, &rest, t + r, n - r);
	if (p->nomem) {
		hm_buf_free(&rest);
		return;
	}
	at = p->in.text_mode ? p->h.off + k : pos;
	hm__p_header_cut(p, k);
	header_recover(p, HM_STOP_NONE, 1);
	if (p->st.state == S_CONTENT) {
		p->st.pos = at;
		hm__p_warn(p, at, HM_F_GLUED, "a header glued after a tool call's arguments starts the next message", NULL, 0);
		hm__p_finish_msg(p, HM_STOP_NONE);
	}
	p->st.pos = p->in.text_mode ? at + (r - k) : pos;
	to_header(p, p->st.pos);
	p->st.first_msg = 0;
	p->st.next_role = R_NONE;
	hm__p_header_add(p, rest.p, rest.len);
	hm_buf_free(&rest);
	p->st.pos = pos;
}

/*
 * glued_split's cheap part, at the end of every header: the text, at
 * least 15 bytes, ends in `assistant` (msg 0) or in a channel name whose
 * byte before is that of `assistant` or a blank (msg 1).
 */
static inline void
glued_after_args(hm_parser *p, int msg)
{
	const char *t = p->h.text.p;
	size_t n = p->h.text.len, k;
	char c;

	if (n < 15)
		return;
	c = t[n - 1];
	if (msg) {
		k = c == 'l' ? 5 : c == 's' ? 8 : c == 'y' ? 10 : 0;
		c = k ? t[n - k - 1] : 0;
	}
	if (c == 't' || hm__p_is_aws((unsigned char)c))
		glued_split(p, msg);
}

/* S_HEADER, a special token that is not <|message|> (default mode). */
static int
header_special(hm_parser *p, uint32_t id, const char *s, size_t n)
{
	if (is_stop(id)) {
		header_recover(p, stop_of(id), 0);
		p->st.after_end = id == HM_TOK_END;
		return 1;
	}
	if (id == HM_TOK_START) {
		if (p->h.text.len && !hm__p_header_bare(p)) {
			header_recover(p, HM_STOP_NONE, 0);
			if (p->st.state == S_SKIP)
				p->st.state = S_START;
		} else {
			hm__p_warn(p, p->st.pos, HM_F_HEADER, "<|start|> inside a header: header restarted", NULL, 0);
		}
		p->st.next_role = R_NONE;
		p->st.first_msg = 0;
		to_header(p, p->st.pos);
		return 1;
	}
	if (id == HM_TOK_CHANNEL)
		glued_after_args(p, 0);
	if (id == HM_TOK_CHANNEL && hm__p_header_prose(p)) {
		/* `I think.<|channel|>final`: the text is a message, the header starts here. */
		header_recover(p, HM_STOP_NONE, 0);
		if (p->st.state == S_SKIP)
			p->st.state = S_START;
		to_header(p, p->st.pos);
		p->st.first_msg = 1;
		p->st.next_role = HM_ROLE_ASSISTANT;
		hm__p_header_add(p, s, n);
		return 1;
	}
	return 0;
}

/* S_HEADER: a message's header, up to <|message|>. */
static void
step_header(hm_parser *p, uint32_t id, int special, const char *s, size_t n)
{
	if (special && id == HM_TOK_MESSAGE) {
		glued_after_args(p, 1);
		if (p->st.no_start)
			hm__p_warn(p, p->h.at, HM_F_NO_START, "header without <|start|> after <|end|>: assistant assumed", NULL, 0);
		header_done(p);
		return;
	}
	if (!p->cf.strict && special && header_special(p, id, s, n))
		return;
	if (!s) {
		hm__p_header_unknown(p, id);
		return;
	}
	hm__p_header_add(p, s, n);
	if (!p->cf.strict) {
		int r = stripped_start(p, 0);

		/* (the word count first: most headers are short) */
		if (r == 0 && (p->h.nwords >= p->h.wmax || p->h.text.len > HDR_MAX_BYTES) &&
		    hm__p_header_too_long(p))
			header_recover(p, HM_STOP_NONE, 1);
	}
}

/* S_CONTENT: a message's content, up to its stop. */
static void
step_content(hm_parser *p, uint32_t id, int special, const char *s, size_t n)
{
	if (special && is_stop(id)) {
		finish_msg(p, stop_of(id));
		p->st.after_end = id == HM_TOK_END;
		return;
	}
	if (!p->cf.strict && special && (id == HM_TOK_START || id == HM_TOK_CHANNEL)) {
		/* Did the model leave out <|end|>?  The next units tell. */
		p->st.state = S_PEEK;
		hm__p_peek_open(p);
		hm__p_peek_add(p, id, special, s, n);
		return;
	}
	if (!s) {
		hm__p_content_unknown(p, id);
		return;
	}
	if (special)
		hm__p_content_special(p, s, n);
	else
		hm__p_content_bytes(p, s, n);
}

/* One token (or text unit).  s/n: its bytes (NULL for an unknown id). */
void
hm__p_step(hm_parser *p, uint32_t id, int special, const char *s, size_t n)
{
	if (special)
		p->st.saw_special = 1;
	if (special && is_stop(id) && p->q.holding == 2)
		hm__p_hold_drop(p); /* the text held was not after the last stop */
	if (p->st.first)
		first_unit(p, special && id == HM_TOK_START);
	switch (p->st.state) {
	case S_START:
		step_start(p, id, special, s, n);
		return;
	case S_SKIP:
		step_skip(p, id, special, s, n);
		return;
	case S_HEADER:
		step_header(p, id, special, s, n);
		return;
	case S_PEEK:
		hm__p_peek_add(p, id, special, s, n);
		peek_decide(p, special || !s);
		return;
	case S_CONTENT:
		step_content(p, id, special, s, n);
		return;
	default:
		return;
	}
}

void
hm__p_eos(hm_parser *p)
{
	if (p->st.first) {
		p->st.first = 0;
		if (p->cf.role0 == R_AUTO)
			p->st.next_role = R_NONE;
		if (p->st.next_role != R_NONE) {
			to_header(p, 0);
			p->st.first_msg = 1;
		}
	}
	if (p->st.state == S_PEEK)
		peek_decide(p, 1);
	if (p->q.holding == 2)
		hm__p_hold_skip(p); /* the text kept was after the last stop after all: skipped */
	if (p->r.junk_on) {
		/* After the last stop: skipped. */
		skip_warn(p, p->r.junk_at, "tokens after a stop skipped up to the next <|start|>");
		hm__p_junk_close(p);
	}
	switch (p->st.state) {
	case S_HEADER:
		if (p->cf.strict) {
			static const char msg[] = "Unexpected EOS while waiting for message header to complete";

			fail(p, msg, sizeof msg - 1);
			return;
		}
		if (stripped_start(p, 1) > 0) {
			finish_msg(p, HM_STOP_EOS);
			break;
		}
		header_recover(p, HM_STOP_EOS, 0);
		break;
	case S_CONTENT:
		finish_msg(p, HM_STOP_EOS);
		break;
	case S_DONE:
		return;
	default:
		break;
	}
	hm__p_hold_drop(p);
	if (p->in.cnt_enc) {
		p->in.cnt_ids.len = 0;
		if (hm_encoder_finish(p->in.cnt_enc, HM_ENC_SPECIAL | HM_ENC_LOSSY, &p->in.cnt_ids, NULL) != HM_OK)
			p->nomem = 1;
		p->in.cnt += p->in.cnt_ids.len;
	}
	hm__p_push_done(p, p->st.pos, p->in.text_mode ? p->in.cnt : p->st.pos);
	p->st.state = S_DONE;
}

/* ---------------------------------------------------------------- input */

hm_status
hm__p_input_ids(hm_parser *p, const uint32_t *ids, size_t n)
{
	if (p->in.ipos == p->in.ids.len)
		p->in.ids.len = p->in.ipos = 0;
	if (hm_ids_append(&p->in.ids, ids, n) != HM_OK) {
		p->nomem = 1;
		return HM_ENOMEM;
	}
	return HM_OK;
}

/*
 * HM_PARSE_COUNT: the count's encoder holds the text since the last line
 * break where its split pattern restarts, so one long line would be held
 * whole.  Past this much held, the text is cut before a space that
 * follows an ASCII letter: no piece of the pattern holds a letter then a
 * space (a word ends in a letter or a contraction, whose last character
 * is a letter), and no special token's text holds a space, so the ids up
 * to there and from there on are the ids of the whole.
 */
#define CNT_HOLD_MAX (1 << 20)

static int
cnt_letter(unsigned char c)
{
	return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

/* The last q in buf[0..n) where buf[q] is a space after an ASCII letter (before buf: last), or 0. */
static size_t
cnt_cut(const char *buf, size_t n, int last)
{
	size_t q;

	for (q = n; q-- > 1;)
		if (buf[q] == ' ' && cnt_letter((unsigned char)buf[q - 1]))
			return q;
	return n && buf[0] == ' ' && last ? 0 : (size_t)-1;
}

/* The text fed to the count's encoder, cut when it holds too much (cnt_cut). */
static hm_status
cnt_feed(hm_parser *p, const char *buf, size_t len)
{
	const unsigned flags = HM_ENC_SPECIAL | HM_ENC_LOSSY;
	size_t hl, q = (size_t)-1;
	const char *h = hm_encoder_held(p->in.cnt_enc, &hl);

	p->in.cnt_ids.len = 0;
	if (hl >= CNT_HOLD_MAX)
		q = cnt_cut(buf, len, cnt_letter((unsigned char)h[hl - 1]));
	if (q != (size_t)-1) {
		if (hm_encoder_feed(p->in.cnt_enc, buf, q, flags, &p->in.cnt_ids, NULL) != HM_OK ||
		    hm_encoder_finish(p->in.cnt_enc, flags, &p->in.cnt_ids, NULL) != HM_OK)
			return HM_ENOMEM; /* lossy: no other failure */
		buf += q;
		len -= q;
	}
	if (hm_encoder_feed(p->in.cnt_enc, buf, len, flags, &p->in.cnt_ids, NULL) != HM_OK)
		return HM_ENOMEM;
	p->in.cnt += p->in.cnt_ids.len;
	return HM_OK;
}

hm_status
hm__p_input_text(hm_parser *p, const char *buf, size_t len)
{
	p->in.text_mode = 1;
	if ((p->cf.flags & HM_PARSE_COUNT) && len) {
		if (!p->in.cnt_enc && !(p->in.cnt_enc = hm_encoder_new())) {
			p->nomem = 1;
			return HM_ENOMEM;
		}
		if (cnt_feed(p, buf, len) != HM_OK) {
			p->nomem = 1;
			return HM_ENOMEM;
		}
	}
	if (p->in.tpos) {
		memmove(p->in.text.p, p->in.text.p + p->in.tpos, p->in.text.len - p->in.tpos);
		p->in.text.len -= p->in.tpos;
		p->in.tpos = 0;
	}
	hm__add(&p->nomem, &p->in.text, buf, len);
	return p->nomem ? HM_ENOMEM : HM_OK;
}

void
hm__p_input_end(hm_parser *p)
{
	p->in.fin = 1;
}

/* The caller skips the unit at the current position (hm_parser_skip). */
void
hm__p_input_skip(hm_parser *p)
{
	p->st.pos++;
}

/* A new stream: the machine at its start, no input; storage kept. */
void
hm__p_input_reset(hm_parser *p)
{
	memset(&p->st, 0, sizeof p->st);
	hm__p_machine_init(p);
	p->in.text_mode = 0;
	if (p->in.ids.cap > HM__KEEP_MAX / sizeof *p->in.ids.v)
		hm_ids_free(&p->in.ids);
	p->in.ids.len = p->in.ipos = 0;
	hm__buf_clear(&p->in.text);
	p->in.tpos = 0;
	p->in.fin = p->in.done = 0;
	hm__buf_clear(&p->in.run);
	if (p->in.cnt_enc)
		hm_encoder_reset(p->in.cnt_enc);
	p->in.cnt_ids.len = 0;
	p->in.cnt = 0;
}

void
hm__p_input_free(hm_parser *p)
{
	hm_ids_free(&p->in.cnt_ids);
	hm_encoder_free(p->in.cnt_enc);
	hm_ids_free(&p->in.ids);
	hm_buf_free(&p->in.text);
	hm_buf_free(&p->in.run);
}

/* ---------------------------------------------------------------- text input */

/*
 * The next text unit at p->in.text[tpos..): a special token or a run of other
 * bytes.  Returns 0 when more input is needed to decide.
 */
static int
text_unit(hm_parser *p)
{
	const char *s = p->in.text.p + p->in.tpos;
	size_t n = p->in.text.len - p->in.tpos, i, j;
	uint32_t id;

	if (!n)
		return 0;
	if (s[0] == '<') {
		if (n < 2 && !p->in.fin)
			return 0;
		if (n >= 2 && s[1] == '|') {
			for (j = 2; j < n && j < 32; j++)
				if (s[j] == '>' && s[j - 1] == '|')
					break;
			if (j >= n && !p->in.fin)
				return 0;
			if (j < n && s[j] == '>' && hm_special_lookup(s, j + 1, &id)) {
				p->st.saw_special = 1;
				p->st.unit_end = p->st.pos + j + 1;
				hm__p_step(p, id, 1, s, j + 1);
				p->in.tpos += j + 1;
				p->st.pos += j + 1;
				return 1;
			}
		}
		i = 1;
	} else
		i = 0;
	/* A long run goes in pieces: the events of one unit are queued at once. */
	while (i < n && s[i] != '<' && i < TEXT_UNIT_MAX)
		i++;
	p->st.unit_end = p->st.pos + i;
	hm__p_step(p, 0, 0, s, i);
	p->in.tpos += i;
	p->st.pos += i;
	return 1;
}

/* ---------------------------------------------------------------- the fast path */

/*
 * Whether a token's bytes are whole UTF-8 characters.  Nearly every token
 * is ASCII, which a word-at-a-time test settles; the check is done per use,
 * so there is no shared table to fill or guard.
 */
static int
whole_chars(const char *s, size_t n)
{
	unsigned acc = 0;
	size_t i;
	int err;

	for (i = 0; i < n; i++)
		acc |= (unsigned char)s[i];
	if (acc < 0x80)
		return 1;
	return hm__utf8_check(s, n, &err) == n && !err;
}

/* Longest merged delta: bounds the run buffer whatever one feed holds. */
#define RUN_MAX (1u << 20)
/* Tokens the fast loop of merge_run takes between checks. */
#define RUN_CHUNK 256

#define HIGH8 UINT64_C(0x8080808080808080)

/*
 * The high bits of the bytes of a token of n (0..16) bytes, in the two
 * words it is read as: mask_lo[n] for bytes 0..7, mask_hi[n] for 8..15.
 */
#define M(k) (HIGH8 >> (64 - 8 * (k))) /* k = 1..8 */
static const uint64_t mask_lo[17] = {
	0, M(1), M(2), M(3), M(4), M(5), M(6), M(7), M(8),
	M(8), M(8), M(8), M(8), M(8), M(8), M(8), M(8),
};
static const uint64_t mask_hi[17] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0,
	M(1), M(2), M(3), M(4), M(5), M(6), M(7), M(8),
};
#undef M

/* Whether any of s[0..n) is a byte >= 0x80. */
static int
any_high(const char *s, size_t n)
{
	uint64_t acc = 0, x;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&x, s + i, 8);
		acc |= x;
	}
	for (; i < n; i++)
		acc |= (unsigned char)s[i];
	return (acc & HIGH8) != 0;
}

/*
 * Room for n more bytes in the joined run, or 0.  The run is the one
 * buffer of the parser whose failure is not the parser's: merge_run falls
 * back to single deltas, or a shorter run, when it cannot grow.  So the
 * failure lands in a flag of its own, dropped, not in p->nomem; and the
 * buffer's own sticky flag is cleared, so that the next try may grow it.
 */
static int
run_room(hm_buf *r, size_t n)
{
	int lost = 0;

	if (hm__reserve(&lost, r, n) == HM_OK)
		return 1;
	r->oom = 0; /* the run's own flag (see above): not the parser's failure */
	return 0;
}

/*
 * Start a run with the token s[0..n) (already consumed) and take every
 * following token that also has whole characters; the caller has checked
 * that the parser is in plain content.  0 when out of memory.
 *
 * Tokens are taken by a fast loop that assumes them ASCII, moving 16
 * bytes each (the buffer keeps 16 bytes of room; the vocabulary is read
 * past a token only below p->cf.wide); the bytes it moved are checked after,
 * and when one is not ASCII its tokens are taken again one by one with
 * the whole check.  A token the fast loop does not take (a long one, a
 * special, the end) goes through the one-by-one step, which ends the run
 * where the tokens say.  The buffer's length and room are kept in locals
 * (the bytes stored could be anything as far as the compiler knows).
 */
static int
merge_run(hm_parser *p, const char *s, size_t n)
{
	const uint32_t *v = p->in.ids.v, *off = hm__vocab_off;
	const unsigned char *vb = hm__vocab_bytes;
	size_t i = p->in.ipos, end = p->in.ids.len, a, len, cap, i0, len0;
	size_t total = off[HM_N_ORDINARY];
	uint32_t wide = p->cf.wide;
	hm_buf *r = &p->in.run;
	char *o;
	uint64_t x0, x1;
	int slow = 0;

	hm_buf_reset(r);
	if (!run_room(r, n + 16))
		return 0;
	memcpy(r->p, s, n);
	o = r->p;
	len = n;
	cap = r->cap;
	for (;;) {
		/*
		 * Up to stop, tokens of up to 16 bytes cannot take the run to
		 * RUN_MAX, and the room for them is made first (for a chunk of
		 * RUN_CHUNK at most, so that the room follows the run).
		 */
		size_t m = len < RUN_MAX ? (RUN_MAX - len - 1) / 16 : 0, stop;

		if (m > RUN_CHUNK)
			m = RUN_CHUNK;
		stop = end - i < m ? end : i + m;
		if (!slow && stop > i && cap - len <= 16 * (stop - i) + 16) {
			r->len = len;
			if (!run_room(r, 16 * (stop - i) + 16))
				slow = 1; /* short of memory: room is made token by token */
			o = r->p;
			cap = r->cap;
		}
		if (!slow) {
			i0 = i;
			len0 = len;
			for (; i < stop; i++) {
				uint32_t id = v[i];

				if (id >= wide)
					break;
				a = off[id];
				n = off[id + 1] - a;
				if (n > 16)
					break;
				memcpy(&x0, vb + a, 8);
				memcpy(&x1, vb + a + 8, 8);
				memcpy(o + len, &x0, 8);
				memcpy(o + len + 8, &x1, 8);
				len += n;
			}
			if (any_high(o + len0, len - len0)) {
				/* Again, one by one. */
				i = i0;
				len = len0;
				slow = 1;
			}
		}
		/* One token with the whole check. */
		if (i >= end || len >= RUN_MAX)
			break;
		{
			uint32_t id = v[i];

			if (id >= HM_N_ORDINARY)
				break;
			a = off[id];
			n = off[id + 1] - a;
		}
		if (cap - len <= n + 16) {
			r->len = len;
			if (!run_room(r, n + 16))
				break;
			o = r->p;
			cap = r->cap;
		}
		if (n <= 16 && a + 16 <= total) {
			memcpy(&x0, vb + a, 8);
			memcpy(&x1, vb + a + 8, 8);
			/* Any byte >= 0x80 in the token: the slow check. */
			if (((x0 & mask_lo[n]) | (x1 & mask_hi[n])) &&
			    !whole_chars((const char *)vb + a, n))
				break;
			memcpy(o + len, &x0, 8);
			memcpy(o + len + 8, &x1, 8);
		} else {
			if (!whole_chars((const char *)vb + a, n))
				break;
			memcpy(o + len, vb + a, n);
		}
		len += n;
		i++;
	}
	r->len = len;
	r->p[len] = '\0';
	p->st.pos += i - p->in.ipos;
	p->in.ipos = i;
	return 1;
}

/*
 * The fast path's delta *ev of a call's arguments, its tokens from i0 (at
 * pos0) on: checked, and where a whole value ends inside it with more
 * after (a header glued after the arguments, F21), cut before the token
 * that byte lies in, which the step reads again.  1 with *ev still a
 * delta, 0 when nothing of it is left (the step reads all of it).
 */
static int
fast_call(hm_parser *p, hm_event *ev, size_t i0, uint64_t pos0)
{
	size_t k = hm__p_call_run(p, ev->text.p, ev->text.len), b = 0, i = i0, n;

	if (k == ev->text.len)
		return 1;
	for (; i < p->in.ipos; i++) {
		(void)hm_token_bytes(p->in.ids.v[i], &n);
		if (b + n > k)
			break;
		b += n;
	}
	p->in.ipos = i;
	p->st.pos = pos0 + (i - i0);
	if (!b)
		return 0;
	ev->text.len = b;
	hm__p_call_args(p, ev->text.p, b);
	return 1;
}

/*
 * The fast path (the caller has checked hm__p_fast_ok): an ordinary token
 * of whole characters inside content is a delta of the vocabulary's own
 * bytes; nothing is queued.  With merging, a run of such tokens is one
 * delta.  1 with *ev filled, 0 when the token needs the step.
 */
int
hm__p_fast(hm_parser *p, hm_event *ev)
{
	uint32_t id = p->in.ids.v[p->in.ipos];
	size_t n, i0 = p->in.ipos;
	uint64_t pos0 = p->st.pos;
	const char *s;

	if (id >= HM_N_ORDINARY || !(s = hm_token_bytes(id, &n)) || !whole_chars(s, n))
		return 0;
	memset(ev, 0, sizeof *ev);
	ev->type = HM_EV_DELTA;
	ev->at = p->st.pos++;
	p->in.ipos++;
	if (p->cf.merge && merge_run(p, s, n)) {
		ev->text.p = p->in.run.p;
		ev->text.len = p->in.run.len;
	} else {
		ev->text.p = s;
		ev->text.len = n;
	}
	if (p->c.jcall)
		return fast_call(p, ev, i0, pos0);
	return 1;
}

/* ---------------------------------------------------------------- the driver */

#ifndef NDEBUG
/*
 * What holds between steps (unless an allocation failed or strict mode
 * stopped): a message is open in content and only there, text after a
 * stop is held only while skipping, units are held only while peeking,
 * and the held events lie inside the queue.
 */
static void
invariants(const hm_parser *p)
{
	enum hm__state s = p->st.state;

	if (p->nomem || s == S_DONE)
		return;
	assert((s == S_CONTENT || s == S_PEEK) == (p->c.in_msg != 0));
	assert(!p->r.junk_on || s == S_SKIP);
	assert((s == S_PEEK) == (p->r.npk > 0));
	assert(!p->c.split || s == S_CONTENT || s == S_PEEK);
	assert(!p->q.holding || (p->q.hq <= p->q.len && p->q.ha <= p->q.arena.len));
	assert(p->q.holding != 1 || (p->q.hq <= p->q.hstart && p->q.hstart < p->q.len));
	assert(p->in.ipos <= p->in.ids.len && p->in.tpos <= p->in.text.len);
}
#else
#define invariants(p) ((void)0)
#endif

/*
 * Step units until an event can be delivered, the input runs out, or an
 * allocation fails (p->nomem, the one flag every allocation of the
 * parser's sets: hm_parser_next reports it).
 */
void
hm__p_run(hm_parser *p)
{
	assert(p->in.ipos <= p->in.ids.len && p->in.tpos <= p->in.text.len);
	while (!p->nomem && hm__p_queue_drained(p) && !p->in.done) {
		if (p->in.text_mode) {
			if (!text_unit(p)) {
				if (!p->in.fin)
					break;
				hm__p_eos(p);
				p->in.done = 1;
			}
		} else if (p->in.ipos < p->in.ids.len) {
			uint32_t id = p->in.ids.v[p->in.ipos++];
			size_t n = 0;
			const char *s = hm_token_bytes(id, &n);

			hm__p_step(p, id, s && hm_is_special(id), s, n);
			p->st.pos++;
		} else if (p->in.fin) {
			hm__p_eos(p);
			p->in.done = 1;
		} else
			break;
		if (p->st.state == S_DONE)
			p->in.done = 1;
		invariants(p);
	}
}
