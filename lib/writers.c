/*
 * writers.c - parser events to output: the writer object, the table of
 * output shapes (shapes[], one row each: struct hm_wshape in
 * writers_int.h) and the one reader of events that calls a shape's
 * functions.  Each shape is a file: writers_messages.c, writers_events.c,
 * writers_text.c, writers_oai.c (Chat Completions and Responses, whole or
 * streamed), writers_anthropic.c (Anthropic Messages, whole or streamed),
 * writers_answer.c, writers_stats.c (stats; its Prometheus summary,
 * metrics, in writers_metrics.c); what they all share is in
 * writers_core.c: writers.c -> shapes -> writers_core.c, no arrow back.
 * docs/writers.md tells how to add a shape.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harmony.h"
#include "records_int.h"
#include "writers_int.h"

/* ---------------------------------------------------------------- the shapes */

/* One row a shape, at its hm_shape. */
static const struct hm_wshape *const shapes[] = {
	[HM_TO_MESSAGES] = &hm__w_messages,
	[HM_TO_EVENTS] = &hm__w_events,
	[HM_TO_CHAT] = &hm__w_chat,
	[HM_TO_CHAT_STREAM] = &hm__w_chat_stream,
	[HM_TO_RESPONSES] = &hm__w_responses,
	[HM_TO_RESPONSES_STREAM] = &hm__w_responses_stream,
	[HM_TO_TEXT] = &hm__w_text,
	[HM_TO_STATS] = &hm__w_stats,
	[HM_TO_CHAT_COMPLETION] = &hm__w_chat_completion,
	[HM_TO_ANTHROPIC] = &hm__w_anthropic,
	[HM_TO_ANTHROPIC_STREAM] = &hm__w_anthropic_stream,
	[HM_TO_ANSWER] = &hm__w_answer,
	[HM_TO_METRICS] = &hm__w_metrics,
	[HM_TO_HTML] = &hm__w_html,
	[HM_TO_REPORT] = &hm__w_report,
};

/* ---------------------------------------------------------------- writer */

/* The shape's state follows the writer in its allocation, aligned for any type. */
#define STATE_AT ((sizeof(struct hm_writer) + _Alignof(max_align_t) - 1) & \
    ~(_Alignof(max_align_t) - 1))

hm_writer *
hm_writer_new(hm_shape shape, unsigned flags)
{
	const struct hm_wshape *def;
	hm_writer *w;

	if ((int)shape < 0 || (size_t)shape >= sizeof shapes / sizeof shapes[0] ||
	    !shapes[shape])
		return NULL;
	def = shapes[shape];
	w = calloc(1, STATE_AT + def->size);
	if (!w)
		return NULL;
	w->def = def;
	w->st = def->size ? (char *)w + STATE_AT : NULL;
	w->flags = flags;
	w->cur = -1;
	if ((flags & HM_WRITER_PRETTY) && !(w->pretty = calloc(1, sizeof *w->pretty))) {
		free(w);
		return NULL;
	}
	return w;
}

/*
 * The buffers of the first ITEMS_KEPT item slots outlive their item, so
 * that a message does not cost five allocations; one grown past
 * ITEM_BUF_KEPT bytes is freed (a long text is not kept for the next
 * record).  Slots from nit to capit hold such kept or zeroed buffers.
 */
#define ITEMS_KEPT 16
#define ITEM_BUF_KEPT 1024

static void
buf_keep(hm_buf *b)
{
	if (b->cap > ITEM_BUF_KEPT)
		hm_buf_free(b);
	else
		hm__buf_clear(b); /* a failed append forgotten: w->nomem has it */
}

/* An item's five buffers, each through fn (buf_keep or hm_buf_free). */
static void
item_bufs(struct hm_witem *it, void (*fn)(hm_buf *))
{
	fn(&it->name);
	fn(&it->rcpt);
	fn(&it->chan);
	fn(&it->ctype);
	fn(&it->text);
}

static void
items_clear(hm_writer *w)
{
	size_t i;

	for (i = 0; i < w->nit; i++)
		item_bufs(&w->it[i], i < ITEMS_KEPT ? buf_keep : hm_buf_free);
	w->nit = 0;
	w->cur = -1;
}

void
hm_writer_free(hm_writer *w)
{
	size_t i;

	if (!w)
		return;
	items_clear(w);
	for (i = 0; i < w->capit && i < ITEMS_KEPT; i++)
		item_bufs(&w->it[i], hm_buf_free);
	free(w->it);
	hm_buf_free(&w->out);
	if (w->pretty)
		hm_buf_free(&w->pretty->buf);
	free(w->pretty);
	hm_buf_free(&w->fields);
	hm_buf_free(&w->own.text);
	hm_buf_free(&w->chans);
	hm_buf_free(&w->warn);
	hm_buf_free(&w->held);
	hm_buf_free(&w->chead);
	hm__w_tokens_free(w);
	free(w->prompt.v);
	if (w->def->free)
		w->def->free(w);
	free(w);
}

hm_status
hm_writer_set_channels(hm_writer *w, const char *list)
{
	const char *s, *e;

	hm_buf_reset(&w->chans);
	w->filter = list != NULL;
	for (s = list; s && *s; s = *e ? e + 1 : e) {
		e = strchr(s, ',');
		if (!e)
			e = s + strlen(s);
		hm__add(&w->nomem, &w->chans, s, (size_t)(e - s));
		hm__putc(&w->nomem, &w->chans, '\0');
	}
	return hm__w_status(w);
}

void
hm_writer_set_seed(hm_writer *w, uint64_t seed, int64_t created)
{
	w->rng = seed | 1;
	w->created = created;
}

/*
 * The keys the shape writes itself: a carried field of the same name
 * would repeat a key, so ours win and the carried one is dropped.  (A
 * carried "id" names the Responses object, in place of resp_N.)
 */
static int
reserved(const hm_writer *w, const char *key, size_t kn)
{
	const struct hm_wkey *r = w->def->keys;

	if (!r)
		return 0;
	for (; r->s && r->n <= kn; r++)
		if (r->n == kn && r->s[0] == key[0] && !memcmp(r->s, key, kn))
			return 1;
	return 0;
}

/*
 * One carried member, key k[0..kn) and value v[0..vn) (both in the
 * carried form): kept unless reserved.  The record's own model, usage
 * ... that the API shapes write in their place are noted on the way.
 */
static int
keep_member(hm_writer *w, const char *k, size_t kn, const char *v, size_t vn)
{
	if (w->seed_from < 2)
		hm__w_seed_member(w, k, kn, v, vn);
	/* a store's (hm_writer_set_turn_fn): the prompt's ids are its, not the output's */
	if (w->turn_fn && hm__w_prompt_member(w, k, kn, v, vn))
		return 0;
	if (w->own_scan)
		hm_w_own_member(w, k, kn, v, vn);
	/* A key with an escape names a control character: it matches none of ours. */
	return !reserved(w, k, kn);
}

/* The first carried "id" kept: its value at v[0..vn) inside w->fields. */
static void
note_id(hm_writer *w, const char *k, size_t kn, const char *v, size_t vn)
{
	if (!w->carried_id && kn == 2 && k[0] == 'i' && k[1] == 'd') {
		w->carried_id = 1;
		w->id_off = (size_t)(v - w->fields.p);
		w->id_len = vn;
	}
}

/* A member of fields already in the carried form (records are): copied when kept. */
static int
copy_member(void *arg, const char *k, size_t kn, const char *v, size_t vn)
{
	hm_writer *w = arg;
	size_t m;

	if (!keep_member(w, k, kn, v, vn))
		return 1;
	if (w->fields.len)
		hm__putc(&w->nomem, &w->fields, ',');
	m = w->fields.len;
	hm__add(&w->nomem, &w->fields, k - 1, (size_t)(v + vn - (k - 1)));
	/* a failed append leaves nothing to note (it is in w->nomem) */
	if (!w->nomem)
		note_id(w, w->fields.p + m + 1, kn, w->fields.p + m + (size_t)(v - (k - 1)), vn);
	return 1;
}

/* A member hm__carry_members_to has just written into w->fields: taken back out unless kept. */
static int
carried_member(void *arg, const char *k, size_t kn, const char *v, size_t vn)
{
	hm_writer *w = arg;

	if (!keep_member(w, k, kn, v, vn))
		return 0;
	note_id(w, k, kn, v, vn);
	return 1;
}

/*
 * Read the carried members f[0..n) once into w->fields, without the keys
 * the shape writes itself.  Members in the carried form (as records give
 * them) are copied; others are written into it first (json_carry.c);
 * text that is not object members is carried as it is.
 */
static hm_status
fields_set(hm_writer *w, const char *f, size_t n)
{
	size_t i = 0;
	int ok;

	hm_buf_reset(&w->fields);
	w->carried_id = w->seed_from = 0;
	hm__w_own_reset(w);
	memset(w->idc, 0, sizeof w->idc); /* the ids of the record before */
	w->prompt_ok = 0;
	w->prompt.len = 0;
	if (!n)
		return HM_OK;
	if (hm__rec_members(f, n, copy_member, w))
		return hm__w_status(w);
	hm_buf_reset(&w->fields);
	w->carried_id = w->seed_from = w->prompt_ok = 0;
	hm__w_own_reset(w);
	ok = hm__carry_members_to(&w->nomem, &w->fields, f, n, &i, carried_member, w) ==
	    HM_OK && i == n;
	if (ok || w->nomem)
		return hm__w_status(w);
	/* Not members of an object: carry them as they are. */
	hm_buf_reset(&w->fields);
	w->carried_id = w->seed_from = w->prompt_ok = 0;
	hm__w_own_reset(w);
	hm__add(&w->nomem, &w->fields, f, n);
	return hm__w_status(w);
}

void
hm_writer_set_turn_fn(hm_writer *w, hm_turn_fn *fn, void *ctx)
{
	w->turn_fn = fn;
	w->turn_ctx = ctx;
}

void
hm_writer_set_flush_fn(hm_writer *w, hm_flush_fn *fn, void *ctx)
{
	w->flush_fn = fn;
	w->flush_ctx = ctx;
}

void
hm_writer_set_text_input(hm_writer *w, int on)
{
	if (on)
		w->flags |= HM_WRITER_TEXT_INPUT;
	else
		w->flags &= ~(unsigned)HM_WRITER_TEXT_INPUT;
}

hm_status
hm_writer_begin(hm_writer *w, const char *fields, size_t len)
{
	/* The shapes of an API's objects write the record's own model, usage ... */
	w->own_scan = (w->def->flags & HM_WS_OWN) != 0;
	if (fields_set(w, fields, len) != HM_OK)
		return HM_ENOMEM;
	items_clear(w);
	w->rec_start = w->out.len;
	if (w->pretty) {
		/* Indent up to here, where an abort returns to. */
		size_t n;

		hm_writer_output(w, &n);
		w->pretty->rec_len = w->pretty->buf.len;
		w->pretty->rec_st = w->pretty->st;
	}
	w->in_rec = 1;
	w->skip = 0;
	if (w->def->begin)
		w->def->begin(w);
	w->truncated = w->whole_call = 0;
	hm_buf_reset(&w->held);
	w->chead_ok = 0;
	w->ntok = w->text_tokens = 0;
	w->warn_set = 0;
	return hm__w_status(w);
}

/* One member met late: where it is the record's own, it replaces the one begun with. */
static int
late_member(void *arg, const char *k, size_t kn, const char *v, size_t vn)
{
	hm_writer *w = arg;

	if (vn == 4 && !memcmp(v, "null", 4))
		return 1;
	w->own.late = 1;
	hm_w_own_member(w, k, kn, v, vn);
	w->own.late = 0;
	return 1;
}

hm_status
hm_writer_late_fields(hm_writer *w, const char *fields, size_t len)
{
	hm_buf b = { 0 };
	size_t i = 0;

	if (!w->own_scan || !len || hm__rec_members(fields, len, late_member, w))
		return hm__w_status(w);
	/* members in another form: into the carried form first */
	if (hm__carry_members_to(&w->nomem, &b, fields, len, &i, NULL, NULL) == HM_OK &&
	    i == len)
		(void)hm__rec_members(b.p, b.len, late_member, w);
	hm_buf_free(&b);
	return hm__w_status(w);
}

void
hm_writer_abort(hm_writer *w)
{
	w->out.len = w->rec_start;
	if (w->out.p)
		w->out.p[w->out.len] = '\0';
	if (w->pretty && w->pretty->done > w->rec_start) {
		w->pretty->buf.len = w->pretty->rec_len;
		if (w->pretty->buf.p)
			w->pretty->buf.p[w->pretty->buf.len] = '\0';
		w->pretty->st = w->pretty->rec_st;
		w->pretty->done = w->rec_start;
	}
	items_clear(w);
	hm__w_tokens_reset(w);
	w->in_rec = 0;
}

const char *
hm_writer_output(const hm_writer *w, size_t *len)
{
	struct hm_wpretty *pr = w->pretty;

	if (pr) {
		/* Only what came since the last call is indented now. */
		if (w->out.len > pr->done)
			hm__w_pretty_to(&pr->nomem, &pr->st, &pr->buf, w->out.p + pr->done,
			    w->out.len - pr->done);
		pr->done = w->out.len;
		*len = pr->buf.len;
		if (pr->nomem)
			return NULL;
		return pr->buf.p ? pr->buf.p : "";
	}
	*len = w->out.len;
	return w->out.p ? w->out.p : "";
}

void
hm_writer_consume(hm_writer *w)
{
	hm_buf_reset(&w->out);
	w->rec_start = 0;
	if (w->pretty) {
		hm_buf_reset(&w->pretty->buf);
		w->pretty->done = w->pretty->rec_len = 0;
		w->pretty->rec_st = w->pretty->st;
	}
}

hm_status
hm_writer_put(hm_writer *w, const char *s, size_t n)
{
	hm__add(&w->nomem, &w->out, s, n);
	return hm__w_status(w);
}

static int
channel_kept(const hm_writer *w, const hm_event *ev)
{
	const char *s;
	const char *name = ev->channel.p ? ev->channel.p : "none";
	size_t n = ev->channel.p ? ev->channel.len : 4;

	if (!w->filter)
		return 1;
	for (s = w->chans.p; s && s < w->chans.p + w->chans.len; s += strlen(s) + 1)
		if (strlen(s) == n && !memcmp(s, name, n))
			return 1;
	return 0;
}

static int
has_prefix(const hm_buf *b, const char *pre)
{
	size_t n = strlen(pre);

	return b->len >= n && !memcmp(b->p, pre, n);
}

static int
is_exact(const hm_buf *b, const char *s)
{
	return b->len == strlen(s) && !memcmp(b->p, s, b->len);
}

/* Whether pat occurs in s[0..n). */
static int
hm_w_find(const char *s, size_t n, const char *pat)
{
	size_t m = strlen(pat), i;

	for (i = 0; i + m <= n; i++)
		if (!memcmp(s + i, pat, m))
			return 1;
	return 0;
}

static void
classify(struct hm_witem *it)
{
	const char *r = it->rcpt.p;
	size_t n = it->rcpt.len;
	const char *dot;

	it->fname_off = 0;
	it->fname_len = n;
	if (strcmp(it->role, "assistant")) {
		it->cls = CLS_SKIP;
		return;
	}
	if (it->has_rcpt && n && !is_exact(&it->rcpt, "assistant")) {
		/* A recipient garbled by invalid UTF-8 is no call anyone can make. */
		if (n >= 3 && hm_w_find(r, n, "\xEF\xBF\xBD")) {
			it->cls = CLS_SKIP;
			return;
		}
		/*
		 * `analysis<|message|>` right after <|start|>assistant: the
		 * reference reads the channel name as a recipient; it is no
		 * call, and analysis stays reasoning.
		 */
		if (!it->has_chan && (is_exact(&it->rcpt, "analysis") ||
		    is_exact(&it->rcpt, "final") || is_exact(&it->rcpt, "commentary"))) {
			it->cls = is_exact(&it->rcpt, "analysis") ? CLS_REASON : CLS_TEXT;
			return;
		}
		if (has_prefix(&it->rcpt, "functions.")) {
			it->cls = CLS_FUNC;
			it->fname_off = 10;
			it->fname_len = n - 10;
		} else if (is_exact(&it->rcpt, "browser.search") ||
		    is_exact(&it->rcpt, "browser.open") ||
		    is_exact(&it->rcpt, "browser.find")) {
			it->cls = CLS_WEB;
		} else if (has_prefix(&it->rcpt, "python") ||
		    has_prefix(&it->rcpt, "browser") ||
		    has_prefix(&it->rcpt, "container")) {
			it->cls = CLS_BUILTIN;
		} else if (!memchr(r, '.', n)) {
			it->cls = CLS_FUNC; /* a bare function name */
		} else {
			it->cls = CLS_MCP;
			dot = r + n;
			while (dot > r && dot[-1] != '.')
				dot--;
			it->fname_off = (size_t)(dot - r);
			it->fname_len = n - it->fname_off;
		}
		return;
	}
	if (it->has_chan && is_exact(&it->chan, "analysis"))
		it->cls = CLS_REASON;
	else
		it->cls = CLS_TEXT;
}

/* ---------------------------------------------------------------- dispatch */

/* A new item for the message ev starts (*out), the open one. */
static hm_status
item_new(hm_writer *w, const hm_event *ev, struct hm_witem **out)
{
	struct hm_witem *it;

	if (w->nit == w->capit) {
		size_t cap = w->capit ? w->capit * 2 : 8;
		struct hm_witem *v = realloc(w->it, cap * sizeof *v);

		if (!v)
			return w->nomem = 1, HM_ENOMEM;
		memset(v + w->capit, 0, (cap - w->capit) * sizeof *v);
		w->it = v;
		w->capit = cap;
	}
	it = &w->it[w->nit];
	{
		/* Kept buffers (items_clear has emptied them) are used again. */
		hm_buf b[5] = { it->name, it->rcpt, it->chan, it->ctype, it->text };

		memset(it, 0, sizeof *it);
		it->name = b[0];
		it->rcpt = b[1];
		it->chan = b[2];
		it->ctype = b[3];
		it->text = b[4];
	}
	it->role = ev->role;
	if ((it->has_name = ev->name.p != NULL))
		hm__add(&w->nomem, &it->name, ev->name.p, ev->name.len);
	if ((it->has_rcpt = ev->recipient.p != NULL))
		hm__add(&w->nomem, &it->rcpt, ev->recipient.p, ev->recipient.len);
	if ((it->has_chan = ev->channel.p != NULL))
		hm__add(&w->nomem, &it->chan, ev->channel.p, ev->channel.len);
	if ((it->has_ctype = ev->content_type.p != NULL))
		hm__add(&w->nomem, &it->ctype, ev->content_type.p, ev->content_type.len);
	/* Keep the buffers non-NULL so p is always a valid pointer (failure: in w->nomem). */
	(void)hm__reserve(&w->nomem, &it->name, 0);
	(void)hm__reserve(&w->nomem, &it->rcpt, 0);
	(void)hm__reserve(&w->nomem, &it->chan, 0);
	(void)hm__reserve(&w->nomem, &it->ctype, 0);
	(void)hm__reserve(&w->nomem, &it->text, 0);
	it->at0 = it->at1 = ev->at;
	it->out = it->call = -1;
	classify(it);
	w->cur = (int)w->nit++;
	*out = it;
	return HM_OK;
}

/*
 * Whether a message that starts as item it may be a call attempt, whose
 * text must not reach the answer before its stop is known (F20): a
 * preamble (commentary with no recipient) waits for its stop; an answer
 * (final, or no channel) waits until its first non-blank byte, and for its
 * stop when that opens JSON.  The other shapes show messages as they are.
 */
static int
pending_kind(const hm_writer *w, const struct hm_witem *it)
{
	if (!(w->def->flags & HM_WS_ROUTE) || it->cls != CLS_TEXT || strcmp(it->role, "assistant"))
		return PEND_NONE;
	if (it->has_chan && is_exact(&it->chan, "commentary"))
		return PEND_STOP;
	return PEND_LOOK;
}

static inline void
deliver_start(hm_writer *w, struct hm_witem *it)
{
	if (w->def->start)
		w->def->start(w, it);
}

static inline void
deliver_delta(hm_writer *w, struct hm_witem *it, const char *s, size_t n)
{
	if (it->jwatch && !hm__jcheck_plain(&it->jc, s, n))
		hm__jcheck_feed(&it->jc, s, n);
	if (w->def->delta)
		w->def->delta(w, it, s, n);
}

/* A pending message is decided: its start and its text so far go out. */
static void
release(hm_writer *w, struct hm_witem *it)
{
	it->pend = PEND_NONE;
	deliver_start(w, it);
	if (w->held.len)
		deliver_delta(w, it, w->held.p, w->held.len);
	hm_buf_reset(&w->held);
}

/* Text of a pending message: held, or out once it shows it is no JSON. */
static void
pending_text(hm_writer *w, struct hm_witem *it, const char *s, size_t n)
{
	size_t i;

	hm__add(&w->nomem, &w->held, s, n);
	if (it->pend != PEND_LOOK)
		return;
	for (i = 0; i < w->held.len; i++) {
		unsigned char c = (unsigned char)w->held.p[i];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if (c == '{' || c == '[')
			it->pend = PEND_STOP;
		else
			release(w, it);
		return;
	}
}

/*
 * A call is whole when <|call|> (or <|return|>, F9) ended it, or when its
 * arguments are one JSON value (a JSON content type, or none).
 */
static int
whole_call(const hm_writer *w, struct hm_witem *it)
{
	if (it->stop == HM_STOP_CALL || it->stop == HM_STOP_RETURN)
		return 1;
	if ((w->def->flags & HM_WS_KEEP) && (!it->has_ctype ||
	    hm__ctype_is_json(it->ctype.p, it->ctype.len))) {
		hm__jcheck_init(&it->jc);
		hm__jcheck_feed(&it->jc, it->text.p, it->text.len);
		return hm__jcheck_whole(&it->jc);
	}
	return it->jwatch && hm__jcheck_whole(&it->jc);
}

hm_status
hm_writer_event(hm_writer *w, const hm_event *ev)
{
	struct hm_witem *it = w->cur >= 0 ? &w->it[w->cur] : NULL;

	/* The parser ran out of memory: the record is lost, and so reported. */
	if (ev->type == HM_EV_ERROR && ev->code == HM_ENOMEM)
		return HM_ENOMEM;
	if (!w->in_rec)
		hm_writer_begin(w, NULL, 0);
	if (w->def->event)
		w->def->event(w, ev);
	switch (ev->type) {
	case HM_EV_START:
		w->stray = 0;
		w->skip = !channel_kept(w, ev);
		if (w->skip || (w->def->flags & HM_WS_EVENTS))
			break;
		/* The streaming shapes keep the open message alone. */
		if (!(w->def->flags & HM_WS_KEEP))
			items_clear(w);
		if (item_new(w, ev, &it) != HM_OK)
			return HM_ENOMEM;
		/* shapes that keep the text check it at the end (whole_call) */
		if ((w->def->flags & (HM_WS_ROUTE | HM_WS_STATS)) && !(w->def->flags & HM_WS_KEEP) &&
		    hm_w_is_call(it->cls) && (!it->has_ctype ||
		    hm__ctype_is_json(it->ctype.p, it->ctype.len))) {
			it->jwatch = 1;
			hm__jcheck_init(&it->jc);
		}
		hm_buf_reset(&w->held);
		if ((it->pend = (unsigned char)pending_kind(w, it)) == PEND_NONE)
			deliver_start(w, it);
		break;
	case HM_EV_DELTA:
		if (w->skip || !it)
			break;
		/*
		 * A special token left in the answer's content (F17) is text in
		 * messages, as the reference has it, but never text for the user.
		 */
		if (w->stray) {
			w->stray = 0;
			if ((w->def->flags & HM_WS_ROUTE) && it->cls == CLS_TEXT)
				break;
		}
		if (it->pend)
			pending_text(w, it, ev->text.p, ev->text.len);
		else
			deliver_delta(w, it, ev->text.p, ev->text.len);
		break;
	case HM_EV_END:
		w->stray = 0;
		if (HM__W_KEEPS_IDS(w))
			hm__w_tokens_end(w, ev);
		if (w->skip || !it) {
			w->skip = 0;
			break;
		}
		it->stop = ev->stop;
		it->at1 = ev->at;
		it->ended = 1;
		if (it->pend) {
			/* <|call|> with no recipient: a call attempt, shown as reasoning (F20). */
			if (ev->stop == HM_STOP_CALL)
				it->cls = CLS_REASON;
			release(w, it);
		} else if (ev->stop == HM_STOP_CALL && it->cls == CLS_TEXT && (w->def->flags & HM_WS_WHOLE))
			it->cls = CLS_REASON; /* an answer of prose: the whole shapes can still tell */
		if (hm_w_is_call(it->cls) && !w->whole_call && whole_call(w, it))
			w->whole_call = 1;
		if (w->def->end)
			w->def->end(w, it);
		w->cur = -1;
		if (HM__W_KEEPS_IDS(w) && !(w->def->flags & HM_WS_TURN))
			hm__w_tokens_drop(w);
		break;
	case HM_EV_WARNING:
		w->stray = ev->code == HM_F_SPECIAL && it && !w->skip;
		if (w->def->warning)
			w->def->warning(w, ev);
		break;
	case HM_EV_ERROR:
		break;
	case HM_EV_DONE:
		/* A message still pending (no END came): what it has goes out. */
		if (it && it->pend)
			release(w, it);
		w->truncated = ev->truncated;
		w->ntok = ev->at;
		w->text_tokens = (w->flags & HM_WRITER_TEXT_INPUT) ? ev->tokens : 0;
		if (w->turn_fn && (w->def->flags & HM_WS_TURN))
			hm__w_tokens_store(w);
		if (w->def->done)
			w->def->done(w);
		items_clear(w);
		hm__w_tokens_reset(w);
		w->in_rec = 0;
		w->rec++;
		memset(w->idc, 0, sizeof w->idc); /* random ids are the record's */
		break;
	case HM_EV_UNKNOWN:
		break;
	}
	return hm__w_status(w);
}

hm_status
hm_writer_summary(hm_writer *w)
{
	if (w->nomem)
		return HM_ENOMEM;
	/* a shape without a summary writes none */
	if (w->def->summary && w->def->summary(w) != HM_OK)
		w->nomem = 1;
	return hm__w_status(w);
}

const char *
hm_writer_warning(hm_writer *w, uint64_t *at)
{
	if (!w->warn_set)
		return NULL;
	w->warn_set = 0;
	*at = w->warn_at;
	return w->warn.p ? w->warn.p : "";
}
