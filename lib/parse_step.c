/*
 * parse_step.c - the state machine's step: one unit (a token, or in text
 * mode a run of ordinary bytes or one special token) moves the parser
 * between start, header, content and skip; the end of the stream; F17
 * (<|start|> or <|channel|> inside content held until the units after it
 * tell a header from text); and the text-input scanner that cuts reads
 * into units.  Called by parser.c; calls the layers below it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser_int.h"

/* ---------------------------------------------------------------- the machine */

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
	if (p->cf.role0 == R_AUTO)
		p->st.next_role = is_start ? R_NONE : HM_ROLE_ASSISTANT;
	if (p->st.next_role != R_NONE) {
		hm__p_header_begin(p, p->st.pos);
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
	p->st.after_end = 0;
	p->st.pos += k;
	hm__p_header_begin(p, p->st.pos);
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
	hm_buf jt = p->r.junk;
	uint64_t jat = p->r.junk_at;

	memset(&p->r.junk, 0, sizeof p->r.junk);
	p->r.junk_on = 0;
	hm__p_warn(p, jat, HM_F_NO_START, "header without <|start|>: assistant assumed", NULL, 0);
	p->st.skip_warned = 0;
	hm__p_header_begin(p, jat);
	p->st.first_msg = 1;
	p->st.next_role = HM_ROLE_ASSISTANT;
	hm__p_header_add(p, jt.p, jt.len);
	hm_buf_free(&jt);
}

static void
peek_add(hm_parser *p, uint32_t id, int special, const char *s, size_t n)
{
	struct punit *u;

	if (p->r.npk == p->r.cappk) {
		size_t c = p->r.cappk ? p->r.cappk * 2 : 8;

		if (!(u = realloc(p->r.pk, c * sizeof *u))) {
			p->q.oom = 1;
			return;
		}
		p->r.pk = u;
		p->r.cappk = c;
	}
	u = &p->r.pk[p->r.npk++];
	u->id = id;
	u->special = special;
	u->known = s != NULL;
	u->off = p->r.pkb.len;
	u->len = s ? n : 0;
	u->pos = p->st.pos;
	u->end = p->st.unit_end;
	if (s)
		hm_buf_add(&p->r.pkb, s, n);
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
	static const char *const nx[] = { "analysis", "commentary", "final", "to=" };
	const char *w;
	size_t j, m;
	int more = 0;

	for (j = 0; j < (role == HM_ROLE_ASSISTANT ? 5u : 1u); j++) {
		w = j ? nx[j - 1] : hm__p_role_names[role];
		m = strlen(w);
		if (n < m) {
			more |= !memcmp(t, w, n);
			continue;
		}
		if (memcmp(t, w, m))
			continue;
		if (j == 4 || (n > m && !ident_byte(t[m])))
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
	static const char *const chans[] = { "analysis", "commentary", "final" };
	size_t i = 0, k, m;
	int more = 0, r;

	if (id == HM_TOK_CHANNEL)
		while (i < n && (t[i] == ' ' || t[i] == '\t'))
			i++;
	for (k = 0; k < (id == HM_TOK_START ? 5u : 3u); k++) {
		const char *w = id == HM_TOK_START ? hm__p_role_names[k] : chans[k];

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
	struct punit *v = p->r.pk, *u;
	hm_buf b = p->r.pkb;
	size_t n = p->r.npk, i, tl = 0;
	uint64_t pos = p->st.pos, end = p->st.unit_end;
	int r;

	/* The ordinary text after the token, up to the next special. */
	for (i = 1; i < n && p->r.pk[i].known && !p->r.pk[i].special; i++)
		tl = p->r.pk[i].off + p->r.pk[i].len - p->r.pk[1].off;
	if (i < n)
		closed = 1;
	r = peek_header(v[0].id, n > 1 ? b.p + v[1].off : "", tl, closed);
	if (r < 0)
		return;
	/* The units go again through the machine, which may peek anew. */
	p->r.pk = NULL;
	p->r.npk = p->r.cappk = 0;
	memset(&p->r.pkb, 0, sizeof p->r.pkb);
	p->st.pos = v[0].pos;
	p->st.unit_end = v[0].end;
	if (r > 0) {
		hm__p_finish_msg(p, HM_STOP_NONE);
		hm__p_warn(p, p->st.pos, HM_F_SPECIAL, v[0].id == HM_TOK_START ?
		    "<|start|> inside a message ends it" :
		    "<|channel|> inside a message ends it: assistant assumed", NULL, 0);
		hm__p_header_begin(p, p->st.pos);
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
		p->c.special = 1;
		hm__p_content_bytes(p, b.p + v[0].off, v[0].len);
		p->c.special = 0;
	}
	for (i = 1; i < n; i++) {
		u = &v[i];
		p->st.pos = u->pos;
		p->st.unit_end = u->end;
		hm__p_step(p, u->id, u->special, u->known ? b.p + u->off : NULL, u->len);
	}
	p->st.pos = pos;
	p->st.unit_end = end;
	free(v);
	hm_buf_free(&b);
}

/* One token (or text unit).  s/n: its bytes (NULL for an unknown id). */
void
hm__p_step(hm_parser *p, uint32_t id, int special, const char *s, size_t n)
{
	if (special)
		p->st.saw_special = 1;
	if (special && is_stop(id) && p->q.holding == 2)
		p->q.holding = 0; /* the text held was not after the last stop */
	if (p->st.first)
		first_unit(p, special && id == HM_TOK_START);
	switch (p->st.state) {
	case S_START:
		p->st.first_msg = 0;
		if (special && id == HM_TOK_START) {
			p->st.skip_warned = 0;
			hm__p_header_begin(p, p->st.pos);
			return;
		}
		if (p->cf.strict) {
			if (s && !special && p->in.text_mode) {
				hm__p_fails(p, p->st.pos, "Unexpected text while expecting start token 200006");
			} else {
				char b[80];
				int k = snprintf(b, sizeof b, "Unexpected token %lu while expecting start token 200006", (unsigned long)id);

				hm__p_fail(p, p->st.pos, b, (size_t)k);
			}
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
			hm__p_header_begin(p, p->st.pos);
			p->st.first_msg = 1;
			p->st.next_role = HM_ROLE_ASSISTANT;
			hm__p_header_add(p, s, n);
			return;
		}
		{
			/* Whitespace between messages is not worth a word. */
			size_t i = 0;

			while (!special && s && i < n && hm_p_is_aws((unsigned char)s[i]))
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
				hm__p_header_begin(p, p->st.pos);
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
				p->r.junk_on = 1;
				p->r.junk_at = p->st.pos + (p->in.text_mode ? i : 0);
				hm_buf_reset(&p->r.junk);
				hm__p_junk_add(p, s ? s + i : NULL, n - i);
				p->st.state = S_SKIP;
				return;
			}
			skip_warn(p, p->st.pos + (p->in.text_mode ? i : 0),
			    "tokens after a stop skipped up to the next <|start|>");
		}
		p->st.state = S_SKIP;
		return;
	case S_SKIP:
		if (special && (id == HM_TOK_START || id == HM_TOK_CHANNEL)) {
			int role = HM_ROLE_ASSISTANT;

			if (p->r.junk_on && id == HM_TOK_CHANNEL && (role = hm__p_junk_role(p)) >= 0) {
				/* `<|end|>assistant<|channel|>`: <|start|> left out. */
				p->r.junk_on = 0;
				hm__p_warn(p, p->r.junk_at, HM_F_NO_START, "header without <|start|>", NULL, 0);
			} else if (p->r.junk_on && id == HM_TOK_CHANNEL && hm__p_junk_header(p)) {
				/* `<|call|>to=functions.f<|channel|>`: the header's start. */
				junk_to_header(p);
				hm__p_header_add(p, s, n);
				return;
			} else {
				role = HM_ROLE_ASSISTANT;
				if (p->r.junk_on)
					hm__p_junk_keep(p, HM_STOP_NONE);
				if (id == HM_TOK_CHANNEL)
					hm__p_warn(p, p->st.pos, HM_F_NO_START, "<|channel|> without <|start|>: assistant assumed", NULL, 0);
			}
			p->st.skip_warned = 0;
			p->st.first_msg = 0;
			hm__p_header_begin(p, p->st.pos);
			if (id == HM_TOK_CHANNEL) {
				/* A message without <|start|> after skipped text: not lost. */
				p->st.first_msg = 1;
				p->st.next_role = role;
				hm__p_header_add(p, s, n);
			}
		} else if (p->r.junk_on && special && id == HM_TOK_MESSAGE) {
			/* `<|call|>commentary to=f json<|message|>`: the text was a header. */
			junk_to_header(p);
			hm__p_header_done(p);
		} else if (p->r.junk_on && special && is_stop(id)) {
			/* Text and a stop: a message without a header, not the last. */
			hm__p_junk_keep(p, stop_of(id));
			p->st.state = S_START;
			p->st.after_end = id == HM_TOK_END;
		} else if (p->r.junk_on)
			hm__p_junk_add(p, s, n);
		return;
	case S_HEADER:
		if (special && id == HM_TOK_MESSAGE) {
			if (p->st.no_start)
				hm__p_warn(p, p->h.at, HM_F_NO_START, "header without <|start|> after <|end|>: assistant assumed", NULL, 0);
			hm__p_header_done(p);
			return;
		}
		if (!p->cf.strict && special && is_stop(id)) {
			hm__p_header_recover(p, stop_of(id), 0);
			p->st.after_end = id == HM_TOK_END;
			return;
		}
		if (!p->cf.strict && special && id == HM_TOK_START) {
			if (p->h.text.len && !hm__p_header_bare(p)) {
				hm__p_header_recover(p, HM_STOP_NONE, 0);
				if (p->st.state == S_SKIP)
					p->st.state = S_START;
			} else {
				hm__p_warn(p, p->st.pos, HM_F_HEADER, "<|start|> inside a header: header restarted", NULL, 0);
			}
			p->st.next_role = R_NONE;
			p->st.first_msg = 0;
			hm__p_header_begin(p, p->st.pos);
			return;
		}
		if (!p->cf.strict && special && id == HM_TOK_CHANNEL && hm__p_header_prose(p)) {
			/* `I think.<|channel|>final`: the text is a message, the header starts here. */
			hm__p_header_recover(p, HM_STOP_NONE, 0);
			if (p->st.state == S_SKIP)
				p->st.state = S_START;
			hm__p_header_begin(p, p->st.pos);
			p->st.first_msg = 1;
			p->st.next_role = HM_ROLE_ASSISTANT;
			hm__p_header_add(p, s, n);
			return;
		}
		if (!s) {
			if (p->cf.strict) {
				p->h.bad = 1;
			} else {
				hm__p_warn(p, p->st.pos, HM_F_UTF8, "unknown token id in header replaced by U+FFFD", NULL, 0);
				hm__p_header_add(p, "\xEF\xBF\xBD", 3);
			}
			return;
		}
		hm__p_header_add(p, s, n);
		if (!p->cf.strict) {
			int r = hm__p_stripped_start(p, 0);

			if (r > 0)
				return;
			while (r == 0 && p->h.nwords >= p->h.wmax && p->h.text.len <= HDR_MAX_BYTES &&
			    hm__p_header_parts_only(p))
				p->h.wmax *= 2;
			if (r == 0 && (p->h.nwords >= p->h.wmax || p->h.text.len > HDR_MAX_BYTES))
				hm__p_header_recover(p, HM_STOP_NONE, 1);
		}
		return;
	case S_PEEK:
		peek_add(p, id, special, s, n);
		peek_decide(p, special || !s);
		return;
	case S_CONTENT:
		if (special && is_stop(id)) {
			hm__p_finish_msg(p, stop_of(id));
			p->st.after_end = id == HM_TOK_END;
			return;
		}
		if (!p->cf.strict && special && (id == HM_TOK_START || id == HM_TOK_CHANNEL)) {
			/* Did the model leave out <|end|>?  The next units tell. */
			p->st.state = S_PEEK;
			p->r.npk = 0;
			hm_buf_reset(&p->r.pkb);
			peek_add(p, id, special, s, n);
			return;
		}
		if (!s) {
			hm__p_content_unknown(p, id);
			return;
		}
		p->c.special = special;
		hm__p_content_bytes(p, s, n);
		p->c.special = 0;
		return;
	default:
		return;
	}
}

void
hm__p_eos(hm_parser *p)
{
	struct qev *e;

	if (p->st.first) {
		p->st.first = 0;
		if (p->cf.role0 == R_AUTO)
			p->st.next_role = R_NONE;
		if (p->st.next_role != R_NONE) {
			hm__p_header_begin(p, 0);
			p->st.first_msg = 1;
		}
	}
	if (p->st.state == S_PEEK)
		peek_decide(p, 1);
	if (p->q.holding == 2) {
		/* The text kept was after the last stop after all: skipped. */
		static const char msg[] = "tokens after a stop skipped up to the next <|start|>";
		struct qev *e = &p->q.v[p->q.hq];

		if (p->q.hq < p->q.jend && p->q.jend <= p->q.len) {
			memmove(p->q.v + p->q.hq + 1, p->q.v + p->q.jend, (p->q.len - p->q.jend) * sizeof *p->q.v);
			p->q.len -= p->q.jend - p->q.hq - 1;
			e->type = HM_EV_WARNING;
			e->code = HM_F_AFTER_STOP;
			memset(e->has, 0, sizeof e->has);
			hm__p_setf(p, e, F_TEXT, msg, sizeof msg - 1);
		}
		p->q.holding = 0;
	}
	if (p->r.junk_on) {
		/* After the last stop: skipped. */
		p->r.junk_on = 0;
		skip_warn(p, p->r.junk_at, "tokens after a stop skipped up to the next <|start|>");
	}
	switch (p->st.state) {
	case S_HEADER:
		if (p->cf.strict) {
			hm__p_fails(p, p->st.pos, "Unexpected EOS while waiting for message header to complete");
			return;
		}
		if (hm__p_stripped_start(p, 1) > 0) {
			hm__p_finish_msg(p, HM_STOP_EOS);
			break;
		}
		hm__p_header_recover(p, HM_STOP_EOS, 0);
		break;
	case S_CONTENT:
		hm__p_finish_msg(p, HM_STOP_EOS);
		break;
	case S_DONE:
		return;
	default:
		break;
	}
	p->q.holding = 0;
	if (p->in.cnt_enc) {
		p->in.cnt_ids.len = 0;
		if (hm_encoder_finish(p->in.cnt_enc, HM_ENC_SPECIAL | HM_ENC_LOSSY, &p->in.cnt_ids, NULL) != HM_OK)
			p->q.oom = 1;
		p->in.cnt += p->in.cnt_ids.len;
	}
	e = hm__p_push(p, HM_EV_DONE, p->st.pos);
	if (e) {
		e->truncated = p->q.trunc;
		e->tokens = p->in.text_mode ? p->in.cnt : p->st.pos;
	}
	p->st.state = S_DONE;
}

/* ---------------------------------------------------------------- text input */

/*
 * The next text unit at p->in.text[tpos..): a special token or a run of other
 * bytes.  Returns 0 when more input is needed to decide.
 */
int
hm__p_text_unit(hm_parser *p)
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
