/*
 * harmony-parse - Harmony completions (ids or text) to messages, Chat,
 * Responses ...  This file: the options, the output, the warnings and the
 * record being parsed; reading the input is parse_input.c's (parse.h).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "store.h"

static const char usage_text[] =
"Usage: harmony-parse [OPTION]... [FILE]...\n"
"Parse Harmony completions (token ids or text) into messages, Chat Completions,\n"
"Responses, Anthropic Messages, their SSE streams, a transcript, the answer\n"
"alone, stats, Prometheus metrics or a report page of charts.\n"
"\n"
"Options:\n"
"      --channels=LIST  keep only messages on these channels (comma separated;\n"
"                       \"none\" = no channel); --channels=final hides reasoning\n"
"      --color=WHEN     text: color auto (default), always, never\n"
"      --continue=CHANNEL\n"
"                       the completion continues a prefilled message (its\n"
"                       role --role's, the assistant's by default) on CHANNEL\n"
"                       (\"none\": no channel): its first text is that message's\n"
"      --expect-bytes=N\n"
"                       with --merge, exit 1 unless the summaries cover N\n"
"                       input bytes\n"
"      --expect-lines=N\n"
"                       with --merge, exit 1 unless the summaries cover N\n"
"                       input lines\n"
"      --field=PATH     records: the completion is at PATH, as jq spells it\n"
"                       (.response, .choices[0].text; a bare name is a member):\n"
"                       a string is text, an array of numbers ids\n"
"      --formats=WHEN   --schema: the format keyword asserts (assert), only\n"
"                       annotates (annotate), or as the draft says (draft, the\n"
"                       default: asserts in drafts 4 to 7, not in 2019-09 and\n"
"                       2020-12, the draft of a schema without $schema)\n"
"      --from=FORMAT    ids, text or auto (default: records when the first line\n"
"                       opens a JSON object, SSE when it is an SSE line, ids\n"
"                       when it is ids alone, else text)\n"
"  -h, --help           show this help and exit\n"
"      --ids=KIND       item ids: deterministic (default) or random\n"
"      --lines          each input line is its own record (ids or text)\n"
"      --marker=STR     text without Harmony structure: before STR is reasoning,\n"
"                       after it final\n"
"      --merge          stats, metrics, report: the input is --summary lines (of\n"
"                       parts of a log); write the one summary of them all; a\n"
"                       bad line adds nothing, no line at all is an error\n"
"      --pretty         indent JSON output for people (not the SSE shapes or\n"
"                       text)\n"
"  -q, --quiet          no warnings\n"
"      --reasoning-field=NAME  chat shapes: the reasoning's member,\n"
"                       reasoning_content (default) or reasoning (vLLM's)\n"
"      --role=ROLE      author of a stream that does not start with <|start|>:\n"
"                       auto (default), none, assistant, user, system,\n"
"                       developer, tool\n";

/* The options from --schema on (a literal of their own, as usage_notes). */
static const char usage_text2[] =
"      --schema=FILE    check each completion's final answer against the JSON\n"
"                       Schema in FILE (a schema, a response_format or a request\n"
"                       holding one): a warning per problem, counts at the end\n""      --schema-dir=URI=DIR  --schema: read the schema documents whose URIs\n"
"                       begin with URI from DIR (never fetched); repeatable\n"
"      --schema-strict  --schema: a keyword its draft does not have is an error\n"
"                       of the schema (else an annotation)\n"
"      --store=DIR      API shapes: keep each turn's ids in DIR (plain files),\n"
"                       for harmony-render --store: previous_response_id, and\n"
"                       turns that come back without their reasoning\n"
"      --strict         behave exactly as the reference parser (fail where it\n"
"                       fails)\n"
"      --summary        stats: one summary line over all records at the end,\n"
"                       with the input it read (input_lines, input_bytes)\n"
"      --with-tokens    messages: each with \"tokens\", the ids it was written as;\n"
"                       the API shapes: the turn's ids packed, for harmony-render\n"
"      --to=SHAPE       messages (default), events, chat, chat-completion,\n"
"                       chat-stream, responses, responses-stream, anthropic,\n"
"                       anthropic-stream, answer, text, stats, metrics, html,\n"
"                       report\n"
"      --tool-choice=JSON  check each completion against this tool_choice\n"
"                       (\"required\", none, {\"type\":\"function\",...}, any\n"
"                       dialect's), or against each record's own with\n"
"                       \"record\": an F23 warning per completion that breaks it\n"
"  -V, --version        print the version and exit\n"
"      --warnings=WHICH\n"
"                       all, summary (the first 10, then a count per failure\n"
"                       mode; the default on records) or none\n";

/* The rest of --help (a string of its own: C11 promises 4095 bytes a literal). */
static const char usage_notes[] =
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

/* --expect-lines, --expect-bytes: each with whether it was given. */
struct expect {
	int lines_set, bytes_set;
	uint64_t lines, bytes;
};

/* One figure of the coverage against what was expected: 0 when they differ (said why). */
static int
coverage(uint64_t got, uint64_t want, const char *unit)
{
	if (got == want)
		return 1;
	if (got < want)
		cli_error(NULL, 0, "coverage: the summaries cover %llu of %llu %s (%llu missing)",
		    (unsigned long long)got, (unsigned long long)want, unit,
		    (unsigned long long)(want - got));
	else
		cli_error(NULL, 0, "coverage: the summaries cover %llu of %llu %s "
		    "(%llu more than expected)", (unsigned long long)got,
		    (unsigned long long)want, unit, (unsigned long long)(got - want));
	return 0;
}

/*
 * --merge: the input is stats summary lines (of parts of a log); the
 * output is the one summary of them all, as one run over the whole would
 * have written it.  A bad line is reported and adds nothing; no good line
 * at all writes nothing (a zero summary would pass for an empty log).
 * Then the coverage, against --expect-lines and --expect-bytes.
 */
static int
merge(struct parse_ctx *c, cli_input *in, const struct expect *ex)
{
	char *line = NULL;
	size_t cap = 0, len, i, merged = 0;
	uint64_t lines, bytes, rl;
	hm_error err;
	hm_status st;

	c->wr = hm_writer_new(c->opt.to, c->wflags & HM_WRITER_PRETTY);
	if (!c->wr)
		cli_oom();
	while (cli_input_line(in, &line, &cap, &len)) {
		for (i = 0; i < len && isspace((unsigned char)line[i]); i++)
			;
		if (i == len)
			continue;
		if ((st = hm_writer_merge_summary(c->wr, line, len, &err)) == HM_ENOMEM)
			cli_oom();
		if (st != HM_OK) {
			cli_error(in->name, in->line, "%s", err.msg);
			c->status = CLI_BAD;
		} else
			merged++;
	}
	free(line);
	if (merged) {
		if (hm_writer_summary(c->wr) != HM_OK)
			cli_oom();
		write_out(c, 1);
	} else if (!in->failed) {
		cli_error(NULL, 0, "no summary line to merge");
		c->status = CLI_BAD;
	}
	if (ex->lines_set || ex->bytes_set) {
		if (!hm_writer_input(c->wr, &lines, &bytes)) {
			cli_error(NULL, 0, "coverage: unknown: a summary merged does not say "
			    "how much input it read (no input_lines, input_bytes)");
			c->status = CLI_BAD;
		} else if ((ex->lines_set && !coverage(lines, ex->lines, "lines")) +
		    (ex->bytes_set && !coverage(bytes, ex->bytes, "bytes")))
			c->status = CLI_BAD;
	}
	/*
	 * Each line read is a record's, an error's or blank: where the parts
	 * counted that (input read by lines), lines lost inside a part show.
	 */
	if (merged && hm_writer_record_lines(c->wr, &rl) &&
	    hm_writer_input(c->wr, &lines, &bytes) && rl != lines) {
		cli_error(NULL, 0, "coverage: the records and errors account for %llu of "
		    "the %llu lines read", (unsigned long long)rl, (unsigned long long)lines);
		c->status = CLI_BAD;
	}
	hm_writer_free(c->wr);
	if (in->failed && c->status == CLI_OK)
		c->status = CLI_IO;
	return cli_finish(c->status);
}

int
main(int argc, char **argv)
{
	enum { O_CHANNELS = 256, O_COLOR, O_CONTINUE, O_EXPECT_BYTES, O_EXPECT_LINES, O_FIELD, O_FROM,
	    O_IDS, O_LINES, O_MARKER, O_PRETTY, O_REASONING_FIELD, O_ROLE, O_WITH_TOKENS,
	    O_STRICT, O_SUMMARY, O_TO, O_MERGE, O_WARNINGS, O_SCHEMA, O_STORE,
	    O_TOOL_CHOICE, O_SCHEMA_DIR, O_SCHEMA_STRICT, O_FORMATS };
	static const struct option longopts[] = {
		{ "channels", required_argument, NULL, O_CHANNELS },
		{ "color", required_argument, NULL, O_COLOR },
		{ "continue", required_argument, NULL, O_CONTINUE },
		{ "expect-bytes", required_argument, NULL, O_EXPECT_BYTES },
		{ "expect-lines", required_argument, NULL, O_EXPECT_LINES },
		{ "field", required_argument, NULL, O_FIELD },
		{ "formats", required_argument, NULL, O_FORMATS },
		{ "from", required_argument, NULL, O_FROM },
		{ "help", no_argument, NULL, 'h' },
		{ "ids", required_argument, NULL, O_IDS },
		{ "lines", no_argument, NULL, O_LINES },
		{ "marker", required_argument, NULL, O_MARKER },
		{ "merge", no_argument, NULL, O_MERGE },
		{ "pretty", no_argument, NULL, O_PRETTY },
		{ "reasoning-field", required_argument, NULL, O_REASONING_FIELD },
		{ "with-tokens", no_argument, NULL, O_WITH_TOKENS },
		{ "quiet", no_argument, NULL, 'q' },
		{ "role", required_argument, NULL, O_ROLE },
		{ "schema", required_argument, NULL, O_SCHEMA },
		{ "schema-dir", required_argument, NULL, O_SCHEMA_DIR },
		{ "schema-strict", no_argument, NULL, O_SCHEMA_STRICT },
		{ "store", required_argument, NULL, O_STORE },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "summary", no_argument, NULL, O_SUMMARY },
		{ "to", required_argument, NULL, O_TO },
		{ "tool-choice", required_argument, NULL, O_TOOL_CHOICE },
		{ "version", no_argument, NULL, 'V' },
		{ "warnings", required_argument, NULL, O_WARNINGS },
		{ NULL, 0, NULL, 0 },
	};
	struct parse_ctx ctx = { .opt = { .role = "auto", .color = -1 }, .status = CLI_OK,
	    .inp = { .mode = IN_UNKNOWN, .line = 1 } };
	struct parse_ctx *c = &ctx;
	const char *field_name = NULL; /* --field */
	struct expect ex = { 0 };
	unsigned long long n;
	char *end;
	cli_input in;
	int ch, shape;
	const char *to_name = "messages";

	cli_init("harmony-parse");
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":hqV", longopts, NULL)) != -1) {
		switch (ch) {
		case O_CHANNELS:
			if (!*optarg || *optarg == ',' || strstr(optarg, ",,") ||
			    optarg[strlen(optarg) - 1] == ',')
				cli_usage_error("--channels needs channel names, comma separated: '%s'", optarg);
			c->opt.channels = optarg;
			break;
		case O_COLOR:
			if (cli_parse_color(optarg, &c->opt.color) < 0)
				cli_usage_error("invalid --color: '%s'", optarg);
			break;
		case O_EXPECT_BYTES:
		case O_EXPECT_LINES:
			errno = 0;
			n = strtoull(optarg, &end, 10);
			if (!isdigit((unsigned char)*optarg) || *end || errno)
				cli_usage_error("--%s must be a number of %s, not '%s'",
				    ch == O_EXPECT_LINES ? "expect-lines" : "expect-bytes",
				    ch == O_EXPECT_LINES ? "lines" : "bytes", optarg);
			if (ch == O_EXPECT_LINES) {
				ex.lines = n;
				ex.lines_set = 1;
			} else {
				ex.bytes = n;
				ex.bytes_set = 1;
			}
			break;
		case O_FIELD:
			if (!*optarg)
				cli_usage_error("--field needs a member name or a path");
			field_name = optarg;
			break;
		case O_MERGE:
			c->opt.merge = 1;
			break;
		case O_WARNINGS:
			if (!strcmp(optarg, "all"))
				c->opt.warnings = W_ALL;
			else if (!strcmp(optarg, "summary"))
				c->opt.warnings = W_SUMMARY;
			else if (!strcmp(optarg, "none"))
				c->opt.warnings = W_NONE;
			else
				cli_usage_error("invalid --warnings: '%s' (all, summary or none)", optarg);
			break;
		case O_FROM:
			if (!strcmp(optarg, "ids"))
				c->opt.from = FROM_IDS;
			else if (!strcmp(optarg, "text"))
				c->opt.from = FROM_TEXT;
			else if (!strcmp(optarg, "auto"))
				c->opt.from = FROM_AUTO;
			else
				cli_usage_error("invalid --from: '%s' (ids, text or auto)", optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			fputs(usage_text2, stdout);
			fputs(usage_notes, stdout);
			return cli_finish(CLI_OK);
		case O_IDS:
			if (!strcmp(optarg, "random"))
				c->opt.random_ids = 1;
			else if (!strcmp(optarg, "deterministic"))
				c->opt.random_ids = 0;
			else
				cli_usage_error("invalid --ids: '%s' (deterministic or random)", optarg);
			break;
		case O_LINES:
			c->opt.lines = 1;
			break;
		case O_MARKER:
			if (!*optarg)
				cli_usage_error("--marker needs a non-empty string");
			c->opt.marker = optarg;
			break;
		case O_PRETTY:
			c->opt.pretty = 1;
			break;
		case 'q':
			c->opt.quiet = 1;
			break;
		case O_CONTINUE:
			if (!*optarg)
				cli_usage_error("--continue needs a channel (or none)");
			c->opt.cont = optarg;
			break;
		case O_WITH_TOKENS:
			c->wflags |= HM_WRITER_TOKENS;
			break;
		case O_REASONING_FIELD:
			if (!strcmp(optarg, "reasoning"))
				c->wflags |= HM_WRITER_REASONING;
			else if (strcmp(optarg, "reasoning_content"))
				cli_usage_error("invalid --reasoning-field: '%s' (reasoning_content or reasoning)", optarg);
			break;
		case O_ROLE:
			if (!hm_parser_role_valid(optarg))
				cli_usage_error("invalid --role: '%s'", optarg);
			c->opt.role = optarg;
			break;
		case O_SCHEMA:
			c->opt.schema = optarg;
			break;
		case O_SCHEMA_DIR:
			cli_schema_dir(optarg, &c->opt.schema_dirs, &c->opt.nschema_dirs);
			break;
		case O_SCHEMA_STRICT:
			c->opt.schema_strict = 1;
			break;
		case O_FORMATS:
			c->opt.formats = cli_schema_formats(optarg);
			c->opt.formats_given = 1;
			break;
		case O_STORE:
			c->opt.store = optarg;
			break;
		case O_TOOL_CHOICE:
			c->opt.tool_choice = optarg;
			break;
		case O_STRICT:
			c->opt.strict = 1;
			break;
		case O_SUMMARY:
			c->opt.summary = 1;
			break;
		case O_TO:
			if ((shape = hm_shape_from_name(optarg)) < 0)
				cli_usage_error("invalid --to: '%s'", optarg);
			c->opt.to = (hm_shape)shape;
			to_name = optarg;
			break;
		case 'V':
			puts("harmony-parse " HM_VERSION);
			return cli_finish(CLI_OK);
		default:
			cli_bad_option(argv, ch);
		}
	}
	if (c->opt.summary && c->opt.to != HM_TO_STATS && c->opt.to != HM_TO_METRICS &&
	    c->opt.to != HM_TO_REPORT)
		cli_usage_error("--summary goes with --to=stats or --to=metrics or --to=report");
	if (c->opt.merge && c->opt.to != HM_TO_STATS && c->opt.to != HM_TO_METRICS &&
	    c->opt.to != HM_TO_REPORT)
		cli_usage_error("--merge goes with --to=stats or --to=metrics or --to=report");
	if ((ex.lines_set || ex.bytes_set) && !c->opt.merge)
		cli_usage_error("--expect-%s goes with --merge", ex.lines_set ? "lines" : "bytes");
	if (c->opt.to == HM_TO_METRICS || c->opt.to == HM_TO_REPORT)
		c->opt.summary = 1; /* metrics and the report are a summary */
	shape = c->opt.to == HM_TO_CHAT || c->opt.to == HM_TO_CHAT_COMPLETION ||
	    c->opt.to == HM_TO_CHAT_STREAM || c->opt.to == HM_TO_RESPONSES ||
	    c->opt.to == HM_TO_RESPONSES_STREAM || c->opt.to == HM_TO_ANTHROPIC ||
	    c->opt.to == HM_TO_ANTHROPIC_STREAM; /* an API shape */
	if ((c->wflags & HM_WRITER_TOKENS) && c->opt.to != HM_TO_MESSAGES && !shape)
		cli_usage_error("--with-tokens goes with --to=messages or an API shape, not --to=%s",
		    to_name);
	if (c->opt.store && !shape)
		cli_usage_error("--store goes with an API shape (chat ... anthropic-stream), not --to=%s",
		    to_name);
	if (c->opt.store && store_open(c->opt.store)) {
		cli_error(NULL, 0, "--store: %s: %s", c->opt.store, strerror(errno));
		return cli_finish(CLI_IO);
	}
	if ((c->opt.schema_dirs || c->opt.schema_strict || c->opt.formats_given) && !c->opt.schema)
		cli_usage_error("%s goes with --schema", c->opt.schema_dirs ? "--schema-dir" :
		    c->opt.schema_strict ? "--schema-strict" : "--formats");
	if (c->opt.schema && c->opt.merge)
		cli_usage_error("--schema checks completions: it does not go with --merge");
	if (c->opt.tool_choice && c->opt.merge)
		cli_usage_error("--tool-choice checks completions: it does not go with --merge");
	if (c->opt.strict && c->opt.marker)
		cli_usage_error("--marker is a recovery: it does not go with --strict");
	if (c->opt.pretty && (c->opt.to == HM_TO_CHAT_STREAM ||
	    c->opt.to == HM_TO_RESPONSES_STREAM || c->opt.to == HM_TO_TEXT ||
	    c->opt.to == HM_TO_ANTHROPIC_STREAM || c->opt.to == HM_TO_ANSWER ||
	    c->opt.to == HM_TO_METRICS || c->opt.to == HM_TO_HTML ||
	    c->opt.to == HM_TO_REPORT))
		cli_usage_error("--pretty goes with the JSON shapes, not --to=%s", to_name);
	if (c->opt.random_ids)
		c->wflags |= HM_WRITER_RANDOM_IDS;
	if (c->opt.pretty)
		c->wflags |= HM_WRITER_PRETTY;
	if (c->opt.to == HM_TO_TEXT && cli_use_color(c->opt.color, stdout))
		c->wflags |= HM_WRITER_COLOR;
	if (cli_input_init(&in, argv + optind, argc - optind))
		return cli_finish(CLI_IO);
	if (c->opt.merge) /* summaries in: no record reader, no --field */
		return merge(c, &in, &ex);
	if (!(c->rd = hm_record_new()) || !(c->sv = hm_server_new()))
		cli_oom();
	switch (hm_server_set_field(c->sv, field_name)) {
	case HM_OK:
		break;
	case HM_EINPUT:
		cli_usage_error("invalid --field: '%s' (a member name, or a path as jq "
		    "spells it: .choices[0].text)", field_name);
	default:
		cli_oom();
	}
	if (c->opt.schema)
		schema_load(c);
	tool_choice_load(c);
	plain_init(c);
	run(c, &in);
	if (c->opt.summary) {
		hm_writer_consume(c->wr);
		hm_writer_add_input(c->wr, c->inp.nlines, c->inp.nbytes);
		hm_writer_add_errors(c->wr, c->inp.errors);
		if (c->inp.rec_lines_known)
			hm_writer_add_record_lines(c->wr, c->inp.rec_lines);
		if (hm_writer_summary(c->wr) != HM_OK)
			cli_oom();
		c->flush_summary = 1;
		write_out(c, 1);
	}
	if (c->opt.to == HM_TO_HTML) { /* the page's end */
		if (hm_writer_summary(c->wr) != HM_OK)
			cli_oom();
		write_out(c, 1);
	}
	warn_summary(c);
	schema_summary(c);
	free(c->opt.schema_dirs);
	tool_choice_free(c);
	if (in.failed && c->status == CLI_OK)
		c->status = CLI_IO;
	hm_writer_free(c->wr);
	hm_parser_free(c->rec.parser);
	hm_buf_free(&c->rec.err);
	plain_free(c);
	hm_record_free(c->rd);
	hm_server_free(c->sv);
	free(c->mk.v);
	return cli_finish(c->status);
}
