/*
 * cli.h - what the four binaries share: messages with file and line, exit
 * codes, input reading, the color decision, checked output.
 */
#ifndef HM_CLI_H
#define HM_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "harmony.h"

enum {
	CLI_OK = 0,     /* all good */
	CLI_BAD = 1,    /* some input was bad; the rest was processed */
	CLI_USAGE = 2,  /* usage error */
	CLI_IO = 3,     /* I/O or system error */
};

/* Name the program; restore SIGPIPE so `| head` ends us quietly. */
void cli_init(const char *prog);

/*
 * "PROG: FILE:LINE: message" on stderr.  file NULL omits "FILE:LINE: ",
 * line 0 omits ":LINE".  Where stdout and stderr land on one screen (a
 * terminal, or 2>&1), a line of stdout written through cli_write and left
 * unfinished is ended first, so no message lands inside it.
 */
void cli_error(const char *file, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "PROG: FILE:LINE:COL: message": col is the byte of the line, from 1. */
void cli_error_at(const char *file, size_t line, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * The error e of reading JSON whose first line is line `first` of file,
 * with `more` (the tool's words for its hint, "" for none) after its
 * message.  Where the library names the line and column of a JSON
 * syntax error: "FILE:L:C: what", L the file's line, the place in the
 * file alone; anything else at FILE:line (0: 1).
 */
void cli_error_json(const char *file, size_t first, size_t line, const hm_error *e,
                    const char *more);
/*
 * A bad id list of FILE:LINE whose text starts at byte col + 1 and whose
 * first id is number index: "FILE:LINE:COL: token N: what" for a bad id,
 * "FILE:LINE:COL: what" for a record without ids.
 */
void cli_ids_error(const char *file, size_t line, size_t col, size_t index,
                   const hm_error *e);
/* The message of cli_ids_error alone, into buf. */
void cli_ids_msg(char *buf, size_t cap, size_t index, const hm_error *e);
/*
 * The tools' words for a library hint, to end its message with ("" for
 * none): the library names no option, the tools do.
 */
const char *cli_hint(hm_hint h);
/* The same as a warning (the tool does not call it under -q). */
void cli_warn(const char *file, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "PROG: message" and "Try 'PROG --help'." on stderr, then exit 2. */
void cli_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/*
 * Report a bad option after getopt_long (called with opterr = 0 and an
 * optstring starting with ':') and exit 2.
 */
void cli_bad_option(char **argv, int c)
	__attribute__((noreturn));

/* --color=WHEN: sets *mode to -1 auto, 0 never, 1 always; -1 on a bad word. */
int cli_parse_color(const char *when, int *mode);
/* Whether to color stream f: mode 0/1 as given; auto = a TTY, NO_COLOR unset, TERM not dumb. */
int cli_use_color(int mode, FILE *f);

/*
 * The JSON Schema options harmony-tools validate and harmony-parse
 * --schema share.  --schema-dir=URI=DIR: arg split at its first '=' (in
 * place) and added to *dirs (URI, DIR, ..., NULL; *n strings so far);
 * exits 2 on a bad one.  --formats=WHEN: assert 1, annotate 0, draft
 * HM_FORMATS_DRAFT (hm_schema_opts.formats); exits 2 on another word.
 */
void cli_schema_dir(char *arg, const char ***dirs, size_t *n);
int cli_schema_formats(const char *when);

/* The input operands: files, "-" or none for standard input. */
typedef struct cli_input {
	char **paths;
	int npaths, cur;
	FILE *f;
	const char *name;   /* "-" for standard input */
	size_t line;        /* number of the line last read, from 1 */
	int failed;         /* a file could not be opened or read */
	int raw;            /* the caller reads fileno(f) itself: no byte of it is
	                       taken here (a BOM is the caller's to skip) */
	int keep_bom;       /* the input is text whose every character counts (the
	                       tokenizer encodes U+FEFF, as the reference's does) */
} cli_input;

/*
 * Set in to read paths (none: standard input).  Every operand is checked
 * first: -1 when any cannot be read (each reported; the caller exits
 * CLI_IO and writes nothing), else 0.
 */
int cli_input_init(cli_input *in, char **paths, int npaths);
/*
 * The next line of the input (across files), newline stripped, in *line
 * (reused buffer, *cap its size) and its length in *len.  Returns 1 on a
 * line, 0 at the end; a file that cannot be opened or read is reported
 * and skipped (in->failed set).
 */
int cli_input_line(cli_input *in, char **line, size_t *cap, size_t *len);
/*
 * Open the next file for whole-file reading: 1 with in->f set, 0 at the
 * end.  A UTF-8 byte order mark at the start of each file is skipped (but
 * with in->raw or in->keep_bom), so no reader sees it.
 */
int cli_input_next_file(cli_input *in);
/* Read what is left of in->f onto *out; -1 on a read error (reported). */
int cli_read_all(cli_input *in, char **buf, size_t *len, size_t *cap);
void cli_input_close(cli_input *in);

/*
 * Write p[0..n) to stdout (exit 3 on failure).  Every write to stdout goes
 * through here, so that an error message can end a half-written line
 * first where both land on one screen.
 */
void cli_write(const char *p, size_t n);
/* "out of memory" and exit 3. */
void cli_oom(void) __attribute__((noreturn));
/* realloc, or "out of memory" and exit 3. */
void *cli_realloc(void *p, size_t n);
/*
 * Write b to stdout and empty it; flush too when flush is set (the end of a
 * record).  A failed append (b->oom) or write exits 3.
 */
void cli_write_buf(hm_buf *b, int flush);
/* The end of a JSON record: as cli_write_buf, indented first when pretty. */
void cli_write_json(hm_buf *b, int pretty);

/* Flush stdout; on a write error report it and return CLI_IO, else status. */
int cli_finish(int status);
/* Flush stdout now (end of a record); exits CLI_IO on a write error. */
void cli_flush(void);

#endif
