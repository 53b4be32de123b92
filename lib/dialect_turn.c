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
parse_ids(struct parsed *t, const uint32_t *ids, size_t n, const char *role, hm_shape shape)
{
	hm_parser *p = hm_parser_new(role, 0);
	hm_writer *w = shape != HM_TO_UNKNOWN ? hm_writer_new(shape, 0) : NULL;
	hm_message *m = NULL;
	hm_buf text = { 0 };
	hm_event ev;
	hm_status st = HM_OK;
	const char *out;
	size_t len;

	if (!p || (shape != HM_TO_UNKNOWN && (!w || hm_writer_begin(w, "", 0) != HM_OK)) ||
	    !(t->c = hm_conversation_new())) {
		st = HM_ENOMEM;
		goto done;
	}
	if (hm_parser_feed(p, ids, n) != HM_OK)
		st = HM_ENOMEM;
	hm_parser_finish(p);
	while (st == HM_OK && hm_parser_next(p, &ev)) {
		if (w && hm_writer_event(w, &ev) != HM_OK) {
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
	if (st == HM_OK && w) {
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
/*
 * Whether the messages a[0..na) are b[0..nb), or (relaxed) b without its
 * analysis messages where a has none: a turn that came back without its
 * reasoning.
 */
static int
same_msgs(const hm_message *a, size_t na, const hm_message *b, size_t nb, int relaxed)
{
	size_t i, j;

	if (na == nb) {
		for (i = 0; i < na && msg_eq(&a[i], &b[i]); i++)
			;
		if (i == na)
			return 1;
	}
	if (!relaxed)
		return 0;
	for (i = 0; i < na; i++)
		if (a[i].channel.len == 8 && !memcmp(a[i].channel.p, "analysis", 8))
			return 0;
	for (i = j = 0; j < nb; j++) {
		if (b[j].channel.len == 8 && !memcmp(b[j].channel.p, "analysis", 8))
			continue;
		if (i == na || !msg_eq(&a[i], &b[j]))
			return 0;
		i++;
	}
	return i == na;
}

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
	if (k->st == HM_OK)
		same = same_msgs(c->msgs + from, n0 - from, c->msgs + n0, c->n - n0, 1);
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

/*
 * The turn [from, c->n) as ids[0..n): 1 when they parse to it (and now
 * stand in its place), 0 when not; k->st (HM_ENOMEM) is the caller's to
 * check.  no_whole: set when the ids are no whole completion.
 */
static int
take_ids(conv *k, hm_dialect d, size_t from, const hm_ids *ids, hm__dl_reread *reread,
    int *no_whole)
{
	struct parsed t = { 0 };
	hm_conversation *c = k->c;
	hm_status st;
	size_t i, at;
	int ok = 0;

	if ((st = parse_ids(&t, ids->v, ids->len, "assistant", shape_of(d))) == HM_EINPUT)
		*no_whole = 1;
	else if (st == HM_OK && same_reading(k, reread, from, &t)) {
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
			st = hm_conversation_set_message_ids(c, c->n - 1, ids->v + at, t.end[i] - at);
			at = t.end[i];
		}
		ok = st == HM_OK;
	}
	if (st == HM_ENOMEM)
		hm__dl_bad(k, HM_ENOMEM);
	hm_conversation_free(t.c);
	free(t.end);
	hm_buf_free(&t.json);
	return ok;
}

hm_status
hm__dl_turn(conv *k, hm_dialect d, size_t from, const hm_jv *val, const hm_jv *call,
    const char *where, hm__dl_reread *reread)
{
	hm_ids ids = { 0 };
	const char *why = NULL;
	int no_whole = 0, done = 0, packed;
	hm_status st = HM_OK;

	if (k->st != HM_OK)
		return k->st;
	packed = hm__dl_is_str(val) && hm__ids_packed(val->s, val->len);
	if (packed && (st = hm__ids_unpack(val->s, val->len, &ids, &why)) == HM_OK)
		done = take_ids(k, d, from, &ids, reread, &no_whole);
	/* the store: the turn that made its first call (it came back without its ids) */
	if (!done && k->st == HM_OK && st != HM_ENOMEM && k->lookup && hm__dl_is_str(call)) {
		hm_status ls = k->lookup(k->lookup_ctx, HM_LOOKUP_CALL, call->s, call->len, &ids, NULL);

		if (ls == HM_OK) {
			int nw = 0;

			done = take_ids(k, d, from, &ids, reread, &nw);
		} else if (ls == HM_ENOMEM)
			st = HM_ENOMEM;
	}
	if (st == HM_ENOMEM)
		hm__dl_bad(k, HM_ENOMEM);
	else if (!done && packed && k->st == HM_OK) {
		if (why)
			hm__dl_warn_at(k, val, "%s: the model's ids it carries do not unpack (%s): "
			    "rendered from its text", where, why);
		else if (no_whole)
			hm__dl_warn_at(k, val, "%s: the model's ids it carries are no whole completion: "
			    "rendered from its text", where);
		else
			hm__dl_warn_at(k, val, "%s: the model's ids it carries are not this message's "
			    "(edited?): rendered from its text", where);
	}
	free(ids.v);
	return k->st;
}

hm_status
hm__dl_previous(conv *k, const hm_jv *id)
{
	struct parsed t = { 0 };
	hm_ids ids = { 0 };
	hm_buf calls = { 0 };
	hm_conversation *c = k->c;
	hm_status st;
	size_t i, at, ncalls = 0, first = c->n, seen = 0;
	const char *cid;

	if (hm__dl_is_null(id))
		return HM_OK;
	if (!hm__dl_is_str(id))
		return hm__dl_fail_at(k, id, "previous_response_id: must be a string, not %s",
		    hm__dl_a_type(id));
	if (!k->lookup)
		return hm__dl_fail_at(k, id, "previous_response_id '%s': no store of responses "
		    "to find it in", id->s);
	st = k->lookup(k->lookup_ctx, HM_LOOKUP_RESPONSE, id->s, id->len, &ids, &calls);
	if (st == HM_EINPUT)
		return hm__dl_fail_at(k, id, "previous_response_id '%s': no such response in the "
		    "store", id->s);
	/* the response's whole ids: its prompt (from <|start|>) and its completion */
	if (st == HM_OK && (st = parse_ids(&t, ids.v, ids.len, NULL, HM_TO_UNKNOWN)) == HM_EINPUT)
		hm__dl_fail_at(k, id, "previous_response_id '%s': the stored response is no "
		    "whole conversation", id->s);
	/*
	 * Its messages but the system and developer ones (this request's own
	 * instructions and tools are rendered, as the API does not carry them
	 * over), each as its ids.
	 */
	for (i = 0, at = 0; st == HM_OK && i < t.c->n; at = t.end[i], i++) {
		hm_message *m;

		if (t.c->msgs[i].role == HM_ROLE_SYSTEM || t.c->msgs[i].role == HM_ROLE_DEVELOPER)
			continue;
		if (!(m = hm_conversation_push(c, HM_ROLE_ASSISTANT))) {
			st = HM_ENOMEM;
			break;
		}
		*m = t.c->msgs[i];
		memset(&t.c->msgs[i], 0, sizeof t.c->msgs[i]);
		st = hm_conversation_set_message_ids(c, c->n - 1, ids.v + at, t.end[i] - at);
	}
	/*
	 * Its completion's calls, the last of its call messages, answer to
	 * the call ids it was written with: a function_call_output finds them.
	 */
	for (i = 0; st == HM_OK && i < calls.len; i++)
		ncalls += calls.p[i] == '\0';
	for (i = first; st == HM_OK && i < c->n; i++)
		seen += c->msgs[i].recipient.len > 10 && !memcmp(c->msgs[i].recipient.p, "functions.", 10);
	for (i = first, cid = calls.p; st == HM_OK && ncalls && i < c->n; i++) {
		const hm_str *r = &c->msgs[i].recipient;
		hm_jv *jid, *jname;

		if (!(r->len > 10 && !memcmp(r->p, "functions.", 10)) || seen-- > ncalls)
			continue;
		jid = hm__jv_str(cid, strlen(cid));
		jname = hm__jv_str(r->p + 10, r->len - 10);
		if (!jid || !jname)
			st = HM_ENOMEM;
		else if (hm__dl_remember_call(k, jid, jname) != HM_OK)
			st = k->st;
		hm__jv_free(jid);
		hm__jv_free(jname);
		cid += strlen(cid) + 1;
	}
	if (st == HM_ENOMEM)
		hm__dl_bad(k, HM_ENOMEM);
	hm_conversation_free(t.c);
	free(t.end);
	hm_buf_free(&t.json);
	hm_buf_free(&calls);
	free(ids.v);
	return k->st;
}
