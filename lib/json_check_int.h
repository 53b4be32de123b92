/*
 * json_check_int.h - is a stream of bytes one complete JSON value?
 *
 * A tool call is whole when it ended with <|call|>, or when its arguments
 * are one complete JSON value: the parser (a stop assumed at the end of
 * a stream) and the writers (a completion's stop reason) ask this of
 * content that arrives in pieces, so the check is a small push-down
 * machine fed any chunking, with no allocation.  It validates the grammar
 * (RFC 8259: structure, strings and their escapes, numbers, literals), not
 * UTF-8, which the parser has already made whole.
 *
 *   struct hm_jcheck j;
 *   hm__jcheck_init(&j);
 *   hm__jcheck_feed(&j, "{\"a\":", 5);
 *   hm__jcheck_feed(&j, "1}", 2);
 *   hm__jcheck_whole(&j);     // 1
 */
#ifndef HM_JSON_CHECK_INT_H
#define HM_JSON_CHECK_INT_H

#include <stddef.h>
#include <stdint.h>

/* Nesting deeper than this is not taken for arguments. */
#define HM_JCHECK_DEPTH 128

struct hm_jcheck {
	unsigned char st;    /* where the machine is (json_check.c's J_*) */
	unsigned char lit;   /* a literal: bytes of it matched so far */
	unsigned char which; /* ... which literal (0 true, 1 false, 2 null); \u digits left */
	unsigned char top;   /* the value is at top level (no container open) */
	uint16_t depth;      /* containers open */
	uint8_t stack[HM_JCHECK_DEPTH / 8]; /* one bit a level: 1 object, 0 array */
	size_t end;          /* bytes fed when the top-level value ended */
	size_t fed;          /* bytes fed so far */
};

void hm__jcheck_init(struct hm_jcheck *j);

/* json_check.c's state inside a string, for the inline test below. */
#define HM__JCHECK_STR 6

/*
 * Feed s[0..n) when it lies inside a string and holds no quote, backslash
 * or control byte (most tokens of arguments): 1 done, 0 when
 * hm__jcheck_feed must look.
 */
static inline int
hm__jcheck_plain(struct hm_jcheck *j, const char *s, size_t n)
{
	size_t i;

	if (j->st != HM__JCHECK_STR)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\' || c < 0x20)
			return 0;
	}
	j->fed += n;
	return 1;
}
/*
 * Feed s[0..n).  Returns what follows the value: the number of bytes of
 * s taken before a byte that cannot continue it was met (n when all
 * could; then nothing is known to be wrong yet).
 */
size_t hm__jcheck_feed(struct hm_jcheck *j, const char *s, size_t n);
/* 1 when what was fed is one complete value, blanks around it allowed. */
int hm__jcheck_whole(const struct hm_jcheck *j);
/* 1 once a complete top-level value has been read (blanks may follow). */
int hm__jcheck_done(const struct hm_jcheck *j);
/* 1 once something that is not one JSON value was fed. */
int hm__jcheck_bad(const struct hm_jcheck *j);
/*
 * After a whole value, a byte that cannot follow it made j bad: take that
 * byte and what came after it back (j is as the whole value and the
 * blanks after it left it).  0 when j did not go bad so.
 */
int hm__jcheck_unfeed_tail(struct hm_jcheck *j);
/*
 * Whether a content type names JSON: `json`, `<|constrain|>json`,
 * `application/json`, `json; ...` (case aside), ct[0..n).
 */
int hm__ctype_is_json(const char *ct, size_t n);

#endif
