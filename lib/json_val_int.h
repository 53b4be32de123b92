/*
 * json_val_int.h - the library's JSON value tree, and its one reader.
 *
 * Rendering must reproduce serde_json exactly: "a\u0000b" is three bytes
 * and a default of 10.0 prints as `10.0`, 10 as `10`.  So requests,
 * conversations and tool schemas are read into this tree: strings carry
 * their length, numbers carry the text serde_json would print for them,
 * objects keep their key order.  Log records, id arrays and summary lines
 * are read into it too, in the lenient grammar (HM_JV_LAX) they have
 * always been read with.
 */
#ifndef HM_JSONVAL_INT_H
#define HM_JSONVAL_INT_H

#include <stddef.h>

#include "buf_int.h"

typedef enum hm_jv_type {
	HM_JV_NULL,
	HM_JV_FALSE,
	HM_JV_TRUE,
	HM_JV_NUMBER,
	HM_JV_STRING,
	HM_JV_ARRAY,
	HM_JV_OBJECT,
} hm_jv_type;

typedef struct hm_jv hm_jv;

struct hm_jv {
	hm_jv_type type;
	char *s;       /* string bytes or serde number text; NUL-terminated */
	size_t len;
	double num;    /* numbers */
	size_t n, cap; /* array items / object members */
	hm_jv **v;     /* values */
	char **k;      /* object keys (NUL-terminated, may hold NULs) */
	size_t *klen;
	size_t pos;    /* byte offset of the value in the text it was parsed from */
};

/*
 * Parse buf[0..len) as one JSON value (serde_json's grammar: strict JSON,
 * valid UTF-8, no trailing characters).  Returns NULL on error with a
 * message in err[0..errsz) ("expected value at line 1 column 5").
 * Returns NULL with err[0] == '\0' when out of memory.
 */
hm_jv *hm__jv_parse(const char *buf, size_t len, char *err, size_t errsz);
/*
 * Parse the JSON value at buf[*pos..len) and move *pos past it and the
 * whitespace after it: reads a stream of values (NDJSON or concatenated).
 */
hm_jv *hm__jv_parse_next(const char *buf, size_t len, size_t *pos, char *err,
                        size_t errsz);
/*
 * The general form: parse the value at buf[*pos..len) (pos NULL: from 0),
 * the whole text when whole is set.  flags HM_JV_NUMTEXT: numbers keep
 * their text as written, and one too large for a double (1e400) is still
 * a number, num +-HUGE_VAL (serde_json rejects it; in call arguments it
 * is valid JSON, and 1e-400 is not the integer 0).  On error *errpos (may
 * be NULL) is the byte offset of the problem.
 */
#define HM_JV_NUMTEXT 1u
/*
 * flags HM_JV_LAX: the lenient grammar of log records, id arrays and
 * summary lines (cJSON 1.7's, which read them before this reader did, kept
 * so that what they accept and where an error is placed do not change):
 * whitespace is every byte up to ' '; a UTF-8 byte order mark before the
 * text is skipped; strings take any bytes but a raw control character
 * (U+0000..U+001F, an error as RFC 8259 has it: it is no longer taken,
 * so a raw NUL no longer cuts a record's text) and end at their first
 * NUL (\u0000), a \u escape not in hex is U+0000; a number is what
 * strtod makes of the run of bytes from 0-9 + - e E . (num, and s NULL
 * but with HM_JV_NUMTEXT, which keeps the bytes strtod took: such a tree
 * is read, not written); containers nest 1000 levels; no trailing comma; the value
 * ends where it ends (*pos right after it, no whitespace skipped, nothing
 * after it looked at).  *errpos is a byte of the text: the one where
 * reading stopped, the byte after the opening quote of a string that does
 * not end or after the start of a key that is not a string, the last byte
 * when the text ends early.  Look members up with hm__jv_first.
 */
#define HM_JV_LAX 2u
/*
 * flags HM_JV_NODUP: a key given twice in one object is an error at its
 * second opening quote, naming it: `duplicate key "x" (which of its
 * values is meant cannot be told) at line 1 column 20`.  The readers of
 * what a tool reads whole (render's requests, tools, tool_choice; a
 * server's records) take it: serde_json refuses a duplicate field, and
 * taking the first or the last would choose silently.
 */
#define HM_JV_NODUP 4u
hm_jv *hm__jv_parse_ex(const char *buf, size_t len, size_t *pos, int whole,
                      unsigned flags, char *err, size_t errsz, size_t *errpos);
/*
 * The same returning how it went: HM_OK with the value in *out, HM_EINPUT
 * (err says what, errpos where), HM_ENOMEM (*out NULL both).
 */
hm_status hm__jv_read(const char *buf, size_t len, size_t *pos, int whole,
                      unsigned flags, hm_jv **out, char *err, size_t errsz,
                      size_t *errpos);
void hm__jv_free(hm_jv *v);
/* The line (from 1) of byte offset off in buf[0..len). */
size_t hm__text_line(const char *buf, size_t len, size_t off);

/* Constructors (NULL when out of memory); containers take ownership. */
/* A NUL-terminated copy of s[0..len) (which may hold NULs), or NULL. */
char *hm__memdup(const char *s, size_t len);
/* Append key (taken over, may be NULL: fails) -> val; HM_ENOMEM frees both. */
hm_status hm__jv_set_owned(hm_jv *obj, char *key, size_t klen, hm_jv *val);
hm_jv *hm__jv_new(hm_jv_type t);
hm_jv *hm__jv_str(const char *s, size_t len);
hm_jv *hm__jv_number(double d);
/* HM_ENOMEM (item or val NULL, or growing failed): the value is freed. */
hm_status hm__jv_push(hm_jv *arr, hm_jv *item);
hm_status hm__jv_set(hm_jv *obj, const char *key, hm_jv *val);
hm_jv *hm__jv_copy(const hm_jv *v);

/* The value of key in an object (the last one when repeated), or NULL. */
hm_jv *hm__jv_get(const hm_jv *obj, const char *key);
/* The same for the key k[0..n) (it may hold a NUL). */
hm_jv *hm__jv_member(const hm_jv *obj, const char *k, size_t n);
/* The same, the first one when repeated (what the lenient readers take). */
hm_jv *hm__jv_first(const hm_jv *obj, const char *key);
/* How many members of obj are named key. */
size_t hm__jv_count(const hm_jv *obj, const char *key);
/* The string of key when it is a JSON string, else NULL. */
const char *hm__jv_getstr(const hm_jv *obj, const char *key, size_t *len);
int hm__jv_is(const hm_jv *v, hm_jv_type t);
/*
 * Equality as JSON Schema has it (enum, const, uniqueItems): numbers by
 * their exact decimal value (1 and 1.0 are equal, 1e400 and 1e401 not),
 * objects whatever their keys' order.
 */
int hm__jv_equal(const hm_jv *a, const hm_jv *b);
/*
 * -1, 0, 1 as the JSON number texts a < b, a == b, a > b, on their exact
 * decimal value, never rounded through a double (json_schema_num.c).
 */
int hm__num_cmp(const char *a, size_t an, const char *b, size_t bn);

/*
 * A hash set of strings (pointers into data the caller keeps alive), each
 * with an index: lookups in linear time overall where a scan per lookup
 * would be quadratic (50,000 `required` names).  Zero-initialise.
 */
typedef struct hm_strset {
	struct hm_strset_ent *e;
	size_t cap, n;
} hm_strset;

/* Add s[0..len) with idx (a repeated string keeps the last idx); HM_ENOMEM. */
hm_status hm__strset_add(hm_strset *set, const char *s, size_t len, size_t idx);
/* The idx of s[0..len), or (size_t)-1 when absent. */
size_t hm__strset_find(const hm_strset *set, const char *s, size_t len);
void hm__strset_free(hm_strset *set);
/* A set of obj's keys (idx: member index); HM_ENOMEM. */
hm_status hm__strset_keys(hm_strset *set, const hm_jv *obj);

/*
 * Append v as compact JSON, the way serde_json writes it, to a buffer
 * whose owner's out-of-memory flag is *nomem.  hm__jv_write: the same to
 * a buffer that owns itself (its oom), for the callers not yet converted.
 */
void hm__jv_write_to(int *nomem, hm_buf *b, const hm_jv *v);
void hm__jv_write(hm_buf *b, const hm_jv *v);

/* hm_json_pretty and hm_json_compact are public: see harmony.h. */

/*
 * The double of the JSON number s[0..n) as serde_json reads it (not
 * always the nearest); -1 when it is out of a double's range.
 */
int hm__json_f64(const char *s, size_t n, double *out);

/* Append d in serde_json's (ryu) float form: 10.0, 1.5, 1e21, 1.5e-7. */
void hm__jv_fmt_double(int *nomem, hm_buf *b, double d);

/*
 * JSON input nests at most 127 levels of arrays and objects (serde_json's
 * limit) in every reader; deeper is this error.  hm__json_too_deep: the
 * column (from 1) of the bracket of s[0..n) that opens the 128th level, or
 * 0 (a scan without recursion, for the id-record reader, whose lenient
 * grammar nests deeper).
 */
#define HM_JSON_TOO_DEEP "recursion limit exceeded (JSON nested deeper than 127 levels)"
size_t hm__json_too_deep(const char *s, size_t n);

/*
 * What makes the JSON text s[0..n) no JSON in its bytes, for an error
 * that names it (not "not a JSON object" or "no tokens array"): a raw
 * control character inside a string (RFC 8259: escape it), a lone
 * surrogate escape (\ud800 with no trailing half; the one rule of every
 * reader here, as serde_json's: an error, never a silent U+FFFD), and
 * with utf8 set, bytes that are not UTF-8.  0 when there is none; else 1
 * with msg[0..size) set ("raw control character U+0000 in a string at
 * byte 12") and *at (may be NULL) that byte's offset.
 */
int hm__json_flaw(const char *s, size_t n, int utf8, char *msg, size_t size, size_t *at);

#endif
