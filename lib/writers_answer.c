/*
 * writers_answer.c - the answer alone: the text an end user should see
 * (final messages, preambles, text without a channel), without labels,
 * reasoning or tool calls, written as it comes.  Messages of one record
 * are joined by a newline, as in the Chat shape's content.
 */
#include <string.h>

#include "harmony.h"
#include "writers_int.h"

/*
 * Records (HM_WRITER_RECORDS): one JSON string per record, so that an answer
 * of several lines stays one output line, and an empty answer is "".
 * One stream: the text as it is, a newline after it unless it ends in one.
 */
struct answer {
	int began;    /* records: the opening quote is written */
	int text_any; /* some text is written */
	int nl;       /* the last byte written was a newline */
};

static struct answer *
answer(const hm_writer *w)
{
	return w->st;
}

static void
answer_begin(hm_writer *w)
{
	memset(answer(w), 0, sizeof(struct answer));
}

static int
records(const hm_writer *w)
{
	return (w->flags & HM_WRITER_RECORDS) != 0;
}

static void
answer_start(hm_writer *w, struct hm_witem *it)
{
	(void)w;
	it->sent = 0;
}

static void
answer_delta(hm_writer *w, struct hm_witem *it, const char *s, size_t n)
{
	hm_buf *b = &w->out;

	if (it->cls != CLS_TEXT || !n)
		return;
	if (records(w) && !answer(w)->began) {
		hm__putc(&w->nomem, b, '"');
		answer(w)->began = 1;
	}
	if (answer(w)->text_any && !it->sent)
		hm__adds(&w->nomem, b, records(w) ? "\\n" : "\n");
	answer(w)->text_any = it->sent = 1;
	if (records(w))
		hm__json_body(&w->nomem, b, s, n);
	else
		hm__add(&w->nomem, b, s, n);
	answer(w)->nl = s[n - 1] == '\n';
}

static void
answer_done(hm_writer *w)
{
	hm_buf *b = &w->out;

	if (records(w))
		hm__adds(&w->nomem, b, answer(w)->began ? "\"\n" : "\"\"\n");
	else if (answer(w)->text_any && !answer(w)->nl)
		hm__putc(&w->nomem, b, '\n');
}

const struct hm_wshape hm__w_answer = {
	.name = "answer",
	.flags = HM_WS_ROUTE,
	.size = sizeof(struct answer),
	.begin = answer_begin,
	.start = answer_start,
	.delta = answer_delta,
	.done = answer_done,
};
