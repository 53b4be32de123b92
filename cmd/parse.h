/*
 * parse.h - what harmony-parse's files share.  harmony-parse.c holds the
 * options, the output, the warnings and the record being parsed (a parser
 * feeding the writer); parse_input.c tells what the input is and reads it
 * (files, lines, JSON records, text); parse_plain.c reads a stream of plain
 * ids fast.  The input side calls into the record side, never back.
 */
#ifndef HM_PARSE_H
#define HM_PARSE_H

#include "cli.h"
#include "harmony.h"

enum { FROM_AUTO, FROM_IDS, FROM_TEXT };

struct parse_opt {
	int from, strict, lines, summary, quiet, color, random_ids, pretty;
	int warnings, merge;
	const char *role, *channels, *marker;
	hm_shape to;
};

/* The record being parsed. */
struct parse_rec {
	hm_parser *p;
	const char *file;
	size_t line;
	int failed, records;
	hm_buf err;
	const char *id; /* the record's "id" as JSON, for its error line */
};

extern struct parse_opt opt;
extern int status;
extern hm_writer *wr;
extern unsigned wflags;         /* the writer's HM_WR_* flags */
extern struct parse_rec rec;
extern hm_record *rd;           /* the log record reader, made by main */
extern hm_server *sv;           /* the server output reader, made by main */

/* --strict with a shape other than events: output waits for the record's end. */
int holds_record(void);
/* A shape whose output can go out while a record is still being read. */
int streaming_shape(void);
/* Write what the writer holds to stdout; flush: and stdout too. */
void write_out(int flush);
/* From position at (token index or byte offset) on, the input was read at file:line. */
void mark_add(uint64_t at, const char *file, size_t line);

/* A record: begun at file:line with its carried members (NULL: none), fed, ended. */
void rec_begin(const char *file, size_t line, const char *fields);
void feed_ids(const uint32_t *v, size_t n);
/* Hand the parser's events to the writer (after feeding it text directly). */
void drain(void);
void rec_end(void);
/* With records: an error line (with the record's id if not NULL) in a record's place. */
void rec_error_line(const char *msg, size_t line, const char *id);

/* Read all of the input, telling its kind (--from) from its first bytes. */
void run(cli_input *in);

/* Plain ids (parse_plain.c): whitespace or comma separated numbers, one stream. */
void plain_init(void);
/* Bytes of the stream; *line counts the newlines read in file. */
void plain_chunk(const char *buf, size_t n, const char *file, size_t *line);
/* Hand the ids read so far to the parser. */
void plain_flush(void);
/* A file has ended at line: a number does not run on into the next one. */
void plain_file_end(const char *file, size_t line);
/* How many ids (good or bad) the stream has had: the next one's index. */
size_t plain_tokens(void);
void plain_free(void);

#endif
