/* harmony-tokens - o200k_harmony encode, decode, inspect, count, specials. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "buf_int.h"
#include "cli.h"
#include "harmony.h"

static const char usage_text[] =
"Usage: harmony-tokens [OPTION]... COMMAND [FILE]...\n"
"o200k_harmony tokens: text to ids and back, and a look inside.\n"
"\n"
"Commands:\n"
"  encode      text to token ids (the whole input is one text)\n"
"  decode      token ids to the exact bytes\n"
"  inspect     one row per token: index, id, kind, bytes\n"
"  count       number of tokens (per file, and a total, like wc)\n"
"  specials    every special token with its id\n"
"\n"
"Options:\n"
"      --color=WHEN    color: auto (default), always, never\n"
"      --from=FORMAT   inspect, count: text, ids or auto\n"
"                      (inspect default auto, count default text)\n"
"  -h, --help          show this help and exit\n"
"      --lines         each input line is its own record; one output line each\n"
"      --lossy         replace invalid UTF-8 with U+FFFD instead of failing\n"
"      --no-special    encode special-token text as plain text\n"
"  -q, --quiet         no warnings\n"
"      --stop          specials: only the stop tokens\n"
"      --stop-actions  specials: only the stop tokens of assistant actions\n"
"      --to=FORMAT     encode: ids (default), json, lines;\n"
"                      decode: text (default), json; inspect: table (default), json\n"
"  -V, --version       print the version and exit\n"
"\n"
"Ids are read as whitespace or comma separated numbers, JSON arrays, or NDJSON\n"
"records with a tokens, token_ids, output_ids or input_ids array.\n"
"Exit status: 0 ok, 1 bad input, 2 usage error, 3 I/O error.\n";

enum cmd { C_ENCODE, C_DECODE, C_INSPECT, C_COUNT, C_SPECIALS };
enum fmt { F_DEFAULT, F_IDS, F_JSON, F_LINES, F_TEXT, F_TABLE, F_AUTO };

static struct {
	enum cmd cmd;
	enum fmt to, from;
	int lines, lossy, special, stop, stop_actions, color;
} opt = { .special = 1, .color = -1 };

static hm_encoder *enc;
static int status = CLI_OK;
static hm_buf out;

/* Write the buffered output when it grows large, and at record ends. */
static void
out_drain(int flush)
{
	if (out.oom) {
		cli_error(NULL, 0, "out of memory");
		exit(CLI_IO);
	}
	if (out.len && fwrite(out.p, 1, out.len, stdout) != out.len) {
		cli_finish(CLI_IO);
		exit(CLI_IO);
	}
	hm_buf_clear(&out);
	if (flush)
		cli_flush();
}

static void
out_maybe(void)
{
	if (out.len >= 1 << 16)
		out_drain(0);
}

/* ------------------------------------------------------------ encode */

static void
write_ids(const hm_ids *ids)
{
	size_t i;

	char sep = opt.to == F_JSON ? ',' : opt.to == F_LINES ? '\n' : ' ';

	if (opt.to == F_JSON)
		hm_buf_addc(&out, '[');
	for (i = 0; i < ids->len; i += 4096) {
		size_t k, end = i + 4096 < ids->len ? i + 4096 : ids->len;
		char *p;

		/* ids have at most 10 digits: write straight into reserved room */
		if (hm_buf_reserve(&out, (end - i) * 11) < 0)
			break;
		p = out.p + out.len;
		for (k = i; k < end; k++) {
			char tmp[10];
			uint32_t v = ids->v[k];
			int d = 0;

			if (k)
				*p++ = sep;
			do {
				tmp[d++] = (char)('0' + v % 10);
				v /= 10;
			} while (v);
			while (d)
				*p++ = tmp[--d];
		}
		out.len = (size_t)(p - out.p);
		out.p[out.len] = '\0';
		out_maybe();
	}
	if (opt.to == F_JSON)
		hm_buf_addc(&out, ']');
	if (opt.to != F_LINES || ids->len)
		hm_buf_addc(&out, '\n');
}

static unsigned
enc_flags(void)
{
	return (opt.special ? HM_ENC_SPECIAL : 0) | (opt.lossy ? HM_ENC_LOSSY : 0);
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
static void
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

/*
 * Encode one text; on invalid UTF-8, report where.  line is the record's
 * line with --lines, 0 for the whole input (located through parts).
 */
static int
encode_text(const char *s, size_t n, hm_ids *ids, const char *file, size_t line)
{
	hm_status st = hm_encode(enc, s, n, enc_flags(), ids);

	if (st == HM_ENOMEM) {
		cli_error(file, line, "out of memory");
		exit(CLI_IO);
	}
	if (st != HM_OK) {
		size_t off = hm_encoder_error_offset(enc), col = off + 1;

		if (!line)
			locate(s, off, &file, &line, &col);
		cli_error(file, line, "byte %zu: invalid UTF-8 (use --lossy to replace it)", col);
		status = CLI_BAD;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ decode */

static int
parse_ids(const char *s, size_t n, hm_ids *ids, const char *file, size_t line)
{
	hm_ids_error err;
	hm_status st = hm_ids_parse(s, n, 0, ids, NULL, &err);

	if (st == HM_ENOMEM) {
		cli_error(file, line, "out of memory");
		exit(CLI_IO);
	}
	if (st != HM_OK) {
		cli_error(file, line, "byte %zu: token %zu: %s", err.col, err.index, err.msg);
		status = CLI_BAD;
		return -1;
	}
	return 0;
}

static void
write_decoded(const hm_ids *ids)
{
	size_t i, n;
	const char *b;

	if (opt.to == F_JSON) {
		hm_buf tmp = { 0 };

		for (i = 0; i < ids->len; i++) {
			b = hm_token_bytes(ids->v[i], &n);
			hm_buf_add(&tmp, b, n);
		}
		hm_buf_json_str(&out, tmp.p ? tmp.p : "", tmp.len);
		hm_buf_free(&tmp);
		return;
	}
	for (i = 0; i < ids->len; i++) {
		b = hm_token_bytes(ids->v[i], &n);
		hm_buf_add(&out, b, n);
		out_maybe();
	}
}

/* ------------------------------------------------------------ inspect */

#define COL_SPECIAL "\033[1;35m"
#define COL_ESC "\033[2m"
#define COL_BAD "\033[33m"
#define COL_DIM "\033[2m"
#define COL_OFF "\033[0m"

static int use_color;

/* Token bytes in double quotes, C-style escapes for what is not printable. */
static void
add_escaped(const char *b, size_t n, int json)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)b;
	size_t i = 0, k, bad;
	uint32_t cp;

	if (json) {
		hm_buf_json_str(&out, b, n);
		return;
	}
	hm_buf_addc(&out, '"');
	while (i < n) {
		unsigned c = s[i];
		const char *esc = NULL;
		char x[5];

		if (c >= 0x80) {
			k = hm_utf8_decode(s + i, n - i, &cp, &bad);
			if (k) {
				hm_buf_add(&out, s + i, k);
				i += k;
				continue;
			}
		}
		switch (c) {
		case '\n': esc = "\\n"; break;
		case '\t': esc = "\\t"; break;
		case '\r': esc = "\\r"; break;
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		}
		if (!esc && c >= 0x20 && c < 0x7f) {
			hm_buf_addc(&out, (char)c);
			i++;
			continue;
		}
		if (!esc) {
			x[0] = '\\', x[1] = 'x', x[2] = hex[c >> 4], x[3] = hex[c & 15], x[4] = 0;
			esc = x;
		}
		if (use_color)
			hm_buf_adds(&out, c >= 0x80 ? COL_BAD : COL_ESC);
		hm_buf_adds(&out, esc);
		if (use_color)
			hm_buf_adds(&out, COL_OFF);
		i++;
	}
	hm_buf_addc(&out, '"');
}

static void
inspect_row(size_t index, uint32_t id, size_t lineno)
{
	size_t n;
	const char *b = hm_token_bytes(id, &n);
	int special = hm_is_special(id);
	int valid = hm_utf8_valid_prefix(b, n) == n;

	if (opt.to == F_JSON) {
		hm_buf_adds(&out, "{");
		if (lineno) {
			hm_buf_adds(&out, "\"line\":");
			hm_buf_addu(&out, lineno);
			hm_buf_addc(&out, ',');
		}
		hm_buf_adds(&out, "\"index\":");
		hm_buf_addu(&out, index);
		hm_buf_adds(&out, ",\"id\":");
		hm_buf_addu(&out, id);
		hm_buf_adds(&out, special ? ",\"kind\":\"special\"" : ",\"kind\":\"ordinary\"");
		hm_buf_adds(&out, ",\"text\":");
		hm_buf_json_str(&out, b, n);
		hm_buf_adds(&out, ",\"hex\":\"");
		for (size_t i = 0; i < n; i++) {
			static const char hex[] = "0123456789abcdef";
			unsigned char c = (unsigned char)b[i];

			hm_buf_addc(&out, hex[c >> 4]);
			hm_buf_addc(&out, hex[c & 15]);
		}
		hm_buf_adds(&out, valid ? "\",\"utf8\":true}\n" : "\",\"utf8\":false}\n");
		return;
	}
	{
		char head[64];

		snprintf(head, sizeof head, "%6zu %7u %-9s", index, id, special ? "special" : "ordinary");
		hm_buf_adds(&out, head);
	}
	if (special) {
		if (use_color)
			hm_buf_adds(&out, COL_SPECIAL);
		hm_buf_add(&out, b, n);
		if (use_color)
			hm_buf_adds(&out, COL_OFF);
	} else {
		add_escaped(b, n, 0);
	}
	if (!valid)
		hm_buf_adds(&out, use_color ? " " COL_BAD "(not UTF-8 alone)" COL_OFF : " (not UTF-8 alone)");
	hm_buf_addc(&out, '\n');
}

/* --lines form: `id "bytes"` pairs on one line. */
static void
inspect_compact(const hm_ids *ids)
{
	size_t i, n;

	for (i = 0; i < ids->len; i++) {
		const char *b = hm_token_bytes(ids->v[i], &n);

		if (i)
			hm_buf_addc(&out, ' ');
		hm_buf_addu(&out, ids->v[i]);
		hm_buf_addc(&out, ':');
		if (hm_is_special(ids->v[i])) {
			if (use_color)
				hm_buf_adds(&out, COL_SPECIAL);
			hm_buf_add(&out, b, n);
			if (use_color)
				hm_buf_adds(&out, COL_OFF);
		} else {
			add_escaped(b, n, 0);
		}
	}
	hm_buf_addc(&out, '\n');
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
				size_t save = out.len;

				inspect_row(i, ids.v[i], 0);
				out.len--; /* drop the row's newline */
				(void)save;
				if (i + 1 < ids.len)
					hm_buf_addc(&out, ',');
			}
			hm_buf_adds(&out, "]\n");
		} else {
			inspect_compact(&ids);
		}
		return;
	case C_SPECIALS:
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
		out_drain(1);
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
		/* streamed: ids never span lines */
		char *line = NULL;
		size_t lcap = 0, ll;

		while (cli_input_line(in, &line, &lcap, &ll)) {
			ids.len = 0;
			if (parse_ids(line, ll, &ids, in->name, in->line) == 0) {
				if (opt.to == F_JSON) {
					/* collect everything, one string at the end */
					for (i = 0; i < ids.len; i++) {
						size_t n;
						const char *b = hm_token_bytes(ids.v[i], &n);

						if (len + n + 1 > cap) {
							cap = (len + n + 1) * 2;
							if (!(buf = realloc(buf, cap))) {
								cli_error(NULL, 0, "out of memory");
								exit(CLI_IO);
							}
						}
						memcpy(buf + len, b, n);
						len += n;
					}
				} else {
					write_decoded(&ids);
					out_drain(0);
				}
			}
		}
		if (opt.to == F_JSON) {
			hm_buf_json_str(&out, buf ? buf : "", len);
			hm_buf_addc(&out, '\n');
		}
		free(line);
		free(buf);
		hm_ids_free(&ids);
		return;
	}

	if (opt.cmd == C_COUNT && in->npaths > 1) {
		size_t total = 0;

		while (cli_input_next_file(in)) {
			const char *name = in->name;

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
	enum { O_COLOR = 256, O_FROM, O_LINES, O_LOSSY, O_NO_SPECIAL, O_STOP, O_STOP_ACTIONS, O_TO };
	static const struct option longopts[] = {
		{ "color", required_argument, NULL, O_COLOR },
		{ "from", required_argument, NULL, O_FROM },
		{ "help", no_argument, NULL, 'h' },
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
	static const char *const cmds[] = { "encode", "decode", "inspect", "count", "specials" };
	cli_input in;
	int c, i;

	cli_init("harmony-tokens");
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hqV", longopts, NULL)) != -1) {
		switch (c) {
		case O_COLOR:
			if (cli_parse_color(optarg, &opt.color) < 0)
				cli_usage_error("--color must be auto, always or never, not '%s'", optarg);
			break;
		case O_FROM:
			opt.from = parse_fmt(optarg, "--from");
			if (opt.from != F_TEXT && opt.from != F_IDS && opt.from != F_AUTO)
				cli_usage_error("--from must be text, ids or auto");
			break;
		case 'h':
			fputs(usage_text, stdout);
			return cli_finish(CLI_OK);
		case O_LINES: opt.lines = 1; break;
		case O_LOSSY: opt.lossy = 1; break;
		case O_NO_SPECIAL: opt.special = 0; break;
		case 'q': cli_quiet = 1; break;
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
		cli_usage_error("missing command (encode, decode, inspect, count, specials)");
	for (i = 0; i < 5 && strcmp(argv[optind], cmds[i]); i++)
		;
	if (i == 5)
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
	case C_COUNT:
	case C_SPECIALS:
		if (opt.to != F_DEFAULT)
			cli_usage_error("--to does not apply to %s", cmds[opt.cmd]);
		break;
	}
	if ((opt.stop || opt.stop_actions) && opt.cmd != C_SPECIALS)
		cli_usage_error("--stop and --stop-actions go with specials");
	if (opt.from != F_DEFAULT && opt.cmd != C_INSPECT && opt.cmd != C_COUNT)
		cli_usage_error("--from goes with inspect and count");
	use_color = cli_use_color(opt.color, stdout);

	if (opt.cmd == C_SPECIALS) {
		if (optind < argc)
			cli_usage_error("specials takes no file");
		run_specials();
		out_drain(0);
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
	out_drain(0);
	cli_input_close(&in);
	hm_encoder_free(enc);
	hm_buf_free(&out);
	if (in.failed)
		status = CLI_IO;
	return cli_finish(status);
}
