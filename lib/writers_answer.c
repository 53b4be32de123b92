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
 * w->began: records, the opening quote is written; w->text_any: some text
 * is written; w->a_open: the last byte written was a newline.
 */
static int
records(const hm_writer *w)
{
	return (w->flags & HM_WRITER_RECORDS) != 0;
}

void
hm__w_answer_start(hm_writer *w, struct hm_witem *it)
{
	(void)w;
	it->sent = 0;
}

void
hm__w_answer_delta(hm_writer *w, struct hm_witem *it, const char *s, size_t n)
{
	hm_buf *b = &w->out;

	if (it->cls != CLS_TEXT || !n)
		return;
	if (records(w) && !w->began) {
		hm_buf_addc(b, '"');
		w->began = 1;
	}
	if (w->text_any && !it->sent)
		hm_buf_adds(b, records(w) ? "\\n" : "\n");
	w->text_any = it->sent = 1;
	if (records(w))
		hm_buf_json_body(b, s, n);
	else
		hm_buf_add(b, s, n);
	w->a_open = s[n - 1] == '\n';
}

void
hm__w_answer_done(hm_writer *w)
{
	hm_buf *b = &w->out;

	if (records(w))
		hm_buf_adds(b, w->began ? "\"\n" : "\"\"\n");
	else if (w->text_any && !w->a_open)
		hm_buf_addc(b, '\n');
}
