/*
 * parse_plain.c - harmony-parse's reader of plain ids: whitespace or comma
 * separated numbers, one stream however long, handed to the parser in
 * batches.  The numbers are read by the library's id reader (hm_idscan),
 * the one every tool reads ids with; here a bad word is an error event in
 * its place, and the stream goes on.
 */
#include <string.h>

#include "parse.h"

void
plain_init(struct parse_ctx *c)
{
	if (!(c->pl.sc = hm_idscan_new(HM_IDS_ANY)))
		cli_oom();
}

void
plain_flush(struct parse_ctx *c)
{
	if (c->pl.ids.len)
		feed_ids(c, c->pl.ids.v, c->pl.ids.len);
	c->pl.ids.len = 0;
}

/*
 * A word that is not an id: an error, after what the ids before it have
 * given, and an error event in its place; it keeps its token index.
 */
static void
bad_word(struct parse_ctx *c, const char *file, size_t line, const hm_error *err)
{
	hm_event ev;
	/* the list's punctuation is about no one id: the place is the next */
	size_t at = err->index != (size_t)-1 ? err->index : hm_idscan_count(c->pl.sc);

	plain_flush(c);
	cli_error(file, line, "token %zu: %s", at, err->msg);
	c->status = CLI_BAD;
	memset(&ev, 0, sizeof ev);
	ev.type = HM_EV_ERROR;
	ev.at = at;
	ev.text.p = err->msg;
	ev.text.len = strlen(err->msg);
	if (hm_writer_event(c->wr, &ev) != HM_OK)
		cli_oom();
	hm_parser_skip(c->rec.p);
	if (streaming_shape(c) && !holds_record(c))
		write_out(c, 1);
}

/* Bytes of one line (up to and with its newline, if it has come). */
static void
plain_feed(struct parse_ctx *c, const char *buf, size_t n, const char *file, size_t line)
{
	hm_error err;
	size_t used;
	hm_status st;

	while ((st = hm_idscan_feed(c->pl.sc, buf, n, &c->pl.ids, &used,
	    &err)) != HM_OK) {
		if (st == HM_ENOMEM)
			cli_oom();
		bad_word(c, file, line, &err);
		buf += used;
		n -= used;
	}
}

void
plain_chunk(struct parse_ctx *c, const char *buf, size_t n, const char *file,
    size_t *line)
{
	while (n) {
		const char *nl = memchr(buf, '\n', n);
		size_t k = nl ? (size_t)(nl - buf) + 1 : n;

		plain_feed(c, buf, k, file, *line);
		if (nl)
			mark_add(c, hm_idscan_count(c->pl.sc), file, ++*line);
		buf += k;
		n -= k;
	}
	plain_flush(c);
}

void
plain_file_end(struct parse_ctx *c, const char *file, size_t line)
{
	hm_error err;
	hm_status st = hm_idscan_end(c->pl.sc, &c->pl.ids, &err);

	if (st == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK)
		bad_word(c, file, line, &err);
}

size_t
plain_tokens(struct parse_ctx *c)
{
	return hm_idscan_count(c->pl.sc);
}

void
plain_free(struct parse_ctx *c)
{
	hm_idscan_free(c->pl.sc);
	hm_ids_free(&c->pl.ids);
}
