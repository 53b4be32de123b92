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

static struct srv_item *
item_new(hm_server *sv, hm_server_item_type type)
{
	struct srv_item *it;

	if (sv->nq == sv->capq) {
		size_t cap = sv->capq ? sv->capq * 2 : 16;
		struct srv_item *q = realloc(sv->q, cap * sizeof *q);

		if (!q)
			return NULL;
		sv->q = q;
		sv->capq = cap;
	}
	it = &sv->q[sv->nq++];
	memset(it, 0, sizeof *it);
	it->it.type = type;
	return it;
}

/* An item whose bytes s[0..n) (and id JSON) are copied into the arena. */
static struct srv_item *
item_copy(hm_server *sv, hm_server_item_type type, const char *s, size_t n,
    const hm_buf *id)
{
	struct srv_item *it = item_new(sv, type);

	if (!it)
		return NULL;
	it->off = sv->arena.len;
	it->it.len = n;
	hm_buf_add(&sv->arena, s, n);
	hm_buf_addc(&sv->arena, '\0');
	if (id) {
		it->idoff = sv->arena.len;
		hm_buf_add(&sv->arena, id->p, id->len);
		hm_buf_addc(&sv->arena, '\0');
		it->it.id = ""; /* resolved in next */
	}
	return sv->arena.oom ? NULL : it;
}

static struct srv_item *
item_ids(hm_server *sv, const uint32_t *v, size_t n)
{
	struct srv_item *it = item_new(sv, HM_SRV_IDS);

	if (!it)
		return NULL;
	it->ioff = sv->arena_ids.len;
	it->it.n = n;
	if (hm_ids_append(&sv->arena_ids, v, n) != HM_OK)
		return NULL;
	return it;
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
key_of(hm_buf *b, const hm_jv *key)
{
	hm_buf_reset(b);
	if (key)
		hm__jv_write(b, key);
}

struct srv_stream *
hm__srv_find(hm_server *sv, int shape, const hm_jv *key, long index)
{
	hm_buf k = { 0 };
	size_t i;
	struct srv_stream *found = NULL;

	key_of(&k, key);
	sv->oom |= k.oom;
	for (i = sv->nst; i-- > 0 && !found;) {
		struct srv_stream *st = sv->st[i];

		if (!st->ended && st->shape == shape && st->index == index &&
		    st->key.len == k.len && (!k.len || !memcmp(st->key.p, k.p, k.len)))
			found = st;
	}
	hm_buf_free(&k);
	return found;
}

static struct srv_stream *
stream_add(hm_server *sv)
{
	struct srv_stream *st;

	if (sv->nst == sv->capst) {
		size_t cap = sv->capst ? sv->capst * 2 : 8;
		struct srv_stream **v = realloc(sv->st, cap * sizeof *v);

		if (!v)
			return NULL;
		sv->st = v;
		sv->capst = cap;
	}
	if (!(st = calloc(1, sizeof *st)))
		return NULL;
	st->cum = -1;
	st->index = -1;
	sv->st[sv->nst++] = st;
	return st;
}

struct srv_stream *
hm__srv_open(hm_server *sv, int shape, const hm_jv *key, long index, size_t line)
{
	struct srv_stream *st = stream_add(sv);

	if (!st)
		return NULL;
	st->shape = shape;
	st->index = index;
	st->line = line;
	key_of(&st->key, key);
	return st->key.oom ? NULL : st;
}

int
hm__srv_set_id(struct srv_stream *st, const hm_jv *id)
{
	hm_buf_reset(&st->rid);
	st->has_rid = id != NULL;
	if (id)
		hm__jv_write(&st->rid, id);
	return st->rid.oom || st->fields.oom ? -1 : 0;
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
watch(struct srv_stream *st, const char *s, size_t n)
{
	hm_buf *w = &st->win;
	size_t m, h, keep;

	hm_buf_add(w, s, n);
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
static int
emit_text(hm_server *sv, struct srv_stream *st, const char *s, size_t n)
{
	size_t k;

	if (!n)
		return 0;
	watch(st, s, n);
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
		return item_copy(sv, HM_SRV_TEXT, s, n, NULL) ? 0 : -1;
	hm_buf_add(&st->pend, s, n);
	return st->pend.oom ? -1 : 0;
}

static int
emit_ids(hm_server *sv, struct srv_stream *st, const uint32_t *v, size_t n)
{
	size_t i, k;

	if (!n)
		return 0;
	st->last = v[n - 1];
	for (i = 0; i < n; i++) {
		const char *b = hm_token_bytes(v[i], &k);

		if (b)
			watch(st, b, k);
	}
	if (st->begun && sv->nst && sv->st[0] == st)
		return item_ids(sv, v, n) ? 0 : -1;
	return hm_ids_append(&st->pend_ids, v, n) == HM_OK ? 0 : -1;
}

int
hm__srv_content(hm_server *sv, struct srv_stream *st, const char *t, size_t tn,
    const hm_ids *ids, int prefer_ids, int cum_ok)
{
	if (st->mode == M_CHAT)
		return t ? hm__srv_chat_piece(sv, st, CHAT_CONTENT, t, tn, NULL, 0) : 0;
	if (st->mode == M_NONE) {
		if (ids && ids->len && (prefer_ids || !t))
			st->mode = M_IDS;
		else if (t && tn)
			st->mode = M_TEXT;
		else if (ids && ids->len)
			st->mode = M_IDS;
		else
			return 0; /* nothing yet (a role, an empty delta) */
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
			if (ids && hm_ids_append(&st->prev_ids, ids->v,
			    ids->len) != HM_OK)
				return -1;
		}
		st->events++;
		return emit_ids(sv, st, v, n);
	}
	if (cum_ok && st->events && st->cum < 0)
		st->cum = t && tn > st->prev.len && !memcmp(t, st->prev.p, st->prev.len);
	if (t && st->cum == 1 && tn >= st->prev.len) {
		size_t had = st->prev.len;

		hm_buf_reset(&st->prev);
		hm_buf_add(&st->prev, t, tn);
		t += had;
		tn -= had;
	} else if (t && cum_ok && st->cum < 0) {
		hm_buf_reset(&st->prev);
		hm_buf_add(&st->prev, t, tn);
	}
	st->events++;
	if (st->prev.oom)
		return -1;
	return t ? emit_text(sv, st, t, tn) : 0;
}

/*
 * A parsed chat message's pieces made Harmony text again: reasoning on
 * analysis, content on final, each call on commentary to its function.
 */
int
hm__srv_chat_piece(hm_server *sv, struct srv_stream *st, int kind, const char *s,
    size_t n, const char *name, size_t nlen)
{
	hm_buf b = { 0 };
	int r;

	st->mode = M_CHAT;
	if (kind != CHAT_CALL && !n)
		return 0;
	if (st->chat != kind || kind == CHAT_CALL) {
		if (st->chat == CHAT_THINK || st->chat == CHAT_CONTENT)
			hm_buf_adds(&b, "<|end|>");
		if (st->chat != CHAT_NONE)
			hm_buf_adds(&b, "<|start|>assistant");
		if (kind == CHAT_THINK)
			hm_buf_adds(&b, "<|channel|>analysis<|message|>");
		else if (kind == CHAT_CONTENT)
			hm_buf_adds(&b, "<|channel|>final<|message|>");
		else {
			hm_buf_adds(&b, "<|channel|>commentary to=");
			if (!memchr(name, '.', nlen))
				hm_buf_adds(&b, "functions.");
			hm_buf_add(&b, name, nlen);
			hm_buf_adds(&b, " <|constrain|>json<|message|>");
		}
		st->chat = kind;
	}
	hm_buf_add(&b, s, n);
	if (kind == CHAT_CALL)
		hm_buf_adds(&b, "<|call|>");
	r = b.oom ? -1 : emit_text(sv, st, b.p ? b.p : "", b.len);
	hm_buf_free(&b);
	return r;
}

/* Hand out what can go: the oldest completions, as far as they have come. */
int
hm__srv_flush(hm_server *sv)
{
	while (sv->nst) {
		struct srv_stream *st = sv->st[0];
		struct srv_item *it;

		if (st->is_err) {
			if (!(it = item_copy(sv, HM_SRV_ERROR,
			    st->pend.p ? st->pend.p : "",
			    st->pend.len, st->has_rid ? &st->rid : NULL)))
				return -1;
			it->it.line = st->line;
			it->it.index = st->err_index;
			it->it.hint = st->err_hint;
		} else {
			if (!st->begun && st->mode == M_NONE && !st->ended)
				return 0;
			if (!st->begun) {
				if (!(it = item_copy(sv, HM_SRV_BEGIN,
				    st->fields.p ? st->fields.p : "",
				    st->fields.len, st->has_rid ? &st->rid : NULL)))
					return -1;
				it->it.line = st->line;
				it->it.text = st->mode != M_IDS;
				st->begun = 1;
				if (st->pend.len && !item_copy(sv, HM_SRV_TEXT,
				    st->pend.p, st->pend.len, NULL))
					return -1;
				if (st->pend_ids.len && !item_ids(sv,
				    st->pend_ids.v, st->pend_ids.len))
					return -1;
				hm_buf_free(&st->pend);
				hm_ids_free(&st->pend_ids);
			}
			if (!st->ended || st->held)
				return 0;
			if (!item_copy(sv, HM_SRV_END, st->late.p ? st->late.p : "",
			    st->late.len, NULL))
				return -1;
		}
		stream_free(st);
		memmove(sv->st, sv->st + 1, --sv->nst * sizeof *sv->st);
	}
	return 0;
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

int
hm__srv_end(hm_server *sv, struct srv_stream *st)
{
	int r = 0;

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
	return r ? r : hm__srv_flush(sv);
}

int
hm__srv_error(hm_server *sv, const char *msg, size_t n, const hm_jv *id,
    const char *idjson, size_t line, size_t index, hm_hint hint)
{
	struct srv_stream *st = stream_add(sv);

	if (!st)
		return -1;
	st->is_err = 1;
	st->ended = 1;
	st->shape = SH_ERROR;
	st->line = line;
	st->err_index = index;
	st->err_hint = hint;
	hm_buf_add(&st->pend, msg, n);
	if (hm__srv_set_id(st, id) || st->pend.oom)
		return -1;
	if (!id && idjson) {
		st->has_rid = 1;
		hm_buf_adds(&st->rid, idjson);
	}
	return hm__srv_flush(sv);
}

/*
 * Members a completion gave after its first chunk (its finish chunk, a
 * usage chunk after it), carried form: kept for its END, the later after
 * the earlier.
 */
int
hm__srv_late(struct srv_stream *st, const hm_buf *members)
{
	if (!members->len)
		return 0;
	if (st->late.len)
		hm_buf_addc(&st->late, ',');
	hm_buf_add(&st->late, members->p, members->len);
	return st->late.oom ? -1 : 0;
}

/* The ENDs held for a usage chunk go: the value after them was none. */
int
hm__srv_release(hm_server *sv)
{
	size_t i;
	int any = 0;

	for (i = 0; i < sv->nst; i++)
		if (sv->st[i]->held) {
			sv->st[i]->held = 0;
			any = 1;
		}
	return any ? hm__srv_flush(sv) : 0;
}

/* The log record sv->rec has read: straight out, or held behind open streams. */
int
hm__srv_record(hm_server *sv, size_t line)
{
	size_t flen, n;
	const char *fields = hm_record_fields(sv->rec, &flen),
	    *id = hm_record_id(sv->rec);
	const uint32_t *ids = hm_record_tokens(sv->rec, &n);
	const char *text = ids ? NULL : hm_record_text(sv->rec, &n);
	struct srv_stream *st;
	struct srv_item *it;

	if (!sv->nst) {
		if (!(it = item_new(sv, HM_SRV_BEGIN)))
			return -1;
		it->ext = 1;
		it->it.s = fields;
		it->it.len = flen;
		it->it.id = id;
		it->it.text = ids == NULL;
		it->it.line = line;
		if (!(it = item_new(sv, ids ? HM_SRV_IDS : HM_SRV_TEXT)))
			return -1;
		it->ext = 1;
		it->it.ids = ids;
		it->it.n = n;
		it->it.s = text;
		it->it.len = n;
		if (!(it = item_new(sv, HM_SRV_END)))
			return -1;
		it->ext = 1;
		it->it.s = "";
		return 0;
	}
	if (!(st = stream_add(sv)))
		return -1;
	st->shape = SH_FLAT;
	st->line = line;
	st->mode = ids ? M_IDS : M_TEXT;
	hm_buf_add(&st->fields, fields, flen);
	if ((st->has_rid = id != NULL))
		hm_buf_adds(&st->rid, id);
	if (ids ? hm_ids_append(&st->pend_ids, ids,
	    n) != HM_OK : (hm_buf_add(&st->pend, text, n), st->pend.oom))
		return -1;
	st->ended = 1;
	return hm__srv_flush(sv);
}

/*
 * Whether an allocation failed: the sticky flag, or an append to one of
 * the reader's buffers (each keeps its flag until it is cleared).  Once
 * set it stays: every call reports HM_ENOMEM from then on.
 */
int
hm__srv_failed(hm_server *sv)
{
	size_t i;

	sv->oom |= sv->arena.oom;
	for (i = 0; i < sv->nst && !sv->oom; i++) {
		const struct srv_stream *st = sv->st[i];

		sv->oom |= st->key.oom | st->fields.oom | st->rid.oom | st->pend.oom |
		    st->prev.oom | st->win.oom | st->late.oom;
	}
	return sv->oom;
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
		if (hm__srv_end(sv, sv->st[i]))
			return HM_ENOMEM;
	}
	return hm__srv_flush(sv) || hm__srv_failed(sv) ? HM_ENOMEM : HM_OK;
}

void
hm_server_sse(hm_server *sv, int on)
{
	sv->in_stream = on;
}
