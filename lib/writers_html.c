/*
 * writers_html.c - harmony-parse --to html: one HTML page of the records,
 * a section each, their tokens as boxes grouped into the messages the
 * parser found, each recovery marked at its token (html.c draws it; the
 * page's head comes with the first record, its end with the summary).
 *
 * The shape keeps the record's input (HM_WS_INPUT: the ids, or the text,
 * which is encoded at the end as hm_writer_record_text says) and the
 * events' positions; at DONE it writes the section.  For text, positions
 * are byte offsets: each token's offset maps them to token indexes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harmony.h"
#include "html_int.h"
#include "writers_int.h"

/*
 * The page's budget: a browser spends some 90 ms of CPU time a MB of page
 * to load it (a 10,000-record log of 24 MB makes a 20 MB page that loads
 * in 1.6 to 1.9 s of its renderer's CPU time, a 32 MB one in 3.1 s), so a
 * page of more would not open in under 3 s.  The
 * record that takes the page past it is the last one on it; a note in the
 * next one's place, and a warning, say how to cut the log.
 */
#define PAGE_BUDGET ((uint64_t)24 << 20)

struct html {
	struct hm__hview v;  /* the record's messages and recoveries */
	hm_buf scratch;      /* the distinct ids' marks */
	hm_buf label;        /* the record's heading */
	int head;            /* the page's head is written */
	hm_encoder *enc;     /* text input: made when first needed */
	hm_ids ids;          /* ... the text's ids */
	uint64_t *starts;    /* ... and where each starts, ids.len + 1 */
	size_t cap;          /* starts' room */
	uint64_t written;    /* the records' sections' bytes so far */
	size_t last;         /* the number of the last record on the page */
	int full;            /* the page is past its budget: records go unshown */
	int noted;           /* ... and the first of them said so */
};

static struct html *
html(const hm_writer *w)
{
	return w->st;
}

static void
head(hm_writer *w)
{
	if (html(w)->head)
		return;
	hm__html_page_begin(&w->nomem, &w->out, "harmony-parse", NULL, NULL);
	hm__html_toolbar_to(&w->nomem, &w->out);
	html(w)->head = 1;
}

static void
h_begin(hm_writer *w)
{
	hm__hview_begin(&html(w)->v, HM__HV_WARNINGS);
}

static void
h_event(hm_writer *w, const hm_event *ev)
{
	if (ev->type != HM_EV_DONE)
		hm__hview_event(&html(w)->v, ev);
}

/*
 * Text input: its ids (*ids, *n of them), and the byte where each starts
 * (*starts).
 */
static hm_status
text_ids(hm_writer *w, const uint32_t **ids, size_t *n, const uint64_t **starts)
{
	struct html *h = html(w);
	size_t i, len;
	uint64_t at = 0;

	*n = 0;
	if (!h->enc && !(h->enc = hm_encoder_new()))
		return w->nomem = 1, HM_ENOMEM;
	h->ids.len = 0;
	if (w->t_in.len && hm_encode(h->enc, w->t_in.p, w->t_in.len, HM_ENC_SPECIAL | HM_ENC_LOSSY,
	    &h->ids, NULL) != HM_OK)
		return w->nomem = 1, HM_ENOMEM;
	if (h->cap < h->ids.len + 1) {
		uint64_t *s = realloc(h->starts, (h->ids.len + 1) * sizeof *s);

		if (!s)
			return w->nomem = 1, HM_ENOMEM;
		h->starts = s;
		h->cap = h->ids.len + 1;
	}
	for (i = 0; i < h->ids.len; i++) {
		h->starts[i] = at;
		if (hm_token_bytes(h->ids.v[i], &len))
			at += len;
	}
	h->starts[i] = at;
	*starts = h->starts;
	*n = h->ids.len;
	*ids = h->ids.v;
	return HM_OK;
}

/*
 * A record comes when the page is full: a note in its place, and a warning
 * (hm_writer_warning), both saying how to cut the log.  Nothing after it
 * is written but the page's end: the page holds whole records only.
 */
static void
cut_here(hm_writer *w)
{
	struct html *h = html(w);
	int *nm = &w->nomem;

	h->noted = 1;
	hm__adds(nm, &w->out, "<section class=\"rec cut\" role=\"note\">\n<h2>The page ends here, "
	    "after record ");
	hm__addu(nm, &w->out, h->last);
	hm__adds(nm, &w->out, "</h2>\n<p>A page of more than 24 MB would not open in a browser in "
	    "good time: the records after this one are not on it. Cut the log and make a page of "
	    "each part, e.g. <code>split -l ");
	hm__addu(nm, &w->out, h->last);
	hm__adds(nm, &w->out, " LOG part.</code>, then a page of part.aa, one of part.ab and so on; "
	    "the report page sums up the whole log on one page.</p>\n</section>\n");
	hm_buf_reset(&w->warn);
	hm__adds(nm, &w->warn, "the page is full (24 MB) after record ");
	hm__addu(nm, &w->warn, h->last);
	hm__adds(nm, &w->warn, ": the records after it are not on it; cut the log (split -l ");
	hm__addu(nm, &w->warn, h->last);
	hm__adds(nm, &w->warn, ") and make a page of each part");
	w->warn_at = w->ntok;
	w->warn_set = !w->nomem; /* a failed append is in w->nomem: no warning to read */
}

static void
h_done(hm_writer *w)
{
	struct html *h = html(w);
	const uint32_t *ids = (const uint32_t *)(const void *)w->t_in.p;
	const uint64_t *starts = NULL;
	size_t n = w->t_in.len / sizeof *ids;
	hm_event done = { .type = HM_EV_DONE };
	size_t before = w->out.len;

	if (h->full) {
		if (!h->noted)
			cut_here(w);
		return;
	}
	done.at = w->ntok;
	hm__hview_event(&h->v, &done);
	head(w);
	if (w->t_text && text_ids(w, &ids, &n, &starts) != HM_OK)
		return;
	hm_buf_reset(&h->label);
	hm__adds(&w->nomem, &h->label, "record ");
	hm__addu(&w->nomem, &h->label, w->rec + 1);
	if (w->carried_id) {
		hm__adds(&w->nomem, &h->label, " (id ");
		hm__add(&w->nomem, &h->label, w->fields.p + w->id_off, w->id_len);
		hm__putc(&w->nomem, &h->label, ')');
	}
	if (w->truncated)
		hm__adds(&w->nomem, &h->label, ", cut off");
	hm__hview_end_to(&w->nomem, &h->v, &w->out, h->label.p ? h->label.p : "", h->label.len,
	    ids, n, starts, &h->scratch);
	h->last = w->rec + 1;
	h->written += w->out.len - before;
	h->full = h->written > PAGE_BUDGET;
}

static hm_status
h_summary(hm_writer *w)
{
	head(w);
	hm__html_page_end(&w->nomem, &w->out);
	return hm__w_status(w);
}

static void
h_free(hm_writer *w)
{
	struct html *h = html(w);

	hm__hview_free(&h->v);
	hm_buf_free(&h->scratch);
	hm_buf_free(&h->label);
	hm_encoder_free(h->enc);
	free(h->ids.v);
	free(h->starts);
}

const struct hm_wshape hm__w_html = {
	.name = "html",
	.flags = HM_WS_EVENTS | HM_WS_INPUT,
	.size = sizeof(struct html),
	.event = h_event,
	.begin = h_begin,
	.done = h_done,
	.summary = h_summary,
	.free = h_free,
};
