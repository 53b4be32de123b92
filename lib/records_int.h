/*
 * records_int.h - one pass over an NDJSON log record: the token id array
 * straight into an id buffer, the completion text decoded, every other
 * member kept as compact JSON bytes, with no tree.
 *
 * The carried form.  A record's other members are carried into the
 * output in one form, the one hm_json_compact writes:
 *   - members in the record's order, every one (a repeated key too);
 *   - no blanks between tokens;
 *   - keys and strings decoded, then written as hm_buf_json_str writes
 *     text: \" \\ \b \f \n \r \t, \u00xx (lowercase) for the other
 *     control characters, everything else as UTF-8 bytes (\u00e9 is the
 *     two bytes of é, \/ is /, invalid UTF-8 is U+FFFD);
 *   - numbers as written (1.0 stays 1.0, 1e400 and -0 stay too), but
 *     for the forms JSON does not allow that a lenient reader takes
 *     (json_carry.c: leading zeros, a point with no digit after it);
 *   - true, false, null.
 * Where a key is looked up (id, usage, the counts), the first member of
 * that name is the one read.  The scanner copies text that is already in
 * this form but for blanks; anything else it leaves to the general
 * reader (records.c), which writes the same form through json_carry.c.
 * The writers hold the members in this form (hm_writer_begin) and never
 * read them again as JSON text.
 */
#ifndef HM_RECORDS_INT_H
#define HM_RECORDS_INT_H

#include <stdint.h>

#include "buf_int.h"
#include "facts_int.h"
#include "harmony.h"

enum { HM_REC_OK, HM_REC_SLOW };

/* The id array keys, first wins, and the text keys: facts_int.h's. */
#define HM_REC_NKEYS HM__NID_KEYS

struct hm_rec_member {
	size_t off, len;  /* in tmp: key and value, compact */
	int slot;         /* -1 plain; 0..3 an id key; 4 the text key */
};

/* Zero-initialise ({0}); reuse for every record; hm__rec_free at the end. */
struct hm_rec {
	hm_buf fields;    /* carried members, compact JSON, without braces */
	hm_buf id;        /* the first "id" member's value, when has_id */
	int has_id;
	int key;          /* the id key read (0..3), -1: none */
	hm_ids *ids;      /* ... and its ids (points into slot[]) */
	int is_text;      /* no id key: the completion is the text below */
	hm_buf text;      /* the decoded completion text */
	size_t end;       /* bytes read: just past the closing brace */
	int server;       /* a member names a server's response shape (choices ...) */
	size_t dup_off, dup_len; /* dup_len: the name of the first carried member
	                     given twice, at tmp.p + dup_off (as JSON spells it) */
	/* scratch */
	hm_ids slot[HM_REC_NKEYS];
	int seen[HM_REC_NKEYS + 16];
	hm_buf tmp;
	struct hm_rec_member *m;
	size_t nm, capm;
	size_t tstart, tlen; /* the text value's bytes in the input */
	int nomem;        /* an allocation failed: every append to the buffers
	                     above and every id array names it; it stays set */
};

/*
 * Scan the JSON object at s[0..n) (s[0] is '{').  text_keys: the names of
 * a completion text member, NULL-terminated (NULL: none).  HM_REC_OK when
 * the record is read: key >= 0 (ids) or is_text; HM_REC_SLOW otherwise
 * (anything the general reader must look at, errors included), and
 * when an allocation failed: that is r->nomem, which the caller reads
 * (hm__rec_oom) to tell it from the rest.
 */
int hm__rec_scan(struct hm_rec *r, const char *s, size_t n,
    const char *const *text_keys);
int hm__rec_oom(const struct hm_rec *r);

/*
 * Nonzero when the last hm_record_read took the record in one pass and no
 * member of it names a server's response or stream shape: then it is a
 * log record and nothing else (server_shapes.c looks at the others).
 */
int hm__record_plain(const hm_record *r);

/*
 * The name (as JSON spells it, len bytes) of the first member of the last
 * record read that came twice or more and was carried as given (not the
 * member read: that is an error), or NULL.  Valid until the next read.
 */
const char *hm__record_dup(const hm_record *r, size_t *len);

/*
 * hm_record_read for a plain log record in the one pass only: HM_EINPUT
 * for anything else (a server member, a form the general reader must
 * read), without trying the general reader.  HM_ENOMEM.
 */
hm_status hm__record_read_plain(hm_record *r, const char *buf, size_t len);
void hm__rec_free(struct hm_rec *r);

/*
 * Whether the JSON number text s[0..n) (NULL: none) spells an id as every
 * id reader takes it (hm_idscan, the record readers, the server shapes):
 * decimal digits, no sign, fraction, exponent or leading zero.  `-0`,
 * `2.9e2`, `290.0`, `0290` are no ids.
 */
static inline int
hm__id_spelled(const char *s, size_t n)
{
	size_t i;

	if (!s || !n || (n > 1 && s[0] == '0'))
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}
/* The message of an id that is not one: "not a token id: '-0' (an id is ...)". */
#define HM_ID_SPELLING "(an id is a whole number without sign, fraction, exponent or leading zero)"

/*
 * The JSON array of plain decimal ids (up to 2^32-1) at s[0] == '[' into
 * *ids (emptied first), *end past its ']'; 0 when it is anything else,
 * or out of memory: *nomem set, ids's owner's flag.
 */
int hm__rec_id_array_to(int *nomem, const char *s, size_t n, size_t *end, hm_ids *ids);

/*
 * Nonzero when s[0..n) is object members (no braces) in the carried
 * form; then each(key, klen, value, vlen) is called per member, in
 * place, the key undecoded (it holds no escape when it could name
 * anything but a control character).
 */
int hm__rec_members(const char *s, size_t n,
    int (*each)(void *, const char *, size_t, const char *, size_t), void *arg);

/*
 * json_carry.c: write JSON text that a reader took into the carried form,
 * a token at a time.  hm__carry_value_to: the value at s[*pi] (blanks before
 * it skipped), *pi past it.  hm__carry_members_to: the members from s[*pi]
 * up to the end or a closing '}' (*pi is left there), ',' between them;
 * keep(arg, key, klen, value, vlen), when not NULL, sees each member as
 * written into out and takes it back out by returning 0.
 *
 * The _to forms name the flag of out's owner (nomem), as every append
 * does, and return HM_OK, HM_EINPUT at a token no reader takes (nothing
 * is checked past tokens: brackets are as the text has them), or
 * HM_ENOMEM with *nomem set.
 */
hm_status hm__carry_value_to(int *nomem, hm_buf *out, const char *s, size_t n,
    size_t *pi);
hm_status hm__carry_members_to(int *nomem, hm_buf *out, const char *s, size_t n,
    size_t *pi, int (*keep)(void *, const char *, size_t, const char *, size_t),
    void *arg);
/*
 * The members of the object s[0..n) (blanks, then '{') onto out without
 * the braces, but the first member named drop (NULL: none); when id is
 * not NULL, the first "id" member's value onto it and *has_id set.  For
 * text a reader has taken as an object.  _to: out and id are one
 * owner's (nomem), as above; without (for the unit tests, buffers that
 * stand alone): 1, or 0 for either failure, told apart by out->oom.
 */
hm_status hm__carry_object_to(int *nomem, hm_buf *out, const char *s, size_t n,
    const char *drop, hm_buf *id, int *has_id);
int hm__carry_object(hm_buf *out, const char *s, size_t n, const char *drop, hm_buf *id,
    int *has_id);

/* Word-at-a-time decimal digits, shared with the plain id reader. */
#define HM_ONES UINT64_C(0x0101010101010101)

/* The value of the hex digit c, or -1. */
static inline int
hm__hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * The `\uXXXX` escape whose hex digits start s[0..n) (json_carry.c): its
 * code point in *cp, a surrogate pair read whole.  The bytes it takes (4,
 * or 10 with a pair's second half), or 0 for no four hex digits or a
 * lone surrogate (an error in every reader).
 */
size_t hm__json_uescape(const char *s, size_t n, uint32_t *cp);

/* s[0..8) as a little-endian word: byte 0 in the low bits on any host. */
static inline uint64_t
hm_le64(const unsigned char *s)
{
	return (uint64_t)s[0] | (uint64_t)s[1] << 8 | (uint64_t)s[2] << 16 |
	    (uint64_t)s[3] << 24 | (uint64_t)s[4] << 32 | (uint64_t)s[5] << 40 |
	    (uint64_t)s[6] << 48 | (uint64_t)s[7] << 56;
}

/* The first byte (low byte first) whose high bit is set in nz (not 0). */
static inline unsigned
hm_low_byte(uint64_t nz)
{
	unsigned k = 0;

#ifdef __GNUC__
	k = (unsigned)__builtin_ctzll(nz) / 8;
#else
	while (!(nz & 0x80)) {
		nz >>= 8;
		k++;
	}
#endif
	return k;
}

/*
 * The bytes of x - '0' in each byte that are no digit, as their high bits.
 * Less '0', a digit is a byte below 10: one of 10 or more (or one that
 * wrapped round) has its high bit set, before or after adding 0x76.  The
 * borrows and carries of other bytes go upwards only, so the lowest byte
 * flagged is the first that is no digit.
 */
static inline uint64_t
hm_nondigits(uint64_t a)
{
	return ((a + HM_ONES * 0x76) | a) & HM_ONES * 0x80;
}

/* How many of the bytes of x (low byte first) lead with ASCII digits. */
static inline unsigned
hm_lead_digits(uint64_t x)
{
	uint64_t nz = hm_nondigits(x - HM_ONES * '0');

	return nz ? hm_low_byte(nz) : 8;
}

/* The value of the k (1..7) digits at the low end of a = x - '0' * HM_ONES. */
static inline uint32_t
hm_digits_less0(uint64_t a, unsigned k)
{
	/* Move them to the high end, most significant first, zeros below. */
	uint64_t d = a << (64 - 8 * k);

	d = (d * 10 + (d >> 8)) & UINT64_C(0x00FF00FF00FF00FF);
	d = (d * 100 + (d >> 16)) & UINT64_C(0x0000FFFF0000FFFF);
	d = (d * 10000 + (d >> 32)) & UINT64_C(0xFFFFFFFF);
	return (uint32_t)d;
}

/* The value of the k (1..7) digits at the low end of x. */
static inline uint32_t
hm_digits_value(uint64_t x, unsigned k)
{
	return hm_digits_less0(x - HM_ONES * '0', k);
}

#endif
