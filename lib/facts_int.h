/*
 * facts_int.h - the small facts of the format that several modules need,
 * each stated here once: the role names, the channel names, the members
 * that carry token ids or text in a record, Unicode whitespace, the bytes
 * of a plain recipient, and UTF-8 well-formedness.  The tables are
 * defined in names.c, beside the public enums' names.
 */
#ifndef HM_FACTS_INT_H
#define HM_FACTS_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------- roles */

/* The roles as Harmony writes them, indexed by hm_role. */
#define HM__NROLES 5
extern const char *const hm__role_names[HM__NROLES];

/* The hm_role s[0..n) names exactly, or -1. */
int hm__role_index(const char *s, size_t n);

/* ---------------------------------------------------------------- channels */

/* The channels the format names, in this order. */
enum { HM__CHAN_ANALYSIS, HM__CHAN_COMMENTARY, HM__CHAN_FINAL, HM__NCHANS };
extern const char *const hm__chan_names[HM__NCHANS];

/* The HM__CHAN_* s[0..n) names exactly, or -1. */
static inline int
hm__chan_index(const char *s, size_t n)
{
	if (n == 8 && !memcmp(s, "analysis", 8))
		return HM__CHAN_ANALYSIS;
	if (n == 10 && !memcmp(s, "commentary", 10))
		return HM__CHAN_COMMENTARY;
	if (n == 5 && !memcmp(s, "final", 5))
		return HM__CHAN_FINAL;
	return -1;
}

/* ---------------------------------------------------------------- record members */

/*
 * The members under which a record carries its token ids, the first
 * present one winning (a log line, a server's response), and those that
 * carry its text instead (NULL-terminated), in the same order of choice.
 */
#define HM__NID_KEYS 4
extern const char *const hm__id_keys[HM__NID_KEYS];
extern const char *const hm__text_keys[];

/* ---------------------------------------------------------------- characters */

/*
 * Unicode's White_Space property (25 code points), which is also Rust's
 * char::is_whitespace: the reference trims and splits headers with it.
 * test_unicode.c checks it against the generated tables' HM_UC_WS.
 */
static inline int
hm__is_uws(uint32_t c)
{
	return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 ||
	    c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
	    c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
	    c == 0x3000;
}

/*
 * A byte of a plain recipient: ASCII letters, digits and `_.-:/`
 * (`functions.get_weather`, `browser.search`, `mcp:server/tool`).  A
 * recipient with any other byte (a blank, a non-ASCII letter) is read as
 * written and earns F16; text after a stripped header is taken for a
 * recipient only as far as these bytes go.  The spec validates nothing;
 * this is the parser's own line.  test_names.c pins it.
 */
static inline int
hm__is_rcpt_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
	    c == ':' || c == '/';
}

/*
 * UTF-8 well-formedness, Unicode's table 3-7: for a lead byte c >= 0x80,
 * the number of bytes that follow it (1..3) with the range [*lo, *hi] of
 * the first of them (the others are 0x80..0xBF), or 0 for a byte that
 * begins no well-formed sequence (a continuation byte, C0, C1, F5..FF).
 * No overlong form, surrogate or code point past U+10FFFF passes.
 */
static inline unsigned
hm__utf8_lead(unsigned c, unsigned *lo, unsigned *hi)
{
	*lo = 0x80;
	*hi = 0xBF;
	if (c >= 0xC2 && c <= 0xDF)
		return 1;
	if (c >= 0xE0 && c <= 0xEF) {
		if (c == 0xE0)
			*lo = 0xA0;
		else if (c == 0xED)
			*hi = 0x9F;
		return 2;
	}
	if (c >= 0xF0 && c <= 0xF4) {
		if (c == 0xF0)
			*lo = 0x90;
		else if (c == 0xF4)
			*hi = 0x8F;
		return 3;
	}
	return 0;
}

/* The length of the well-formed sequence at u[0..n) (u[0] >= 0x80), or 0. */
static inline size_t
hm__utf8_len(const unsigned char *u, size_t n)
{
	unsigned lo, hi, k = hm__utf8_lead(u[0], &lo, &hi), j;

	if (!k || n <= k || u[1] < lo || u[1] > hi)
		return 0;
	for (j = 2; j <= k; j++)
		if (u[j] < 0x80 || u[j] > 0xBF)
			return 0;
	return k + 1;
}

#endif
