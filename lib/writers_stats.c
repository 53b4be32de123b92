/*
 * writers_stats.c - the stats shape: one line of counts per record, the
 * summary of a run, and the merge of summaries (every figure a sum,
 * count, minimum, maximum or histogram, so parts merge exactly).  The
 * metrics shape counts here too and writes the summary its own way
 * (writers_metrics.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harmony.h"
#include "conversation_int.h"
#include "json_val_int.h"
#include "writers_int.h"

/* Add by to key k[0..n) of c (a failure is in *nomem: the writer's). */
static void
count(int *nomem, struct hm_counts *c, const char *k, size_t n, uint64_t by)
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

		if (!v) {
			*nomem = 1;
			return;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->len].key = malloc(n + 1);
	if (!c->v[c->len].key) {
		*nomem = 1;
		return;
	}
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
hm_status
hm__w_sorted(const struct hm_counts *c, const struct hm_count ***out)
{
	const struct hm_count **v;
	size_t i;

	*out = NULL;
	if (c->len < 2)
		return HM_OK;
	if (!(v = malloc(c->len * sizeof *v)))
		return HM_ENOMEM;
	for (i = 0; i < c->len; i++)
		v[i] = &c->v[i];
	qsort(v, c->len, sizeof *v, cmp_count_key);
	*out = v;
	return HM_OK;
}

static void
write_counts_ex(int *nomem, hm_buf *b, const char *key, const struct hm_counts *c, int sorted)
{
	const struct hm_count **v = NULL;
	size_t i;

	if (sorted && hm__w_sorted(c, &v) != HM_OK)
		*nomem = 1; /* unsorted would be other bytes: report it */
	hm__putc(nomem, b, ',');
	hm__w_key(nomem, b, key);
	hm__putc(nomem, b, '{');
	for (i = 0; i < c->len; i++) {
		const struct hm_count *e = v ? v[i] : &c->v[i];

		if (i)
			hm__putc(nomem, b, ',');
		hm__w_strz(nomem, b, e->key);
		hm__putc(nomem, b, ':');
		hm__addu(nomem, b, e->n);
	}
	hm__putc(nomem, b, '}');
	free(v);
}

static void
write_counts(int *nomem, hm_buf *b, const char *key, const struct hm_counts *c)
{
	write_counts_ex(nomem, b, key, c, 0);
}

static void
write_summary_counts(int *nomem, hm_buf *b, const char *key, const struct hm_counts *c)
{
	write_counts_ex(nomem, b, key, c, 1);
}

static void
ratio(int *nomem, hm_buf *b, uint64_t a, uint64_t t)
{
	char num[32];

	snprintf(num, sizeof num, "%.4f", t ? (double)a / (double)t : 0.0);
	hm__adds(nomem, b, num);
}

/*
 * stats keeps counters, not messages: a message is counted when it starts
 * (channel, recipient) and when it ends (reasoning tokens, terminator).
 */
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
hm__w_stats_free(hm_writer *w)
{
	struct hm_wstats *st = hm_w_stats(w);

	counts_free(&st->s_chan);
	counts_free(&st->s_rcpt);
	counts_free(&st->s_term);
	counts_free(&st->s_chantok);
	counts_free(&st->s_calls);
	counts_free(&st->r_chan);
	counts_free(&st->r_rcpt);
}

void
hm__w_stats_begin(hm_writer *w)
{
	struct hm_wstats *st = hm_w_stats(w);

	st->r_msgs = st->r_reason = 0;
	st->r_term = NULL;
	counts_free(&st->r_chan);
	counts_free(&st->r_rcpt);
	st->nwarn = 0;
}

void
hm__w_stats_warning(hm_writer *w, const hm_event *ev)
{
	struct hm_wstats *st = hm_w_stats(w);

	st->nwarn++;
	if (ev->code >= 0 && ev->code < HM_F_CODES)
		st->s_codes[ev->code]++;
}

void
hm__w_stats_start(hm_writer *w, struct hm_witem *it)
{
	struct hm_wstats *st = hm_w_stats(w);
	const char *ch = it->has_chan ? it->chan.p : "none";
	size_t n = it->has_chan ? it->chan.len : 4;

	st->r_msgs++;
	count(&w->nomem, &st->r_chan, ch, n, 1);
	count(&w->nomem, &st->s_chan, ch, n, 1);
	if (it->has_rcpt) {
		count(&w->nomem, &st->r_rcpt, it->rcpt.p, it->rcpt.len, 1);
		count(&w->nomem, &st->s_rcpt, it->rcpt.p, it->rcpt.len, 1);
	}
}

void
hm__w_stats_end(hm_writer *w, struct hm_witem *it)
{
	struct hm_wstats *st = hm_w_stats(w);

	if (hm__w_reasoning(it))
		st->r_reason += hm__w_item_tokens(it);
	st->r_term = hm_stop_name(it->stop);
	if (!(w->flags & HM_WRITER_TEXT_INPUT))
		count(&w->nomem, &st->s_chantok, it->has_chan ? it->chan.p : "none",
		    it->has_chan ? it->chan.len : 4, hm__w_item_tokens(it));
	if (it->stop == HM_STOP_CALL && it->has_rcpt)
		count(&w->nomem, &st->s_calls, it->rcpt.p, it->rcpt.len, 1);
}

/*
 * Histogram buckets of tokens per record: 0..63 each its own; above, each
 * power of two split in 32, so a bucket [lo, lo + lo/32) is 3.1 % wide.
 */
size_t
hm__w_bucket(uint64_t v)
{
	unsigned e = 6;

	if (v < 64)
		return (size_t)v;
	while (e < 63 && v >> (e + 1))
		e++;
	return 64 + (size_t)(e - 6) * 32 + (size_t)((v >> (e - 5)) & 31);
}

uint64_t
hm__w_bucket_lo(size_t b)
{
	if (b < 64)
		return b;
	return (uint64_t)(32 + (b - 64) % 32) << ((b - 64) / 32 + 1);
}

/* The record ends: added to the summary (metrics writes nothing more). */
void
hm__w_stats_count(hm_writer *w)
{
	struct hm_wstats *st = hm_w_stats(w);
	int tok = !(w->flags & HM_WRITER_TEXT_INPUT);
	const char *term = st->r_term;

	st->s_records++;
	st->s_tokens += w->ntok;
	st->s_messages += st->r_msgs;
	st->s_warnings += st->nwarn;
	st->s_truncated += hm_w_cut(w) != 0;
	st->s_reasoning += st->r_reason;
	if (tok) {
		st->s_hist[hm__w_bucket(w->ntok)]++;
		if (!st->s_hist_any || w->ntok < st->s_min)
			st->s_min = w->ntok;
		st->s_hist_any = 1;
		if (w->ntok > st->s_max)
			st->s_max = w->ntok;
	} else
		st->s_text = 1;
	/* A record without a message has no terminator to count. */
	if (term)
		count(&w->nomem, &st->s_term, term, strlen(term), 1);
}

/* ... and its line. */
static void
stats_done(hm_writer *w)
{
	int *nomem = &w->nomem;
	struct hm_wstats *st = hm_w_stats(w);
	hm_buf *b = &w->out;
	int tok = !(w->flags & HM_WRITER_TEXT_INPUT);
	const char *term = st->r_term;

	hm__w_stats_count(w);
	hm__w_fields_prefix(w);
	hm__w_key(nomem, b, "tokens");
	if (tok)
		hm__addu(nomem, b, w->ntok);
	else
		hm__adds(nomem, b, "null");
	hm__adds(nomem, b, ",\"messages\":");
	hm__addu(nomem, b, st->r_msgs);
	write_counts(nomem, b, "channels", &st->r_chan);
	write_counts(nomem, b, "recipients", &st->r_rcpt);
	hm__adds(nomem, b, ",\"terminator\":");
	if (term)
		hm__w_strz(nomem, b, term);
	else
		hm__adds(nomem, b, "null");
	hm__adds(nomem, b, ",\"warnings\":");
	hm__addu(nomem, b, st->nwarn);
	hm__adds(nomem, b, hm_w_cut(w) ? ",\"truncated\":true" : ",\"truncated\":false");
	if (tok) {
		hm__adds(nomem, b, ",\"reasoning_tokens\":");
		hm__addu(nomem, b, st->r_reason);
		hm__adds(nomem, b, ",\"reasoning_ratio\":");
		ratio(nomem, b, st->r_reason, w->ntok);
	}
	hm__add(nomem, b, "}\n", 2);
}

/* The nearest-rank p-th percentile of tokens per record, from the histogram. */
static uint64_t
percentile(const hm_writer *w, uint64_t total, unsigned p)
{
	struct hm_wstats *st = hm_w_stats(w);
	uint64_t rank = (total * p + 99) / 100, seen = 0, lo;
	size_t b;

	if (!rank)
		rank = 1;
	for (b = 0; b < HM__W_BUCKETS; b++)
		if ((seen += st->s_hist[b]) >= rank)
			break;
	lo = b < HM__W_BUCKETS ? hm__w_bucket_lo(b) : st->s_max;
	/* The value lies in [lo, lo + lo/32), and never under the minimum. */
	return lo < st->s_min ? st->s_min : lo > st->s_max ? st->s_max : lo;
}

uint64_t
hm__w_percentile(const hm_writer *w, unsigned p)
{
	struct hm_wstats *st = hm_w_stats(w);
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < HM__W_BUCKETS; i++)
		total += st->s_hist[i];
	return percentile(w, total, p);
}

void
hm_writer_count_answer(hm_writer *w, int verdict)
{
	struct hm_wstats *st = hm_w_stats(w);

	if (!(w->def->flags & HM_WS_STATS) || verdict < 0 || verdict > 2)
		return;
	st->s_answers[verdict]++;
	st->s_answers_any = 1;
}

static hm_status
stats_summary(hm_writer *w)
{
	int *nomem = &w->nomem;
	static const unsigned pct[] = { 50, 90, 99 };
	struct hm_wstats *st = hm_w_stats(w);
	hm_buf *b = &w->out;
	int tok = !(w->flags & HM_WRITER_TEXT_INPUT) && !st->s_text;
	uint64_t hist_total = 0;
	size_t i;
	int any = 0;

	hm__adds(nomem, b, "{\"records\":");
	hm__addu(nomem, b, st->s_records);
	if (st->s_in_unknown)
		hm__adds(nomem, b, ",\"input_lines\":null,\"input_bytes\":null");
	else {
		hm__adds(nomem, b, ",\"input_lines\":");
		hm__addu(nomem, b, st->s_in_lines);
		hm__adds(nomem, b, ",\"input_bytes\":");
		hm__addu(nomem, b, st->s_in_bytes);
	}
	hm__adds(nomem, b, ",\"errors\":");
	hm__addu(nomem, b, st->s_errors);
	hm__adds(nomem, b, ",\"record_lines\":");
	if (st->s_rec_lines_known && !st->s_rec_lines_unknown)
		hm__addu(nomem, b, st->s_rec_lines);
	else
		hm__adds(nomem, b, "null");
	hm__adds(nomem, b, ",\"tokens\":");
	if (tok)
		hm__addu(nomem, b, st->s_tokens);
	else
		hm__adds(nomem, b, "null");
	hm__adds(nomem, b, ",\"messages\":");
	hm__addu(nomem, b, st->s_messages);
	write_summary_counts(nomem, b, "channels", &st->s_chan);
	if (tok)
		write_summary_counts(nomem, b, "channel_tokens", &st->s_chantok);
	write_summary_counts(nomem, b, "recipients", &st->s_rcpt);
	write_summary_counts(nomem, b, "tool_calls", &st->s_calls);
	write_summary_counts(nomem, b, "terminators", &st->s_term);
	hm__adds(nomem, b, ",\"warnings\":");
	hm__addu(nomem, b, st->s_warnings);
	hm__adds(nomem, b, ",\"recoveries\":{");
	for (i = 0; i < HM_F_CODES; i++) {
		if (!st->s_codes[i])
			continue;
		hm__adds(nomem, b, any++ ? ",\"F" : "\"F");
		hm__addu(nomem, b, i);
		hm__add(nomem, b, "\":", 2);
		hm__addu(nomem, b, st->s_codes[i]);
	}
	hm__putc(nomem, b, '}');
	hm__adds(nomem, b, ",\"truncated\":");
	hm__addu(nomem, b, st->s_truncated);
	if (st->s_answers_any) {
		hm__adds(nomem, b, ",\"structured_answers\":{\"valid\":");
		hm__addu(nomem, b, st->s_answers[0]);
		hm__adds(nomem, b, ",\"invalid\":");
		hm__addu(nomem, b, st->s_answers[1]);
		hm__adds(nomem, b, ",\"missing\":");
		hm__addu(nomem, b, st->s_answers[2]);
		hm__putc(nomem, b, '}');
	}
	if (tok) {
		hm__adds(nomem, b, ",\"reasoning_tokens\":");
		hm__addu(nomem, b, st->s_reasoning);
		hm__adds(nomem, b, ",\"reasoning_ratio\":");
		ratio(nomem, b, st->s_reasoning, st->s_tokens);
		for (i = 0; i < HM__W_BUCKETS; i++)
			hist_total += st->s_hist[i];
		if (hist_total) {
			hm__adds(nomem, b, ",\"tokens_min\":");
			hm__addu(nomem, b, st->s_min);
			for (i = 0; i < sizeof pct / sizeof pct[0]; i++) {
				hm__adds(nomem, b, ",\"tokens_p");
				hm__addu(nomem, b, pct[i]);
				hm__add(nomem, b, "\":", 2);
				hm__addu(nomem, b, percentile(w, hist_total, pct[i]));
			}
			hm__adds(nomem, b, ",\"tokens_max\":");
			hm__addu(nomem, b, st->s_max);
		}
		hm__adds(nomem, b, ",\"tokens_hist\":{");
		for (i = 0, any = 0; i < HM__W_BUCKETS; i++) {
			if (!st->s_hist[i])
				continue;
			hm__adds(nomem, b, any++ ? ",\"" : "\"");
			hm__addu(nomem, b, hm__w_bucket_lo(i));
			hm__add(nomem, b, "\":", 2);
			hm__addu(nomem, b, st->s_hist[i]);
		}
		hm__putc(nomem, b, '}');
	}
	hm__add(nomem, b, "}\n", 2);
	return hm__w_status(w);
}

/*
 * A count, a whole number >= 0 as JSON writes it.  Up to 2^53 a double
 * holds it (1e3 and 1000.0 are counts, as always); past it the digits
 * as written are read exactly, up to 2^64 - 1, so that sums of big logs
 * merge to the count (the bytes were read with HM_JV_NUMTEXT).
 */
static int
as_count(const hm_jv *v, uint64_t *out)
{
	double d;
	uint64_t u = 0;
	size_t i;

	if (!hm__jv_is(v, HM_JV_NUMBER))
		return 0;
	d = v->num;
	if (d >= 0 && d < 9007199254740992.0 && d == (double)(uint64_t)d) {
		*out = (uint64_t)d;
		return 1;
	}
	if (!v->s || !v->len || d < 0)
		return 0;
	for (i = 0; i < v->len; i++) {
		unsigned c = (unsigned char)v->s[i] - '0';

		if (c > 9 || u > (UINT64_MAX - c) / 10)
			return 0;
		u = u * 10 + c;
	}
	*out = u;
	return 1;
}

/*
 * A map of counts: check it (apply 0) or add it (apply 1).  A check that
 * passed lets the add go through whole.
 */
static int
merge_counts(hm_writer *w, struct hm_counts *c, const hm_jv *o, int apply)
{
	uint64_t n;
	size_t i;

	if (!o)
		return 1;
	if (o->type != HM_JV_OBJECT)
		return 0;
	for (i = 0; i < o->n; i++) {
		if (!as_count(o->v[i], &n))
			return 0;
		if (apply)
			count(&w->nomem, c, o->k[i], o->klen[i], n);
	}
	return 1;
}

/* A member given as null, which a summary line says as absent. */
static int
is_null(const hm_jv *v)
{
	return hm__jv_is(v, HM_JV_NULL);
}

/*
 * One pass over a summary line o: with apply 0 it only checks, with
 * apply 1 it adds.  Both passes take the same steps, so a line that
 * passed the check is added whole, and one that failed added nothing.
 * 0 with *why set: the line is not a summary.
 */
static int
merge_pass(hm_writer *w, const hm_jv *o, int apply, const char **why)
{
	static const struct { const char *key; size_t off; } sums[] = {
		{ "records", offsetof(struct hm_wstats, s_records) },
		{ "errors", offsetof(struct hm_wstats, s_errors) },
		{ "messages", offsetof(struct hm_wstats, s_messages) },
		{ "warnings", offsetof(struct hm_wstats, s_warnings) },
		{ "truncated", offsetof(struct hm_wstats, s_truncated) },
		{ "reasoning_tokens", offsetof(struct hm_wstats, s_reasoning) },
	};
	struct hm_wstats *st = hm_w_stats(w);
	const hm_jv *e, *t, *il, *ib;
	uint64_t v = 0, mn = 0, mx = 0, lines = 0, bytes = 0, total = 0, rl = 0;
	int has_min;
	size_t i;

	*why = "not a stats summary line (a JSON object with \"records\")";
	if (!hm__jv_is(o, HM_JV_OBJECT) || !hm__jv_is(hm__jv_first(o, "records"), HM_JV_NUMBER))
		return 0;
	*why = "a figure of the summary is not a count";
	for (i = 0; i < sizeof sums / sizeof sums[0]; i++) {
		e = hm__jv_first(o, sums[i].key);
		if (!e || is_null(e))
			continue;
		if (!as_count(e, &v))
			return 0;
		if (apply)
			*(uint64_t *)((char *)st + sums[i].off) += v;
	}
	/* input_lines and input_bytes: both counts, or both absent or null (unknown) */
	il = hm__jv_first(o, "input_lines");
	ib = hm__jv_first(o, "input_bytes");
	if ((il && !is_null(il) && !as_count(il, &lines)) ||
	    (ib && !is_null(ib) && !as_count(ib, &bytes)))
		return 0;
	if ((!il || is_null(il)) != (!ib || is_null(ib))) {
		*why = "input_lines and input_bytes: one is given, the other not";
		return 0;
	}
	/* record_lines: a count, or absent or null (not counted: no check) */
	e = hm__jv_first(o, "record_lines");
	if (e && !is_null(e) && !as_count(e, &rl))
		return 0;
	if (apply) {
		if (!e || is_null(e))
			st->s_rec_lines_unknown = 1;
		else {
			st->s_rec_lines_known = 1;
			st->s_rec_lines += rl;
		}
	}
	t = hm__jv_first(o, "tokens");
	if (t && !is_null(t) && !as_count(t, &v))
		return 0;
	if (apply) {
		if (!il || is_null(il))
			st->s_in_unknown = 1;
		st->s_in_lines += lines;
		st->s_in_bytes += bytes;
		if (is_null(t))
			st->s_text = 1;
		else if (t)
			st->s_tokens += v;
	}
	if (!merge_counts(w, &st->s_chan, hm__jv_first(o, "channels"), apply) ||
	    !merge_counts(w, &st->s_chantok, hm__jv_first(o, "channel_tokens"), apply) ||
	    !merge_counts(w, &st->s_rcpt, hm__jv_first(o, "recipients"), apply) ||
	    !merge_counts(w, &st->s_calls, hm__jv_first(o, "tool_calls"), apply) ||
	    !merge_counts(w, &st->s_term, hm__jv_first(o, "terminators"), apply))
		return 0;
	if ((t = hm__jv_first(o, "structured_answers"))) {
		static const char *const verdict[] = { "valid", "invalid", "missing" };

		if (t->type != HM_JV_OBJECT)
			return 0;
		for (i = 0; i < 3; i++) {
			e = hm__jv_first(t, verdict[i]);
			if (e && !as_count(e, &v))
				return 0;
			if (e && apply)
				st->s_answers[i] += v;
		}
		if (apply)
			st->s_answers_any = 1;
	}
	if ((t = hm__jv_first(o, "recoveries"))) {
		if (t->type != HM_JV_OBJECT)
			return 0;
		for (i = 0; i < t->n; i++) {
			const char *key = t->k[i];
			char *end;
			long code = key[0] == 'F' ? strtol(key + 1, &end, 10) : -1;

			e = t->v[i];
			if (code < 0 || code >= HM_F_CODES || *end || !as_count(e, &v))
				return 0;
			if (apply)
				st->s_codes[code] += v;
		}
	}
	has_min = as_count(hm__jv_first(o, "tokens_min"), &mn) &&
	    as_count(hm__jv_first(o, "tokens_max"), &mx);
	if ((t = hm__jv_first(o, "tokens_hist"))) {
		if (t->type != HM_JV_OBJECT)
			return 0;
		for (i = 0; i < t->n; i++) {
			const char *key = t->k[i];
			char *end;
			unsigned long long lo = strtoull(key, &end, 10);

			e = t->v[i];
			if (!*key || *end || !as_count(e, &v) || hm__w_bucket_lo(hm__w_bucket(lo)) != lo)
				return 0;
			if (apply)
				st->s_hist[hm__w_bucket(lo)] += v;
			total += v;
		}
		if (total && !has_min)
			return 0;
		if (total && apply) {
			if (!st->s_hist_any || mn < st->s_min)
				st->s_min = mn;
			if (mx > st->s_max)
				st->s_max = mx;
			st->s_hist_any = 1;
		}
	}
	return 1;
}

hm_status
hm_writer_merge_summary(hm_writer *w, const char *s, size_t n, hm_error *err)
{
	char msg[8];
	hm_jv *o;
	const char *why;

	if (!(w->def->flags & HM_WS_STATS)) {
		hm__seterr(err, "the %s shape has no summary", w->def->name);
		return HM_EINPUT;
	}
	/* the lenient grammar summary lines have always been read with */
	if (hm__jv_read(s, n, NULL, 0, HM_JV_LAX | HM_JV_NUMTEXT, &o, msg, sizeof msg, NULL) ==
	    HM_ENOMEM)
		return w->nomem = 1, HM_ENOMEM;
	if (!merge_pass(w, o, 0, &why)) {
		hm__jv_free(o);
		hm__seterr(err, "%s", why);
		return HM_EINPUT;
	}
	merge_pass(w, o, 1, &why);
	hm__jv_free(o);
	return hm__w_status(w);
}

void
hm_writer_add_input(hm_writer *w, uint64_t lines, uint64_t bytes)
{
	struct hm_wstats *st = hm_w_stats(w);

	if (!(w->def->flags & HM_WS_STATS))
		return;
	st->s_in_lines += lines;
	st->s_in_bytes += bytes;
}

int
hm_writer_input(const hm_writer *w, uint64_t *lines, uint64_t *bytes)
{
	struct hm_wstats *st = hm_w_stats(w);

	if (!(w->def->flags & HM_WS_STATS)) {
		*lines = *bytes = 0;
		return 1;
	}
	*lines = st->s_in_lines;
	*bytes = st->s_in_bytes;
	return !st->s_in_unknown;
}

void
hm_writer_add_errors(hm_writer *w, uint64_t errors)
{
	if (w->def->flags & HM_WS_STATS)
		hm_w_stats(w)->s_errors += errors;
}

void
hm_writer_add_record_lines(hm_writer *w, uint64_t lines)
{
	struct hm_wstats *st = hm_w_stats(w);

	if (!(w->def->flags & HM_WS_STATS))
		return;
	st->s_rec_lines += lines;
	st->s_rec_lines_known = 1;
}

int
hm_writer_record_lines(const hm_writer *w, uint64_t *lines)
{
	struct hm_wstats *st = hm_w_stats(w);

	*lines = 0;
	if (!(w->def->flags & HM_WS_STATS) || !st->s_rec_lines_known ||
	    st->s_rec_lines_unknown)
		return 0;
	*lines = st->s_rec_lines;
	return 1;
}

static const struct hm_wkey stats_keys[] = {
	HM__W_KEY("tokens"), HM__W_KEY("channels"), HM__W_KEY("messages"),
	HM__W_KEY("warnings"), HM__W_KEY("truncated"), HM__W_KEY("recipients"),
	HM__W_KEY("terminator"), HM__W_KEY("reasoning_ratio"),
	HM__W_KEY("reasoning_tokens"), { 0, NULL },
};

const struct hm_wshape hm__w_stats = {
	.name = "stats",
	.keys = stats_keys,
	.flags = HM_WS_STATS,
	.size = sizeof(struct hm_wstats),
	.begin = hm__w_stats_begin,
	.start = hm__w_stats_start,
	.end = hm__w_stats_end,
	.warning = hm__w_stats_warning,
	.done = stats_done,
	.summary = stats_summary,
	.free = hm__w_stats_free,
};
