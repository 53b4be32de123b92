/* cli.c - shared command-line plumbing for the harmony binaries. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/*
 * What the process's stdout and stderr share, whichever tool runs: the
 * name its messages begin with, and what keeps a message from landing
 * inside a line of output.  A tool's own state (its options, -q among
 * them, its buffers) is in its context, never here.
 */
static struct {
	const char *prog;  /* "harmony-tokens" ... */
	int partial;       /* the last byte written through cli_write was not a newline */
	int shared;        /* stderr lands where stdout does (-1: not asked yet) */
} proc = { "harmony", 0, -1 };

/*
 * Whether a message on stderr lands where stdout's text does: stdout is a
 * terminal, or both are the same file (2>&1).  Asked once.
 */
static int
shares_screen(void)
{
	struct stat a, b;

	if (proc.shared < 0)
		proc.shared = isatty(STDOUT_FILENO) ||
		    (fstat(STDOUT_FILENO, &a) == 0 && fstat(STDERR_FILENO, &b) == 0 &&
		     a.st_dev == b.st_dev && a.st_ino == b.st_ino);
	return proc.shared;
}

void
cli_init(const char *prog)
{
	proc.prog = prog;
	signal(SIGPIPE, SIG_DFL);
}

/*
 * The message to stderr with its control characters escaped (\n \r \t,
 * else \xHH): a message quotes input (a schema's value, text after a
 * record), and a raw newline or escape sequence there would split the
 * line or drive the terminal.
 */
static void
put_escaped(const char *fmt, va_list ap)
{
	char small[512], *m = small;
	va_list aq;
	int n;
	size_t i;

	va_copy(aq, ap);
	n = vsnprintf(small, sizeof small, fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof small) {
		if (!(m = malloc((size_t)n + 1))) {
			vfprintf(stderr, fmt, ap); /* as it is, rather than nothing */
			return;
		}
		vsnprintf(m, (size_t)n + 1, fmt, ap);
	}
	for (i = 0; i < (size_t)n; i++) {
		unsigned char c = (unsigned char)m[i];

		if (c >= 0x20 && c != 0x7f)
			fputc(c, stderr);
		else if (c == '\n')
			fputs("\\n", stderr);
		else if (c == '\r')
			fputs("\\r", stderr);
		else if (c == '\t')
			fputs("\\t", stderr);
		else
			fprintf(stderr, "\\x%02x", c);
	}
	if (m != small)
		free(m);
}

/*
 * "PROG: FILE:LINE:COL: message".  A line of stdout left unfinished is
 * ended first where the message would land inside it.
 */
static void
vmsg(const char *file, size_t line, size_t col, const char *fmt, va_list ap)
{
	if (proc.partial && shares_screen()) {
		fputc('\n', stdout);
		proc.partial = 0;
	}
	fflush(stdout);
	if (file && line && col)
		fprintf(stderr, "%s: %s:%zu:%zu: ", proc.prog, file, line, col);
	else if (file && line)
		fprintf(stderr, "%s: %s:%zu: ", proc.prog, file, line);
	else if (file)
		fprintf(stderr, "%s: %s: ", proc.prog, file);
	else
		fprintf(stderr, "%s: ", proc.prog);
	put_escaped(fmt, ap);
	fputc('\n', stderr);
}

void
cli_error(const char *file, size_t line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(file, line, 0, fmt, ap);
	va_end(ap);
}

void
cli_error_at(const char *file, size_t line, size_t col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(file, line, col, fmt, ap);
	va_end(ap);
}

void
cli_warn(const char *file, size_t line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(file, line, 0, fmt, ap);
	va_end(ap);
}

void
cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, 0, 0, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help'.\n", proc.prog);
	exit(CLI_USAGE);
}

void
cli_bad_option(char **argv, int c)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		cli_usage_error("option '%s' needs an argument", arg);
	if (optopt && strncmp(arg, "--", 2) != 0)
		cli_usage_error("unknown option '-%c'", optopt);
	cli_usage_error("unknown option '%s'", arg);
}

int
cli_parse_color(const char *when, int *mode)
{
	if (!when || !strcmp(when, "auto"))
		*mode = -1;
	else if (!strcmp(when, "always"))
		*mode = 1;
	else if (!strcmp(when, "never"))
		*mode = 0;
	else
		return -1;
	return 0;
}

void
cli_schema_dir(char *arg, const char ***dirs, size_t *n)
{
	char *eq = strchr(arg, '=');
	const char **t;

	if (!eq || eq == arg || !eq[1])
		cli_usage_error("--schema-dir takes URI=DIR (a URI prefix and a directory), not '%s'", arg);
	if (!(t = realloc(*dirs, (*n + 3) * sizeof *t)))
		cli_oom();
	*eq = '\0';
	t[(*n)++] = arg;
	t[(*n)++] = eq + 1;
	t[*n] = NULL;
	*dirs = t;
}

int
cli_schema_formats(const char *when)
{
	if (!strcmp(when, "assert"))
		return 1;
	if (!strcmp(when, "annotate"))
		return 0;
	if (!strcmp(when, "draft"))
		return HM_FORMATS_DRAFT;
	cli_usage_error("--formats must be assert, annotate or draft, not '%s'", when);
}

int
cli_use_color(int mode, FILE *f)
{
	const char *term = getenv("TERM"), *nc = getenv("NO_COLOR");

	if (mode >= 0)
		return mode;
	if (nc && *nc)
		return 0;
	if (term && !strcmp(term, "dumb"))
		return 0;
	return isatty(fileno(f));
}

int
cli_input_init(cli_input *in, char **paths, int npaths)
{
	static char *stdin_only[] = { "-" };
	int i, bad = 0;

	memset(in, 0, sizeof *in);
	in->paths = npaths ? paths : stdin_only;
	in->npaths = npaths ? npaths : 1;
	/*
	 * Every operand is checked before any is read, so that a missing
	 * one writes nothing: a summary, a page or a count of the others
	 * would be taken for the whole.  access() and stat(), not open(),
	 * which would block on a FIFO with no writer yet.
	 */
	for (i = 0; i < npaths; i++) {
		struct stat st;
		const char *p = paths[i];

		if (!strcmp(p, "-"))
			continue;
		if (access(p, R_OK) != 0 || stat(p, &st) != 0) {
			cli_error(p, 0, "%s", strerror(errno));
			bad = 1;
		} else if (S_ISDIR(st.st_mode)) {
			cli_error(p, 0, "%s", strerror(EISDIR));
			bad = 1;
		}
	}
	in->failed = bad;
	return bad ? -1 : 0;
}

/*
 * Skip a UTF-8 byte order mark at the start of f: RFC 8259 lets a JSON
 * reader ignore one, and text edited on Windows often starts with it.
 * Bytes that only begin like one go back (glibc and musl take back three
 * with ungetc; C promises one).
 */
static void
skip_bom(FILE *f)
{
	int a = getc(f), b, c;

	if (a != 0xEF) {
		if (a != EOF)
			ungetc(a, f);
		return;
	}
	if ((b = getc(f)) == 0xBB) {
		if ((c = getc(f)) == 0xBF)
			return;
		if (c != EOF)
			ungetc(c, f);
	}
	if (b != EOF)
		ungetc(b, f);
	ungetc(a, f);
}

int
cli_input_next_file(cli_input *in)
{
	cli_input_close(in);
	while (in->cur < in->npaths) {
		const char *p = in->paths[in->cur++];

		in->line = 0;
		if (!strcmp(p, "-")) {
			in->f = stdin;
			in->name = "-";
			if (!in->raw && !in->keep_bom)
				skip_bom(in->f);
			return 1;
		}
		if ((in->f = fopen(p, "rb"))) {
			in->name = p;
			if (!in->raw && !in->keep_bom)
				skip_bom(in->f);
			return 1;
		}
		if (errno == ENOMEM)
			cli_oom();
		cli_error(p, 0, "%s", strerror(errno));
		in->failed = 1;
	}
	return 0;
}

int
cli_input_line(cli_input *in, char **line, size_t *cap, size_t *len)
{
	for (;;) {
		ssize_t n;

		if (!in->f && !cli_input_next_file(in))
			return 0;
		errno = 0;
		n = getline(line, cap, in->f);
		if (n < 0 && errno == ENOMEM)
			cli_oom();
		if (n >= 0) {
			in->line++;
			if (n > 0 && (*line)[n - 1] == '\n')
				(*line)[--n] = '\0';
			*len = (size_t)n;
			return 1;
		}
		if (ferror(in->f)) {
			cli_error(in->name, 0, "read error: %s", strerror(errno));
			in->failed = 1;
		}
		cli_input_close(in);
	}
}

int
cli_read_all(cli_input *in, char **buf, size_t *len, size_t *cap)
{
	for (;;) {
		size_t got;

		if (*cap - *len < 65536) {
			size_t ncap = *cap ? *cap * 2 : 1 << 20;
			char *p = realloc(*buf, ncap);

			if (!p) {
				cli_error(in->name, 0, "out of memory");
				in->failed = 1;
				return -1;
			}
			*buf = p;
			*cap = ncap;
		}
		got = fread(*buf + *len, 1, *cap - *len - 1, in->f);
		*len += got;
		if (got == 0) {
			if (ferror(in->f)) {
				cli_error(in->name, 0, "read error: %s", strerror(errno));
				in->failed = 1;
				return -1;
			}
			(*buf)[*len] = '\0';
			return 0;
		}
	}
}

void
cli_input_close(cli_input *in)
{
	if (in->f && in->f != stdin)
		fclose(in->f);
	else if (in->f == stdin)
		clearerr(stdin);
	in->f = NULL;
}

int
cli_finish(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: write error: %s\n", proc.prog, strerror(errno));
		return CLI_IO;
	}
	return status;
}

void
cli_flush(void)
{
	if (fflush(stdout) != 0) {
		fprintf(stderr, "%s: write error: %s\n", proc.prog, strerror(errno));
		exit(CLI_IO);
	}
}

void
cli_oom(void)
{
	cli_error(NULL, 0, "out of memory");
	exit(CLI_IO);
}

void
cli_write(const char *p, size_t n)
{
	if (!n)
		return;
	if (fwrite(p, 1, n, stdout) != n)
		exit(cli_finish(CLI_IO));
	proc.partial = p[n - 1] != '\n';
}

void
cli_write_buf(hm_buf *b, int flush)
{
	if (b->oom)
		cli_oom();
	cli_write(b->p, b->len);
	hm_buf_reset(b);
	if (flush)
		cli_flush();
}

void
cli_write_json(hm_buf *b, int pretty)
{
	hm_buf ind = { 0 };

	if (!pretty || !b->len) {
		cli_write_buf(b, 1);
		return;
	}
	if (b->oom)
		cli_oom();
	hm_json_pretty(&ind, b->p, b->len);
	hm_buf_reset(b);
	cli_write_buf(&ind, 1);
	hm_buf_free(&ind);
}

void
cli_error_json(const char *file, size_t first, size_t line, const hm_error *e, const char *more)
{
	size_t what = hm_error_place(e);

	/* the library's line and column of a JSON reader's error, in the file */
	if (!*more && what < strlen(e->msg)) {
		cli_error_at(file, (first ? first : 1) + e->line - 1, e->col, "%.*s", (int)what, e->msg);
		return;
	}
	cli_error(file, line ? line : 1, "%s%s", e->msg, more);
}

void
cli_ids_msg(char *buf, size_t cap, size_t index, const hm_error *e)
{
	/* the place of one id is worth naming; a record-level problem has none */
	if (e->index != (size_t)-1)
		snprintf(buf, cap, "token %zu: %s", index + e->index, e->msg);
	else
		snprintf(buf, cap, "%s", e->msg);
}

const char *
cli_hint(hm_hint h)
{
	switch (h) {
	case HM_HINT_DIALECT: return "; use --from";
	case HM_HINT_ONE_PER_LINE: return "; use --lines (one request a line)";
	case HM_HINT_FIELD: return "; --field names the member";
	case HM_HINT_FIELD_PATH: return " (--field)";
	default: return "";
	}
}

void
cli_ids_error(const char *file, size_t line, size_t col, size_t index, const hm_error *e)
{
	char msg[320];

	cli_ids_msg(msg, sizeof msg, index, e);
	cli_error_at(file, line, col + e->col, "%s", msg);
}

void *
cli_realloc(void *p, size_t n)
{
	if (!(p = realloc(p, n)))
		cli_oom();
	return p;
}
