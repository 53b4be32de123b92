/*
 * writers_messages.c - the messages shape: NDJSON, one message a line in
 * the reference's serde shape ({"role","name","recipient","content",
 * "channel","content_type"}), written as the message comes; records
 * (HM_WRITER_RECORDS): one line a record, its carried fields and
 * "messages":[...]; HM_WRITER_TOKENS: each with its "tokens"
 * (writers_tokens.c).
 */
#include <stddef.h>

#include "harmony.h"
#include "writers_int.h"

/* The state: one record's. */
struct msg {
	int began;    /* records: the record's opening is written */
	int nwritten; /* messages written in this record */
};

static struct msg *
msg(const hm_writer *w)
{
	return w->st;
}

static void
msg_begin(hm_writer *w)
{
	msg(w)->began = msg(w)->nwritten = 0;
}

static void
msg_start(hm_writer *w, struct hm_witem *it)
{
	hm_buf *b = &w->out;

	if (w->flags & HM_WRITER_RECORDS) {
		if (!msg(w)->nwritten && !msg(w)->began) {
			hm__w_fields_prefix(w);
			hm__adds(&w->nomem, b, "\"messages\":[");
			msg(w)->began = 1;
		}
		if (msg(w)->nwritten)
			hm__putc(&w->nomem, b, ',');
	}
	hm__add(&w->nomem, b, "{\"role\":", 8);
	hm__w_strz(&w->nomem, b, it->role);
	if (it->has_name) {
		hm__add(&w->nomem, b, ",\"name\":", 8);
		hm__json_str(&w->nomem, b, it->name.p, it->name.len);
	}
	if (it->has_rcpt) {
		hm__add(&w->nomem, b, ",\"recipient\":", 13);
		hm__json_str(&w->nomem, b, it->rcpt.p, it->rcpt.len);
	}
	hm__add(&w->nomem, b, ",\"content\":\"", 12);
}

static void
msg_delta(hm_writer *w, struct hm_witem *it, const char *s, size_t n)
{
	(void)it;
	hm__json_body(&w->nomem, &w->out, s, n);
}

static void
msg_end(hm_writer *w, struct hm_witem *it)
{
	hm_buf *b = &w->out;

	hm__putc(&w->nomem, b, '"');
	if (it->has_chan) {
		hm__add(&w->nomem, b, ",\"channel\":", 11);
		hm__json_str(&w->nomem, b, it->chan.p, it->chan.len);
	}
	if (it->has_ctype) {
		hm__add(&w->nomem, b, ",\"content_type\":", 16);
		hm__json_str(&w->nomem, b, it->ctype.p, it->ctype.len);
	}
	if (w->flags & HM_WRITER_TOKENS)
		hm__w_tokens_member(w);
	hm__putc(&w->nomem, b, '}');
	if (!(w->flags & HM_WRITER_RECORDS))
		hm__putc(&w->nomem, b, '\n');
	msg(w)->nwritten++;
}

/* Records: the record's line ends (a record without a message is "messages":[]). */
static void
msg_done(hm_writer *w)
{
	if (!(w->flags & HM_WRITER_RECORDS))
		return;
	if (!msg(w)->began) {
		hm__w_fields_prefix(w);
		hm__adds(&w->nomem, &w->out, "\"messages\":[");
	}
	hm__add(&w->nomem, &w->out, "]}\n", 3);
}

static const struct hm_wkey msg_keys[] = {
	HM__W_KEY("messages"), { 0, NULL },
};

const struct hm_wshape hm__w_messages = {
	.name = "messages",
	.keys = msg_keys,
	.size = sizeof(struct msg),
	.begin = msg_begin,
	.start = msg_start,
	.delta = msg_delta,
	.end = msg_end,
	.done = msg_done,
};

