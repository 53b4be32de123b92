/*
 * server_queue.c - hm_server's completions in order: each one open
 * (a stream's choice, or a whole one waiting behind an open stream)
 * gathers its content; the oldest goes out as items as soon as it can,
 * the others when all before them have ended.  Also: telling cumulative
 * chunks from deltas, and putting back a stop token left out.
 */
#include <stdlib.h>
#include <string.h>

#include "records_int.h"
#include "server_int.h"

/* realloc for sv: a failure sets its flag. */
static void *
srv_realloc(hm_server *sv, void *p, size_t n)
{
	void *q = realloc(p, n);

	if (!q)
		sv->nomem = 1;
	return q;
}

/* hm_ids_append for sv: a failure sets its flag. */
static hm_status
ids_append(hm_server *sv, hm_ids *ids, const uint32_t *v, size_t n)
{
	if (hm_ids_append(ids, v, n) == HM_OK)
		return HM_OK;
	sv->nomem = 1;
	return HM_ENOMEM;
}

void
hm__srv_jv(hm_server *sv, hm_buf *b, const hm_jv *v)
{
	hm__jv_write_to(&sv->nomem, b, v);
}

hm_server *
hm_server_new(void)
{
	hm_server *sv = calloc(1, sizeof *sv);

	if (sv && !(sv->rec = hm_record_new())) {
		free(sv);
		sv = NULL;
	}
	return sv;
}

static void
stream_free(struct srv_stream *st)
{
	hm_buf_free(&st->key);
	hm_buf_free(&st->fields);
	hm_buf_free(&st->rid);
	hm_buf_free(&st->pend);
	hm_ids_free(&st->pend_ids);
	hm_buf_free(&st->prev);
	hm_ids_free(&st->prev_ids);
	hm_buf_free(&st->win);
	hm_buf_free(&st->late);
	free(st);
}

void
hm_server_free(hm_server *sv)
{
	size_t i;

	if (!sv)
		return;
	hm_record_free(sv->rec);
	for (i = 0; i < sv->npath; i++)
		free(sv->path[i].name);
	free(sv->path);
	free(sv->field);
	for (i = 0; i < sv->nst; i++)
		stream_free(sv->st[i]);
	free(sv->st);
	free(sv->q);
	hm_buf_free(&sv->arena);
	hm_ids_free(&sv->arena_ids);
	hm_ids_free(&sv->ids);
	free(sv);
}

/* ---------------------------------------------------------------- items */

void
hm__srv_reset_items(hm_server *sv)
{
	sv->nq = sv->qhead = 0;
	hm_buf_reset(&sv->arena);
	sv->arena_ids.len = 0;
}

/* A new item of the queue in *out. */
static hm_status
item_new(hm_server *sv, hm_server_item_type type, struct srv_item **out)
{
	struct srv_item *it;

	if (sv->nq == sv->capq) {
		size_t cap = sv->capq ? sv->capq * 2 : 16;
		struct srv_item *q = srv_realloc(sv, sv->q, cap * sizeof *q);

		if (!q)
			return HM_ENOMEM;
		sv->q = q;
		sv->capq = cap;
	}
	it = &sv->q[sv->nq++];
	memset(it, 0, sizeof *it);
	it->it.type = type;
	*out = it;
	return HM_OK;
}

/* An item whose bytes s[0..n) (and id JSON) are copied into the arena. */
static hm_status
item_copy(hm_server *sv, hm_server_item_type type, const char *s, size_t n,
    const hm_buf *id, struct srv_item **out)
{
	struct srv_item *it;

	if (item_new(sv, type, &it) != HM_OK)
		return HM_ENOMEM;
	it->off = sv->arena.len;
	it->it.len = n;
	hm__add(&sv->nomem, &sv->arena, s, n);
	hm__putc(&sv->nomem, &sv->arena, '\0');
	if (id) {
		it->idoff = sv->arena.len;
		hm__add(&sv->nomem, &sv->arena, id->p, id->len);
		hm__putc(&sv->nomem, &sv->arena, '\0');
		it->it.id = ""; /* resolved in next */
	}
	if (out)
		*out = it;
	return hm__srv_status(sv);
}

static hm_status
item_ids(hm_server *sv, const uint32_t *v, size_t n)
{
	struct srv_item *it;

	if (item_new(sv, HM_SRV_IDS, &it) != HM_OK)
		return HM_ENOMEM;
	it->ioff = sv->arena_ids.len;
	it->it.n = n;
	return ids_append(sv, &sv->arena_ids, v, n);
}

int
hm_server_next(hm_server *sv, hm_server_item *out)
{
	struct srv_item *it;

	if (sv->qhead == sv->nq)
		return 0;
	it = &sv->q[sv->qhead++];
	*out = it->it;
	if (!it->ext) {
		if (out->type == HM_SRV_IDS)
			out->ids = sv->arena_ids.v ? sv->arena_ids.v + it->ioff : NULL;
		else
			out->s = sv->arena.p ? sv->arena.p + it->off : "";
		if (out->id)
			out->id = sv->arena.p + it->idoff;
	}
	return 1;
}

/* ---------------------------------------------------------------- streams */

static void
key_of(hm_server *sv, hm_buf *b, const hm_jv *key)
{
	hm_buf_reset(b);
	if (key)
		hm__srv_jv(sv, b, key);
}

struct srv_stream *
hm__srv_find(hm_server *sv, int shape, const hm_jv *key, long index)
{
	hm_buf k = { 0 };
	size_t i;
	struct srv_stream *found = NULL;

	key_of(sv, &k, key);
	for (i = sv->nst; i-- > 0 && !found;) {
		struct srv_stream *st = sv->st[i];

		if (!st->ended && st->shape == shape && st->index == index &&
		    st->key.len == k.len && (!k.len || !memcmp(st->key.p, k.p, k.len)))
			found = st;
	}
	hm_buf_free(&k);
	return found;
}

/* A new completion, the newest, in *out. */
static hm_status
stream_add(hm_server *sv, struct srv_stream **out)
{
	struct srv_stream *st;

	if (sv->nst == sv->capst) {
		size_t cap = sv->capst ? sv->capst * 2 : 8;
		struct srv_stream **v = srv_realloc(sv, sv->st, cap * sizeof *v);

		if (!v)
			return HM_ENOMEM;
		sv->st = v;
		sv->capst = cap;
	}
	if (!(st = calloc(1, sizeof *st))) {
		sv->nomem = 1;
		return HM_ENOMEM;
	}
	st->cum = -1;
	st->index = -1;
	sv->st[sv->nst++] = st;
	*out = st;
	return HM_OK;
}

hm_status
hm__srv_open(hm_server *sv, int shape, const hm_jv *key, long index, size_t line,
    struct srv_stream **out)
{
	struct srv_stream *st;

	if (stream_add(sv, &st) != HM_OK)
		return HM_ENOMEM;
	st->shape = shape;
	st->index = index;
	st->line = line;
	key_of(sv, &st->key, key);
	*out = st;
	return hm__srv_status(sv);
}

hm_status
hm__srv_set_id(hm_server *sv, struct srv_stream *st, const hm_jv *id)
{
	hm_buf_reset(&st->rid);
	st->has_rid = id != NULL;
	if (id)
		hm__srv_jv(sv, &st->rid, id);
	return hm__srv_status(sv);
}

static int
has(const char *s, size_t n, const char *w)
{
	size_t m = strlen(w), i;

	for (i = 0; i + m <= n; i++)
		if (s[i] == w[0] && !memcmp(s + i, w, m))
			return 1;
	return 0;
}

/* The last index of w in s[0..n), or n. */
static size_t
last(const char *s, size_t n, const char *w)
{
	size_t m = strlen(w), i;

	for (i = n >= m ? n - m + 1 : 0; i-- > 0;)
		if (s[i] == w[0] && !memcmp(s + i, w, m))
			return i;
	return n;
}

/*
 * Text as it goes by: whether the last header names a recipient, for a
 * stop that must be guessed; the window keeps only an open header (or
 * the few bytes a marker cut in two may need).
 */
static void
watch(hm_server *sv, struct srv_stream *st, const char *s, size_t n)
{
	hm_buf *w = &st->win;
	size_t m, h, keep;

	hm__add(&sv->nomem, w, s, n);
	while (w->len && (m = last(w->p, w->len, "<|message|>")) < w->len) {
		h = last(w->p, m, "<|start|>");
		if (h == m)
			h = 0;
		st->hdr_to = has(w->p + h, m - h, "to=");
		memmove(w->p, w->p + m + 11, w->len - m - 11);
		w->len -= m + 11;
	}
	keep = last(w->p ? w->p : "", w->len, "<|start|>");
	if (keep == w->len)
		keep = last(w->p ? w->p : "", w->len, "<|channel|>");
	if (keep == w->len)
		keep = w->len > 10 ? w->len - 10 : 0;
	if (w->len - keep > 4096)
		keep = w->len - 4096;
	if (keep) {
		memmove(w->p, w->p + keep, w->len - keep);
		w->len -= keep;
	}
}

/* Content of stream st: out now when it is the oldest and begun, else held. */
static hm_status
emit_text(hm_server *sv, struct srv_stream *st, const char *s, size_t n)
{
	size_t k;

	if (!n)
		return HM_OK;
	watch(sv, st, s, n);
	if (n >= sizeof st->tail) {
		memcpy(st->tail, s + n - sizeof st->tail, sizeof st->tail);
		st->ntail = sizeof st->tail;
	} else {
		k = st->ntail + n > sizeof st->tail ? st->ntail + n - sizeof st->tail : 0;
		memmove(st->tail, st->tail + k, st->ntail - k);
		memcpy(st->tail + st->ntail - k, s, n);
		st->ntail += n - k;
	}
	if (st->begun && sv->nst && sv->st[0] == st)
		return item_copy(sv, HM_SRV_TEXT, s, n, NULL, NULL);
	hm__add(&sv->nomem, &st->pend, s, n);
	return hm__srv_status(sv);
}

static hm_status
emit_ids(hm_server *sv, struct srv_stream *st, const uint32_t *v, size_t n)
{
	size_t i, k;

	if (!n)
		return HM_OK;
	st->last = v[n - 1];
	for (i = 0; i < n; i++) {
		const char *b = hm_token_bytes(v[i], &k);

		if (b)
			watch(sv, st, b, k);
	}
	if (st->begun && sv->nst && sv->st[0] == st)
		return item_ids(sv, v, n);
	return ids_append(sv, &st->pend_ids, v, n);
}

hm_status
hm__srv_content(hm_server *sv, struct srv_stream *st, const char *t, size_t tn,
    const hm_ids *ids, int prefer_ids, int cum_ok)
{
	if (st->mode == M_CHAT)
		return t ? hm__srv_chat_piece(sv, st, CHAT_CONTENT, t, tn, NULL, 0) : HM_OK;
	if (st->mode == M_NONE) {
		if (ids && ids->len && (prefer_ids || !t))
			st->mode = M_IDS;
		else if (t && tn)
			st->mode = M_TEXT;
		else if (ids && ids->len)
			st->mode = M_IDS;
		else
			return HM_OK; /* nothing yet (a role, an empty delta) */
	}
	if (st->mode == M_IDS) {
		const uint32_t *v = ids ? ids->v : NULL;
		size_t n = ids ? ids->len : 0;

		if (cum_ok && st->events && st->cum < 0)
			st->cum = n > st->prev_ids.len &&
			    !memcmp(v, st->prev_ids.v, st->prev_ids.len * sizeof *v);
		if (st->cum == 1 && n >= st->prev_ids.len && st->prev_ids.len) {
			v += st->prev_ids.len;
			n -= st->prev_ids.len;
		}
		if (cum_ok && st->cum != 0) {
			st->prev_ids.len = 0;
			if (ids && ids_append(sv, &st->prev_ids, ids->v,
			    ids->len) != HM_OK)
				return HM_ENOMEM;
		}
		st->events++;
		return emit_ids(sv, st, v, n);
	}
	if (cum_ok && st->events && st->cum < 0)
		st->cum = t && tn > st->prev.len && !memcmp(t, st->prev.p, st->prev.len);
	if (t && st->cum == 1 && tn >= st->prev.len) {
		size_t had = st->prev.len;

		hm_buf_reset(&st->prev);
		hm__add(&sv->nomem, &st->prev, t, tn);
		t += had;
		tn -= had;
	} else if (t && cum_ok && st->cum < 0) {
		hm_buf_reset(&st->prev);
		hm__add(&sv->nomem, &st->prev, t, tn);
	}
	st->events++;
	if (sv->nomem)
		return HM_ENOMEM;
	return t ? emit_text(sv, st, t, tn) : HM_OK;
}

/*
 * A parsed chat message's pieces made Harmony text again: reasoning on
 * analysis, content on final, each call on commentary to its function.
 */
hm_status
hm__srv_chat_piece(hm_server *sv, struct srv_stream *st, int kind, const char *s,
    size_t n, const char *name, size_t nlen)
{
	int *nm = &sv->nomem;
	hm_buf b = { 0 };
	hm_status r;

	st->mode = M_CHAT;
	if (kind != CHAT_CALL && !n)
		return HM_OK;
	if (st->chat != kind || kind == CHAT_CALL) {
		if (st->chat == CHAT_THINK || st->chat == CHAT_CONTENT)
			hm__adds(nm, &b, "<|end|>");
		if (st->chat != CHAT_NONE)
			hm__adds(nm, &b, "<|start|>assistant");
		if (kind == CHAT_THINK)
			hm__adds(nm, &b, "<|channel|>analysis<|message|>");
		else if (kind == CHAT_CONTENT)
			hm__adds(nm, &b, "<|channel|>final<|message|>");
		else {
			hm__adds(nm, &b, "<|channel|>commentary to=");
			if (!memchr(name, '.', nlen))
				hm__adds(nm, &b, "functions.");
			hm__add(nm, &b, name, nlen);
			hm__adds(nm, &b, " <|constrain|>json<|message|>");
		}
		st->chat = kind;
	}
	hm__add(nm, &b, s, n);
	if (kind == CHAT_CALL)
		hm__adds(nm, &b, "<|call|>");
	r = *nm ? HM_ENOMEM : emit_text(sv, st, b.p ? b.p : "", b.len);
	hm_buf_free(&b);
	return r;
}

/* Hand out what can go: the oldest completions, as far as they have come. */
hm_status
hm__srv_flush(hm_server *sv)
{
	while (sv->nst) {
		struct srv_stream *st = sv->st[0];
		struct srv_item *it;

		if (st->is_err) {
			if (item_copy(sv, HM_SRV_ERROR, st->pend.p ? st->pend.p : "",
			    st->pend.len, st->has_rid ? &st->rid : NULL, &it) != HM_OK)
				return HM_ENOMEM;
			it->it.line = st->line;
			it->it.index = st->err_index;
			it->it.hint = st->err_hint;
		} else {
			if (!st->begun && st->mode == M_NONE && !st->ended)
				return HM_OK;
			if (!st->begun) {
				if (item_copy(sv, HM_SRV_BEGIN, st->fields.p ? st->fields.p : "",
				    st->fields.len, st->has_rid ? &st->rid : NULL, &it) != HM_OK)
					return HM_ENOMEM;
				it->it.line = st->line;
				it->it.text = st->mode != M_IDS;
				st->begun = 1;
				if (st->pend.len && item_copy(sv, HM_SRV_TEXT,
				    st->pend.p, st->pend.len, NULL, NULL) != HM_OK)
					return HM_ENOMEM;
				if (st->pend_ids.len && item_ids(sv,
				    st->pend_ids.v, st->pend_ids.len) != HM_OK)
					return HM_ENOMEM;
				hm_buf_free(&st->pend);
				hm_ids_free(&st->pend_ids);
			}
			if (!st->ended || st->held)
				return HM_OK;
			if (item_copy(sv, HM_SRV_END, st->late.p ? st->late.p : "",
			    st->late.len, NULL, NULL) != HM_OK)
				return HM_ENOMEM;
		}
		stream_free(st);
		memmove(sv->st, sv->st + 1, --sv->nst * sizeof *sv->st);
	}
	return HM_OK;
}

static int
ends_stopped(const struct srv_stream *st)
{
	static const char *const w[] = { "<|return|>", "<|call|>" };
	size_t i, m;

	if (st->mode == M_IDS)
		return st->last == HM_TOK_RETURN || st->last == HM_TOK_CALL;
	for (i = 0; i < 2; i++)
		if (st->ntail >= (m = strlen(w[i])) && !memcmp(st->tail + st->ntail - m, w[i], m))
			return 1;
	return 0;
}

hm_status
hm__srv_end(hm_server *sv, struct srv_stream *st)
{
	hm_status r = HM_OK;

	if (st->mode == M_CHAT) {
		if (st->chat == CHAT_THINK)
			r = emit_text(sv, st, "<|end|>", 7);
		else if (st->chat == CHAT_CONTENT)
			r = emit_text(sv, st, "<|return|>", 10);
	} else if (st->stop && st->mode != M_NONE && !ends_stopped(st)) {
		uint32_t id = st->stop != STOP_GUESS ? st->stop :
		    st->hdr_to ? HM_TOK_CALL : HM_TOK_RETURN;

		if (st->mode == M_IDS)
			r = emit_ids(sv, st, &id, 1);
		else
			r = id == HM_TOK_CALL ? emit_text(sv, st, "<|call|>", 8) :
			    emit_text(sv, st, "<|return|>", 10);
	}
	st->ended = 1;
	return r != HM_OK ? r : hm__srv_flush(sv);
}

hm_status
hm__srv_error(hm_server *sv, const char *msg, size_t n, const hm_jv *id,
    const char *idjson, size_t line, size_t index, hm_hint hint)
{
	struct srv_stream *st;

	if (stream_add(sv, &st) != HM_OK)
		return HM_ENOMEM;
	st->is_err = 1;
	st->ended = 1;
	st->shape = SH_ERROR;
	st->line = line;
	st->err_index = index;
	st->err_hint = hint;
	hm__add(&sv->nomem, &st->pend, msg, n);
	if (hm__srv_set_id(sv, st, id) != HM_OK)
		return HM_ENOMEM;
	if (!id && idjson) {
		st->has_rid = 1;
		hm__adds(&sv->nomem, &st->rid, idjson);
	}
	return hm__srv_flush(sv);
}

/*
 * Members a completion gave after its first chunk (its finish chunk, a
 * usage chunk after it), carried form: kept for its END, the later after
 * the earlier.
 */
hm_status
hm__srv_late(hm_server *sv, struct srv_stream *st, const hm_buf *members)
{
	if (!members->len)
		return HM_OK;
	if (st->late.len)
		hm__putc(&sv->nomem, &st->late, ',');
	hm__add(&sv->nomem, &st->late, members->p, members->len);
	return hm__srv_status(sv);
}

/* The ENDs held for a usage chunk go: the value after them was none. */
hm_status
hm__srv_release(hm_server *sv)
{
	size_t i;
	int any = 0;

	for (i = 0; i < sv->nst; i++)
		if (sv->st[i]->held) {
			sv->st[i]->held = 0;
			any = 1;
		}
	return any ? hm__srv_flush(sv) : HM_OK;
}

/* The log record sv->rec has read: straight out, or held behind open streams. */
hm_status
hm__srv_record(hm_server *sv, size_t line)
{
	size_t flen, n;
	const char *fields = hm_record_fields(sv->rec, &flen),
	    *id = hm_record_id(sv->rec);
	const uint32_t *ids = hm_record_tokens(sv->rec, &n);
	const char *text = ids ? NULL : hm_record_text(sv->rec, &n);
	struct srv_stream *st;
	struct srv_item *it;
	size_t dlen;
	const char *dup = hm__record_dup(sv->rec, &dlen);

	/* a member carried twice: said, never chosen (records.c) */
	if (dup) {
		if (item_new(sv, HM_SRV_DUPLICATE, &it) != HM_OK)
			return HM_ENOMEM;
		it->ext = 1;
		it->it.s = dup;
		it->it.len = dlen;
		it->it.line = line;
	}
	if (!sv->nst) {
		if (item_new(sv, HM_SRV_BEGIN, &it) != HM_OK)
			return HM_ENOMEM;
		it->ext = 1;
		it->it.s = fields;
		it->it.len = flen;
		it->it.id = id;
		it->it.text = ids == NULL;
		it->it.line = line;
		if (item_new(sv, ids ? HM_SRV_IDS : HM_SRV_TEXT, &it) != HM_OK)
			return HM_ENOMEM;
		it->ext = 1;
		it->it.ids = ids;
		it->it.n = n;
		it->it.s = text;
		it->it.len = n;
		if (item_new(sv, HM_SRV_END, &it) != HM_OK)
			return HM_ENOMEM;
		it->ext = 1;
		it->it.s = "";
		return HM_OK;
	}
	if (stream_add(sv, &st) != HM_OK)
		return HM_ENOMEM;
	st->shape = SH_FLAT;
	st->line = line;
	st->mode = ids ? M_IDS : M_TEXT;
	hm__add(&sv->nomem, &st->fields, fields, flen);
	if ((st->has_rid = id != NULL))
		hm__adds(&sv->nomem, &st->rid, id);
	if (ids)
		(void)ids_append(sv, &st->pend_ids, ids, n);
	else
		hm__add(&sv->nomem, &st->pend, text, n);
	if (sv->nomem)
		return HM_ENOMEM;
	st->ended = 1;
	return hm__srv_flush(sv);
}

hm_status
hm_server_done(hm_server *sv)
{
	size_t i;

	hm__srv_reset_items(sv);
	for (i = 0; i < sv->nst; i++)
		sv->st[i]->held = 0;
	for (;;) {
		for (i = 0; i < sv->nst && sv->st[i]->ended; i++)
			;
		if (i == sv->nst)
			break;
		/* hm__srv_end hands out what can go, which moves the rest up */
		if (hm__srv_end(sv, sv->st[i]) != HM_OK)
			return HM_ENOMEM;
	}
	(void)hm__srv_flush(sv);
	return hm__srv_status(sv);
}

void
hm_server_sse(hm_server *sv, int on)
{
	sv->in_stream = on;
}
