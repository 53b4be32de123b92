/* harmony-parse - Harmony completions (ids or text) to messages, Chat, Responses ... */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "harmony.h"

static const char usage_text[] =
"Usage: harmony-parse [OPTION]... [FILE]...\n"
"Parse Harmony completions (token ids or text) into messages, Chat Completions,\n"
"Responses, their SSE streams, a transcript or stats.\n"
"\n"
"Options:\n"
"      --channels=LIST  keep only messages on these channels (comma separated;\n"
"                       \"none\" = no channel); --channels=final hides reasoning\n"
"      --color=WHEN     text: color auto (default), always, never\n"
"      --field=NAME     records: the completion text is member NAME (default:\n"
"                       text, completion, output, output_text or content)\n"
"      --from=FORMAT    ids, text or auto (default: ids when the first line is\n"
"                       ids alone or a JSON record of ids, else text)\n"
"  -h, --help           show this help and exit\n"
"      --ids=KIND       item ids: deterministic (default) or random\n"
"      --lines          each input line is its own record (ids or text)\n"
"      --marker=STR     text without Harmony structure: before STR is reasoning,\n"
"                       after it final\n"
"      --merge          stats: the input is --summary lines (of parts of a log);\n"
"                       write the one summary of them all\n"
"      --pretty         indent JSON output for people (not the SSE shapes or text)\n"
"  -q, --quiet          no warnings\n"
"      --role=ROLE      author of a stream that does not start with <|start|>:\n"
"                       auto (default), none, assistant, user, system, developer, tool\n"
"      --strict         behave exactly as the reference parser (fail where it fails)\n"
"      --summary        stats: one summary line over all records at the end\n"
"      --to=SHAPE       messages (default), events, chat, chat-completion,\n"
"                       chat-stream, responses, responses-stream, text, stats\n"
"  -V, --version        print the version and exit\n"
"      --warnings=WHICH all, summary (the first 10, then a count per failure\n"
"                       mode; the default on records) or none\n"
"\n"
"Ids are read as whitespace or comma separated numbers (one stream), JSON arrays\n"
"(one record each, over lines if need be), or NDJSON records with a tokens,\n"
"token_ids, output_ids or input_ids array (one record each; other fields are\n"
"carried into the output).  NDJSON records holding the completion as a text\n"
"string instead are parsed as Harmony text, their other fields carried alike.\n"
"Exit status: 0 ok, 1 bad input, 2 usage error, 3 I/O error.\n";

enum { FROM_AUTO, FROM_IDS, FROM_TEXT };
enum { IN_UNKNOWN, IN_PLAIN, IN_LINES, IN_TEXT, IN_TEXT_LINES };

enum { W_DEFAULT, W_ALL, W_SUMMARY, W_NONE };

static struct {
	int from, strict, lines, summary, quiet, color, random_ids, pretty;
	int warnings, merge;
	const char *role, *channels, *marker;
	hm_shape to;
} opt = { .role = "auto", .color = -1 };

static int status = CLI_OK;
static hm_writer *wr;
static int flush_summary;
static unsigned wflags;

/* The record being parsed. */
static struct {
	hm_parser *p;
	const char *file;
	size_t line;
	int failed, records;
	hm_buf err;
	const char *id; /* the record's "id" as JSON, for its error line */
} rec;

/*
 * --strict gives the reference's result: nothing for a stream it rejects.
 * So a record's output waits for its end, except events, which are the
 * parser's trace up to its error.
 */
static int
holds_record(void)
{
	return opt.strict && opt.to != HM_TO_EVENTS;
}

static int
streaming_shape(void)
{
	return opt.to == HM_TO_EVENTS || opt.to == HM_TO_CHAT_STREAM ||
	    opt.to == HM_TO_RESPONSES_STREAM || opt.to == HM_TO_TEXT ||
	    opt.to == HM_TO_MESSAGES;
}

/*
 * Write what the writer has (indented by it with --pretty) to stdout, or
 * drop it (keep 0).  Returns the bytes written.
 */
static size_t
put_out(int keep)
{
	size_t n;
	const char *s = hm_writer_output(wr, &n);

	if (!s)
		cli_oom();
	if (!keep)
		n = 0;
	if (n && fwrite(s, 1, n, stdout) != n)
		exit(cli_finish(CLI_IO));
	hm_writer_consume(wr);
	return n;
}

static void
write_out(int flush)
{
	/* --summary: the records' lines are not shown, only the summary. */
	if (put_out(!(opt.summary && opt.to == HM_TO_STATS && !flush_summary)) && flush)
		cli_flush();
}

/*
 * Where the input came from: from position `at` (a token index, or a byte
 * offset for text) on, it was read at file:line.  A warning names the
 * place of the token it is about; marks before what the parser may still
 * name are forgotten, so this stays small.
 */
struct mark {
	uint64_t at;
	const char *file;
	size_t line;
};

static struct {
	struct mark *v;
	size_t head, len, cap;
} mk;

static void
mark_add(uint64_t at, const char *file, size_t line)
{
	if (mk.len > mk.head && mk.v[mk.len - 1].at == at) {
		mk.v[mk.len - 1].file = file;
		mk.v[mk.len - 1].line = line;
		return;
	}
	if (mk.len == mk.cap && mk.head) {
		memmove(mk.v, mk.v + mk.head, (mk.len - mk.head) * sizeof *mk.v);
		mk.len -= mk.head;
		mk.head = 0;
	}
	if (mk.len == mk.cap) {
		size_t cap = mk.cap ? mk.cap * 2 : 64;
		struct mark *v = realloc(mk.v, cap * sizeof *v);

		if (!v)
			cli_oom();
		mk.v = v;
		mk.cap = cap;
	}
	mk.v[mk.len].at = at;
	mk.v[mk.len].file = file;
	mk.v[mk.len++].line = line;
}

static void
mark_reset(const char *file, size_t line)
{
	mk.head = mk.len = 0;
	mark_add(0, file, line);
}

/* The mark in force at position at. */
static const struct mark *
mark_find(uint64_t at)
{
	size_t lo = mk.head, hi = mk.len;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (mk.v[mid].at <= at)
			lo = mid;
		else
			hi = mid;
	}
	return &mk.v[lo];
}

/* The input ends at position end: an event there is about the last token read. */
static void
mark_trim(uint64_t end)
{
	while (mk.len > mk.head + 1 && mk.v[mk.len - 1].at >= end && end > 0)
		mk.len--;
}

static void
mark_prune(uint64_t oldest)
{
	while (mk.head + 1 < mk.len && mk.v[mk.head + 1].at < oldest)
		mk.head++;
}

static const char *
where(uint64_t at)
{
	static char b[48];

	snprintf(b, sizeof b, "%s %llu", (wflags & HM_WR_TEXT_INPUT) ? "byte" : "token",
	    (unsigned long long)at);
	return b;
}

enum { OUT_CHUNK = 1 << 16, WARN_FIRST = 10 };

/*
 * Warnings: all of them, or (--warnings=summary, the default on records)
 * the first WARN_FIRST with their record's id, then at the end a count
 * per failure mode.
 */
static struct {
	uint64_t shown, hidden, by[HM_W_CODES];
	char *first[HM_W_CODES];
} wn;

static int
warn_mode(void)
{
	if (cli_quiet)
		return W_NONE;
	if (opt.warnings != W_DEFAULT)
		return opt.warnings;
	return (wflags & HM_WR_RECORDS) ? W_SUMMARY : W_ALL;
}

static void
warning(const hm_event *ev)
{
	const struct mark *m = mark_find(ev->at);
	int mode = warn_mode(), code = ev->code >= 0 && ev->code < HM_W_CODES ? ev->code : 0;

	if (mode == W_NONE)
		return;
	wn.by[code]++;
	if (!wn.first[code]) {
		if (!(wn.first[code] = malloc(ev->text.len + 1)))
			cli_oom();
		memcpy(wn.first[code], ev->text.p, ev->text.len);
		wn.first[code][ev->text.len] = '\0';
	}
	if (mode == W_SUMMARY && wn.shown >= WARN_FIRST) {
		wn.hidden++;
		return;
	}
	wn.shown++;
	if (mode == W_SUMMARY && rec.id)
		cli_warn(m->file, m->line, "%s: %.*s (F%d) in record %s", where(ev->at),
		    (int)ev->text.len, ev->text.p, ev->code, rec.id);
	else
		cli_warn(m->file, m->line, "%s: %.*s (F%d)", where(ev->at),
		    (int)ev->text.len, ev->text.p, ev->code);
}

/* The end: what the warnings not shown were about. */
static void
warn_summary(void)
{
	int c;

	if (wn.hidden)
		cli_warn(NULL, 0, "%llu more warnings not shown (--warnings=all shows "
		    "them); by failure mode:", (unsigned long long)wn.hidden);
	for (c = 0; c < HM_W_CODES; c++) {
		if (wn.hidden && wn.by[c])
			cli_warn(NULL, 0, "F%d: %llu warnings (the first: %s)", c,
			    (unsigned long long)wn.by[c], wn.first[c]);
		free(wn.first[c]);
	}
}

static void
drain(void)
{
	hm_event ev;
	size_t pending;

	while (hm_parser_next(rec.p, &ev)) {
		const struct mark *m;

		if (ev.type == HM_EV_WARNING)
			warning(&ev);
		else if (ev.type == HM_EV_ERROR) {
			m = mark_find(ev.at);
			cli_error(m->file, m->line, "%s: %.*s", where(ev.at),
			    (int)ev.text.len, ev.text.p);
			hm_buf_clear(&rec.err);
			hm_buf_add(&rec.err, ev.text.p, ev.text.len);
			rec.failed = 1;
			status = CLI_BAD;
		}
		if (hm_writer_event(wr, &ev) != HM_OK)
			cli_oom();
		/* Output of a long feed goes out as it grows, not all at its end. */
		if (!(wflags & HM_WR_RECORDS) && streaming_shape() && !holds_record() &&
		    hm_writer_output(wr, &pending) && pending >= OUT_CHUNK)
			write_out(0);
	}
	mark_prune(hm_parser_oldest(rec.p));
	if (!(wflags & HM_WR_RECORDS) && streaming_shape() && !holds_record())
		write_out(1);
}

static void
rec_begin(const char *file, size_t line, const char *fields)
{
	rec.p = hm_parser_new(opt.role, opt.strict ? HM_PARSE_STRICT : 0);
	if (!rec.p)
		cli_oom();
	/* Shapes that print deltas as they come keep one per token. */
	hm_parser_set_merge(rec.p, opt.to != HM_TO_EVENTS &&
	    opt.to != HM_TO_CHAT_STREAM && opt.to != HM_TO_RESPONSES_STREAM);
	if (opt.marker && hm_parser_set_marker(rec.p, opt.marker, strlen(opt.marker)) != HM_OK)
		cli_oom();
	rec.file = file;
	rec.line = line;
	rec.failed = 0;
	mark_reset(file, line);
	rec.records++;
	if (hm_writer_begin(wr, fields ? fields : "", fields ? strlen(fields) : 0) != HM_OK)
		cli_oom();
}

/*
 * A record that could not be read or parsed: an error line in its place,
 * with the record's id when it has one.
 */
static void
rec_error_line(const char *msg, size_t line, const char *id)
{
	hm_buf b = { 0 };

	if (!(wflags & HM_WR_RECORDS))
		return;
	hm_writer_abort(wr);
	hm_writer_consume(wr);
	if (opt.to == HM_TO_TEXT) {
		if (hm_writer_put(wr, "\n", 1) != HM_OK)
			cli_oom();
		put_out(1);
		return;
	}
	hm_buf_addc(&b, '{');
	if (id) {
		hm_buf_adds(&b, "\"id\":");
		hm_buf_adds(&b, id);
		hm_buf_addc(&b, ',');
	}
	hm_buf_adds(&b, "\"error\":");
	hm_buf_json_str(&b, msg, strlen(msg));
	hm_buf_adds(&b, ",\"line\":");
	hm_buf_addu(&b, line);
	hm_buf_adds(&b, "}\n");
	if (b.oom || hm_writer_put(wr, b.p, b.len) != HM_OK)
		cli_oom();
	put_out(1);
	hm_buf_free(&b);
}

static void
rec_end(void)
{
	if (!rec.p)
		return;
	mark_trim(hm_parser_position(rec.p));
	hm_parser_finish(rec.p);
	drain();
	if (rec.failed && (wflags & HM_WR_RECORDS)) {
		rec.err.p[rec.err.len] = '\0';
		rec_error_line(rec.err.p, rec.line, rec.id);
	} else if (rec.failed && holds_record())
		hm_writer_abort(wr);
	write_out(1);
	hm_parser_free(rec.p);
	rec.p = NULL;
}

static void
feed_ids(const uint32_t *v, size_t n)
{
	if (hm_parser_feed(rec.p, v, n) != HM_OK)
		cli_oom();
	drain();
}

/* ---------------------------------------------------------------- plain ids */

/*
 * Whitespace or comma separated numbers, streamed in chunks.  Numbers that
 * lie whole inside a chunk take a tight loop; one cut by the chunk's end or
 * holding a bad character goes byte by byte through the state in pl.
 */
#define BATCH 65536

static struct {
	uint64_t val;
	int indigit, bad;
	size_t ntok;
	uint32_t ids[BATCH];
	size_t nids;
	hm_buf badtok;
} pl;

/* 1: separator, 2: newline (also a separator), 4: digit */
static unsigned char cls[256];

static void
plain_init(void)
{
	int c;

	for (c = '0'; c <= '9'; c++)
		cls[c] = 4;
	cls[' '] = cls['\t'] = cls['\r'] = cls['\f'] = cls['\v'] = cls[','] = 1;
	cls['\n'] = 3;
}

static void
plain_flush(void)
{
	if (pl.nids)
		feed_ids(pl.ids, pl.nids);
	pl.nids = 0;
}

static void
plain_push(uint32_t id)
{
	if (pl.nids == BATCH)
		plain_flush();
	pl.ids[pl.nids++] = id;
}

/*
 * A word that is not an id: an error, after what the ids before it have
 * given, and an error event in its place; it keeps its token index.
 */
static void
bad_word(const char *file, size_t line, const char *msg, size_t n)
{
	hm_event ev;

	plain_flush();
	cli_error(file, line, "token %zu: %.*s", pl.ntok, (int)n, msg);
	status = CLI_BAD;
	memset(&ev, 0, sizeof ev);
	ev.type = HM_EV_ERROR;
	ev.at = pl.ntok;
	ev.text.p = msg;
	ev.text.len = n;
	if (hm_writer_event(wr, &ev) != HM_OK)
		cli_oom();
	hm_parser_skip(rec.p);
	if (streaming_shape() && !holds_record())
		write_out(1);
}

static void
plain_number_end(const char *file, size_t line)
{
	if (pl.bad) {
		hm_buf m = { 0 };

		hm_buf_adds(&m, "not a token id: '");
		hm_buf_add(&m, pl.badtok.p, pl.badtok.len);
		hm_buf_addc(&m, '\'');
		bad_word(file, line, m.p ? m.p : "", m.len);
		hm_buf_free(&m);
	} else if (pl.val > 4294967295ull)
		bad_word(file, line, "id out of range", 15);
	else
		plain_push((uint32_t)pl.val);
	pl.ntok++;
	pl.indigit = pl.bad = 0;
	pl.val = 0;
	hm_buf_clear(&pl.badtok);
}

/* One byte through the slow state machine. */
static void
plain_byte(unsigned char c, const char *file, size_t *line)
{
	if ((cls[c] & 4) && !pl.bad) {
		pl.val = pl.val * 10 + (c - '0');
		if (pl.val > 4294967295ull)
			pl.val = 4294967296ull;
		pl.indigit = 1;
		return;
	}
	if (cls[c] & 1) {
		if (pl.indigit || pl.bad)
			plain_number_end(file, *line);
		if (c == '\n')
			mark_add(pl.ntok, file, ++*line);
		return;
	}
	if (!pl.bad && pl.indigit) {
		/* Show the digits read so far with the bad character. */
		hm_buf_clear(&pl.badtok);
		if (pl.val <= 4294967295ull)
			hm_buf_addu(&pl.badtok, pl.val);
	}
	pl.bad = 1;
	if (pl.badtok.len < 32)
		hm_buf_addc(&pl.badtok, (char)c);
}

#define ONES UINT64_C(0x0101010101010101)

/* s[0..8) as a little-endian word: byte 0 in the low bits on any host. */
static uint64_t
le64(const unsigned char *s)
{
	return (uint64_t)s[0] | (uint64_t)s[1] << 8 | (uint64_t)s[2] << 16 |
	    (uint64_t)s[3] << 24 | (uint64_t)s[4] << 32 | (uint64_t)s[5] << 40 |
	    (uint64_t)s[6] << 48 | (uint64_t)s[7] << 56;
}

/* How many of the bytes of x (low byte first) lead with ASCII digits. */
static unsigned
lead_digits(uint64_t x)
{
	/* A digit is 0x3_ with a low nibble that survives +6 without carry. */
	uint64_t hi = (x & ONES * 0xF0) ^ ONES * 0x30;
	uint64_t lo = ((x + ONES * 6) & ONES * 0xF0) ^ ONES * 0x30;
	uint64_t nz = hi | lo;
	unsigned k = 0;

	/* High bit of each byte: that byte is not a digit. */
	nz = (((nz & ONES * 0x7F) + ONES * 0x7F) | nz) & ONES * 0x80;
	if (!nz)
		return 8;
#ifdef __GNUC__
	k = (unsigned)__builtin_ctzll(nz) / 8;
#else
	while (!(nz & 0x80)) {
		nz >>= 8;
		k++;
	}
#endif
	return k;
}

/* The value of the k (1..7) digits at the low end of x. */
static uint32_t
digits_value(uint64_t x, unsigned k)
{
	/* Move them to the high end, most significant first, zeros below. */
	uint64_t d = (x - ONES * '0') << (8 * (8 - k));

	d = (d * 10 + (d >> 8)) & UINT64_C(0x00FF00FF00FF00FF);
	d = (d * 100 + (d >> 16)) & UINT64_C(0x0000FFFF0000FFFF);
	d = (d * 10000 + (d >> 32)) & UINT64_C(0xFFFFFFFF);
	return (uint32_t)d;
}

static void
plain_chunk(const char *buf, size_t n, const char *file, size_t *line)
{
	const unsigned char *s = (const unsigned char *)buf;
	size_t i = 0, j;
	uint64_t v;
	unsigned k;

	while (i < n) {
		if (pl.indigit || pl.bad) {
			plain_byte(s[i++], file, line);
			continue;
		}
		if (cls[s[i]] & 1) {
			if (s[i++] == '\n')
				mark_add(pl.ntok, file, ++*line);
			continue;
		}
		/* A number of 1 to 7 digits then a separator, a word at a time. */
		if (i + 8 <= n) {
			v = le64(s + i);
			k = lead_digits(v);
			if (k && k < 8 && (cls[s[i + k]] & 1)) {
				if (pl.nids == BATCH)
					plain_flush();
				pl.ids[pl.nids++] = digits_value(v, k);
				pl.ntok++;
				i += k;
				continue;
			}
		}
		/* Near the chunk's end: up to 10 digits, then a separator. */
		for (j = i, v = 0; j < n && j - i < 11 && (cls[s[j]] & 4); j++)
			v = v * 10 + (s[j] - '0');
		if (j > i && j < n && (cls[s[j]] & 1) && v <= 4294967295ull) {
			if (pl.nids == BATCH)
				plain_flush();
			pl.ids[pl.nids++] = (uint32_t)v;
			pl.ntok++;
			i = j;
			continue;
		}
		plain_byte(s[i++], file, line);
	}
	plain_flush();
}

/* ---------------------------------------------------------------- records */

/* Log records: the library's reader (hm_record), shared with its users. */
static hm_record *rd;
static const char *field_name;

/* Records are ids or text one by one: byte offsets and token counts follow. */
static void
set_text_input(int on)
{
	if (on == !!(wflags & HM_WR_TEXT_INPUT))
		return;
	if (on)
		wflags |= HM_WR_TEXT_INPUT;
	else
		wflags &= ~(unsigned)HM_WR_TEXT_INPUT;
	hm_writer_set_text_input(wr, on);
}

/*
 * A JSON array of ids over several lines, s[0..n) read at file:line:
 * each id that begins a line of its own is read there, for warnings.
 */
static void
array_marks(const char *s, size_t n, const char *file, size_t line)
{
	size_t i, dl = 0, mark_dl = 0, index = 0;

	for (i = 0; i < n; i++) {
		if (s[i] == '\n')
			dl++;
		else if (s[i] >= '0' && s[i] <= '9') {
			if (dl != mark_dl) {
				mark_add(index, file, line + dl);
				mark_dl = dl;
			}
			index++;
			while (i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
				i++;
		}
	}
}

/*
 * Parse the record rd has read: its ids or its text, its other members
 * carried.  arr: the text of an array of ids over several lines, else NULL.
 */
static void
parse_record(const char *file, size_t line, const char *arr, size_t arrlen)
{
	size_t n, flen;
	const uint32_t *ids = hm_record_tokens(rd, &n);
	const char *fields = hm_record_fields(rd, &flen), *text;

	set_text_input(ids == NULL);
	rec.id = hm_record_id(rd);
	rec_begin(file, line, fields);
	if (arr)
		array_marks(arr, arrlen, file, line);
	if (ids)
		feed_ids(ids, n);
	else {
		text = hm_record_text(rd, &n);
		if (hm_parser_feed_text(rec.p, text, n) != HM_OK)
			cli_oom();
		drain();
	}
	rec_end();
	rec.id = NULL;
}

static void
bad_record(const char *file, size_t line, size_t index, const char *msg,
    const char *id)
{
	cli_error(file, line, "token %zu: %s", index, msg);
	status = CLI_BAD;
	rec_error_line(msg, line, id);
	cli_flush();
}

/*
 * The way most records go: one whole on its line (s[0] is '{' or '['),
 * only blanks after it.  0: it is not (it may go on over the next lines).
 */
static int
line_record(const char *s, size_t n, const char *file, size_t line)
{
	hm_status st = hm_record_read(rd, s, n, 0, NULL);
	size_t k;

	if (st == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK)
		return 0;
	for (k = hm_record_end(rd); k < n && isspace((unsigned char)s[k]); k++)
		;
	if (k < n)
		return 0;
	parse_record(file, line, NULL, 0);
	return 1;
}

/* A JSON array or object, cut at its closing bracket, from file:line on. */
static void
json_record(const char *s, size_t n, const char *file, size_t line)
{
	hm_ids_error err;
	hm_status st = hm_record_read(rd, s, n, 0, &err);

	if (st == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK)
		bad_record(file, line, err.index, err.msg, hm_record_id(rd));
	else
		parse_record(file, line, s[0] == '[' && memchr(s, '\n', n) ? s : NULL, n);
}

/* A line of numbers. */
static void
number_line(const char *s, size_t n, const char *file, size_t line)
{
	hm_ids ids = { 0 };
	hm_ids_error err;
	hm_status st = hm_ids_parse(s, n, HM_IDS_ANY, &ids, NULL, &err);

	if (st == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK)
		bad_record(file, line, err.index, err.msg, NULL);
	else {
		set_text_input(0);
		rec_begin(file, line, NULL);
		feed_ids(ids.v, ids.len);
		rec_end();
	}
	hm_ids_free(&ids);
}

/*
 * Lines of id records.  A JSON array or object may run over several
 * lines: it ends where its brackets close (strings skipped), and anything
 * but blanks after it on that line is an error.
 */
static struct {
	hm_buf b;
	int open, depth, instr, esc;
	size_t line;
} jr;

static void
ids_line(const char *s, size_t n, const char *file, size_t line)
{
	size_t i = 0, k, end = 0;

	if (!jr.open) {
		while (i < n && isspace((unsigned char)s[i]))
			i++;
		if (i == n)
			return;
		if (s[i] != '[' && s[i] != '{') {
			number_line(s, n, file, line);
			return;
		}
		if (line_record(s + i, n - i, file, line))
			return;
		jr.open = 1;
		jr.depth = jr.instr = jr.esc = 0;
		jr.line = line;
		hm_buf_clear(&jr.b);
	}
	for (k = i; k < n && !end; k++) {
		char c = s[k];

		if (jr.instr) {
			if (jr.esc)
				jr.esc = 0;
			else if (c == '\\')
				jr.esc = 1;
			else if (c == '"')
				jr.instr = 0;
		} else if (c == '"')
			jr.instr = 1;
		else if (c == '[' || c == '{')
			jr.depth++;
		else if ((c == ']' || c == '}') && !--jr.depth)
			end = k + 1;
	}
	if (!end) {
		hm_buf_add(&jr.b, s + i, n - i);
		hm_buf_addc(&jr.b, '\n');
		if (jr.b.oom)
			cli_oom();
		return;
	}
	hm_buf_add(&jr.b, s + i, end - i);
	if (jr.b.oom)
		cli_oom();
	jr.open = 0;
	for (k = end; k < n && isspace((unsigned char)s[k]); k++)
		;
	if (k < n) {
		const char *id = NULL;

		/* The record's id, to name it, if it has one. */
		if (jr.b.p[0] == '{' && hm_record_read(rd, jr.b.p, jr.b.len, 0, NULL) != HM_ENOMEM)
			id = hm_record_id(rd);
		cli_error(file, line, "text after the JSON record: '%.*s'",
		    (int)(n - k > 24 ? 24 : n - k), s + k);
		status = CLI_BAD;
		rec_error_line("text after the JSON record", jr.line, id);
		cli_flush();
		return;
	}
	json_record(jr.b.p, jr.b.len, file, jr.line);
}

/* The input ends: a JSON record still open is an error. */
static void
ids_lines_end(const char *file)
{
	if (!jr.open)
		return;
	jr.open = 0;
	cli_error(file, jr.line, "unterminated JSON record");
	status = CLI_BAD;
	rec_error_line("unterminated JSON record", jr.line, NULL);
	cli_flush();
}

/*
 * --lines with text: each line is a record of Harmony text, or a JSON
 * record holding it (or ids).
 */
static void
text_line(const char *s, size_t n, const char *file, size_t line)
{
	size_t i;

	for (i = 0; i < n && isspace((unsigned char)s[i]); i++)
		;
	/* What follows a text record on its line is not looked at. */
	if (i < n && s[i] == '{') {
		hm_status st = hm_record_read(rd, s + i, n - i, HM_RECORD_TEXT_ONLY, NULL);

		if (st == HM_ENOMEM)
			cli_oom();
		if (st == HM_OK) {
			parse_record(file, line, NULL, 0);
			return;
		}
	}
	set_text_input(1);
	rec_begin(file, line, NULL);
	if (hm_parser_feed_text(rec.p, s, n) != HM_OK)
		cli_oom();
	drain();
	rec_end();
}

/* ---------------------------------------------------------------- input */

enum { DETECT_MAX = 1 << 20 };

/*
 * --from auto: ids when the first line that is not blank is made of ids
 * alone (digits, blanks, commas, brackets) or is a JSON object holding an
 * id array; text otherwise.  IN_UNKNOWN while s[0..n) cannot tell yet and
 * more may come (all: no more comes).
 */
static int
detect(const char *s, size_t n, int all)
{
	static const char *const keys[] = {
		"\"tokens\"", "\"token_ids\"", "\"output_ids\"", "\"input_ids\"",
	};
	const char *const *text_keys = hm_record_text_fields(rd);
	size_t i = 0, e, k, q;
	int digit = 0;

	if (n >= DETECT_MAX)
		all = 1;
	while (i < n && isspace((unsigned char)s[i]))
		i++;
	if (opt.from == FROM_TEXT)
		return opt.lines ? IN_TEXT_LINES : IN_TEXT;
	if (i == n) {
		if (!all)
			return IN_UNKNOWN;
		return IN_PLAIN;
	}
	if (opt.from == FROM_IDS)
		return s[i] == '[' || s[i] == '{' || opt.lines ? IN_LINES : IN_PLAIN;
	for (e = i; e < n && s[e] != '\n'; e++)
		;
	if (s[i] == '{') {
		/* The whole object, which `jq .` spreads over lines. */
		int depth = 0, instr = 0, esc = 0;

		for (e = i; e < n; e++) {
			if (instr) {
				if (esc)
					esc = 0;
				else if (s[e] == '\\')
					esc = 1;
				else if (s[e] == '"')
					instr = 0;
			} else if (s[e] == '"')
				instr = 1;
			else if (s[e] == '{' || s[e] == '[')
				depth++;
			else if ((s[e] == '}' || s[e] == ']') && !--depth)
				break;
		}
		for (k = 0; k < sizeof keys / sizeof keys[0]; k++) {
			size_t m = strlen(keys[k]);

			for (q = i; q + m <= e; q++) {
				size_t c = q + m;

				if (memcmp(s + q, keys[k], m))
					continue;
				while (c < e && isspace((unsigned char)s[c]))
					c++;
				if (c < e && s[c] == ':')
					return IN_LINES;
			}
		}
		/* A record holding its completion as text: "text": "..." */
		for (k = 0; text_keys[k]; k++) {
			size_t m = strlen(text_keys[k]);

			for (q = i + 1; q + m + 2 <= e; q++) {
				size_t c = q + m + 1;

				if (s[q - 1] != '"' || memcmp(s + q, text_keys[k], m) || s[q + m] != '"')
					continue;
				while (c < e && isspace((unsigned char)s[c]))
					c++;
				if (c < e && s[c] == ':')
					c++;
				else
					continue;
				while (c < e && isspace((unsigned char)s[c]))
					c++;
				if (c < e && s[c] == '"')
					return IN_LINES;
			}
		}
		return e < n || all ? IN_TEXT : IN_UNKNOWN;
	}
	for (k = i; k < e; k++) {
		unsigned char c = (unsigned char)s[k];

		if (c >= '0' && c <= '9')
			digit = 1;
		else if (!isspace(c) && c != ',' && c != '[' && c != ']')
			return opt.lines ? IN_TEXT_LINES : IN_TEXT;
	}
	if (e == n && !all)
		return IN_UNKNOWN;
	if (!digit && s[i] != '[')
		return opt.lines ? IN_TEXT_LINES : IN_TEXT;
	return s[i] == '[' || opt.lines ? IN_LINES : IN_PLAIN;
}

static struct {
	int mode;
	uint64_t toff;   /* text: bytes fed so far */
	size_t line;     /* line of the next byte in the current file */
	hm_buf lb;       /* line modes: the line so far */
	size_t lline;    /* ... and its number */
} inp = { IN_UNKNOWN, 0, 1, { 0 }, 1 };

static void
start_mode(int mode, const char *file)
{
	inp.mode = mode;
	if (mode == IN_TEXT || mode == IN_TEXT_LINES)
		wflags |= HM_WR_TEXT_INPUT;
	if (mode == IN_LINES || mode == IN_TEXT_LINES)
		wflags |= HM_WR_RECORDS;
	hm_writer_free(wr);
	wr = hm_writer_new(opt.to, wflags);
	if (!wr || hm_writer_set_channels(wr, opt.channels) != HM_OK)
		cli_oom();
	hm_writer_set_seed(wr, (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32),
	    opt.random_ids ? (int64_t)time(NULL) : 0);
	if (mode == IN_TEXT || mode == IN_PLAIN)
		rec_begin(file, inp.line, NULL);
}

/* A line of a line mode, without its newline. */
static void
one_line(const char *s, size_t n, const char *file, size_t line)
{
	if (inp.mode == IN_TEXT_LINES)
		text_line(s, n, file, line);
	else
		ids_line(s, n, file, line);
}

/* Bytes of the current file, once the mode is known. */
static void
consume(const char *buf, size_t n, const char *file)
{
	size_t i, st;

	switch (inp.mode) {
	case IN_TEXT:
		for (i = 0; i < n; i++)
			if (buf[i] == '\n')
				mark_add(inp.toff + i + 1, file, ++inp.line);
		inp.toff += n;
		if (hm_parser_feed_text(rec.p, buf, n) != HM_OK)
			cli_oom();
		drain();
		break;
	case IN_PLAIN:
		plain_chunk(buf, n, file, &inp.line);
		break;
	default:
		for (st = 0; st < n; st = i + 1) {
			const char *nl = memchr(buf + st, '\n', n - st);

			if (!nl)
				break;
			i = (size_t)(nl - buf);
			/* A line whole in this read is read in place. */
			if (!inp.lb.len)
				one_line(buf + st, i - st, file, inp.lline);
			else {
				hm_buf_add(&inp.lb, buf + st, i - st);
				if (inp.lb.oom)
					cli_oom();
				one_line(inp.lb.p, inp.lb.len, file, inp.lline);
				hm_buf_clear(&inp.lb);
			}
			inp.lline = ++inp.line;
		}
		hm_buf_add(&inp.lb, buf + st, n - st);
		if (inp.lb.oom)
			cli_oom();
		break;
	}
}

/* The current file has ended. */
static void
file_end(const char *file)
{
	if (inp.mode == IN_LINES || inp.mode == IN_TEXT_LINES) {
		if (inp.lb.len)
			one_line(inp.lb.p, inp.lb.len, file, inp.lline);
		hm_buf_clear(&inp.lb);
		if (inp.mode == IN_LINES)
			ids_lines_end(file);
	}
	/* A number does not run on into the next file. */
	if (inp.mode == IN_PLAIN && (pl.indigit || pl.bad))
		plain_number_end(file, inp.line);
}

static void
run(cli_input *in)
{
	static char buf[1 << 18];
	hm_buf pre = { 0 };
	const char *file = "-";

	while (cli_input_next_file(in)) {
		int fd = fileno(in->f);

		file = in->name;
		inp.line = inp.lline = 1;
		/* A stream goes on in the next file: its tokens are read there. */
		if (inp.mode == IN_PLAIN)
			mark_add(pl.ntok, file, 1);
		else if (inp.mode == IN_TEXT)
			mark_add(inp.toff, file, 1);
		for (;;) {
			ssize_t got = read(fd, buf, sizeof buf);

			if (got < 0) {
				if (errno == EINTR)
					continue;
				cli_error(file, 0, "read error: %s", strerror(errno));
				in->failed = 1;
				break;
			}
			if (got == 0)
				break;
			if (inp.mode != IN_UNKNOWN) {
				consume(buf, (size_t)got, file);
				continue;
			}
			/* Hold what comes until the mode can be told. */
			hm_buf_add(&pre, buf, (size_t)got);
			if (pre.oom)
				cli_oom();
			if (detect(pre.p, pre.len, 0) != IN_UNKNOWN) {
				start_mode(detect(pre.p, pre.len, 0), file);
				consume(pre.p, pre.len, file);
				hm_buf_free(&pre);
			}
		}
		if (inp.mode == IN_UNKNOWN && pre.len) {
			start_mode(detect(pre.p, pre.len, 1), file);
			consume(pre.p, pre.len, file);
			hm_buf_free(&pre);
		}
		file_end(file);
	}
	if (inp.mode == IN_PLAIN)
		plain_flush();
	if (inp.mode == IN_UNKNOWN)
		start_mode(opt.from == FROM_TEXT ? IN_TEXT : IN_PLAIN, file);
	rec_end();
	hm_buf_free(&inp.lb);
	hm_buf_free(&jr.b);
}

/*
 * --merge: the input is stats summary lines (of parts of a log); the
 * output is the one summary of them all, as one run over the whole would
 * have written it.
 */
static int
merge(cli_input *in)
{
	char *line = NULL;
	size_t cap = 0, len, i;
	const char *msg;

	wr = hm_writer_new(HM_TO_STATS, wflags & HM_WR_PRETTY);
	if (!wr)
		cli_oom();
	while (cli_input_line(in, &line, &cap, &len)) {
		for (i = 0; i < len && isspace((unsigned char)line[i]); i++)
			;
		if (i == len)
			continue;
		if (hm_writer_merge_summary(wr, line, len, &msg) != HM_OK) {
			cli_error(in->name, in->line, "%s", msg);
			status = CLI_BAD;
		}
	}
	free(line);
	if (hm_writer_summary(wr) != HM_OK)
		cli_oom();
	write_out(1);
	hm_writer_free(wr);
	if (in->failed && status == CLI_OK)
		status = CLI_IO;
	return cli_finish(status);
}

int
main(int argc, char **argv)
{
	enum { O_CHANNELS = 256, O_COLOR, O_FIELD, O_FROM, O_IDS, O_LINES, O_MARKER,
	    O_PRETTY, O_ROLE, O_STRICT, O_SUMMARY, O_TO, O_MERGE, O_WARNINGS };
	static const struct option longopts[] = {
		{ "channels", required_argument, NULL, O_CHANNELS },
		{ "color", required_argument, NULL, O_COLOR },
		{ "field", required_argument, NULL, O_FIELD },
		{ "from", required_argument, NULL, O_FROM },
		{ "help", no_argument, NULL, 'h' },
		{ "ids", required_argument, NULL, O_IDS },
		{ "lines", no_argument, NULL, O_LINES },
		{ "marker", required_argument, NULL, O_MARKER },
		{ "merge", no_argument, NULL, O_MERGE },
		{ "pretty", no_argument, NULL, O_PRETTY },
		{ "quiet", no_argument, NULL, 'q' },
		{ "role", required_argument, NULL, O_ROLE },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "summary", no_argument, NULL, O_SUMMARY },
		{ "to", required_argument, NULL, O_TO },
		{ "version", no_argument, NULL, 'V' },
		{ "warnings", required_argument, NULL, O_WARNINGS },
		{ NULL, 0, NULL, 0 },
	};
	cli_input in;
	int c, shape;
	hm_parser *probe;

	cli_init("harmony-parse");
	plain_init();
	while ((c = getopt_long(argc, argv, "hqV", longopts, NULL)) != -1) {
		switch (c) {
		case O_CHANNELS:
			if (!*optarg || *optarg == ',' || strstr(optarg, ",,") ||
			    optarg[strlen(optarg) - 1] == ',')
				cli_usage_error("--channels needs channel names, comma separated: '%s'", optarg);
			opt.channels = optarg;
			break;
		case O_COLOR:
			if (cli_parse_color(optarg, &opt.color) < 0)
				cli_usage_error("invalid --color: '%s'", optarg);
			break;
		case O_FIELD:
			if (!*optarg)
				cli_usage_error("--field needs a member name");
			field_name = optarg;
			break;
		case O_MERGE:
			opt.merge = 1;
			break;
		case O_WARNINGS:
			if (!strcmp(optarg, "all"))
				opt.warnings = W_ALL;
			else if (!strcmp(optarg, "summary"))
				opt.warnings = W_SUMMARY;
			else if (!strcmp(optarg, "none"))
				opt.warnings = W_NONE;
			else
				cli_usage_error("invalid --warnings: '%s' (all, summary or none)", optarg);
			break;
		case O_FROM:
			if (!strcmp(optarg, "ids"))
				opt.from = FROM_IDS;
			else if (!strcmp(optarg, "text"))
				opt.from = FROM_TEXT;
			else if (!strcmp(optarg, "auto"))
				opt.from = FROM_AUTO;
			else
				cli_usage_error("invalid --from: '%s' (ids, text or auto)", optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return cli_finish(CLI_OK);
		case O_IDS:
			if (!strcmp(optarg, "random"))
				opt.random_ids = 1;
			else if (!strcmp(optarg, "deterministic"))
				opt.random_ids = 0;
			else
				cli_usage_error("invalid --ids: '%s' (deterministic or random)", optarg);
			break;
		case O_LINES:
			opt.lines = 1;
			break;
		case O_MARKER:
			if (!*optarg)
				cli_usage_error("--marker needs a non-empty string");
			opt.marker = optarg;
			break;
		case O_PRETTY:
			opt.pretty = 1;
			break;
		case 'q':
			cli_quiet = 1;
			break;
		case O_ROLE:
			probe = hm_parser_new(optarg, 0);
			if (!probe)
				cli_usage_error("invalid --role: '%s'", optarg);
			hm_parser_free(probe);
			opt.role = optarg;
			break;
		case O_STRICT:
			opt.strict = 1;
			break;
		case O_SUMMARY:
			opt.summary = 1;
			break;
		case O_TO:
			if ((shape = hm_shape_from_name(optarg)) < 0)
				cli_usage_error("invalid --to: '%s'", optarg);
			opt.to = (hm_shape)shape;
			break;
		case 'V':
			puts("harmony-parse " HM_VERSION);
			return cli_finish(CLI_OK);
		default:
			fprintf(stderr, "Try '%s --help'.\n", cli_prog);
			return CLI_USAGE;
		}
	}
	if (opt.summary && opt.to != HM_TO_STATS)
		cli_usage_error("--summary goes with --to=stats");
	if (opt.merge && opt.to != HM_TO_STATS)
		cli_usage_error("--merge goes with --to=stats");
	if (opt.strict && opt.marker)
		cli_usage_error("--marker is a recovery: it does not go with --strict");
	if (opt.pretty && (opt.to == HM_TO_CHAT_STREAM ||
	    opt.to == HM_TO_RESPONSES_STREAM || opt.to == HM_TO_TEXT))
		cli_usage_error("--pretty goes with the JSON shapes, not --to=%s",
		    opt.to == HM_TO_TEXT ? "text" : opt.to == HM_TO_CHAT_STREAM ?
		    "chat-stream" : "responses-stream");
	if (opt.random_ids)
		wflags |= HM_WR_RANDOM_IDS;
	if (opt.pretty)
		wflags |= HM_WR_PRETTY;
	if (opt.to == HM_TO_TEXT && cli_use_color(opt.color, stdout))
		wflags |= HM_WR_COLOR;
	if (!(rd = hm_record_new()) || hm_record_set_text_field(rd, field_name) != HM_OK)
		cli_oom();
	cli_input_init(&in, argv + optind, argc - optind);
	if (opt.merge)
		return merge(&in);
	run(&in);
	if (opt.summary) {
		hm_writer_consume(wr);
		hm_writer_summary(wr);
		flush_summary = 1;
		write_out(1);
	}
	warn_summary();
	if (in.failed && status == CLI_OK)
		status = CLI_IO;
	hm_writer_free(wr);
	hm_buf_free(&rec.err);
	hm_buf_free(&pl.badtok);
	hm_record_free(rd);
	return cli_finish(status);
}
