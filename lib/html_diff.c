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

#include "buf_int.h"
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

static void
place_describe(int *nm, hm_buf *b, const hm_place *pl)
{
	int paren = has(&pl->role) || has(&pl->recipient) || has(&pl->channel);
	const char *sep = " (";

	switch (pl->part) {
	case HM_PLACE_HEADER: hm__adds(nm, b, "header of message "); break;
	case HM_PLACE_CONTENT: hm__adds(nm, b, "content of message "); break;
	case HM_PLACE_STOP: hm__adds(nm, b, "stop token of message "); break;
	case HM_PLACE_OUTSIDE:
		if (!pl->message) {
			hm__adds(nm, b, "before the first message, outside any message");
			return;
		}
		hm__adds(nm, b, "after message ");
		hm__addu(nm, b, pl->message);
		hm__adds(nm, b, ", outside any message");
		return;
	case HM_PLACE_UNKNOWN:
		break;
	}
	hm__addu(nm, b, pl->message);
	if (paren) {
		if (has(&pl->role)) {
			hm__adds(nm, b, sep);
			hm__adds(nm, b, "role ");
			hm__add(nm, b, pl->role.p, pl->role.len);
			sep = ", ";
		}
		if (has(&pl->recipient)) {
			hm__adds(nm, b, sep);
			hm__adds(nm, b, "to ");
			hm__add(nm, b, pl->recipient.p, pl->recipient.len);
			sep = ", ";
		}
		if (has(&pl->channel)) {
			hm__adds(nm, b, sep);
			hm__adds(nm, b, "channel ");
			hm__add(nm, b, pl->channel.p, pl->channel.len);
		}
		hm__putc(nm, b, ')');
	}
	if (pl->unfinished)
		hm__adds(nm, b, ", unfinished");
}

void
hm_place_describe(hm_buf *b, const hm_place *pl)
{
	place_describe(&b->oom, b, pl); /* b, the caller's, stands alone */
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

/* A place in a side's text: token i, byte off of it (s, n its bytes). */
struct tcur {
	const uint32_t *ids;
	size_t len, i, off, n;
	const char *s;
};

/* Past the tokens with no bytes left: at a byte, or at the end (i == len). */
static void
tcur_settle(struct tcur *c)
{
	while (c->i < c->len) {
		if (!c->s) {
			c->s = hm_token_bytes(c->ids[c->i], &c->n);
			if (!c->s)
				c->s = "", c->n = 0;
		}
		if (c->off < c->n)
			return;
		c->i++;
		c->off = 0;
		c->s = NULL;
	}
}

void
hm_diff_text_of(const hm_diff_side *a, const hm_diff_side *b, unsigned flags, hm_diff_text *t)
{
	struct tcur x = { a->ids, a->len, 0, 0, 0, NULL }, y = { b->ids, b->len, 0, 0, 0, NULL };
	uint64_t byte = 0;
	size_t k, j;

	/* both texts walked a token at a time, in step: nothing is copied */
	for (;;) {
		tcur_settle(&x);
		tcur_settle(&y);
		if (x.i == x.len || y.i == y.len)
			break;
		k = x.n - x.off < y.n - y.off ? x.n - x.off : y.n - y.off;
		for (j = 0; j < k && x.s[x.off + j] == y.s[y.off + j]; j++)
			;
		byte += j;
		x.off += j;
		y.off += j;
		if (j < k)
			break;
	}
	t->same = x.i == x.len && (y.i == y.len || (flags & HM_DIFF_PREFIX));
	t->byte = byte;
	t->token_a = x.i;
	t->token_b = y.i;
}

/* Where one side's text leaves the other's: "token N of FILE", or that it ended. */
static void
drift_side(int *nm, hm_buf *out, size_t token, size_t len, const char *file)
{
	if (token < len) {
		hm__adds(nm, out, "token ");
		hm__addu(nm, out, token);
		hm__adds(nm, out, " of ");
		hm__adds(nm, out, file);
	} else {
		hm__adds(nm, out, file);
		hm__adds(nm, out, "'s text ends there");
	}
}

static void
text_describe(int *nm, hm_buf *out, const hm_diff_text *t, const hm_diff_side *a,
              const hm_diff_side *b, unsigned flags)
{
	if (t->same) {
		if (flags & HM_DIFF_PREFIX) {
			hm__adds(nm, out, b->file);
			hm__adds(nm, out, "'s text starts with ");
			hm__adds(nm, out, a->file);
			hm__adds(nm, out, "'s");
		} else {
			hm__adds(nm, out, "the same text");
		}
		hm__adds(nm, out, ": a retokenization (the ids changed, the decoded text did not)");
		return;
	}
	hm__adds(nm, out, "the text changed too, from byte ");
	hm__addu(nm, out, t->byte);
	hm__adds(nm, out, " (");
	drift_side(nm, out, t->token_a, a->len, a->file);
	hm__adds(nm, out, ", ");
	drift_side(nm, out, t->token_b, b->len, b->file);
	hm__putc(nm, out, ')');
}

void
hm_diff_text_describe(hm_buf *out, const hm_diff_text *t, const hm_diff_side *a,
                      const hm_diff_side *b, unsigned flags)
{
	text_describe(&out->oom, out, t, a, b, flags); /* out, the caller's, stands alone */
}

static void
diff_head(int *nm, hm_buf *out, const hm_diff_side *a, const hm_diff_side *b,
          const char *key, unsigned flags)
{
	const hm_diff_side *s = a ? a : b;
	size_t i;

	if (a) {
		hm__adds(nm, out, a->file);
		hm__putc(nm, out, ':');
		hm__addu(nm, out, a->line);
	}
	if (a && b)
		hm__putc(nm, out, ' ');
	if (b) {
		hm__adds(nm, out, b->file);
		hm__putc(nm, out, ':');
		hm__addu(nm, out, b->line);
	}
	hm__adds(nm, out, ": ");
	if (key && s->key) {
		hm__adds(nm, out, key);
		hm__putc(nm, out, ' ');
		hm__adds(nm, out, s->key);
		hm__adds(nm, out, ": ");
	}
	if (!a || !b) {
		hm__adds(nm, out, "only in ");
		hm__adds(nm, out, s->file);
		hm__adds(nm, out, " (");
		hm__addu(nm, out, s->len);
		hm__adds(nm, out, s->len == 1 ? " token)" : " tokens)");
		return;
	}
	i = hm_diff_first(a, b);
	if (i < a->len && i < b->len && (flags & HM_DIFF_PREFIX)) {
		hm__adds(nm, out, b->file);
		hm__adds(nm, out, " stops extending ");
		hm__adds(nm, out, a->file);
		hm__adds(nm, out, " at token ");
		hm__addu(nm, out, i);
	} else if (i < a->len && i < b->len) {
		hm__adds(nm, out, "first difference at token ");
		hm__addu(nm, out, i);
	} else {
		int ina = i < a->len;

		hm__adds(nm, out, ina ? b->file : a->file);
		hm__adds(nm, out, " ends at token ");
		hm__addu(nm, out, i);
		hm__adds(nm, out, ", ");
		hm__adds(nm, out, ina ? a->file : b->file);
		hm__adds(nm, out, " goes on");
	}
	hm__adds(nm, out, " (");
	hm__addu(nm, out, a->len);
	hm__adds(nm, out, " and ");
	hm__addu(nm, out, b->len);
	hm__adds(nm, out, " tokens");
	if (flags & HM_DIFF_PREFIX) {
		hm__adds(nm, out, "; ");
		hm__addu(nm, out, i);
		hm__adds(nm, out, " reused, ");
		hm__addu(nm, out, b->len - i);
		hm__adds(nm, out, " recomputed");
	}
	hm__putc(nm, out, ')');
}

void
hm_diff_head(hm_buf *out, const hm_diff_side *a, const hm_diff_side *b, const char *key,
             unsigned flags)
{
	diff_head(&out->oom, out, a, b, key, flags); /* out, the caller's, stands alone */
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
".colh{font-weight:bold;font-size:13px;border-bottom:1px solid #767676}\n"
".fold>summary{cursor:pointer;font-size:13px;color:#333;padding:.15em 0}\n"
".same{background:#f6f6f6;border-left:4px solid #767676;padding-left:.4em}\n"
".side{border-left:4px solid #789;padding-left:.4em;min-height:1.6em}\n"
".side.a{border-left-style:dashed}\n"
".first>.tk,.endtk.first{outline:3px solid #b00;outline-offset:1px}\n"
".mark{font:bold 12px ui-monospace,monospace;border:1px solid #b00;color:#900;"
"background:#fee;padding:0 3px;margin-right:2px;vertical-align:top}\n"
".endtk{font:italic 13px ui-monospace,monospace;border:1px dashed #555;padding:0 3px}\n"
".none{color:#555;font-style:italic}\n"
".drift{margin:.3em 0;font-size:14px;padding:.1em .5em;border:2px solid #555}\n"
".drift.retok{border-style:dashed}\n"
".drift b{font-variant:small-caps}\n";

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
	int *nm = &out->oom; /* out, the caller's, stands alone: the page's flag */

	hm__html_page_begin(nm, out, "Token diff", diff_css, diff_js);
	hm__adds(nm, out, "<p class=\"files\">A: <b>");
	hm__html_escape(nm, out, file_a, strlen(file_a));
	hm__adds(nm, out, "</b>, B: <b>");
	hm__html_escape(nm, out, file_b, strlen(file_b));
	hm__adds(nm, out, "</b>; records paired ");
	if (key) {
		hm__adds(nm, out, "by their <code>");
		hm__html_escape(nm, out, key, strlen(key));
		hm__adds(nm, out, "</code>");
	} else {
		hm__adds(nm, out, "by line");
	}
	if (flags & HM_DIFF_PREFIX)
		hm__adds(nm, out, "; each record of B must start with its record of A");
	hm__adds(nm, out, ".  Each differing record below: A on the left, B on the right, from "
	    "their first difference (marked <span class=\"mark\">&#8800;</span>) on; the runs "
	    "both share are folded (open them to see their tokens).</p>\n"
	    "<details class=\"keys\"><summary>Keys</summary>On a token: d and D the next and "
	    "previous record's first difference, \xe2\x86\x90 \xe2\x86\x92 token, "
	    "\xe2\x86\x91 \xe2\x86\x93 message (its <|start|>), Home and End the page's "
	    "first and last token. Tab reaches the first token.</details>\n");
}

/* Tokens v[from..to) as boxes (numbered from their index), a message a line. */
static void
boxes(int *nm, hm_buf *out, const uint32_t *v, size_t from, size_t to)
{
	for (size_t k = from; k < to; k++) {
		if (v[k] == TOKEN_START && k > from)
			hm__adds(nm, out, "<br>");
		hm__html_token(nm, out, k, v[k]);
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
	int *nomem;            /* the page's flag */
};

/*
 * The set of a record's ids, sized by the record (both sides' ids), so
 * that a page of many short records zeroes little for each.
 */
static hm_status
lazy_init(struct lazy *lz, size_t nids, int *nm)
{
	size_t cap = 64;

	while (cap < 2 * nids && cap < ((size_t)1 << 40))
		cap *= 2;
	lz->mask = cap - 1;
	lz->nomem = nm;
	if (!(lz->seen = calloc(cap, sizeof *lz->seen))) {
		*nm = 1;
		return HM_ENOMEM;
	}
	return HM_OK;
}

static void
base36(int *nm, hm_buf *out, uint32_t v)
{
	char d[8];
	int n = 0;

	do
		d[n++] = "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36];
	while ((v /= 36));
	while (n)
		hm__putc(nm, out, d[--n]);
}

/* Token id's entry in the record's table, unless it is there. */
static void
lazy_note(struct lazy *lz, uint32_t id)
{
	hm_buf h = { 0 };
	size_t n = 0;
	const char *s;
	int sp, bad, *nm = lz->nomem;

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
		hm__adds(nm, &h, "?");
	else if (sp)
		hm__html_escape(nm, &h, s, n);
	else
		hm__html_visible(nm, &h, s, n);
	hm__putc(nm, &lz->tab, lz->tab.len ? ',' : '{');
	hm__putc(nm, &lz->tab, '"');
	base36(nm, &lz->tab, id);
	hm__adds(nm, &lz->tab, sp ? "\":[\"tk sp\"," : bad ? "\":[\"tk bad\"," : "\":[\"tk\",");
	hm__html_json_str(nm, &lz->tab, h.p ? h.p : "", h.len);
	hm__adds(nm, &lz->tab, !sp && s && n && s[n - 1] == '\n' ? ",1]" : ",0]");
	hm_buf_free(&h);
}

/* Tokens v[from..to), drawn when their fold opens. */
static void
lazy_boxes(hm_buf *out, struct lazy *lz, const uint32_t *v, size_t from, size_t to)
{
	int *nm = lz->nomem;

	hm__adds(nm, out, "<div class=\"tokens lazy\" data-from=\"");
	hm__addu(nm, out, from);
	hm__adds(nm, out, "\" data-ids=\"");
	for (size_t k = from; k < to; k++) {
		if (k > from)
			hm__putc(nm, out, ',');
		base36(nm, out, v[k]);
		lazy_note(lz, v[k]);
	}
	hm__adds(nm, out, "\"></div>");
}

/* The record's table, after its folds. */
static void
lazy_end(hm_buf *out, struct lazy *lz)
{
	int *nm = lz->nomem;

	if (lz->tab.len) {
		hm__adds(nm, out, "<script type=\"application/json\" class=\"hm-tok\">");
		hm__add(nm, out, lz->tab.p, lz->tab.len);
		hm__adds(nm, out, "}</script>\n");
	}
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
	int *nm = lz->nomem;

	if (from >= to)
		return;
	if (fold) {
		hm__adds(nm, out, "<details class=\"fold same both\" data-from=\"");
		hm__addu(nm, out, from);
		hm__adds(nm, out, "\" data-tokens=\"");
		hm__addu(nm, out, to - from);
		hm__adds(nm, out, "\"><summary>");
		hm__addu(nm, out, to - from);
		hm__adds(nm, out, to - from == 1 ? " token " : " tokens ");
		hm__adds(nm, out, what);
		if (both) {
			hm__adds(nm, out, ", the same in both (A's tokens ");
			hm__addu(nm, out, from);
			hm__adds(nm, out, " to ");
			hm__addu(nm, out, to - 1);
			hm__putc(nm, out, ')');
		}
		hm__adds(nm, out, "</summary>");
		lazy_boxes(out, lz, v, from, to);
		hm__adds(nm, out, "</details>\n");
		return;
	}
	hm__adds(nm, out, "<div class=\"same both\" data-from=\"");
	hm__addu(nm, out, from);
	hm__adds(nm, out, "\" data-tokens=\"");
	hm__addu(nm, out, to - from);
	hm__adds(nm, out, "\">");
	boxes(nm, out, v, from, to);
	hm__adds(nm, out, "</div>\n");
}

/* One side's differing part s->ids[i..to), the token at i marked (or its end). */
static void
side(hm_buf *out, struct lazy *lz, const hm_diff_side *s, size_t i, size_t to, const char *cls)
{
	size_t shown = to - i > SHOWN ? i + SHOWN : to;
	int *nm = lz->nomem;

	hm__adds(nm, out, "<div class=\"side ");
	hm__adds(nm, out, cls);
	hm__adds(nm, out, "\" data-from=\"");
	hm__addu(nm, out, i);
	hm__adds(nm, out, "\" data-tokens=\"");
	hm__addu(nm, out, to - i);
	hm__adds(nm, out, "\"><span class=\"mark\" title=\"first difference\">&#8800;</span>");
	if (i == s->len) {
		hm__adds(nm, out, "<span class=\"endtk first\">[end]</span>");
	} else if (i == to) {
		hm__adds(nm, out, "<span class=\"none\">(nothing here: the rest is the same)</span>");
	} else {
		/* the first token's box, marked by a class of its own */
		hm__adds(nm, out, "<span class=\"first\" data-first=\"");
		hm__addu(nm, out, i);
		hm__adds(nm, out, "\">");
		hm__html_token(nm, out, i, s->ids[i]);
		hm__adds(nm, out, "</span>");
		boxes(nm, out, s->ids, i + 1, shown);
		if (shown < to) {
			hm__adds(nm, out, "<details class=\"fold\"><summary>");
			hm__addu(nm, out, to - shown);
			hm__adds(nm, out, " more tokens that differ</summary>");
			lazy_boxes(out, lz, s->ids, shown, to);
			hm__adds(nm, out, "</details>");
		}
	}
	hm__adds(nm, out, "</div>\n");
}

static void
attr_str(int *nm, hm_buf *out, const char *name, const hm_str *s)
{
	hm__putc(nm, out, ' ');
	hm__adds(nm, out, name);
	hm__adds(nm, out, "=\"");
	if (has(s))
		hm__html_escape(nm, out, s->p, s->len);
	hm__putc(nm, out, '"');
}

/* "in: PLACE" for one side (sign '-', '+') or both (' '), with the place as data. */
static void
place_line(int *nm, hm_buf *out, hm_buf *tmp, char sign, const hm_place *pl)
{
	hm__adds(nm, out, "<p class=\"in\" data-side=\"");
	hm__adds(nm, out, sign == '-' ? "a" : sign == '+' ? "b" : "both");
	hm__adds(nm, out, "\" data-part=\"");
	hm__adds(nm, out, pl->part == HM_PLACE_UNKNOWN ? "" : hm_place_part_name(pl->part));
	hm__adds(nm, out, "\" data-message=\"");
	hm__addu(nm, out, pl->message);
	hm__putc(nm, out, '"');
	attr_str(nm, out, "data-role", &pl->role);
	attr_str(nm, out, "data-recipient", &pl->recipient);
	attr_str(nm, out, "data-channel", &pl->channel);
	hm__adds(nm, out, pl->unfinished ? " data-unfinished=\"1\">" : ">");
	if (sign != ' ') {
		hm__putc(nm, out, sign);
		hm__putc(nm, out, ' ');
	}
	hm__adds(nm, out, "in: <b>");
	hm_buf_reset(tmp);
	place_describe(nm, tmp, pl);
	hm__html_escape(nm, out, tmp->p ? tmp->p : "", tmp->len);
	hm__adds(nm, out, "</b></p>\n");
}


/* The head of a record's section, as the text report says it. */
static void
head(int *nm, hm_buf *out, hm_buf *tmp, const hm_diff_side *a, const hm_diff_side *b,
     const char *key, unsigned flags)
{
	hm_buf_reset(tmp);
	diff_head(nm, tmp, a, b, key, flags);
	hm__adds(nm, out, "<h2 class=\"head\">");
	hm__html_escape(nm, out, tmp->p ? tmp->p : "", tmp->len);
	hm__adds(nm, out, "</h2>\n");
}

static void
col_head(int *nm, hm_buf *out, const char *name, const hm_diff_side *s)
{
	hm__adds(nm, out, "<div class=\"colh\">");
	hm__adds(nm, out, name);
	hm__adds(nm, out, ": ");
	hm__html_escape(nm, out, s->file, strlen(s->file));
	hm__putc(nm, out, ':');
	hm__addu(nm, out, s->line);
	hm__adds(nm, out, ", ");
	hm__addu(nm, out, s->len);
	hm__adds(nm, out, s->len == 1 ? " token</div>" : " tokens</div>");
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
	struct lazy lz = { { 0 }, NULL, 0, NULL };
	hm_diff_text td;
	int *nm = &out->oom; /* out, the caller's, stands alone: the page's flag */

	if (lazy_init(&lz, (a ? a->len : 0) + (b ? b->len : 0), nm) != HM_OK)
		return HM_ENOMEM;
	if (!a || !b) {
		const hm_diff_side *s = a ? a : b;

		hm__adds(nm, out, "<section class=\"diff\" data-kind=\"");
		hm__adds(nm, out, a ? "only_a" : "only_b");
		hm__adds(nm, out, "\" data-tokens=\"");
		hm__addu(nm, out, s->len);
		hm__adds(nm, out, "\">\n");
		head(nm, out, &tmp, a, b, key, flags);
		hm__adds(nm, out, "<div class=\"cols\">");
		shared(out, &lz, s->ids, 0, s->len, 1, "of this record, on one side only", 0);
		hm__adds(nm, out, "</div>\n");
		lazy_end(out, &lz);
		hm__adds(nm, out, "</section>\n");
		hm_buf_free(&tmp);
		hm_buf_free(&lz.tab);
		free(lz.seen);
		return *nm ? HM_ENOMEM : HM_OK;
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
		*nm = 1;
		st = HM_ENOMEM;
		goto done;
	}
	hm__adds(nm, out, "<section class=\"diff\" data-kind=\"");
	hm__adds(nm, out, ina && inb ? "differ" : "length");
	hm__adds(nm, out, "\" data-token=\"");
	hm__addu(nm, out, i);
	hm__adds(nm, out, "\" data-tail=\"");
	hm__addu(nm, out, tail);
	hm__adds(nm, out, "\">\n");
	head(nm, out, &tmp, a, b, key, flags);
	if (ina && inb && hm_place_same(&pa, &pb)) {
		place_line(nm, out, &tmp, ' ', &pa);
	} else {
		if (ina)
			place_line(nm, out, &tmp, '-', &pa);
		if (inb)
			place_line(nm, out, &tmp, '+', &pb);
	}
	/* the drift named: the same text (a retokenization) or a changed one */
	hm_diff_text_of(a, b, flags, &td);
	hm__adds(nm, out, td.same ? "<p class=\"drift retok\" data-drift=\"retokenization\">" :
	    "<p class=\"drift text\" data-drift=\"text\" data-byte=\"");
	if (!td.same) {
		hm__addu(nm, out, td.byte);
		hm__adds(nm, out, "\">");
	}
	hm__adds(nm, out, td.same ? "<b>Retokenized</b> " : "<b>Text changed</b> ");
	hm_buf_reset(&tmp);
	text_describe(nm, &tmp, &td, a, b, flags);
	hm__html_escape(nm, out, tmp.p ? tmp.p : "", tmp.len);
	hm__adds(nm, out, "</p>\n");
	hm__adds(nm, out, "<div class=\"cols\">\n");
	col_head(nm, out, "A", a);
	col_head(nm, out, "B", b);
	hm__putc(nm, out, '\n');
	shared(out, &lz, a->ids, 0, lo, 1, "before", 1);
	shared(out, &lz, a->ids, lo, i, 0, NULL, 1);
	side(out, &lz, a, i, ma, "a");
	side(out, &lz, b, i, mb, "b");
	n = tail > context ? context : tail;
	shared(out, &lz, a->ids, ma, ma + n, 0, NULL, 1);
	shared(out, &lz, a->ids, ma + n, a->len, 1, "after", 1);
	hm__adds(nm, out, "</div>\n");
	lazy_end(out, &lz);
	hm__adds(nm, out, "</section>\n");
	st = *nm ? HM_ENOMEM : HM_OK;
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
	int *nm = &out->oom; /* out, the caller's, stands alone: the page's flag */

	hm__adds(nm, out, "<p class=\"sum\" data-reports=\"");
	hm__addu(nm, out, reports);
	hm__adds(nm, out, "\">");
	if (!reports)
		hm__adds(nm, out, "No record differs.");
	else {
		hm__addu(nm, out, reports);
		hm__adds(nm, out, reports == 1 ? " record differs." : " records differ.");
	}
	hm__adds(nm, out, "</p>\n");
	if (note) {
		hm__adds(nm, out, "<p class=\"sum note\">");
		hm__html_escape(nm, out, note, strlen(note));
		hm__adds(nm, out, "</p>\n");
	}
	hm__html_page_end(nm, out);
	return *nm ? HM_ENOMEM : HM_OK;
}
