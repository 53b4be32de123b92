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
"   or: harmony-tokens [OPTION]... diff [--prefix] FILE1 FILE2\n"
"o200k_harmony tokens: text to ids and back, and a look inside.\n"
"\n"
"Commands:\n"
"  encode      text to token ids (the whole input is one text)\n"
"  decode      token ids to the exact bytes\n"
"  inspect     one row per token: index, id, kind, bytes\n"
"  count       number of tokens (per file, and a total, like wc)\n"
"  specials    every special token with its id\n"
"  diff        compare two token files record by record (a line each);\n"
"              report each record's first difference; with --prefix,\n"
"              where each record of FILE2 stops extending FILE1's\n"
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
"      --prefix        diff: each record of FILE2 must start with FILE1's;\n"
"                      end with the tokens a prefix cache reuses and recomputes\n"
"  -q, --quiet         no warnings; diff: no report, the exit status only\n"
"      --stop          specials: only the stop tokens\n"
"      --stop-actions  specials: only the stop tokens of assistant actions\n"
"      --to=FORMAT     encode: ids (default), json, lines;\n"
"                      decode: text (default), json;\n"
"                      inspect: table (default), json, html (a page for a\n"
"                      browser);\n"
"                      diff: text (default), json (one NDJSON report a record),\n"
"                      html (one page: each record side by side)\n"
"  -V, --version       print the version and exit\n"
"\n"
"Ids are read as whitespace or comma separated numbers, JSON arrays, or NDJSON\n"
"records with a tokens, token_ids, output_ids or input_ids array.\n"
"Exit status: 0 ok, 1 bad input, 2 usage error, 3 I/O error;\n"
"diff: 0 equal (--prefix: all extend), 1 different or bad input (errors on\n"
"stderr), 2 usage, 3 I/O.\n";

/* Ids of a whole input, line by line so errors name their file and line. */
static int
parse_ids_lines(struct tokens_ctx *tk, const char *s, size_t n, hm_ids *ids)
{
	size_t i = 0, line = 1, at = 0, part = 0;
	const char *file = tk->nparts ? tk->parts[0].name : "-";
	int rc = 0;

	/* line is the line of byte at; both move on with i, never back (not locate's rescan) */
	while (i < n) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - s) : n;

		while (part + 1 < tk->nparts && tk->parts[part + 1].off <= i) {
			part++;
			file = tk->parts[part].name;
			line = 1;
			at = tk->parts[part].off;
		}
		for (; at < i; at++)
			if (s[at] == '\n')
				line++;
		if (parse_ids(tk, s + i, e - i, ids, file, line) < 0)
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
to_ids(struct tokens_ctx *tk, const char *s, size_t n, hm_ids *ids, const char *file, size_t line, const char **what)
{
	enum fmt from = tk->opt.from;

	if (from == F_DEFAULT)
		from = tk->opt.cmd == C_INSPECT ? F_AUTO : F_TEXT;
	if (from == F_AUTO)
		from = hm_ids_detect(s, n) ? F_IDS : F_TEXT;
	if (from == F_IDS) {
		*what = "bad token id";
		return line ? parse_ids(tk, s, n, ids, file, line) : parse_ids_lines(tk, s, n, ids);
	}
	*what = "invalid UTF-8";
	return encode_text(tk, s, n, ids, file, line);
}

/* The --lines stand-in for a bad record: a JSON error object, or an empty line. */
static void
bad_record(struct tokens_ctx *tk, const char *what, size_t line)
{
	if (tk->opt.to == F_JSON) {
		hm_buf_adds(&tk->out, "{\"error\":\"");
		hm_buf_adds(&tk->out, what);
		hm_buf_adds(&tk->out, "\",\"line\":");
		hm_buf_addu(&tk->out, line);
		hm_buf_addc(&tk->out, '}');
	}
	hm_buf_addc(&tk->out, '\n');
}

/*
 * inspect --to html --lines: a line's section, headed "FILE line N" (and
 * why, for a line that could not be read: then no tokens).
 */
static void
html_line(struct tokens_ctx *tk, const char *file, size_t line, const char *why, const hm_ids *ids)
{
	hm_buf label = { 0 };

	hm_buf_adds(&label, file);
	hm_buf_adds(&label, " line ");
	hm_buf_addu(&label, line);
	if (why) {
		hm_buf_adds(&label, ": ");
		hm_buf_adds(&label, why);
	}
	if (label.oom)
		cli_oom();
	inspect_html(tk, file, label.p, ids);
	hm_buf_free(&label);
}

/* ------------------------------------------------------------ per record */

static void
do_record(struct tokens_ctx *tk, const char *s, size_t n, const char *file, size_t line,
    hm_ids *ids)
{
	const char *what;

	ids->len = 0;
	switch (tk->opt.cmd) {
	case C_ENCODE:
		if (encode_text(tk, s, n, ids, file, line) < 0) {
			bad_record(tk, "invalid UTF-8", line);
			return;
		}
		write_ids(tk, ids);
		return;
	case C_DECODE:
		if (parse_ids(tk, s, n, ids, file, line) < 0) {
			bad_record(tk, "bad token id", line);
			return;
		}
		write_decoded(tk, ids);
		hm_buf_addc(&tk->out, '\n');
		return;
	case C_COUNT:
		if (to_ids(tk, s, n, ids, file, line, &what) < 0) {
			bad_record(tk, what, line);
			return;
		}
		hm_buf_addu(&tk->out, ids->len);
		hm_buf_addc(&tk->out, '\n');
		return;
	case C_INSPECT:
		if (to_ids(tk, s, n, ids, file, line, &what) < 0) {
			if (tk->opt.to == F_HTML)
				html_line(tk, file, line, what, NULL);
			else
				bad_record(tk, what, line);
			return;
		}
		if (tk->opt.to == F_HTML) {
			html_line(tk, file, line, NULL, ids);
		} else if (tk->opt.to == F_JSON) {
			hm_buf_addc(&tk->out, '[');
			for (size_t i = 0; i < ids->len; i++) {
				inspect_row(tk, i, ids->v[i], 0);
				tk->out.len--; /* drop the row's newline */
				if (i + 1 < ids->len)
					hm_buf_addc(&tk->out, ',');
			}
			hm_buf_adds(&tk->out, "]\n");
		} else {
			inspect_compact(tk, ids);
		}
		return;
	case C_SPECIALS:
	case C_DIFF:
		return;
	}
}

static void
run_lines(struct tokens_ctx *tk, cli_input *in)
{
	char *line = NULL;
	size_t cap = 0, len;
	hm_ids ids = { 0 };

	while (cli_input_line(in, &line, &cap, &len)) {
		do_record(tk, line, len, in->name, in->line, &ids);
		cli_write_buf(&tk->out, 1);
	}
	free(line);
	hm_ids_free(&ids);
}

/* One text / id list from all of the input. */
static void
run_whole(struct tokens_ctx *tk, cli_input *in)
{
	char *buf = NULL;
	size_t len = 0, cap = 0, i;
	hm_ids ids = { 0 };
	const char *what;

	if (tk->opt.cmd == C_DECODE) {
		run_decode_stream(tk, in);
		return;
	}
	if (tk->opt.cmd == C_ENCODE) {
		run_encode_stream(tk, in);
		return;
	}
	if (tk->opt.cmd == C_COUNT && (tk->opt.from == F_DEFAULT || tk->opt.from == F_TEXT)) {
		run_count_stream(tk, in);
		return;
	}
	/* ids as decode reads them: constant memory (not the page of --to html) */
	if ((tk->opt.cmd == C_COUNT || tk->opt.cmd == C_INSPECT) && tk->opt.from == F_IDS &&
	    tk->opt.to != F_HTML) {
		run_ids_stream(tk, in);
		return;
	}
	/*
	 * --from auto (inspect's default) tells ids from text by the input's
	 * first block: ids larger than it stream (constant memory), as with
	 * --from ids.  count's several files are told one by one, below.
	 */
	if (tk->opt.to != F_HTML && ((tk->opt.cmd == C_INSPECT && (tk->opt.from == F_AUTO ||
	    tk->opt.from == F_DEFAULT)) || (tk->opt.cmd == C_COUNT && tk->opt.from == F_AUTO &&
	    in->npaths <= 1))) {
		int r = run_auto_stream(tk, in, &buf, &len, &cap);

		if (r == 1)
			return;
		if ((r < 0 ? read_whole(tk, in, &buf, &len, &cap) :
		    read_whole_rest(tk, in, &buf, &len, &cap)) < 0 && !buf) {
			free(buf);
			return;
		}
		goto whole;
	}
	if (tk->opt.cmd == C_COUNT && in->npaths > 1) {
		size_t total = 0;

		/* one file at a time: errors are located in that file alone */
		if (!(tk->parts = calloc(1, sizeof *tk->parts)))
			cli_oom();
		tk->nparts = 1;
		while (cli_input_next_file(in)) {
			const char *name = in->name;

			tk->parts[0].name = name;
			len = 0;
			if (cli_read_all(in, &buf, &len, &cap) < 0)
				continue;
			ids.len = 0;
			if (to_ids(tk, buf, len, &ids, name, 0, &what) < 0)
				continue;
			total += ids.len;
			hm_buf_addu(&tk->out, ids.len);
			hm_buf_addc(&tk->out, ' ');
			hm_buf_adds(&tk->out, name);
			hm_buf_addc(&tk->out, '\n');
		}
		hm_buf_addu(&tk->out, total);
		hm_buf_adds(&tk->out, " total\n");
		free(buf);
		hm_ids_free(&ids);
		return;
	}

	if (read_whole(tk, in, &buf, &len, &cap) < 0 && !buf) {
		free(buf);
		return;
	}
whole:
	{
		const char *name = tk->nparts ? tk->parts[0].name : "-";

		if (tk->opt.cmd == C_ENCODE) {
			if (encode_text(tk, buf ? buf : "", len, &ids, name, 0) == 0)
				write_ids(tk, &ids);
		} else if (to_ids(tk, buf ? buf : "", len, &ids, name, 0, &what) == 0) {
			if (tk->opt.cmd == C_COUNT) {
				hm_buf_addu(&tk->out, ids.len);
				hm_buf_addc(&tk->out, '\n');
			} else if (tk->opt.to == F_HTML) {
				inspect_html(tk, name, name, &ids);
			} else {
				for (i = 0; i < ids.len; i++) {
					inspect_row(tk, i, ids.v[i], 0);
					out_maybe(tk);
				}
			}
		}
	}
	free(buf);
	hm_ids_free(&ids);
}

static void
run_specials(struct tokens_ctx *tk)
{
	const uint32_t *v;
	size_t n, i, k;
	uint32_t id;

	if (tk->opt.stop || tk->opt.stop_actions) {
		n = tk->opt.stop_actions ? hm_stop_tokens_for_actions(&v) : hm_stop_tokens(&v);
		for (i = 0; i < n; i++) {
			const char *b = hm_token_bytes(v[i], &k);

			hm_buf_addu(&tk->out, v[i]);
			hm_buf_addc(&tk->out, ' ');
			hm_buf_add(&tk->out, b, k);
			hm_buf_addc(&tk->out, '\n');
		}
		return;
	}
	for (id = HM_N_ORDINARY; id < HM_N_TOKENS; id++) {
		const char *b = hm_token_bytes(id, &k);

		hm_buf_addu(&tk->out, id);
		hm_buf_addc(&tk->out, ' ');
		hm_buf_add(&tk->out, b, k);
		hm_buf_addc(&tk->out, '\n');
	}
}

static enum fmt
parse_fmt(const char *s, const char *what)
{
	static const struct { const char *name; enum fmt f; } names[] = {
		{ "ids", F_IDS }, { "json", F_JSON }, { "lines", F_LINES },
		{ "text", F_TEXT }, { "table", F_TABLE }, { "auto", F_AUTO }, { "html", F_HTML },
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
	enum { O_COLOR = 256, O_CONTEXT, O_FROM, O_KEY, O_LINES, O_LOSSY, O_NO_SPECIAL, O_PREFIX, O_STOP,
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
		{ "prefix", no_argument, NULL, O_PREFIX },
		{ "quiet", no_argument, NULL, 'q' },
		{ "stop", no_argument, NULL, O_STOP },
		{ "stop-actions", no_argument, NULL, O_STOP_ACTIONS },
		{ "to", required_argument, NULL, O_TO },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const cmds[] = { "encode", "decode", "inspect", "count", "specials", "diff" };
	struct tokens_ctx ctx = { .opt = { .special = 1, .color = -1, .context = 4 },
	                          .status = CLI_OK };
	struct tokens_ctx *tk = &ctx;
	cli_input in;
	int c, i, rc, text_cmd, ctx_given = 0;
	char *end;
	long v;

	cli_init("harmony-tokens");
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hqV", longopts, NULL)) != -1) {
		switch (c) {
		case O_COLOR:
			if (cli_parse_color(optarg, &tk->opt.color) < 0)
				cli_usage_error("--color must be auto, always or never, not '%s'", optarg);
			break;
		case O_CONTEXT:
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (!*optarg || *end || errno || v < 0 || v > 1000)
				cli_usage_error("--context must be a number from 0 to 1000, not '%s'", optarg);
			tk->opt.context = (size_t)v;
			ctx_given = 1;
			break;
		case O_FROM:
			tk->opt.from = parse_fmt(optarg, "--from");
			if (tk->opt.from != F_TEXT && tk->opt.from != F_IDS && tk->opt.from != F_AUTO)
				cli_usage_error("--from must be text, ids or auto");
			break;
		case 'h':
			fputs(usage_text, stdout);
			return cli_finish(CLI_OK);
		case O_KEY:
			if (!*optarg)
				cli_usage_error("--key needs a field name");
			tk->opt.key = optarg;
			break;
		case O_LINES: tk->opt.lines = 1; break;
		case O_LOSSY: tk->opt.lossy = 1; break;
		case O_NO_SPECIAL: tk->opt.special = 0; break;
		case O_PREFIX: tk->opt.prefix = 1; break;
		case 'q': tk->opt.quiet = 1; break;
		case O_STOP: tk->opt.stop = 1; break;
		case O_STOP_ACTIONS: tk->opt.stop_actions = 1; break;
		case O_TO: tk->opt.to = parse_fmt(optarg, "--to"); break;
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
	tk->opt.cmd = (enum cmd)i;
	optind++;

	switch (tk->opt.cmd) {
	case C_ENCODE:
		if (tk->opt.to == F_DEFAULT)
			tk->opt.to = F_IDS;
		if (tk->opt.to != F_IDS && tk->opt.to != F_JSON && tk->opt.to != F_LINES)
			cli_usage_error("encode --to must be ids, json or lines");
		if (tk->opt.lines && tk->opt.to == F_LINES)
			cli_usage_error("--to lines cannot keep one output line per input line (--lines)");
		break;
	case C_DECODE:
		if (tk->opt.to == F_DEFAULT)
			tk->opt.to = F_TEXT;
		if (tk->opt.to != F_TEXT && tk->opt.to != F_JSON)
			cli_usage_error("decode --to must be text or json");
		break;
	case C_INSPECT:
		if (tk->opt.to == F_DEFAULT)
			tk->opt.to = F_TABLE;
		if (tk->opt.to != F_TABLE && tk->opt.to != F_JSON && tk->opt.to != F_HTML)
			cli_usage_error("inspect --to must be table, json or html");
		break;
	case C_DIFF:
		if (tk->opt.to == F_DEFAULT)
			tk->opt.to = F_TEXT;
		if (tk->opt.to != F_TEXT && tk->opt.to != F_JSON && tk->opt.to != F_HTML)
			cli_usage_error("diff --to must be text, json or html");
		if (tk->opt.lines)
			cli_usage_error("--lines does not go with diff (it always reads one record a line)");
		break;
	case C_COUNT:
	case C_SPECIALS:
		if (tk->opt.to != F_DEFAULT)
			cli_usage_error("--to does not apply to %s", cmds[tk->opt.cmd]);
		break;
	}
	text_cmd = tk->opt.cmd == C_ENCODE || tk->opt.cmd == C_INSPECT || tk->opt.cmd == C_COUNT;
	if (!tk->opt.special && !text_cmd)
		cli_usage_error("--no-special goes with encode, inspect and count");
	if (tk->opt.lossy && !text_cmd)
		cli_usage_error("--lossy goes with encode, inspect and count");
	if (tk->opt.lines && tk->opt.cmd == C_SPECIALS)
		cli_usage_error("--lines does not go with specials");
	if ((tk->opt.stop || tk->opt.stop_actions) && tk->opt.cmd != C_SPECIALS)
		cli_usage_error("--stop and --stop-actions go with specials");
	if (tk->opt.from != F_DEFAULT && tk->opt.cmd != C_INSPECT && tk->opt.cmd != C_COUNT)
		cli_usage_error("--from goes with inspect and count");
	if ((tk->opt.key || ctx_given || tk->opt.prefix) && tk->opt.cmd != C_DIFF)
		cli_usage_error("--key, --context and --prefix go with diff");
	tk->use_color = cli_use_color(tk->opt.color, stdout);

	if (tk->opt.cmd == C_DIFF) {
		if (argc - optind != 2)
			cli_usage_error("diff needs two files, not %d", argc - optind);
		if (!strcmp(argv[optind], "-") && !strcmp(argv[optind + 1], "-"))
			cli_usage_error("diff can read standard input for one file only");
		rc = run_diff(tk, argv + optind);
		hm_buf_free(&tk->out);
		return cli_finish(rc);
	}

	if (tk->opt.cmd == C_SPECIALS) {
		if (optind < argc)
			cli_usage_error("specials takes no file");
		run_specials(tk);
		cli_write_buf(&tk->out, 0);
		hm_buf_free(&tk->out);
		return cli_finish(CLI_OK);
	}
	if (!(tk->enc = hm_encoder_new()))
		cli_oom();
	if (cli_input_init(&in, argv + optind, argc - optind))
		return cli_finish(CLI_IO);
	/*
	 * Text to encode keeps a BOM: U+FEFF is a character the tokenizer
	 * encodes (the reference's does; conformance vectors hold it).  Ids
	 * and JSON skip it.  inspect and count without --from=ids may be text.
	 */
	in.keep_bom = tk->opt.cmd == C_ENCODE ||
	    ((tk->opt.cmd == C_INSPECT || tk->opt.cmd == C_COUNT) && tk->opt.from != F_IDS);
	if (tk->opt.lines)
		run_lines(tk, &in);
	else
		run_whole(tk, &in);
	if (tk->opt.to == F_HTML)
		inspect_html_end(tk);
	cli_write_buf(&tk->out, 0);
	cli_input_close(&in);
	hm_encoder_free(tk->enc);
	hm_buf_free(&tk->out);
	free(tk->parts);
	encode_free(tk);
	decode_free(tk);
	if (in.failed)
		tk->status = CLI_IO;
	return cli_finish(tk->status);
}
