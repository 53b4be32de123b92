/*
 * parse_input.c - harmony-parse's input: what kind it is (--from, told
 * from the first bytes), read file by file in blocks: Harmony text as one
 * stream, plain ids (parse_plain.c), or line modes where each line (or
 * JSON record over several lines) is a record of ids or text.  Each record
 * goes to the record side in harmony-parse.c, with the file and line it
 * was read at for the warnings.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"
#include "store.h"


/* ---------------------------------------------------------------- records */


/* Records are ids or text one by one: byte offsets and token counts follow. */
static void
set_text_input(struct parse_ctx *c, int on)
{
	if (on == !!(c->wflags & HM_WRITER_TEXT_INPUT))
		return;
	if (on)
		c->wflags |= HM_WRITER_TEXT_INPUT;
	else
		c->wflags &= ~(unsigned)HM_WRITER_TEXT_INPUT;
	hm_writer_set_text_input(c->wr, on);
}

/*
 * A JSON array of ids over several lines, s[0..n) read at file:line:
 * each id that begins a line of its own is read there, for warnings.
 */
static void
array_marks(struct parse_ctx *c, const char *s, size_t n, const char *file, size_t line)
{
	size_t i, dl = 0, mark_dl = 0, index = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '\n')
			dl++;
		else if (s[i] >= '0' && s[i] <= '9') {
			if (dl != mark_dl) {
				mark_add(c, index, file, line + dl);
				mark_dl = dl;
			}
			index++;
			while (i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
				i++;
		}
	}
}

static void server_done(struct parse_ctx *c, const char *file);

/*
 * Parse the record the log record reader has read: its ids or its text, its other members
 * carried.  arr: the text of an array of ids over several lines, else NULL.
 */
static void
parse_record(struct parse_ctx *c, const char *file, size_t line,
    const char *arr, size_t arrlen)
{
	size_t n, flen;
	const uint32_t *ids = hm_record_tokens(c->rd, &n);
	const char *fields = hm_record_fields(c->rd, &flen), *text;

	/* what the server reader holds began before: out first */
	server_done(c, file);
	set_text_input(c, ids == NULL);
	c->rec.id = hm_record_id(c->rd);
	rec_begin(c, file, line, fields);
	if (arr)
		array_marks(c, arr, arrlen, file, line);
	if (ids)
		feed_ids(c, ids, n);
	else {
		text = hm_record_text(c->rd, &n);
		feed_text(c, text, n);
		drain(c);
	}
	rec_end(c);
	c->rec.id = NULL;
}

/*
 * What the server reader has for us: records begun, fed and ended, error
 * lines in the place of records without a completion.  A stream's output
 * goes out as soon as it is made.
 */
static void
server_items(struct parse_ctx *c, const char *file)
{
	hm_server_item it;

	while (hm_server_next(c->sv, &it)) {
		switch (it.type) {
		case HM_SRV_BEGIN:
			set_text_input(c, it.text);
			hm_buf_reset(&c->rid);
			if (it.id) {
				hm_buf_adds(&c->rid, it.id);
				hm_buf_addc(&c->rid, '\0');
				if (c->rid.oom)
					cli_oom();
			}
			c->rec.id = it.id ? c->rid.p : NULL;
			rec_begin(c, file, it.line, it.s);
			break;
		case HM_SRV_IDS:
			feed_ids(c, it.ids, it.n);
			break;
		case HM_SRV_TEXT:
			feed_text(c, it.s, it.len);
			drain(c);
			break;
		case HM_SRV_END:
			/* a stream's usage comes with its finish, or after it */
			if (it.len && c->rec.p && hm_writer_late_fields(c->wr, it.s,
			    it.len) != HM_OK)
				cli_oom();
			rec_end(c);
			c->rec.id = NULL;
			break;
		case HM_SRV_ERROR: {
			/* the library's message, and our words for its hint */
			hm_buf m = { 0 };

			hm_buf_add(&m, it.s, it.len);
			hm_buf_adds(&m, cli_hint(it.hint));
			hm_buf_addc(&m, '\0');
			if (m.oom)
				cli_oom();
			if (it.index != (size_t)-1)
				cli_error(file, it.line, "token %zu: %s", it.index, m.p);
			else
				cli_error(file, it.line, "%s", m.p);
			c->status = CLI_BAD;
			rec_error_line(c, m.p, it.line, it.id);
			hm_buf_free(&m);
			cli_flush();
			break;
		}
		case HM_SRV_DUPLICATE:
			dup_warning(c, file, it.line, it.s, it.len);
			break;
		case HM_SRV_UNKNOWN:
			break;
		}
	}
	if (c->rec.p && streaming_shape(c) && !holds_record(c))
		write_out(c, 1);
}

/* A JSON object s[0..n) (its value alone), begun on file:line. */
static void
object_record(struct parse_ctx *c, const char *s, size_t n, const char *file, size_t line)
{
	if (hm_server_feed(c->sv, s, n, line) != HM_OK)
		cli_oom();
	server_items(c, file);
}

/* A stream ended (its [DONE], a file's end): its open completions end. */
static void
server_done(struct parse_ctx *c, const char *file)
{
	if (hm_server_done(c->sv) != HM_OK)
		cli_oom();
	server_items(c, file);
}

/*
 * A JSON array of objects (a batch of responses, sglang's or llama.cpp's
 * n > 1): each object a record.
 */
static void
object_array(struct parse_ctx *c, const char *s, size_t n, const char *file, size_t line)
{
	size_t pos = 0, at, len, nl = 0;

	while (hm_json_array_next(s, n, &pos, &at, &len, &nl))
		object_record(c, s + at, len, file, line + nl);
}

/* The last character of s[0..n) that is not blank, or 0. */
static char
last_char(const char *s, size_t n)
{
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return n ? s[n - 1] : 0;
}

static void
bad_record(struct parse_ctx *c, const char *file, size_t line,
    const hm_error *err, const char *id)
{
	server_done(c, file);
	cli_ids_error(file, line, 0, 0, err);
	c->status = CLI_BAD;
	rec_error_line(c, err->msg, line, id);
	cli_flush();
}

/* A JSON array or object, cut at its closing bracket, from file:line on. */
static void
json_record(struct parse_ctx *c, const char *s, size_t n, const char *file, size_t line)
{
	hm_error err;
	hm_status st;

	if (s[0] == '{') {
		object_record(c, s, n, file, line);
		return;
	}
	if (hm_json_array_is_objects(s, n)) {
		object_array(c, s, n, file, line);
		return;
	}
	st = hm_record_read(c->rd, s, n, 0, &err);
	if (st == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK)
		bad_record(c, file, line, &err, hm_record_id(c->rd));
	else
		parse_record(c, file, line, s[0] == '[' && memchr(s, '\n',
		    n) ? s : NULL, n);
}

/* A line of numbers. */
static void
number_line(struct parse_ctx *c, const char *s, size_t n, const char *file, size_t line)
{
	hm_ids ids = { 0 };
	hm_error err;
	hm_status st = hm_ids_parse(s, n, HM_IDS_ANY, &ids, NULL, &err);

	if (st == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK)
		bad_record(c, file, line, &err, NULL);
	else {
		server_done(c, file);
		set_text_input(c, 0);
		rec_begin(c, file, line, NULL);
		feed_ids(c, ids.v, ids.len);
		rec_end(c);
	}
	hm_ids_free(&ids);
}


/*
 * A record of id lines as the framer cut it: a line of numbers, a JSON
 * record (on its line or over several), or one of the framer's errors.
 */
static void
ids_frame(struct parse_ctx *c, const hm_frame *fr, const char *file)
{
	const char *id = NULL;

	switch (fr->type) {
	case HM_FRAME_LINE:
		number_line(c, fr->p, fr->len, file, fr->line);
		break;
	case HM_FRAME_JSON:
		json_record(c, fr->p, fr->len, file, fr->line);
		break;
	case HM_FRAME_AFTER:
		server_done(c, file);
		/* The record's id, to name it, if it has one. */
		if (fr->p[0] == '{' && hm_record_read(c->rd, fr->p, fr->len, 0, NULL) != HM_ENOMEM)
			id = hm_record_id(c->rd);
		cli_error(file, fr->last, "text after the JSON record: '%.*s'",
		    (int)(fr->rest_len > 24 ? 24 : fr->rest_len), fr->rest);
		c->status = CLI_BAD;
		rec_error_line(c, "text after the JSON record", fr->line, id);
		cli_flush();
		break;
	case HM_FRAME_OPEN:
		server_done(c, file);
		if (fr->rest)
			cli_error(file, fr->line, "unterminated JSON record (line %zu begins "
			    "the next record)", fr->last + 1);
		else
			cli_error(file, fr->line, "unterminated JSON record");
		c->status = CLI_BAD;
		rec_error_line(c, "unterminated JSON record", fr->line, NULL);
		cli_flush();
		break;
	}
}

/*
 * --lines with text: each line is a record of Harmony text, or a JSON
 * record holding it (or ids).
 */
static void
text_line(struct parse_ctx *c, const char *s, size_t n, const char *file, size_t line)
{
	size_t i;

	for (i = 0; i < n && isspace((unsigned char)s[i]); i++)
		;
	/* A JSON record is a record, never Harmony text (but with --from text). */
	if (i < n && s[i] == '{' && c->opt.from != FROM_TEXT) {
		object_record(c, s + i, n - i, file, line);
		return;
	}
	/* What follows a text record on its line is not looked at. */
	if (i < n && s[i] == '{') {
		hm_status st = hm_record_read(c->rd, s + i, n - i,
		    HM_RECORD_TEXT_ONLY, NULL);

		if (st == HM_ENOMEM)
			cli_oom();
		if (st == HM_OK) {
			parse_record(c, file, line, NULL, 0);
			return;
		}
	}
	server_done(c, file);
	set_text_input(c, 1);
	rec_begin(c, file, line, NULL);
	feed_text(c, s, n);
	drain(c);
	rec_end(c);
}

/* ---------------------------------------------------------------- input */

/*
 * What the input s[0..n) is, as the library tells it (all: no more
 * comes), in the modes here: --lines splits text into records, and with
 * --strict, which parses nothing as one empty completion (as the
 * reference does), blanks alone are a stream.  IN_UNKNOWN: more is needed.
 */
static int
detect(struct parse_ctx *c, const char *s, size_t n, int all)
{
	unsigned fl = (all ? HM_DETECT_END : 0) | (c->opt.lines ? HM_DETECT_LINES : 0) |
	    (c->opt.from == FROM_IDS ? HM_DETECT_IDS : c->opt.from == FROM_TEXT ? HM_DETECT_TEXT : 0);

	switch (hm_input_detect(s, n, fl)) {
	case HM_INPUT_IDS:
		return IN_PLAIN;
	case HM_INPUT_RECORDS:
		return IN_LINES;
	case HM_INPUT_TEXT:
		return c->opt.lines ? IN_TEXT_LINES : IN_TEXT;
	case HM_INPUT_SSE:
		return IN_SSE;
	case HM_INPUT_EMPTY:
		if (!c->opt.strict)
			return IN_EMPTY;
		return c->opt.from == FROM_TEXT ? (c->opt.lines ? IN_TEXT_LINES : IN_TEXT) : IN_PLAIN;
	default:
		return IN_UNKNOWN;
	}
}

/*
 * An event's data of several lines, s[0..n) from file:line on: a line that
 * begins with '{' in its first column begins an object of its own, as in
 * a log (hm_framer), so that a data line cut short (the writer killed
 * mid-line, the next event's data: line following with no blank line
 * between) is an error of its own and the next object is still read, in
 * the same stream.  The pieces are numbered as data lines of the event.
 */
static void
sse_lines(struct parse_ctx *c, const char *s, size_t n, const char *file, size_t line)
{
	size_t at = 0, i, k = 0, first = 0;

	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '\n')
			continue;
		/* s[at..i) is pieces so far; the line after i begins a new one? */
		if (i == n || (i + 1 < n && s[i + 1] == '{')) {
			object_record(c, s + at, i - at, file, line + first);
			at = i + 1;
			first = k + 1;
		}
		k++;
	}
}

/* An SSE event has come: its data is a JSON object, or the end. */
static void
sse_event(struct parse_ctx *c, const char *file)
{
	size_t n, line, i = 0;
	const char *d = hm_sse_data(c->inp.sse, &n, &line);

	while (i < n && isspace((unsigned char)d[i]))
		i++;
	if (i == n)
		return;
	if (n - i >= 6 && !memcmp(d + i, "[DONE]", 6) && last_char(d, n) == ']')
		server_done(c, file);
	else if (memchr(d + i, '\n', n - i))
		sse_lines(c, d + i, n - i, file, line);
	else
		object_record(c, d + i, n - i, file, line);
}

static void
start_mode(struct parse_ctx *c, int mode, const char *file)
{
	c->inp.mode = mode;
	if (mode == IN_TEXT || mode == IN_TEXT_LINES)
		c->wflags |= HM_WRITER_TEXT_INPUT;
	if (mode == IN_LINES || mode == IN_TEXT_LINES || mode == IN_SSE || mode == IN_EMPTY)
		c->wflags |= HM_WRITER_RECORDS;
	hm_writer_free(c->wr);
	c->wr = hm_writer_new(c->opt.to, c->wflags);
	if (!c->wr || hm_writer_set_channels(c->wr, c->opt.channels) != HM_OK)
		cli_oom();
	hm_writer_set_seed(c->wr, (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32),
	    c->opt.random_ids ? (int64_t)time(NULL) : 0);
	if (c->opt.store)
		hm_writer_set_turn_fn(c->wr, store_turn, (void *)c->opt.store);
	hm_writer_set_flush_fn(c->wr, flush_some, c);
	hm_server_sse(c->sv, mode == IN_SSE);
	if ((mode == IN_LINES || mode == IN_TEXT_LINES) &&
	    !(c->inp.fr = hm_framer_new(mode == IN_TEXT_LINES ? HM_FRAMER_TEXT : 0)))
		cli_oom();
	if (mode == IN_TEXT || mode == IN_PLAIN)
		rec_begin(c, file, c->inp.line, NULL);
}

/* The records of a line mode the framer has cut so far. */
static void
frames(struct parse_ctx *c, const char *file)
{
	hm_frame fr;
	int r;

	while ((r = hm_framer_next(c->inp.fr, &fr)) > 0) {
		c->inp.rec_lines += fr.last - fr.line + 1;
		if (c->inp.mode == IN_TEXT_LINES)
			text_line(c, fr.p, fr.len, file, fr.line);
		else
			ids_frame(c, &fr, file);
	}
	if (r < 0)
		cli_oom();
}

/* Bytes of the current file, once the mode is known. */
static void
consume(struct parse_ctx *c, const char *buf, size_t n, const char *file)
{
	size_t i;

	switch (c->inp.mode) {
	case IN_TEXT:
		for (i = 0; i < n; i++)
			if (buf[i] == '\n')
				mark_add(c, c->inp.toff + i + 1, file, ++c->inp.line);
		c->inp.toff += n;
		feed_text(c, buf, n);
		drain(c);
		break;
	case IN_PLAIN:
		plain_chunk(c, buf, n, file, &c->inp.line);
		break;
	case IN_EMPTY:
		break;
	case IN_SSE:
		if (!c->inp.sse && !(c->inp.sse = hm_sse_new()))
			cli_oom();
		while (n) {
			size_t used;
			int ev;

			if (hm_sse_feed(c->inp.sse, buf, n, &used, &ev) != HM_OK)
				cli_oom();
			buf += used;
			n -= used;
			if (ev)
				sse_event(c, file);
		}
		break;
	default:
		hm_framer_feed(c->inp.fr, buf, n);
		frames(c, file);
		break;
	}
}

/* The current file has ended. */
static void
file_end(struct parse_ctx *c, const char *file)
{
	if (c->inp.mode == IN_LINES || c->inp.mode == IN_TEXT_LINES) {
		hm_framer_finish(c->inp.fr);
		frames(c, file);
		server_done(c, file);
	}
	if (c->inp.mode == IN_SSE && c->inp.sse) {
		int ev;

		if (hm_sse_finish(c->inp.sse, &ev) != HM_OK)
			cli_oom();
		if (ev)
			sse_event(c, file);
		hm_sse_free(c->inp.sse);
		c->inp.sse = NULL;
		server_done(c, file);
	}
	if (c->inp.mode == IN_PLAIN)
		plain_file_end(c, file, c->inp.line);
}

/* The lines of s[0..n), a last one without its newline too. */
static uint64_t
count_lines(const char *s, size_t n)
{
	const char *p = s, *end = s + n;
	uint64_t k = 0;

	while ((p = memchr(p, '\n', (size_t)(end - p)))) {
		k++;
		p++;
	}
	return k + (n && s[n - 1] != '\n');
}

/* Lines and bytes read, for the summary: a last line without its newline is a line. */
static void
count_input(struct parse_ctx *c, const char *buf, size_t n)
{
	const char *p = buf, *end = buf + n;

	c->inp.nbytes += n;
	while ((p = memchr(p, '\n', (size_t)(end - p)))) {
		c->inp.nlines++;
		p++;
	}
}

/*
 * A UTF-8 byte order mark at the start of a file is not its text (RFC
 * 8259 lets a reader skip it; a log written by a Windows tool has one):
 * it is skipped in every input kind, and counted as read.
 */
static const char BOM[] = "\xEF\xBB\xBF";

/* Bytes of the current file past a BOM: held until the mode is known, then read. */
static void
take(struct parse_ctx *c, hm_buf *pre, const char *p, size_t n, const char *file)
{
	int mode;

	if (!n)
		return;
	if (c->inp.mode != IN_UNKNOWN) {
		consume(c, p, n, file);
		return;
	}
	/* Hold what comes until the mode can be told. */
	hm_buf_add(pre, p, n);
	if (pre->oom)
		cli_oom();
	if ((mode = detect(c, pre->p, pre->len, 0)) != IN_UNKNOWN) {
		start_mode(c, mode, file);
		consume(c, pre->p, pre->len, file);
		hm_buf_free(pre);
	}
}

void
run(struct parse_ctx *c, cli_input *in)
{
	enum { BUF = 1 << 18 };
	char *buf = malloc(BUF);
	hm_buf pre = { 0 };
	const char *file = "-";

	if (!buf)
		cli_oom();
	in->raw = 1; /* read(2) below: the BOM is skipped there */
	while (cli_input_next_file(in)) {
		int fd = fileno(in->f), mode;
		char last = '\n'; /* the file's last byte, none yet */
		/* bytes of a BOM at its start matched; 3: past them (--strict reads
		   every byte, as the reference does) */
		size_t bom = c->opt.strict ? 3 : 0;

		file = in->name;
		c->inp.line = 1;
		/* A stream goes on in the next file: its tokens are read there. */
		if (c->inp.mode == IN_PLAIN)
			mark_add(c, plain_tokens(c), file, 1);
		else if (c->inp.mode == IN_TEXT)
			mark_add(c, c->inp.toff, file, 1);
		for (;;) {
			ssize_t got = read(fd, buf, BUF);

			if (got < 0) {
				if (errno == EINTR)
					continue;
				cli_error(file, 0, "read error: %s", strerror(errno));
				in->failed = 1;
				break;
			}
			if (got == 0)
				break;
			if (c->opt.summary) /* only a summary says how much it read */
				count_input(c, buf, (size_t)got);
			last = buf[got - 1];
			if (bom < 3) {
				/* the file's first bytes, while they may be a BOM */
				size_t k = 0, held = bom;

				while (bom < 3 && k < (size_t)got && buf[k] == BOM[bom]) {
					bom++;
					k++;
				}
				if (bom < 3 && k == (size_t)got)
					continue; /* a BOM so far: wait for more */
				if (bom < 3) {
					/* not one: what was held is text */
					take(c, &pre, BOM, held, file);
					bom = 3;
					k = 0;
				}
				take(c, &pre, buf + k, (size_t)got - k, file);
				continue;
			}
			take(c, &pre, buf, (size_t)got, file);
		}
		if (bom < 3 && bom)
			take(c, &pre, BOM, bom, file); /* a file of a BOM's first bytes */
		if (c->inp.mode == IN_UNKNOWN && pre.len &&
		    ((mode = detect(c, pre.p, pre.len, 1)) != IN_EMPTY || c->opt.strict)) {
			start_mode(c, mode, file);
			consume(c, pre.p, pre.len, file);
		}
		/* blanks alone, or a read error: nothing to parse; blank lines all */
		if (c->inp.mode == IN_UNKNOWN && pre.len)
			c->inp.pre_blank += count_lines(pre.p, pre.len);
		hm_buf_free(&pre);
		if (last != '\n')
			c->inp.nlines++;
		file_end(c, file);
	}
	if (c->inp.mode == IN_PLAIN)
		plain_flush(c);
	/* --strict is the reference, which parses nothing as one empty completion. */
	if (c->inp.mode == IN_UNKNOWN)
		start_mode(c,
		    !c->opt.strict ? IN_EMPTY : c->opt.from == FROM_TEXT ? IN_TEXT : IN_PLAIN, file);
	rec_end(c);
	/* What the records, errors and blank lines took, where lines are records. */
	if (c->inp.mode == IN_LINES || c->inp.mode == IN_TEXT_LINES)
		c->inp.rec_lines += hm_framer_blank_lines(c->inp.fr) + c->inp.pre_blank;
	else if (c->inp.mode == IN_EMPTY)
		c->inp.rec_lines = c->inp.nlines;
	c->inp.rec_lines_known = c->inp.mode == IN_LINES || c->inp.mode == IN_TEXT_LINES ||
	    c->inp.mode == IN_EMPTY;
	hm_framer_free(c->inp.fr);
	hm_buf_free(&c->rid);
	free(buf);
}
