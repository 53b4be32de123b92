/*
 * writers_metrics.c - the stats summary in Prometheus' text exposition
 * format (version 0.0.4), for node_exporter's textfile collector or a
 * Pushgateway.  The figures are the summary's own (writers_stats.c counts
 * them, and merges summary lines), so the metrics of merged summaries are
 * the metrics of the whole.  Names follow Prometheus' naming guide:
 * harmony_ prefix, units in the name, _total on counters.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harmony.h"
#include "writers_int.h"

/* The histogram's upper bounds: 2^k - 1 tokens, exact on the summary's buckets. */
enum { LE_FIRST = 4, LE_LAST = 18 };

static void
family(int *nomem, hm_buf *b, const char *name, const char *type, const char *help)
{
	hm__adds(nomem, b, "# HELP ");
	hm__adds(nomem, b, name);
	hm__putc(nomem, b, ' ');
	hm__adds(nomem, b, help);
	hm__adds(nomem, b, "\n# TYPE ");
	hm__adds(nomem, b, name);
	hm__putc(nomem, b, ' ');
	hm__adds(nomem, b, type);
	hm__putc(nomem, b, '\n');
}

/* A label value: backslash, double quote and newline escaped, as the format asks. */
static void
label_value(int *nomem, hm_buf *b, const char *s)
{
	size_t start = 0, i;

	for (i = 0; s[i]; i++) {
		const char *esc = s[i] == '\\' ? "\\\\" : s[i] == '"' ? "\\\"" :
		    s[i] == '\n' ? "\\n" : NULL;

		if (!esc)
			continue;
		hm__add(nomem, b, s + start, i - start);
		hm__adds(nomem, b, esc);
		start = i + 1;
	}
	hm__add(nomem, b, s + start, i - start);
}

static void
sample(int *nomem, hm_buf *b, const char *name, const char *label, const char *value, uint64_t n)
{
	hm__adds(nomem, b, name);
	if (label) {
		hm__putc(nomem, b, '{');
		hm__adds(nomem, b, label);
		hm__adds(nomem, b, "=\"");
		label_value(nomem, b, value);
		hm__adds(nomem, b, "\"}");
	}
	hm__putc(nomem, b, ' ');
	hm__addu(nomem, b, n);
	hm__putc(nomem, b, '\n');
}

static void
counter(int *nomem, hm_buf *b, const char *name, const char *help, uint64_t n)
{
	family(nomem, b, name, "counter", help);
	sample(nomem, b, name, NULL, NULL, n);
}

/* A counter with one label, a sample per key, sorted by key. */
static void
labelled(int *nomem, hm_buf *b, const char *name, const char *label, const char *help,
         const struct hm_counts *c)
{
	const struct hm_count **v;
	size_t i;

	if (hm__w_sorted(c, &v) != HM_OK)
		*nomem = 1; /* unsorted would be other bytes: report it */
	family(nomem, b, name, "counter", help);
	for (i = 0; i < c->len; i++) {
		const struct hm_count *e = v ? v[i] : &c->v[i];

		sample(nomem, b, name, label, e->key, e->n);
	}
	free(v);
}

static void
histogram(hm_writer *w, hm_buf *b)
{
	int *nomem = &w->nomem;
	static const char name[] = "harmony_record_tokens";
	struct hm_wstats *st = hm_w_stats(w);
	uint64_t cum = 0, total = 0;
	size_t i = 0;
	unsigned k;
	char le[24];

	family(nomem, b, name, "histogram", "Tokens per record (completion).");
	for (k = LE_FIRST; k <= LE_LAST; k++) {
		uint64_t bound = ((uint64_t)1 << k) - 1;

		for (; i < HM__W_BUCKETS && hm__w_bucket_lo(i) <= bound; i++)
			cum += st->s_hist[i];
		snprintf(le, sizeof le, "%llu", (unsigned long long)bound);
		sample(nomem, b, "harmony_record_tokens_bucket", "le", le, cum);
	}
	for (i = 0; i < HM__W_BUCKETS; i++)
		total += st->s_hist[i];
	sample(nomem, b, "harmony_record_tokens_bucket", "le", "+Inf", total);
	sample(nomem, b, "harmony_record_tokens_sum", NULL, NULL, st->s_tokens);
	sample(nomem, b, "harmony_record_tokens_count", NULL, NULL, total);
}

static hm_status
metrics_summary(hm_writer *w)
{
	int *nomem = &w->nomem;
	struct hm_wstats *st = hm_w_stats(w);
	hm_buf *b = &w->out;
	int tok = !(w->flags & HM_WRITER_TEXT_INPUT) && !st->s_text;
	char code[8], num[40];
	int i;

	counter(nomem, b, "harmony_records_total", "Records (completions) parsed.", st->s_records);
	counter(nomem, b, "harmony_errors_total", "Records that could not be read (an error line each).",
	    st->s_errors);
	/* coverage unknown (a summary merged did not say): no sample, rather than a wrong one */
	if (!st->s_in_unknown) {
		counter(nomem, b, "harmony_input_lines_total", "Lines of input read.",
		    st->s_in_lines);
		counter(nomem, b, "harmony_input_bytes_total", "Bytes of input read.",
		    st->s_in_bytes);
	}
	labelled(nomem, b, "harmony_messages_total", "channel",
	    "Messages parsed, by channel (none: without a channel).", &st->s_chan);
	if (tok) {
		counter(nomem, b, "harmony_tokens_total", "Tokens of the completions parsed.",
		    st->s_tokens);
		labelled(nomem, b, "harmony_message_tokens_total", "channel",
		    "Tokens of messages, by channel, their stop token included.",
		    &st->s_chantok);
		counter(nomem, b, "harmony_reasoning_tokens_total",
		    "Tokens of reasoning: analysis, and commentary that is no function call.",
		    st->s_reasoning);
		family(nomem, b, "harmony_reasoning_ratio", "gauge",
		    "Share of the tokens that are reasoning (0 to 1).");
		snprintf(num, sizeof num, "%.6g",
		    st->s_tokens ? (double)st->s_reasoning / (double)st->s_tokens : 0.0);
		hm__adds(nomem, b, "harmony_reasoning_ratio ");
		hm__adds(nomem, b, num);
		hm__putc(nomem, b, '\n');
	}
	labelled(nomem, b, "harmony_recipient_messages_total", "recipient",
	    "Messages addressed to a recipient, by recipient.", &st->s_rcpt);
	labelled(nomem, b, "harmony_tool_calls_total", "tool",
	    "Tool calls (messages ended by <|call|>), by recipient.", &st->s_calls);
	labelled(nomem, b, "harmony_terminated_records_total", "terminator",
	    "Records by the stop token of their last message.", &st->s_term);
	counter(nomem, b, "harmony_warnings_total", "Warnings of the parser (recoveries).",
	    st->s_warnings);
	family(nomem, b, "harmony_recoveries_total", "counter",
	    "Recoveries from malformed output, by failure mode (harmony-parse(1)).");
	for (i = 0; i < HM_F_CODES; i++) {
		if (!st->s_codes[i])
			continue;
		snprintf(code, sizeof code, "F%d", i);
		sample(nomem, b, "harmony_recoveries_total", "failure_mode", code, st->s_codes[i]);
	}
	counter(nomem, b, "harmony_truncated_records_total",
	    "Records cut off inside a message or header.", st->s_truncated);
	if (st->s_answers_any) {
		static const char *const verdict[] = { "valid", "invalid", "missing" };

		family(nomem, b, "harmony_structured_answers_total", "counter",
		    "Final answers checked against a schema, by verdict.");
		for (i = 0; i < 3; i++)
			sample(nomem, b, "harmony_structured_answers_total", "verdict", verdict[i],
			    st->s_answers[i]);
	}
	if (tok)
		histogram(w, b);
	return hm__w_status(w);
}

/* stats without a line per record: the summary alone, in Prometheus' form */
const struct hm_wshape hm__w_metrics = {
	.name = "metrics",
	.flags = HM_WS_STATS,
	.size = sizeof(struct hm_wstats),
	.begin = hm__w_stats_begin,
	.start = hm__w_stats_start,
	.end = hm__w_stats_end,
	.warning = hm__w_stats_warning,
	.done = hm__w_stats_count,
	.summary = metrics_summary,
	.free = hm__w_stats_free,
};
