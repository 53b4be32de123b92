/*
 * tokens.h - what harmony-tokens' files share: options, the output buffer,
 * the exit status, and each command's entry points.  harmony-tokens.c
 * holds the options and the input; encode and count of text live in
 * tokens_encode.c, decode in tokens_decode.c, inspect's rows in
 * tokens_inspect.c, diff in tokens_diff.c.
 */
#ifndef HM_TOKENS_H
#define HM_TOKENS_H

#include "cli.h"
#include "harmony.h"

enum cmd { C_ENCODE, C_DECODE, C_INSPECT, C_COUNT, C_SPECIALS, C_DIFF };
enum fmt { F_DEFAULT, F_IDS, F_JSON, F_LINES, F_TEXT, F_TABLE, F_AUTO };

struct tokens_opt {
	enum cmd cmd;
	enum fmt to, from;
	int lines, lossy, special, stop, stop_actions, color, quiet;
	const char *key;        /* diff --key */
	size_t context;         /* diff --context */
};

extern struct tokens_opt opt;
extern int status;
extern hm_buf out;
extern int use_color;
extern hm_encoder *enc;

#define COL_OFF "\033[0m"

/* The streamed commands read their input in blocks of this size. */
#define BLOCK (1 << 16)

void *xrealloc(void *p, size_t n);
/* Write out what out holds once it is large (a long record goes out in parts). */
void out_maybe(void);
/* File, line and column (from 1) of byte off of the whole input s read into memory. */
void locate(const char *s, size_t off, const char **file, size_t *line, size_t *col);

/*
 * Encode one text into ids; on invalid UTF-8 report where, set status and
 * return -1.  line is the record's line with --lines, 0 for the whole input.
 */
int encode_text(const char *s, size_t n, hm_ids *ids, const char *file, size_t line);
/* Ids as --to says (ids, json, lines), ending the record's line. */
void write_ids(const hm_ids *ids);
/* encode of the whole input, streamed. */
void run_encode_stream(cli_input *in);
/* count of text, streamed: one total, or one line a file and a total. */
void run_count_stream(cli_input *in);

/* Ids from s[0..n); on a bad one report it at file:line, set status and return -1. */
int parse_ids(const char *s, size_t n, hm_ids *ids, const char *file, size_t line);
/* The ids' bytes: raw, or one JSON string with --to json. */
void write_decoded(const hm_ids *ids);
/* decode of the whole input, streamed line by line. */
void run_decode_stream(cli_input *in);

/* inspect: one row (table or JSON object; lineno 0 omits "line"). */
void inspect_row(size_t index, uint32_t id, size_t lineno);
/* inspect --lines: `id:"bytes"` pairs on one line. */
void inspect_compact(const hm_ids *ids);
/* Token bytes in double quotes, C-style escapes for what is not printable. */
void add_escaped(const char *b, size_t n);

/* diff A B (paths[0], paths[1]): the exit status, 0 equal, 1 different or bad input, 3 I/O. */
int run_diff(char **paths);

#endif
