/*
 * harmony.h - the one public header of libharmony.
 *
 * libharmony implements OpenAI's Harmony format: the o200k_harmony
 * tokenizer, conversation rendering and completion parsing.  "The
 * reference" below is OpenAI's own implementation, openai-harmony, whose
 * tokens and bytes the library matches.
 *
 * Ownership: a function that returns a pointer to a new object gives the
 * caller that object, to be released with the matching *_free.  Pointers
 * returned by accessors (hm_token_bytes, hm_*_error ...) belong to the
 * library or to the object queried and stay valid until that object is
 * freed or next modified.  Functions never take ownership of their
 * arguments unless flagged "consumes".
 *
 * Errors, one convention: the library never prints and never exits.  A
 * function that can fail returns an hm_status: HM_OK; HM_EINPUT, the input
 * is bad; HM_ENOMEM, an allocation failed (the call that hit it says so:
 * nothing is dropped in silence).  The detail of HM_EINPUT goes to the
 * hm_error such a function takes as its last argument (NULL when not
 * wanted): the message with the offending value, where (line, column,
 * index) and a hint for the caller.  A function that returns a new object
 * or a malloc'd string returns NULL only when out of memory, or, for a
 * constructor given a name or value it does not know (hm_parser_new's
 * role, hm_writer_new's shape), then too.  Pull functions (hm_parser_next,
 * hm_server_next) return 1 for an item and 0 for none; what goes wrong
 * inside a stream arrives as an item (HM_EV_ERROR, HM_SRV_ERROR).
 * Queries (hm_is_special ...) cannot fail.  Appends to an hm_buf return
 * nothing: a failed one sets the buffer's sticky oom, checked once at the
 * end (the one place where out of memory is a flag, not a status).
 *
 * Options: the option structs (hm_render_opts, hm_request_opts,
 * hm_tools_read_opts, hm_schema_opts) begin with their size, set by their
 * _INIT macro, so that later versions can add members at the end: the
 * library reads only the members a program was built with, the rest keep
 * their defaults.  Start from the macro, then set what differs:
 *   hm_render_opts o = HM_RENDER_OPTS_INIT;  // o.size = sizeof(hm_render_opts), the defaults
 *   o.mode = HM_RENDER_COMPLETION;
 *   st = hm_render(conv, &o, &ids, &err);
 * A size of 0 (an options struct not made by its macro) is HM_EINPUT.
 *
 * Threads: the library has no mutable global state.  The vocabulary and
 * its tables are read-only and shared; every object (encoder, parser,
 * writer, conversation, record reader, server reader, buffer) belongs to
 * one thread at a time, and any number of threads may each use their own
 * at once.  Functions that take no object (hm_render, hm_encode_ordinary,
 * hm_token_bytes ...) may be called from any thread.  The project's tests
 * run eight threads at once, under ThreadSanitizer too.
 */
#ifndef HARMONY_H
#define HARMONY_H

#include <stddef.h>
#include <stdint.h>

/*
 * The library is compiled with hidden visibility: what this header
 * declares is all it exports, from libharmony.so and libharmony.a alike.
 */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define HM_VERSION "1.0.0"

typedef enum hm_status {
	HM_STATUS_UNKNOWN = -1, /* hm_status_from_name: not a status */
	HM_OK = 0,
	HM_EINPUT = 1,   /* the input is bad (invalid UTF-8, unknown id ...) */
	HM_ENOMEM = 3,   /* out of memory */
} hm_status;

/*
 * What the caller could do about an error, for a program to put in its own
 * words (the library's messages name no program's options).
 */
typedef enum hm_hint {
	HM_HINT_UNKNOWN = -1,
	HM_HINT_NONE = 0,
	HM_HINT_DIALECT,      /* naming the request's dialect would settle it */
	HM_HINT_ONE_PER_LINE, /* the input holds several requests: read one a line */
	HM_HINT_FIELD,        /* naming the member that holds the completion would */
	HM_HINT_FIELD_PATH,   /* the member path the caller named is not there */
} hm_hint;

/*
 * The detail of HM_EINPUT, in the hm_error a function takes as its last
 * argument (NULL when the caller does not want it): what is wrong, with
 * the offending value, and where.  Fields the function does not know are
 * 0 (line, col, hint) or (size_t)-1 (index).
 */
typedef struct hm_error {
	char msg[256];  /* what is wrong, with the offending value */
	size_t line;    /* line of the input, from 1 */
	size_t col;     /* byte column in that line, from 1 */
	size_t index;   /* the token, id, item or byte it is about, from 0 */
	hm_hint hint;   /* what the caller could do about it */
} hm_error;

/*
 * Where in e->msg the place begins that a JSON reader's message ends with
 * (" at line L column C", the reference's words, L and C being e->line
 * and e->col), so that a program can name the place its own way:
 * strlen(e->msg) when the message names none.
 *   fprintf(stderr, "%s:%zu:%zu: %.*s\n", file, e.line, e.col,
 *           (int)hm_error_place(&e), e.msg);  // "req.json:3:16: expected `,` or `}`"
 */
size_t hm_error_place(const hm_error *e);

/* An owned byte string (NUL-terminated, may hold NULs); p NULL: absent. */
typedef struct hm_str {
	char *p;
	size_t len;
} hm_str;

/* ---------------------------------------------------------------- output buffer */

/*
 * A growable byte buffer, for building output (the writers and renderers
 * append to one; callers may too).  Zero-initialise ({0}) before use; `p`
 * is NUL-terminated when non-NULL.  An append that cannot allocate sets
 * the sticky `oom`, and every append after it does nothing, so a caller
 * appends freely and checks `oom` once at the end.
 *   hm_buf b = {0}; hm_buf_adds(&b, "n="); hm_buf_addu(&b, 42);  // "n=42"
 */
typedef struct hm_buf {
	char *p;
	size_t len, cap;
	int oom; /* sticky: an append failed */
} hm_buf;

/* Make room for n more bytes; 0 on success, -1 (and oom set) on failure. */
int hm_buf_reserve(hm_buf *b, size_t n);
/* Append p[0..n), a NUL-terminated string, one byte, a decimal number. */
void hm_buf_add(hm_buf *b, const void *p, size_t n);
void hm_buf_adds(hm_buf *b, const char *s);
void hm_buf_addc(hm_buf *b, char c);
void hm_buf_addu(hm_buf *b, unsigned long long v);
/* Release the storage and reset to empty. */
void hm_buf_free(hm_buf *b);
/* Empty the buffer, keep the storage. */
void hm_buf_reset(hm_buf *b);

/*
 * Append s[0..n) as a quoted JSON string, escaped the way the reference
 * (serde_json) writes it: `"` and `\` escaped, U+0000..U+001F as \b \f
 * \n \r \t or \u00xx, everything else (`/`, U+007F, non-ASCII) raw.
 * Invalid UTF-8 is written as U+FFFD.
 *   hm_buf_json_str(&b, "a\"b", 3);  // "a\"b" with the quote escaped
 */
void hm_buf_json_str(hm_buf *b, const char *s, size_t n);
/* The same without the surrounding quotes (a string written in pieces). */
void hm_buf_json_body(hm_buf *b, const char *s, size_t n);

/*
 * Append the JSON value buf[0..len) written compactly (no blanks between
 * tokens, strings escaped as hm_buf_json_str does, object keys in their
 * order) with every number kept as written, even past a double's range.
 * HM_EINPUT, and nothing appended, when buf is not one JSON value.
 *   hm_json_compact(&b, "{ \"a\" : 1e400 }", 15);  // {"a":1e400}
 */
hm_status hm_json_compact(hm_buf *b, const char *buf, size_t len);

/*
 * Append the JSON text s[0..n) indented for people: two spaces a level,
 * "key": value, one member or item a line, empty containers as {} and [],
 * and arrays of numbers only (token ids) kept on one line.  Between
 * top-level values the text is copied as it is, so NDJSON stays one value
 * after another.  s is not validated: pass valid JSON such as the
 * writers' output (indentation grows with nesting depth; hm_json_compact
 * checks untrusted text first).
 *   hm_json_pretty(&b, "{\"a\":[1,2]}", 11);  // {\n  "a": [1, 2]\n}
 */
void hm_json_pretty(hm_buf *b, const char *s, size_t n);

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
 * Invalid UTF-8 is HM_EINPUT unless HM_ENC_LOSSY is given: err->index is
 * the offset of its first byte (in buf; for hm_encoder_feed and
 * hm_encoder_finish, from the start of the stream).  On error *out may
 * hold a partial result.
 *   hm_encode(enc, "hello world", 11, 0, &ids, NULL);  // 24912 2375
 */
hm_status hm_encode(hm_encoder *enc, const char *buf, size_t len,
                    unsigned flags, hm_ids *out, hm_error *err);

/*
 * Streaming: feed a text in pieces of any size, then finish; the ids are
 * exactly those of one hm_encode over the whole text.  Ids are appended
 * to *out as soon as no later byte can change them: the encoder holds the
 * text since the last point where the split pattern restarts (a line
 * break followed by a printable ASCII character other than '/'), looking
 * for one once 64 KiB are held, so memory is bounded by the longest such
 * stretch (a text with no line break is held whole until the end).  Give
 * the same flags to every call of a stream.  After HM_EINPUT the stream is
 * over: hm_encoder_reset starts a new one (hm_encoder_finish does too,
 * after a success).  hm_encode between the calls of a stream is allowed.
 *   hm_encoder_feed(enc, "hello wor", 9, 0, &ids, NULL);   // nothing yet
 *   hm_encoder_feed(enc, "ld", 2, 0, &ids, NULL);
 *   hm_encoder_finish(enc, 0, &ids, NULL);                  // 24912 2375
 */
hm_status hm_encoder_feed(hm_encoder *enc, const char *buf, size_t len,
                          unsigned flags, hm_ids *out, hm_error *err);
hm_status hm_encoder_finish(hm_encoder *enc, unsigned flags, hm_ids *out,
                            hm_error *err);
/* The text of the stream held back so far (fed, not yet encoded). */
const char *hm_encoder_held(const hm_encoder *enc, size_t *len);
/* Forget the stream: what is held, and its offset. */
void hm_encoder_reset(hm_encoder *enc);

/*
 * Convenience: hm_encode(enc, buf, len, 0, out, err) with an encoder made
 * and freed for the call (safe from any thread; for many texts, keep an
 * encoder instead).
 */
hm_status hm_encode_ordinary(const char *buf, size_t len, hm_ids *out, hm_error *err);

/* ---------------------------------------------------------------- UTF-8 */

/*
 * Length of the longest prefix of buf[0..len) that is valid UTF-8.
 * Returns len when the whole buffer is valid.
 */
size_t hm_utf8_valid_prefix(const char *buf, size_t len);

/*
 * Decode one UTF-8 sequence at s[0..n).  Returns its length (1..4) and sets
 * *cp, or returns 0 when the bytes at s do not start a valid sequence (then
 * *cp is undefined); *bad is set to the length of the maximal invalid
 * subpart to skip (what U+FFFD replaces, as Python and WHATWG do).
 *   hm_utf8_decode((const unsigned char *)"\xc3\xa9", 2, &cp, &bad);  // 2, U+00E9
 */
size_t hm_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp, size_t *bad);

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
 * names the failure mode (HM_F_*); it produces HM_EV_ERROR only when it
 * runs out of memory.
 *
 * Out of memory: when an allocation fails while the parser works, the next
 * hm_parser_next delivers one HM_EV_ERROR event whose code is HM_ENOMEM
 * (text "out of memory"; events of the failing step are dropped in its
 * place), then returns 0 for good; hm_parser_feed and hm_parser_feed_text
 * return HM_ENOMEM from then on, and hm_writer_event returns HM_ENOMEM for
 * that event.  The parser never drops output silently.
 */
typedef struct hm_parser hm_parser;

/* A byte string owned by someone else; p is NULL when the value is absent. */
typedef struct hm_span {
	const char *p;
	size_t len;
} hm_span;

typedef enum hm_event_type {
	HM_EV_UNKNOWN = -1,
	HM_EV_START = 1, /* a message begins: role, name, recipient, channel, content_type */
	HM_EV_DELTA,     /* content text (whole UTF-8 characters) */
	HM_EV_END,       /* the message ended: stop */
	HM_EV_WARNING,   /* default mode: a recovery, code and text */
	HM_EV_ERROR,     /* strict mode: the reference fails here; any mode:
	                  * out of memory (code HM_ENOMEM); text */
	HM_EV_DONE,      /* after hm_parser_finish: truncated is set when cut off */
} hm_event_type;

/* What ended a message. */
typedef enum hm_stop {
	HM_STOP_UNKNOWN = -1,
	HM_STOP_NONE = 0, /* no stop token: a recovery started the next message */
	HM_STOP_END,      /* <|end|> */
	HM_STOP_RETURN,   /* <|return|> */
	HM_STOP_CALL,     /* <|call|> */
	HM_STOP_EOS,      /* the stream ended inside the message */
} hm_stop;

/*
 * The failure modes the default mode recovers from: a warning's code
 * (hm_failure_name: "F1" ...).
 */
typedef enum hm_failure {
	HM_F_UNKNOWN = -1,     /* hm_failure_from_name: not a failure mode */
	HM_F_OTHER = 0,
	HM_F_RECIPIENT = 1,    /* F1 recipient placement */
	HM_F_NO_START = 2,     /* F2 <|channel|> without <|start|>assistant */
	HM_F_CONTENT_TYPE = 3, /* F3 a content type read as a recipient */
	HM_F_CHANNEL = 4,      /* F4 tool call on analysis or an unknown channel */
	HM_F_BARE_NAME = 5,    /* F5 function name without functions. */
	HM_F_HEADER = 6,       /* F6 junk in the header */
	HM_F_NO_MESSAGE = 7,   /* F7 no <|message|> before the content */
	HM_F_NO_HEADER = 8,    /* F8 plain text without a header */
	HM_F_AFTER_STOP = 9,   /* F9 stray stop tokens, tokens after a stop */
	HM_F_TRUNCATED = 10,   /* F10 the stream ended inside a message */
	HM_F_UTF8 = 12,        /* F12 invalid UTF-8 or unknown id in content */
	HM_F_STRIPPED = 13,    /* F13 special tokens stripped from the text */
	HM_F_SELF = 14,        /* F14 recipient assistant on an assistant message */
	HM_F_REPEAT = 15,      /* F15 a header part written twice */
	HM_F_RCPT_NAME = 16,   /* F16 a recipient that is not a plain identifier */
	HM_F_SPECIAL = 17,     /* F17 a special token inside a header */
	HM_F_REASONING = 18,   /* F18 text without a header before a channelled message */
	HM_F_STOP_ASSUMED = 19, /* F19 a whole tool call without <|call|>: its stop assumed */
	HM_F_CALL_ATTEMPT = 20, /* F20 <|call|> ends a message with no recipient */
	HM_F_GLUED = 21,       /* F21 a header glued to the end of arguments or reasoning */
	HM_F_HEADER_PROSE = 22, /* F22 prose in a header that never reached <|message|> */
	HM_F_TOOL_CHOICE = 23, /* F23 a completion that breaks the request's tool_choice (not the parser's) */
} hm_failure;
/* Warning codes are below this; an array indexed by code has this many. */
#define HM_F_CODES 32

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
	int code;             /* WARNING: HM_F_*; ERROR: HM_ENOMEM when out of
	                       * memory, else 0 (where the reference fails) */
	int truncated;        /* DONE: the stream ended inside a header or message */
	uint64_t tokens;      /* DONE: the ids fed; for text, with HM_PARSE_COUNT, the
	                       * tokens it encodes to (special tokens included), else 0 */
} hm_event;

enum {
	HM_PARSE_STRICT = 1 << 0, /* behave exactly as the reference */
	HM_PARSE_COUNT = 1 << 1,  /* text fed: count the tokens it encodes to (DONE's tokens) */
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
/*
 * Whether hm_parser_new takes role (one of the five role names, "none",
 * "auto" or NULL): 1 or 0.  Nothing is allocated.
 *   hm_parser_role_valid("assistant");  // 1; "bot": 0
 */
int hm_parser_role_valid(const char *role);
void hm_parser_free(hm_parser *p);

/*
 * Start a new stream: the parser is as hm_parser_new left it, with the
 * same role and flags and the marker and merging set on it, whatever the
 * last stream did (an error, HM_ENOMEM included).  Its storage (up to
 * 1 MiB a buffer) and the headers it has learned to read fast are kept:
 * a program that parses many completions one after the other (a server, a
 * log) resets one parser rather than making one each.
 *   hm_parser_reset(p);  // then feed the next completion
 */
void hm_parser_reset(hm_parser *p);

/*
 * Default mode only: for a stream with no Harmony structure at all, text
 * before marker[0..len) is reasoning (analysis) and after it final.
 */
hm_status hm_parser_set_marker(hm_parser *p, const char *marker, size_t len);

/*
 * The stream continues a message its prompt left open (a prefill,
 * rendered with hm_render_opts.continue_last): its first text is that
 * message's content, up to its stop, not a message without a header.
 * The message's role is the parser's (the assistant's for "auto" or
 * none), its channel channel[0..len) (NULL: none).  A stream that starts
 * with <|start|> is read as it is.  Set before the first feed; kept by
 * hm_parser_reset.  HM_ENOMEM.
 *   hm_parser_set_continue(p, "final", 5);
 */
hm_status hm_parser_set_continue(hm_parser *p, const char *channel, size_t len);

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

/*
 * Join each run of content into one HM_EV_DELTA (at: where it starts)
 * instead of one per token (text input: cut as its tokens would be).  The
 * text and every other event stay the same; only the delta boundaries
 * move, and they then depend on how the input was fed.  Off by default;
 * faster for a caller that prints whole messages rather than a stream of
 * deltas.  Set it before the first feed.
 *   hm_parser_set_merge(p, 1);
 */
void hm_parser_set_merge(hm_parser *p, int on);

/*
 * Ids mode: the caller dropped one input token it could not read (a word
 * that is not an id), and the token fed next is one further on, so event
 * positions keep counting the input as the caller sees it.  Call it only
 * when every event of what was fed has been pulled.
 *   hm_parser_skip(p);  // "12 x 13": 13 is token 2
 */
void hm_parser_skip(hm_parser *p);

/*
 * The smallest position (token index or byte offset) that an event not
 * yet pulled may name.  For a caller that maps positions back to where
 * its input came from (file and line): what lies before can be forgotten.
 *   forget_lines_before(hm_parser_oldest(p));
 */
uint64_t hm_parser_oldest(const hm_parser *p);


/* ---------------------------------------------------------------- writers */

/*
 * A writer turns parser events into one output shape.  It appends to an
 * internal buffer that the caller drains with hm_writer_output and
 * hm_writer_consume (the library never writes to a file).  One writer
 * serves many records: hm_writer_begin starts one, HM_EV_DONE ends it.
 * Out of memory: the call that hits it returns HM_ENOMEM, and so does
 * every call after it (what was written is no longer whole).
 *   hm_writer *w = hm_writer_new(HM_TO_CHAT, 0);
 *   hm_writer_begin(w, NULL, 0);
 *   while (hm_parser_next(p, &ev)) hm_writer_event(w, &ev);
 */
typedef struct hm_writer hm_writer;

typedef enum hm_shape {
	HM_TO_UNKNOWN = -1,
	HM_TO_MESSAGES = 0, /* NDJSON messages in the reference's serde shape */
	HM_TO_EVENTS,       /* NDJSON parser events */
	HM_TO_CHAT,         /* a Chat Completions choice (no carried fields) */
	HM_TO_CHAT_STREAM,  /* SSE chat.completion.chunk objects, then [DONE] */
	HM_TO_RESPONSES,    /* a Responses response object with its output */
	HM_TO_RESPONSES_STREAM, /* SSE Responses events */
	HM_TO_TEXT,         /* a readable transcript */
	HM_TO_STATS,        /* one line of counts per record */
	HM_TO_CHAT_COMPLETION, /* a whole chat.completion object, its choice inside */
	HM_TO_ANTHROPIC,    /* an Anthropic Messages API Message */
	HM_TO_ANTHROPIC_STREAM, /* SSE Anthropic Messages stream events */
	HM_TO_ANSWER,       /* the user-visible text alone (final, preambles) */
	HM_TO_METRICS,      /* the stats summary in Prometheus' text format */
	HM_TO_HTML,         /* one HTML page, a section a record (tokens, messages,
	                     * recoveries); hm_writer_summary ends the page */
	HM_TO_REPORT,       /* the stats summary as an HTML page of charts */
} hm_shape;

enum {
	HM_WRITER_COLOR = 1 << 0,      /* text: ANSI colors */
	HM_WRITER_RANDOM_IDS = 1 << 1, /* random item ids (seeded by hm_writer_set_seed) */
	HM_WRITER_RECORDS = 1 << 2,    /* one output line per record, fields carried */
	HM_WRITER_TEXT_INPUT = 1 << 3, /* positions are byte offsets: no token counts */
	HM_WRITER_PRETTY = 1 << 4,     /* JSON indented for people (not for SSE or text) */
	HM_WRITER_REASONING = 1 << 5,  /* Chat shapes: the reasoning as "reasoning" (vLLM's
	                                * current name), not "reasoning_content" */
	HM_WRITER_TOKENS = 1 << 6,     /* messages: each with "tokens", the ids it was
	                                * written as (hm_writer_record_ids) */
};


hm_writer *hm_writer_new(hm_shape shape, unsigned flags);
void hm_writer_free(hm_writer *w);

/*
 * HM_WRITER_TOKENS: the record's input, as it is fed to the parser (before
 * the events it gives are written).  Each message of the messages shape
 * then carries "tokens": the ids from where the message before it ended
 * to its stop token, that included; text is encoded as the model's ids
 * would most likely have been (special-token text as its ids).  The
 * writer keeps only what no message has taken yet.  HM_ENOMEM.
 *   hm_writer_record_ids(w, ids, n); hm_parser_feed(p, ids, n);
 */
hm_status hm_writer_record_ids(hm_writer *w, const uint32_t *ids, size_t n);
hm_status hm_writer_record_text(hm_writer *w, const char *s, size_t n);

/*
 * Keep only messages on these channels: a comma-separated list, where
 * "none" stands for a message without a channel.  NULL keeps everything.
 */
hm_status hm_writer_set_channels(hm_writer *w, const char *list);

/* Seed for HM_WRITER_RANDOM_IDS, and the `created` time written (default 0). */
void hm_writer_set_seed(hm_writer *w, uint64_t seed, int64_t created);

/*
 * Start a record.  fields[0..len) are JSON object members (`"id":7,"x":1`)
 * carried into the record's output with HM_WRITER_RECORDS; may be empty.
 * They are read once, here, and written as hm_record_fields gives them
 * (compact, numbers as written; that form is copied, any other spelling
 * written into it; text that is not object members is carried as it is).
 * An "id" among them (the first) is the id of the whole object in the
 * shapes that have one (Response, chat.completion, their streams);
 * HM_TO_CHAT, a bare choice, writes none of them.  HM_ENOMEM.
 */
hm_status hm_writer_begin(hm_writer *w, const char *fields, size_t len);

/*
 * Members of the record met after hm_writer_begin, in the form it takes
 * them (an hm_server END item's: a stream's finish chunk and the usage
 * chunk after it): the record's own model, created, fingerprint, tier
 * and usage counts among them replace those hm_writer_begin read, where
 * the shape has not written them yet; a null says nothing.  The carried
 * fields stay as begun.  Call before the record's HM_EV_DONE.  HM_ENOMEM.
 */
hm_status hm_writer_late_fields(hm_writer *w, const char *fields, size_t len);

/*
 * Consume one event.  HM_ENOMEM when out of memory, and for the parser's
 * own out-of-memory error event (its record is lost).
 */
hm_status hm_writer_event(hm_writer *w, const hm_event *ev);

/* Discard what the current record has produced (after an error). */
void hm_writer_abort(hm_writer *w);

/*
 * A record's turn as an API shape (Chat, Responses, Anthropic, whole or
 * stream) wrote it, for a store of turns: the ids a client may send back
 * (the object's, its calls') and the model's tokens they stand for.
 */
typedef struct hm_turn {
	const char *id;         /* the object's id as written (a carried one as its JSON text
	                         * when it is no string) */
	size_t id_len;
	const char *call_ids;   /* the calls' ids as written, each NUL-terminated */
	size_t ncalls;
	const uint32_t *ids;    /* the turn: the record's ids to its last message's end */
	size_t nids;
	const uint32_t *prompt; /* the ids of the record's prompt_token_ids member (or
	                         * prompt_ids, input_ids), which with a turn function
	                         * is not carried into the output; NULL when none */
	size_t nprompt;
} hm_turn;
typedef void hm_turn_fn(void *ctx, const hm_turn *t);

/*
 * Call fn at each record's end, before the shape writes its last output,
 * with the record's turn (valid during the call); NULL stops.  The writer
 * then keeps the record's input, as it does for HM_WRITER_TOKENS: give it
 * with hm_writer_record_ids or _text.  Only the API shapes call it.
 *   hm_writer_set_turn_fn(w, keep_turn, store);
 */
void hm_writer_set_turn_fn(hm_writer *w, hm_turn_fn *fn, void *ctx);

/*
 * Call fn while a long text (a message's, past 64 KiB) is written into
 * the output, each time about 64 KiB more of it is there, so that the
 * caller can take the output then (hm_writer_output, hm_writer_consume)
 * and the text is not held a second time, escaped, in the output: a
 * shape that must hold a completion (chat, responses, anthropic ...)
 * then holds one copy of its text.  The caller takes the output only
 * where it could take it after the event (not from a record whose
 * output it may yet drop with hm_writer_abort); NULL stops.
 *   hm_writer_set_flush_fn(w, write_some, ctx);
 */
typedef void hm_flush_fn(void *ctx, hm_writer *w);
void hm_writer_set_flush_fn(hm_writer *w, hm_flush_fn *fn, void *ctx);

/*
 * stats: append the summary over every record so far; metrics: the same
 * figures in Prometheus' text exposition format; report: the same figures
 * as one self-contained HTML page of SVG charts, each with a table of its
 * numbers (the metrics and report shapes write nothing per record, only
 * this).
 */
hm_status hm_writer_summary(hm_writer *w);

/*
 * A warning of the writer's own about the event it consumed last, or
 * NULL: say, with HM_TO_ANTHROPIC*, tool call arguments that are not a
 * JSON object (the call's input then wraps them, see harmony-parse(1)).
 * *at is the position of the event.  Each warning is returned once; the
 * text lasts until the next call on w.
 *   if ((msg = hm_writer_warning(w, &at))) warn(at, msg);
 */
const char *hm_writer_warning(hm_writer *w, uint64_t *at);

/*
 * The output produced so far, and dropping it once written.  With
 * HM_WRITER_PRETTY the output is indented as it is asked for: every item or
 * member on a line of its own, empty {} and [] kept whole, and the
 * indentation carries on across pieces, so output drained in any pieces
 * joins into the same text.  NULL (HM_WRITER_PRETTY only) when out of memory.
 */
const char *hm_writer_output(const hm_writer *w, size_t *len);
void hm_writer_consume(hm_writer *w);

/*
 * The next records are Harmony text (on: positions are byte offsets, no
 * token counts) or token ids (off): HM_WRITER_TEXT_INPUT for a writer whose
 * records come both ways.  Call it between records.
 *   hm_writer_set_text_input(w, 1);  // the next record was text
 */
void hm_writer_set_text_input(hm_writer *w, int on);

/*
 * Append output of the caller's own, s[0..n), between records: say an
 * error line in the place of a record that could not be read.  It goes
 * out in order with the writer's output, and is indented with it under
 * HM_WRITER_PRETTY (pass whole JSON values then).  HM_ENOMEM.
 *   hm_writer_put(w, "{\"error\":\"bad\"}\n", 16);
 */
hm_status hm_writer_put(hm_writer *w, const char *s, size_t n);

/*
 * stats, metrics, report: count one completion's structured answer, checked by the
 * caller against a schema (a program checking final answers): verdict 0 valid, 1
 * invalid (not JSON, or problems), 2 missing (no final answer).  The
 * summary then holds "structured_answers":{"valid":N,"invalid":N,
 * "missing":N} (merged by hm_writer_merge_summary), the metrics
 * harmony_structured_answers_total by verdict; without a count, neither.
 */
void hm_writer_count_answer(hm_writer *w, int verdict);

/*
 * stats, metrics, report: add the stats summary line s[0..n), as
 * hm_writer_summary writes it (of another writer, another part of a
 * log), to w's summary, so that
 * hm_writer_summary then sums up both: the summaries of the parts of a
 * log merge into the summary of the whole.  HM_EINPUT when s is not such
 * a line, err->msg saying why: then w is as it was, no part of s added;
 * HM_ENOMEM.
 *   hm_writer_merge_summary(w, line, len, &err);
 */
hm_status hm_writer_merge_summary(hm_writer *w, const char *s, size_t n,
                                  hm_error *err);

/*
 * stats, metrics, report: the summary says how much input it covers: add lines
 * and bytes read (call it as the input is read, or once at its end,
 * before hm_writer_summary).  hm_writer_input gives the coverage so far,
 * the merged summaries' included: 1 with *lines and *bytes set, 0 when
 * it is unknown (a summary merged did not say, as those written before
 * the summary counted its input).
 *   hm_writer_add_input(w, 100, 8192);
 *   if (!hm_writer_input(w, &lines, &bytes)) ...  // coverage unknown
 */
void hm_writer_add_input(hm_writer *w, uint64_t lines, uint64_t bytes);
int hm_writer_input(const hm_writer *w, uint64_t *lines, uint64_t *bytes);
/*
 * stats, metrics, report: records that were not read (an error line in
 * their place) are the summary's "errors"; with input read by lines,
 * record_lines is the lines the records, the errors and the blank lines
 * between them took (a frame's line..last, hm_framer_blank_lines), which
 * must be input_lines: a reader that lost lines shows here.  A summary
 * with no record_lines added writes it as null.  hm_writer_record_lines:
 * 1 with *lines set when every part counted them, else 0.
 */
void hm_writer_add_errors(hm_writer *w, uint64_t errors);
void hm_writer_add_record_lines(hm_writer *w, uint64_t lines);
int hm_writer_record_lines(const hm_writer *w, uint64_t *lines);

/* ---------------------------------------------------------------- id streams */

enum {
	HM_IDS_ANY = 1 << 0,   /* accept any 32-bit id, not only vocabulary ids */
	HM_IDS_ARRAY = 1 << 1, /* hm_idscan: the ids may be inside one JSON array */
};

/*
 * Parse one record of token ids and append them to *out: whitespace or
 * comma separated decimal numbers, optionally inside `[ ]`, or a JSON
 * object holding a `tokens`, `token_ids`, `output_ids` or `input_ids`
 * array (the first of those keys present).  For an object, when rest is
 * non-NULL, *rest gets a malloc'd compact JSON text of the object's other
 * fields, as hm_record_fields writes them but in braces (caller frees;
 * NULL for a plain list).  An id above 201088 (or,
 * with HM_IDS_ANY, above 4294967295) or anything else that is not an id is
 * HM_EINPUT with the detail in *err: err->index is the id a fault is
 * about (a word or element that is not an id, an id out of range), and
 * (size_t)-1 when it is about none (the list's punctuation, the record).
 *   hm_ids_parse("[1, 2]", 6, 0, &ids, NULL, &err);  // ids 1 2
 */
hm_status hm_ids_parse(const char *buf, size_t len, unsigned flags, hm_ids *out,
                       char **rest, hm_error *err);

/*
 * The one reader of id lists, streaming: feed the bytes of a list in
 * pieces of any size, then end it.  A list is decimal numbers separated
 * by blanks or single commas; with HM_IDS_ARRAY all of them may be inside
 * one JSON array (then commas between them, nothing after it).  Ids are
 * appended to *out.  HM_EINPUT at the first fault, with err->line,
 * err->col, err->index (the id the fault is about, or (size_t)-1 for the
 * list's punctuation: hm_idscan_count then gives the place) and err->msg
 * (a doubled comma, a nested, stray or
 * unterminated bracket, a word that is not a number, an id above the
 * vocabulary or, with HM_IDS_ANY, 2^32-1); *used then says how far it
 * read: call again with the rest to go on past the fault.  A number of
 * up to 7 digits is read a word at a time.
 *   hm_idscan *s = hm_idscan_new(HM_IDS_ARRAY);
 *   hm_idscan_feed(s, "[1, 2", 5, &ids, &used, &err);   // ids 1
 *   hm_idscan_feed(s, "]", 1, &ids, &used, &err);       // ids 1 2
 *   hm_idscan_end(s, &ids, &err);
 */
typedef struct hm_idscan hm_idscan;

hm_idscan *hm_idscan_new(unsigned flags);
void hm_idscan_free(hm_idscan *s);
/* Start a new list (lines and columns count from 1 again). */
void hm_idscan_reset(hm_idscan *s);
hm_status hm_idscan_feed(hm_idscan *s, const char *buf, size_t len, hm_ids *out,
                         size_t *used, hm_error *err);
/* The list ends: a number cut there, an array left open. */
hm_status hm_idscan_end(hm_idscan *s, hm_ids *out, hm_error *err);
/* Ids read so far, good or bad: the index of the next one. */
size_t hm_idscan_count(const hm_idscan *s);

/*
 * Nonzero when buf[0..len) looks like token ids rather than text: only
 * digits, whitespace, commas and brackets with at least one digit, or
 * lines that are JSON objects with one of the id keys.
 */
int hm_ids_detect(const char *buf, size_t len);

/*
 * Where a token falls in the Harmony structure of a token stream: the
 * message it belongs to and which part of it.  Messages are counted from
 * 1 in the order the default-mode parser (role "auto") finds them.
 */
typedef enum hm_place_part {
	HM_PLACE_UNKNOWN = -1,
	HM_PLACE_HEADER = 1, /* <|start|> up to and including <|message|> */
	HM_PLACE_CONTENT,    /* the message's text */
	HM_PLACE_STOP,       /* the stop token that ends it */
	HM_PLACE_OUTSIDE,    /* in no message: skipped tokens, or past the last */
} hm_place_part;

typedef struct hm_place {
	hm_place_part part;
	size_t message;     /* the message (from 1); OUTSIDE: how many came before */
	int unfinished;     /* HEADER: the stream ends inside this header */
	hm_str role;        /* the message's header parts, whole; p NULL when */
	hm_str channel;     /* unknown or absent */
	hm_str recipient;
} hm_place;

/*
 * Locate token ids[index] of ids[0..n) (index < n) by parsing the stream
 * up to the end of the message holding it.  *pl is zero-initialised by the
 * caller before the first call; each call releases what the last one left
 * there, and hm_place_free what the last left.  HM_ENOMEM only.
 *   hm_place pl = {0};
 *   hm_ids_place(ids, n, 57, &pl);  // header of message 3, role assistant
 *   hm_place_free(&pl);
 */
hm_status hm_ids_place(const uint32_t *ids, size_t n, size_t index, hm_place *pl);
void hm_place_free(hm_place *pl);

/*
 * Where a token falls, in words, appended to b: "content of message 1
 * (role user)", "header of message 3 (role assistant, channel analysis),
 * unfinished", "after message 2, outside any message" (harmony-tokens
 * diff's "in:" line).
 *   hm_place_describe(&b, &pl);
 */
void hm_place_describe(hm_buf *b, const hm_place *pl);

/*
 * Whether two places are one: the same part of the same message, with the
 * same role, channel and recipient (an absent part and an empty one are
 * the same), both unfinished or neither.  A diff says such a place once.
 *   if (hm_place_same(&pa, &pb)) ...  // one "in:" line for both sides
 */
int hm_place_same(const hm_place *a, const hm_place *b);

/* ---------------------------------------------------------------- token diffs */

/*
 * One side of a difference between two records of token ids (harmony-
 * tokens diff): the record's file, line, the value of the field records
 * are paired by (compact JSON, or NULL) and ids, all the caller's.
 */
typedef struct hm_diff_side {
	const char *file;
	size_t line;
	const char *key;
	const uint32_t *ids;
	size_t len;
} hm_diff_side;

enum {
	HM_DIFF_PREFIX = 1 << 0 /* B must extend A: say where it stops, what is reused */
};

/* The index of the first token where a and b differ (the shorter's length
 * when one starts the other). */
size_t hm_diff_first(const hm_diff_side *a, const hm_diff_side *b);

/*
 * Whether a and b decode to the same text: the fact that tells a
 * retokenization (the ids differ, the text does not, so a prefix cache
 * misses on the same prompt) from a changed text.  With HM_DIFF_PREFIX,
 * whether b's text starts with a's.  When not (same 0): the first byte
 * where the texts differ (the shorter one's length when one starts the
 * other) and the token of each side holding it (the side's length when
 * its text ends there).  No allocation.
 *   hm_diff_text t;
 *   hm_diff_text_of(&a, &b, 0, &t);  // t.same: a retokenization
 */
typedef struct hm_diff_text {
	int same;
	uint64_t byte;
	size_t token_a, token_b;
} hm_diff_text;
void hm_diff_text_of(const hm_diff_side *a, const hm_diff_side *b, unsigned flags,
                     hm_diff_text *t);

/*
 * t in words, appended to out (harmony-tokens diff's "text:" line, the
 * page's note): "the same text: a retokenization (the ids changed, the
 * decoded text did not)", with HM_DIFF_PREFIX "B's text starts with A's:
 * a retokenization (...)", else "the text changed too, from byte 12
 * (token 3 of A, token 3 of B)"; A and B are a's and b's file names.
 *   hm_diff_text_describe(&out, &t, &a, &b, 0);
 */
void hm_diff_text_describe(hm_buf *out, const hm_diff_text *t, const hm_diff_side *a,
                           const hm_diff_side *b, unsigned flags);

/*
 * The head of a report, as harmony-tokens diff writes it, appended to out:
 * "A:1 B:1: first difference at token 3 (15 and 15 tokens)", "B ends at
 * token 9, A goes on (...)", with HM_DIFF_PREFIX "B stops extending A at
 * token 3 (15 and 15 tokens; 3 reused, 12 recomputed)"; a or b NULL: "A:4:
 * only in A (12 tokens)".  With key (the name of that field) and the
 * sides' key values, "KEY VALUE: " comes before the sentence.
 *   hm_diff_head(&b, &a, &b2, NULL, 0);
 */
void hm_diff_head(hm_buf *out, const hm_diff_side *a, const hm_diff_side *b, const char *key,
                  unsigned flags);

/*
 * The page of a diff (the html form of harmony-tokens diff), written in
 * three steps to out: begin (the page's head: the files compared, key the
 * pairing field or NULL), a record for each report in turn, end (reports: how many
 * were written; note: a closing line of the caller's, NULL for none).  A
 * record of both sides is shown side by side, aligned at its first
 * difference (marked, and placed by message, role, recipient and channel
 * as the text report says), the runs both share folded into <details> but
 * for context tokens next to the difference; a record with one side NULL
 * is one only in the other file, its tokens folded.  The page needs no
 * network and no other file.  HM_ENOMEM (out's oom, or locating a token).
 *   hm_diff_page_begin(&out, "A", "B", NULL, 0);
 *   hm_diff_page_record(&out, &a, &b, NULL, 4, 0);
 *   hm_diff_page_end(&out, 1, NULL);
 */
void hm_diff_page_begin(hm_buf *out, const char *file_a, const char *file_b, const char *key,
                        unsigned flags);
hm_status hm_diff_page_record(hm_buf *out, const hm_diff_side *a, const hm_diff_side *b,
                              const char *key, size_t context, unsigned flags);
hm_status hm_diff_page_end(hm_buf *out, size_t reports, const char *note);

/*
 * The value of member `key` of the JSON object buf[0..len) as compact
 * JSON text (a string keeps its quotes), malloc'd and NUL-terminated in
 * *val (caller frees).  HM_EINPUT with err->msg (and err->col, the byte
 * from 1) when buf is not a JSON object or has no such member.
 *   hm_record_field("{\"id\":\"a\"}", 10, "id", &v, &e);  // v = "\"a\""
 */
hm_status hm_record_field(const char *buf, size_t len, const char *key,
                          char **val, hm_error *err);

/*
 * A log record reader: one JSON record at a time, as serving logs hold
 * completions.  A record is a JSON object holding a `tokens`,
 * `token_ids`, `output_ids` or `input_ids` array (the first of those keys
 * the object has; ids are any 32-bit numbers), or, with none of them, the
 * completion as a string under a text field (`text`, `completion`,
 * `output`, `output_text` or `content`, the first present; or the one
 * named by hm_record_set_text_field); or a JSON array of ids.  The
 * object's other members are carried, as compact JSON (see
 * hm_record_fields).  Records in the form logs usually hold are read in
 * one pass without a tree; any other (\u escapes, blanks inside values,
 * errors) through a general reader, with the same result.  Reuse one reader for every record: it allocates nothing
 * per record once warm.  Not thread-safe: one per thread.
 *   hm_record *r = hm_record_new();
 *   if (hm_record_read(r, line, len, 0, &e) == HM_OK)
 *           ids = hm_record_tokens(r, &n);   // NULL: a text record
 *   hm_record_free(r);
 */
typedef struct hm_record hm_record;

enum {
	HM_RECORD_TEXT_ONLY = 1 << 0, /* take a text record only: ids are HM_EINPUT */
};

/* A new reader (NULL when out of memory), and its release. */
hm_record *hm_record_new(void);
void hm_record_free(hm_record *r);

/*
 * The completion text is the string member `name` (copied) instead of
 * the default names; NULL goes back to them.  HM_ENOMEM.
 *   hm_record_set_text_field(r, "response");
 */
hm_status hm_record_set_text_field(hm_record *r, const char *name);

/*
 * The names a completion text is looked for under, in order, NULL
 * terminated (the reader's: valid until the next set or free).
 */
const char *const *hm_record_text_fields(const hm_record *r);

/*
 * Read the record that starts buf[0..len) (after blanks).  It ends where
 * its JSON value closes (hm_record_end); what follows is not looked at,
 * so the caller decides what may follow.  HM_OK: the accessors below
 * describe it until the next read.  HM_EINPUT, with err->msg and
 * err->index (the id it is about, from 0, or (size_t)-1 when it is about
 * none; err->col the byte, from 1, when known): not a record, or with
 * HM_RECORD_TEXT_ONLY not a text record; hm_record_id still gives the
 * object's "id" when it has one.  HM_ENOMEM (the next read starts afresh).
 *   hm_record_read(r, "{\"id\":7,\"tokens\":[1,2]}", 23, 0, &e);
 */
hm_status hm_record_read(hm_record *r, const char *buf, size_t len,
                         unsigned flags, hm_error *err);

/*
 * The ids of an id record (*n of them; never NULL for one, even when
 * empty), or NULL for a text record.
 */
const uint32_t *hm_record_tokens(const hm_record *r, size_t *n);

/* The completion text of a text record, decoded (NUL-terminated); NULL for ids. */
const char *hm_record_text(const hm_record *r, size_t *len);

/*
 * The carried members of the record, all but the one read, in order (a
 * repeated key too), as compact JSON without the braces
 * (`"id":7,"model":"m"`; "" for none): no blanks, keys and strings
 * written as hm_buf_json_str writes their text (\u00e9 as the bytes of
 * é), numbers as written (1e400, -0, 1.0 stay so), as hm_json_compact
 * writes a value; ready for hm_writer_begin.  NUL-terminated.
 */
const char *hm_record_fields(const hm_record *r, size_t *len);

/*
 * The record's "id" member as compact JSON (`7`, `"req-1"`), or NULL
 * when it has none, after HM_OK and HM_EINPUT alike (for naming a bad
 * record in a message).
 */
const char *hm_record_id(const hm_record *r);

/* Bytes of buf the last record took: just past its closing bracket; 0 after an error. */
size_t hm_record_end(const hm_record *r);
/*
 * The name (as JSON spells it, *len bytes, not NUL-terminated) of the
 * first member of the last record read that came twice or more and is
 * carried as given (the member read given twice is an error instead), or
 * NULL: for a warning, as which value is meant cannot be told.  Valid
 * until the next read.
 */
const char *hm_record_duplicate(const hm_record *r, size_t *len);

/* ---------------------------------------------------------------- conversations */

/*
 * The Harmony data model, as openai-harmony's Rust types hold it.  Plain
 * structs, built by the JSON readers below or by hand; every string is an
 * hm_str that owns its bytes
 * (NUL-terminated, may hold NULs), and an absent optional string has
 * p == NULL.  Free a whole conversation with hm_conversation_free.
 */
typedef enum hm_role {
	HM_ROLE_UNKNOWN = -1,
	HM_ROLE_USER,
	HM_ROLE_ASSISTANT,
	HM_ROLE_SYSTEM,
	HM_ROLE_DEVELOPER,
	HM_ROLE_TOOL,
} hm_role;

typedef enum hm_effort {
	HM_EFFORT_UNKNOWN = -1,
	HM_EFFORT_NONE, /* absent: no "Reasoning:" line */
	HM_EFFORT_LOW,
	HM_EFFORT_MEDIUM,
	HM_EFFORT_HIGH,
} hm_effort;


/* An opaque JSON value (tool parameters keep key order and number text). */
typedef struct hm_jv hm_json;

typedef struct hm_tool {
	hm_str name, description;
	hm_json *parameters; /* NULL: no parameters */
} hm_tool;

typedef struct hm_namespace {
	hm_str key;          /* the map key (sorts the namespaces) */
	hm_str name, description;
	hm_tool *tools;
	size_t ntools;
} hm_namespace;

/* A tools map, sorted by key (byte-wise). present == 0: None. */
typedef struct hm_tools {
	int present;
	hm_namespace *ns;
	size_t n;
} hm_tools;

typedef struct hm_system_content {
	hm_str model_identity;
	hm_effort effort;
	hm_tools tools;
	hm_str date, cutoff;
	int has_channels, channel_required;
	hm_str *channels;
	size_t nchannels;
} hm_system_content;

typedef struct hm_developer_content {
	hm_str instructions;
	hm_tools tools;
	/*
	 * Structured output: the `# Response Formats` section at the end of the
	 * developer message ("## NAME", the description as "// " lines, the
	 * schema as compact JSON).  format_name.p NULL: none.
	 */
	hm_str format_name, format_description;
	hm_json *format_schema;
} hm_developer_content;

typedef enum hm_content_type {
	HM_CONTENT_UNKNOWN = -1,
	HM_CONTENT_TEXT,
	HM_CONTENT_SYSTEM,
	HM_CONTENT_DEVELOPER,
} hm_content_type;

typedef struct hm_content {
	hm_content_type type;
	hm_str text;
	hm_system_content *sys;
	hm_developer_content *dev;
} hm_content;

typedef struct hm_message {
	hm_role role;
	hm_str name, recipient, channel, content_type;
	hm_content *content;
	size_t ncontent;
} hm_message;

typedef struct hm_conversation {
	hm_message *msgs;
	size_t n, cap;
	/*
	 * internal: the ids messages were written as
	 * (hm_conversation_message_ids), whether it continues its last
	 * message (hm_conversation_continues)
	 */
	struct hm_conv_ids *ids;
} hm_conversation;

/*
 * A warning: something was read in a way the caller may not expect (a
 * tool schema under another shape's key, an item left out).  The library
 * never prints; it calls this, when set, with the line of the input (from
 * 1; 0 unknown) and the message.
 */
typedef void hm_warn_fn(void *ctx, size_t line, const char *msg);


/* An empty conversation; NULL when out of memory. */
hm_conversation *hm_conversation_new(void);
void hm_conversation_free(hm_conversation *c);

/*
 * Read a Conversation ({"messages":[...]}) or a bare array of messages in
 * the reference's serde JSON shape (what openai-harmony's Conversation
 * serializes to).  HM_EINPUT with the reason in
 * err->msg for bad JSON or a bad shape.
 *   hm_conversation_from_json("[{\"role\":\"user\",\"content\":\"hi\"}]", 34, &c, &e);
 */
hm_status hm_conversation_from_json(const char *buf, size_t len,
                                    hm_conversation **out, hm_error *err);

/*
 * Append one message read from a JSON object in the serde shape (as
 * harmony-parse writes it) to c.
 */
hm_status hm_conversation_add_json(hm_conversation *c, const char *buf,
                                   size_t len, hm_error *err);

/*
 * Write c as compact JSON in the serde shape ({"messages":[...]}), or one
 * message.  The result is malloc'd, NUL-terminated, owned by the caller;
 * NULL when out of memory.
 */
char *hm_conversation_to_json(const hm_conversation *c, size_t *len);
char *hm_message_to_json(const hm_message *m, size_t *len);

/* Append a new zeroed message with the given role; NULL when out of memory. */
hm_message *hm_conversation_push(hm_conversation *c, hm_role role);

/*
 * The ids message i was written as: a completion's message read back with
 * its "tokens" member (HM_WRITER_TOKENS writes it).  Rendering
 * puts them in place of the message, as they are, so that history is the
 * tokens the model generated whatever header order or tokenization it
 * used: preceded by <|start|> and the role when they do not begin with
 * <|start|> (the first message of a completion, whose header began in the
 * prompt), a last <|return|> made <|end|>, as history asks.  Set copies
 * ids; HM_EINPUT when there is no message i.  Get returns NULL (and *n 0)
 * for a message without ids; the ids belong to c.
 *   hm_conversation_set_message_ids(c, 3, ids, n);
 */
/*
 * 1 when the request c was read from asks for its last message to be
 * continued (an Anthropic request ending with the assistant's message, a
 * Chat request with "continue_final_message": true): render it with
 * hm_render_opts.continue_last.  0 otherwise.
 */
int hm_conversation_continues(const hm_conversation *c);
hm_status hm_conversation_set_continues(hm_conversation *c, int on);

hm_status hm_conversation_set_message_ids(hm_conversation *c, size_t i,
                                          const uint32_t *ids, size_t n);
const uint32_t *hm_conversation_message_ids(const hm_conversation *c, size_t i,
                                            size_t *n);
/* Set an hm_str to a copy of s[0..len); HM_ENOMEM on failure. */
hm_status hm_str_set(hm_str *dst, const char *s, size_t len);
/* Append a text content item. */
hm_status hm_message_add_text(hm_message *m, const char *s, size_t len);
/*
 * Append a system content item with the reference's defaults
 * (SystemContent::new(): identity, Medium, cutoff 2024-06, channels
 * analysis/commentary/final required).  Returns it, or NULL.
 */
hm_system_content *hm_message_add_system(hm_message *m);
/* Append an empty developer content item.  Returns it, or NULL. */
hm_developer_content *hm_message_add_developer(hm_message *m);

/*
 * Add the builtin "browser" or "python" namespace (the reference's own
 * tool descriptions) to a tools map,
 * replacing one with the same key.  HM_EINPUT for another name.
 */
hm_status hm_tools_add_builtin(hm_tools *t, const char *name);

/*
 * Insert (or replace) namespace `key` in a tools map; returns it emptied,
 * with name = key, or NULL when out of memory.
 */
hm_namespace *hm_tools_namespace(hm_tools *t, const char *key);

/*
 * Append a tool to a namespace.  parameters (may be NULL) is JSON text;
 * HM_EINPUT when it does not parse.
 */
hm_status hm_namespace_add_tool(hm_namespace *ns, const char *name,
                                size_t nlen, const char *desc, size_t dlen,
                                const char *params, size_t plen,
                                hm_error *err);

/* ---------------------------------------------------------------- rendering */

typedef enum hm_render_mode {
	HM_RENDER_UNKNOWN = -1,
	HM_RENDER_CONVERSATION, /* render_conversation */
	HM_RENDER_COMPLETION,   /* ... then <|start|>NEXT_ROLE */
	HM_RENDER_TRAINING,     /* ... last token <|return|> after a final */
} hm_render_mode;

typedef struct hm_render_opts {
	size_t size;        /* sizeof(hm_render_opts), from HM_RENDER_OPTS_INIT */
	hm_render_mode mode;
	hm_role next_role;  /* completion mode */
	int keep_analysis;  /* 1: never drop analysis (auto_drop_analysis false) */
	/*
	 * 1: leave the last message open for the model to continue (a
	 * prefill): its header and content, no stop token, and in completion
	 * mode no next header.  It must be an assistant's message that is not
	 * a tool call, and the mode not training (HM_EINPUT otherwise).
	 */
	int continue_last;
	/*
	 * 1: an assistant's tool call is written as models write it, the
	 * channel first (`<|channel|>commentary to=functions.f <|constrain|>json`),
	 * not as the reference renders it (`to=functions.f<|channel|>commentary
	 * <|constrain|>json`), so that history sent back is what the model
	 * wrote and a server's prefix cache still holds.  0: the reference's.
	 */
	int model_headers;
} hm_render_opts;

/* The defaults: a whole conversation, the next role assistant, analysis dropped. */
#define HM_RENDER_OPTS_INIT \
	{ sizeof(hm_render_opts), HM_RENDER_CONVERSATION, HM_ROLE_ASSISTANT, 0, 0, 0 }

/*
 * Render conversation c as openai-harmony renders it and append its token
 * ids to *out.  All text
 * is ordinary-encoded, so `<|end|>` typed in content stays plain text.
 * HM_EINPUT with err->msg for a tool message without a name or content
 * in the wrong role; HM_ENOMEM.
 *   hm_render_opts o = HM_RENDER_OPTS_INIT;  o.mode = HM_RENDER_COMPLETION;
 *   hm_render(c, &o, &ids, &e);
 */
hm_status hm_render(const hm_conversation *c, const hm_render_opts *o,
                    hm_ids *out, hm_error *err);

/*
 * hm_render with the caller's encoder, whose caches stay warm from one
 * conversation to the next (hm_render makes one for each call): for a
 * program that renders many.  The encoder belongs to the caller's thread.
 */
hm_status hm_render_with(hm_encoder *enc, const hm_conversation *c,
                         const hm_render_opts *o, hm_ids *out, hm_error *err);

/*
 * The same rendering as Harmony text, special tokens written out
 * (`<|start|>user<|message|>hi<|end|>`).  *text is malloc'd and
 * NUL-terminated, owned by the caller.
 */
hm_status hm_render_text(const hm_conversation *c, const hm_render_opts *o,
                         char **text, size_t *len, hm_error *err);

/*
 * The `# Tools` text of one namespace block as the renderer writes it
 * ("## name\n\n...} // namespace name").  Malloc'd; NULL on OOM.
 */
char *hm_render_namespace(const hm_namespace *ns, size_t *len);

/*
 * A JSON Schema as the TypeScript type the renderer writes for tool
 * parameters: *ts malloc'd (NUL-terminated, owned by the caller), *len
 * its length.  HM_EINPUT with err->msg for text that is not JSON;
 * HM_ENOMEM.
 */
hm_status hm_schema_to_ts(const char *json, size_t len, char **ts, size_t *tslen,
                          hm_error *err);

/* ---------------------------------------------------------------- requests */

/* Request shapes harmony-render reads (see harmony-render(1) for mappings). */
typedef enum hm_dialect {
	HM_DIALECT_UNKNOWN = -1,
	HM_DIALECT_AUTO,
	HM_DIALECT_HARMONY,   /* a Conversation or a bare array of messages */
	HM_DIALECT_CHAT,      /* a Chat Completions request */
	HM_DIALECT_RESPONSES, /* a Responses request */
	HM_DIALECT_ANTHROPIC, /* an Anthropic Messages request */
} hm_dialect;

/* What the caller sets on top of the request; zero means "not given". */
typedef struct hm_request_opts {
	size_t size;          /* sizeof(hm_request_opts), from HM_REQUEST_OPTS_INIT */
	hm_effort effort;     /* overrides the request's effort */
	const char *date;     /* Current date line; NULL: none */
	const char *cutoff;   /* NULL: 2024-06 (or the request's, for harmony) */
	const char *identity; /* NULL: the reference's default */
	int browser, python;  /* add the builtin tool namespaces */
	hm_warn_fn *warn;     /* NULL: warnings are dropped */
	void *warn_ctx;
	/*
	 * A store of turns (hm_writer_set_turn_fn wrote it): kind
	 * HM_LOOKUP_RESPONSE, a Responses previous_response_id, fills out with
	 * the response's whole ids (its prompt and its completion) and calls
	 * with the ids of its completion's calls, each NUL-terminated, in
	 * order; HM_LOOKUP_CALL, a tool call's id, fills out with the ids of
	 * the turn that made the call (calls is NULL).  HM_OK found, HM_EINPUT not there (the lookup tells of a
	 * store it cannot read itself), HM_ENOMEM.  NULL: no store
	 * (previous_response_id is then an error).
	 */
	hm_status (*lookup)(void *ctx, int kind, const char *key, size_t len, hm_ids *out,
	    hm_buf *calls);
	void *lookup_ctx;
} hm_request_opts;

enum { HM_LOOKUP_RESPONSE = 1, HM_LOOKUP_CALL = 2 };

/* Nothing set on top of the request. */
#define HM_REQUEST_OPTS_INIT \
	{ sizeof(hm_request_opts), HM_EFFORT_NONE, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, NULL }

typedef struct hm_request {
	hm_conversation *conv;
	hm_dialect dialect;    /* the shape read (auto resolved) */
	hm_str selection_text; /* text of the last user message; p NULL: none */
	hm_str model;          /* the request's "model"; p NULL: none */
	int harmony_model;     /* model names a Harmony model (gpt-oss ...) */
} hm_request;


/*
 * Read a request of dialect `from` (HM_DIALECT_AUTO: decided by shape,
 * per JSON value, as harmony-render(1) describes) into *out as a Harmony
 * conversation: a system message from the reference's defaults and *o, a
 * developer message with the instructions and function tools, then the
 * turns; hm_conversation_continues(out->conv) tells a request that
 * continues its last message (an assistant's then, not a call).  For harmony input the
 * messages are kept as they are and *o only edits (or adds) the system
 * message; several Harmony values in a row are one conversation, several
 * requests of another dialect are an error.
 * HM_EINPUT with err->msg and err->line for bad JSON, an unsupported or
 * ambiguous shape, or a bad field.  Release with hm_request_free.
 */
hm_status hm_request_from_json(const char *buf, size_t len, hm_dialect from,
                               const hm_request_opts *o, hm_request *out,
                               hm_error *err);
void hm_request_free(hm_request *r);

/* ---------------------------------------------------------------- grammars */

/*
 * A grammar for what the model writes after `<|start|>assistant`, so that
 * an engine's constrained decoding keeps it to the request's tool_choice
 * and response format (harmony-tools(1), "grammar").  The forms:
 */
typedef enum hm_grammar_form {
	HM_GRAMMAR_UNKNOWN = -1,
	HM_GRAMMAR_STRUCTURAL_TAG, /* xgrammar's structural tag JSON (vLLM, SGLang, TensorRT-LLM) */
	HM_GRAMMAR_EBNF,           /* xgrammar's EBNF */
	HM_GRAMMAR_GBNF,           /* llama.cpp's GBNF */
	HM_GRAMMAR_LARK,           /* llguidance's Lark */
} hm_grammar_form;

typedef struct hm_grammar_opts {
	size_t size;          /* sizeof(hm_grammar_opts), from HM_GRAMMAR_OPTS_INIT */
	hm_grammar_form form;
	hm_dialect from;      /* the request's dialect; HM_DIALECT_AUTO: by shape */
	/*
	 * JSON text of a tool_choice in any dialect's shape ("required",
	 * {"type":"any"} ...) that replaces the request's; NULL: the request's.
	 */
	const char *tool_choice;
	int no_analysis;      /* 1: no analysis channel (the request's own off switch also does) */
	int browser, python;  /* add the builtin tool namespaces, as hm_request_opts */
	hm_warn_fn *warn;     /* the request reader's warnings; NULL: dropped */
	void *warn_ctx;
} hm_grammar_opts;

#define HM_GRAMMAR_OPTS_INIT \
	{ sizeof(hm_grammar_opts), HM_GRAMMAR_EBNF, HM_DIALECT_AUTO, NULL, 0, 0, 0, NULL, NULL }

/*
 * Read a request (as hm_request_from_json) and write the grammar of its
 * completion in form o->form to *out (malloc'd, NUL-terminated, owned by
 * the caller; *len its length).  The grammar ends where the completion's
 * stop token (<|return|> 200002 or <|call|> 200012) comes: give the
 * engine those ids as stop tokens.  HM_EINPUT with err->msg for a bad
 * request, a tool_choice naming a tool the request does not declare, or
 * "required" without tools; HM_ENOMEM.
 *   hm_grammar_opts o = HM_GRAMMAR_OPTS_INIT;
 *   hm_grammar_from_request(json, n, &o, &text, &len, &e);
 */
hm_status hm_grammar_from_request(const char *buf, size_t len, const hm_grammar_opts *o,
                                  char **out, size_t *outlen, hm_error *err);

/*
 * A request's tool_choice, read to check a completion after the fact
 * (harmony-parse(1) does, given one): which calls it allows and whether it
 * asks for one.  Any dialect's shape: "auto", "none", "required", a bare
 * word of these, Anthropic's {"type":"auto"|"any"|"none"|"tool","name"},
 * a named function (Chat's and Responses' shapes), a hosted tool type
 * (web_search_preview: browser, code_interpreter: python), and
 * allowed_tools (Chat's and Responses' shapes).  No request tools are
 * needed: names are compared as written.  HM_EINPUT with err->msg for a
 * tool_choice of no known shape; HM_ENOMEM.
 *   hm_tool_choice *tc;
 *   hm_tool_choice_new("\"required\"", 10, &tc, &e);
 *   hm_tool_choice_allows(tc, "functions.f", 11);  // 1
 */
typedef struct hm_tool_choice hm_tool_choice;
hm_status hm_tool_choice_new(const char *buf, size_t len, hm_tool_choice **out, hm_error *err);
/*
 * The tool_choice a log record carries among its members (as
 * hm_record_fields gives them, no braces): "tool_choice", else
 * "request"."tool_choice".  *out is NULL when it carries none.
 */
hm_status hm_tool_choice_from_members(const char *members, size_t len, hm_tool_choice **out,
                                      hm_error *err);
/* 1 when a call to the recipient r[0..n) keeps to tc (functions.f, browser.search). */
int hm_tool_choice_allows(const hm_tool_choice *tc, const char *r, size_t n);
/* 1 when tc asks for a call: required, any, a named tool, allowed_tools required. */
int hm_tool_choice_requires(const hm_tool_choice *tc);
/* How tc was read, for a message: "required", "functions.f", "allowed_tools (auto)". */
const char *hm_tool_choice_describe(const hm_tool_choice *tc);
void hm_tool_choice_free(hm_tool_choice *tc);

/* ---------------------------------------------------------------- tool definitions */

/* Shapes of tool definitions (harmony-tools(1)). */
typedef enum hm_tool_shape {
	HM_TOOLS_UNKNOWN = -1,
	HM_TOOLS_AUTO,
	HM_TOOLS_CHAT,      /* {"type":"function","function":{name,description,parameters}} */
	HM_TOOLS_RESPONSES, /* {"type":"function",name,description,parameters} */
	HM_TOOLS_MCP,       /* {name,description,inputSchema}; or a tools/list result */
	HM_TOOLS_ANTHROPIC, /* {name,description,input_schema} */
	HM_TOOLS_HARMONY,   /* ToolDescription {name,description,parameters}, or a namespace */
} hm_tool_shape;


/* How hm_tools_read reads; zero is auto shape, no warnings. */
typedef struct hm_tools_read_opts {
	size_t size;        /* sizeof(hm_tools_read_opts), from HM_TOOLS_READ_OPTS_INIT */
	hm_tool_shape from; /* the shape of every tool; HM_TOOLS_AUTO: per tool */
	int name_given;     /* ns->name is the caller's choice: keep it quietly */
	hm_warn_fn *warn;   /* NULL: warnings are dropped */
	void *warn_ctx;
} hm_tools_read_opts;

/* Each tool's shape told apart, no warnings. */
#define HM_TOOLS_READ_OPTS_INIT { sizeof(hm_tools_read_opts), HM_TOOLS_AUTO, 0, NULL, NULL }

/*
 * Read tool definitions (one tool, a list, an object holding "tools", a
 * JSON-RPC tools/list response, or a Harmony namespace) and append them
 * to ns.  A Harmony namespace's name and description are taken when
 * ns->name / ns->description are still NULL (set ns->name and name_given
 * to override the name); another name later is a warning.  A tool's
 * schema is read from its shape's key, or with a warning from another
 * known key (parameters, input_schema, inputSchema).  HM_EINPUT with
 * err->msg and err->line for a bad shape; ns is then left as it was.
 */
hm_status hm_tools_read(const char *buf, size_t len,
                        const hm_tools_read_opts *o, hm_namespace *ns,
                        hm_error *err);

/*
 * Write ns's tools as compact JSON in shape `to`: a list, or for
 * HM_TOOLS_HARMONY a namespace object.  Malloc'd; NULL when out of memory.
 */
char *hm_tools_write(const hm_namespace *ns, hm_tool_shape to, size_t *len);

/*
 * Check call arguments (JSON text) against tool t's parameters: the
 * arguments must be JSON (numbers of any size), hold every required
 * property, and give each declared property a value of its declared
 * type(s); nested objects (properties, required) and array items are
 * checked the same way, down to 32 levels.  HM_OK when they fit;
 * HM_EINPUT when they do not, *problems (may be NULL) counting the
 * problems and err->msg describing the first few ("; "-separated,
 * properties named by path: `address.city`, `items[2].qty`); HM_ENOMEM.
 * A key given twice in the arguments is a problem named
 * (`arguments: duplicate key "x" ...`).  Schema options: hm_tool_check_opts.
 */
hm_status hm_tool_check(const hm_tool *t, const char *args, size_t len,
                        size_t *problems, hm_error *err);

/* Release what a namespace holds (the struct itself is the caller's). */
void hm_namespace_free(hm_namespace *ns);

/* ---------------------------------------------------------------- JSON Schema */

/*
 * A JSON Schema validator: drafts 04, 06, 07, 2019-09 and 2020-12, the
 * draft chosen by `$schema` (2020-12 when there is none; draft-07's
 * `dependencies`, `additionalItems` and list `items` are kept in 2020-12),
 * every keyword that asserts: type, enum, const, properties, required,
 * additionalProperties, patternProperties, propertyNames, min/maxProperties,
 * dependentRequired, dependentSchemas, dependencies, items, prefixItems,
 * additionalItems, contains, min/maxContains, min/maxItems, uniqueItems,
 * min/maxLength, pattern, format, minimum, maximum, exclusiveMinimum,
 * exclusiveMaximum (draft-04's booleans too), multipleOf, allOf, anyOf,
 * oneOf, not, if/then/else, unevaluatedProperties, unevaluatedItems, $ref,
 * $dynamicRef, $recursiveRef, $id (draft-04's id), $anchor,
 * $dynamicAnchor, $vocabulary (of a metaschema given), boolean schemas,
 * and OpenAPI's nullable; other keywords are annotations.  Numbers compare
 * by their decimal text, exactly.  A `$schema` that is not a draft nor a
 * metaschema the validator is given is an error.  References reach the
 * schema itself, documents added (hm_schema_add_resource), the drafts'
 * metaschemas (bundled) and directories mapped to URIs (opts.dirs);
 * nothing is fetched.  Patterns are ECMA-262 without lookaround or
 * backreferences (libharmony(3)).
 * A schema is read once and checks any number of values; problems name
 * the JSON Pointer of the failing value and the keyword.  Work is bounded
 * (512 levels of schemas inside one another, a budget of steps per value):
 * a hostile schema or value is a problem reported, not a hang.
 *   hm_schema *s; hm_schema_new(text, n, NULL, &s, &e);
 *   if (hm_schema_validate(s, "{\"a\":1}", 7, &e) == HM_EINPUT) puts(e.msg);
 */
typedef struct hm_schema hm_schema;

typedef enum hm_schema_draft {
	HM_DRAFT_AUTO = 0,     /* by $schema (04, 06, 07, 2019-09, 2020-12); 2020-12 when absent */
	HM_DRAFT_4 = 4,
	HM_DRAFT_6 = 6,
	HM_DRAFT_7 = 7,        /* 4 to 7: $ref alone, its siblings are ignored */
	HM_DRAFT_2019_09 = 2019,
	HM_DRAFT_2020_12 = 2020,
} hm_schema_draft;

/* hm_schema_opts.formats: as the draft says (the default). */
#define HM_FORMATS_DRAFT (-1)

typedef struct hm_schema_opts {
	size_t size;           /* sizeof(hm_schema_opts), set by the _INIT macro */
	hm_schema_draft draft;
	int formats;           /* 1: `format` asserts the formats known (date-time,
	                          date, time, duration, email, idn-email, hostname,
	                          idn-hostname, ipv4, ipv6, uri, uri-reference, iri,
	                          iri-reference, uri-template, uuid, json-pointer,
	                          relative-json-pointer, regex); 0: an annotation;
	                          HM_FORMATS_DRAFT: asserts in drafts 04 to 07 and
	                          where the format-assertion vocabulary is; else
	                          (2019-09, 2020-12, and so a schema without
	                          $schema) annotates */
	size_t max_steps;      /* the step budget of one value; 0: 10^7 + 64 a node */
	const char *const *dirs; /* NULL, or URI prefix, directory, ..., NULL: a
	                          document a reference names under a prefix is
	                          read from the directory (never fetched) */
	int strict;            /* 1: a keyword the draft does not have is an
	                          error of the schema, not an annotation */
} hm_schema_opts;
#define HM_SCHEMA_OPTS_INIT { sizeof(hm_schema_opts), HM_DRAFT_AUTO, HM_FORMATS_DRAFT, 0, NULL, 0 }

/*
 * Read a schema (JSON text; o may be NULL for the defaults) into *out.
 * HM_EINPUT with err->msg (and err->line) when it is not JSON, not an
 * object or boolean, has a pattern the dialect cannot compile, or a $ref
 * into itself that points to nothing; HM_ENOMEM.  Free with hm_schema_free.
 */
hm_status hm_schema_new(const char *buf, size_t len, const hm_schema_opts *o,
                        hm_schema **out, hm_error *err);
/*
 * The same for a structured output format: buf holds a JSON Schema, a
 * response format ({"type":"json_schema",...}: Chat's json_schema.schema,
 * Responses' schema) or a request holding one (response_format,
 * text.format).  HM_EINPUT as hm_schema_new, or when a format has no schema.
 */
hm_status hm_schema_from_format(const char *buf, size_t len, const hm_schema_opts *o,
                                hm_schema **out, hm_error *err);
/*
 * Make the schema document buf[0..len) known under absolute URI uri, for
 * $refs to other documents (nothing is fetched).  HM_EINPUT when it is not
 * JSON; HM_ENOMEM.
 */
hm_status hm_schema_add_resource(hm_schema *s, const char *uri, const char *buf,
                                 size_t len, hm_error *err);
/*
 * Check the JSON value buf[0..len) (numbers of any size).  HM_OK when
 * valid; HM_EINPUT when not JSON (hm_schema_nproblems 0, err->msg and
 * err->line say why) or not valid (the problems are listed, err->msg is
 * the first as "PATH: KEYWORD: what" and how many more); HM_ENOMEM.
 */
hm_status hm_schema_validate(hm_schema *s, const char *buf, size_t len,
                             hm_error *err);
/*
 * A value read once, to be checked against any number of schemas (or the
 * same one again) without reading its text each time: buf[0..len) read
 * as hm_schema_validate reads it, into *out (free it with
 * hm_schema_value_free).  HM_EINPUT (err->msg and err->line say why),
 * HM_ENOMEM.
 */
hm_status hm_schema_read_value(const char *buf, size_t len, hm_json **out, hm_error *err);
/*
 * hm_schema_validate of a value read already: the same answer and the
 * same problems; err may be NULL (the problems are listed all the same).
 */
hm_status hm_schema_validate_value(hm_schema *s, const hm_json *v, hm_error *err);
/* Free a value hm_schema_read_value made (that one only: it is laid out in one block). */
void hm_schema_value_free(hm_json *v);

/* One problem of the last hm_schema_validate; strings belong to s. */
typedef struct hm_schema_problem {
	const char *path;    /* JSON Pointer of the failing value ("" the root) */
	const char *keyword; /* "type", "required" ... ("budget", "depth": a limit) */
	const char *message; /* what is wrong */
} hm_schema_problem;

/* How many problems the last hm_schema_validate found. */
size_t hm_schema_nproblems(const hm_schema *s);
/* Problem i (the first 64 are kept) into *p: 1, or 0 when there is none. */
int hm_schema_problem_get(const hm_schema *s, size_t i, hm_schema_problem *p);
void hm_schema_free(hm_schema *s);

/*
 * hm_tool_check with schema options o (NULL: hm_tool_check's defaults):
 * its parameters read as hm_schema_new reads a schema with them, so
 * o->formats = 1 asserts `format` in a tool schema that says no draft
 * (2020-12, where it annotates).  Arguments that give a
 * key twice are an error naming it, in both (which value is meant cannot
 * be told).  Returns as hm_tool_check.
 */
hm_status hm_tool_check_opts(const hm_tool *t, const char *args, size_t len,
                             const hm_schema_opts *o, size_t *problems,
                             hm_error *err);

/* ---------------------------------------------------------------- input */

/*
 * What an input is, told from its first bytes as harmony-parse tells it
 * when not told: an SSE stream when its first line that is not blank is
 * an SSE line (data:, event:, id:, retry: or a comment); records when it
 * opens a JSON object or array; ids when it is made of ids alone (digits,
 * blanks, commas); Harmony text otherwise; nothing when it is blanks
 * alone.  Give what has come so far: HM_INPUT_MORE asks for more, until
 * HM_DETECT_END says no more comes (past 1 MiB, what has come is all).
 * The other flags narrow it: the input is known to be ids, or text, or
 * to hold a record a line.
 *   k = hm_input_detect(buf, len, HM_DETECT_END);  // "1 2 3": HM_INPUT_IDS
 */
typedef enum hm_input {
	HM_INPUT_MORE = 0, /* cannot tell yet: more bytes, or HM_DETECT_END */
	HM_INPUT_IDS,      /* one stream of ids: blank or comma separated numbers (hm_idscan) */
	HM_INPUT_RECORDS,  /* records: one a line, or a JSON value over lines (hm_framer) */
	HM_INPUT_TEXT,     /* Harmony text (hm_parser_feed_text) */
	HM_INPUT_SSE,      /* a server-sent event stream (hm_sse, hm_server) */
	HM_INPUT_EMPTY,    /* blanks alone: nothing to read */
} hm_input;

enum {
	HM_DETECT_END = 1 << 0,   /* no more bytes come */
	HM_DETECT_IDS = 1 << 1,   /* the input is ids: RECORDS or IDS (or EMPTY) */
	HM_DETECT_TEXT = 1 << 2,  /* the input is text: TEXT (or EMPTY) */
	HM_DETECT_LINES = 1 << 3, /* each line is a record: RECORDS where IDS would be */
};

hm_input hm_input_detect(const char *buf, size_t len, unsigned flags);

/*
 * Framing: cut a byte stream into its records.  Feed bytes in pieces of
 * any size, pull frames until none is left, and at the end of the input
 * (of each file) finish and pull the rest.  A frame is a line that is not
 * JSON (ids written as numbers), or a JSON object or array, whole on its
 * line or spread over several (it ends where its brackets close, strings
 * skipped); blank lines are skipped.  A value not closed when a line
 * begins a new record (the value is inside a string at a line break, or
 * the line starts with '{' or '[' in its first column, but for an array's
 * elements at its first level) was cut: it is an HM_FRAME_OPEN of its
 * own, and that line is read as the start of the next record, so a cut
 * record costs that record only.  A value spread over lines must indent
 * what it nests (jq . and every pretty printer with an indent do).
 * With HM_FRAMER_TEXT each line is
 * one frame as it is, blank or not.  Line numbers count from 1 again
 * after a finish.  The bytes fed are read in place, not copied: keep them
 * until hm_framer_next returns 0; a frame's pointers hold until the next
 * call.  hm_framer_next returns 1 for a frame, 0 for none, -1 when out of
 * memory.
 *   hm_framer_feed(f, buf, n);
 *   while (hm_framer_next(f, &fr) > 0) ...
 */
typedef struct hm_framer hm_framer;

enum {
	HM_FRAMER_TEXT = 1 << 0, /* each line is a record of text: no JSON value spans lines */
};

typedef enum hm_frame_type {
	HM_FRAME_LINE = 1, /* p, len: a line, without its newline */
	HM_FRAME_JSON,     /* p, len: a JSON value (an object, an array of ids or of objects) */
	HM_FRAME_AFTER,    /* p, len: a value, and rest, rest_len: what follows it on its last line */
	HM_FRAME_OPEN,     /* a JSON value begun on line, not closed when the input
	                      ended or line last + 1 began a new record (then rest,
	                      rest_len: that line; else rest is NULL); p, len: the
	                      value's text so far */
} hm_frame_type;

typedef struct hm_frame {
	hm_frame_type type;
	const char *p;        /* the record's bytes */
	size_t len;
	size_t line;          /* the line it begins on, from 1 */
	size_t last;          /* the line it ends on */
	const char *rest;     /* AFTER: the text after the value (blanks trimmed before it) */
	size_t rest_len;
} hm_frame;

/* A new framer (flags: HM_FRAMER_*); NULL when out of memory. */
hm_framer *hm_framer_new(unsigned flags);
void hm_framer_free(hm_framer *f);
void hm_framer_feed(hm_framer *f, const char *buf, size_t len);
/* The input has ended: a last line without its newline is a line. */
void hm_framer_finish(hm_framer *f);
int hm_framer_next(hm_framer *f, hm_frame *out);
/*
 * The blank lines skipped outside values since the framer was made: with
 * the lines line..last of every frame they are all the lines fed (the
 * summary's record_lines, checked against input_lines).
 */
uint64_t hm_framer_blank_lines(const hm_framer *f);

/*
 * Whether s[0..n) opens a JSON array of objects (`[`, blanks, `{`): a
 * batch of responses, each object a record.
 */
int hm_json_array_is_objects(const char *s, size_t n);

/*
 * The next member of the JSON array s[0..n) (s[0] is '['), from *pos (0
 * to begin): 1 with the member at s[*start .. *start + *len), *nl counting
 * the newlines read so far (so the member ends on line first + *nl); 0 at
 * the end.  Strings are skipped, the members not checked.
 *   size_t pos = 0, at, n, nl = 0;
 *   while (hm_json_array_next(s, len, &pos, &at, &n, &nl)) hm_server_feed(sv, s + at, n, line + nl);
 */
int hm_json_array_next(const char *s, size_t n, size_t *pos, size_t *start, size_t *len,
                       size_t *nl);

/* ---------------------------------------------------------------- server output */

/*
 * Server-Sent Events framing: feed the bytes of an SSE stream in pieces
 * of any size; each time an event with data is complete, hm_sse_feed
 * stops with *event set (*used: the bytes it took) and hm_sse_data gives
 * the event's data lines joined by \n, the one blank after "data:"
 * dropped.  Lines end with LF, CRLF or a lone CR; comments (":") and
 * other fields (event:, id:, retry:) are skipped.  hm_sse_finish at the
 * end of the stream gives an event cut off before its blank line.
 * HM_ENOMEM when out of memory (and from every call after it).
 *   while (len && hm_sse_feed(s, buf, len, &k, &ev) == HM_OK) {
 *           buf += k, len -= k;
 *           if (ev) { d = hm_sse_data(s, &n, &line); ... }
 *   }
 */
typedef struct hm_sse hm_sse;

hm_sse *hm_sse_new(void);
void hm_sse_free(hm_sse *s);
hm_status hm_sse_feed(hm_sse *s, const char *buf, size_t len, size_t *used, int *event);
hm_status hm_sse_finish(hm_sse *s, int *event);
/* The last event's data (NUL-terminated) and the line its data began on. */
const char *hm_sse_data(const hm_sse *s, size_t *len, size_t *line);

/*
 * A reader of what servers and their logs hold: one JSON object at a
 * time (a log record, a whole response, a chunk of a stream, an SSE
 * event's data), completions out, in the order their records began.
 * It knows log records (an id array or a completion text, as hm_record),
 * OpenAI completions and chat completions (text, delta, message,
 * token_ids), vLLM offline outputs, sglang /generate (cumulative or
 * delta streams), llama.cpp /completion, Ollama /api/generate and
 * /api/chat (parsed messages become Harmony text again), TGI and Triton;
 * chunks of one choice of one stream (told apart by id and index) make
 * one completion, handed out as they come while it is the oldest open.
 * A stop token the server left out of the text is put back from
 * stop_reason, matched, matched_stop or done_reason.  Feed a value, then
 * pull items until none is left; an item's pointers hold until the next
 * feed.
 *   hm_server_feed(sv, line, len, lineno);
 *   while (hm_server_next(sv, &it)) ...
 */
typedef struct hm_server hm_server;

typedef enum hm_server_item_type {
	HM_SRV_UNKNOWN = -1,
	HM_SRV_BEGIN = 1, /* a completion starts: fields carried, text or ids */
	HM_SRV_IDS,       /* some of its ids */
	HM_SRV_TEXT,      /* some of its Harmony text */
	HM_SRV_END,       /* it is whole: members its later chunks gave (s, len) */
	HM_SRV_ERROR,     /* a record in its place that holds no completion */
	HM_SRV_DUPLICATE, /* a warning, before its record's BEGIN: a member carried
	                   * as given came twice or more (s, len: the first such
	                   * name, as JSON spells it; line); each value is
	                   * carried, the first "id" names the record */
} hm_server_item_type;

typedef struct hm_server_item {
	hm_server_item_type type;
	const char *s;        /* BEGIN: carried members (no braces); END: members met after
	                       * BEGIN (a stream's finish and usage chunks, for
	                       * hm_writer_late_fields), maybe none; TEXT: bytes; ERROR: message */
	size_t len;
	const uint32_t *ids;  /* IDS */
	size_t n;
	const char *id;       /* BEGIN, ERROR: the record's "id" as JSON, or NULL */
	int text;             /* BEGIN: the completion comes as text (else ids) */
	size_t line;          /* BEGIN, ERROR, DUPLICATE: the line its record began on */
	size_t index;         /* ERROR: the id the message is about (from 0), (size_t)-1 none */
	hm_hint hint;         /* ERROR: what the caller could do about it */
} hm_server_item;

hm_server *hm_server_new(void);
void hm_server_free(hm_server *sv);

/*
 * Read the completion at path (jq's spelling: .response, .choices[0].text,
 * .outputs[0].token_ids; a bare name is a member name) instead of looking
 * for it: a string is Harmony text, an array of numbers ids; a record
 * without it is an error item.  NULL: look for it.  HM_EINPUT for a path
 * that does not parse, HM_ENOMEM.
 */
hm_status hm_server_set_field(hm_server *sv, const char *path);

/* The field path hm_server_set_field was given, or NULL. */
const char *hm_server_field(const hm_server *sv);

/* Read the JSON value buf[0..len), which began on line `line`.  HM_ENOMEM. */
hm_status hm_server_feed(hm_server *sv, const char *buf, size_t len, size_t line);

/*
 * The values come from an SSE stream (on) or are records (off, the
 * default): a Triton response, which never says it is the last, is a
 * chunk of the stream's one completion, else a whole one.
 */
void hm_server_sse(hm_server *sv, int on);

/* A stream's end (SSE "[DONE]", the end of the input): its open completions end. */
hm_status hm_server_done(hm_server *sv);

/* The next item: 1, or 0 when there is none left. */
int hm_server_next(hm_server *sv, hm_server_item *it);

/* ---------------------------------------------------------------- HTML pages */

/*
 * Pages for people to look at in a browser: one self-contained HTML file
 * each (inline style and script, a Content Security Policy that allows no
 * fetch: it opens from file:// anywhere, without network).
 *
 * hm_html is the page of token views that harmony-tokens inspect and
 * harmony-render write when asked for HTML: a section a record, its tokens
 * as boxes (whitespace drawn, special tokens set apart by border and
 * weight, not colour alone) grouped into the messages the default-mode
 * parser (role "auto") finds, with role, channel, recipient and content
 * type; index and id on hover and focus, the arrow keys moving between
 * tokens; counts a message, a record and in all; search by id or text.
 * Boxes are drawn only near the screen, the tokens kept in the page as
 * compact data (about 5 bytes a token, and each distinct token's text
 * once).  Output is drained like a writer's: hm_html_output, then
 * hm_html_consume once it is written.
 *   hm_html *h = hm_html_new("prompt.txt", 0);
 *   hm_html_add_ids(h, NULL, ids, n);   // section "record 1"
 *   hm_html_finish(h);                  // the page's end
 *   out = hm_html_output(h, &len); fwrite(out, 1, len, f); hm_html_consume(h);
 *   hm_html_free(h);
 */
typedef struct hm_html hm_html;

enum {
	HM_HTML_RECOVERIES = 1 << 0, /* mark each recovery of the parser (F-code, message) at its token */
};

/* A new page titled title (copied; NULL: none).  NULL when out of memory. */
hm_html *hm_html_new(const char *title, unsigned flags);
void hm_html_free(hm_html *h);
/*
 * A record's section: ids[0..n) (copied into the page) under the heading
 * label (NULL: "record K", K from 1).  The page's head comes before the
 * first.  HM_ENOMEM, and then every call after it.
 */
hm_status hm_html_add_ids(hm_html *h, const char *label, const uint32_t *ids, size_t n);
/* The end of the page (its head too when no record came).  HM_ENOMEM. */
hm_status hm_html_finish(hm_html *h);
/* The page's text not yet taken, and dropping it once written. */
const char *hm_html_output(const hm_html *h, size_t *len);
void hm_html_consume(hm_html *h);

/*
 * The pieces every page is made of, for a program that writes a page of
 * its own into an hm_buf (out of memory is the buffer's sticky oom).
 *
 * hm_html_page_begin: the doctype, <meta charset="utf-8">, the title
 * (escaped), the common style sheet and script with css and js of the
 * page's own after them (NULL: none; not escaped, and js must not hold
 * "</script"), <body>, an <h1> of the title and the status line
 * (id hm-tip) that shows a token box's index, id and kind on hover and
 * focus.  hm_html_page_end closes the page.
 *   hm_html_page_begin(&b, "diff", NULL, NULL); ...; hm_html_page_end(&b);
 */
void hm_html_page_begin(hm_buf *b, const char *title, const char *css, const char *js);
void hm_html_page_end(hm_buf *b);
/*
 * s[0..n) as HTML text or a double-quoted attribute's value: & < > " '
 * escaped, bytes that are not UTF-8 as U+FFFD.
 *   hm_html_escape(&b, "a<b", 3);  // a&lt;b
 */
void hm_html_escape(hm_buf *b, const char *s, size_t n);
/*
 * Token id, the index-th of its record, as a box: <span class="tk"
 * tabindex="-1" data-i="INDEX" data-id="ID">; whitespace drawn (space as
 * a middle dot, tab, newline and CR as arrows), control bytes and bytes
 * that are not UTF-8 alone as \xNN; class "sp" for a special token,
 * "bad" for bytes not UTF-8 alone.  A token ending in a newline is
 * followed by <br>.  The page's script moves the focus between boxes
 * (arrow keys, Home, End) and shows each one's index and id.
 *   hm_html_token(&b, 0, 200006);  // <span class="tk sp" ...>&lt;|start|&gt;</span>
 */
void hm_html_token(hm_buf *b, size_t index, uint32_t id);

/* ---------------------------------------------------------------- names */

/*
 * Every enum above has a pair: hm_X_name(value) is its name ("?" for a
 * value outside the enum), hm_X_from_name(name) the value of a name
 * (HM_..._UNKNOWN, -1, for NULL or a name it does not know).  The names
 * are the ones the formats and the tools use:
 *   hm_shape_name(HM_TO_CHAT_STREAM);   // "chat-stream", as harmony-parse(1) names it
 *   hm_role_from_name("assistant");     // HM_ROLE_ASSISTANT
 *   hm_stop_name(HM_STOP_CALL);         // "call"
 *   hm_failure_name(HM_F_RECIPIENT);    // "F1"
 *   hm_status_name(HM_ENOMEM);          // "out of memory"
 */
const char *hm_status_name(hm_status v);
hm_status hm_status_from_name(const char *name);
const char *hm_event_type_name(hm_event_type v);     /* "start", "delta" ... */
hm_event_type hm_event_type_from_name(const char *name);
const char *hm_stop_name(hm_stop v);                 /* "none", "end", "return", "call", "eos" */
hm_stop hm_stop_from_name(const char *name);
const char *hm_failure_name(hm_failure v);           /* "other", "F1" ... "F18" */
hm_failure hm_failure_from_name(const char *name);
const char *hm_shape_name(hm_shape v);               /* "messages", "chat-stream" ... */
hm_shape hm_shape_from_name(const char *name);
const char *hm_place_part_name(hm_place_part v);     /* "header", "content", "stop", "outside" */
hm_place_part hm_place_part_from_name(const char *name);
const char *hm_role_name(hm_role v);                 /* "user", "assistant" ... */
hm_role hm_role_from_name(const char *name);
const char *hm_effort_name(hm_effort v);             /* "none", "low", "medium", "high" */
hm_effort hm_effort_from_name(const char *name);
const char *hm_content_type_name(hm_content_type v); /* "text", "system_content" ... */
hm_content_type hm_content_type_from_name(const char *name);
const char *hm_render_mode_name(hm_render_mode v);   /* "conversation", "completion", "training" */
hm_render_mode hm_render_mode_from_name(const char *name);
const char *hm_dialect_name(hm_dialect v);           /* "auto", "harmony", "chat" ... */
hm_dialect hm_dialect_from_name(const char *name);
const char *hm_tool_shape_name(hm_tool_shape v);     /* "auto", "chat", "responses" ... */
hm_tool_shape hm_tool_shape_from_name(const char *name);
const char *hm_server_item_type_name(hm_server_item_type v); /* "begin", "ids" ... */
hm_server_item_type hm_server_item_type_from_name(const char *name);
const char *hm_hint_name(hm_hint v);                 /* "none", "dialect" ... */
hm_hint hm_hint_from_name(const char *name);
const char *hm_grammar_form_name(hm_grammar_form v); /* "structural-tag", "ebnf", "gbnf", "lark" */
hm_grammar_form hm_grammar_form_from_name(const char *name);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* HARMONY_H */
