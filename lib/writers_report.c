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
#include "html_int.h"
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
esc(int *nomem, hm_buf *b, const char *s)
{
	hm__html_escape(nomem, b, s, strlen(s));
}

/* At most max bytes of s, cut at a character's start, "..." when cut. */
static void
esc_short(int *nomem, hm_buf *b, const char *s, size_t max)
{
	size_t n = strlen(s);
	char tmp[64];

	if (n <= max) {
		esc(nomem, b, s);
		return;
	}
	n = max - 1;
	while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	esc(nomem, b, tmp);
	hm__adds(nomem, b, "\xE2\x80\xA6"); /* U+2026 */
}

static void
num(int *nomem, hm_buf *b, uint64_t n)
{
	hm__addu(nomem, b, n);
}

/* A number as a table cell: the text, and the same in data-n. */
static void
cell(int *nomem, hm_buf *b, uint64_t n)
{
	hm__adds(nomem, b, "<td data-n=\"");
	num(nomem, b, n);
	hm__adds(nomem, b, "\">");
	num(nomem, b, n);
	hm__adds(nomem, b, "</td>");
}

/* A table row: its key (data-key), its label and its number. */
static void
row(int *nomem, hm_buf *b, const char *key, const char *label, uint64_t n)
{
	hm__adds(nomem, b, "<tr data-key=\"");
	esc(nomem, b, key);
	hm__adds(nomem, b, "\"><th scope=\"row\">");
	esc(nomem, b, label);
	hm__adds(nomem, b, "</th>");
	cell(nomem, b, n);
	hm__adds(nomem, b, "</tr>\n");
}

static void
fixed(int *nomem, hm_buf *b, const char *fmt, double v)
{
	char s[40];

	snprintf(s, sizeof s, fmt, v);
	hm__adds(nomem, b, s);
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
page_head(int *nomem, hm_buf *b)
{
	hm__adds(nomem, b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	    "style-src 'unsafe-inline'\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	    "<title>Harmony log report</title>\n<style>");
	hm__adds(nomem, b, style);
	hm__adds(nomem, b, "</style>\n</head>\n<body>\n<h1>Harmony log report</h1>\n");
}

static void
section(int *nomem, hm_buf *b, const char *id, const char *title)
{
	hm__adds(nomem, b, "<section id=\"");
	hm__adds(nomem, b, id);
	hm__adds(nomem, b, "\">\n<h2>");
	hm__adds(nomem, b, title);
	hm__adds(nomem, b, "</h2>\n");
}

/*
 * Horizontal bars, one a row, scaled to the largest, each with its label
 * and number written beside it (the colour says nothing the text does
 * not); then the table of the same rows.  alt: the second bar in the
 * other colour (a share: one part against the rest).
 */
static void
bars(int *nomem, hm_buf *b, const char *figure, const char *title, const char *keyhead,
     const struct row *r, size_t n, int alt)
{
	uint64_t max = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].n > max)
			max = r[i].n;
	hm__adds(nomem, b, "<div class=\"fig\">\n");
	if (!n) {
		hm__adds(nomem, b, "<p class=\"none\">none</p>\n");
	} else {
		hm__adds(nomem, b, "<svg role=\"img\" data-chart=\"");
		hm__adds(nomem, b, figure);
		hm__adds(nomem, b, "\" viewBox=\"0 0 ");
		num(nomem, b, LABEL_W + BAR_W + 70);
		hm__putc(nomem, b, ' ');
		num(nomem, b, n * ROW_H + 4);
		hm__adds(nomem, b, "\" width=\"");
		num(nomem, b, LABEL_W + BAR_W + 70);
		hm__adds(nomem, b, "\" height=\"");
		num(nomem, b, n * ROW_H + 4);
		hm__adds(nomem, b, "\"><title>");
		esc(nomem, b, title);
		hm__adds(nomem, b, "</title>\n");
		for (i = 0; i < n; i++) {
			uint64_t w = max ? (uint64_t)((double)r[i].n * BAR_W / (double)max + 0.5) : 0;
			size_t y = i * ROW_H + 2;

			if (r[i].n && !w)
				w = 1; /* a count is never drawn as nothing */
			hm__adds(nomem, b, "<g><title>");
			esc(nomem, b, r[i].label);
			hm__adds(nomem, b, ": ");
			num(nomem, b, r[i].n);
			hm__adds(nomem, b, "</title><text x=\"");
			num(nomem, b, LABEL_W - 6);
			hm__adds(nomem, b, "\" y=\"");
			num(nomem, b, y + 15);
			hm__adds(nomem, b, "\" text-anchor=\"end\">");
			esc_short(nomem, b, r[i].label, 20);
			hm__adds(nomem, b, "</text><rect class=\"");
			hm__adds(nomem, b, alt && i == 1 ? "alt" : "bar");
			hm__adds(nomem, b, "\" data-n=\"");
			num(nomem, b, r[i].n);
			hm__adds(nomem, b, "\" x=\"");
			num(nomem, b, LABEL_W);
			hm__adds(nomem, b, "\" y=\"");
			num(nomem, b, y + 2);
			hm__adds(nomem, b, "\" width=\"");
			num(nomem, b, w);
			hm__adds(nomem, b, "\" height=\"");
			num(nomem, b, ROW_H - 6);
			hm__adds(nomem, b, "\"/><text x=\"");
			num(nomem, b, LABEL_W + w + 5);
			hm__adds(nomem, b, "\" y=\"");
			num(nomem, b, y + 15);
			hm__adds(nomem, b, "\">");
			num(nomem, b, r[i].n);
			hm__adds(nomem, b, "</text></g>\n");
		}
		hm__adds(nomem, b, "</svg>\n");
	}
	hm__adds(nomem, b, "<table data-figure=\"");
	hm__adds(nomem, b, figure);
	hm__adds(nomem, b, "\"><caption>");
	esc(nomem, b, title);
	hm__adds(nomem, b, "</caption>\n<thead><tr><th scope=\"col\">");
	hm__adds(nomem, b, keyhead);
	hm__adds(nomem, b, "</th><th scope=\"col\">count</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < n; i++)
		row(nomem, b, r[i].key, r[i].label, r[i].n);
	hm__adds(nomem, b, "</tbody></table>\n</div>\n");
}

/*
 * The rows of a map of counts, sorted by key (as the summary line has
 * them): *out, malloc'd, *n of them.
 */
static hm_status
count_rows(int *nomem, const struct hm_counts *c, struct row **out, size_t *n)
{
	const struct hm_count **v;
	hm_status st = hm__w_sorted(c, &v);
	struct row *r = malloc((c->len ? c->len : 1) * sizeof *r);
	size_t i;

	*n = 0;
	*out = NULL;
	if (st != HM_OK || !r) {
		*nomem = 1;
		free(r);
		free(v);
		return HM_ENOMEM;
	}
	for (i = 0; i < c->len; i++) {
		const struct hm_count *e = v ? v[i] : &c->v[i];

		r[i].label = r[i].key = e->key;
		r[i].n = e->n;
	}
	*n = c->len;
	free(v);
	*out = r;
	return HM_OK;
}

static void
count_chart(int *nomem, hm_buf *b, const char *figure, const char *title, const char *keyhead,
            const struct hm_counts *c)
{
	size_t n;
	struct row *r;

	if (count_rows(nomem, c, &r, &n) != HM_OK)
		return;
	bars(nomem, b, figure, title, keyhead, r, n, 0);
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
bin_name(int *nomem, hm_buf *b, unsigned k)
{
	num(nomem, b, bin_lo(k));
	if (bin_hi(k) > bin_lo(k)) {
		hm__putc(nomem, b, '-');
		num(nomem, b, bin_hi(k));
	}
}

/* A bound for the axis: 512, 4k, 2M ... */
static void
short_num(int *nomem, hm_buf *b, uint64_t v)
{
	if (v >= 1u << 20 && !(v % (1u << 20))) {
		num(nomem, b, v >> 20);
		hm__putc(nomem, b, 'M');
	} else if (v >= 1024 && !(v % 1024)) {
		num(nomem, b, v >> 10);
		hm__putc(nomem, b, 'k');
	} else {
		num(nomem, b, v);
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
	int *nomem = &w->nomem;
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
	hm__adds(nomem, b, "<div class=\"fig\">\n");
	if (!total) {
		hm__adds(nomem, b, "<p class=\"none\">no records</p>\n</div>\n");
		return;
	}
	for (k = first; k <= last; k++)
		max = bins[k] > max ? bins[k] : max;
	/* columns of 12 to 40 units, the chart about HIST_W wide */
	col = HIST_W / (last - first + 1);
	col = col < 12 ? 12 : col > 40 ? 40 : col;
	hm__adds(nomem, b, "<svg role=\"img\" data-chart=\"tokens_bins\" viewBox=\"0 0 ");
	num(nomem, b, 50 + (last - first + 1) * col + 20);
	hm__putc(nomem, b, ' ');
	num(nomem, b, HIST_H + 70);
	hm__adds(nomem, b, "\" width=\"");
	num(nomem, b, 50 + (last - first + 1) * col + 20);
	hm__adds(nomem, b, "\" height=\"");
	num(nomem, b, HIST_H + 70);
	hm__adds(nomem, b, "\"><title>Records by tokens per record (four bins to each power "
	    "of two), with the 50th, 90th and 99th percentiles marked</title>\n");
	hm__adds(nomem, b, "<line class=\"axis\" x1=\"50\" y1=\"");
	num(nomem, b, HIST_H + 20);
	hm__adds(nomem, b, "\" x2=\"");
	num(nomem, b, 50 + (last - first + 1) * col);
	hm__adds(nomem, b, "\" y2=\"");
	num(nomem, b, HIST_H + 20);
	hm__adds(nomem, b, "\"/>\n<text x=\"44\" y=\"24\" text-anchor=\"end\">");
	num(nomem, b, max);
	hm__adds(nomem, b, "</text><text x=\"44\" y=\"");
	num(nomem, b, HIST_H + 20);
	hm__adds(nomem, b, "\" text-anchor=\"end\">0</text><text x=\"44\" y=\"");
	num(nomem, b, HIST_H / 2 + 24);
	hm__adds(nomem, b, "\" text-anchor=\"end\">records</text>\n");
	for (k = first; k <= last; k++) {
		uint64_t h = (uint64_t)((double)bins[k] * HIST_H / (double)max + 0.5);
		size_t x0 = 50 + (k - first) * col;

		if (bins[k] && !h)
			h = 1;
		hm__adds(nomem, b, "<g><title>");
		bin_name(nomem, b, k);
		hm__adds(nomem, b, " tokens: ");
		num(nomem, b, bins[k]);
		hm__adds(nomem, b, bins[k] == 1 ? " record" : " records");
		hm__adds(nomem, b, "</title><rect class=\"bar\" data-n=\"");
		num(nomem, b, bins[k]);
		hm__adds(nomem, b, "\" x=\"");
		num(nomem, b, x0 + 2);
		hm__adds(nomem, b, "\" y=\"");
		num(nomem, b, HIST_H + 20 - h);
		hm__adds(nomem, b, "\" width=\"");
		num(nomem, b, col - 4);
		hm__adds(nomem, b, "\" height=\"");
		num(nomem, b, h);
		hm__adds(nomem, b, "\"/>");
		/* the bounds at each power of two (a column's own are in its title) */
		if (k == first || k < 4 || (k - 4) % 4 == 0) {
			hm__adds(nomem, b, "<line class=\"axis\" x1=\"");
			num(nomem, b, x0);
			hm__adds(nomem, b, "\" y1=\"");
			num(nomem, b, HIST_H + 20);
			hm__adds(nomem, b, "\" x2=\"");
			num(nomem, b, x0);
			hm__adds(nomem, b, "\" y2=\"");
			num(nomem, b, HIST_H + 25);
			hm__adds(nomem, b, "\"/><text x=\"");
			num(nomem, b, x0);
			hm__adds(nomem, b, "\" y=\"");
			num(nomem, b, HIST_H + 36);
			hm__adds(nomem, b, "\" text-anchor=\"middle\">");
			short_num(nomem, b, bin_lo(k));
			hm__adds(nomem, b, "</text>");
		}
		hm__adds(nomem, b, "</g>\n");
	}
	hm__adds(nomem, b, "<text x=\"50\" y=\"");
	num(nomem, b, HIST_H + 52);
	hm__adds(nomem, b, "\">tokens per record (log scale)</text>\n");
	for (i = 0; i < sizeof pct / sizeof pct[0]; i++) {
		v = hm__w_percentile(w, pct[i]);
		x = 50 + bin_x(v, first) * col;
		hm__adds(nomem, b, "<g><title>");
		hm__addu(nomem, b, pct[i]);
		hm__adds(nomem, b, "th percentile: ");
		num(nomem, b, v);
		hm__adds(nomem, b, " tokens</title><line class=\"pct\" x1=\"");
		fixed(nomem, b, "%.1f", x);
		hm__adds(nomem, b, "\" y1=\"");
		num(nomem, b, 6 + 12 * i);
		hm__adds(nomem, b, "\" x2=\"");
		fixed(nomem, b, "%.1f", x);
		hm__adds(nomem, b, "\" y2=\"");
		num(nomem, b, HIST_H + 20);
		hm__adds(nomem, b, "\"/><text x=\"");
		fixed(nomem, b, "%.1f", x + 3);
		hm__adds(nomem, b, "\" y=\"");
		num(nomem, b, 14 + 12 * i);
		hm__adds(nomem, b, "\">p");
		hm__addu(nomem, b, pct[i]);
		hm__adds(nomem, b, "</text></g>\n");
	}
	hm__adds(nomem, b, "</svg>\n<table data-figure=\"tokens_bins\"><caption>Records by tokens"
	    "</caption>\n<thead><tr><th scope=\"col\">tokens</th><th scope=\"col\">records</th>"
	    "</tr></thead>\n<tbody>\n");
	for (k = first; k <= last; k++) {
		hm__adds(nomem, b, "<tr data-key=\"");
		bin_name(nomem, b, k);
		hm__adds(nomem, b, "\"><th scope=\"row\">");
		bin_name(nomem, b, k);
		hm__adds(nomem, b, "</th>");
		cell(nomem, b, bins[k]);
		hm__adds(nomem, b, "</tr>\n");
	}
	hm__adds(nomem, b, "</tbody></table>\n<table data-figure=\"percentiles\"><caption>"
	    "Tokens per record</caption>\n<tbody>\n<tr data-key=\"tokens_min\"><th scope=\"row\">"
	    "minimum</th>");
	cell(nomem, b, st->s_min);
	hm__adds(nomem, b, "</tr>\n");
	for (i = 0; i < sizeof pct / sizeof pct[0]; i++) {
		hm__adds(nomem, b, "<tr data-key=\"tokens_p");
		hm__addu(nomem, b, pct[i]);
		hm__adds(nomem, b, "\"><th scope=\"row\">");
		hm__addu(nomem, b, pct[i]);
		hm__adds(nomem, b, "th percentile</th>");
		cell(nomem, b, hm__w_percentile(w, pct[i]));
		hm__adds(nomem, b, "</tr>\n");
	}
	hm__adds(nomem, b, "<tr data-key=\"tokens_max\"><th scope=\"row\">maximum</th>");
	cell(nomem, b, st->s_max);
	hm__adds(nomem, b, "</tr>\n</tbody></table>\n</div>\n");
}

/* The run in figures: records, input, tokens, messages ... */
static void
overview(hm_writer *w, hm_buf *b, int tok)
{
	int *nomem = &w->nomem;
	struct hm_wstats *st = hm_w_stats(w);
	struct row r[] = {
		{ "records", "records", st->s_records },
		{ "errors", "errors", st->s_errors },
		{ "input lines", "input_lines", st->s_in_lines },
		{ "input bytes", "input_bytes", st->s_in_bytes },
		{ "tokens", "tokens", st->s_tokens },
		{ "messages", "messages", st->s_messages },
		{ "warnings", "warnings", st->s_warnings },
		{ "truncated records", "truncated", st->s_truncated },
	};
	size_t i;

	hm__adds(nomem, b, "<table data-figure=\"overview\"><caption>The log</caption>\n<tbody>\n");
	for (i = 0; i < sizeof r / sizeof r[0]; i++) {
		if ((st->s_in_unknown && (i == 2 || i == 3)) || (!tok && i == 4))
			continue; /* not known: not shown */
		row(nomem, b, r[i].key, r[i].label, r[i].n);
	}
	hm__adds(nomem, b, "</tbody></table>\n");
	if (st->s_in_unknown)
		hm__adds(nomem, b, "<p class=\"none\">How much input the log held is not known: a "
		    "summary merged did not say.</p>\n");
	if (!tok)
		hm__adds(nomem, b,
		    "<p class=\"none\">The records were text: no token counts.</p>\n");
}

/* The reasoning's share of the tokens: two bars, and the ratio as the summary writes it. */
static void
reasoning(hm_writer *w, hm_buf *b)
{
	int *nomem = &w->nomem;
	struct hm_wstats *st = hm_w_stats(w);
	struct row r[2] = {
		{ "reasoning", "reasoning_tokens", st->s_reasoning },
		{ "other", "other_tokens", st->s_tokens - st->s_reasoning },
	};
	double ratio = st->s_tokens ? (double)st->s_reasoning / (double)st->s_tokens : 0.0;

	hm__adds(nomem, b, "<h3>Reasoning share</h3>\n");
	bars(nomem, b, "reasoning", "Reasoning tokens against the rest", "tokens", r, 2, 1);
	hm__adds(nomem, b, "<p data-figure=\"reasoning_ratio\" data-n=\"");
	fixed(nomem, b, "%.4f", ratio);
	hm__adds(nomem, b, "\">Reasoning (analysis, and commentary that is no function call) is ");
	fixed(nomem, b, "%.1f", 100 * ratio);
	hm__adds(nomem, b, " % of the tokens (ratio ");
	fixed(nomem, b, "%.4f", ratio);
	hm__adds(nomem, b, ").</p>\n");
}

static void
recoveries(hm_writer *w, hm_buf *b)
{
	int *nomem = &w->nomem;
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
	bars(nomem, b, "recoveries", "Recoveries by failure mode (harmony-parse(1))",
	    "failure mode", r, n, 0);
}

static hm_status
report_summary(hm_writer *w)
{
	int *nomem = &w->nomem;
	struct hm_wstats *st = hm_w_stats(w);
	hm_buf *b = &w->out;
	int tok = !(w->flags & HM_WRITER_TEXT_INPUT) && !st->s_text;

	page_head(nomem, b);
	overview(w, b, tok);
	if (tok) {
		section(nomem, b, "tokens-per-record", "Tokens per record");
		histogram(w, b);
		hm__adds(nomem, b, "</section>\n");
		section(nomem, b, "channel-tokens", "Tokens by channel");
		count_chart(nomem, b, "channel_tokens", "Tokens of messages by channel, stop "
		    "tokens included", "channel", &st->s_chantok);
		reasoning(w, b);
		hm__adds(nomem, b, "</section>\n");
	}
	section(nomem, b, "messages", "Messages");
	count_chart(nomem, b, "channels", "Messages by channel (none: without a channel)",
	    "channel", &st->s_chan);
	count_chart(nomem, b, "recipients", "Messages by recipient", "recipient", &st->s_rcpt);
	hm__adds(nomem, b, "</section>\n");
	section(nomem, b, "tool-calls", "Tool calls");
	count_chart(nomem, b, "tool_calls", "Tool calls (messages ended by <|call|>) by name",
	    "tool", &st->s_calls);
	hm__adds(nomem, b, "</section>\n");
	section(nomem, b, "terminators", "Terminators");
	count_chart(nomem, b, "terminators", "Records by the stop token of their last message",
	    "stop token", &st->s_term);
	hm__adds(nomem, b, "</section>\n");
	section(nomem, b, "recoveries", "Recoveries");
	recoveries(w, b);
	hm__adds(nomem, b, "</section>\n");
	section(nomem, b, "truncated", "Truncated records");
	{
		struct row r[2] = {
			{ "truncated", "truncated", st->s_truncated },
			{ "whole", "whole", st->s_records - st->s_truncated },
		};

		bars(nomem, b, "truncation", "Records cut off inside a message or header, against "
		    "the rest", "records", r, 2, 1);
	}
	hm__adds(nomem, b, "</section>\n");
	if (st->s_answers_any) {
		struct row r[3] = {
			{ "valid", "valid", st->s_answers[0] },
			{ "invalid", "invalid", st->s_answers[1] },
			{ "missing", "missing", st->s_answers[2] },
		};

		section(nomem, b, "structured-answers", "Structured answers");
		bars(nomem, b, "structured_answers", "Final answers checked against the schema",
		    "verdict", r, 3, 0);
		hm__adds(nomem, b, "</section>\n");
	}
	hm__adds(nomem, b, "</body>\n</html>\n");
	return hm__w_status(w);
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
