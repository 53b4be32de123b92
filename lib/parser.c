/*
 * parser.c - the streaming Harmony parser: ids or text in, events out.
 *
 * One state machine serves both modes.  Strict mode follows the reference
 * StreamableParser step by step (harmony-format.md §4); the default mode
 * shares its header grammar, so a well-formed stream parses identically,
 * and adds the recoveries documented in harmony-parse(1).
 *
 * Input is processed lazily: hm_parser_next steps one unit (a token, or in
 * text mode a run of ordinary bytes or one special token) at a time until an
 * event is queued.  Event texts live in an arena that is emptied when the
 * queue has been drained, so memory is bounded by one unit's events plus the
 * current header and UTF-8 tail.
 *
 * This file holds the public API (creating, feeding, draining the queue
 * into hm_event) and the fast path that merges runs of plain content
 * tokens into one delta.  The state machine itself is layered below it in
 * the parse_*.c files, each calling only the ones below it; parser_int.h
 * lists them and holds the state they share.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "parser_int.h"
#include "vocab_int.h"

/* ---------------------------------------------------------------- fast path */

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

/*
 * The first ordinary id whose bytes end less than 16 bytes before the end
 * of the vocabulary's (the offsets grow with the id): below it, 16 bytes
 * can be read from a token's start.
 */
static uint32_t
wide_ids(void)
{
	const uint32_t *off = hm__vocab_off;
	uint32_t lo = 0, hi = HM_N_ORDINARY, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (off[mid] + 16 <= off[HM_N_ORDINARY])
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

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
	if (hm_buf_reserve(r, n + 16) < 0) {
		r->oom = 0;
		return 0;
	}
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
			if (hm_buf_reserve(r, 16 * (stop - i) + 16) < 0) {
				/* Short of memory: room is made token by token. */
				r->oom = 0;
				slow = 1;
			}
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
			if (hm_buf_reserve(r, n + 16) < 0)
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
	r->oom = 0;
	p->st.pos += i - p->in.ipos;
	p->in.ipos = i;
	return 1;
}

/* ---------------------------------------------------------------- API */

hm_parser *
hm_parser_new(const char *role, unsigned flags)
{
	hm_parser *p;
	int r;

	if (!role || !strcmp(role, "none"))
		r = R_NONE;
	else if (!strcmp(role, "auto"))
		r = R_AUTO;
	else if ((r = hm__p_role_index(role, strlen(role))) < 0)
		return NULL;
	p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->cf.flags = flags;
	p->cf.strict = (flags & HM_PARSE_STRICT) != 0;
	p->cf.role0 = r;
	p->st.next_role = r == R_AUTO ? R_NONE : r;
	p->st.state = S_START;
	p->st.first = 1;
	p->cf.wide = wide_ids();
	return p;
}

void
hm_parser_free(hm_parser *p)
{
	size_t i;

	if (!p)
		return;
	hm_buf_free(&p->h.text);
	hm_buf_free(&p->r.junk);
	free(p->r.pk);
	hm_buf_free(&p->r.pkb);
	hm_buf_free(&p->c.m);
	hm_buf_free(&p->c.pend);
	hm_buf_free(&p->c.hold);
	hm_buf_free(&p->cf.marker);
	hm_buf_free(&p->h.hs);
	hm_buf_free(&p->h.wbuf);
	hm_buf_free(&p->h.tmp);
	hm_buf_free(&p->h.norm);
	for (i = 0; p->h.memo && i < HDR_MEMO; i++) {
		hm_buf_free(&p->h.memo[i].text);
		hm_buf_free(&p->h.memo[i].hs);
	}
	free(p->h.memo);
	hm_buf_free(&p->t.buf);
	free(p->t.mk);
	free(p->c.hmk);
	hm_ids_free(&p->t.tids);
	hm_encoder_free(p->t.enc);
	hm_ids_free(&p->in.cnt_ids);
	hm_encoder_free(p->in.cnt_enc);
	hm_ids_free(&p->in.ids);
	hm_buf_free(&p->in.text);
	hm_buf_free(&p->q.arena);
	hm_buf_free(&p->in.run);
	free(p->q.v);
	free(p);
}

void
hm_parser_set_merge(hm_parser *p, int on)
{
	p->cf.merge = on != 0;
}

hm_status
hm_parser_set_marker(hm_parser *p, const char *marker, size_t len)
{
	hm_buf_reset(&p->cf.marker);
	hm_buf_add(&p->cf.marker, marker, len);
	return p->cf.marker.oom ? HM_ENOMEM : HM_OK;
}

hm_status
hm_parser_feed(hm_parser *p, const uint32_t *ids, size_t n)
{
	if (p->q.oom)
		return HM_ENOMEM;
	if (p->in.ipos == p->in.ids.len)
		p->in.ids.len = p->in.ipos = 0;
	return hm_ids_append(&p->in.ids, ids, n);
}

hm_status
hm_parser_feed_text(hm_parser *p, const char *buf, size_t len)
{
	if (p->q.oom)
		return HM_ENOMEM;
	p->in.text_mode = 1;
	if ((p->cf.flags & HM_PARSE_COUNT) && len) {
		if (!p->in.cnt_enc && !(p->in.cnt_enc = hm_encoder_new()))
			return HM_ENOMEM;
		p->in.cnt_ids.len = 0;
		if (hm_encoder_feed(p->in.cnt_enc, buf, len, HM_ENC_SPECIAL | HM_ENC_LOSSY,
		    &p->in.cnt_ids, NULL) != HM_OK)
			return HM_ENOMEM; /* lossy: no other failure */
		p->in.cnt += p->in.cnt_ids.len;
	}
	if (p->in.tpos) {
		memmove(p->in.text.p, p->in.text.p + p->in.tpos, p->in.text.len - p->in.tpos);
		p->in.text.len -= p->in.tpos;
		p->in.tpos = 0;
	}
	hm_buf_add(&p->in.text, buf, len);
	return p->in.text.oom ? HM_ENOMEM : HM_OK;
}

void
hm_parser_finish(hm_parser *p)
{
	p->in.fin = 1;
}

/* What was pulled goes: the held events move to the front of the queue. */
static void
hold_compact(hm_parser *p)
{
	size_t i, k = p->q.len - p->q.hq;
	int f;

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

/*
 * Whether an append to one of the parser's buffers failed (each keeps its
 * own sticky flag until it is cleared): checked after every step, before
 * a later step can clear it.  The joined run is not here: merge_run falls
 * back to single deltas when it cannot grow.
 */
static int
bufs_oom(const hm_parser *p)
{
	return p->h.text.oom | p->c.m.oom | p->c.pend.oom | p->t.buf.oom | p->c.hold.oom |
	    p->cf.marker.oom | p->h.hs.oom | p->h.wbuf.oom | p->h.tmp.oom | p->h.norm.oom |
	    p->in.text.oom | p->r.junk.oom | p->r.pkb.oom | p->q.arena.oom;
}

/*
 * An allocation failed while stepping: what the step queued may be
 * incomplete, so it goes, and one error event says why in its place (its
 * text static: the arena may be what failed).  Nothing follows it.
 */
static int
out_of_memory(hm_parser *p, hm_event *ev)
{
	static const char msg[] = "out of memory";

	p->q.failed = 1;
	p->q.head = p->q.len = p->q.hq = 0;
	p->q.holding = 0;
	memset(ev, 0, sizeof *ev);
	ev->type = HM_EV_ERROR;
	ev->at = p->st.pos;
	ev->code = HM_ENOMEM;
	ev->text.p = msg;
	ev->text.len = sizeof msg - 1;
	return 1;
}

int
hm_parser_next(hm_parser *p, hm_event *ev)
{
	struct qev *e;
	int f;

	if (p->q.failed)
		return 0;
	/* The queue and the input positions stay inside what they index. */
	assert(p->q.head <= p->q.len && p->q.len <= p->q.cap);
	assert(p->in.ipos <= p->in.ids.len && p->in.tpos <= p->in.text.len);
	assert(!p->q.holding || (p->q.hq <= p->q.len && p->q.ha <= p->q.arena.len));

	/*
	 * The hot path: an ordinary token of whole characters inside content
	 * is a delta of the vocabulary's own bytes; nothing is queued.  With
	 * merging, a run of such tokens is one delta.
	 */
	if (p->q.head == p->q.len && p->st.state == S_CONTENT && !p->in.text_mode &&
	    p->in.ipos < p->in.ids.len && !p->c.pend.len && !p->c.poisoned && !p->c.split &&
	    !p->q.holding) {
		uint32_t id = p->in.ids.v[p->in.ipos];
		size_t n;
		const char *s;

		if (id < HM_N_ORDINARY && (s = hm_token_bytes(id, &n)) &&
		    whole_chars(s, n)) {
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
			return 1;
		}
	}
	if (p->q.head == (p->q.holding ? p->q.hq : p->q.len)) {
		if (p->q.holding)
			hold_compact(p);
		else {
			p->q.head = p->q.len = 0;
			hm_buf_reset(&p->q.arena);
		}
		while (p->q.head == (p->q.holding ? p->q.hq : p->q.len) && !p->in.done) {
			if (p->in.text_mode) {
				if (!hm__p_text_unit(p)) {
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
			if (p->st.state == S_DONE && !p->in.done) {
				p->in.done = 1;
			}
			if (bufs_oom(p)) {
				p->q.oom = 1;
				break;
			}
		}
	}
	if (p->q.oom || bufs_oom(p))
		return out_of_memory(p, ev);
	if (p->q.head == (p->q.holding ? p->q.hq : p->q.len))
		return 0;
	e = &p->q.v[p->q.head++];
	assert(e->type >= HM_EV_START && e->type <= HM_EV_DONE);
	memset(ev, 0, sizeof *ev);
	ev->type = e->type;
	ev->at = e->at;
	ev->role = e->role >= 0 ? hm__p_role_names[e->role] : NULL;
	for (f = 0; f < F_N; f++) {
		hm_span *sp = f == P_NAME ? &ev->name : f == P_RCPT ? &ev->recipient :
		    f == P_CHAN ? &ev->channel : f == P_CTYPE ? &ev->content_type : &ev->text;

		if (e->has[f]) {
			/* an event's text lies in the arena (no failed append got here) */
			assert(e->off[f] + e->len[f] <= p->q.arena.len);
			sp->p = p->q.arena.p + e->off[f];
			sp->len = e->len[f];
		}
	}
	ev->stop = e->stop;
	ev->code = e->code;
	ev->truncated = e->truncated;
	ev->tokens = e->tokens;
	return 1;
}

uint64_t
hm_parser_position(const hm_parser *p)
{
	return p->st.pos;
}

void
hm_parser_skip(hm_parser *p)
{
	p->st.pos++;
}

uint64_t
hm_parser_oldest(const hm_parser *p)
{
	uint64_t at = p->st.pos;

	if (p->st.state == S_HEADER && p->h.at < at)
		at = p->h.at;
	if (p->st.state == S_PEEK && p->r.npk && p->r.pk[0].pos < at)
		at = p->r.pk[0].pos;
	if (p->r.junk_on && p->r.junk_at < at)
		at = p->r.junk_at;
	if (p->in.text_mode && p->c.pend.len && p->st.pos - p->c.pend.len < at)
		at = p->st.pos - p->c.pend.len;
	if (p->t.mk_head < p->t.nmk && p->t.mk[p->t.mk_head].at < at)
		at = p->t.mk[p->t.mk_head].at;
	if (p->c.nhmk && p->c.hmk[0].at < at)
		at = p->c.hmk[0].at;
	if (p->q.holding && p->q.hq < p->q.len && p->q.v[p->q.hq].at < at)
		at = p->q.v[p->q.hq].at;
	return at;
}
