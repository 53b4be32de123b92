/*
 * writers_report.c - the stats summary as one HTML page to look at: each
 * figure an inline SVG chart with a table of its numbers beside it.  The
 * figures are the summary's own (writers_stats.c counts them, and merges
 * summary lines), so the page of merged summaries is the page of the
 * whole.  The page needs nothing else: no script, no font, no request
 * (its Content-Security-Policy forbids them), and it opens from file://.
 *
 * Every number the page shows is also in a data-n attribute, and each
 * table says which summary member it shows (data-figure, each row's
 * data-key), so a program can read the page back and check it against
 * the summary line: the browser tests do.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harmony.h"
#include "writers_int.h"

/* The bins of tokens per record (bin_of). */
enum { NBINS = 4 + 62 * 4 };

/* The chart's geometry, in SVG user units. */
enum { BAR_W = 360, ROW_H = 22, LABEL_W = 130, HIST_H = 160, HIST_W = 480 };

/* One row of a chart and its table: a label, its summary key and a number. */
struct row {
	const char *label; /* shown (NUL-terminated) */
	const char *key;   /* data-key: the summary's member */
	uint64_t n;
};

/* Text for HTML (an element's text or a double-quoted attribute; not UTF-8 as U+FFFD). */
static void
esc(hm_buf *b, const char *s)
{
	hm_html_escape(b, s, strlen(s));
}

/* At most max bytes of s, cut at a character's start, "..." when cut. */
static void
esc_short(hm_buf *b, const char *s, size_t max)
{
	size_t n = strlen(s);
	char tmp[64];

	if (n <= max) {
		esc(b, s);
		return;
	}
	n = max - 1;
	while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	esc(b, tmp);
	hm_buf_adds(b, "\xE2\x80\xA6"); /* U+2026 */
}

static void
num(hm_buf *b, uint64_t n)
{
	hm_buf_addu(b, n);
}

/* A number as a table cell: the text, and the same in data-n. */
static void
cell(hm_buf *b, uint64_t n)
{
	hm_buf_adds(b, "<td data-n=\"");
	num(b, n);
	hm_buf_adds(b, "\">");
	num(b, n);
	hm_buf_adds(b, "</td>");
}

/* A table row: its key (data-key), its label and its number. */
static void
row(hm_buf *b, const char *key, const char *label, uint64_t n)
{
	hm_buf_adds(b, "<tr data-key=\"");
	esc(b, key);
	hm_buf_adds(b, "\"><th scope=\"row\">");
	esc(b, label);
	hm_buf_adds(b, "</th>");
	cell(b, n);
	hm_buf_adds(b, "</tr>\n");
}

static void
fixed(hm_buf *b, const char *fmt, double v)
{
	char s[40];

	snprintf(s, sizeof s, fmt, v);
	hm_buf_adds(b, s);
}

static const char style[] =
"body{font:15px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:64em;"
"padding:0 1em;color:#1a1a1a;background:#fff}"
"h1{font-size:1.5em}h2{font-size:1.15em;margin:1.6em 0 .5em;"
"border-bottom:1px solid #ccc}"
".fig{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}"
"svg{max-width:100%;height:auto}"
"svg text{font:11px system-ui,sans-serif;fill:#1a1a1a}"
".bar{fill:#3b6ea8}.alt{fill:#d08a2c}.pct{stroke:#1a1a1a;stroke-dasharray:4 3}"
".axis{stroke:#888}"
"table{border-collapse:collapse}th,td{padding:.15em .6em;text-align:left}"
"td[data-n]{text-align:right;font-variant-numeric:tabular-nums}"
"thead th{border-bottom:1px solid #888}caption{text-align:left;font-weight:600}"
".none{color:#555;font-style:italic}";

static void
page_head(hm_buf *b)
{
	hm_buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	    "style-src 'unsafe-inline'\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	    "<title>Harmony log report</title>\n<style>");
	hm_buf_adds(b, style);
	hm_buf_adds(b, "</style>\n</head>\n<body>\n<h1>Harmony log report</h1>\n");
}

static void
section(hm_buf *b, const char *id, const char *title)
{
	hm_buf_adds(b, "<section id=\"");
	hm_buf_adds(b, id);
	hm_buf_adds(b, "\">\n<h2>");
	hm_buf_adds(b, title);
	hm_buf_adds(b, "</h2>\n");
}

/*
 * Horizontal bars, one a row, scaled to the largest, each with its label
 * and number written beside it (the colour says nothing the text does
 * not); then the table of the same rows.  alt: the second bar in the
 * other colour (a share: one part against the rest).
 */
static void
bars(hm_buf *b, const char *figure, const char *title, const char *keyhead,
     const struct row *r, size_t n, int alt)
{
	uint64_t max = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].n > max)
			max = r[i].n;
	hm_buf_adds(b, "<div class=\"fig\">\n");
	if (!n) {
		hm_buf_adds(b, "<p class=\"none\">none</p>\n");
	} else {
		hm_buf_adds(b, "<svg role=\"img\" data-chart=\"");
		hm_buf_adds(b, figure);
		hm_buf_adds(b, "\" viewBox=\"0 0 ");
		num(b, LABEL_W + BAR_W + 70);
		hm_buf_addc(b, ' ');
		num(b, n * ROW_H + 4);
		hm_buf_adds(b, "\" width=\"");
		num(b, LABEL_W + BAR_W + 70);
		hm_buf_adds(b, "\" height=\"");
		num(b, n * ROW_H + 4);
		hm_buf_adds(b, "\"><title>");
		esc(b, title);
		hm_buf_adds(b, "</title>\n");
		for (i = 0; i < n; i++) {
			uint64_t w = max ? (uint64_t)((double)r[i].n * BAR_W / (double)max + 0.5) : 0;
			size_t y = i * ROW_H + 2;

			if (r[i].n && !w)
				w = 1; /* a count is never drawn as nothing */
			hm_buf_adds(b, "<g><title>");
			esc(b, r[i].label);
			hm_buf_adds(b, ": ");
			num(b, r[i].n);
			hm_buf_adds(b, "</title><text x=\"");
			num(b, LABEL_W - 6);
			hm_buf_adds(b, "\" y=\"");
			num(b, y + 15);
			hm_buf_adds(b, "\" text-anchor=\"end\">");
			esc_short(b, r[i].label, 20);
			hm_buf_adds(b, "</text><rect class=\"");
			hm_buf_adds(b, alt && i == 1 ? "alt" : "bar");
			hm_buf_adds(b, "\" data-n=\"");
			num(b, r[i].n);
			hm_buf_adds(b, "\" x=\"");
			num(b, LABEL_W);
			hm_buf_adds(b, "\" y=\"");
			num(b, y + 2);
			hm_buf_adds(b, "\" width=\"");
			num(b, w);
			hm_buf_adds(b, "\" height=\"");
			num(b, ROW_H - 6);
			hm_buf_adds(b, "\"/><text x=\"");
			num(b, LABEL_W + w + 5);
			hm_buf_adds(b, "\" y=\"");
			num(b, y + 15);
			hm_buf_adds(b, "\">");
			num(b, r[i].n);
			hm_buf_adds(b, "</text></g>\n");
		}
		hm_buf_adds(b, "</svg>\n");
	}
	hm_buf_adds(b, "<table data-figure=\"");
	hm_buf_adds(b, figure);
	hm_buf_adds(b, "\"><caption>");
	esc(b, title);
	hm_buf_adds(b, "</caption>\n<thead><tr><th scope=\"col\">");
	hm_buf_adds(b, keyhead);
	hm_buf_adds(b, "</th><th scope=\"col\">count</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < n; i++)
		row(b, r[i].key, r[i].label, r[i].n);
	hm_buf_adds(b, "</tbody></table>\n</div>\n");
}

/* The rows of a map of counts, sorted by key (as the summary line has them). */
static struct row *
count_rows(hm_buf *b, const struct hm_counts *c, size_t *n)
{
	const struct hm_count **v = hm__w_sorted(c);
	struct row *r = malloc((c->len ? c->len : 1) * sizeof *r);
	size_t i;

	*n = 0;
	if (!r || (c->len >= 2 && !v)) {
		b->oom = 1;
		free(r);
		free(v);
		return NULL;
	}
	for (i = 0; i < c->len; i++) {
		const struct hm_count *e = v ? v[i] : &c->v[i];

		r[i].label = r[i].key = e->key;
		r[i].n = e->n;
	}
	*n = c->len;
	free(v);
	return r;
}

static void
count_chart(hm_buf *b, const char *figure, const char *title, const char *keyhead,
            const struct hm_counts *c)
{
	size_t n;
	struct row *r = count_rows(b, c, &n);

	if (r)
		bars(b, figure, title, keyhead, r, n, 0);
	free(r);
}

/*
 * Tokens per record are shown in bins of a quarter of a power of two:
 * 0, 1, 2, 3, 4, 5, 6, 7, 8-9, 10-11 ... 64-79, 80-95 ...  The summary's
 * buckets (hm__w_bucket) are finer and never straddle a bin, so each bin
 * is the exact sum of its buckets.
 */
static unsigned
bin_of(uint64_t v)
{
	unsigned e = 2;

	if (v < 4)
		return (unsigned)v;
	while (v >> (e + 1))
		e++;
	return 4 + (e - 2) * 4 + (unsigned)((v >> (e - 2)) & 3);
}

static uint64_t
bin_lo(unsigned k)
{
	if (k < 4)
		return k;
	return (uint64_t)(4 + (k - 4) % 4) << ((k - 4) / 4);
}

static uint64_t
bin_hi(unsigned k)
{
	return k + 1 >= NBINS ? UINT64_MAX : bin_lo(k + 1) - 1;
}

/* A bin's name, its data-key: "0", "1", "2-3" ... */
static void
bin_name(hm_buf *b, unsigned k)
{
	num(b, bin_lo(k));
	if (bin_hi(k) > bin_lo(k)) {
		hm_buf_addc(b, '-');
		num(b, bin_hi(k));
	}
}

/* A bound for the axis: 512, 4k, 2M ... */
static void
short_num(hm_buf *b, uint64_t v)
{
	if (v >= 1u << 20 && !(v % (1u << 20))) {
		num(b, v >> 20);
		hm_buf_addc(b, 'M');
	} else if (v >= 1024 && !(v % 1024)) {
		num(b, v >> 10);
		hm_buf_addc(b, 'k');
	} else {
		num(b, v);
	}
}

/* Where value v falls on the histogram's axis, from the first bin shown. */
static double
bin_x(uint64_t v, unsigned first)
{
	unsigned k = bin_of(v);
	double span = (double)(bin_hi(k) - bin_lo(k)) + 1.0;

	return (double)(k - first) + ((double)(v - bin_lo(k)) + 0.5) / span;
}

/* Tokens per record: columns by bin, the percentiles marked on them, and their tables. */
static void
histogram(hm_writer *w, hm_buf *b)
{
	static const unsigned pct[] = { 50, 90, 99 };
	struct hm_wstats *st = hm_w_stats(w);
	uint64_t bins[NBINS] = { 0 }, max = 0, total = 0, v;
	unsigned first = NBINS, last = 0, k, i;
	size_t col;
	double x;

	for (size_t j = 0; j < HM__W_BUCKETS; j++) {
		if (!st->s_hist[j])
			continue;
		k = bin_of(hm__w_bucket_lo(j));
		bins[k] += st->s_hist[j];
		total += st->s_hist[j];
		first = k < first ? k : first;
		last = k > last ? k : last;
	}
	hm_buf_adds(b, "<div class=\"fig\">\n");
	if (!total) {
		hm_buf_adds(b, "<p class=\"none\">no records</p>\n</div>\n");
		return;
	}
	for (k = first; k <= last; k++)
		max = bins[k] > max ? bins[k] : max;
	/* columns of 12 to 40 units, the chart about HIST_W wide */
	col = HIST_W / (last - first + 1);
	col = col < 12 ? 12 : col > 40 ? 40 : col;
	hm_buf_adds(b, "<svg role=\"img\" data-chart=\"tokens_bins\" viewBox=\"0 0 ");
	num(b, 50 + (last - first + 1) * col + 20);
	hm_buf_addc(b, ' ');
	num(b, HIST_H + 70);
	hm_buf_adds(b, "\" width=\"");
	num(b, 50 + (last - first + 1) * col + 20);
	hm_buf_adds(b, "\" height=\"");
	num(b, HIST_H + 70);
	hm_buf_adds(b, "\"><title>Records by tokens per record (four bins to each power of two), "
	    "with the 50th, 90th and 99th percentiles marked</title>\n");
	hm_buf_adds(b, "<line class=\"axis\" x1=\"50\" y1=\"");
	num(b, HIST_H + 20);
	hm_buf_adds(b, "\" x2=\"");
	num(b, 50 + (last - first + 1) * col);
	hm_buf_adds(b, "\" y2=\"");
	num(b, HIST_H + 20);
	hm_buf_adds(b, "\"/>\n<text x=\"44\" y=\"24\" text-anchor=\"end\">");
	num(b, max);
	hm_buf_adds(b, "</text><text x=\"44\" y=\"");
	num(b, HIST_H + 20);
	hm_buf_adds(b, "\" text-anchor=\"end\">0</text><text x=\"44\" y=\"");
	num(b, HIST_H / 2 + 24);
	hm_buf_adds(b, "\" text-anchor=\"end\">records</text>\n");
	for (k = first; k <= last; k++) {
		uint64_t h = (uint64_t)((double)bins[k] * HIST_H / (double)max + 0.5);
		size_t x0 = 50 + (k - first) * col;

		if (bins[k] && !h)
			h = 1;
		hm_buf_adds(b, "<g><title>");
		bin_name(b, k);
		hm_buf_adds(b, " tokens: ");
		num(b, bins[k]);
		hm_buf_adds(b, bins[k] == 1 ? " record" : " records");
		hm_buf_adds(b, "</title><rect class=\"bar\" data-n=\"");
		num(b, bins[k]);
		hm_buf_adds(b, "\" x=\"");
		num(b, x0 + 2);
		hm_buf_adds(b, "\" y=\"");
		num(b, HIST_H + 20 - h);
		hm_buf_adds(b, "\" width=\"");
		num(b, col - 4);
		hm_buf_adds(b, "\" height=\"");
		num(b, h);
		hm_buf_adds(b, "\"/>");
		/* the bounds at each power of two (a column's own are in its title) */
		if (k == first || k < 4 || (k - 4) % 4 == 0) {
			hm_buf_adds(b, "<line class=\"axis\" x1=\"");
			num(b, x0);
			hm_buf_adds(b, "\" y1=\"");
			num(b, HIST_H + 20);
			hm_buf_adds(b, "\" x2=\"");
			num(b, x0);
			hm_buf_adds(b, "\" y2=\"");
			num(b, HIST_H + 25);
			hm_buf_adds(b, "\"/><text x=\"");
			num(b, x0);
			hm_buf_adds(b, "\" y=\"");
			num(b, HIST_H + 36);
			hm_buf_adds(b, "\" text-anchor=\"middle\">");
			short_num(b, bin_lo(k));
			hm_buf_adds(b, "</text>");
		}
		hm_buf_adds(b, "</g>\n");
	}
	hm_buf_adds(b, "<text x=\"50\" y=\"");
	num(b, HIST_H + 52);
	hm_buf_adds(b, "\">tokens per record (log scale)</text>\n");
	for (i = 0; i < sizeof pct / sizeof pct[0]; i++) {
		v = hm__w_percentile(w, pct[i]);
		x = 50 + bin_x(v, first) * col;
		hm_buf_adds(b, "<g><title>");
		hm_buf_addu(b, pct[i]);
		hm_buf_adds(b, "th percentile: ");
		num(b, v);
		hm_buf_adds(b, " tokens</title><line class=\"pct\" x1=\"");
		fixed(b, "%.1f", x);
		hm_buf_adds(b, "\" y1=\"");
		num(b, 6 + 12 * i);
		hm_buf_adds(b, "\" x2=\"");
		fixed(b, "%.1f", x);
		hm_buf_adds(b, "\" y2=\"");
		num(b, HIST_H + 20);
		hm_buf_adds(b, "\"/><text x=\"");
		fixed(b, "%.1f", x + 3);
		hm_buf_adds(b, "\" y=\"");
		num(b, 14 + 12 * i);
		hm_buf_adds(b, "\">p");
		hm_buf_addu(b, pct[i]);
		hm_buf_adds(b, "</text></g>\n");
	}
	hm_buf_adds(b, "</svg>\n<table data-figure=\"tokens_bins\"><caption>Records by tokens"
	    "</caption>\n<thead><tr><th scope=\"col\">tokens</th><th scope=\"col\">records</th>"
	    "</tr></thead>\n<tbody>\n");
	for (k = first; k <= last; k++) {
		hm_buf_adds(b, "<tr data-key=\"");
		bin_name(b, k);
		hm_buf_adds(b, "\"><th scope=\"row\">");
		bin_name(b, k);
		hm_buf_adds(b, "</th>");
		cell(b, bins[k]);
		hm_buf_adds(b, "</tr>\n");
	}
	hm_buf_adds(b, "</tbody></table>\n<table data-figure=\"percentiles\"><caption>Tokens per "
	    "record</caption>\n<tbody>\n<tr data-key=\"tokens_min\"><th scope=\"row\">minimum</th>");
	cell(b, st->s_min);
	hm_buf_adds(b, "</tr>\n");
	for (i = 0; i < sizeof pct / sizeof pct[0]; i++) {
		hm_buf_adds(b, "<tr data-key=\"tokens_p");
		hm_buf_addu(b, pct[i]);
		hm_buf_adds(b, "\"><th scope=\"row\">");
		hm_buf_addu(b, pct[i]);
		hm_buf_adds(b, "th percentile</th>");
		cell(b, hm__w_percentile(w, pct[i]));
		hm_buf_adds(b, "</tr>\n");
	}
	hm_buf_adds(b, "<tr data-key=\"tokens_max\"><th scope=\"row\">maximum</th>");
	cell(b, st->s_max);
	hm_buf_adds(b, "</tr>\n</tbody></table>\n</div>\n");
}

/* The run in figures: records, input, tokens, messages ... */
static void
overview(hm_writer *w, hm_buf *b, int tok)
{
	struct hm_wstats *st = hm_w_stats(w);
	struct row r[] = {
		{ "records", "records", st->s_records },
		{ "input lines", "input_lines", st->s_in_lines },
		{ "input bytes", "input_bytes", st->s_in_bytes },
		{ "tokens", "tokens", st->s_tokens },
		{ "messages", "messages", st->s_messages },
		{ "warnings", "warnings", st->s_warnings },
		{ "truncated records", "truncated", st->s_truncated },
	};
	size_t i;

	hm_buf_adds(b, "<table data-figure=\"overview\"><caption>The log</caption>\n<tbody>\n");
	for (i = 0; i < sizeof r / sizeof r[0]; i++) {
		if ((st->s_in_unknown && (i == 1 || i == 2)) || (!tok && i == 3))
			continue; /* not known: not shown */
		row(b, r[i].key, r[i].label, r[i].n);
	}
	hm_buf_adds(b, "</tbody></table>\n");
	if (st->s_in_unknown)
		hm_buf_adds(b, "<p class=\"none\">How much input the log held is not known: a "
		    "summary merged did not say.</p>\n");
	if (!tok)
		hm_buf_adds(b, "<p class=\"none\">The records were text: no token counts.</p>\n");
}

/* The reasoning's share of the tokens: two bars, and the ratio as the summary writes it. */
static void
reasoning(hm_writer *w, hm_buf *b)
{
	struct hm_wstats *st = hm_w_stats(w);
	struct row r[2] = {
		{ "reasoning", "reasoning_tokens", st->s_reasoning },
		{ "other", "other_tokens", st->s_tokens - st->s_reasoning },
	};
	double ratio = st->s_tokens ? (double)st->s_reasoning / (double)st->s_tokens : 0.0;

	hm_buf_adds(b, "<h3>Reasoning share</h3>\n");
	bars(b, "reasoning", "Reasoning tokens against the rest", "tokens", r, 2, 1);
	hm_buf_adds(b, "<p data-figure=\"reasoning_ratio\" data-n=\"");
	fixed(b, "%.4f", ratio);
	hm_buf_adds(b, "\">Reasoning (analysis, and commentary that is no function call) is ");
	fixed(b, "%.1f", 100 * ratio);
	hm_buf_adds(b, " % of the tokens (ratio ");
	fixed(b, "%.4f", ratio);
	hm_buf_adds(b, ").</p>\n");
}

static void
recoveries(hm_writer *w, hm_buf *b)
{
	struct hm_wstats *st = hm_w_stats(w);
	struct row r[HM_F_CODES];
	size_t n = 0;
	int i;

	for (i = 0; i < HM_F_CODES; i++) {
		if (!st->s_codes[i])
			continue;
		r[n].label = r[n].key = hm_failure_name((hm_failure)i);
		r[n++].n = st->s_codes[i];
	}
	bars(b, "recoveries", "Recoveries by failure mode (harmony-parse(1))", "failure mode",
	    r, n, 0);
}

static hm_status
report_summary(hm_writer *w)
{
	struct hm_wstats *st = hm_w_stats(w);
	hm_buf *b = &w->out;
	int tok = !(w->flags & HM_WRITER_TEXT_INPUT) && !st->s_text;

	page_head(b);
	overview(w, b, tok);
	if (tok) {
		section(b, "tokens-per-record", "Tokens per record");
		histogram(w, b);
		hm_buf_adds(b, "</section>\n");
		section(b, "channel-tokens", "Tokens by channel");
		count_chart(b, "channel_tokens", "Tokens of messages by channel, stop tokens "
		    "included", "channel", &st->s_chantok);
		reasoning(w, b);
		hm_buf_adds(b, "</section>\n");
	}
	section(b, "messages", "Messages");
	count_chart(b, "channels", "Messages by channel (none: without a channel)", "channel",
	    &st->s_chan);
	count_chart(b, "recipients", "Messages by recipient", "recipient", &st->s_rcpt);
	hm_buf_adds(b, "</section>\n");
	section(b, "tool-calls", "Tool calls");
	count_chart(b, "tool_calls", "Tool calls (messages ended by <|call|>) by name",
	    "tool", &st->s_calls);
	hm_buf_adds(b, "</section>\n");
	section(b, "terminators", "Terminators");
	count_chart(b, "terminators", "Records by the stop token of their last message",
	    "stop token", &st->s_term);
	hm_buf_adds(b, "</section>\n");
	section(b, "recoveries", "Recoveries");
	recoveries(w, b);
	hm_buf_adds(b, "</section>\n");
	section(b, "truncated", "Truncated records");
	{
		struct row r[2] = {
			{ "truncated", "truncated", st->s_truncated },
			{ "whole", "whole", st->s_records - st->s_truncated },
		};

		bars(b, "truncation", "Records cut off inside a message or header, against "
		    "the rest", "records", r, 2, 1);
	}
	hm_buf_adds(b, "</section>\n");
	if (st->s_answers_any) {
		struct row r[3] = {
			{ "valid", "valid", st->s_answers[0] },
			{ "invalid", "invalid", st->s_answers[1] },
			{ "missing", "missing", st->s_answers[2] },
		};

		section(b, "structured-answers", "Structured answers");
		bars(b, "structured_answers", "Final answers checked against the schema",
		    "verdict", r, 3, 0);
		hm_buf_adds(b, "</section>\n");
	}
	hm_buf_adds(b, "</body>\n</html>\n");
	return b->oom ? HM_ENOMEM : HM_OK;
}

/* stats without a line per record: the summary alone, as a page */
const struct hm_wshape hm__w_report = {
	.name = "report",
	.flags = HM_WS_STATS,
	.size = sizeof(struct hm_wstats),
	.begin = hm__w_stats_begin,
	.start = hm__w_stats_start,
	.end = hm__w_stats_end,
	.warning = hm__w_stats_warning,
	.done = hm__w_stats_count,
	.summary = report_summary,
	.free = hm__w_stats_free,
};
