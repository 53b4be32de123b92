/*
 * parse.h - what harmony-parse's files share: one context, passed by
 * pointer, in one direction.  harmony-parse.c holds the options and calls
 * the input side; parse_input.c tells what the input is and reads it
 * (files, lines, JSON records, SSE, text), parse_plain.c reads a stream
 * of plain ids; both hand records to the record side, parse_out.c (a
 * parser feeding the writer, warnings, output), which calls none of them.
 */
#ifndef HM_PARSE_H
#define HM_PARSE_H

#include "cli.h"
#include "harmony.h"

enum { FROM_AUTO, FROM_IDS, FROM_TEXT };
enum { W_DEFAULT, W_ALL, W_SUMMARY, W_NONE };
/* What the input is: told from its first bytes (or --from). */
enum { IN_UNKNOWN, IN_PLAIN, IN_LINES, IN_TEXT, IN_TEXT_LINES, IN_SSE, IN_EMPTY };

struct parse_opt {
	int from, strict, lines, summary, quiet, color, random_ids, pretty;
	int warnings, merge;
	const char *role, *channels, *marker;
	const char *cont; /* --continue: the channel of the message continued ("none": none) */
	hm_shape to;
	const char *schema; /* --schema: the final answers' JSON Schema */
	const char **schema_dirs; /* --schema-dir: URI prefix, directory, ..., NULL */
	size_t nschema_dirs;
	int schema_strict;  /* --schema-strict: unknown schema keywords are errors */
	int formats, formats_given; /* --formats: hm_schema_opts.formats */
	const char *store;  /* --store: DIR of the turns written (store.c) */
	const char *tool_choice; /* --tool-choice: JSON, or "record": each record's own */
};

/* The record being parsed. */
struct parse_rec {
	hm_parser *p;           /* while a record is open: parser, below */
	hm_parser *parser;      /* made for the first record, reset for the next */
	const char *file;
	size_t line;
	int failed, records;
	int at_done;    /* the writer is reading the record's DONE (flush_some) */
	hm_buf err;
	const char *id; /* the record's "id" as JSON, for its error line */
};

/*
 * Where the input came from: from position `at` (a token index, or a byte
 * offset for text) on, it was read at file:line.
 */
struct parse_mark {
	uint64_t at;
	const char *file;
	size_t line;
};

struct parse_ctx {
	struct parse_opt opt;
	int status;             /* CLI_OK, CLI_BAD ... so far */
	hm_writer *wr;          /* made when the input's kind is known */
	unsigned wflags;        /* the writer's HM_WRITER_* flags */
	int flush_summary;      /* --summary: the summary is being written */
	struct parse_rec rec;
	char where[48];         /* "token N" / "byte N" for a message */
	struct {                /* marks the parser may still name (parse_out.c) */
		struct parse_mark *v;
		size_t head, len, cap;
	} mk;
	struct {                /* warnings shown and hidden (parse_out.c) */
		uint64_t shown, hidden, by[HM_F_CODES];
		char *first[HM_F_CODES];
		uint64_t dup_shown, dup_hidden; /* records with a member given twice */
	} wn;
	hm_record *rd;          /* JSON arrays of ids and their errors */
	hm_server *sv;          /* JSON objects: records, responses, stream chunks */
	hm_buf rid;             /* the record being parsed: its "id", copied */
	struct {                /* the input (parse_input.c) */
		int mode;       /* IN_* */
		uint64_t toff;  /* text: bytes fed so far */
		size_t line;    /* text, plain ids: line of the next byte in the current file */
		hm_framer *fr;  /* line modes: lines and JSON records cut */
		hm_sse *sse;    /* SSE: the events so far */
		uint64_t nlines, nbytes; /* read in all: the summary's coverage */
		uint64_t errors;  /* error lines in the place of records */
		uint64_t rec_lines, pre_blank; /* lines records took; blank files */
		int rec_lines_known; /* the input was read by lines */
	} inp;
	struct {                /* plain ids (parse_plain.c) */
		hm_idscan *sc;  /* the id reader: one for the whole stream */
		hm_ids ids;     /* ids read and not yet handed to the parser */
	} pl;
	struct {                /* --schema: each completion's final answer (parse_out.c) */
		hm_schema *s;
		hm_schema *asserting; /* without --formats, a schema naming "format":
		                         it again with formats asserted (below) */
		uint64_t format_only; /* answers valid, but not to asserting */
		hm_buf answer;  /* the last final message's content so far */
		int in, seen;   /* inside one; one seen in this completion */
		uint64_t valid, invalid, missing;
	} sc;
	struct {                /* --tool-choice: each completion kept to it (parse_out.c) */
		hm_tool_choice *opt;  /* the option's; NULL: each record's own */
		hm_tool_choice *rec;  /* the record's own, while it is parsed */
		const hm_tool_choice *cur; /* the one checked (NULL: none) */
		uint64_t calls;       /* calls in this completion */
		int answered;         /* a final answer in this completion */
		hm_buf why;           /* the first breach, for the warning */
	} tc;
};

/* ---- the record side (parse_out.c) */

/* --strict with a shape other than events: output waits for the record's end. */
int holds_record(struct parse_ctx *c);
/* A shape whose output can go out while a record is still being read. */
int streaming_shape(struct parse_ctx *c);
/* Write what the writer holds to stdout; flush: and stdout too. */
void write_out(struct parse_ctx *c, int flush);
void flush_some(void *arg, hm_writer *w);
/* From position at (token index or byte offset) on, the input was read at file:line. */
void mark_add(struct parse_ctx *c, uint64_t at, const char *file, size_t line);
/* A record: begun at file:line with its carried members (NULL: none), fed, ended. */
void rec_begin(struct parse_ctx *c, const char *file, size_t line, const char *fields);
void feed_ids(struct parse_ctx *c, const uint32_t *v, size_t n);
void feed_text(struct parse_ctx *c, const char *s, size_t n);
/* Hand the parser's events to the writer (after feeding it text directly). */
void drain(struct parse_ctx *c);
void rec_end(struct parse_ctx *c);
/* With records: an error line (with the record's id if not NULL) in a record's place. */
void rec_error_line(struct parse_ctx *c, const char *msg, size_t line, const char *id);
/* A record (from file:line) carried a member given twice: name[0..n), as JSON spells it. */
void dup_warning(struct parse_ctx *c, const char *file, size_t line, const char *name,
    size_t n);
/* The end: what the warnings not shown were about. */
void warn_summary(struct parse_ctx *c);
/* --schema: read the schema (exits on a bad one); at the end, the counts. */
void schema_load(struct parse_ctx *c);
void schema_summary(struct parse_ctx *c);
/* --tool-choice: read the option's (exits on a bad one); at the end, free. */
void tool_choice_load(struct parse_ctx *c);
void tool_choice_free(struct parse_ctx *c);

/* ---- the input side */

/* Read all of the input, telling its kind (--from) from its first bytes. */
void run(struct parse_ctx *c, cli_input *in);

/* Plain ids (parse_plain.c): whitespace or comma separated numbers, one stream. */
void plain_init(struct parse_ctx *c);
/* Bytes of the stream; *line counts the newlines read in file. */
void plain_chunk(struct parse_ctx *c, const char *buf, size_t n, const char *file,
    size_t *line);
/* Hand the ids read so far to the parser. */
void plain_flush(struct parse_ctx *c);
/* A file has ended at line: a number does not run on into the next one. */
void plain_file_end(struct parse_ctx *c, const char *file, size_t line);
/* How many ids (good or bad) the stream has had: the next one's index. */
size_t plain_tokens(struct parse_ctx *c);
void plain_free(struct parse_ctx *c);

#endif
