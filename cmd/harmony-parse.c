/*
 * harmony-parse - Harmony completions (ids or text) to messages, Chat,
 * Responses ...  This file: the options, the output, the warnings and the
 * record being parsed; reading the input is parse_input.c's (parse.h).
 */
#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static const char usage_text[] =
"Usage: harmony-parse [OPTION]... [FILE]...\n"
"Parse Harmony completions (token ids or text) into messages, Chat Completions,\n"
"Responses, their SSE streams, a transcript or stats.\n"
"\n"
"Options:\n"
"      --channels=LIST  keep only messages on these channels (comma separated;\n"
"                       \"none\" = no channel); --channels=final hides reasoning\n"
"      --color=WHEN     text: color auto (default), always, never\n"
"      --field=PATH     records: the completion is at PATH, as jq spells it\n"
"                       (.response, .choices[0].text; a bare name is a member):\n"
"                       a string is text, an array of numbers ids\n"
"      --from=FORMAT    ids, text or auto (default: records when the first line\n"
"                       opens a JSON object, SSE when it is an SSE line, ids\n"
"                       when it is ids alone, else text)\n"
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
"Server responses and their SSE or NDJSON streams (OpenAI, vLLM, sglang,\n"
"llama.cpp, Ollama, TGI, Triton) are read with no option, streams as they come.\n"
"A record without a completion is an error line in its place.\n"
"Exit status: 0 ok, 1 bad input, 2 usage error, 3 I/O error.\n";

enum { W_DEFAULT, W_ALL, W_SUMMARY, W_NONE };

struct parse_opt opt = { .role = "auto", .color = -1 };
static const char *field_name;  /* --field */

int status = CLI_OK;
hm_writer *wr;
static int flush_summary;
unsigned wflags;
struct parse_rec rec;

/*
 * --strict gives the reference's result: nothing for a stream it rejects.
 * So a record's output waits for its end, except events, which are the
 * parser's trace up to its error.
 */
int
holds_record(void)
{
	return opt.strict && opt.to != HM_TO_EVENTS;
}

int
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

void
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

void
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
	return W_SUMMARY;
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

void
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

void
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
void
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
	/* --summary: the summary line alone (the error is on stderr). */
	put_out(!(opt.summary && opt.to == HM_TO_STATS));
	hm_buf_free(&b);
}

void
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

void
feed_ids(const uint32_t *v, size_t n)
{
	if (hm_parser_feed(rec.p, v, n) != HM_OK)
		cli_oom();
	drain();
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
				cli_usage_error("--field needs a member name or a path");
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
	if (!(rd = hm_record_new()) || !(sv = hm_server_new()))
		cli_oom();
	switch (hm_server_set_field(sv, field_name)) {
	case HM_OK:
		break;
	case HM_EINPUT:
		cli_usage_error("invalid --field: '%s' (a member name, or a path as jq "
		    "spells it: .choices[0].text)", field_name);
	default:
		cli_oom();
	}
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
	plain_free();
	hm_record_free(rd);
	hm_server_free(sv);
	return cli_finish(status);
}
