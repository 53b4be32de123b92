/*
 * harmony-tokens - o200k_harmony encode, decode, inspect, count, specials.
 * This file: the options, the input read whole or a record a line, and
 * each command's dispatch; the commands' own work is in tokens_encode.c,
 * tokens_decode.c, tokens_inspect.c and tokens_diff.c (tokens.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "tokens.h"

static const char usage_text[] =
"Usage: harmony-tokens [OPTION]... COMMAND [FILE]...\n"
"   or: harmony-tokens [OPTION]... diff FILE1 FILE2\n"
"o200k_harmony tokens: text to ids and back, and a look inside.\n"
"\n"
"Commands:\n"
"  encode      text to token ids (the whole input is one text)\n"
"  decode      token ids to the exact bytes\n"
"  inspect     one row per token: index, id, kind, bytes\n"
"  count       number of tokens (per file, and a total, like wc)\n"
"  specials    every special token with its id\n"
"  diff        compare two token files record by record (a line each);\n"
"              report each record's first difference\n"
"\n"
"Options:\n"
"      --color=WHEN    color: auto (default), always, never\n"
"      --context=N     diff: ids shown before and after a difference (default 4)\n"
"      --from=FORMAT   inspect, count: text, ids or auto\n"
"                      (inspect default auto, count default text)\n"
"  -h, --help          show this help and exit\n"
"      --key=FIELD     diff: pair NDJSON records by this field, not by line\n"
"      --lines         each input line is its own record; one output line each\n"
"      --lossy         replace invalid UTF-8 with U+FFFD instead of failing\n"
"      --no-special    encode special-token text as plain text\n"
"  -q, --quiet         no warnings; diff: no report, the exit status only\n"
"      --stop          specials: only the stop tokens\n"
"      --stop-actions  specials: only the stop tokens of assistant actions\n"
"      --to=FORMAT     encode: ids (default), json, lines;\n"
"                      decode: text (default), json; inspect: table (default), json;\n"
"                      diff: text (default), json (one NDJSON report a record)\n"
"  -V, --version       print the version and exit\n"
"\n"
"Ids are read as whitespace or comma separated numbers, JSON arrays, or NDJSON\n"
"records with a tokens, token_ids, output_ids or input_ids array.\n"
"Exit status: 0 ok, 1 bad input, 2 usage error, 3 I/O error;\n"
"diff: 0 equal, 1 different or bad input (errors on stderr), 2 usage, 3 I/O.\n";

struct tokens_opt opt = { .special = 1, .color = -1, .context = 4 };

hm_encoder *enc;
int status = CLI_OK;
hm_buf out;

void
out_maybe(void)
{
	if (out.len >= 1 << 16)
		cli_write_buf(&out, 0);
}

void *
xrealloc(void *p, size_t n)
{
	if (!(p = realloc(p, n)))
		cli_oom();
	return p;
}

/*
 * The whole input (all files, in order) as one text, read into memory.
 * Where each file starts is kept so an error can name its file and line.
 */
static struct { size_t off; const char *name; } *parts;
static size_t nparts;

static int
read_whole(cli_input *in, char **buf, size_t *len, size_t *cap)
{
	*len = 0;
	parts = calloc((size_t)in->npaths, sizeof *parts);
	while (parts && cli_input_next_file(in)) {
		parts[nparts].off = *len;
		parts[nparts++].name = in->name;
		if (cli_read_all(in, buf, len, cap) < 0)
			return -1;
	}
	return in->failed || !parts ? -1 : 0;
}

/* File, line and column (from 1) of byte off of the whole input s. */
void
locate(const char *s, size_t off, const char **file, size_t *line, size_t *col)
{
	size_t i, start = 0;

	*file = "-";
	for (i = 0; i < nparts; i++) {
		if (parts[i].off <= off) {
			start = parts[i].off;
			*file = parts[i].name;
		}
	}
	*line = 1;
	*col = 1;
	for (i = start; i < off; i++, (*col)++)
		if (s[i] == '\n')
			(*line)++, *col = 0;
}

/* Ids of a whole input, line by line so errors name their file and line. */
static int
parse_ids_lines(const char *s, size_t n, hm_ids *ids)
{
	size_t i = 0, line, col;
	const char *file;
	int rc = 0;

	while (i < n) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - s) : n;

		locate(s, i, &file, &line, &col);
		if (parse_ids(s + i, e - i, ids, file, line) < 0)
			rc = -1;
		i = e + 1;
	}
	return rc;
}

/*
 * Text or ids, by --from (auto: by shape).  On failure *what says which
 * kind of input was bad, for the --lines error record.
 */
static int
to_ids(const char *s, size_t n, hm_ids *ids, const char *file, size_t line, const char **what)
{
	enum fmt from = opt.from;

	if (from == F_DEFAULT)
		from = opt.cmd == C_INSPECT ? F_AUTO : F_TEXT;
	if (from == F_AUTO)
		from = hm_ids_detect(s, n) ? F_IDS : F_TEXT;
	if (from == F_IDS) {
		*what = "bad token id";
		return line ? parse_ids(s, n, ids, file, line) : parse_ids_lines(s, n, ids);
	}
	*what = "invalid UTF-8";
	return encode_text(s, n, ids, file, line);
}

/* The --lines stand-in for a bad record: a JSON error object, or an empty line. */
static void
bad_record(const char *what, size_t line)
{
	if (opt.to == F_JSON) {
		hm_buf_adds(&out, "{\"error\":\"");
		hm_buf_adds(&out, what);
		hm_buf_adds(&out, "\",\"line\":");
		hm_buf_addu(&out, line);
		hm_buf_addc(&out, '}');
	}
	hm_buf_addc(&out, '\n');
}

/* ------------------------------------------------------------ per record */

static void
do_record(const char *s, size_t n, const char *file, size_t line)
{
	static hm_ids ids;
	const char *what;

	ids.len = 0;
	switch (opt.cmd) {
	case C_ENCODE:
		if (encode_text(s, n, &ids, file, line) < 0) {
			bad_record("invalid UTF-8", line);
			return;
		}
		write_ids(&ids);
		return;
	case C_DECODE:
		if (parse_ids(s, n, &ids, file, line) < 0) {
			bad_record("bad token id", line);
			return;
		}
		write_decoded(&ids);
		hm_buf_addc(&out, '\n');
		return;
	case C_COUNT:
		if (to_ids(s, n, &ids, file, line, &what) < 0) {
			bad_record(what, line);
			return;
		}
		hm_buf_addu(&out, ids.len);
		hm_buf_addc(&out, '\n');
		return;
	case C_INSPECT:
		if (to_ids(s, n, &ids, file, line, &what) < 0) {
			bad_record(what, line);
			return;
		}
		if (opt.to == F_JSON) {
			hm_buf_addc(&out, '[');
			for (size_t i = 0; i < ids.len; i++) {
				inspect_row(i, ids.v[i], 0);
				out.len--; /* drop the row's newline */
				if (i + 1 < ids.len)
					hm_buf_addc(&out, ',');
			}
			hm_buf_adds(&out, "]\n");
		} else {
			inspect_compact(&ids);
		}
		return;
	case C_SPECIALS:
	case C_DIFF:
		return;
	}
}

static void
run_lines(cli_input *in)
{
	char *line = NULL;
	size_t cap = 0, len;

	while (cli_input_line(in, &line, &cap, &len)) {
		do_record(line, len, in->name, in->line);
		cli_write_buf(&out, 1);
	}
	free(line);
}

/* One text / id list from all of the input. */
static void
run_whole(cli_input *in)
{
	char *buf = NULL;
	size_t len = 0, cap = 0, i;
	hm_ids ids = { 0 };
	const char *what;

	if (opt.cmd == C_DECODE) {
		run_decode_stream(in);
		return;
	}
	if (opt.cmd == C_ENCODE) {
		run_encode_stream(in);
		return;
	}
	if (opt.cmd == C_COUNT && (opt.from == F_DEFAULT || opt.from == F_TEXT)) {
		run_count_stream(in);
		return;
	}
	if (opt.cmd == C_COUNT && in->npaths > 1) {
		size_t total = 0;

		/* one file at a time: errors are located in that file alone */
		if (!(parts = calloc(1, sizeof *parts)))
			cli_oom();
		nparts = 1;
		while (cli_input_next_file(in)) {
			const char *name = in->name;

			parts[0].name = name;
			len = 0;
			if (cli_read_all(in, &buf, &len, &cap) < 0)
				continue;
			ids.len = 0;
			if (to_ids(buf, len, &ids, name, 0, &what) < 0)
				continue;
			total += ids.len;
			hm_buf_addu(&out, ids.len);
			hm_buf_addc(&out, ' ');
			hm_buf_adds(&out, name);
			hm_buf_addc(&out, '\n');
		}
		hm_buf_addu(&out, total);
		hm_buf_adds(&out, " total\n");
		free(buf);
		hm_ids_free(&ids);
		return;
	}

	if (read_whole(in, &buf, &len, &cap) < 0 && !buf) {
		free(buf);
		return;
	}
	{
		const char *name = nparts ? parts[0].name : "-";

		if (opt.cmd == C_ENCODE) {
			if (encode_text(buf ? buf : "", len, &ids, name, 0) == 0)
				write_ids(&ids);
		} else if (to_ids(buf ? buf : "", len, &ids, name, 0, &what) == 0) {
			if (opt.cmd == C_COUNT) {
				hm_buf_addu(&out, ids.len);
				hm_buf_addc(&out, '\n');
			} else {
				for (i = 0; i < ids.len; i++) {
					inspect_row(i, ids.v[i], 0);
					out_maybe();
				}
			}
		}
	}
	free(buf);
	hm_ids_free(&ids);
}

static void
run_specials(void)
{
	const uint32_t *v;
	size_t n, i, k;
	uint32_t id;

	if (opt.stop || opt.stop_actions) {
		n = opt.stop_actions ? hm_stop_tokens_for_actions(&v) : hm_stop_tokens(&v);
		for (i = 0; i < n; i++) {
			const char *b = hm_token_bytes(v[i], &k);

			hm_buf_addu(&out, v[i]);
			hm_buf_addc(&out, ' ');
			hm_buf_add(&out, b, k);
			hm_buf_addc(&out, '\n');
		}
		return;
	}
	for (id = HM_N_ORDINARY; id < HM_N_TOKENS; id++) {
		const char *b = hm_token_bytes(id, &k);

		hm_buf_addu(&out, id);
		hm_buf_addc(&out, ' ');
		hm_buf_add(&out, b, k);
		hm_buf_addc(&out, '\n');
	}
}

static enum fmt
parse_fmt(const char *s, const char *what)
{
	static const struct { const char *name; enum fmt f; } names[] = {
		{ "ids", F_IDS }, { "json", F_JSON }, { "lines", F_LINES },
		{ "text", F_TEXT }, { "table", F_TABLE }, { "auto", F_AUTO },
	};
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(s, names[i].name))
			return names[i].f;
	cli_usage_error("unknown %s format '%s'", what, s);
}

int
main(int argc, char **argv)
{
	enum { O_COLOR = 256, O_CONTEXT, O_FROM, O_KEY, O_LINES, O_LOSSY, O_NO_SPECIAL, O_STOP,
	       O_STOP_ACTIONS, O_TO };
	static const struct option longopts[] = {
		{ "color", required_argument, NULL, O_COLOR },
		{ "context", required_argument, NULL, O_CONTEXT },
		{ "from", required_argument, NULL, O_FROM },
		{ "help", no_argument, NULL, 'h' },
		{ "key", required_argument, NULL, O_KEY },
		{ "lines", no_argument, NULL, O_LINES },
		{ "lossy", no_argument, NULL, O_LOSSY },
		{ "no-special", no_argument, NULL, O_NO_SPECIAL },
		{ "quiet", no_argument, NULL, 'q' },
		{ "stop", no_argument, NULL, O_STOP },
		{ "stop-actions", no_argument, NULL, O_STOP_ACTIONS },
		{ "to", required_argument, NULL, O_TO },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const cmds[] = { "encode", "decode", "inspect", "count", "specials", "diff" };
	cli_input in;
	int c, i, text_cmd, ctx_given = 0;
	char *end;
	long v;

	cli_init("harmony-tokens");
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hqV", longopts, NULL)) != -1) {
		switch (c) {
		case O_COLOR:
			if (cli_parse_color(optarg, &opt.color) < 0)
				cli_usage_error("--color must be auto, always or never, not '%s'", optarg);
			break;
		case O_CONTEXT:
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (!*optarg || *end || errno || v < 0 || v > 1000)
				cli_usage_error("--context must be a number from 0 to 1000, not '%s'", optarg);
			opt.context = (size_t)v;
			ctx_given = 1;
			break;
		case O_FROM:
			opt.from = parse_fmt(optarg, "--from");
			if (opt.from != F_TEXT && opt.from != F_IDS && opt.from != F_AUTO)
				cli_usage_error("--from must be text, ids or auto");
			break;
		case 'h':
			fputs(usage_text, stdout);
			return cli_finish(CLI_OK);
		case O_KEY:
			if (!*optarg)
				cli_usage_error("--key needs a field name");
			opt.key = optarg;
			break;
		case O_LINES: opt.lines = 1; break;
		case O_LOSSY: opt.lossy = 1; break;
		case O_NO_SPECIAL: opt.special = 0; break;
		case 'q': cli_quiet = opt.quiet = 1; break;
		case O_STOP: opt.stop = 1; break;
		case O_STOP_ACTIONS: opt.stop_actions = 1; break;
		case O_TO: opt.to = parse_fmt(optarg, "--to"); break;
		case 'V':
			printf("harmony-tokens %s\n", HM_VERSION);
			return cli_finish(CLI_OK);
		default:
			cli_bad_option(argv, c);
		}
	}
	if (optind >= argc)
		cli_usage_error("missing command (encode, decode, inspect, count, specials, diff)");
	for (i = 0; i < 6 && strcmp(argv[optind], cmds[i]); i++)
		;
	if (i == 6)
		cli_usage_error("unknown command '%s'", argv[optind]);
	opt.cmd = (enum cmd)i;
	optind++;

	switch (opt.cmd) {
	case C_ENCODE:
		if (opt.to == F_DEFAULT)
			opt.to = F_IDS;
		if (opt.to != F_IDS && opt.to != F_JSON && opt.to != F_LINES)
			cli_usage_error("encode --to must be ids, json or lines");
		if (opt.lines && opt.to == F_LINES)
			cli_usage_error("--to lines cannot keep one output line per input line (--lines)");
		break;
	case C_DECODE:
		if (opt.to == F_DEFAULT)
			opt.to = F_TEXT;
		if (opt.to != F_TEXT && opt.to != F_JSON)
			cli_usage_error("decode --to must be text or json");
		break;
	case C_INSPECT:
		if (opt.to == F_DEFAULT)
			opt.to = F_TABLE;
		if (opt.to != F_TABLE && opt.to != F_JSON)
			cli_usage_error("inspect --to must be table or json");
		break;
	case C_DIFF:
		if (opt.to == F_DEFAULT)
			opt.to = F_TEXT;
		if (opt.to != F_TEXT && opt.to != F_JSON)
			cli_usage_error("diff --to must be text or json");
		if (opt.lines)
			cli_usage_error("--lines does not go with diff (it always reads one record a line)");
		break;
	case C_COUNT:
	case C_SPECIALS:
		if (opt.to != F_DEFAULT)
			cli_usage_error("--to does not apply to %s", cmds[opt.cmd]);
		break;
	}
	text_cmd = opt.cmd == C_ENCODE || opt.cmd == C_INSPECT || opt.cmd == C_COUNT;
	if (!opt.special && !text_cmd)
		cli_usage_error("--no-special goes with encode, inspect and count");
	if (opt.lossy && !text_cmd)
		cli_usage_error("--lossy goes with encode, inspect and count");
	if (opt.lines && opt.cmd == C_SPECIALS)
		cli_usage_error("--lines does not go with specials");
	if ((opt.stop || opt.stop_actions) && opt.cmd != C_SPECIALS)
		cli_usage_error("--stop and --stop-actions go with specials");
	if (opt.from != F_DEFAULT && opt.cmd != C_INSPECT && opt.cmd != C_COUNT)
		cli_usage_error("--from goes with inspect and count");
	if ((opt.key || ctx_given) && opt.cmd != C_DIFF)
		cli_usage_error("--key and --context go with diff");
	use_color = cli_use_color(opt.color, stdout);

	if (opt.cmd == C_DIFF) {
		if (argc - optind != 2)
			cli_usage_error("diff needs two files, not %d", argc - optind);
		if (!strcmp(argv[optind], "-") && !strcmp(argv[optind + 1], "-"))
			cli_usage_error("diff can read standard input for one file only");
		return cli_finish(run_diff(argv + optind));
	}

	if (opt.cmd == C_SPECIALS) {
		if (optind < argc)
			cli_usage_error("specials takes no file");
		run_specials();
		cli_write_buf(&out, 0);
		return cli_finish(CLI_OK);
	}
	if (!(enc = hm_encoder_new())) {
		cli_error(NULL, 0, "out of memory");
		return CLI_IO;
	}
	cli_input_init(&in, argv + optind, argc - optind);
	if (opt.lines)
		run_lines(&in);
	else
		run_whole(&in);
	cli_write_buf(&out, 0);
	cli_input_close(&in);
	hm_encoder_free(enc);
	hm_buf_free(&out);
	if (in.failed)
		status = CLI_IO;
	return cli_finish(status);
}
