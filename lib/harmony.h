/*
 * harmony.h - the one public header of libharmony.
 *
 * libharmony implements OpenAI's Harmony format: the o200k_harmony
 * tokenizer, conversation rendering and completion parsing.
 *
 * Ownership: a function that returns a pointer to a new object gives the
 * caller that object, to be released with the matching *_free.  Pointers
 * returned by accessors (hm_token_bytes, hm_*_error ...) belong to the
 * library or to the object queried and stay valid until that object is
 * freed or next modified.  Functions never take ownership of their
 * arguments unless flagged "consumes".
 *
 * Errors: the library never prints and never exits.  Functions return an
 * hm_status; the detail (message, byte offset) is queried from the object.
 */
#ifndef HARMONY_H
#define HARMONY_H

#include <stddef.h>
#include <stdint.h>

#define HM_VERSION "0.1.0"

typedef enum hm_status {
	HM_OK = 0,
	HM_EINPUT = 1,   /* the input is bad (invalid UTF-8, unknown id ...) */
	HM_ENOMEM = 3,   /* out of memory */
} hm_status;

/* ---------------------------------------------------------------- ids */

/* A growable array of token ids.  Zero-initialise ({0}) before use. */
typedef struct hm_ids {
	uint32_t *v;
	size_t len, cap;
} hm_ids;

/* Append one id; HM_ENOMEM on allocation failure. */
hm_status hm_ids_push(hm_ids *ids, uint32_t id);
/* Append n ids. */
hm_status hm_ids_append(hm_ids *ids, const uint32_t *v, size_t n);
/* Release the storage and reset to empty. */
void hm_ids_free(hm_ids *ids);

/* ---------------------------------------------------------------- vocabulary */

#define HM_N_ORDINARY 199998u      /* ranks 0 .. 199997 */
#define HM_N_TOKENS 201089u        /* ids 0 .. 201088 */
#define HM_N_SPECIAL (HM_N_TOKENS - HM_N_ORDINARY)

/* The structural special tokens of the Harmony format. */
enum {
	HM_TOK_STARTOFTEXT = 199998,
	HM_TOK_ENDOFTEXT = 199999,
	HM_TOK_RETURN = 200002,
	HM_TOK_CONSTRAIN = 200003,
	HM_TOK_CHANNEL = 200005,
	HM_TOK_START = 200006,
	HM_TOK_END = 200007,
	HM_TOK_MESSAGE = 200008,
	HM_TOK_CALL = 200012,
};

/*
 * The bytes of token `id`: vocabulary bytes for an ordinary id, the text
 * of a special id (`<|start|>`).  NULL for an id outside the vocabulary.
 * The bytes are static and not NUL-terminated.
 *   size_t n; const char *b = hm_token_bytes(24912, &n);  // "hello", 5
 */
const char *hm_token_bytes(uint32_t id, size_t *len);

/* Nonzero when id is a special token (199998 .. 201088). */
int hm_is_special(uint32_t id);

/* Nonzero when id is a valid token id (< HM_N_TOKENS). */
int hm_is_valid(uint32_t id);

/*
 * Look up a special token by its exact text.  Returns 1 and sets *id when
 * buf[0..len) is a special-token text, 0 otherwise.
 */
int hm_special_lookup(const char *buf, size_t len, uint32_t *id);

/*
 * The rank of an exact byte string in the ordinary vocabulary, or -1 when
 * the string is not a token.
 */
int32_t hm_vocab_rank(const char *buf, size_t len);

/* Stop tokens (sorted ascending): all stops, and those of assistant actions. */
size_t hm_stop_tokens(const uint32_t **ids);
size_t hm_stop_tokens_for_actions(const uint32_t **ids);

/* ---------------------------------------------------------------- encoder */

/*
 * An encoder holds scratch buffers and a cache of recently encoded pieces,
 * so encoding allocates nothing per token.  Not thread-safe: use one per
 * thread.  Cheap to create.
 */
typedef struct hm_encoder hm_encoder;

enum {
	HM_ENC_SPECIAL = 1 << 0, /* literal special-token text becomes its id */
	HM_ENC_LOSSY = 1 << 1,   /* invalid UTF-8 becomes U+FFFD instead of an error */
};

hm_encoder *hm_encoder_new(void);
void hm_encoder_free(hm_encoder *enc);

/*
 * Encode buf[0..len) and append the ids to *out.  Without HM_ENC_SPECIAL
 * the text is ordinary-encoded (special-token text stays plain text).
 * Invalid UTF-8 is HM_EINPUT (offset in hm_encoder_error_offset) unless
 * HM_ENC_LOSSY is given.  On error *out may hold a partial result.
 *   hm_encode(enc, "hello world", 11, 0, &ids);  // 24912 2375
 */
hm_status hm_encode(hm_encoder *enc, const char *buf, size_t len,
                    unsigned flags, hm_ids *out);

/* Byte offset of the first invalid UTF-8 byte after an HM_EINPUT. */
size_t hm_encoder_error_offset(const hm_encoder *enc);

/*
 * Convenience: ordinary encoding with a shared per-thread-unsafe default
 * encoder.  For library code that renders text segments.
 */
hm_status hm_encode_ordinary(const char *buf, size_t len, hm_ids *out);

/* ---------------------------------------------------------------- UTF-8 */

/*
 * Length of the longest prefix of buf[0..len) that is valid UTF-8.
 * Returns len when the whole buffer is valid.
 */
size_t hm_utf8_valid_prefix(const char *buf, size_t len);

/* ---------------------------------------------------------------- parser */

/*
 * The streaming parser turns a completion (token ids, or the bytes of
 * Harmony text) into events.  It is push/pull: feed input, then pull events
 * with hm_parser_next until it returns 0; feed more; at the end call
 * hm_parser_finish and pull the rest.  Any chunking of the same input gives
 * the same events (in text mode, the same events once adjacent deltas are
 * joined).  The parser copies what it is fed and keeps only the current
 * header and an incomplete UTF-8 tail, so memory does not grow with the
 * stream as long as events are pulled after each feed.
 *
 * Two modes.  HM_PARSE_STRICT is the reference parser
 * (parse_messages_from_completion_tokens with strict=true), quirks
 * included: the same messages, and an HM_EV_ERROR event where the reference
 * fails (no event follows an error).  The default mode recovers from what
 * models emit and reports each recovery as an HM_EV_WARNING whose `code`
 * names the failure mode (HM_W_*); it never produces HM_EV_ERROR.
 */
typedef struct hm_parser hm_parser;

/* A byte string owned by someone else; p is NULL when the value is absent. */
typedef struct hm_span {
	const char *p;
	size_t len;
} hm_span;

typedef enum hm_event_type {
	HM_EV_START = 1, /* a message begins: role, name, recipient, channel, content_type */
	HM_EV_DELTA,     /* content text (whole UTF-8 characters) */
	HM_EV_END,       /* the message ended: stop */
	HM_EV_WARNING,   /* default mode: a recovery, code and text */
	HM_EV_ERROR,     /* strict mode: the reference fails here; text */
	HM_EV_DONE,      /* after hm_parser_finish: truncated is set when cut off */
} hm_event_type;

/* What ended a message. */
typedef enum hm_stop {
	HM_STOP_NONE = 0, /* no stop token: a recovery started the next message */
	HM_STOP_END,      /* <|end|> */
	HM_STOP_RETURN,   /* <|return|> */
	HM_STOP_CALL,     /* <|call|> */
	HM_STOP_EOS,      /* the stream ended inside the message */
} hm_stop;

/* Warning codes: the failure modes the default mode recovers from. */
enum {
	HM_W_OTHER = 0,
	HM_W_RECIPIENT = 1,    /* F1 recipient placement */
	HM_W_NO_START = 2,     /* F2 <|channel|> without <|start|>assistant */
	HM_W_CONTENT_TYPE = 3, /* F3 a content type read as a recipient */
	HM_W_CHANNEL = 4,      /* F4 tool call on analysis or an unknown channel */
	HM_W_BARE_NAME = 5,    /* F5 function name without functions. */
	HM_W_HEADER = 6,       /* F6 junk in the header */
	HM_W_NO_MESSAGE = 7,   /* F7 no <|message|> before the content */
	HM_W_NO_HEADER = 8,    /* F8 plain text without a header */
	HM_W_AFTER_STOP = 9,   /* F9 stray stop tokens, tokens after a stop */
	HM_W_TRUNCATED = 10,   /* F10 the stream ended inside a message */
	HM_W_UTF8 = 12,        /* F12 invalid UTF-8 or unknown id in content */
	HM_W_STRIPPED = 13,    /* F13 special tokens stripped from the text */
	HM_W_SELF = 14,        /* F14 recipient assistant on an assistant message */
};

/*
 * One event.  Every pointer in it belongs to the parser and stays valid
 * until the next call of hm_parser_next on that parser.
 */
typedef struct hm_event {
	hm_event_type type;
	uint64_t at;          /* token index (ids) or byte offset (text), from 0 */
	const char *role;     /* START: "assistant", "user", ... */
	hm_span name;         /* START: author name (tool messages) */
	hm_span recipient;    /* START */
	hm_span channel;      /* START */
	hm_span content_type; /* START */
	hm_span text;         /* DELTA: content; WARNING, ERROR: the message */
	hm_stop stop;         /* END */
	int code;             /* WARNING: HM_W_* */
	int truncated;        /* DONE: the stream ended inside a header or message */
} hm_event;

enum {
	HM_PARSE_STRICT = 1 << 0, /* behave exactly as the reference */
};

/*
 * A new parser.  role names the author of the first message when the
 * stream starts right after `<|start|>ROLE` ("assistant" for completions):
 * one of the five role names, NULL or "none" for a stream that starts with
 * <|start|>, or "auto" (assistant unless the first token is <|start|>).
 * NULL for an unknown role or out of memory.
 *   hm_parser *p = hm_parser_new("assistant", HM_PARSE_STRICT);
 */
hm_parser *hm_parser_new(const char *role, unsigned flags);
void hm_parser_free(hm_parser *p);

/*
 * Default mode only: for a stream with no Harmony structure at all, text
 * before marker[0..len) is reasoning (analysis) and after it final.
 */
hm_status hm_parser_set_marker(hm_parser *p, const char *marker, size_t len);

/* Feed token ids (copied).  HM_ENOMEM on allocation failure. */
hm_status hm_parser_feed(hm_parser *p, const uint32_t *ids, size_t n);

/*
 * Feed bytes of Harmony text (copied).  Special-token text (`<|end|>`) is
 * recognised even when split across calls.  Do not mix with hm_parser_feed.
 */
hm_status hm_parser_feed_text(hm_parser *p, const char *buf, size_t len);

/* The input is complete (end of stream). */
void hm_parser_finish(hm_parser *p);

/*
 * Pull the next event: 1 and *ev filled, or 0 when the parser needs more
 * input (or, after hm_parser_finish, has delivered HM_EV_DONE).
 *   while (hm_parser_next(p, &ev)) handle(&ev);
 */
int hm_parser_next(hm_parser *p, hm_event *ev);

/* Number of tokens (ids mode) or bytes (text mode) consumed so far. */
uint64_t hm_parser_position(const hm_parser *p);

/* "end", "return", "call", "eos" or "none". */
const char *hm_stop_name(hm_stop stop);

/* ---------------------------------------------------------------- writers */

/*
 * A writer turns parser events into one output shape.  It appends to an
 * internal buffer that the caller drains with hm_writer_output and
 * hm_writer_consume (the library never writes to a file).  One writer
 * serves many records: hm_writer_begin starts one, HM_EV_DONE ends it.
 *   hm_writer *w = hm_writer_new(HM_TO_CHAT, 0);
 *   hm_writer_begin(w, NULL, 0);
 *   while (hm_parser_next(p, &ev)) hm_writer_event(w, &ev);
 */
typedef struct hm_writer hm_writer;

typedef enum hm_shape {
	HM_TO_MESSAGES = 0, /* NDJSON messages in the reference's serde shape */
	HM_TO_EVENTS,       /* NDJSON parser events */
	HM_TO_CHAT,         /* a Chat Completions choice */
	HM_TO_CHAT_STREAM,  /* SSE chat.completion.chunk objects, then [DONE] */
	HM_TO_RESPONSES,    /* a Responses response object with its output */
	HM_TO_RESPONSES_STREAM, /* SSE Responses events */
	HM_TO_TEXT,         /* a readable transcript */
	HM_TO_STATS,        /* one line of counts per record */
} hm_shape;

enum {
	HM_WR_COLOR = 1 << 0,      /* text: ANSI colors */
	HM_WR_RANDOM_IDS = 1 << 1, /* random item ids (seeded by hm_writer_set_seed) */
	HM_WR_RECORDS = 1 << 2,    /* one output line per record, fields carried */
	HM_WR_TEXT_INPUT = 1 << 3, /* positions are byte offsets: no token counts */
};

/* The shape named `name` ("messages", "chat-stream" ...), or -1. */
int hm_shape_from_name(const char *name);

hm_writer *hm_writer_new(hm_shape shape, unsigned flags);
void hm_writer_free(hm_writer *w);

/*
 * Keep only messages on these channels: a comma-separated list, where
 * "none" stands for a message without a channel.  NULL keeps everything.
 */
hm_status hm_writer_set_channels(hm_writer *w, const char *list);

/* Seed for HM_WR_RANDOM_IDS, and the `created` time written (default 0). */
void hm_writer_set_seed(hm_writer *w, uint64_t seed, int64_t created);

/*
 * Start a record.  fields[0..len) are JSON object members (`"id":7,"x":1`)
 * carried into the record's output with HM_WR_RECORDS; may be empty.
 */
hm_status hm_writer_begin(hm_writer *w, const char *fields, size_t len);

/* Consume one event. */
hm_status hm_writer_event(hm_writer *w, const hm_event *ev);

/* Discard what the current record has produced (after an error). */
void hm_writer_abort(hm_writer *w);

/* stats: append the summary over every record so far. */
hm_status hm_writer_summary(hm_writer *w);

/* The output produced so far, and dropping it once written. */
const char *hm_writer_output(const hm_writer *w, size_t *len);
void hm_writer_consume(hm_writer *w);

/* ---------------------------------------------------------------- id streams */

/* Details of a bad id list: where (byte column from 1, id index from 0). */
typedef struct hm_ids_error {
	size_t col;
	size_t index;
	char msg[160];
} hm_ids_error;

enum {
	HM_IDS_ANY = 1 << 0, /* accept any 32-bit id, not only vocabulary ids */
};

/*
 * Parse one record of token ids and append them to *out: whitespace or
 * comma separated decimal numbers, optionally inside `[ ]`, or a JSON
 * object holding a `tokens`, `token_ids`, `output_ids` or `input_ids`
 * array (the first of those keys present).  For an object, when rest is
 * non-NULL, *rest gets a malloc'd compact JSON text of the object's other
 * fields (caller frees; NULL for a plain list).  An id above 201088 (or,
 * with HM_IDS_ANY, above 4294967295) or anything else that is not an id is
 * HM_EINPUT with the detail in *err.
 *   hm_ids_parse("[1, 2]", 6, 0, &ids, NULL, &err);  // ids 1 2
 */
hm_status hm_ids_parse(const char *buf, size_t len, unsigned flags, hm_ids *out,
                       char **rest, hm_ids_error *err);

/*
 * Nonzero when buf[0..len) looks like token ids rather than text: only
 * digits, whitespace, commas and brackets with at least one digit, or
 * lines that are JSON objects with one of the id keys.
 */
int hm_ids_detect(const char *buf, size_t len);

#endif /* HARMONY_H */
