/*
 * writers.c - parser events to output: the writer object and its dispatch
 * to the shapes, and the small shapes (messages NDJSON, events NDJSON, the
 * text transcript).  Stats live in writers_stats.c (their Prometheus form
 * in writers_metrics.c), Chat Completions and Responses in writers_oai.c,
 * Anthropic Messages in writers_anthropic.c, the answer alone in
 * writers_answer.c, and what they all share in writer_core.c:
 * writers.c -> shapes -> writer_core.c, no arrow back.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harmony.h"
#include "records_int.h"
#include "writers_int.h"

/* ---------------------------------------------------------------- writer */

hm_writer *
hm_writer_new(hm_shape shape, unsigned flags)
{
	hm_writer *w;

	if ((int)shape < 0 || shape > HM_TO_METRICS)
		return NULL;
	w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->shape = shape;
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
	if (b->cap > ITEM_BUF_KEPT || b->oom)
		hm_buf_free(b);
	else
		hm_buf_reset(b);
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

static void
counts_free(struct hm_counts *c)
{
	size_t i;

	for (i = 0; i < c->len; i++)
		free(c->v[i].key);
	free(c->v);
	memset(c, 0, sizeof *c);
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
	counts_free(&w->s_chan);
	counts_free(&w->s_rcpt);
	counts_free(&w->s_term);
	counts_free(&w->s_chantok);
	counts_free(&w->s_calls);
	counts_free(&w->r_chan);
	counts_free(&w->r_rcpt);
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
		hm_buf_add(&w->chans, s, (size_t)(e - s));
		hm_buf_addc(&w->chans, '\0');
	}
	return w->chans.oom ? HM_ENOMEM : HM_OK;
}

void
hm_writer_set_seed(hm_writer *w, uint64_t seed, int64_t created)
{
	w->rng = seed | 1;
	w->created = created;
}

/* A key and its length; each list of them below is sorted by length. */
struct rkey {
	unsigned char n;
	const char *s;
};
#define RK(lit) { sizeof lit - 1, lit }

/*
 * The keys a shape writes itself: a carried field of the same name would
 * repeat a key, so ours win and the carried one is dropped.  (A carried
 * "id" names the Responses object, in place of resp_N.)
 */
static int
reserved(const hm_writer *w, const char *key, size_t kn)
{
	static const struct rkey messages[] = {
		RK("messages"), { 0, NULL },
	};
	static const struct rkey events[] = {
		RK("at"), RK("code"), RK("name"), RK("role"), RK("stop"),
		RK("text"), RK("type"), RK("channel"), RK("message"),
		RK("recipient"), RK("truncated"), RK("content_type"), { 0, NULL },
	};
	static const struct rkey chat[] = {
		RK("index"), RK("message"), RK("logprobs"),
		RK("finish_reason"), { 0, NULL },
	};
	static const struct rkey responses[] = {
		RK("error"), RK("model"), RK("tools"), RK("top_p"),
		RK("usage"), RK("object"), RK("output"), RK("status"),
		RK("metadata"), RK("created_at"), RK("temperature"),
		RK("tool_choice"), RK("instructions"),
		RK("incomplete_details"), RK("parallel_tool_calls"), { 0, NULL },
	};
	static const struct rkey completion[] = {
		RK("model"), RK("usage"), RK("object"), RK("choices"),
		RK("created"), { 0, NULL },
	};
	static const struct rkey anthropic[] = {
		RK("role"), RK("type"), RK("model"), RK("usage"),
		RK("content"), RK("container"), RK("diagnostics"),
		RK("stop_reason"), RK("stop_details"), RK("stop_sequence"), { 0, NULL },
	};
	static const struct rkey stats[] = {
		RK("tokens"), RK("channels"), RK("messages"), RK("warnings"),
		RK("truncated"), RK("recipients"), RK("terminator"),
		RK("reasoning_ratio"), RK("reasoning_tokens"), { 0, NULL },
	};
	const struct rkey *r;

	switch (w->shape) {
	case HM_TO_MESSAGES: r = messages; break;
	case HM_TO_EVENTS: r = events; break;
	case HM_TO_CHAT: r = chat; break;
	case HM_TO_RESPONSES: r = responses; break;
	case HM_TO_CHAT_COMPLETION: r = completion; break;
	case HM_TO_STATS: r = stats; break;
	case HM_TO_ANTHROPIC: r = anthropic; break;
	default: return 0;
	}
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
		hm_buf_addc(&w->fields, ',');
	m = w->fields.len;
	hm_buf_add(&w->fields, k - 1, (size_t)(v + vn - (k - 1)));
	if (!w->fields.oom)
		note_id(w, w->fields.p + m + 1, kn, w->fields.p + m + (size_t)(v - (k - 1)), vn);
	return 1;
}

/* A member hm__carry_members has just written into w->fields: taken back out unless kept. */
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

	hm_buf_reset(&w->fields);
	w->carried_id = 0;
	hm__w_own_reset(w);
	if (!n)
		return HM_OK;
	if (hm__rec_members(f, n, copy_member, w))
		return w->fields.oom ? HM_ENOMEM : HM_OK;
	hm_buf_reset(&w->fields);
	w->carried_id = 0;
	hm__w_own_reset(w);
	if (hm__carry_members(&w->fields, f, n, &i, carried_member, w) && i == n)
		return w->fields.oom ? HM_ENOMEM : HM_OK;
	if (w->fields.oom)
		return HM_ENOMEM;
	/* Not members of an object: carry them as they are. */
	hm_buf_reset(&w->fields);
	w->carried_id = 0;
	hm__w_own_reset(w);
	hm_buf_add(&w->fields, f, n);
	return w->fields.oom ? HM_ENOMEM : HM_OK;
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
	w->own_scan = w->shape == HM_TO_CHAT_COMPLETION || w->shape == HM_TO_CHAT_STREAM ||
	    w->shape == HM_TO_RESPONSES || w->shape == HM_TO_RESPONSES_STREAM ||
	    w->shape == HM_TO_ANTHROPIC || w->shape == HM_TO_ANTHROPIC_STREAM;
	if (fields_set(w, fields, len) != HM_OK || w->own.text.oom)
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
	w->nwritten = w->ncalls = w->nout = w->seq = w->began = 0;
	w->text_any = w->reason_any = 0;
	w->r_msgs = w->r_reason = 0;
	w->r_term = NULL;
	counts_free(&w->r_chan);
	counts_free(&w->r_rcpt);
	w->nwarn = 0;
	w->truncated = w->whole_call = 0;
	hm_buf_reset(&w->held);
	w->chead_ok = 0;
	w->ntok = w->text_tokens = 0;
	w->a_reason = 0;
	w->a_open = 0;
	w->warn_set = 0;
	return w->fields.oom ? HM_ENOMEM : HM_OK;
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
			hm__w_pretty(&pr->st, &pr->buf, w->out.p + pr->done, w->out.len - pr->done);
		pr->done = w->out.len;
		*len = pr->buf.len;
		if (pr->buf.oom)
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
	hm_buf_add(&w->out, s, n);
	return w->out.oom ? HM_ENOMEM : HM_OK;
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

/* ---------------------------------------------------------------- messages */

static void
msg_start(hm_writer *w, const struct hm_witem *it)
{
	hm_buf *b = &w->out;

	if (w->flags & HM_WRITER_RECORDS) {
		if (w->nwritten)
			hm_buf_addc(b, ',');
	}
	hm_buf_add(b, "{\"role\":", 8);
	hm__w_strz(b, it->role);
	if (it->has_name) {
		hm_buf_add(b, ",\"name\":", 8);
		hm__w_str(b, it->name.p, it->name.len);
	}
	if (it->has_rcpt) {
		hm_buf_add(b, ",\"recipient\":", 13);
		hm__w_str(b, it->rcpt.p, it->rcpt.len);
	}
	hm_buf_add(b, ",\"content\":\"", 12);
}

static void
msg_end(hm_writer *w, const struct hm_witem *it)
{
	hm_buf *b = &w->out;

	hm_buf_addc(b, '"');
	if (it->has_chan) {
		hm_buf_add(b, ",\"channel\":", 11);
		hm__w_str(b, it->chan.p, it->chan.len);
	}
	if (it->has_ctype) {
		hm_buf_add(b, ",\"content_type\":", 16);
		hm__w_str(b, it->ctype.p, it->ctype.len);
	}
	if (w->flags & HM_WRITER_TOKENS)
		hm__w_tokens_member(w);
	hm_buf_addc(b, '}');
	if (!(w->flags & HM_WRITER_RECORDS))
		hm_buf_addc(b, '\n');
	w->nwritten++;
}

/* ---------------------------------------------------------------- events */

static void
ev_span(hm_buf *b, const char *key, hm_span s)
{
	if (!s.p)
		return;
	hm_buf_addc(b, ',');
	hm__w_key(b, key);
	hm__w_str(b, s.p, s.len);
}

static void
write_event(hm_writer *w, const hm_event *ev)
{
	hm_buf *b = &w->out;

	hm__w_fields_prefix(w);
	hm_buf_add(b, "\"type\":", 7);
	hm__w_strz(b, hm_event_type_name(ev->type));
	hm_buf_add(b, ",\"at\":", 6);
	hm_buf_addu(b, ev->at);
	switch (ev->type) {
	case HM_EV_START:
		hm_buf_add(b, ",\"role\":", 8);
		hm__w_strz(b, ev->role);
		ev_span(b, "name", ev->name);
		ev_span(b, "recipient", ev->recipient);
		ev_span(b, "channel", ev->channel);
		ev_span(b, "content_type", ev->content_type);
		break;
	case HM_EV_DELTA:
		ev_span(b, "text", ev->text);
		break;
	case HM_EV_END:
		hm_buf_add(b, ",\"stop\":", 8);
		hm__w_strz(b, hm_stop_name(ev->stop));
		break;
	case HM_EV_WARNING:
		hm_buf_add(b, ",\"code\":\"F", 10);
		hm_buf_addu(b, (unsigned)ev->code);
		hm_buf_addc(b, '"');
		ev_span(b, "message", ev->text);
		break;
	case HM_EV_ERROR:
		ev_span(b, "message", ev->text);
		break;
	case HM_EV_DONE:
		hm_buf_adds(b, ev->truncated ? ",\"truncated\":true" : ",\"truncated\":false");
		break;
	case HM_EV_UNKNOWN:
		break;
	}
	hm_buf_add(b, "}\n", 2);
}

/* ---------------------------------------------------------------- text */

/*
 * Text for a terminal: control characters other than newline and tab (an
 * escape sequence could recolor, move or retitle the terminal) are shown
 * as \xHH, C1 controls as \u00HH.
 */
static void
text_body(hm_buf *b, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i, start = 0;

	for (i = 0; i < n; i++) {
		unsigned c = s[i];

		if ((c >= 0x20 && c != 0x7F && c != 0xC2) || c == '\n' || c == '\t')
			continue;
		if (c == 0xC2 && !(i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9F))
			continue;
		hm_buf_add(b, s + start, i - start);
		if (c == 0xC2) {
			c = s[++i];
			hm_buf_adds(b, "\\u00");
		} else
			hm_buf_adds(b, "\\x");
		hm_buf_addc(b, hex[c >> 4]);
		hm_buf_addc(b, hex[c & 15]);
		start = i + 1;
	}
	hm_buf_add(b, s + start, n - start);
}

#define C_RESET "\033[0m"

static const char *
chan_color(const struct hm_witem *it)
{
	if (strcmp(it->role, "assistant"))
		return "\033[33m";
	if (it->has_rcpt)
		return "\033[35m";
	if (it->has_chan && is_exact(&it->chan, "analysis"))
		return "\033[2m";
	if (it->has_chan && is_exact(&it->chan, "commentary"))
		return "\033[36m";
	return "\033[32m";
}

static void
text_start(hm_writer *w, const struct hm_witem *it)
{
	hm_buf *b = &w->out;
	int color = (w->flags & HM_WRITER_COLOR) != 0;

	if (w->nwritten)
		hm_buf_addc(b, '\n');
	if (color)
		hm_buf_adds(b, "\033[1m");
	hm_buf_addc(b, '[');
	hm_buf_adds(b, it->role);
	if (it->has_name) {
		hm_buf_addc(b, ':');
		text_body(b, it->name.p, it->name.len);
	}
	if (color) {
		hm_buf_adds(b, C_RESET);
		hm_buf_adds(b, chan_color(it));
	}
	if (it->has_chan) {
		hm_buf_addc(b, ' ');
		text_body(b, it->chan.p, it->chan.len);
	}
	if (it->has_rcpt) {
		hm_buf_adds(b, " -> ");
		text_body(b, it->rcpt.p, it->rcpt.len);
	}
	if (it->has_ctype) {
		hm_buf_addc(b, ' ');
		text_body(b, it->ctype.p, it->ctype.len);
	}
	if (color)
		hm_buf_adds(b, C_RESET "\033[1m");
	hm_buf_addc(b, ']');
	if (color)
		hm_buf_adds(b, C_RESET);
	hm_buf_addc(b, '\n');
}

static void
text_end(hm_writer *w, const struct hm_witem *it)
{
	hm_buf *b = &w->out;

	if (it->stop == HM_STOP_EOS)
		hm_buf_adds(b, (w->flags & HM_WRITER_COLOR) ?
		    "\n\033[31m[truncated]" C_RESET : "\n[truncated]");
	hm_buf_addc(b, '\n');
	w->nwritten++;
}

/* ---------------------------------------------------------------- dispatch */

static struct hm_witem *
item_new(hm_writer *w, const hm_event *ev)
{
	struct hm_witem *it;

	if (w->nit == w->capit) {
		size_t cap = w->capit ? w->capit * 2 : 8;
		struct hm_witem *v = realloc(w->it, cap * sizeof *v);

		if (!v)
			return NULL;
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
		hm_buf_add(&it->name, ev->name.p, ev->name.len);
	if ((it->has_rcpt = ev->recipient.p != NULL))
		hm_buf_add(&it->rcpt, ev->recipient.p, ev->recipient.len);
	if ((it->has_chan = ev->channel.p != NULL))
		hm_buf_add(&it->chan, ev->channel.p, ev->channel.len);
	if ((it->has_ctype = ev->content_type.p != NULL))
		hm_buf_add(&it->ctype, ev->content_type.p, ev->content_type.len);
	/* Keep the buffers non-NULL so p is always a valid pointer. */
	hm_buf_reserve(&it->name, 0);
	hm_buf_reserve(&it->rcpt, 0);
	hm_buf_reserve(&it->chan, 0);
	hm_buf_reserve(&it->ctype, 0);
	hm_buf_reserve(&it->text, 0);
	it->at0 = it->at1 = ev->at;
	it->out = it->call = -1;
	classify(it);
	w->cur = (int)w->nit++;
	return it;
}

/* Shapes that print every message of a record at its end. */
static int
keeps_items(const hm_writer *w)
{
	return w->shape == HM_TO_CHAT || w->shape == HM_TO_RESPONSES ||
	    w->shape == HM_TO_RESPONSES_STREAM || w->shape == HM_TO_CHAT_COMPLETION ||
	    w->shape == HM_TO_ANTHROPIC;
}

static int
is_anthropic(const hm_writer *w)
{
	return w->shape == HM_TO_ANTHROPIC || w->shape == HM_TO_ANTHROPIC_STREAM;
}

static int
is_stats(const hm_writer *w)
{
	return w->shape == HM_TO_STATS || w->shape == HM_TO_METRICS;
}

static int
is_oai(const hm_writer *w)
{
	return w->shape == HM_TO_CHAT || w->shape == HM_TO_RESPONSES ||
	    w->shape == HM_TO_RESPONSES_STREAM || w->shape == HM_TO_CHAT_COMPLETION ||
	    w->shape == HM_TO_CHAT_STREAM;
}

/* The shapes that tell an answer from reasoning and tool calls. */
static int
routes(const hm_writer *w)
{
	return is_oai(w) || is_anthropic(w) || w->shape == HM_TO_ANSWER;
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
	if (!routes(w) || it->cls != CLS_TEXT || strcmp(it->role, "assistant"))
		return PEND_NONE;
	if (it->has_chan && is_exact(&it->chan, "commentary"))
		return PEND_STOP;
	return PEND_LOOK;
}

static inline void
deliver_start(hm_writer *w, struct hm_witem *it)
{
	if (w->shape == HM_TO_MESSAGES) {
		if ((w->flags & HM_WRITER_RECORDS) && !w->nwritten && !w->began) {
			hm__w_fields_prefix(w);
			hm_buf_adds(&w->out, "\"messages\":[");
			w->began = 1;
		}
		msg_start(w, it);
	} else if (w->shape == HM_TO_TEXT)
		text_start(w, it);
	else if (is_stats(w))
		hm__w_stats_start(w, it);
	else if (is_anthropic(w))
		hm__w_anth_start(w, it);
	else if (w->shape == HM_TO_ANSWER)
		hm__w_answer_start(w, it);
	else
		hm__w_oai_start(w, it);
}

static inline void
deliver_delta(hm_writer *w, struct hm_witem *it, const char *s, size_t n)
{
	if (it->jwatch && !hm__jcheck_plain(&it->jc, s, n))
		hm__jcheck_feed(&it->jc, s, n);
	if (w->shape == HM_TO_MESSAGES)
		hm_buf_json_body(&w->out, s, n);
	else if (w->shape == HM_TO_TEXT)
		text_body(&w->out, s, n);
	else if (is_oai(w)) {
		if (keeps_items(w))
			hm_buf_add(&it->text, s, n);
		hm__w_oai_delta(w, it, s, n);
	} else if (is_anthropic(w))
		hm__w_anth_delta(w, it, s, n);
	else if (w->shape == HM_TO_ANSWER)
		hm__w_answer_delta(w, it, s, n);
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

/* Shapes written whole at the record's end, which an END can still change. */
static int
whole_object(const hm_writer *w)
{
	return w->shape == HM_TO_CHAT || w->shape == HM_TO_CHAT_COMPLETION ||
	    w->shape == HM_TO_RESPONSES || w->shape == HM_TO_ANTHROPIC;
}

/* Text of a pending message: held, or out once it shows it is no JSON. */
static void
pending_text(hm_writer *w, struct hm_witem *it, const char *s, size_t n)
{
	size_t i;

	hm_buf_add(&w->held, s, n);
	if (w->held.oom)
		w->oom = 1;
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
	if (keeps_items(w) && (!it->has_ctype || hm__ctype_is_json(it->ctype.p, it->ctype.len))) {
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
	if (w->shape == HM_TO_EVENTS)
		write_event(w, ev);
	switch (ev->type) {
	case HM_EV_START:
		w->skip = !channel_kept(w, ev);
		if (w->skip || w->shape == HM_TO_EVENTS)
			break;
		/* The streaming shapes keep the open message alone. */
		if (!keeps_items(w))
			items_clear(w);
		it = item_new(w, ev);
		if (!it)
			return HM_ENOMEM;
		/* shapes that keep the text check it at the end (whole_call) */
		if ((routes(w) || is_stats(w)) && !keeps_items(w) && hm_w_is_call(it->cls) && (!it->has_ctype ||
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
		if (it->pend)
			pending_text(w, it, ev->text.p, ev->text.len);
		else
			deliver_delta(w, it, ev->text.p, ev->text.len);
		break;
	case HM_EV_END:
		if (w->flags & HM_WRITER_TOKENS)
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
		} else if (ev->stop == HM_STOP_CALL && it->cls == CLS_TEXT && whole_object(w))
			it->cls = CLS_REASON; /* an answer of prose: the whole shapes can still tell */
		if (hm_w_is_call(it->cls) && !w->whole_call && whole_call(w, it))
			w->whole_call = 1;
		if (w->shape == HM_TO_MESSAGES)
			msg_end(w, it);
		else if (w->shape == HM_TO_TEXT)
			text_end(w, it);
		else if (is_stats(w))
			hm__w_stats_end(w, it);
		else if (is_oai(w))
			hm__w_oai_end(w, it);
		else if (is_anthropic(w))
			hm__w_anth_end(w, it);
		w->cur = -1;
		if (w->flags & HM_WRITER_TOKENS)
			hm__w_tokens_drop(w);
		break;
	case HM_EV_WARNING:
		w->nwarn++;
		if (ev->code >= 0 && ev->code < HM_F_CODES)
			w->s_codes[ev->code]++;
		break;
	case HM_EV_ERROR:
		break;
	case HM_EV_DONE:
		/* A message still pending (no END came): what it has goes out. */
		if (it && it->pend)
			release(w, it);
		/* before items_clear forgets what the open message's buffers lost */
		hm__w_status(w, it);
		w->truncated = ev->truncated;
		w->ntok = ev->at;
		w->text_tokens = (w->flags & HM_WRITER_TEXT_INPUT) ? ev->tokens : 0;
		if (w->shape == HM_TO_MESSAGES && (w->flags & HM_WRITER_RECORDS)) {
			if (!w->began) {
				hm__w_fields_prefix(w);
				hm_buf_adds(&w->out, "\"messages\":[");
			}
			hm_buf_add(&w->out, "]}\n", 3);
		} else if (is_stats(w))
			hm__w_stats_done(w);
		else if (is_oai(w))
			hm__w_oai_done(w);
		else if (is_anthropic(w))
			hm__w_anth_done(w);
		else if (w->shape == HM_TO_ANSWER)
			hm__w_answer_done(w);
		items_clear(w);
		hm__w_tokens_reset(w);
		w->in_rec = 0;
		w->rec++;
		break;
	case HM_EV_UNKNOWN:
		break;
	}
	/* at DONE the items are gone (looked at above, before they went) */
	return hm__w_status(w, ev->type != HM_EV_DONE ? it : NULL);
}

hm_status
hm_writer_summary(hm_writer *w)
{
	if (hm__w_status(w, NULL) != HM_OK)
		return HM_ENOMEM;
	if ((w->shape == HM_TO_METRICS ? hm__w_metrics_summary(w) :
	    hm__w_stats_summary(w)) != HM_OK)
		w->oom = 1;
	return hm__w_status(w, NULL);
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
