/*
 * html_diff.c - the diff of token records (harmony-tokens diff): the words
 * of a report, which the text report and the page share (its head, and
 * where a token falls), and the page: each differing record side by side,
 * aligned at its first difference, the unchanged runs folded.
 *
 * The page is built on html.c's frame and token boxes.  A record's part
 * is cut in three: the run both sides share before the first difference,
 * what differs (from the first difference to the common tail), and the
 * common tail.  Shared runs are shown once across both columns and folded
 * (a <details>, opened by a click or the keyboard: no script needed) but
 * for the context next to the difference; the differing parts stand side
 * by side, their first tokens on the same row.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harmony.h"
#include "html_int.h"

/* A differing part longer than this is shown up to it, the rest folded. */
enum { SHOWN = 2000 };

/* <|start|>: a message begins on a line of its own in the boxes. */
#define TOKEN_START 200006u

static int
has(const hm_str *s)
{
	return s->p && s->len;
}

void
hm_place_describe(hm_buf *b, const hm_place *pl)
{
	int paren = has(&pl->role) || has(&pl->recipient) || has(&pl->channel);
	const char *sep = " (";

	switch (pl->part) {
	case HM_PLACE_HEADER: hm_buf_adds(b, "header of message "); break;
	case HM_PLACE_CONTENT: hm_buf_adds(b, "content of message "); break;
	case HM_PLACE_STOP: hm_buf_adds(b, "stop token of message "); break;
	case HM_PLACE_OUTSIDE:
		if (!pl->message) {
			hm_buf_adds(b, "before the first message, outside any message");
			return;
		}
		hm_buf_adds(b, "after message ");
		hm_buf_addu(b, pl->message);
		hm_buf_adds(b, ", outside any message");
		return;
	case HM_PLACE_UNKNOWN:
		break;
	}
	hm_buf_addu(b, pl->message);
	if (paren) {
		if (has(&pl->role)) {
			hm_buf_adds(b, sep);
			hm_buf_adds(b, "role ");
			hm_buf_add(b, pl->role.p, pl->role.len);
			sep = ", ";
		}
		if (has(&pl->recipient)) {
			hm_buf_adds(b, sep);
			hm_buf_adds(b, "to ");
			hm_buf_add(b, pl->recipient.p, pl->recipient.len);
			sep = ", ";
		}
		if (has(&pl->channel)) {
			hm_buf_adds(b, sep);
			hm_buf_adds(b, "channel ");
			hm_buf_add(b, pl->channel.p, pl->channel.len);
		}
		hm_buf_addc(b, ')');
	}
	if (pl->unfinished)
		hm_buf_adds(b, ", unfinished");
}

static int
str_same(const hm_str *x, const hm_str *y)
{
	size_t nx = x->p ? x->len : 0, ny = y->p ? y->len : 0;

	return nx == ny && (!nx || !memcmp(x->p, y->p, nx));
}

int
hm_place_same(const hm_place *x, const hm_place *y)
{
	return x->part == y->part && x->message == y->message && x->unfinished == y->unfinished &&
	       str_same(&x->role, &y->role) && str_same(&x->channel, &y->channel) &&
	       str_same(&x->recipient, &y->recipient);
}

size_t
hm_diff_first(const hm_diff_side *a, const hm_diff_side *b)
{
	size_t n = a->len < b->len ? a->len : b->len, i;

	for (i = 0; i < n && a->ids[i] == b->ids[i]; i++)
		;
	return i;
}

void
hm_diff_head(hm_buf *out, const hm_diff_side *a, const hm_diff_side *b, const char *key,
             unsigned flags)
{
	const hm_diff_side *s = a ? a : b;
	size_t i;

	if (a) {
		hm_buf_adds(out, a->file);
		hm_buf_addc(out, ':');
		hm_buf_addu(out, a->line);
	}
	if (a && b)
		hm_buf_addc(out, ' ');
	if (b) {
		hm_buf_adds(out, b->file);
		hm_buf_addc(out, ':');
		hm_buf_addu(out, b->line);
	}
	hm_buf_adds(out, ": ");
	if (key && s->key) {
		hm_buf_adds(out, key);
		hm_buf_addc(out, ' ');
		hm_buf_adds(out, s->key);
		hm_buf_adds(out, ": ");
	}
	if (!a || !b) {
		hm_buf_adds(out, "only in ");
		hm_buf_adds(out, s->file);
		hm_buf_adds(out, " (");
		hm_buf_addu(out, s->len);
		hm_buf_adds(out, s->len == 1 ? " token)" : " tokens)");
		return;
	}
	i = hm_diff_first(a, b);
	if (i < a->len && i < b->len && (flags & HM_DIFF_PREFIX)) {
		hm_buf_adds(out, b->file);
		hm_buf_adds(out, " stops extending ");
		hm_buf_adds(out, a->file);
		hm_buf_adds(out, " at token ");
		hm_buf_addu(out, i);
	} else if (i < a->len && i < b->len) {
		hm_buf_adds(out, "first difference at token ");
		hm_buf_addu(out, i);
	} else {
		int ina = i < a->len;

		hm_buf_adds(out, ina ? b->file : a->file);
		hm_buf_adds(out, " ends at token ");
		hm_buf_addu(out, i);
		hm_buf_adds(out, ", ");
		hm_buf_adds(out, ina ? a->file : b->file);
		hm_buf_adds(out, " goes on");
	}
	hm_buf_adds(out, " (");
	hm_buf_addu(out, a->len);
	hm_buf_adds(out, " and ");
	hm_buf_addu(out, b->len);
	hm_buf_adds(out, " tokens");
	if (flags & HM_DIFF_PREFIX) {
		hm_buf_adds(out, "; ");
		hm_buf_addu(out, i);
		hm_buf_adds(out, " reused, ");
		hm_buf_addu(out, b->len - i);
		hm_buf_adds(out, " recomputed");
	}
	hm_buf_addc(out, ')');
}

/* ---------------------------------------------------------------- the page */

static const char diff_css[] =
".files{font-size:14px}\n"
".diff{border-top:2px solid #888;margin-top:1.5em}\n"
".diff h2{font-family:ui-monospace,\"DejaVu Sans Mono\",monospace;font-size:15px}\n"
".in{margin:.2em 0;font-size:14px}\n"
".in b{font-family:ui-monospace,monospace}\n"
".cols{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:.3em 1em;"
"align-items:start}\n"
".cols>.both{grid-column:1/span 2}\n"
".colh{font-weight:bold;font-size:13px;border-bottom:1px solid #bbb}\n"
".fold>summary{cursor:pointer;font-size:13px;color:#333;padding:.15em 0}\n"
".same{background:#f6f6f6;border-left:4px solid #bbb;padding-left:.4em}\n"
".side{border-left:4px solid #789;padding-left:.4em;min-height:1.6em}\n"
".side.a{border-left-style:dashed}\n"
".first>.tk,.endtk.first{outline:3px solid #b00;outline-offset:1px}\n"
".mark{font:bold 12px ui-monospace,monospace;border:1px solid #b00;color:#900;"
"background:#fee;padding:0 3px;margin-right:2px;vertical-align:top}\n"
".endtk{font:italic 13px ui-monospace,monospace;border:1px dashed #555;padding:0 3px}\n"
".none{color:#555;font-style:italic}\n";

/* The page's script: a fold's boxes made on its first opening (see lazy_boxes). */
static const char diff_js[] =
"(function () {\n"
"\tvar tab = {};\n"
"\tfunction load() {\n"
"\t\tdocument.querySelectorAll(\"script.hm-tok\").forEach(function (s) {\n"
"\t\t\tvar t = JSON.parse(s.textContent), k;\n"
"\t\t\tfor (k in t) tab[k] = t[k];\n"
"\t\t});\n"
"\t}\n"
"\tfunction draw(d) {\n"
"\t\tif (d.dataset.drawn) return;\n"
"\t\tvar ids = d.dataset.ids ? d.dataset.ids.split(\",\") : [], from = Number(d.dataset.from), h = [], i, e, id;\n"
"\t\tfor (i = 0; i < ids.length; i++) {\n"
"\t\t\te = tab[ids[i]];\n"
"\t\t\tid = parseInt(ids[i], 36);\n"
"\t\t\tif (id === 200006 && i > 0) h.push(\"<br>\");\n"
"\t\t\th.push('<span class=\"' + e[0] + '\" tabindex=\"-1\" data-i=\"' + (from + i) + '\" data-id=\"' + id + '\">' + e[1] + \"</span>\");\n"
"\t\t\tif (e[2]) h.push(\"<br>\");\n"
"\t\t}\n"
"\t\td.innerHTML = h.join(\"\");\n"
"\t\td.dataset.drawn = \"1\";\n"
"\t}\n"
"\tdocument.addEventListener(\"toggle\", function (e) {\n"
"\t\tif (e.target.open) e.target.querySelectorAll(\"div.lazy\").forEach(draw);\n"
"\t}, true);\n"
"\tdocument.addEventListener(\"DOMContentLoaded\", load);\n"
"})();\n";

void
hm_diff_page_begin(hm_buf *out, const char *file_a, const char *file_b, const char *key,
                   unsigned flags)
{
	hm_html_page_begin(out, "Token diff", diff_css, diff_js);
	hm_buf_adds(out, "<p class=\"files\">A: <b>");
	hm_html_escape(out, file_a, strlen(file_a));
	hm_buf_adds(out, "</b>, B: <b>");
	hm_html_escape(out, file_b, strlen(file_b));
	hm_buf_adds(out, "</b>; records paired ");
	if (key) {
		hm_buf_adds(out, "by their <code>");
		hm_html_escape(out, key, strlen(key));
		hm_buf_adds(out, "</code>");
	} else {
		hm_buf_adds(out, "by line");
	}
	if (flags & HM_DIFF_PREFIX)
		hm_buf_adds(out, "; each record of B must start with its record of A");
	hm_buf_adds(out, ".  Each differing record below: A on the left, B on the right, from "
	    "their first difference (marked <span class=\"mark\">&#8800;</span>) on; the runs "
	    "both share are folded (open them to see their tokens).</p>\n");
}

/* Tokens v[from..to) as boxes (numbered from their index), a message a line. */
static void
boxes(hm_buf *out, const uint32_t *v, size_t from, size_t to)
{
	for (size_t k = from; k < to; k++) {
		if (v[k] == TOKEN_START && k > from)
			hm_buf_adds(out, "<br>");
		hm_html_token(out, k, v[k]);
	}
}

/*
 * A folded run is drawn when it is opened: its ids in base 36 in the
 * page, each distinct token's box once a record (class and inner HTML, in
 * a script element of the record's), the boxes made by the page's script
 * on the fold's first opening.  A 200,000-token record so weighs some
 * five bytes a token, where boxes weigh sixty and more.
 */
struct lazy {
	hm_buf tab;            /* the record's table: "ID36":["CLASS","HTML",NL],... */
	uint32_t *seen;        /* the ids in tab, id + 1 (0: an empty slot), probed linearly */
	size_t mask;           /* its size, a power of two over twice the record's ids, less 1 */
};

/*
 * The set of a record's ids, sized by the record (both sides' ids), so
 * that a page of many short records zeroes little for each.
 */
static int
lazy_init(struct lazy *lz, size_t nids)
{
	size_t cap = 64;

	while (cap < 2 * nids && cap < ((size_t)1 << 40))
		cap *= 2;
	lz->mask = cap - 1;
	return (lz->seen = calloc(cap, sizeof *lz->seen)) != NULL;
}

static void
base36(hm_buf *out, uint32_t v)
{
	char d[8];
	int n = 0;

	do
		d[n++] = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
	while ((v /= 36));
	while (n)
		hm_buf_addc(out, d[--n]);
}

/* Token id's entry in the record's table, unless it is there. */
static void
lazy_note(struct lazy *lz, uint32_t id)
{
	hm_buf h = { 0 };
	size_t n = 0;
	const char *s;
	int sp, bad;

	if (id != UINT32_MAX) { /* (that one has no id + 1: noted each time) */
		size_t h = (id * 2654435761u) & lz->mask;

		while (lz->seen[h] && lz->seen[h] != id + 1)
			h = (h + 1) & lz->mask;
		if (lz->seen[h])
			return;
		lz->seen[h] = id + 1;
	}
	s = hm_token_bytes(id, &n);
	sp = hm_is_special(id);
	bad = !s || hm_utf8_valid_prefix(s, n) != n;
	if (!s)
		hm_buf_adds(&h, "?");
	else if (sp)
		hm_html_escape(&h, s, n);
	else
		hm__html_visible(&h, s, n);
	hm_buf_addc(&lz->tab, lz->tab.len ? ',' : '{');
	hm_buf_addc(&lz->tab, '"');
	base36(&lz->tab, id);
	hm_buf_adds(&lz->tab, sp ? "\":[\"tk sp\"," : bad ? "\":[\"tk bad\"," : "\":[\"tk\",");
	hm__html_json_str(&lz->tab, h.p ? h.p : "", h.len);
	hm_buf_adds(&lz->tab, !sp && s && n && s[n - 1] == '\n' ? ",1]" : ",0]");
	if (h.oom)
		lz->tab.oom = 1;
	hm_buf_free(&h);
}

/* Tokens v[from..to), drawn when their fold opens. */
static void
lazy_boxes(hm_buf *out, struct lazy *lz, const uint32_t *v, size_t from, size_t to)
{
	hm_buf_adds(out, "<div class=\"tokens lazy\" data-from=\"");
	hm_buf_addu(out, from);
	hm_buf_adds(out, "\" data-ids=\"");
	for (size_t k = from; k < to; k++) {
		if (k > from)
			hm_buf_addc(out, ',');
		base36(out, v[k]);
		lazy_note(lz, v[k]);
	}
	hm_buf_adds(out, "\"></div>");
}

/* The record's table, after its folds. */
static void
lazy_end(hm_buf *out, struct lazy *lz)
{
	if (lz->tab.len) {
		hm_buf_adds(out, "<script type=\"application/json\" class=\"hm-tok\">");
		hm_buf_add(out, lz->tab.p, lz->tab.len);
		hm_buf_adds(out, "}</script>\n");
	}
	if (lz->tab.oom)
		out->oom = 1;
}


/*
 * A run of tokens across the columns: folded when fold (what: "before" or
 * "after" the difference, both: a run both sides share; else a record on
 * one side only), else shown.
 */
static void
shared(hm_buf *out, struct lazy *lz, const uint32_t *v, size_t from, size_t to, int fold,
       const char *what, int both)
{
	if (from >= to)
		return;
	if (fold) {
		hm_buf_adds(out, "<details class=\"fold same both\" data-from=\"");
		hm_buf_addu(out, from);
		hm_buf_adds(out, "\" data-tokens=\"");
		hm_buf_addu(out, to - from);
		hm_buf_adds(out, "\"><summary>");
		hm_buf_addu(out, to - from);
		hm_buf_adds(out, to - from == 1 ? " token " : " tokens ");
		hm_buf_adds(out, what);
		if (both) {
			hm_buf_adds(out, ", the same in both (A's tokens ");
			hm_buf_addu(out, from);
			hm_buf_adds(out, " to ");
			hm_buf_addu(out, to - 1);
			hm_buf_addc(out, ')');
		}
		hm_buf_adds(out, "</summary>");
		lazy_boxes(out, lz, v, from, to);
		hm_buf_adds(out, "</details>\n");
		return;
	}
	hm_buf_adds(out, "<div class=\"same both\" data-from=\"");
	hm_buf_addu(out, from);
	hm_buf_adds(out, "\" data-tokens=\"");
	hm_buf_addu(out, to - from);
	hm_buf_adds(out, "\">");
	boxes(out, v, from, to);
	hm_buf_adds(out, "</div>\n");
}

/* One side's differing part s->ids[i..to), the token at i marked (or its end). */
static void
side(hm_buf *out, struct lazy *lz, const hm_diff_side *s, size_t i, size_t to, const char *cls)
{
	size_t shown = to - i > SHOWN ? i + SHOWN : to;

	hm_buf_adds(out, "<div class=\"side ");
	hm_buf_adds(out, cls);
	hm_buf_adds(out, "\" data-from=\"");
	hm_buf_addu(out, i);
	hm_buf_adds(out, "\" data-tokens=\"");
	hm_buf_addu(out, to - i);
	hm_buf_adds(out, "\"><span class=\"mark\" title=\"first difference\">&#8800;</span>");
	if (i == s->len) {
		hm_buf_adds(out, "<span class=\"endtk first\">[end]</span>");
	} else if (i == to) {
		hm_buf_adds(out, "<span class=\"none\">(nothing here: the rest is the same)</span>");
	} else {
		/* the first token's box, marked by a class of its own */
		hm_buf_adds(out, "<span class=\"first\" data-first=\"");
		hm_buf_addu(out, i);
		hm_buf_adds(out, "\">");
		hm_html_token(out, i, s->ids[i]);
		hm_buf_adds(out, "</span>");
		boxes(out, s->ids, i + 1, shown);
		if (shown < to) {
			hm_buf_adds(out, "<details class=\"fold\"><summary>");
			hm_buf_addu(out, to - shown);
			hm_buf_adds(out, " more tokens that differ</summary>");
			lazy_boxes(out, lz, s->ids, shown, to);
			hm_buf_adds(out, "</details>");
		}
	}
	hm_buf_adds(out, "</div>\n");
}

static void
attr_str(hm_buf *out, const char *name, const hm_str *s)
{
	hm_buf_addc(out, ' ');
	hm_buf_adds(out, name);
	hm_buf_adds(out, "=\"");
	if (has(s))
		hm_html_escape(out, s->p, s->len);
	hm_buf_addc(out, '"');
}

/* "in: PLACE" for one side (sign '-', '+') or both (' '), with the place as data. */
static void
place_line(hm_buf *out, hm_buf *tmp, char sign, const hm_place *pl)
{
	hm_buf_adds(out, "<p class=\"in\" data-side=\"");
	hm_buf_adds(out, sign == '-' ? "a" : sign == '+' ? "b" : "both");
	hm_buf_adds(out, "\" data-part=\"");
	hm_buf_adds(out, pl->part == HM_PLACE_UNKNOWN ? "" : hm_place_part_name(pl->part));
	hm_buf_adds(out, "\" data-message=\"");
	hm_buf_addu(out, pl->message);
	hm_buf_addc(out, '"');
	attr_str(out, "data-role", &pl->role);
	attr_str(out, "data-recipient", &pl->recipient);
	attr_str(out, "data-channel", &pl->channel);
	hm_buf_adds(out, pl->unfinished ? " data-unfinished=\"1\">" : ">");
	if (sign != ' ') {
		hm_buf_addc(out, sign);
		hm_buf_addc(out, ' ');
	}
	hm_buf_adds(out, "in: <b>");
	hm_buf_reset(tmp);
	hm_place_describe(tmp, pl);
	if (tmp->oom)
		out->oom = 1;
	hm_html_escape(out, tmp->p ? tmp->p : "", tmp->len);
	hm_buf_adds(out, "</b></p>\n");
}


/* The head of a record's section, as the text report says it. */
static void
head(hm_buf *out, hm_buf *tmp, const hm_diff_side *a, const hm_diff_side *b, const char *key,
     unsigned flags)
{
	hm_buf_reset(tmp);
	hm_diff_head(tmp, a, b, key, flags);
	hm_buf_adds(out, "<h2 class=\"head\">");
	hm_html_escape(out, tmp->p ? tmp->p : "", tmp->len);
	hm_buf_adds(out, "</h2>\n");
	if (tmp->oom)
		out->oom = 1;
}

static void
col_head(hm_buf *out, const char *name, const hm_diff_side *s)
{
	hm_buf_adds(out, "<div class=\"colh\">");
	hm_buf_adds(out, name);
	hm_buf_adds(out, ": ");
	hm_html_escape(out, s->file, strlen(s->file));
	hm_buf_addc(out, ':');
	hm_buf_addu(out, s->line);
	hm_buf_adds(out, ", ");
	hm_buf_addu(out, s->len);
	hm_buf_adds(out, s->len == 1 ? " token</div>" : " tokens</div>");
}

hm_status
hm_diff_page_record(hm_buf *out, const hm_diff_side *a, const hm_diff_side *b, const char *key,
                    size_t context, unsigned flags)
{
	hm_buf tmp = { 0 };
	hm_place pa = { 0 }, pb = { 0 };
	size_t i, tail = 0, lo, ma, mb, n;
	int ina, inb;
	hm_status st = HM_OK;
	struct lazy lz = { { 0 }, NULL, 0 };

	if (!lazy_init(&lz, (a ? a->len : 0) + (b ? b->len : 0)))
		return HM_ENOMEM;
	if (!a || !b) {
		const hm_diff_side *s = a ? a : b;

		hm_buf_adds(out, "<section class=\"diff\" data-kind=\"");
		hm_buf_adds(out, a ? "only_a" : "only_b");
		hm_buf_adds(out, "\" data-tokens=\"");
		hm_buf_addu(out, s->len);
		hm_buf_adds(out, "\">\n");
		head(out, &tmp, a, b, key, flags);
		hm_buf_adds(out, "<div class=\"cols\">");
		shared(out, &lz, s->ids, 0, s->len, 1, "of this record, on one side only", 0);
		hm_buf_adds(out, "</div>\n");
		lazy_end(out, &lz);
		hm_buf_adds(out, "</section>\n");
		hm_buf_free(&tmp);
		hm_buf_free(&lz.tab);
		free(lz.seen);
		return out->oom ? HM_ENOMEM : HM_OK;
	}
	i = hm_diff_first(a, b);
	ina = i < a->len;
	inb = i < b->len;
	/* the common tail, never reaching back over the first difference */
	n = a->len < b->len ? a->len : b->len;
	while (tail < n - i && a->ids[a->len - 1 - tail] == b->ids[b->len - 1 - tail])
		tail++;
	ma = a->len - tail;
	mb = b->len - tail;
	lo = i > context ? i - context : 0;
	if ((ina && hm_ids_place(a->ids, a->len, i, &pa) != HM_OK) ||
	    (inb && hm_ids_place(b->ids, b->len, i, &pb) != HM_OK)) {
		st = HM_ENOMEM;
		goto done;
	}
	hm_buf_adds(out, "<section class=\"diff\" data-kind=\"");
	hm_buf_adds(out, ina && inb ? "differ" : "length");
	hm_buf_adds(out, "\" data-token=\"");
	hm_buf_addu(out, i);
	hm_buf_adds(out, "\" data-tail=\"");
	hm_buf_addu(out, tail);
	hm_buf_adds(out, "\">\n");
	head(out, &tmp, a, b, key, flags);
	if (ina && inb && hm_place_same(&pa, &pb)) {
		place_line(out, &tmp, ' ', &pa);
	} else {
		if (ina)
			place_line(out, &tmp, '-', &pa);
		if (inb)
			place_line(out, &tmp, '+', &pb);
	}
	hm_buf_adds(out, "<div class=\"cols\">\n");
	col_head(out, "A", a);
	col_head(out, "B", b);
	hm_buf_addc(out, '\n');
	shared(out, &lz, a->ids, 0, lo, 1, "before", 1);
	shared(out, &lz, a->ids, lo, i, 0, NULL, 1);
	side(out, &lz, a, i, ma, "a");
	side(out, &lz, b, i, mb, "b");
	n = tail > context ? context : tail;
	shared(out, &lz, a->ids, ma, ma + n, 0, NULL, 1);
	shared(out, &lz, a->ids, ma + n, a->len, 1, "after", 1);
	hm_buf_adds(out, "</div>\n");
	lazy_end(out, &lz);
	hm_buf_adds(out, "</section>\n");
	if (tmp.oom)
		out->oom = 1;
	st = out->oom ? HM_ENOMEM : HM_OK;
done:
	hm_place_free(&pa);
	hm_place_free(&pb);
	hm_buf_free(&tmp);
	hm_buf_free(&lz.tab);
	free(lz.seen);
	return st;
}

hm_status
hm_diff_page_end(hm_buf *out, size_t reports, const char *note)
{
	hm_buf_adds(out, "<p class=\"sum\" data-reports=\"");
	hm_buf_addu(out, reports);
	hm_buf_adds(out, "\">");
	if (!reports)
		hm_buf_adds(out, "No record differs.");
	else {
		hm_buf_addu(out, reports);
		hm_buf_adds(out, reports == 1 ? " record differs." : " records differ.");
	}
	hm_buf_adds(out, "</p>\n");
	if (note) {
		hm_buf_adds(out, "<p class=\"sum note\">");
		hm_html_escape(out, note, strlen(note));
		hm_buf_adds(out, "</p>\n");
	}
	hm_html_page_end(out);
	return out->oom ? HM_ENOMEM : HM_OK;
}
