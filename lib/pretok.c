/*
 * pretok.c - the o200k split pattern, without a regex engine.
 *
 * The pattern is seven alternatives tried in order at each position (spec
 * §1.3).  Each function below matches one alternative the way a
 * backtracking engine would: greedy runs, then giving characters back only
 * where the pattern needs it.  Where that backtracking has a closed form
 * (the last lower-case-like character of an upper-case run, the last line
 * break of a whitespace run, all but the last whitespace before a word) it
 * is computed directly, so every alternative is linear in its match.
 */
#include <stdint.h>

#include "pretok_int.h"
#include "unicode_int.h"

/* Classes of the pattern, as bits, per character. */
enum {
	C_UP = 1 << 0,    /* [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] */
	C_LO = 1 << 1,    /* [\p{Ll}\p{Lm}\p{Lo}\p{M}] */
	C_L = 1 << 2,     /* \p{L} */
	C_N = 1 << 3,     /* \p{N} */
	C_WS = 1 << 4,    /* \s */
	C_CRLF = 1 << 5,  /* \r or \n */
};

static unsigned char ascii_cls[128];
static int ascii_ready;

static unsigned
map_class(uint32_t cp)
{
	unsigned u = hm_uclass(cp), c = 0;

	if (u & HM_UC_UPPERISH)
		c |= C_UP;
	if (u & HM_UC_LOWERISH)
		c |= C_LO;
	if (u & HM_UC_L)
		c |= C_L;
	if (u & HM_UC_N)
		c |= C_N;
	if (u & HM_UC_WS)
		c |= C_WS;
	if (cp == '\r' || cp == '\n')
		c |= C_CRLF;
	return c;
}

static void
init_ascii(void)
{
	uint32_t c;

	for (c = 0; c < 128; c++)
		ascii_cls[c] = (unsigned char)map_class(c);
	ascii_ready = 1;
}

/* Class of the character at s[i] and, in *len, its byte length. */
static inline unsigned
cls_at(const unsigned char *s, size_t i, size_t *len)
{
	unsigned c = s[i];
	uint32_t cp;

	if (c < 0x80) {
		*len = 1;
		return ascii_cls[c];
	}
	if (c < 0xE0) {
		*len = 2;
		cp = (uint32_t)(c & 0x1F) << 6 | (s[i + 1] & 0x3F);
	} else if (c < 0xF0) {
		*len = 3;
		cp = (uint32_t)(c & 0x0F) << 12 | (uint32_t)(s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F);
	} else {
		*len = 4;
		cp = (uint32_t)(c & 0x07) << 18 | (uint32_t)(s[i + 1] & 0x3F) << 12 |
		     (uint32_t)(s[i + 2] & 0x3F) << 6 | (s[i + 3] & 0x3F);
	}
	return map_class(cp);
}

/* Not \r, \n, a letter or a number: the optional first character of a word. */
#define IS_PREFIX(c) (!((c) & (C_CRLF | C_L | C_N)))
/* Not whitespace, a letter or a number: punctuation, symbols, marks ... */
#define IS_PUNCT(c) (!((c) & (C_WS | C_L | C_N)))

static int
fold_eq(const unsigned char *s, size_t n, size_t i, char lower)
{
	if (i >= n)
		return 0;
	if (s[i] == (unsigned char)lower || s[i] == (unsigned char)(lower - 32))
		return 1;
	/* (?i) in Unicode mode: 's' also matches U+017F LATIN SMALL LETTER LONG S */
	return lower == 's' && i + 1 < n && s[i] == 0xC5 && s[i + 1] == 0xBF;
}

/* End of an optional contraction (?i:'s|'t|'re|'ve|'m|'ll|'d) at i. */
static size_t
contraction(const unsigned char *s, size_t n, size_t i)
{
	if (i >= n || s[i] != '\'')
		return i;
	if (fold_eq(s, n, i + 1, 's'))
		return i + 1 + (s[i + 1] == 0xC5 ? 2 : 1);
	if (fold_eq(s, n, i + 1, 't') || fold_eq(s, n, i + 1, 'm') || fold_eq(s, n, i + 1, 'd'))
		return i + 2;
	if ((fold_eq(s, n, i + 1, 'r') || fold_eq(s, n, i + 1, 'v')) && fold_eq(s, n, i + 2, 'e'))
		return i + 3;
	if (fold_eq(s, n, i + 1, 'l') && fold_eq(s, n, i + 2, 'l'))
		return i + 3;
	return i;
}

/* End of the run of characters having any of `bits` from i. */
static size_t
run_of(const unsigned char *s, size_t n, size_t i, unsigned bits)
{
	size_t len;

	while (i < n && (cls_at(s, i, &len) & bits))
		i += len;
	return i;
}

/*
 * Alternative 1 after its optional prefix: [UP]*[LO]+ from s.  Greedy UP*
 * takes the whole run; if the next character is not LO, backtracking ends
 * the match right after the last LO character inside the run.  Returns
 * the end, or 0 for no match (a match never ends at 0).
 */
static size_t
word_lower(const unsigned char *s, size_t n, size_t i)
{
	size_t e = i, len, last = 0;
	unsigned c;

	while (e < n && ((c = cls_at(s, e, &len)) & C_UP)) {
		e += len;
		if (c & C_LO)
			last = e;
	}
	if (e < n && (cls_at(s, e, &len) & C_LO))
		return run_of(s, n, e, C_LO);
	return last;
}

/* Alternative 2 after its prefix: [UP]+[LO]* from s; 0 for no match. */
static size_t
word_upper(const unsigned char *s, size_t n, size_t i)
{
	size_t e = run_of(s, n, i, C_UP);

	if (e == i)
		return 0;
	return run_of(s, n, e, C_LO);
}

size_t
hm__pretok_next(const unsigned char *s, size_t n, size_t i)
{
	size_t len, len2, e, k;
	unsigned c, c2;

	if (!ascii_ready)
		init_ascii();
	c = cls_at(s, i, &len);

	/* 1 and 2: words, with at most one leading non-letter, non-number. */
	if (IS_PREFIX(c) && i + len < n && (e = word_lower(s, n, i + len)))
		return contraction(s, n, e);
	if ((e = word_lower(s, n, i)))
		return contraction(s, n, e);
	if (IS_PREFIX(c) && i + len < n && (e = word_upper(s, n, i + len)))
		return contraction(s, n, e);
	if ((e = word_upper(s, n, i)))
		return contraction(s, n, e);

	/* 3: one to three numbers. */
	if (c & C_N) {
		e = i + len;
		for (k = 1; k < 3 && e < n && (cls_at(s, e, &len2) & C_N); k++)
			e += len2;
		return e;
	}

	/* 4: ` ?[^\s\p{L}\p{N}]+[\r\n/]*` */
	e = i;
	if (s[i] == ' ' && i + 1 < n && IS_PUNCT(cls_at(s, i + 1, &len2)))
		e = i + 1;
	if (IS_PUNCT(cls_at(s, e, &len2))) {
		while (e < n && IS_PUNCT(c2 = cls_at(s, e, &len2)))
			e += len2;
		while (e < n && (s[e] == '\r' || s[e] == '\n' || s[e] == '/'))
			e++;
		return e;
	}

	/* 5, 6, 7: whitespace.  Here c is whitespace. */
	{
		size_t last_nl = 0, prev = i;

		e = i;
		while (e < n && ((c2 = cls_at(s, e, &len2)) & C_WS)) {
			if (c2 & C_CRLF)
				last_nl = e + len2;
			prev = e;
			e += len2;
		}
		if (last_nl)
			return last_nl;                 /* \s*[\r\n]+ */
		if (e == n || prev == i)
			return e;                       /* \s+(?!\S) at the end, or \s+ */
		return prev;                            /* all but the last */
	}
}
