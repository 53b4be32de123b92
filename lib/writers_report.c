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

/*
 * The chart's geometry, in SVG user units (a unit a CSS pixel: the charts
 * are never scaled down, a narrow screen scrolls them, so their 13 px
 * text stays 13 px on a phone).  A bar's row holds its label, whole, on a
 * line of its own above the bar.
 */
enum { BAR_W = 360, ROW_H = 38, AXIS_H = 44, HIST_H = 160, HIST_W = 480, YAX = 64 };

/*
 * The records behind the charts, so a reader can go from a bar to them:
 * the longest, those with the most recoveries, the first truncated ones.
 * Each is named by its carried id (as JSON), else by its number; kept
 * here, beside the summary's counts, and not in a summary line (a page
 * of merged summaries has none).
 */
enum { TOP = 10, TOP_ID = 80 };
struct top {
	uint64_t n;            /* what the list is by: tokens, recoveries */
	char id[TOP_ID];       /* the record's id, or "record N" */
};
struct tops {
	struct top v[TOP];
	size_t len;
};
struct report {
	struct hm_wstats s;    /* first: hm_w_stats reads the writer's state as it */
	struct tops longest, recovered, truncated;
};

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

static void
num(int *nomem, hm_buf *b, uint64_t n)
{
	hm__addu(nomem, b, n);
}

/* A number for people: 25,423,731 (data-n keeps it bare). */
static void
numsep(int *nomem, hm_buf *b, uint64_t n)
{
	char d[24];
	int k = 0, i;

	do
		d[k++] = (char)('0' + n % 10);
	while ((n /= 10));
	for (i = k - 1; i >= 0; i--) {
		hm__putc(nomem, b, d[i]);
		if (i && i % 3 == 0)
			hm__putc(nomem, b, ',');
	}
}

/* A number as a table cell: the text, and the same in data-n. */
static void
cell(int *nomem, hm_buf *b, uint64_t n)
{
	hm__adds(nomem, b, "<td data-n=\"");
	num(nomem, b, n);
	hm__adds(nomem, b, "\">");
	numsep(nomem, b, n);
	hm__adds(nomem, b, "</td>");
}

/* An axis's step: 1, 2 or 5 times a power of ten, at most 5 steps to max. */
static uint64_t
nice_step(uint64_t max)
{
	uint64_t s = 1;

	for (;;) {
		if (max / s <= 5)
			return s;
		if (max / (2 * s) <= 5)
			return 2 * s;
		if (max / (5 * s) <= 5)
			return 5 * s;
		s *= 10;
	}
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
".chart{max-width:100%;overflow-x:auto}"
"svg{max-width:none}"
"svg text{font:13px system-ui,sans-serif;fill:#1a1a1a}"
".bar{fill:#3b6ea8}.alt{fill:#b8741a}.pct{stroke:#1a1a1a;stroke-dasharray:4 3}"
".axis{stroke:#666}.grid{stroke:#ddd}"
".legend{display:grid;grid-template-columns:max-content 1fr;gap:.1em .8em;margin:.5em 0}"
".legend dt{font-weight:600;font-family:ui-monospace,monospace}.legend dd{margin:0}"
".top ol{margin:.2em 0;padding-left:2em;columns:2 18em}.toph{margin:.6em 0 0;font-weight:600}"
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
	/* all of it in <main>: one landmark, nothing outside a region */
	hm__adds(nomem, b, "</style>\n</head>\n<body>\n<main>\n<h1>Harmony log report</h1>\n");
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

/* The opening of a chart: a box that scrolls on a narrow screen (so Tab reaches it). */
static void
chart_begin(int *nomem, hm_buf *b, const char *figure, const char *title, uint64_t w, uint64_t h)
{
	hm__adds(nomem, b, "<div class=\"chart\" tabindex=\"0\" role=\"group\" aria-label=\"");
	esc(nomem, b, title);
	hm__adds(nomem, b, "\"><svg role=\"img\" data-chart=\"");
	hm__adds(nomem, b, figure);
	hm__adds(nomem, b, "\" viewBox=\"0 0 ");
	num(nomem, b, w);
	hm__putc(nomem, b, ' ');
	num(nomem, b, h);
	hm__adds(nomem, b, "\" width=\"");
	num(nomem, b, w);
	hm__adds(nomem, b, "\" height=\"");
	num(nomem, b, h);
	hm__adds(nomem, b, "\"><title>");
	esc(nomem, b, title);
	hm__adds(nomem, b, "</title>\n");
}

/*
 * Horizontal bars, one a row, scaled to the largest, each with its label
 * (whole, above the bar) and number written beside it (the colour says
 * nothing the text does not), over an axis of unit with its ticks; then
 * the table of the same rows.  alt: the second bar in the other colour
 * (a share: one part against the rest).
 */
static void
bars(int *nomem, hm_buf *b, const char *figure, const char *title, const char *keyhead,
     const char *unit, const struct row *r, size_t n, int alt)
{
	uint64_t max = 0, step, t;
	size_t i, y0;

	for (i = 0; i < n; i++)
		if (r[i].n > max)
			max = r[i].n;
	hm__adds(nomem, b, "<div class=\"fig\">\n");
	if (!n) {
		hm__adds(nomem, b, "<p class=\"none\">none</p>\n");
	} else {
		step = nice_step(max ? max : 1);
		/* the axis reaches the first tick at or past the largest bar */
		t = (max + step - 1) / step * step;
		if (!t)
			t = step;
		y0 = n * ROW_H + 4;
		chart_begin(nomem, b, figure, title, 8 + BAR_W + 100, y0 + AXIS_H);
		for (i = 0; i < n; i++) {
			uint64_t w = (uint64_t)((double)r[i].n * BAR_W / (double)t + 0.5);
			size_t y = i * ROW_H + 2;

			if (r[i].n && !w)
				w = 1; /* a count is never drawn as nothing */
			hm__adds(nomem, b, "<g><title>");
			esc(nomem, b, r[i].label);
			hm__adds(nomem, b, ": ");
			numsep(nomem, b, r[i].n);
			hm__adds(nomem, b, "</title><text x=\"8\" y=\"");
			num(nomem, b, y + 14);
			hm__adds(nomem, b, "\">");
			esc(nomem, b, r[i].label);
			hm__adds(nomem, b, "</text><rect class=\"");
			hm__adds(nomem, b, alt && i == 1 ? "alt" : "bar");
			hm__adds(nomem, b, "\" data-n=\"");
			num(nomem, b, r[i].n);
			hm__adds(nomem, b, "\" x=\"8\" y=\"");
			num(nomem, b, y + 19);
			hm__adds(nomem, b, "\" width=\"");
			num(nomem, b, w);
			hm__adds(nomem, b, "\" height=\"14\"/><text x=\"");
			num(nomem, b, 8 + w + 5);
			hm__adds(nomem, b, "\" y=\"");
			num(nomem, b, y + 31);
			hm__adds(nomem, b, "\">");
			numsep(nomem, b, r[i].n);
			hm__adds(nomem, b, "</text></g>\n");
		}
		/* the axis: its ticks at round numbers, and its unit */
		hm__adds(nomem, b, "<g class=\"ticks\"><line class=\"axis\" x1=\"8\" y1=\"");
		num(nomem, b, y0);
		hm__adds(nomem, b, "\" x2=\"");
		num(nomem, b, 8 + BAR_W);
		hm__adds(nomem, b, "\" y2=\"");
		num(nomem, b, y0);
		hm__adds(nomem, b, "\"/>");
		for (uint64_t v = 0; v <= t; v += step) {
			uint64_t x = 8 + (uint64_t)((double)v * BAR_W / (double)t + 0.5);

			hm__adds(nomem, b, "<line class=\"axis\" x1=\"");
			num(nomem, b, x);
			hm__adds(nomem, b, "\" y1=\"");
			num(nomem, b, y0);
			hm__adds(nomem, b, "\" x2=\"");
			num(nomem, b, x);
			hm__adds(nomem, b, "\" y2=\"");
			num(nomem, b, y0 + 5);
			hm__adds(nomem, b, "\"/><text data-tick=\"");
			num(nomem, b, v);
			hm__adds(nomem, b, "\" x=\"");
			num(nomem, b, x);
			hm__adds(nomem, b, "\" y=\"");
			num(nomem, b, y0 + 19);
			hm__adds(nomem, b, "\" text-anchor=\"middle\">");
			numsep(nomem, b, v);
			hm__adds(nomem, b, "</text>");
		}
		hm__adds(nomem, b, "<text x=\"8\" y=\"");
		num(nomem, b, y0 + 38);
		hm__adds(nomem, b, "\">");
		esc(nomem, b, unit);
		hm__adds(nomem, b, "</text></g>\n</svg></div>\n");
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
            const char *unit, const struct hm_counts *c)
{
	size_t n;
	struct row *r;

	if (count_rows(nomem, c, &r, &n) != HM_OK)
		return;
	bars(nomem, b, figure, title, keyhead, unit, r, n, 0);
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
	uint64_t bins[NBINS] = { 0 }, max = 0, total = 0, v, step, top;
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
	/* the y axis: ticks at round numbers up to the first at or past the tallest */
	step = nice_step(max);
	top = (max + step - 1) / step * step;
	chart_begin(nomem, b, "tokens_bins", "Records by tokens per record (four bins to each "
	    "power of two), with the 50th, 90th and 99th percentiles marked",
	    YAX + (last - first + 1) * col + 150, HIST_H + 70);
	hm__adds(nomem, b, "<g class=\"ticks\">");
	for (v = 0; v <= top; v += step) {
		uint64_t y = HIST_H + 20 - (uint64_t)((double)v * HIST_H / (double)top + 0.5);

		hm__adds(nomem, b, "<line class=\"");
		hm__adds(nomem, b, v ? "grid" : "axis");
		hm__adds(nomem, b, "\" x1=\"");
		num(nomem, b, YAX - 5);
		hm__adds(nomem, b, "\" y1=\"");
		num(nomem, b, y);
		hm__adds(nomem, b, "\" x2=\"");
		num(nomem, b, YAX + (last - first + 1) * col);
		hm__adds(nomem, b, "\" y2=\"");
		num(nomem, b, y);
		hm__adds(nomem, b, "\"/><text data-tick=\"");
		num(nomem, b, v);
		hm__adds(nomem, b, "\" x=\"");
		num(nomem, b, YAX - 8);
		hm__adds(nomem, b, "\" y=\"");
		num(nomem, b, y + 4);
		hm__adds(nomem, b, "\" text-anchor=\"end\">");
		numsep(nomem, b, v);
		hm__adds(nomem, b, "</text>");
	}
	hm__adds(nomem, b, "<line class=\"axis\" x1=\"");
	num(nomem, b, YAX);
	hm__adds(nomem, b, "\" y1=\"20\" x2=\"");
	num(nomem, b, YAX);
	hm__adds(nomem, b, "\" y2=\"");
	num(nomem, b, HIST_H + 20);
	hm__adds(nomem, b, "\"/><text x=\"4\" y=\"12\">records</text></g>\n");
	for (k = first; k <= last; k++) {
		uint64_t h = (uint64_t)((double)bins[k] * HIST_H / (double)top + 0.5);
		size_t x0 = YAX + (k - first) * col;

		if (bins[k] && !h)
			h = 1;
		hm__adds(nomem, b, "<g><title>");
		bin_name(nomem, b, k);
		hm__adds(nomem, b, " tokens: ");
		numsep(nomem, b, bins[k]);
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
	hm__adds(nomem, b, "<text x=\"");
	num(nomem, b, YAX);
	hm__adds(nomem, b, "\" y=\"");
	num(nomem, b, HIST_H + 56);
	hm__adds(nomem, b, "\">tokens per record (log scale)</text>\n");
	for (i = 0; i < sizeof pct / sizeof pct[0]; i++) {
		v = hm__w_percentile(w, pct[i]);
		x = YAX + bin_x(v, first) * col;
		hm__adds(nomem, b, "<g><title>");
		hm__addu(nomem, b, pct[i]);
		hm__adds(nomem, b, "th percentile: ");
		numsep(nomem, b, v);
		hm__adds(nomem, b, " tokens</title><line class=\"pct\" x1=\"");
		fixed(nomem, b, "%.1f", x);
		hm__adds(nomem, b, "\" y1=\"");
		num(nomem, b, 4 + 15 * i);
		hm__adds(nomem, b, "\" x2=\"");
		fixed(nomem, b, "%.1f", x);
		hm__adds(nomem, b, "\" y2=\"");
		num(nomem, b, HIST_H + 20);
		hm__adds(nomem, b, "\"/><text x=\"");
		fixed(nomem, b, "%.1f", x + 3);
		hm__adds(nomem, b, "\" y=\"");
		num(nomem, b, 16 + 15 * i);
		hm__adds(nomem, b, "\" data-pct=\"");
		hm__addu(nomem, b, pct[i]);
		hm__adds(nomem, b, "\">p");
		hm__addu(nomem, b, pct[i]);
		hm__adds(nomem, b, " = ");
		numsep(nomem, b, v);
		hm__adds(nomem, b, "</text></g>\n");
	}
	hm__adds(nomem, b, "</svg></div>\n<table data-figure=\"tokens_bins\"><caption>Records by tokens"
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
	bars(nomem, b, "reasoning", "Reasoning tokens against the rest", "tokens", "tokens", r, 2, 1);
	hm__adds(nomem, b, "<p data-figure=\"reasoning_ratio\" data-n=\"");
	fixed(nomem, b, "%.4f", ratio);
	hm__adds(nomem, b, "\">Reasoning (analysis, and commentary that is no function call) is ");
	fixed(nomem, b, "%.1f", 100 * ratio);
	hm__adds(nomem, b, " % of the tokens (ratio ");
	fixed(nomem, b, "%.4f", ratio);
	hm__adds(nomem, b, ").</p>\n");
}

/* What each failure mode is (harmony-parse(1) says more), by code. */
static const char *const code_meaning[] = {
	"a recovery of no failure mode of its own",
	"the recipient placed where the format does not put it",
	"<|channel|> without <|start|>assistant before it",
	"a content type read as a recipient",
	"a tool call on analysis, or on a channel the format does not know",
	"a function name without functions.",
	"junk in a header",
	"no <|message|> before the content",
	"plain text without a header",
	"stray stop tokens, or tokens after a stop",
	"the stream ended inside a message (cut off)",
	"(not used)",
	"invalid UTF-8, or an unknown id, in the content",
	"special tokens stripped from the text",
	"recipient assistant on an assistant message",
	"a header part written twice",
	"a recipient that is not a plain identifier",
	"a special token inside a header",
	"text without a header before a message with a channel (read as reasoning)",
	"a whole tool call without <|call|>: its stop assumed",
	"<|call|> ends a message with no recipient",
	"a header glued to the end of arguments or reasoning",
	"prose in a header that never reached <|message|>",
	"a completion that breaks the request's tool_choice (no recovery: a check of the log)",
};

/*
 * The records behind a chart: what (the list's caption), unit (of n; NULL
 * for none) and the list; or why there is none.
 */
static void
top_list(hm_writer *w, hm_buf *b, const char *figure, const char *what, const char *unit,
         const struct tops *t, uint64_t count)
{
	int *nomem = &w->nomem;
	size_t i;

	hm__adds(nomem, b, "<div class=\"top\" data-top=\"");
	hm__adds(nomem, b, figure);
	hm__adds(nomem, b, "\"><p class=\"toph\">");
	esc(nomem, b, what);
	if (count && !t->len) {
		/* a page of merged summaries: the records were never seen here */
		hm__adds(nomem, b, ": not known (the summaries merged do not name their records)</p></div>\n");
		return;
	}
	if (!t->len) {
		hm__adds(nomem, b, ": none</p></div>\n");
		return;
	}
	hm__adds(nomem, b, ":</p><ol>");
	for (i = 0; i < t->len; i++) {
		hm__adds(nomem, b, "<li><code>");
		esc(nomem, b, t->v[i].id);
		hm__adds(nomem, b, "</code>");
		if (unit) {
			hm__adds(nomem, b, " (");
			numsep(nomem, b, t->v[i].n);
			hm__putc(nomem, b, ' ');
			hm__adds(nomem, b, unit);
			hm__putc(nomem, b, ')');
		}
		hm__adds(nomem, b, "</li>");
	}
	hm__adds(nomem, b, "</ol></div>\n");
}

/* The legend of the failure modes the chart shows. */
static void
legend_codes(hm_writer *w, hm_buf *b)
{
	int *nomem = &w->nomem, i, any = 0;
	struct hm_wstats *st = hm_w_stats(w);

	for (i = 0; i < HM_F_CODES; i++) {
		if (!st->s_codes[i])
			continue;
		if (!any++)
			hm__adds(nomem, b, "<dl class=\"legend\" aria-label=\"failure modes\">\n");
		hm__adds(nomem, b, "<dt>");
		hm__adds(nomem, b, hm_failure_name((hm_failure)i));
		hm__adds(nomem, b, "</dt><dd>");
		esc(nomem, b, (size_t)i < sizeof code_meaning / sizeof code_meaning[0] ?
		    code_meaning[i] : "see harmony-parse(1)");
		hm__adds(nomem, b, "</dd>\n");
	}
	if (any)
		hm__adds(nomem, b, "</dl>\n");
}

/* The legend of the terminators: every one, whether the log has it or not. */
static void
legend_terms(hm_writer *w, hm_buf *b)
{
	hm__adds(&w->nomem, b, "<dl class=\"legend\" aria-label=\"terminators\">\n"
	    "<dt>return</dt><dd>&lt;|return|&gt;: the final answer ended, the model is done</dd>\n"
	    "<dt>call</dt><dd>&lt;|call|&gt;: a tool call ended, the tool runs next</dd>\n"
	    "<dt>end</dt><dd>&lt;|end|&gt;: a message ended and the record with it (no "
	    "final answer after it)</dd>\n"
	    "<dt>eos</dt><dd>no terminator: the stream ended inside the message (cut off, "
	    "F10)</dd>\n"
	    "<dt>none</dt><dd>no terminator: a recovery started the next message</dd>\n"
	    "</dl>\n");
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
	    "failure mode", "recoveries (warnings)", r, n, 0);
	legend_codes(w, b);
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
		top_list(w, b, "longest", "The 10 longest records", "tokens",
		    &((struct report *)w->st)->longest, st->s_records);
		hm__adds(nomem, b, "</section>\n");
		section(nomem, b, "channel-tokens", "Tokens by channel");
		count_chart(nomem, b, "channel_tokens", "Tokens of messages by channel, stop "
		    "tokens included", "channel", "tokens", &st->s_chantok);
		reasoning(w, b);
		hm__adds(nomem, b, "</section>\n");
	}
	section(nomem, b, "messages", "Messages");
	count_chart(nomem, b, "channels", "Messages by channel (none: without a channel)",
	    "channel", "messages", &st->s_chan);
	count_chart(nomem, b, "recipients", "Messages by recipient (tool calls and their "
	    "results alike)", "recipient", "messages", &st->s_rcpt);
	hm__adds(nomem, b, "</section>\n");
	section(nomem, b, "tool-calls", "Tool calls");
	count_chart(nomem, b, "tool_calls", "Calls made (messages ended by <|call|>) by tool",
	    "tool", "calls", &st->s_calls);
	hm__adds(nomem, b, "</section>\n");
	section(nomem, b, "terminators", "Terminators");
	count_chart(nomem, b, "terminators", "Records by the stop token of their last message",
	    "stop token", "records", &st->s_term);
	legend_terms(w, b);
	hm__adds(nomem, b, "</section>\n");
	section(nomem, b, "recoveries", "Recoveries");
	recoveries(w, b);
	top_list(w, b, "recovered", "The records with the most recoveries", "recoveries",
	    &((struct report *)w->st)->recovered, st->s_warnings);
	hm__adds(nomem, b, "</section>\n");
	section(nomem, b, "truncated", "Truncated records");
	{
		struct row r[2] = {
			{ "truncated", "truncated", st->s_truncated },
			{ "whole", "whole", st->s_records - st->s_truncated },
		};

		bars(nomem, b, "truncation", "Records cut off inside a message or header, against "
		    "the rest", "records", "records", r, 2, 1);
	}
	top_list(w, b, "truncated", "The first 10 truncated records", NULL,
	    &((struct report *)w->st)->truncated, st->s_truncated);
	hm__adds(nomem, b, "</section>\n");
	if (st->s_answers_any) {
		struct row r[3] = {
			{ "valid", "valid", st->s_answers[0] },
			{ "invalid", "invalid", st->s_answers[1] },
			{ "missing", "missing", st->s_answers[2] },
		};

		section(nomem, b, "structured-answers", "Structured answers");
		bars(nomem, b, "structured_answers", "Final answers checked against the schema",
		    "verdict", "answers", r, 3, 0);
		hm__adds(nomem, b, "</section>\n");
	}
	hm__adds(nomem, b, "</main>\n</body>\n</html>\n");
	return hm__w_status(w);
}

/* The record's name in a list: its id as the record carries it (cut at TOP_ID), or its number. */
static void
top_name(const hm_writer *w, char *out)
{
	size_t n;

	if (w->carried_id) {
		n = w->id_len < TOP_ID - 1 ? w->id_len : TOP_ID - 1;
		memcpy(out, w->fields.p + w->id_off, n);
		out[n] = '\0';
	} else {
		snprintf(out, TOP_ID, "record %llu", (unsigned long long)w->rec + 1);
	}
}

/* Keep the record in t when it is among its TOP largest by n (the first of equals first). */
static void
top_add(const hm_writer *w, struct tops *t, uint64_t n)
{
	size_t i;

	if (t->len == TOP && n <= t->v[TOP - 1].n)
		return;
	i = t->len < TOP ? t->len++ : TOP - 1;
	while (i && t->v[i - 1].n < n) {
		t->v[i] = t->v[i - 1];
		i--;
	}
	t->v[i].n = n;
	top_name(w, t->v[i].id);
}

/* A record's end: its place in the lists, then the summary's counts. */
static void
report_done(hm_writer *w)
{
	struct report *r = w->st;

	if (!(w->flags & HM_WRITER_TEXT_INPUT))
		top_add(w, &r->longest, w->ntok);
	if (r->s.nwarn)
		top_add(w, &r->recovered, r->s.nwarn);
	if (hm_w_cut(w) && r->truncated.len < TOP) /* the first ones, in the log's order */
		top_add(w, &r->truncated, 0);
	hm__w_stats_count(w);
}

/* stats without a line per record: the summary alone, as a page */
const struct hm_wshape hm__w_report = {
	.name = "report",
	.flags = HM_WS_STATS,
	.size = sizeof(struct report),
	.begin = hm__w_stats_begin,
	.start = hm__w_stats_start,
	.end = hm__w_stats_end,
	.warning = hm__w_stats_warning,
	.done = report_done,
	.summary = report_summary,
	.free = hm__w_stats_free,
};
