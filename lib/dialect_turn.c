/*
 * dialect_turn.c - an assistant turn of a Chat, Responses or Anthropic
 * request that brings back the ids its model wrote (harmony-parse
 * --with-tokens packs them: ids_pack_int.h) is rendered as those ids.
 *
 * Trusted only when they are this turn's: the ids are parsed as
 * harmony-parse parses a completion, written in the request's own shape
 * (writers.c), and read back by the dialect's reader; the messages that
 * gives must be the messages the turn itself gave (roles, channels,
 * recipients, content types, text, arguments as the reader has them).
 * Then the turn's messages are replaced by the parsed ones, each with its
 * ids (hm_conversation_set_message_ids), whatever header order, content
 * type or spacing the model wrote.  Otherwise the turn stays as read and
 * a warning names it: a client that edited its history gets what it
 * sent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect_int.h"
#include "ids_pack_int.h"

/* The parsed turn: its messages and where each one's ids end. */
struct parsed {
	hm_conversation *c;
	size_t *end;  /* message i's ids are [end[i-1], end[i]) (from 0) */
	size_t cap;
	hm_buf json;  /* the turn written in the request's shape */
	int nomem;
};

static int
str_eq(const hm_str *a, const hm_str *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->p, b->p, a->len));
}

static int
msg_eq(const hm_message *a, const hm_message *b)
{
	size_t i;

	if (a->role != b->role || !str_eq(&a->name, &b->name) ||
	    !str_eq(&a->recipient, &b->recipient) || !str_eq(&a->channel, &b->channel) ||
	    !str_eq(&a->content_type, &b->content_type) || a->ncontent != b->ncontent)
		return 0;
	for (i = 0; i < a->ncontent; i++)
		if (a->content[i].type != b->content[i].type ||
		    !str_eq(&a->content[i].text, &b->content[i].text))
			return 0;
	return 1;
}

static hm_shape
shape_of(hm_dialect d)
{
	return d == HM_DIALECT_CHAT ? HM_TO_CHAT : d == HM_DIALECT_RESPONSES ? HM_TO_RESPONSES :
	    HM_TO_ANTHROPIC;
}

/*
 * Parse ids[0..n) as harmony-parse does (recovering, a completion after
 * <|start|>assistant) into t's messages and their ends, and write them
 * in shape into t->json.  HM_OK; HM_EINPUT when the ids are no whole
 * completion; HM_ENOMEM.
 */
static hm_status
parse_ids(struct parsed *t, const uint32_t *ids, size_t n, hm_shape shape)
{
	hm_parser *p = hm_parser_new("assistant", 0);
	hm_writer *w = hm_writer_new(shape, 0);
	hm_message *m = NULL;
	hm_buf text = { 0 };
	hm_event ev;
	hm_status st = HM_OK;
	const char *out;
	size_t len;

	if (!p || !w || !(t->c = hm_conversation_new()) || hm_writer_begin(w, "", 0) != HM_OK) {
		st = HM_ENOMEM;
		goto done;
	}
	if (hm_parser_feed(p, ids, n) != HM_OK)
		st = HM_ENOMEM;
	hm_parser_finish(p);
	while (st == HM_OK && hm_parser_next(p, &ev)) {
		if (hm_writer_event(w, &ev) != HM_OK) {
			st = HM_ENOMEM;
			break;
		}
		switch (ev.type) {
		case HM_EV_START:
			if (!(m = hm_conversation_push(t->c, hm_role_from_name(ev.role))) ||
			    hm_str_set(&m->name, ev.name.p, ev.name.len) != HM_OK ||
			    hm_str_set(&m->recipient, ev.recipient.p, ev.recipient.len) != HM_OK ||
			    hm_str_set(&m->channel, ev.channel.p, ev.channel.len) != HM_OK ||
			    hm_str_set(&m->content_type, ev.content_type.p, ev.content_type.len) != HM_OK)
				st = HM_ENOMEM;
			hm__buf_clear(&text);
			break;
		case HM_EV_DELTA:
			hm__add(&t->nomem, &text, ev.text.p, ev.text.len);
			break;
		case HM_EV_END:
			if (!m || t->nomem) {
				st = t->nomem ? HM_ENOMEM : HM_EINPUT;
				break;
			}
			if (hm_message_add_text(m, text.p ? text.p : "", text.len) != HM_OK)
				st = HM_ENOMEM;
			if (t->c->n > t->cap) {
				size_t cap = t->cap ? 2 * t->cap : 8, *e = realloc(t->end, cap * sizeof *e);

				if (!e) {
					st = HM_ENOMEM;
					break;
				}
				t->end = e;
				t->cap = cap;
			}
			/* a message's ids run to its stop token, that included */
			t->end[t->c->n - 1] = (size_t)ev.at + (ev.stop == HM_STOP_END ||
			    ev.stop == HM_STOP_RETURN || ev.stop == HM_STOP_CALL);
			m = NULL;
			break;
		case HM_EV_ERROR:
			st = ev.code == HM_ENOMEM ? HM_ENOMEM : HM_EINPUT;
			break;
		case HM_EV_DONE:
			/* cut off inside a message, or ids after the last one: no whole turn */
			if (ev.truncated || m || !t->c->n || t->end[t->c->n - 1] != n)
				st = HM_EINPUT;
			break;
		default:
			break;
		}
	}
	if (st == HM_OK) {
		out = hm_writer_output(w, &len);
		hm__add(&t->nomem, &t->json, out, len);
		if (t->nomem)
			st = HM_ENOMEM;
	}
done:
	hm_buf_free(&text);
	hm_parser_free(p);
	hm_writer_free(w);
	return st;
}

/*
 * Read the parsed turn's JSON with the dialect's reader, after the
 * conversation's messages; 1 when it gives the messages [from, n0) gave,
 * 0 when not (or it cannot be read).  What it added is taken away again:
 * messages, calls remembered, warnings (none are given), a failure.
 */
static int
same_reading(conv *k, hm__dl_reread *reread, size_t from, const struct parsed *t)
{
	hm_conversation *c = k->c;
	size_t n0 = c->n, nc0 = k->ncalls, i;
	hm_warn_fn *warn = k->warn;
	hm_error *err = k->err, scratch;
	const hm_jv *at = k->at;
	char why[8];
	hm_jv *v = hm__jv_parse(t->json.p ? t->json.p : "", t->json.len, why, sizeof why);
	int same = 0;

	if (!v)
		return 0;
	k->warn = NULL;
	k->err = &scratch;
	(void)reread(k, v);
	if (k->st == HM_OK && c->n - n0 == n0 - from) {
		same = 1;
		for (i = 0; i < n0 - from && same; i++)
			same = msg_eq(&c->msgs[from + i], &c->msgs[n0 + i]);
	}
	for (i = n0; i < c->n; i++) {
		hm__message_clear(&c->msgs[i]);
		hm__conv_ids_clear(c, i);
	}
	c->n = n0;
	for (i = nc0; i < k->ncalls; i++) {
		free(k->calls[i].id);
		free(k->calls[i].name);
	}
	k->ncalls = nc0;
	if (k->st != HM_ENOMEM)
		k->st = HM_OK;
	k->warn = warn;
	k->err = err;
	k->at = at;
	hm__jv_free(v);
	return same;
}

hm_status
hm__dl_turn(conv *k, hm_dialect d, size_t from, const hm_jv *val, const char *where,
    hm__dl_reread *reread)
{
	struct parsed t = { 0 };
	hm_ids ids = { 0 };
	const char *why = NULL;
	hm_conversation *c = k->c;
	hm_status st;
	size_t i, at;

	if (k->st != HM_OK || !hm__dl_is_str(val) || !hm__ids_packed(val->s, val->len))
		return k->st;
	if ((st = hm__ids_unpack(val->s, val->len, &ids, &why)) == HM_EINPUT) {
		hm__dl_warn_at(k, val, "%s: the model's ids it carries do not unpack (%s): "
		    "rendered from its text", where, why);
		return HM_OK;
	}
	if (st == HM_OK && (st = parse_ids(&t, ids.v, ids.len, shape_of(d))) == HM_EINPUT)
		hm__dl_warn_at(k, val, "%s: the model's ids it carries are no whole completion: "
		    "rendered from its text", where);
	else if (st == HM_OK && !same_reading(k, reread, from, &t)) {
		if (k->st == HM_OK)
			hm__dl_warn_at(k, val, "%s: the model's ids it carries are not this message's "
			    "(edited?): rendered from its text", where);
	} else if (st == HM_OK) {
		/* the turn's messages give way to the parsed ones, each with its ids */
		for (i = from; i < c->n; i++) {
			hm__message_clear(&c->msgs[i]);
			hm__conv_ids_clear(c, i);
		}
		c->n = from;
		for (i = 0, at = 0; i < t.c->n && st == HM_OK; i++) {
			hm_message *m = hm_conversation_push(c, HM_ROLE_ASSISTANT);

			if (!m) {
				st = HM_ENOMEM;
				break;
			}
			*m = t.c->msgs[i];
			memset(&t.c->msgs[i], 0, sizeof t.c->msgs[i]);
			st = hm_conversation_set_message_ids(c, c->n - 1, ids.v + at, t.end[i] - at);
			at = t.end[i];
		}
	}
	if (st == HM_ENOMEM)
		hm__dl_bad(k, HM_ENOMEM);
	hm_conversation_free(t.c);
	free(t.end);
	hm_buf_free(&t.json);
	free(ids.v);
	return k->st;
}
