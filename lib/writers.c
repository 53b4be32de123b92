/*
 * writers.c - parser events to output: the writer object, messages NDJSON,
 * events NDJSON, the text transcript and stats.  Chat Completions and
 * Responses live in writers_oai.c.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "harmony.h"
#include "records_int.h"
#include "writers_int.h"

static const char *const shape_names[] = {
	"messages", "events", "chat", "chat-stream", "responses",
	"responses-stream", "text", "stats", "chat-completion",
};

int
hm_shape_from_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof shape_names / sizeof shape_names[0]; i++)
		if (!strcmp(name, shape_names[i]))
			return (int)i;
	return -1;
}

/* ---------------------------------------------------------------- JSON */

void
hm_w_key(hm_buf *b, const char *key)
{
	hm_buf_addc(b, '"');
	hm_buf_adds(b, key);
	hm_buf_add(b, "\":", 2);
}

void
hm_w_str(hm_buf *b, const char *s, size_t n)
{
	hm_buf_json_str(b, s, n);
}

void
hm_w_strz(hm_buf *b, const char *s)
{
	hm_w_str(b, s, strlen(s));
}

static void
newline_indent(hm_buf *b, unsigned depth)
{
	hm_buf_addc(b, '\n');
	while (depth--)
		hm_buf_add(b, "  ", 2);
}

void
hm_w_pretty(struct hm_pretty *st, hm_buf *b, const char *s, size_t n)
{
	size_t i, run;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (st->instr) {
			/* Copy the rest of the string up to its closing quote. */
			for (run = i; run < n && (st->esc || s[run] != '"'); run++)
				st->esc = !st->esc && s[run] == '\\';
			hm_buf_add(b, s + i, run - i);
			if (run == n)
				return;
			hm_buf_addc(b, '"');
			st->instr = 0;
			i = run;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || (c == '\n' && st->depth)) {
			/* Carried record fields may hold blanks: ours replace them. */
			continue;
		}
		if (st->open) {
			st->open = 0;
			if (c == '}' || c == ']') {
				st->depth--;
				hm_buf_addc(b, c);
				continue;
			}
			newline_indent(b, st->depth);
		}
		switch (c) {
		case '"':
			st->instr = 1;
			hm_buf_addc(b, c);
			break;
		case '{':
		case '[':
			hm_buf_addc(b, c);
			st->depth++;
			st->open = 1;
			break;
		case '}':
		case ']':
			if (st->depth)
				st->depth--;
			newline_indent(b, st->depth);
			hm_buf_addc(b, c);
			break;
		case ',':
			hm_buf_addc(b, c);
			newline_indent(b, st->depth);
			break;
		case ':':
			hm_buf_add(b, ": ", 2);
			break;
		default:
			hm_buf_addc(b, c);
		}
	}
}

/*
 * splitmix64's finaliser: ids only need to look random, not be secret.  An
 * id is a function of the seed, the record, its prefix and its number, so
 * every event that names one response, item or call names it alike.
 */
static uint64_t
mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

void
hm_w_id(hm_writer *w, hm_buf *b, const char *prefix, uint64_t n)
{
	static const char hex[] = "0123456789abcdef";

	hm_buf_adds(b, prefix);
	if (w->flags & HM_WR_RANDOM_IDS) {
		uint64_t h = mix(w->rng ^ mix(w->rec)), a, c;
		const char *s;
		int i;

		for (s = prefix; *s; s++)
			h = mix(h ^ (unsigned char)*s);
		a = mix(h ^ n);
		c = mix(a);
		for (i = 0; i < 16; i++)
			hm_buf_addc(b, hex[(a >> (i * 4)) & 15]);
		for (i = 0; i < 8; i++)
			hm_buf_addc(b, hex[(c >> (i * 4)) & 15]);
	} else
		hm_buf_addu(b, n);
}

/* Commentary without a functions. recipient counts as reasoning, too. */
int
hm_w_reasoning(const struct hm_witem *it)
{
	if (!it->has_chan || it->cls == CLS_SKIP)
		return 0;
	if (it->chan.len == 8 && !memcmp(it->chan.p, "analysis", 8))
		return 1;
	return it->chan.len == 10 && !memcmp(it->chan.p, "commentary", 10) &&
	    it->cls != CLS_FUNC;
}

/* ---------------------------------------------------------------- writer */

hm_writer *
hm_writer_new(hm_shape shape, unsigned flags)
{
	hm_writer *w;

	if ((int)shape < 0 || shape > HM_TO_CHAT_COMPLETION)
		return NULL;
	w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->shape = shape;
	w->flags = flags;
	w->cur = -1;
	if ((flags & HM_WR_PRETTY) && !(w->pretty = calloc(1, sizeof *w->pretty))) {
		free(w);
		return NULL;
	}
	return w;
}

static void
items_clear(hm_writer *w)
{
	size_t i;

	for (i = 0; i < w->nit; i++) {
		hm_buf_free(&w->it[i].name);
		hm_buf_free(&w->it[i].rcpt);
		hm_buf_free(&w->it[i].chan);
		hm_buf_free(&w->it[i].ctype);
		hm_buf_free(&w->it[i].text);
	}
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
	if (!w)
		return;
	items_clear(w);
	free(w->it);
	hm_buf_free(&w->out);
	if (w->pretty)
		hm_buf_free(&w->pretty->buf);
	free(w->pretty);
	hm_buf_free(&w->fields);
	hm_buf_free(&w->chans);
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

	hm_buf_clear(&w->chans);
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

/*
 * The keys a shape writes itself: a carried field of the same name would
 * repeat a key, so ours win and the carried one is dropped.  (A carried
 * "id" names the Responses object, in place of resp_N.)
 */
static int
reserved(const hm_writer *w, const char *key)
{
	static const char *const messages[] = { "messages", NULL };
	static const char *const events[] = {
		"type", "at", "role", "name", "recipient", "channel", "content_type",
		"text", "stop", "code", "message", "truncated", NULL,
	};
	static const char *const chat[] = {
		"index", "message", "logprobs", "finish_reason", NULL,
	};
	static const char *const responses[] = {
		"object", "created_at", "status", "error", "incomplete_details",
		"instructions", "model", "output", "parallel_tool_calls",
		"temperature", "tool_choice", "tools", "top_p", "metadata", "usage",
		NULL,
	};
	static const char *const completion[] = {
		"object", "created", "model", "choices", "usage", NULL,
	};
	static const char *const stats[] = {
		"tokens", "messages", "channels", "recipients", "terminator",
		"warnings", "truncated", "reasoning_tokens", "reasoning_ratio", NULL,
	};
	const char *const *k;

	switch (w->shape) {
	case HM_TO_MESSAGES: k = messages; break;
	case HM_TO_EVENTS: k = events; break;
	case HM_TO_CHAT: k = chat; break;
	case HM_TO_RESPONSES: k = responses; break;
	case HM_TO_CHAT_COMPLETION: k = completion; break;
	case HM_TO_STATS: k = stats; break;
	default: return 0;
	}
	for (; *k; k++)
		if (!strcmp(*k, key))
			return 1;
	return 0;
}

struct keep {
	hm_writer *w;
	const char *f;
};

/* One member of carried fields in cJSON's printed form: kept unless reserved. */
static void
keep_member(void *arg, const char *k, size_t kn, size_t off, size_t len)
{
	struct keep *kp = arg;
	char key[32];

	/* A key with an escape names a control character: never reserved. */
	if (kn < sizeof key && !memchr(k, '\\', kn)) {
		memcpy(key, k, kn);
		key[kn] = '\0';
		if (reserved(kp->w, key))
			return;
		if (!strcmp(key, "id"))
			kp->w->carried_id = 1;
	}
	if (kp->w->fields.len)
		hm_buf_addc(&kp->w->fields, ',');
	hm_buf_add(&kp->w->fields, kp->f + off, len);
}

/* Keep the carried fields f[0..n) that do not collide with the shape's keys. */
static hm_status
fields_set(hm_writer *w, const char *f, size_t n)
{
	hm_buf t = { 0 };
	cJSON *o, *c, *next;
	char *out;
	size_t m;
	struct keep kp;

	hm_buf_clear(&w->fields);
	w->carried_id = 0;
	if (!n)
		return HM_OK;
	/* Already as cJSON prints them (records are): no tree needed. */
	kp.w = w;
	kp.f = f;
	if (hm_rec_members(f, n, keep_member, &kp))
		return w->fields.oom ? HM_ENOMEM : HM_OK;
	hm_buf_clear(&w->fields);
	w->carried_id = 0;
	hm_buf_addc(&t, '{');
	hm_buf_add(&t, f, n);
	hm_buf_addc(&t, '}');
	if (t.oom)
		return HM_ENOMEM;
	o = cJSON_ParseWithLength(t.p, t.len);
	hm_buf_free(&t);
	if (!cJSON_IsObject(o)) {
		/* Not members of an object: carry them as they are. */
		cJSON_Delete(o);
		hm_buf_add(&w->fields, f, n);
		return w->fields.oom ? HM_ENOMEM : HM_OK;
	}
	for (c = o->child; c; c = next) {
		next = c->next;
		if (c->string && reserved(w, c->string))
			cJSON_Delete(cJSON_DetachItemViaPointer(o, c));
		else if (c->string && !strcmp(c->string, "id"))
			w->carried_id = 1;
	}
	out = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!out)
		return HM_ENOMEM;
	m = strlen(out);
	if (m > 2)
		hm_buf_add(&w->fields, out + 1, m - 2);
	free(out);
	return w->fields.oom ? HM_ENOMEM : HM_OK;
}

void
hm_writer_set_text_input(hm_writer *w, int on)
{
	if (on)
		w->flags |= HM_WR_TEXT_INPUT;
	else
		w->flags &= ~(unsigned)HM_WR_TEXT_INPUT;
}

hm_status
hm_writer_begin(hm_writer *w, const char *fields, size_t len)
{
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
	w->nwritten = w->ncalls = w->nout = w->seq = w->began = 0;
	w->text_any = w->reason_any = 0;
	w->r_msgs = w->r_reason = 0;
	w->r_term = NULL;
	counts_free(&w->r_chan);
	counts_free(&w->r_rcpt);
	w->nwarn = 0;
	w->truncated = 0;
	w->ntok = 0;
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
	w->in_rec = 0;
}

const char *
hm_writer_output(const hm_writer *w, size_t *len)
{
	struct hm_wpretty *pr = w->pretty;

	if (pr) {
		/* Only what came since the last call is indented now. */
		if (w->out.len > pr->done)
			hm_w_pretty(&pr->st, &pr->buf, w->out.p + pr->done, w->out.len - pr->done);
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
	hm_buf_clear(&w->out);
	w->rec_start = 0;
	if (w->pretty) {
		hm_buf_clear(&w->pretty->buf);
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
fields_prefix(hm_writer *w)
{
	hm_buf_addc(&w->out, '{');
	if (w->fields.len) {
		hm_buf_add(&w->out, w->fields.p, w->fields.len);
		hm_buf_addc(&w->out, ',');
	}
}

static void
msg_start(hm_writer *w, const struct hm_witem *it)
{
	hm_buf *b = &w->out;

	if (w->flags & HM_WR_RECORDS) {
		if (w->nwritten)
			hm_buf_addc(b, ',');
	}
	hm_buf_add(b, "{\"role\":", 8);
	hm_w_strz(b, it->role);
	if (it->has_name) {
		hm_buf_add(b, ",\"name\":", 8);
		hm_w_str(b, it->name.p, it->name.len);
	}
	if (it->has_rcpt) {
		hm_buf_add(b, ",\"recipient\":", 13);
		hm_w_str(b, it->rcpt.p, it->rcpt.len);
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
		hm_w_str(b, it->chan.p, it->chan.len);
	}
	if (it->has_ctype) {
		hm_buf_add(b, ",\"content_type\":", 16);
		hm_w_str(b, it->ctype.p, it->ctype.len);
	}
	hm_buf_addc(b, '}');
	if (!(w->flags & HM_WR_RECORDS))
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
	hm_w_key(b, key);
	hm_w_str(b, s.p, s.len);
}

static void
write_event(hm_writer *w, const hm_event *ev)
{
	static const char *const names[] = {
		"", "start", "delta", "end", "warning", "error", "done",
	};
	hm_buf *b = &w->out;

	fields_prefix(w);
	hm_buf_add(b, "\"type\":", 7);
	hm_w_strz(b, names[ev->type]);
	hm_buf_add(b, ",\"at\":", 6);
	hm_buf_addu(b, ev->at);
	switch (ev->type) {
	case HM_EV_START:
		hm_buf_add(b, ",\"role\":", 8);
		hm_w_strz(b, ev->role);
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
		hm_w_strz(b, hm_stop_name(ev->stop));
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
	int color = (w->flags & HM_WR_COLOR) != 0;

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
		hm_buf_adds(b, (w->flags & HM_WR_COLOR) ?
		    "\n\033[31m[truncated]" C_RESET : "\n[truncated]");
	hm_buf_addc(b, '\n');
	w->nwritten++;
}

/* ---------------------------------------------------------------- stats */

static void
count(struct hm_counts *c, const char *k, size_t n, uint64_t by)
{
	size_t i;

	for (i = 0; i < c->len; i++)
		if (strlen(c->v[i].key) == n && !memcmp(c->v[i].key, k, n)) {
			c->v[i].n += by;
			return;
		}
	if (c->len >= 1000) {
		k = "(other)";
		n = 7;
		for (i = 0; i < c->len; i++)
			if (!strcmp(c->v[i].key, k)) {
				c->v[i].n += by;
				return;
			}
	}
	if (c->len == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		struct hm_count *v = realloc(c->v, cap * sizeof *v);

		if (!v)
			return;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->len].key = malloc(n + 1);
	if (!c->v[c->len].key)
		return;
	memcpy(c->v[c->len].key, k, n);
	c->v[c->len].key[n] = '\0';
	c->v[c->len++].n = by;
}

static int
cmp_count_key(const void *a, const void *b)
{
	return strcmp((*(const struct hm_count *const *)a)->key,
	    (*(const struct hm_count *const *)b)->key);
}

/*
 * A map of counts: in first-seen order for one record, sorted by key
 * (bytewise) in a summary, so that summaries of chunks merged in any order
 * give the bytes of the whole.
 */
static void
write_counts_ex(hm_buf *b, const char *key, const struct hm_counts *c, int sorted)
{
	const struct hm_count **v = NULL;
	size_t i;

	if (sorted && c->len > 1 && (v = malloc(c->len * sizeof *v))) {
		for (i = 0; i < c->len; i++)
			v[i] = &c->v[i];
		qsort(v, c->len, sizeof *v, cmp_count_key);
	}
	hm_buf_addc(b, ',');
	hm_w_key(b, key);
	hm_buf_addc(b, '{');
	for (i = 0; i < c->len; i++) {
		const struct hm_count *e = v ? v[i] : &c->v[i];

		if (i)
			hm_buf_addc(b, ',');
		hm_w_strz(b, e->key);
		hm_buf_addc(b, ':');
		hm_buf_addu(b, e->n);
	}
	hm_buf_addc(b, '}');
	free(v);
}

static void
write_counts(hm_buf *b, const char *key, const struct hm_counts *c)
{
	write_counts_ex(b, key, c, 0);
}

static void
write_summary_counts(hm_buf *b, const char *key, const struct hm_counts *c)
{
	write_counts_ex(b, key, c, 1);
}

static void
ratio(hm_buf *b, uint64_t a, uint64_t t)
{
	char num[32];

	snprintf(num, sizeof num, "%.4f", t ? (double)a / (double)t : 0.0);
	hm_buf_adds(b, num);
}

static uint64_t
item_tokens(const struct hm_witem *it)
{
	return it->at1 >= it->at0 ? it->at1 - it->at0 + (it->stop != HM_STOP_EOS) : 0;
}

/*
 * stats keeps counters, not messages: a message is counted when it starts
 * (channel, recipient) and when it ends (reasoning tokens, terminator).
 */
static void
stats_start(hm_writer *w, const struct hm_witem *it)
{
	const char *ch = it->has_chan ? it->chan.p : "none";
	size_t n = it->has_chan ? it->chan.len : 4;

	w->r_msgs++;
	count(&w->r_chan, ch, n, 1);
	count(&w->s_chan, ch, n, 1);
	if (it->has_rcpt) {
		count(&w->r_rcpt, it->rcpt.p, it->rcpt.len, 1);
		count(&w->s_rcpt, it->rcpt.p, it->rcpt.len, 1);
	}
}

static void
stats_end(hm_writer *w, const struct hm_witem *it)
{
	if (hm_w_reasoning(it))
		w->r_reason += item_tokens(it);
	w->r_term = hm_stop_name(it->stop);
	if (!(w->flags & HM_WR_TEXT_INPUT))
		count(&w->s_chantok, it->has_chan ? it->chan.p : "none",
		    it->has_chan ? it->chan.len : 4, item_tokens(it));
	if (it->stop == HM_STOP_CALL && it->has_rcpt)
		count(&w->s_calls, it->rcpt.p, it->rcpt.len, 1);
}

/*
 * Histogram buckets of tokens per record: 0..63 each its own; above, each
 * power of two split in 32, so a bucket [lo, lo + lo/32) is 3.1 % wide.
 */
static size_t
bucket(uint64_t v)
{
	unsigned e = 6;

	if (v < 64)
		return (size_t)v;
	while (e < 63 && v >> (e + 1))
		e++;
	return 64 + (size_t)(e - 6) * 32 + (size_t)((v >> (e - 5)) & 31);
}

static uint64_t
bucket_lo(size_t b)
{
	if (b < 64)
		return b;
	return (uint64_t)(32 + (b - 64) % 32) << ((b - 64) / 32 + 1);
}

static void
stats_done(hm_writer *w)
{
	hm_buf *b = &w->out;
	int tok = !(w->flags & HM_WR_TEXT_INPUT);
	const char *term = w->r_term;

	w->s_records++;
	w->s_tokens += w->ntok;
	w->s_messages += w->r_msgs;
	w->s_warnings += w->nwarn;
	w->s_truncated += w->truncated != 0;
	w->s_reasoning += w->r_reason;
	if (tok) {
		w->s_hist[bucket(w->ntok)]++;
		if (!w->s_hist_any || w->ntok < w->s_min)
			w->s_min = w->ntok;
		w->s_hist_any = 1;
		if (w->ntok > w->s_max)
			w->s_max = w->ntok;
	} else
		w->s_text = 1;
	/* A record without a message has no terminator to count. */
	if (term)
		count(&w->s_term, term, strlen(term), 1);
	fields_prefix(w);
	hm_w_key(b, "tokens");
	if (tok)
		hm_buf_addu(b, w->ntok);
	else
		hm_buf_adds(b, "null");
	hm_buf_adds(b, ",\"messages\":");
	hm_buf_addu(b, w->r_msgs);
	write_counts(b, "channels", &w->r_chan);
	write_counts(b, "recipients", &w->r_rcpt);
	hm_buf_adds(b, ",\"terminator\":");
	if (term)
		hm_w_strz(b, term);
	else
		hm_buf_adds(b, "null");
	hm_buf_adds(b, ",\"warnings\":");
	hm_buf_addu(b, w->nwarn);
	hm_buf_adds(b, w->truncated ? ",\"truncated\":true" : ",\"truncated\":false");
	if (tok) {
		hm_buf_adds(b, ",\"reasoning_tokens\":");
		hm_buf_addu(b, w->r_reason);
		hm_buf_adds(b, ",\"reasoning_ratio\":");
		ratio(b, w->r_reason, w->ntok);
	}
	hm_buf_add(b, "}\n", 2);
}

/* The nearest-rank p-th percentile of tokens per record, from the histogram. */
static uint64_t
percentile(const hm_writer *w, uint64_t total, unsigned p)
{
	uint64_t rank = (total * p + 99) / 100, seen = 0, lo;
	size_t b;

	if (!rank)
		rank = 1;
	for (b = 0; b < HM_W_BUCKETS; b++)
		if ((seen += w->s_hist[b]) >= rank)
			break;
	lo = b < HM_W_BUCKETS ? bucket_lo(b) : w->s_max;
	/* The value lies in [lo, lo + lo/32), and never under the minimum. */
	return lo < w->s_min ? w->s_min : lo > w->s_max ? w->s_max : lo;
}

hm_status
hm_writer_summary(hm_writer *w)
{
	static const unsigned pct[] = { 50, 90, 99 };
	hm_buf *b = &w->out;
	int tok = !(w->flags & HM_WR_TEXT_INPUT) && !w->s_text;
	uint64_t hist_total = 0;
	size_t i;
	int any = 0;

	hm_buf_adds(b, "{\"records\":");
	hm_buf_addu(b, w->s_records);
	hm_buf_adds(b, ",\"tokens\":");
	if (tok)
		hm_buf_addu(b, w->s_tokens);
	else
		hm_buf_adds(b, "null");
	hm_buf_adds(b, ",\"messages\":");
	hm_buf_addu(b, w->s_messages);
	write_summary_counts(b, "channels", &w->s_chan);
	if (tok)
		write_summary_counts(b, "channel_tokens", &w->s_chantok);
	write_summary_counts(b, "recipients", &w->s_rcpt);
	write_summary_counts(b, "tool_calls", &w->s_calls);
	write_summary_counts(b, "terminators", &w->s_term);
	hm_buf_adds(b, ",\"warnings\":");
	hm_buf_addu(b, w->s_warnings);
	hm_buf_adds(b, ",\"recoveries\":{");
	for (i = 0; i < HM_W_CODES; i++) {
		if (!w->s_codes[i])
			continue;
		hm_buf_adds(b, any++ ? ",\"F" : "\"F");
		hm_buf_addu(b, i);
		hm_buf_add(b, "\":", 2);
		hm_buf_addu(b, w->s_codes[i]);
	}
	hm_buf_addc(b, '}');
	hm_buf_adds(b, ",\"truncated\":");
	hm_buf_addu(b, w->s_truncated);
	if (tok) {
		hm_buf_adds(b, ",\"reasoning_tokens\":");
		hm_buf_addu(b, w->s_reasoning);
		hm_buf_adds(b, ",\"reasoning_ratio\":");
		ratio(b, w->s_reasoning, w->s_tokens);
		for (i = 0; i < HM_W_BUCKETS; i++)
			hist_total += w->s_hist[i];
		if (hist_total) {
			hm_buf_adds(b, ",\"tokens_min\":");
			hm_buf_addu(b, w->s_min);
			for (i = 0; i < sizeof pct / sizeof pct[0]; i++) {
				hm_buf_adds(b, ",\"tokens_p");
				hm_buf_addu(b, pct[i]);
				hm_buf_add(b, "\":", 2);
				hm_buf_addu(b, percentile(w, hist_total, pct[i]));
			}
			hm_buf_adds(b, ",\"tokens_max\":");
			hm_buf_addu(b, w->s_max);
		}
		hm_buf_adds(b, ",\"tokens_hist\":{");
		for (i = 0, any = 0; i < HM_W_BUCKETS; i++) {
			if (!w->s_hist[i])
				continue;
			hm_buf_adds(b, any++ ? ",\"" : "\"");
			hm_buf_addu(b, bucket_lo(i));
			hm_buf_add(b, "\":", 2);
			hm_buf_addu(b, w->s_hist[i]);
		}
		hm_buf_addc(b, '}');
	}
	hm_buf_add(b, "}\n", 2);
	return b->oom ? HM_ENOMEM : HM_OK;
}

/* A count, a whole number >= 0 as JSON writes it. */
static int
as_count(const cJSON *v, uint64_t *out)
{
	double d;

	if (!cJSON_IsNumber(v))
		return 0;
	d = v->valuedouble;
	if (d < 0 || d > 9007199254740992.0 || d != (double)(uint64_t)d)
		return 0;
	*out = (uint64_t)d;
	return 1;
}

static int
merge_counts(struct hm_counts *c, const cJSON *o)
{
	const cJSON *e;
	uint64_t n;

	if (!o)
		return 1;
	if (!cJSON_IsObject(o))
		return 0;
	cJSON_ArrayForEach(e, o) {
		if (!as_count(e, &n))
			return 0;
		count(c, e->string, strlen(e->string), n);
	}
	return 1;
}

hm_status
hm_writer_merge_summary(hm_writer *w, const char *s, size_t n, const char **msg)
{
	static const struct { const char *key; size_t off; } sums[] = {
		{ "records", offsetof(hm_writer, s_records) },
		{ "messages", offsetof(hm_writer, s_messages) },
		{ "warnings", offsetof(hm_writer, s_warnings) },
		{ "truncated", offsetof(hm_writer, s_truncated) },
		{ "reasoning_tokens", offsetof(hm_writer, s_reasoning) },
	};
	cJSON *o = cJSON_ParseWithLength(s, n), *e, *t;
	uint64_t v = 0, mn = 0, mx = 0;
	int has_min;
	size_t i;

	*msg = "not a stats summary line (a JSON object with \"records\")";
	if (!cJSON_IsObject(o) || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "records")))
		goto bad;
	*msg = "a figure of the summary is not a count";
	for (i = 0; i < sizeof sums / sizeof sums[0]; i++) {
		e = cJSON_GetObjectItemCaseSensitive(o, sums[i].key);
		if (e && !cJSON_IsNull(e) && !as_count(e, &v))
			goto bad;
		if (e && !cJSON_IsNull(e))
			*(uint64_t *)((char *)w + sums[i].off) += v;
	}
	t = cJSON_GetObjectItemCaseSensitive(o, "tokens");
	if (cJSON_IsNull(t))
		w->s_text = 1;
	else if (t && as_count(t, &v))
		w->s_tokens += v;
	else if (t)
		goto bad;
	if (!merge_counts(&w->s_chan, cJSON_GetObjectItemCaseSensitive(o, "channels")) ||
	    !merge_counts(&w->s_chantok, cJSON_GetObjectItemCaseSensitive(o, "channel_tokens")) ||
	    !merge_counts(&w->s_rcpt, cJSON_GetObjectItemCaseSensitive(o, "recipients")) ||
	    !merge_counts(&w->s_calls, cJSON_GetObjectItemCaseSensitive(o, "tool_calls")) ||
	    !merge_counts(&w->s_term, cJSON_GetObjectItemCaseSensitive(o, "terminators")))
		goto bad;
	if ((t = cJSON_GetObjectItemCaseSensitive(o, "recoveries"))) {
		cJSON_ArrayForEach(e, t) {
			char *end;
			long code = e->string[0] == 'F' ? strtol(e->string + 1, &end, 10) : -1;

			if (code < 0 || code >= HM_W_CODES || *end || !as_count(e, &v))
				goto bad;
			w->s_codes[code] += v;
		}
	}
	has_min = as_count(cJSON_GetObjectItemCaseSensitive(o, "tokens_min"), &mn) &&
	    as_count(cJSON_GetObjectItemCaseSensitive(o, "tokens_max"), &mx);
	if ((t = cJSON_GetObjectItemCaseSensitive(o, "tokens_hist"))) {
		uint64_t total = 0;

		cJSON_ArrayForEach(e, t) {
			char *end;
			unsigned long long lo = strtoull(e->string, &end, 10);

			if (!*e->string || *end || !as_count(e, &v) || bucket_lo(bucket(lo)) != lo)
				goto bad;
			w->s_hist[bucket(lo)] += v;
			total += v;
		}
		if (total && !has_min)
			goto bad;
		if (total) {
			if (!w->s_hist_any || mn < w->s_min)
				w->s_min = mn;
			if (mx > w->s_max)
				w->s_max = mx;
			w->s_hist_any = 1;
		}
	}
	cJSON_Delete(o);
	return HM_OK;
bad:
	cJSON_Delete(o);
	return HM_EINPUT;
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
		w->it = v;
		w->capit = cap;
	}
	it = &w->it[w->nit];
	memset(it, 0, sizeof *it);
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
	    w->shape == HM_TO_RESPONSES_STREAM || w->shape == HM_TO_CHAT_COMPLETION;
}

static int
is_oai(const hm_writer *w)
{
	return keeps_items(w) || w->shape == HM_TO_CHAT_STREAM;
}

hm_status
hm_writer_event(hm_writer *w, const hm_event *ev)
{
	struct hm_witem *it = w->cur >= 0 ? &w->it[w->cur] : NULL;

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
		if (w->shape == HM_TO_MESSAGES) {
			if ((w->flags & HM_WR_RECORDS) && !w->nwritten && !w->began) {
				fields_prefix(w);
				hm_buf_adds(&w->out, "\"messages\":[");
				w->began = 1;
			}
			msg_start(w, it);
		} else if (w->shape == HM_TO_TEXT)
			text_start(w, it);
		else if (w->shape == HM_TO_STATS)
			stats_start(w, it);
		else
			hm_w_oai_start(w, it);
		break;
	case HM_EV_DELTA:
		if (w->skip || !it)
			break;
		if (w->shape == HM_TO_MESSAGES)
			hm_buf_json_body(&w->out, ev->text.p, ev->text.len);
		else if (w->shape == HM_TO_TEXT)
			text_body(&w->out, ev->text.p, ev->text.len);
		else if (is_oai(w)) {
			if (keeps_items(w))
				hm_buf_add(&it->text, ev->text.p, ev->text.len);
			hm_w_oai_delta(w, it, ev->text.p, ev->text.len);
		}
		break;
	case HM_EV_END:
		if (w->skip || !it) {
			w->skip = 0;
			break;
		}
		it->stop = ev->stop;
		it->at1 = ev->at;
		it->ended = 1;
		if (w->shape == HM_TO_MESSAGES)
			msg_end(w, it);
		else if (w->shape == HM_TO_TEXT)
			text_end(w, it);
		else if (w->shape == HM_TO_STATS)
			stats_end(w, it);
		else if (is_oai(w))
			hm_w_oai_end(w, it);
		w->cur = -1;
		break;
	case HM_EV_WARNING:
		w->nwarn++;
		if (ev->code >= 0 && ev->code < HM_W_CODES)
			w->s_codes[ev->code]++;
		break;
	case HM_EV_ERROR:
		break;
	case HM_EV_DONE:
		w->truncated = ev->truncated;
		w->ntok = ev->at;
		if (w->shape == HM_TO_MESSAGES && (w->flags & HM_WR_RECORDS)) {
			if (!w->began) {
				fields_prefix(w);
				hm_buf_adds(&w->out, "\"messages\":[");
			}
			hm_buf_add(&w->out, "]}\n", 3);
		} else if (w->shape == HM_TO_STATS)
			stats_done(w);
		else if (is_oai(w))
			hm_w_oai_done(w);
		items_clear(w);
		w->in_rec = 0;
		w->rec++;
		break;
	}
	return w->out.oom ? HM_ENOMEM : HM_OK;
}
