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
