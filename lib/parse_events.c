/*
 * parse_events.c - the parser's lowest layer: the event queue (struct
 * p_queue: events, warnings, errors, deltas, the events held for F18 and
 * F9, out of memory), content text cut into tokens for text input (struct
 * p_textcut), and UTF-8 helpers.  It owns both: every layer above queues
 * its events through these functions (parser_int.h lists the layers).
 *
 * Text input has no tokens, so its content is cut here as the o200k
 * encoder would cut it (tc_*).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "parser_int.h"
#include "pretok_int.h"

/* ---------------------------------------------------------------- utf-8 */

/*
 * Examine s[0..n) at its first problem.  Returns the length of the valid
 * prefix; *err is 0 when everything is valid, the length of the invalid
 * sequence, or -1 when the bytes end inside a sequence that could still
 * become valid.
 */
size_t
hm__utf8_check(const char *buf, size_t n, int *err)
{
	const unsigned char *s = (const unsigned char *)buf;
	size_t i = 0, k, bad;
	uint32_t cp;
	unsigned lo, hi;

	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		k = hm_utf8_decode(s + i, n - i, &cp, &bad);
		if (k) {
			i += k;
			continue;
		}
		if (hm__utf8_lead(s[i], &lo, &hi) && i + bad == n)
			*err = -1;
		else
			*err = (int)bad;
		return i;
	}
	*err = 0;
	return n;
}

/*
 * Append s[0..n) to b (its owner's flag nomem) with each maximal invalid
 * subpart as U+FFFD; whether there was one.
 */
int
hm__p_add_lossy(int *nomem, hm_buf *b, const char *s, size_t n)
{
	int err, bad = 0;
	size_t v;

	while (n) {
		v = hm__utf8_check(s, n, &err);
		hm__add(nomem, b, s, v);
		s += v;
		n -= v;
		if (!n)
			break;
		hm__add(nomem, b, "\xEF\xBF\xBD", 3);
		bad = 1;
		if (err < 0)
			break;
		s += err;
		n -= (size_t)err;
	}
	return bad;
}

/*
 * Whether the text s[0..n) (any bytes; invalid UTF-8 read as U+FFFD) is
 * prose rather than header words (hm__hdr_is_prose): 1, 0, or -1 when out
 * of memory (p->nomem: neither answer holds).
 */
int
hm__p_is_prose(hm_parser *p, const char *s, size_t n)
{
	hm_buf t = { 0 };
	int r = -1;

	hm__p_add_lossy(&p->nomem, &t, s, n);
	if (!p->nomem)
		r = hm__hdr_is_prose(&p->nomem, t.p ? t.p : "", t.len);
	hm_buf_free(&t);
	return p->nomem ? -1 : r;
}

/* ---------------------------------------------------------------- events */

/* The stream ended inside a header or message: said at `at`, and by DONE. */
void
hm__p_truncated(hm_parser *p, uint64_t at, const char *msg)
{
	p->q.trunc = 1;
	hm__p_warn(p, at, HM_F_TRUNCATED, msg, NULL, 0);
}

static void setf(hm_parser *p, struct qev *e, int f, const char *s, size_t n);

static struct qev *
push(hm_parser *p, hm_event_type type, uint64_t at)
{
	struct qev *e;

	if (p->q.len == p->q.cap) {
		size_t cap = p->q.cap ? p->q.cap * 2 : 16;
		struct qev *q = hm__p_realloc(p, p->q.v, cap * sizeof *q);

		if (!q)
			return NULL;
		p->q.v = q;
		p->q.cap = cap;
	}
	assert(p->q.len < p->q.cap);
	e = &p->q.v[p->q.len++];
	memset(e, 0, sizeof *e);
	e->type = type;
	e->at = at;
	e->role = -1;
	return e;
}

/* A message starts at `at`: header *h, its parts' offsets into base. */
void
hm__p_push_start(hm_parser *p, uint64_t at, const struct hdr *h, const char *base)
{
	struct qev *e = push(p, HM_EV_START, at);
	int f;

	if (!e)
		return;
	e->role = h->role;
	for (f = 0; f < P_N; f++)
		if (h->has[f])
			setf(p, e, f, base + h->off[f], h->len[f]);
}

/* The message ends at `at`. */
void
hm__p_push_end(hm_parser *p, uint64_t at, hm_stop stop)
{
	struct qev *e = push(p, HM_EV_END, at);

	if (e)
		e->stop = stop;
}

/* The stream ends at `at`, tokens counted. */
void
hm__p_push_done(hm_parser *p, uint64_t at, uint64_t tokens)
{
	struct qev *e = push(p, HM_EV_DONE, at);

	if (e) {
		e->truncated = p->q.trunc;
		e->tokens = tokens;
	}
}

static void
setf(hm_parser *p, struct qev *e, int f, const char *s, size_t n)
{
	if (!e)
		return;
	e->off[f] = p->q.arena.len;
	e->len[f] = n;
	e->has[f] = 1;
	hm__put(&p->nomem, &p->q.arena, s, n);
	hm__putc(&p->nomem, &p->q.arena, '\0');
}

void
hm__p_warn(hm_parser *p, uint64_t at, int code, const char *fmt, const char *arg,
    size_t arglen)
{
	struct qev *e;
	const char *pct;

	if (p->cf.strict)
		return;
	e = push(p, HM_EV_WARNING, at);
	if (!e)
		return;
	e->code = code;
	/* Straight into the arena: the message may be in a caller's scratch. */
	e->off[F_TEXT] = p->q.arena.len;
	e->has[F_TEXT] = 1;
	pct = strstr(fmt, "%s");
	if (pct) {
		hm__add(&p->nomem, &p->q.arena, fmt, (size_t)(pct - fmt));
		hm__add(&p->nomem, &p->q.arena, arg, arglen);
		hm__adds(&p->nomem, &p->q.arena, pct + 2);
	} else
		hm__adds(&p->nomem, &p->q.arena, fmt);
	e->len[F_TEXT] = p->q.arena.len - e->off[F_TEXT];
	hm__putc(&p->nomem, &p->q.arena, '\0');
}

void
hm__p_fail(hm_parser *p, uint64_t at, const char *msg, size_t n)
{
	struct qev *e = push(p, HM_EV_ERROR, at);

	setf(p, e, F_TEXT, msg, n);
}

void
hm__p_fails(hm_parser *p, uint64_t at, const char *msg)
{
	hm__p_fail(p, at, msg, strlen(msg));
}

static void
delta_at(hm_parser *p, const char *s, size_t n, uint64_t at)
{
	struct qev *e;

	if (!n)
		return;
	/* Join with a delta queued at the same place (not a special token's: its own delta). */
	if (p->q.len && !p->q.alone && p->q.v[p->q.len - 1].type == HM_EV_DELTA &&
	    p->q.v[p->q.len - 1].at == at &&
	    p->q.v[p->q.len - 1].off[F_TEXT] + p->q.v[p->q.len - 1].len[F_TEXT] + 1 ==
	    p->q.arena.len) {
		p->q.arena.len--;
		hm__put(&p->nomem, &p->q.arena, s, n);
		hm__putc(&p->nomem, &p->q.arena, '\0');
		p->q.v[p->q.len - 1].len[F_TEXT] += n;
		return;
	}
	e = push(p, HM_EV_DELTA, at);
	setf(p, e, F_TEXT, s, n);
	p->q.alone = 0;
}

void
hm__p_delta(hm_parser *p, const char *s, size_t n)
{
	delta_at(p, s, n, p->st.pos);
}

/* ---------------------------------------------------------------- text deltas */

/*
 * Text input has no tokens, and its reads may end anywhere.  So that the
 * deltas do not follow the reads, content text is cut as the o200k encoder
 * would cut it: one delta per token (tokens joined up to whole
 * characters), at the byte offset of the message's content plus the
 * delta's offset in it.  A piece of the pre-tokenizer is final once no
 * text after it can change it: three characters past it (`'ll`), and not
 * inside a trailing run of blanks, whose split depends on what ends it.
 * At most TC_MAX bytes wait; a longer run is cut there.
 */
#define TC_MAX 4096


/*
 * A delta of content bytes [coff, coff + n): the F12 warnings due inside
 * it come first, and its offset counts what a U+FFFD replaced.
 */
static void
tc_delta(hm_parser *p, const char *s, size_t n, uint64_t coff)
{
	uint64_t at = p->t.at + coff - p->t.shift;
	struct tmark *m;

	while (p->t.mk_head < p->t.nmk && p->t.mk[p->t.mk_head].off < coff + n) {
		m = &p->t.mk[p->t.mk_head++];
		hm__p_warn(p, m->at, HM_F_UTF8, m->msg, NULL, 0);
		p->t.shift += m->shift;
	}
	if (p->t.mk_head == p->t.nmk)
		p->t.mk_head = p->t.nmk = 0;
	delta_at(p, s, n, at);
}

static void
tc_piece(hm_parser *p, const char *s, size_t n, uint64_t coff)
{
	size_t i, a = 0, off = 0, len;

	if (!p->t.enc && !(p->t.enc = hm_encoder_new())) {
		p->nomem = 1;
		return;
	}
	p->t.tids.len = 0;
	if (hm_encode(p->t.enc, s, n, HM_ENC_LOSSY, &p->t.tids, NULL) != HM_OK) {
		p->nomem = 1; /* lossy: no other failure */
		return;
	}
	for (i = 0; i < p->t.tids.len; i++) {
		hm_token_bytes(p->t.tids.v[i], &len);
		off += len;
		if (off < n && ((unsigned char)s[off] & 0xC0) == 0x80)
			continue;
		if (off > n)
			off = n;
		tc_delta(p, s + a, off - a, coff + a);
		a = off;
	}
	if (a < n)
		tc_delta(p, s + a, n - a, coff + a);
}

/* Cut the final pieces of p->t.buf into deltas; all: every piece. */
void
hm__p_tc_release(hm_parser *p, int all)
{
	const unsigned char *s = (const unsigned char *)p->t.buf.p;
	size_t n = p->t.buf.len, safe = n, i = 0, e, k;
	uint64_t base = p->t.len - n;
	uint32_t cp;
	int c;

	if (!n)
		return;
	if (!all) {
		while (safe > 0) {
			k = safe - 1;
			while (k > 0 && (s[k] & 0xC0) == 0x80)
				k--;
			hm__p_char_at((const char *)s, n, k, &cp);
			if (!hm__is_uws(cp))
				break;
			safe = k;
		}
		for (c = 0; c < 3 && safe > 0; c++) {
			safe--;
			while (safe > 0 && (s[safe] & 0xC0) == 0x80)
				safe--;
		}
	}
	while (i < n) {
		e = hm__pretok_next(s, n, i);
		if (!all && e > safe)
			break;
		tc_piece(p, (const char *)s + i, e - i, base + i);
		i = e;
	}
	memmove(p->t.buf.p, p->t.buf.p + i, n - i);
	p->t.buf.len = n - i;
}

/*
 * Take whole characters of content.  They go in by slices that keep
 * p->t.buf within TC_MAX, releasing after each, which cuts the text where
 * feeding it a character at a time would.
 */
static void
tc_add(hm_parser *p, const char *s, size_t n)
{
	size_t k;

	while (n) {
		k = p->t.buf.len < TC_MAX ? TC_MAX - p->t.buf.len : 0;
		if (k > n)
			k = n;
		while (k > 0 && k < n && ((unsigned char)s[k] & 0xC0) == 0x80)
			k--;
		if (!k) {
			hm__p_tc_release(p, 1);
			continue;
		}
		hm__add(&p->nomem, &p->t.buf, s, k);
		if (p->nomem)
			return;
		p->t.len += k;
		s += k;
		n -= k;
		hm__p_tc_release(p, 0);
	}
}

/* Content text out: cut into tokens for text input, else as it came. */
void
hm__p_out_text(hm_parser *p, const char *s, size_t n)
{
	if (!p->in.text_mode || p->cf.merge) {
		/*
		 * A special token's text is a delta of its own, joined with no
		 * text at the same place (a header's text made content, F7).
		 */
		if (p->c.special)
			p->q.alone = 1;
		hm__p_delta(p, s, n);
		p->q.alone = p->c.special;
		p->t.len += n;
		return;
	}
	if (p->c.special) {
		/* A special token's text is one delta, as its id would be. */
		hm__p_tc_release(p, 1);
		p->t.len += n;
		tc_delta(p, s, n, p->t.len - n);
		return;
	}
	tc_add(p, s, n);
}

/* The content of a message starts at byte offset at (text input). */
void
hm__p_content_begin(hm_parser *p, uint64_t at)
{
	p->t.at = at;
	p->t.len = p->t.shift = 0;
	p->t.buf.len = 0;
	p->t.mk_head = p->t.nmk = 0;
}

/* Append *m to *v (n used, cap allocated); out of memory is reported. */
void
hm__p_mark_push(hm_parser *p, struct tmark **v, size_t *n, size_t *cap,
    const struct tmark *m)
{
	struct tmark *k;

	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 8;

		if (!(k = hm__p_realloc(p, *v, c * sizeof *k)))
			return;
		*v = k;
		*cap = c;
	}
	(*v)[(*n)++] = *m;
}

/* An F12 warning due when the content gets to m->off. */
void
hm__p_tc_mark(hm_parser *p, const struct tmark *m)
{
	hm__p_mark_push(p, &p->t.mk, &p->t.nmk, &p->t.capmk, m);
}

/* ---------------------------------------------------------------- header grammar */

size_t
hm__p_find(const char *s, size_t n, const char *pat, size_t from)
{
	size_t m = strlen(pat), i;

	if (m > n)
		return (size_t)-1;
	for (i = from; i + m <= n; i++)
		if (s[i] == pat[0] && !memcmp(s + i, pat, m))
			return i;
	return (size_t)-1;
}

/* Decode one character of valid UTF-8 at s[i..n). */
size_t
hm__p_char_at(const char *s, size_t n, size_t i, uint32_t *cp)
{
	size_t bad, k;

	k = hm_utf8_decode((const unsigned char *)s + i, n - i, cp, &bad);
	if (!k) {
		*cp = 0xFFFD;
		k = bad ? bad : 1;
	}
	return k;
}

/* ---------------------------------------------------------------- the queue */

/* The queue as it is now: hm__p_queue_rewind goes back to it. */
void
hm__p_queue_mark(const hm_parser *p, size_t *len, size_t *alen)
{
	*len = p->q.len;
	*alen = p->q.arena.len;
}

/* Drop the events queued since hm__p_queue_mark. */
void
hm__p_queue_rewind(hm_parser *p, size_t len, size_t alen)
{
	assert(len <= p->q.len && alen <= p->q.arena.len);
	p->q.len = len;
	p->q.arena.len = alen;
}

/*
 * Everything deliverable was pulled: its room is reused.  The held events
 * move to the front of the queue.
 */
void
hm__p_queue_recycle(hm_parser *p)
{
	size_t i, k;
	int f;

	assert(hm__p_queue_drained(p));
	assert(!p->q.holding || (p->q.hq <= p->q.len && p->q.ha <= p->q.arena.len));
	if (!p->q.holding) {
		p->q.head = p->q.len = 0;
		hm_buf_reset(&p->q.arena);
		return;
	}
	k = p->q.len - p->q.hq;
	memmove(p->q.v, p->q.v + p->q.hq, k * sizeof *p->q.v);
	for (i = 0; i < k; i++)
		for (f = 0; f < F_N; f++)
			if (p->q.v[i].has[f])
				p->q.v[i].off[f] -= p->q.ha;
	memmove(p->q.arena.p, p->q.arena.p + p->q.ha, p->q.arena.len - p->q.ha);
	p->q.arena.len -= p->q.ha;
	p->q.hstart -= p->q.hq;
	p->q.jend -= p->q.hq;
	p->q.head = p->q.hq = p->q.ha = 0;
	p->q.len = k;
}

/* The next event to deliver, or NULL. */
const struct qev *
hm__p_queue_pop(hm_parser *p)
{
	assert(p->q.head <= p->q.len && p->q.len <= p->q.cap);
	if (hm__p_queue_drained(p))
		return NULL;
	return &p->q.v[p->q.head++];
}

/*
 * An allocation failed while stepping: what the step queued may be
 * incomplete, so it goes, and one error event says why in its place (its
 * text static: the arena may be what failed).  Nothing follows it.
 */
int
hm__p_queue_fail(hm_parser *p, hm_event *ev)
{
	static const char msg[] = "out of memory";

	p->q.failed = 1;
	p->q.head = p->q.len = p->q.hq = 0;
	p->q.holding = p->q.hprose = 0;
	memset(ev, 0, sizeof *ev);
	ev->type = HM_EV_ERROR;
	ev->at = p->st.pos;
	ev->code = HM_ENOMEM;
	ev->text.p = msg;
	ev->text.len = sizeof msg - 1;
	return 1;
}

/* ---------------------------------------------------------------- held events */

/*
 * The held first message goes out: as reasoning (a message with a channel
 * follows it) with its F8 warning made an F18 one, or as it is.
 */
void
hm__p_hold_release(hm_parser *p, int reasoning)
{
	static const char msg[] = "text without a channel before a message with a channel or a tool call taken as reasoning (analysis)";
	static const char pmsg[] = "prose in a header that never reached <|message|>, before another message with a channel: kept as reasoning (analysis)";
	struct qev *e;
	int prose = p->q.hprose;

	p->q.holding = 0;
	p->q.hprose = 0;
	if (!reasoning || p->q.hstart >= p->q.len)
		return;
	e = &p->q.v[p->q.hstart];
	if (e->type == HM_EV_START && (!e->has[P_CHAN] || prose))
		setf(p, e, P_CHAN, "analysis", 8);
	e = &p->q.v[p->q.hq];
	if (e->type == HM_EV_WARNING && prose && e->code == HM_F_NO_MESSAGE) {
		e->code = HM_F_HEADER_PROSE;
		setf(p, e, F_TEXT, pmsg, sizeof pmsg - 1);
	} else if (e->type == HM_EV_WARNING && !prose &&
	    (e->code == HM_F_NO_HEADER || e->code == HM_F_NO_MESSAGE)) {
		e->code = HM_F_REASONING;
		setf(p, e, F_TEXT, msg, sizeof msg - 1);
	}
}

/* Events queued from now on may be held (hm__p_hold_on). */
void
hm__p_hold_mark(hm_parser *p)
{
	p->q.hq = p->q.len;
	p->q.ha = p->q.arena.len;
}

/*
 * Hold the events since hm__p_hold_mark: kind 1, an F18 message whose
 * START was the last event queued; kind 3 the same for F22's prose from a
 * header (hprose); kind 2, text after a stop (F9), whose events end at
 * hm__p_hold_end.
 */
void
hm__p_hold_on(hm_parser *p, int kind)
{
	p->q.hprose = kind == 3;
	p->q.holding = kind == 3 ? 1 : kind;
	if (p->q.holding == 1)
		p->q.hstart = p->q.len - 1;
}

/* The held text after a stop has all its events queued. */
void
hm__p_hold_end(hm_parser *p)
{
	p->q.jend = p->q.len;
}

/* The held events go out as they are. */
void
hm__p_hold_drop(hm_parser *p)
{
	p->q.holding = 0;
	p->q.hprose = 0;
}

/*
 * The text held since a stop (kind 2) was after the last stop after all:
 * its events become one warning that it was skipped.
 */
void
hm__p_hold_skip(hm_parser *p)
{
	static const char msg[] = "tokens after a stop skipped up to the next <|start|>";
	struct qev *e = &p->q.v[p->q.hq];

	if (p->q.hq < p->q.jend && p->q.jend <= p->q.len) {
		memmove(p->q.v + p->q.hq + 1, p->q.v + p->q.jend, (p->q.len - p->q.jend) * sizeof *p->q.v);
		p->q.len -= p->q.jend - p->q.hq - 1;
		e->type = HM_EV_WARNING;
		e->code = HM_F_AFTER_STOP;
		memset(e->has, 0, sizeof e->has);
		setf(p, e, F_TEXT, msg, sizeof msg - 1);
	}
	p->q.holding = 0;
	p->q.hprose = 0;
}

/* A new stream: nothing queued, held or failed. */
void
hm__p_events_reset(hm_parser *p)
{
	hm__buf_clear(&p->t.buf);
	p->t.at = p->t.len = p->t.shift = 0;
	p->t.mk_head = p->t.nmk = 0;
	p->t.tids.len = 0;
	p->q.head = p->q.len = 0;
	hm__buf_clear(&p->q.arena);
	p->q.holding = p->q.hprose = p->q.alone = 0;
	p->q.hq = p->q.ha = p->q.hstart = p->q.jend = 0;
	p->q.trunc = p->q.failed = 0;
}

void
hm__p_events_free(hm_parser *p)
{
	hm_buf_free(&p->t.buf);
	free(p->t.mk);
	hm_ids_free(&p->t.tids);
	hm_encoder_free(p->t.enc);
	hm_buf_free(&p->q.arena);
	free(p->q.v);
}
