/*
 * html_int.h - the HTML pages' core, shared by every page the tools write
 * (harmony-tokens inspect/diff, harmony-render, harmony-parse --to html
 * and --to report).  html.c holds it.
 *
 * The interface, for whoever writes a page (public ones in harmony.h,
 * usable from cmd/ too; internal ones here, for lib/ alone):
 *
 *   hm_html_page_begin(b, title, css, js)  public: doctype, <meta
 *       charset=utf-8>, the title, the common <style> and <script> (then
 *       css and js of the page's own, NULL for none), <body><main> (the
 *       page's one landmark: all it shows is inside), the page's <h1> and
 *       the status line (#hm-tip) that hover and focus fill.
 *       One self-contained file: nothing is fetched, it works from file://.
 *   hm_html_page_end(b)       public: </main></body></html>.
 *   hm_html_escape(b, s, n)   public: text for an element or an attribute
 *       value in double quotes (& < > " ' escaped; invalid UTF-8 as
 *       U+FFFD, so the page stays valid UTF-8).
 *   hm_html_token(b, index, id)  public: one token as a static box:
 *       <span class="tk[ sp| bad]" tabindex="-1" data-i="INDEX"
 *       data-id="ID">VISIBLE</span>, and <br> after a token that ends in
 *       a newline.  The common script shows a box's
 *       index, id, kind and text in #hm-tip on hover and focus, and moves
 *       the focus between boxes in document order: left and right a box,
 *       up and down a message (the next <|start|>), Home and End to the
 *       ends, d and D a diff's record; the first box gets tabindex 0 from
 *       the script.
 *   hm__html_visible(b, s, n)  the token's bytes as the box shows them:
 *       blanks drawn (space as a middle dot, tab, newline, CR as arrows,
 *       each in <span class="ws">), other control bytes and bytes that are
 *       not UTF-8 as \xNN (<span class="esc">), the rest escaped.
 *   hm__html_json_str(b, s, n)  a JSON string that is safe inside a
 *       <script> element (< > & and U+2028/9 as \u escapes).
 *   struct hm__hview + hm__hview_*  the lazy token view of a record (the
 *       ids and each distinct token's text kept compactly as JSON in the
 *       page, boxes made by the script only for what is on screen): see
 *       below.  The CSS classes the view and the static boxes share are
 *       .tk (a box), .sp (a special token: bold, double border, its name
 *       in angle brackets), .bad (bytes that are not UTF-8 alone: dashed
 *       border, \xNN), .ws (a drawn blank), .esc (a \xNN), .hit (a
 *       search match: thick dashed outline), .rec (a recovery's token:
 *       wavy underline, and a bordered <mark class="rtag"> with its F-code
 *       before it).  Colour is never the only signal: each kind has a
 *       border style or a text mark too.
 *   hm__html_toolbar_to(nm, b)  the search box (#hm-q), Next button and totals
 *       (#hm-total) of a page of token views.
 *
 * The style sheet and script are page_css[] and page_js[] in html.c, a C
 * string a line; edit them there.  The script defines one global, HM
 * (recs, view(no), find(q), next(d), focus(el), show(el)), and starts on
 * DOMContentLoaded: it notes each record's section (section.rec holding
 * script.hm-data and div.hv), reads and builds a record's view only as
 * it comes near the screen (or the keyboard or search needs it), and
 * wires hover, focus and keys for every .tk.  One token on the page has
 * tabindex 0: the focused one, or after a scroll one on the screen.
 *
 * Every append goes to an hm_buf and never fails on its own: out of memory
 * sets the flag of the page's owner, nm below (hm__add), for the caller to
 * check once.  The public forms without nm fill a buffer that stands
 * alone (its own flag, b->oom).
 */
#ifndef HM_HTML_INT_H
#define HM_HTML_INT_H

#include <stddef.h>
#include <stdint.h>

#include "harmony.h"

void hm__html_visible(int *nm, hm_buf *b, const char *s, size_t n);
void hm__html_json_str(int *nm, hm_buf *b, const char *s, size_t n);
/* hm_html_escape, hm_html_page_begin, hm_html_page_end, hm_html_token, owned. */
void hm__html_escape(int *nm, hm_buf *b, const char *s, size_t n);
void hm__html_page_begin(int *nm, hm_buf *b, const char *title, const char *css,
                         const char *js);
void hm__html_page_end(int *nm, hm_buf *b);
void hm__html_token(int *nm, hm_buf *b, size_t index, uint32_t id);

/*
 * One record's token view, built from the parser's events over it: begin,
 * then each event (START, END, WARNING, DONE; the others are ignored), then
 * end, which writes the record's <section> into the page.  A message runs
 * from its START to its stop token (included); tokens in no message show
 * as a group of their own.  Zero-initialise; free releases it.
 */
struct hm__hmsg {
	uint64_t from, to;  /* START's position, END's (DONE's when cut off) */
	size_t off, len;    /* its header parts as JSON in strs: "role",chan,rcpt,ctype,name */
	hm_stop stop;       /* HM_STOP_EOS: cut off */
};
struct hm__hwarn {
	uint64_t at;        /* the warning's position */
	int code;           /* HM_F_* */
	size_t off, len;    /* its text in strs */
};
struct hm__hview {
	hm_buf msgs;        /* struct hm__hmsg, one after another */
	hm_buf warns;       /* struct hm__hwarn, likewise */
	hm_buf strs;        /* the texts they point into */
	hm_buf page;        /* a bit a token id: its text is on the page (begin keeps it) */
	int open;           /* the last message has no END yet */
	unsigned flags;     /* HM__HV_* */
	int nomem;          /* an append to msgs, warns or strs failed (the
	                       record's view is lost: end says so); begin clears it */
};
enum {
	HM__HV_WARNINGS = 1 << 0, /* mark the parser's recoveries (parsed completions) */
};
void hm__hview_begin(struct hm__hview *v, unsigned flags);
void hm__hview_event(struct hm__hview *v, const hm_event *ev);
/*
 * The record's section into b: <section class="rec" data-n=TOKENS
 * data-m=MESSAGES data-w=RECOVERIES data-c=TEXT-BYTES> (what the script
 * needs to count and to guess the record's height before it reads the
 * data), its heading label[0..llen) (escaped), its counts, its recoveries
 * (a button each), the texts of its tokens new to the page (a bit a token
 * in v->page says which are not: <script type="application/json"
 * class="hm-voc">, left out when none is new), the ids and messages as
 * JSON in <script type="application/json" class="hm-data">, the view's
 * empty frame (filled by the page's script
 * when the record comes near the screen).  ids[0..n) are the
 * record's tokens; starts is NULL when the events' positions are token
 * indexes, else (text input) the byte offset of each token, n + 1 of them.
 * scratch is a buffer the caller keeps between records.  _to: b and
 * scratch are nm's owner's, and a view that lost an append sets *nm.
 */
void hm__hview_end_to(int *nm, struct hm__hview *v, hm_buf *b, const char *label,
                      size_t llen, const uint32_t *ids, size_t n, const uint64_t *starts,
                      hm_buf *scratch);
void hm__hview_free(struct hm__hview *v);

/* The toolbar of a page of token views: search box, next button, totals. */
void hm__html_toolbar_to(int *nm, hm_buf *b);

#endif
