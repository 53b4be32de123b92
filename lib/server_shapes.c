/*
 * server_shapes.c - the completions in what servers return (hm_server):
 * where each server puts the text and the ids of a choice, whole or as
 * stream chunks (../shared/spec/input-shapes.md).  Log records without
 * any server member take hm_record's one pass; everything else is read
 * into a tree.  Open completions (streams) are kept in the order their
 * first chunk came; the oldest is handed out live, the others wait.
 * The queue of completions and the items are server_queue.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_val_int.h"
#include "records_int.h"
#include "server_int.h"

/* ---------------------------------------------------------------- paths */

static void
path_free(hm_server *sv)
{
	size_t i;

	for (i = 0; i < sv->npath; i++)
		free(sv->path[i].name);
	free(sv->path);
	sv->path = NULL;
	sv->npath = 0;
	free(sv->field);
	sv->field = NULL;
}

static hm_status
path_push(hm_server *sv, const char *name, size_t n, long index)
{
	struct srv_step *v = realloc(sv->path, (sv->npath + 1) * sizeof *v);

	if (!v)
		goto nomem;
	sv->path = v;
	v[sv->npath].index = index;
	v[sv->npath].name = NULL;
	if (name && !(v[sv->npath].name = hm__memdup(name, n)))
		goto nomem;
	sv->npath++;
	return HM_OK;
nomem:
	sv->nomem = 1;
	return HM_ENOMEM;
}

hm_status
hm_server_set_field(hm_server *sv, const char *path)
{
	size_t i = 0, n;

	path_free(sv);
	if (!path)
		return HM_OK;
	n = strlen(path);
	if (!n)
		return HM_EINPUT;
	if (!(sv->field = hm__memdup(path, n))) {
		sv->nomem = 1;
		return HM_ENOMEM;
	}
	if (path[0] != '.' && path[0] != '[')
		return path_push(sv, path, n, -1);
	while (i < n) {
		if (path[i] == '.') {
			size_t st = ++i;

			if (i < n && path[i] == '"') {
				for (st = ++i; i < n && path[i] != '"'; i++)
					;
				if (i == n || i == st)
					return HM_EINPUT;
				if (path_push(sv, path + st, i - st, -1) != HM_OK)
					return HM_ENOMEM;
				i++;
				continue;
			}
			while (i < n && path[i] != '.' && path[i] != '[')
				i++;
			if (i == st) {
				if (i == n && n == 1)
					return HM_EINPUT; /* "." alone: the record itself */
				if (i < n && path[i] == '[')
					continue;
				return HM_EINPUT;
			}
			if (path_push(sv, path + st, i - st, -1) != HM_OK)
				return HM_ENOMEM;
		} else if (path[i] == '[') {
			long v = 0;
			size_t st = ++i;

			while (i < n && path[i] >= '0' && path[i] <= '9' && v < 100000000)
				v = v * 10 + (path[i++] - '0');
			if (i == st || i == n || path[i] != ']')
				return HM_EINPUT;
			i++;
			if (path_push(sv, NULL, 0, v) != HM_OK)
				return HM_ENOMEM;
		} else
			return HM_EINPUT;
	}
	return sv->npath ? HM_OK : HM_EINPUT;
}

const char *
hm_server_field(const hm_server *sv)
{
	return sv->field;
}

static const hm_jv *
path_get(const hm_server *sv, const hm_jv *o)
{
	size_t i;

	for (i = 0; i < sv->npath && o; i++) {
		const struct srv_step *p = &sv->path[i];

		if (p->name)
			o = hm__jv_is(o, HM_JV_OBJECT) ? hm__jv_get(o, p->name) : NULL;
		else
			o = hm__jv_is(o, HM_JV_ARRAY) && (size_t)p->index < o->n ?
			    o->v[p->index] : NULL;
	}
	return o;
}

/* ---------------------------------------------------------------- JSON helpers */

static const hm_jv *
get(const hm_jv *o, const char *k)
{
	return hm__jv_is(o, HM_JV_OBJECT) ? hm__jv_get(o, k) : NULL;
}

static const hm_jv *
getstr(const hm_jv *o, const char *k)
{
	const hm_jv *v = get(o, k);

	return hm__jv_is(v, HM_JV_STRING) ? v : NULL;
}

static int
is_null(const hm_jv *v)
{
	return !v || v->type == HM_JV_NULL;
}

static int
streq(const hm_jv *v, const char *s)
{
	return hm__jv_is(v, HM_JV_STRING) && v->len == strlen(s) && !memcmp(v->s,
	    s, v->len);
}

/*
 * Where an id member is, written only for an error (a snprintf a token
 * would cost a stream of one token an event dearly): pre[i]post[j], a
 * part left out when its index is NONE ("choices[0].token_ids[3]",
 * "token.id", "details.tokens[2].id").
 */
#define NONE ((size_t)-1)
struct id_at {
	const char *pre, *post;
	size_t i, j;
};

static void
at_str(char *b, size_t n, const struct id_at *a)
{
	size_t o = (size_t)snprintf(b, n, "%s", a->pre);

	if (o < n && a->i != NONE)
		o += (size_t)snprintf(b + o, n - o, "[%zu]", a->i);
	if (o < n && a->post)
		o += (size_t)snprintf(b + o, n - o, "%s", a->post);
	if (o < n && a->j != NONE)
		snprintf(b + o, n - o, "[%zu]", a->j);
}

/* What a JSON value is, for a message that says what was there instead. */
static const char *
kind_of(const hm_jv *v)
{
	return !v ? "missing id" : v->type == HM_JV_STRING ? "string" :
	    v->type == HM_JV_ARRAY ? "list" : v->type == HM_JV_OBJECT ? "object" :
	    v->type == HM_JV_NULL ? "null" : v->type == HM_JV_NUMBER ? "number" : "boolean";
}

/*
 * Whether v is a token id: a JSON number spelled as every id reader takes
 * it, at most 2^32-1 (HM_IDS_ANY's range).
 */
static int
id_ok(const hm_jv *v)
{
	return v && v->type == HM_JV_NUMBER && v->len <= 10 && hm__id_spelled(v->s, v->len) &&
	    v->num <= 4294967295.0;
}

/* Why v (at a) is no id, into why[0..n): 0.  Apart, as it is rarely called. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int
id_fail(const hm_jv *v, const struct id_at *a, char *why, size_t n)
{
	char where[80];

	at_str(where, sizeof where, a);
	if (!hm__jv_is(v, HM_JV_NUMBER))
		snprintf(why, n, "not a token id at %s (a %s)", where, kind_of(v));
	else if (!hm__id_spelled(v->s, v->len))
		snprintf(why, n, "not a token id at %s: '%.*s' " HM_ID_SPELLING, where,
		    v->len > 24 ? 24 : (int)v->len, v->s);
	else
		snprintf(why, n, "id %.*s out of range at %s (max 4294967295)",
		    v->len > 24 ? 24 : (int)v->len, v->s, where);
	return 0;
}

/*
 * The id v (at a) into sv->ids: 1, else 0 with why[0..n) saying what is
 * wrong and where, or out of memory (0, why "", sv->nomem set).
 */
static int
id_push(hm_server *sv, const hm_jv *v, const struct id_at *a, char *why, size_t n)
{
	if (!id_ok(v))
		return id_fail(v, a, why, n);
	if (hm_ids_push(&sv->ids, (uint32_t)v->num) != HM_OK) {
		sv->nomem = 1;
		why[0] = '\0';
		return 0;
	}
	return 1;
}

/*
 * The id array a (the member pre[i]post names) into sv->ids: 1; 0 when
 * there is none (absent or null); -1 when it is no array of ids, why[0..n)
 * saying what and where, or out of memory (sv->nomem set).  Ids are read
 * as in every other reader: a bad one is an error, not text read instead.
 */
static int
id_array(hm_server *sv, const hm_jv *a, const char *pre, size_t i, const char *post,
    char *why, size_t n)
{
	struct id_at at = { pre, post, i, 0 };

	sv->ids.len = 0;
	why[0] = '\0';
	if (is_null(a))
		return 0;
	if (!hm__jv_is(a, HM_JV_ARRAY)) {
		char where[80];

		at.j = NONE;
		at_str(where, sizeof where, &at);
		snprintf(why, n, "%s is not an array of token ids", where);
		return -1;
	}
	for (at.j = 0; at.j < a->n; at.j++) {
		const hm_jv *v = a->v[at.j];

		if (!id_ok(v))
			return id_fail(v, &at, why, n) - 1;
		if (hm_ids_push(&sv->ids, (uint32_t)v->num) != HM_OK) {
			sv->nomem = 1;
			return -1;
		}
	}
	return 1;
}

/*
 * A choice c (pre[i], or the record itself: pre NULL) that is no object,
 * or whose text member key (its value t) is neither a string nor null:
 * -1 with why[0..n) saying so; it used to be an empty completion, exit 0,
 * without a word.  Else 0, and *text the text (NULL: none).
 */
static int
bad_text(const hm_jv *c, const hm_jv *t, const hm_jv **text, const char *pre, size_t i,
    const char *key, char *why, size_t n)
{
	*text = hm__jv_is(t, HM_JV_STRING) ? t : NULL;
	if (!hm__jv_is(c, HM_JV_OBJECT)) {
		if (!pre)
			return 0; /* (a record is an object: looked at before) */
		snprintf(why, n, "%s[%zu] is not an object (a %s)", pre, i, kind_of(c));
		return -1;
	}
	if (!t || t->type == HM_JV_STRING || t->type == HM_JV_NULL)
		return 0;
	if (pre)
		snprintf(why, n, "%s[%zu].%s is not a string (a %s)", pre, i, key, kind_of(t));
	else
		snprintf(why, n, "%s is not a string (a %s)", key, kind_of(t));
	return -1;
}

/* A record whose ids are none (why says what and where): an error in its place. */
static hm_status
ids_error(hm_server *sv, const hm_jv *o, const char *why, size_t line)
{
	if (sv->nomem)
		return HM_ENOMEM;
	return hm__srv_error(sv, why, strlen(why), get(o, "id"), NULL, line, (size_t)-1,
	    HM_HINT_NONE);
}

/* The members of o but those named in skip (NULL-terminated), compact. */
static void
carry(hm_server *sv, hm_buf *b, const hm_jv *o, const char *const *skip, long index)
{
	int *nm = &sv->nomem;
	size_t i, k;

	hm_buf_reset(b);
	for (i = 0; hm__jv_is(o, HM_JV_OBJECT) && i < o->n; i++) {
		for (k = 0; skip[k] && strcmp(skip[k], o->k[i]); k++)
			;
		if (skip[k] || (index >= 0 && !strcmp(o->k[i], "index")))
			continue;
		if (b->len)
			hm__putc(nm, b, ',');
		hm__json_str(nm, b, o->k[i], o->klen[i]);
		hm__putc(nm, b, ':');
		hm__srv_jv(sv, b, o->v[i]);
	}
	if (index >= 0) {
		if (b->len)
			hm__putc(nm, b, ',');
		hm__adds(nm, b, "\"index\":");
		hm__addu(nm, b, (unsigned long long)index);
	}
	(void)hm__reserve(nm, b, 1);
}

static long
index_of(const hm_jv *o, long dflt)
{
	const hm_jv *v = get(o, "index");

	if (hm__jv_is(v, HM_JV_NUMBER) && v->num >= 0 && v->num < 1e9)
		return (long)v->num;
	return dflt;
}

/* The stop a finish reports: an id to put back, STOP_GUESS, or 0 (none). */
static uint32_t
stop_of(const hm_jv *reason, const hm_jv *which)
{
	if (hm__jv_is(which, HM_JV_NUMBER))
		return which->num == HM_TOK_RETURN || which->num == HM_TOK_CALL ?
		    (uint32_t)which->num : 0;
	if (!is_null(which))
		return 0; /* a stop string of the request */
	return streq(reason, "stop") || streq(reason, "eos") ||
	    streq(reason, "eos_token") ? STOP_GUESS : 0;
}

/* ---------------------------------------------------------------- shapes */

static const char *const skip_openai[] = { "choices", NULL };
static const char *const skip_offline[] = { "outputs", NULL };
static const char *const skip_sglang[] = { "text", "output_ids", NULL };
static const char *const skip_llama[] = { "content", "tokens",
    "completion_probabilities", "stop", NULL };
static const char *const skip_ollama[] = { "response", "thinking", "context",
    "message", "tool_calls", "done", NULL };
static const char *const skip_tgi[] = { "token", "generated_text", "details",
    "top_tokens", NULL };
static const char *const skip_triton[] = { "text_output", "output_ids", NULL };

/* A choice's parsed chat message (reasoning, content, tool calls), as chunks. */
static hm_status
chat_parts(hm_server *sv, struct srv_stream *st, const hm_jv *m)
{
	const hm_jv *th = getstr(m, "thinking"), *c = getstr(m, "content"),
	    *tc = get(m, "tool_calls");
	size_t i;

	if (!th)
		th = getstr(m, "reasoning_content");
	if (!th)
		th = getstr(m, "reasoning");
	if (th && hm__srv_chat_piece(sv, st, CHAT_THINK, th->s, th->len, NULL, 0) != HM_OK)
		return HM_ENOMEM;
	if (c && hm__srv_chat_piece(sv, st, CHAT_CONTENT, c->s, c->len, NULL, 0) != HM_OK)
		return HM_ENOMEM;
	for (i = 0; hm__jv_is(tc, HM_JV_ARRAY) && i < tc->n; i++) {
		const hm_jv *f = get(tc->v[i], "function"), *nm = getstr(f,
		    "name"), *a = get(f, "arguments");
		hm_buf args = { 0 };
		hm_status r;

		if (!nm)
			continue;
		if (hm__jv_is(a, HM_JV_STRING))
			hm__add(&sv->nomem, &args, a->s, a->len);
		else if (a)
			hm__srv_jv(sv, &args, a);
		r = hm__srv_chat_piece(sv, st, CHAT_CALL, args.p ? args.p : "",
		    args.len, nm->s, nm->len);
		hm_buf_free(&args);
		if (r != HM_OK)
			return HM_ENOMEM;
	}
	return hm__srv_status(sv);
}

/* A message that is parsed chat, not Harmony: reasoning or tool calls in it. */
static int
is_parsed_chat(const hm_jv *m)
{
	const hm_jv *tc = get(m, "tool_calls");

	return getstr(m, "thinking") || getstr(m, "reasoning_content") ||
	    getstr(m, "reasoning") || (hm__jv_is(tc, HM_JV_ARRAY) && tc->n);
}

/*
 * One choice's piece: its text and ids as given (with the ids preferred
 * when it has them), its finish.  chunk: a piece of a stream keyed by
 * key/index, else a whole completion.
 */
struct piece {
	int shape, chunk, cumulative_ok, prefer_ids;
	int chat;                 /* msg is parsed chat whatever it holds */
	long index;
	const hm_jv *text, *msg;  /* text, or a parsed chat message */
	hm_ids *ids;              /* NULL: none */
	int finish;
	uint32_t stop;
	const char *const *skip;
	const hm_jv *rec;         /* the object whose other members are carried */
	const hm_jv *key;         /* the stream's id member, or NULL */
};

/* The members of a stream's finish chunk, for its END: its usage comes there. */
static hm_status
late_members(hm_server *sv, struct srv_stream *st, const struct piece *pc)
{
	hm_buf b = { 0 };
	hm_status r;

	carry(sv, &b, pc->rec, pc->skip, pc->index);
	r = sv->nomem ? HM_ENOMEM : hm__srv_late(sv, st, &b);
	hm_buf_free(&b);
	return r;
}

static hm_status
piece_take(hm_server *sv, struct piece *pc, size_t line)
{
	struct srv_stream *st = NULL;
	int found;

	if (pc->chunk)
		st = hm__srv_find(sv, pc->shape, pc->key, pc->index);
	found = st != NULL;
	if (!st) {
		if (hm__srv_open(sv, pc->shape, pc->key, pc->index, line, &st) != HM_OK)
			return HM_ENOMEM;
		carry(sv, &st->fields, pc->rec, pc->skip, pc->index);
		if (hm__srv_set_id(sv, st, get(pc->rec, "id")) != HM_OK)
			return HM_ENOMEM;
	}
	if (pc->msg && (pc->chat || st->mode == M_CHAT ||
	    (st->mode == M_NONE && is_parsed_chat(pc->msg)))) {
		st->mode = M_CHAT;
		if (chat_parts(sv, st, pc->msg) != HM_OK)
			return HM_ENOMEM;
	} else if (hm__srv_content(sv, st, pc->text ? pc->text->s : NULL,
	    pc->text ? pc->text->len : 0,
	    pc->ids, pc->prefer_ids, pc->cumulative_ok) != HM_OK)
		return HM_ENOMEM;
	if (pc->finish || !pc->chunk) {
		st->stop = pc->stop;
		if (pc->finish && found && late_members(sv, st, pc) != HM_OK)
			return HM_ENOMEM;
		/* a usage chunk may follow an OpenAI stream's finish */
		st->held = pc->chunk && pc->shape == SH_OPENAI;
		return hm__srv_end(sv, st);
	}
	return hm__srv_flush(sv);
}

/*
 * An OpenAI stream's usage chunk (no choices, a usage: vLLM's and
 * sglang's include_usage) for the streams of its id whose END is held:
 * its members go to their ENDs, which go.  *taken: 1 when it was one.
 */
static hm_status
usage_chunk(hm_server *sv, const hm_jv *o, int *taken)
{
	const hm_jv *ch, *u, *id;
	hm_buf b = { 0 }, k = { 0 };
	size_t i;

	*taken = 0;
	for (i = 0; i < sv->nst && !sv->st[i]->held; i++)
		;
	if (i == sv->nst)
		return HM_OK; /* no END is held: the common case, looked at first */
	ch = get(o, "choices");
	u = get(o, "usage");
	if (!hm__jv_is(ch, HM_JV_ARRAY) || ch->n || !hm__jv_is(u, HM_JV_OBJECT))
		return HM_OK;
	if ((id = get(o, "id")))
		hm__srv_jv(sv, &k, id);
	carry(sv, &b, o, skip_openai, -1);
	for (i = 0; i < sv->nst && !sv->nomem; i++) {
		struct srv_stream *st = sv->st[i];

		if (!st->held || st->shape != SH_OPENAI || st->key.len != k.len ||
		    (k.len && memcmp(st->key.p, k.p, k.len)))
			continue;
		if (hm__srv_late(sv, st, &b) != HM_OK)
			break;
		st->held = 0;
		*taken = 1;
	}
	hm_buf_free(&b);
	hm_buf_free(&k);
	if (sv->nomem)
		return HM_ENOMEM;
	return *taken ? hm__srv_flush(sv) : HM_OK;
}

/* OpenAI completions and chat completions (vLLM, sglang, llama.cpp, TGI). */
static hm_status
shape_openai(hm_server *sv, const hm_jv *o, size_t line)
{
	const hm_jv *ch = get(o, "choices"), *obj = get(o, "object");
	int chunk_obj = hm__jv_is(obj, HM_JV_STRING) && strstr(obj->s, "chunk") != NULL, r;
	char why[256];
	size_t i;

	for (i = 0; i < ch->n; i++) {
		const hm_jv *c = ch->v[i], *d = get(c, "delta"), *m = get(c, "message");
		const hm_jv *fr = get(c, "finish_reason"), *sr = get(c, "stop_reason");
		struct piece pc = { 0 };

		if (bad_text(c, get(c, "text"), &pc.text, "choices", i, "text", why,
		    sizeof why) < 0) {
			if (ids_error(sv, o, why, line) != HM_OK)
				return HM_ENOMEM;
			continue;
		}
		pc.shape = SH_OPENAI;
		pc.index = index_of(c, (long)i);
		pc.rec = o;
		pc.skip = skip_openai;
		pc.key = get(o, "id");
		if (!pc.text && d)
			pc.text = getstr(d, "content");
		if (!pc.text && m)
			pc.text = getstr(m, "content");
		pc.msg = d ? d : m;
		if ((r = id_array(sv, get(c, "token_ids"), "choices", i, ".token_ids", why,
		    sizeof why)) < 0) {
			if (ids_error(sv, o, why, line) != HM_OK)
				return HM_ENOMEM;
			continue;
		}
		if (r)
			pc.ids = &sv->ids;
		pc.prefer_ids = 1;
		pc.finish = !is_null(fr);
		pc.chunk = chunk_obj || d || !pc.finish || hm__srv_find(sv,
		    SH_OPENAI, pc.key, pc.index);
		if (is_null(sr))
			sr = get(c, "matched_stop");
		pc.stop = pc.finish ? stop_of(fr, sr) : 0;
		if (piece_take(sv, &pc, line) != HM_OK)
			return HM_ENOMEM;
	}
	return HM_OK;
}

/* vLLM's LLM.generate outputs, dumped: whole. */
static hm_status
shape_offline(hm_server *sv, const hm_jv *o, size_t line)
{
	const hm_jv *out = get(o, "outputs");
	char why[256];
	size_t i;
	int r;

	for (i = 0; i < out->n; i++) {
		const hm_jv *c = out->v[i];
		struct piece pc = { 0 };

		if (bad_text(c, get(c, "text"), &pc.text, "outputs", i, "text", why,
		    sizeof why) < 0) {
			if (ids_error(sv, o, why, line) != HM_OK)
				return HM_ENOMEM;
			continue;
		}
		pc.shape = SH_OFFLINE;
		pc.index = index_of(c, (long)i);
		pc.rec = o;
		pc.skip = skip_offline;
		if ((r = id_array(sv, get(c, "token_ids"), "outputs", i, ".token_ids", why,
		    sizeof why)) < 0) {
			if (ids_error(sv, o, why, line) != HM_OK)
				return HM_ENOMEM;
			continue;
		}
		if (r)
			pc.ids = &sv->ids;
		pc.prefer_ids = 1;
		pc.stop = stop_of(get(c, "finish_reason"), get(c, "stop_reason"));
		if (piece_take(sv, &pc, line) != HM_OK)
			return HM_ENOMEM;
	}
	return HM_OK;
}

static hm_status
shape_sglang(hm_server *sv, const hm_jv *o, size_t line)
{
	const hm_jv *mi = get(o, "meta_info"), *fr = get(mi, "finish_reason");
	struct piece pc = { 0 };
	char why[256];
	int r;

	if (bad_text(o, get(o, "text"), &pc.text, NULL, 0, "text", why, sizeof why) < 0)
		return ids_error(sv, o, why, line);
	pc.shape = SH_SGLANG;
	pc.index = index_of(o, -1);
	pc.rec = o;
	pc.skip = skip_sglang;
	pc.key = get(mi, "id");
	if ((r = id_array(sv, get(o, "output_ids"), "output_ids", NONE, NULL, why,
	    sizeof why)) < 0)
		return ids_error(sv, o, why, line);
	if (r)
		pc.ids = &sv->ids;
	pc.prefer_ids = pc.cumulative_ok = 1;
	pc.finish = !is_null(fr);
	pc.chunk = !pc.finish || hm__srv_find(sv, SH_SGLANG, pc.key, pc.index);
	if (pc.finish)
		pc.stop = stop_of(get(fr, "type"), get(fr, "matched"));
	return piece_take(sv, &pc, line);
}

/* llama.cpp's /completion: its stream ids miss byte tokens, so text first. */
static hm_status
shape_llama(hm_server *sv, const hm_jv *o, size_t line)
{
	const hm_jv *stop = get(o, "stop");
	struct piece pc = { 0 };
	char why[256];
	int r;

	if (bad_text(o, get(o, "content"), &pc.text, NULL, 0, "content", why, sizeof why) < 0)
		return ids_error(sv, o, why, line);
	pc.shape = SH_LLAMA;
	pc.index = index_of(o, -1);
	pc.rec = o;
	pc.skip = skip_llama;
	if ((r = id_array(sv, get(o, "tokens"), "tokens", NONE, NULL, why, sizeof why)) < 0)
		return ids_error(sv, o, why, line);
	if (r && sv->ids.len)
		pc.ids = &sv->ids;
	pc.finish = stop && stop->type == HM_JV_TRUE;
	pc.chunk = !pc.finish || hm__srv_find(sv, SH_LLAMA, NULL, pc.index);
	if (pc.finish)
		pc.stop = stop_of(get(o, "stop_type"), NULL);
	return piece_take(sv, &pc, line);
}

/* Ollama: /api/generate (raw text in response, or parsed) and /api/chat. */
static hm_status
shape_ollama(hm_server *sv, const hm_jv *o, size_t line)
{
	const hm_jv *done = get(o, "done"), *m = get(o, "message");
	struct piece pc = { 0 };

	pc.shape = m ? SH_OLLAMA_CHAT : SH_OLLAMA;
	pc.rec = o;
	pc.skip = skip_ollama;
	pc.index = -1;
	pc.finish = done && done->type == HM_JV_TRUE;
	pc.chunk = !pc.finish || hm__srv_find(sv, pc.shape, NULL, -1);
	pc.chat = 1;
	if (m)
		pc.msg = m;
	else if (getstr(o, "thinking") ||
	    (hm__jv_is(get(o, "tool_calls"), HM_JV_ARRAY) && get(o, "tool_calls")->n)) {
		/* not raw: the server parsed it, as chat does */
		static const char *const names[] = { "thinking", "content",
		    "tool_calls" };
		hm_jv *fake = hm__jv_new(HM_JV_OBJECT);
		const hm_jv *src[3];
		size_t k;
		hm_status r;

		src[0] = getstr(o, "thinking");
		src[1] = getstr(o, "response");
		src[2] = get(o, "tool_calls");
		for (k = 0; fake && k < 3; k++)
			if (src[k] && hm__jv_set(fake, names[k], hm__jv_copy(src[k])))
				k = 4;
		if (!fake || k > 3) {
			hm__jv_free(fake);
			sv->nomem = 1;
			return HM_ENOMEM;
		}
		pc.msg = fake;
		if (pc.finish)
			pc.stop = stop_of(get(o, "done_reason"), NULL);
		r = piece_take(sv, &pc, line);
		hm__jv_free(fake);
		return r;
	} else {
		pc.text = getstr(o, "response");
		pc.chat = 0;
	}
	if (pc.finish)
		pc.stop = stop_of(get(o, "done_reason"), NULL);
	return piece_take(sv, &pc, line);
}

/* TGI: /generate_stream events (token), /generate (details.tokens). */
static hm_status
shape_tgi(hm_server *sv, const hm_jv *o, size_t line)
{
	const hm_jv *tok = get(o, "token"), *det = get(o, "details"),
	    *toks = get(det, "tokens");
	struct piece pc = { 0 };
	hm_buf text = { 0 };
	hm_jv tv;
	hm_status r;
	char why[256];

	pc.shape = SH_TGI;
	pc.rec = o;
	pc.skip = skip_tgi;
	pc.index = -1;
	pc.prefer_ids = 1;
	sv->ids.len = 0;
	memset(&tv, 0, sizeof tv);
	if (tok) {
		const hm_jv *id = get(tok, "id");

		pc.text = getstr(tok, "text");
		/* an event with no id (null) is its text; a bad one is an error */
		if (!is_null(id)) {
			static const struct id_at at = { "token.id", NULL, NONE, NONE };

			if (!id_push(sv, id, &at, why, sizeof why))
				return ids_error(sv, o, why, line);
			pc.ids = &sv->ids;
		}
		pc.finish = !is_null(get(o, "generated_text"));
		pc.chunk = 1;
		return piece_take(sv, &pc, line);
	}
	if (hm__jv_is(toks, HM_JV_ARRAY)) {
		size_t i;
		int all = 1;

		for (i = 0; i < toks->n; i++) {
			const hm_jv *id = get(toks->v[i], "id"),
			    *t = getstr(toks->v[i], "text");
			struct id_at at = { "details.tokens", ".id", i, NONE };

			if (t)
				hm__add(&sv->nomem, &text, t->s, t->len);
			if (is_null(id)) {
				all = 0; /* no id: the text is what there is */
				continue;
			}
			if (!id_push(sv, id, &at, why, sizeof why)) {
				hm_buf_free(&text);
				return ids_error(sv, o, why, line);
			}
		}
		if (all)
			pc.ids = &sv->ids;
		tv.type = HM_JV_STRING;
		tv.s = text.p ? text.p : (char *)"";
		tv.len = text.len;
		pc.text = &tv;
	} else
		pc.text = getstr(o,
		    "generated_text"); /* specials stripped: the best there is */
	r = piece_take(sv, &pc, line);
	hm_buf_free(&text);
	return r;
}

/* Triton's generate endpoints: a stream's responses, or one. */
static hm_status
shape_triton(hm_server *sv, const hm_jv *o, size_t line)
{
	struct piece pc = { 0 };
	char why[256];
	int r;

	pc.shape = SH_TRITON;
	pc.rec = o;
	pc.skip = skip_triton;
	pc.index = index_of(o, -1);
	pc.key = get(o, "model_name");
	pc.text = getstr(o, "text_output");
	if ((r = id_array(sv, get(o, "output_ids"), "output_ids", NONE, NULL, why,
	    sizeof why)) < 0)
		return ids_error(sv, o, why, line);
	if (r)
		pc.ids = &sv->ids;
	pc.prefer_ids = 1;
	/* No finish is ever said: in an SSE stream the responses go on to its end. */
	pc.chunk = sv->in_stream;
	return piece_take(sv, &pc, line);
}

/* The server's error object or message, as an error record. */
static hm_status
shape_error(hm_server *sv, const hm_jv *o, size_t line)
{
	const hm_jv *e = get(o, "error"), *m = getstr(e, "message");
	hm_buf b = { 0 };
	hm_status r;

	hm__adds(&sv->nomem, &b, "server error: ");
	if (m)
		hm__add(&sv->nomem, &b, m->s, m->len);
	else if (hm__jv_is(e, HM_JV_STRING))
		hm__add(&sv->nomem, &b, e->s, e->len);
	else
		hm__srv_jv(sv, &b, e);
	r = hm__srv_error(sv, b.p ? b.p : "", b.len, get(o, "id"), NULL, line, (size_t)-1,
	    HM_HINT_NONE);
	hm_buf_free(&b);
	return r;
}

/* --field: the completion at the path. */
static hm_status
shape_field(hm_server *sv, const hm_jv *o, size_t line)
{
	const hm_jv *v = path_get(sv, o);
	const char *const skip[] = { sv->path[0].name ? sv->path[0].name : "", NULL };
	struct piece pc = { 0 };
	hm_buf b = { 0 };
	hm_status r;

	pc.shape = SH_FLAT;
	pc.rec = o;
	pc.skip = skip;
	pc.index = -1;
	if (hm__jv_is(v, HM_JV_STRING))
		pc.text = v;
	else if (hm__jv_is(v, HM_JV_ARRAY)) {
		char why[256];

		if (id_array(sv, v, sv->field, NONE, NULL, why, sizeof why) < 0)
			return ids_error(sv, o, why, line);
		pc.ids = &sv->ids;
		pc.prefer_ids = 1;
	} else {
		hm__adds(&sv->nomem, &b, v ? "not a string or an array of ids: " : "no member ");
		hm__adds(&sv->nomem, &b, sv->field);
		hm__adds(&sv->nomem, &b, v ? "" : " in the record");
		r = hm__srv_error(sv, b.p ? b.p : "", b.len, get(o, "id"), NULL,
		    line, (size_t)-1, HM_HINT_FIELD_PATH);
		hm_buf_free(&b);
		return r;
	}
	return piece_take(sv, &pc, line);
}

static const char no_completion[] =
    "no completion in the record: no id array (tokens, token_ids, output_ids, "
    "input_ids), no text (text, completion, output, output_text, content) and "
    "no server response (choices, outputs, meta_info, response, message, token, "
    "details, text_output)";

/* A record hm_record could not read: its message, or ours when it has nothing. */
static hm_status
flat_error(hm_server *sv, const hm_jv *o, const hm_error *e, size_t line)
{
	const char *const *k;
	int i;

	for (i = 0; o && i < HM__NID_KEYS && !get(o, hm__id_keys[i]); i++)
		;
	for (k = hm__text_keys; o && i == HM__NID_KEYS && *k && !get(o, *k); k++)
		;
	if (o && i == HM__NID_KEYS && !*k)
		return hm__srv_error(sv, no_completion, sizeof no_completion - 1,
		    get(o, "id"), NULL, line, (size_t)-1, HM_HINT_FIELD);
	return hm__srv_error(sv, e->msg, strlen(e->msg), NULL, hm_record_id(sv->rec), line,
	    e->index, HM_HINT_NONE);
}

/* o has one of the members a server shape is told by (as hm_server_feed reads them). */
static int
is_server(const hm_jv *o)
{
	return hm__jv_is(get(o, "choices"), HM_JV_ARRAY) ||
	    hm__jv_is(get(o, "outputs"), HM_JV_ARRAY) ||
	    hm__jv_is(get(o, "meta_info"), HM_JV_OBJECT) ||
	    (get(o, "stop") && (getstr(o, "content") || get(o, "tokens"))) ||
	    (get(o, "done") && (getstr(o, "response") || hm__jv_is(get(o,
	    "message"), HM_JV_OBJECT))) ||
	    hm__jv_is(get(o, "token"), HM_JV_OBJECT) || get(o, "generated_text") ||
	    getstr(o, "text_output");
}

/*
 * A server's record (or the member --field names) with a key given twice
 * (msg: where): an error in its place, as in a request to render; which
 * of the two the server meant cannot be told.  HM_EINPUT when the record
 * is no server's: a log record, whose reader has its own rule.
 */
static hm_status
dup_error(hm_server *sv, const char *buf, size_t len, char *msg, size_t line)
{
	hm_jv *o;
	hm_status r;
	char *at;

	if (hm__jv_read(buf, len, NULL, 1, HM_JV_NUMTEXT, &o, NULL, 0, NULL) == HM_ENOMEM) {
		sv->nomem = 1;
		return HM_ENOMEM;
	}
	if (!sv->npath && !is_server(o)) {
		hm__jv_free(o);
		return HM_EINPUT;
	}
	/* one line: its column (the line is the record's) */
	if ((at = strstr(msg, " at line 1 column ")))
		memmove(at + 4, at + 11, strlen(at + 11) + 1);
	r = hm__srv_release(sv);
	if (r == HM_OK)
		r = hm__srv_error(sv, msg, strlen(msg), hm__jv_count(o, "id") == 1 ?
		    get(o, "id") : NULL, NULL, line, (size_t)-1, HM_HINT_NONE);
	hm__jv_free(o);
	return r != HM_OK ? r : hm__srv_status(sv);
}

hm_status
hm_server_feed(hm_server *sv, const char *buf, size_t len, size_t line)
{
	hm_error e = { "", 0, 0, 0, HM_HINT_NONE };
	hm_status st = HM_OK, r;
	hm_jv *o;
	char msg[160];
	int taken;

	if (sv->nomem)
		return HM_ENOMEM;
	hm__srv_reset_items(sv);
	/* A log record in one pass; a stream's chunks never are. */
	if (!sv->npath && !sv->in_stream) {
		st = hm__record_read_plain(sv->rec, buf, len);
		if (st == HM_ENOMEM)
			goto nomem;
		if (st == HM_OK) {
			if (hm__srv_release(sv) == HM_OK)
				(void)hm__srv_record(sv, line);
			return hm__srv_status(sv);
		}
	}
	if (hm__jv_read(buf, len, NULL, 1, HM_JV_NUMTEXT | HM_JV_NODUP, &o, msg, sizeof msg,
	    NULL) == HM_ENOMEM)
		goto nomem;
	if (!o && !strncmp(msg, "duplicate key ", 14)) {
		if ((r = dup_error(sv, buf, len, msg, line)) != HM_EINPUT)
			return r;
		/* a log record's: the record reader's rule (it reads one member) */
	}
	/* a usage chunk after a stream's finish goes to its END; else the ENDs held go */
	if (usage_chunk(sv, o, &taken) != HM_OK || taken || hm__srv_release(sv) != HM_OK) {
		hm__jv_free(o);
		return hm__srv_status(sv);
	}
	/* what the record reader makes of it, when no server shape is found */
	st = HM_EINPUT;
	if (!sv->npath && (!o || !is_server(o)) &&
	    (st = hm_record_read(sv->rec, buf, len, 0, &e)) == HM_ENOMEM) {
		hm__jv_free(o);
		goto nomem;
	}
	if (!hm__jv_is(o, HM_JV_OBJECT)) {
		hm__jv_free(o);
		if (sv->npath)
			snprintf(e.msg, sizeof e.msg, "not a JSON object");
		/* bytes that are no JSON: named, not "no tokens array" */
		if (!o && st != HM_OK && hm__json_flaw(buf, len, 1, msg, sizeof msg, NULL))
			snprintf(e.msg, sizeof e.msg, "not JSON: %s", msg);
		/*
		 * nor JSON the lenient record reader takes but finds no
		 * completion in (a server's chunk with an id 0290): the
		 * strict reader's message says what is wrong and where
		 */
		else if (!o && st != HM_OK && msg[0] && !strncmp(e.msg, "no ", 3) &&
		    strncmp(msg, "duplicate key ", 14)) {
			char *at = strstr(msg, " at line 1 column ");

			if (at)
				memmove(at + 4, at + 11, strlen(at + 11) + 1);
			snprintf(e.msg, sizeof e.msg, "not JSON: %s", msg);
		}
		if (st == HM_OK)
			(void)hm__srv_record(sv, line);
		else
			(void)flat_error(sv, NULL, &e, line);
		return hm__srv_status(sv);
	}
	if (sv->npath)
		r = shape_field(sv, o, line);
	else if (hm__jv_is(get(o, "choices"), HM_JV_ARRAY))
		r = shape_openai(sv, o, line);
	else if (hm__jv_is(get(o, "outputs"), HM_JV_ARRAY))
		r = shape_offline(sv, o, line);
	else if (hm__jv_is(get(o, "meta_info"), HM_JV_OBJECT))
		r = shape_sglang(sv, o, line);
	else if (get(o, "stop") && (getstr(o, "content") || get(o, "tokens")))
		r = shape_llama(sv, o, line);
	else if (get(o, "done") && (getstr(o, "response") || hm__jv_is(get(o,
	    "message"), HM_JV_OBJECT)))
		r = shape_ollama(sv, o, line);
	else if (hm__jv_is(get(o, "token"), HM_JV_OBJECT) || get(o, "generated_text"))
		r = shape_tgi(sv, o, line);
	else if (getstr(o, "text_output"))
		r = shape_triton(sv, o, line);
	else if (st == HM_OK)
		r = hm__srv_record(sv, line);
	else if (get(o, "error") && !is_null(get(o, "error")))
		r = shape_error(sv, o, line);
	else
		r = flat_error(sv, o, &e, line);
	hm__jv_free(o);
	return r != HM_OK ? r : hm__srv_status(sv);
nomem:
	/* the record reader's or the JSON reader's: the reader's too */
	sv->nomem = 1;
	return HM_ENOMEM;
}
