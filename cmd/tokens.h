/*
 * tokens.h - what harmony-tokens' files share: one context (the options,
 * the output buffer, the exit status, the encoder), passed by pointer, and
 * each command's entry points.  harmony-tokens.c holds main: the options,
 * the input and the dispatch; it calls the commands' files (encode and
 * count of text in tokens_encode.c, decode in tokens_decode.c, inspect's
 * rows in tokens_inspect.c, diff in tokens_diff.c), which call only
 * tokens_ctx.c (what they all need) and cli.c, never back up into main.
 */
#ifndef HM_TOKENS_H
#define HM_TOKENS_H

#include "cli.h"
#include "harmony.h"

enum cmd { C_ENCODE, C_DECODE, C_INSPECT, C_COUNT, C_SPECIALS, C_DIFF };
enum fmt { F_DEFAULT, F_IDS, F_JSON, F_LINES, F_TEXT, F_TABLE, F_AUTO, F_HTML };

struct tokens_opt {
	enum cmd cmd;
	enum fmt to, from;
	int lines, lossy, special, stop, stop_actions, color, quiet;
	const char *key;        /* diff --key */
	size_t context;         /* diff --context */
	int prefix;             /* diff --prefix: B must extend A */
};

/* Where each file of an input read whole starts, to name a byte's file. */
struct tokens_part {
	size_t off;             /* offset of the file's first byte */
	const char *name;       /* its name ("-" for standard input) */
};

/* encode and count of text, streamed (tokens_encode.c). */
struct tokens_enc {
	int begun;              /* a record's ids have begun to go out */
	size_t n;               /* ... and how many */
	struct tokens_fmark {   /* where each file of a stream starts */
		size_t off;     /* the bytes fed before it */
		const char *name;
		size_t breaks;  /* the line breaks fed of it */
	} *fmarks;
	size_t nfmarks, fmcap;
	size_t fed;             /* bytes fed to the encoder */
	size_t base;            /* ... before the encoder's stream began (a cut in a line) */
	hm_ids ids;             /* ids the encoder has released */
};

/* decode, streamed (tokens_decode.c). */
struct tokens_dec {
	struct {                /* the unfinished part of the current line, and blocks read */
		char *p;
		size_t len, cap;
	} pend;
	struct {                /* --to json: all lines' bytes as one JSON string */
		char tail[4];   /* an unfinished UTF-8 sequence */
		size_t ntail;
		int begun;
		hm_buf tmp;     /* the bytes of a part */
	} js;
	struct {                /* the line being decoded */
		size_t line;    /* line number */
		size_t col;     /* bytes of the line before the pending part */
		size_t index;   /* ids of the line so far */
		int bad;        /* the line had a bad id: skip the rest */
	} dl;
	hm_ids ids;             /* a segment's ids */
	hm_idscan *sc;          /* the reader of a line cut in segments */
	uint64_t seen;          /* count, inspect --from ids: ids of the input so far */
	size_t nbad;            /* lines with a bad id so far */
};

/* The one state of a harmony-tokens run, owned by main. */
struct tokens_ctx {
	struct tokens_opt opt;  /* the command and its options */
	int status;             /* the exit status so far (CLI_OK, CLI_BAD) */
	hm_buf out;             /* output not yet written */
	int use_color;          /* color the output (--color, a TTY) */
	hm_encoder *enc;        /* the encoder of encode, inspect and count */
	struct tokens_enc en;   /* encode, count: streamed */
	struct tokens_dec de;   /* decode: streamed */
	struct tokens_part *parts; /* the input read whole: its files */
	size_t nparts;
	size_t counted;         /* count of text: tokens of the file so far */
	hm_html *page;          /* inspect --to html: the page */
	struct tokens_diff *diff; /* diff: its state while it runs (tokens_diff.c) */
	hm_record *rec;         /* NDJSON records: a member given twice (record_dup_warn) */
};

#define COL_OFF "\033[0m"

/* The streamed commands read their input in blocks of this size. */
#define BLOCK (1 << 16)

/* tokens_ctx.c: */
/* Write out what tk->out holds once it is large (a long record goes out in parts). */
void out_maybe(struct tokens_ctx *tk);
/* File, line and column (from 1) of byte off of the whole input s read into memory. */
void locate(struct tokens_ctx *tk, const char *s, size_t off, const char **file, size_t *line,
            size_t *col);
/*
 * The whole input (all files, in order) read into *buf as one text, with
 * where each file starts in tk->parts; -1 when a file could not be read.
 */
int read_whole(struct tokens_ctx *tk, cli_input *in, char **buf, size_t *len, size_t *cap);
/* The same when the first file is open already, its first *len bytes in *buf. */
int read_whole_rest(struct tokens_ctx *tk, cli_input *in, char **buf, size_t *len, size_t *cap);

/*
 * Encode one text into ids; on invalid UTF-8 report where, set status and
 * return -1.  line is the record's line with --lines, 0 for the whole input.
 */
int encode_text(struct tokens_ctx *tk, const char *s, size_t n, hm_ids *ids, const char *file, size_t line);
/* Ids as --to says (ids, json, lines), ending the record's line. */
void write_ids(struct tokens_ctx *tk, const hm_ids *ids);
/* encode of the whole input, streamed. */
void run_encode_stream(struct tokens_ctx *tk, cli_input *in);
/* count of text, streamed: one total, or one line a file and a total. */
void run_count_stream(struct tokens_ctx *tk, cli_input *in);

/* Ids from s[0..n); on a bad one report it at file:line, set status and return -1. */
int parse_ids(struct tokens_ctx *tk, const char *s, size_t n, hm_ids *ids, const char *file, size_t line);
/* A record read (s[0..n), from file:line) whose member not read came twice: a warning. */
void record_dup_warn(struct tokens_ctx *tk, const char *s, size_t n, const char *file, size_t line);
/* The ids' bytes: raw, or one JSON string with --to json. */
void write_decoded(struct tokens_ctx *tk, const hm_ids *ids);
/* decode of the whole input, streamed line by line. */
void run_decode_stream(struct tokens_ctx *tk, cli_input *in);
/*
 * count and inspect --from ids, streamed as decode is (constant memory
 * whatever the input's size): the ids counted, or a row each.
 */
void run_ids_stream(struct tokens_ctx *tk, cli_input *in);
/*
 * inspect and count --from auto: what the input is, told from its first
 * block (BLOCK bytes of the first file), not all of it.  Ids larger than
 * a block stream as run_ids_stream does: 1.  Else 0, *buf (*cap) holding
 * the block read, *len its bytes, the first file open to read the rest
 * whole (read_whole_rest); -1 when there is no file.
 */
int run_auto_stream(struct tokens_ctx *tk, cli_input *in, char **buf, size_t *len, size_t *cap);
/* What the streamed commands kept (tokens_encode.c, tokens_decode.c). */
void encode_free(struct tokens_ctx *tk);
void decode_free(struct tokens_ctx *tk);

/* inspect: one row (table or JSON object; lineno 0 omits "line"). */
void inspect_row(struct tokens_ctx *tk, size_t index, uint32_t id, size_t lineno);
/* inspect --lines: `id:"bytes"` pairs on one line. */
void inspect_compact(struct tokens_ctx *tk, const hm_ids *ids);
/*
 * inspect --to html: a record's section headed label (its tokens, or none
 * for a record that could not be read; file names the page at its first
 * record), and the page's end.
 */
void inspect_html(struct tokens_ctx *tk, const char *file, const char *label, const hm_ids *ids);
void inspect_html_end(struct tokens_ctx *tk);
/* Token bytes in double quotes, C-style escapes for what is not printable. */
void add_escaped(struct tokens_ctx *tk, const char *b, size_t n);

/* diff A B (paths[0], paths[1]): the exit status, 0 equal, 1 different or bad input, 3 I/O. */
int run_diff(struct tokens_ctx *tk, char **paths);

#endif
