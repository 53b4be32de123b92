/*
 * parse.c - the streaming Harmony parser: ids or text in, events out.
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
 * This file holds the public API (creating, feeding, events out as
 * hm_event) and the configuration (struct p_conf), which it owns.  The
 * state machine itself is layered below it in the parse_*.c files, each
 * calling only the ones below it and each owning its part of the state;
 * parser_int.h lists them and holds the state they share.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "parser_int.h"
#include "vocab_int.h"

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

/* ---------------------------------------------------------------- API */

/* The first message's role as hm_parser_new takes it into *r (an hm_role, R_NONE, R_AUTO); -1 for none. */
static int
first_role(const char *role, int *r)
{
	if (!role || !strcmp(role, "none"))
		*r = R_NONE;
	else if (!strcmp(role, "auto"))
		*r = R_AUTO;
	else if ((*r = hm__role_index(role, strlen(role))) < 0)
		return -1;
	return 0;
}

int
hm_parser_role_valid(const char *role)
{
	int r;

	return first_role(role, &r) == 0;
}

hm_parser *
hm_parser_new(const char *role, unsigned flags)
{
	hm_parser *p;
	int r;

	if (first_role(role, &r) < 0)
		return NULL;
	p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->cf.flags = flags;
	p->cf.strict = (flags & HM_PARSE_STRICT) != 0;
	p->cf.role0 = r;
	p->cf.wide = wide_ids();
	hm__p_machine_init(p);
	return p;
}

void
hm_parser_free(hm_parser *p)
{
	if (!p)
		return;
	hm_buf_free(&p->cf.marker);
	hm_buf_free(&p->cf.cont_name);
	hm__p_input_free(p);
	hm__p_header_free(p);
	hm__p_content_free(p);
	hm__p_events_free(p);
	hm__p_recover_free(p);
	free(p);
}

void
hm_parser_reset(hm_parser *p)
{
	p->nomem = 0;
	hm__p_input_reset(p);
	hm__p_header_reset(p);
	hm__p_content_reset(p);
	hm__p_events_reset(p);
	hm__p_recover_reset(p);
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
	hm__add(&p->nomem, &p->cf.marker, marker, len);
	return p->nomem ? HM_ENOMEM : HM_OK;
}

hm_status
hm_parser_set_continue(hm_parser *p, const char *channel, size_t len)
{
	hm_buf_reset(&p->cf.cont_name);
	p->cf.cont = 1;
	p->cf.cont_chan = channel != NULL;
	if (channel)
		hm__add(&p->nomem, &p->cf.cont_name, channel, len);
	return p->nomem ? HM_ENOMEM : HM_OK;
}

hm_status
hm_parser_feed(hm_parser *p, const uint32_t *ids, size_t n)
{
	if (p->nomem)
		return HM_ENOMEM;
	return hm__p_input_ids(p, ids, n);
}

hm_status
hm_parser_feed_text(hm_parser *p, const char *buf, size_t len)
{
	if (p->nomem)
		return HM_ENOMEM;
	return hm__p_input_text(p, buf, len);
}

void
hm_parser_finish(hm_parser *p)
{
	hm__p_input_end(p);
}

int
hm_parser_next(hm_parser *p, hm_event *ev)
{
	const struct qev *e;
	int f;

	if (p->q.failed)
		return 0;
	/* Out of memory ends the events, the fast path's too (a call's arguments it kept). */
	if (!p->nomem && hm__p_fast_ok(p) && hm__p_fast(p, ev))
		return 1;
	if (hm__p_queue_drained(p)) {
		hm__p_queue_recycle(p);
		hm__p_run(p);
	}
	if (p->nomem)
		return hm__p_queue_fail(p, ev);
	if (!(e = hm__p_queue_pop(p)))
		return 0;
	assert(e->type >= HM_EV_START && e->type <= HM_EV_DONE);
	memset(ev, 0, sizeof *ev);
	ev->type = e->type;
	ev->at = e->at;
	ev->role = e->role >= 0 ? hm__role_names[e->role] : NULL;
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
	hm__p_input_skip(p);
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
