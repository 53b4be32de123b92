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
 *
 * In front of that general scanner, a fast path handles pieces that ASCII
 * alone decides (most of them), a second (x_piece) the others, reading
 * each character's class once and leaving to the general scanner only
 * whitespace runs and rare four-byte characters; hm__pretok_cut finds
 * where a text may be cut for streaming.  test_tokenizer compares both
 * paths with the general scanner.
 */
#include <stdint.h>
#include <string.h>

#include "pretok_int.h"
#include "unicode_int.h"
#include "vocab_int.h"

/* Classes of the pattern, as bits, per character. */
enum {
	C_UP = 1 << 0,    /* [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] */
	C_LO = 1 << 1,    /* [\p{Ll}\p{Lm}\p{Lo}\p{M}] */
	C_L = 1 << 2,     /* \p{L} */
	C_N = 1 << 3,     /* \p{N} */
	C_WS = 1 << 4,    /* \s */
	C_CRLF = 1 << 5,  /* \r or \n */
};

/*
 * The fast path: most pieces are made of ASCII alone, where the classes
 * are simple (upper and lower case letters are disjoint, no marks) and each
 * alternative reduces to a run or two.  Byte classes, as bits:
 */
enum {
	F_UP = 1, F_LO = 2, F_DIG = 4, F_WS = 8, F_NL = 16, F_PUNCT = 32, F_HI = 64,
	F_PRE = 128,    /* may be the prefix of a word: not \r, \n, a letter or a digit */
};
#define FCLS(c) ((c) >= 0x80 ? F_HI : (c) >= 'A' && (c) <= 'Z' ? F_UP : \
	(c) >= 'a' && (c) <= 'z' ? F_LO : (c) >= '0' && (c) <= '9' ? F_DIG : \
	(c) == '\r' || (c) == '\n' ? F_WS | F_NL : (c) == ' ' || ((c) >= 9 && (c) <= 13) ? F_WS | F_PRE : \
	F_PUNCT | F_PRE)
#define FCLS4(c) FCLS(c), FCLS((c) + 1), FCLS((c) + 2), FCLS((c) + 3)
#define FCLS16(c) FCLS4(c), FCLS4((c) + 4), FCLS4((c) + 8), FCLS4((c) + 12)
#define FCLS64(c) FCLS16(c), FCLS16((c) + 16), FCLS16((c) + 32), FCLS16((c) + 48)
static const unsigned char fcls[256] = { FCLS64(0), FCLS64(64), FCLS64(128), FCLS64(192) };

/* The pattern's classes of the ASCII characters, from their byte classes. */
#define ACLS(c) (FCLS(c) & F_UP ? C_UP | C_L : FCLS(c) & F_LO ? C_LO | C_L : \
	FCLS(c) & F_DIG ? C_N : FCLS(c) & F_NL ? C_WS | C_CRLF : FCLS(c) & F_WS ? C_WS : 0)
#define ACLS4(c) ACLS(c), ACLS((c) + 1), ACLS((c) + 2), ACLS((c) + 3)
#define ACLS16(c) ACLS4(c), ACLS4((c) + 4), ACLS4((c) + 8), ACLS4((c) + 12)
#define ACLS64(c) ACLS16(c), ACLS16((c) + 16), ACLS16((c) + 32), ACLS16((c) + 48)
static const unsigned char ascii_cls[128] = { ACLS64(0), ACLS64(64) };

/* The pattern's classes of a Unicode class value u (an hm__uclass() result). */
#define UMAP(u) (((u) & HM_UC_UPPERISH ? C_UP : 0) | ((u) & HM_UC_LOWERISH ? C_LO : 0) | \
	((u) & HM_UC_L ? C_L : 0) | ((u) & HM_UC_N ? C_N : 0) | ((u) & HM_UC_WS ? C_WS : 0))
#define UMAP4(u) UMAP(u), UMAP((u) + 1), UMAP((u) + 2), UMAP((u) + 3)
#define UMAP16(u) UMAP4(u), UMAP4((u) + 4), UMAP4((u) + 8), UMAP4((u) + 12)
#define UMAP64(u) UMAP16(u), UMAP16((u) + 16), UMAP16((u) + 32), UMAP16((u) + 48)
static const unsigned char umap[256] = { UMAP64(0), UMAP64(64), UMAP64(128), UMAP64(192) };

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
		return umap[hm__uclass16[(c & 0x1F) << 6 | (s[i + 1] & 0x3F)]];
	}
	if (c < 0xF0) {
		*len = 3;
		return umap[hm__uclass16[(c & 0x0F) << 12 | (s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F)]];
	}
	*len = 4;
	cp = (uint32_t)(c & 0x07) << 18 | (uint32_t)(s[i + 1] & 0x3F) << 12 |
	     (uint32_t)(s[i + 2] & 0x3F) << 6 | (s[i + 3] & 0x3F);
	return umap[hm__uclass(cp) & 0xff];
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

/*
 * Runs of letters eight bytes at a time: a word's 0x80 bits mark its bytes
 * in [lo, hi] (ASCII), and the run is the low bytes so marked.
 */
#define ONES 0x0101010101010101ull
#define HIGH 0x8080808080808080ull

static inline uint64_t
bytes_in(uint64_t w, unsigned lo, unsigned hi)
{
	uint64_t x7 = w & ~HIGH;

	return (x7 + ONES * (0x80 - lo)) & ~(x7 + ONES * (0x7f - hi)) & ~w & HIGH;
}

/* How many low bytes of w are marked in m (0..8). */
static inline unsigned
marked_run(uint64_t m)
{
	uint64_t z = ~m & HIGH;

	if (!z)
		return 8;
	return hm__low_bit(z) >> 3;
}

/* The end of the run of ASCII bytes in [lo, hi] from e. */
static inline size_t
ascii_run(const unsigned char *s, size_t n, size_t e, unsigned lo, unsigned hi)
{
	/* an empty run (the capitals of a word in lower case) at the cost of a test */
	if (e < n && s[e] - lo > hi - lo)
		return e;
	while (e + 8 <= n) {
		unsigned r = marked_run(bytes_in(hm__ld64(s + e), lo, hi));

		e += r;
		if (r < 8)
			return e;
	}
	while (e < n && s[e] >= lo && s[e] <= hi)
		e++;
	return e;
}

static size_t x_piece(const unsigned char *s, size_t n, size_t i);

/*
 * The end of the word from e (the prefix, if any, before e) when
 * ascii_piece's one step of eight bytes does not find it, as its general
 * loops.  Out of line: their registers would be saved on every word.
 */
#ifdef __GNUC__
__attribute__((noinline))
#endif
static size_t
ascii_word(const unsigned char *s, size_t n, size_t i, size_t e)
{
	e = ascii_run(s, n, e, 'A', 'Z');
	e = ascii_run(s, n, e, 'a', 'z');
	if (e < n && fcls[s[e]] & F_HI)
		return x_piece(s, n, i);
	return e < n && s[e] == '\'' ? contraction(s, n, e) : e;
}

/*
 * The end of the piece at s[i] when s[i] is ASCII (c1 the byte class of
 * s[i + 1], ASCII too, or 0 at the end) and the match is decided
 * by ASCII characters alone; when a non-ASCII character could change it,
 * x_piece decides.  Mirrors the alternatives below.  Out of line, and
 * called as hm__pretok_next's last act, so that pieces which do not come
 * here do not pay for the registers this saves.
 */
#ifdef __GNUC__
__attribute__((noinline))
#endif
static size_t
ascii_piece(const unsigned char *s, size_t n, size_t i, unsigned c1)
{
	unsigned c = fcls[s[i]];
	/* a letter, or a prefix and a letter: computed without branches */
	unsigned prefix = c >> 7 & ((c1 & (F_UP | F_LO)) != 0);
	size_t e;

	/* 1 and 2: a word, maybe after its prefix */
	if ((c & (F_UP | F_LO)) | prefix) {
		e = i + prefix;
		if (e + 8 <= n) {
			/*
			 * [A-Z]*[a-z]* in the eight bytes from e at once: the
			 * letters of either case as one range (0x20 set), the
			 * capitals those with 0x20 clear; the word ends at the
			 * first byte not lower case at or after the first not
			 * upper case.  A longer word goes on below.
			 */
			uint64_t w = hm__ld64(s + e), let = bytes_in(w | ONES * 0x20, 'a', 'z');
			uint64_t up = let & ~(w << 2), nu = up ^ HIGH;
			uint64_t nl = ((let & w << 2) ^ HIGH) & (0 - (nu & (0 - nu)));

			if (nl) {
				e += hm__low_bit(nl) >> 3;
				if (s[e] >= 0x80)
					return x_piece(s, n, i);
				return s[e] == '\'' ? contraction(s, n, e) : e;
			}
		}
		return ascii_word(s, n, i, e);
	}

	/* 3: one to three digits */
	if (c & F_DIG) {
		for (e = i + 1; e < n && e < i + 3 && fcls[s[e]] & F_DIG; e++)
			;
		return e < n && e < i + 3 && fcls[s[e]] & F_HI ? x_piece(s, n, i) : e;
	}

	/* 4: ` ?[^\s\p{L}\p{N}]+[\r\n/]*` */
	e = i;
	if (s[i] == ' ' && c1 & F_PUNCT)
		e = i + 1;
	if (fcls[s[e]] & F_PUNCT) {
		while (e < n && fcls[s[e]] & F_PUNCT)
			e++;
		if (e < n && fcls[s[e]] & F_HI)
			return x_piece(s, n, i);
		while (e < n && (s[e] == '\r' || s[e] == '\n' || s[e] == '/'))
			e++;
		return e;
	}

	/* 5, 6, 7: whitespace, as in the general scanner */
	{
		size_t last_nl = 0;

		for (e = i; e < n && fcls[s[e]] & F_WS; e++)
			if (fcls[s[e]] & F_NL)
				last_nl = e + 1;
		if (e < n && fcls[s[e]] & F_HI)
			return x_piece(s, n, i);
		if (last_nl)
			return last_nl;
		if (e == n || e == i + 1)
			return e;
		return e - 1;
	}
}

/*
 * The pieces ASCII does not decide (a space before an Arabic or Cyrillic
 * word, a run of emoji ...) went to the general scanner, which asks each
 * alternative in turn and so reads a character's class up to four times
 * (word_lower, word_upper, the punctuation loop) at two loads each.  What
 * follows reads it once, as the hm__uclass bits themselves (the pattern's
 * classes are unions of them, each a single test) with X_CRLF above them
 * for \r and \n, and decides from the first one or two characters which
 * alternative can match.
 */
#define X_CRLF 0x100u
/*
 * A four-byte character outside U+1F000..U+1FFFF: x_piece leaves the piece
 * to the general scanner rather than call hm__uclass, a call that made
 * every piece save and restore six registers for the sake of rare ones.
 */
#define X_SLOW 0x200u
/* x_piece's helpers: a call of their own cost more than their loops, per piece */
#ifdef __GNUC__
#define X_INLINE __attribute__((always_inline)) inline
#else
#define X_INLINE inline
#endif
#define X_UP HM_UC_UPPERISH
#define X_LO HM_UC_LOWERISH
#define X_PREFIX(c) (!((c) & (X_CRLF | HM_UC_L | HM_UC_N)))
#define X_PUNCT(c) (!((c) & (HM_UC_WS | HM_UC_L | HM_UC_N)))

#define XCLS(c) (FCLS(c) & F_UP ? HM_UC_LU : FCLS(c) & F_LO ? HM_UC_LL : \
	FCLS(c) & F_DIG ? HM_UC_N : FCLS(c) & F_NL ? HM_UC_WS | X_CRLF : FCLS(c) & F_WS ? HM_UC_WS : 0)
#define XCLS4(c) XCLS(c), XCLS((c) + 1), XCLS((c) + 2), XCLS((c) + 3)
#define XCLS16(c) XCLS4(c), XCLS4((c) + 4), XCLS4((c) + 8), XCLS4((c) + 12)
#define XCLS64(c) XCLS16(c), XCLS16((c) + 16), XCLS16((c) + 32), XCLS16((c) + 48)
static const uint16_t ascii_x[128] = { XCLS64(0), XCLS64(64) };

/*
 * hm__uclass16's class of the two-byte (cls2) or three-byte (cls3)
 * character at q, whose lead q[0] the caller has read as b, by its code
 * point without masking: in valid UTF-8 the lead's and the continuations'
 * marker bits are known, and come off as one constant (0xC0 << 6 | 0x80;
 * 0xE0 << 12 | 0x80 << 6 | 0x80).
 */
static X_INLINE unsigned
cls2(unsigned b, const unsigned char *q)
{
	return hm__uclass16[(b << 6) + q[1] - 0x3080u];
}

static X_INLINE unsigned
cls3(unsigned b, const unsigned char *q)
{
	return hm__uclass16[(b << 12) + ((unsigned)q[1] << 6) + q[2] - 0xE2080u];
}

/*
 * The class of the character at s[i] as above and, in *len, its length;
 * X_SLOW for a four-byte character outside U+1F000..U+1FFFF.
 */
static X_INLINE unsigned
xcls_at(const unsigned char *s, size_t i, size_t *len)
{
	unsigned c = s[i];

	if (c < 0x80) {
		*len = 1;
		return ascii_x[c];
	}
	if (c < 0xE0) {
		*len = 2;
		return cls2(c, s + i);
	}
	if (c < 0xF0) {
		*len = 3;
		return cls3(c, s + i);
	}
	*len = 4;
	if (c == 0xF0 && s[i + 1] == 0x9F)     /* U+1F000 .. U+1FFFF */
		return hm__uclass_1f(((unsigned)s[i + 2] << 6) + s[i + 3] - 0x2080u);
	return X_SLOW;
}

/*
 * The rest of a run of alternative 4 from e (the run's first character
 * taken), then its [\r\n/]*; the piece is s[i..).  Out of line, for
 * x_piece's two ways here (a space and a symbol, which is most of them
 * in emoji text, and the general one), whose registers it would add to.
 */
#ifdef __GNUC__
__attribute__((noinline))
#endif
static size_t
x_symbols(const unsigned char *s, size_t n, size_t i, size_t e)
{
	size_t len;
	unsigned c;

	for (; e < n; e += len) {
		c = xcls_at(s, e, &len);
		if (!X_PUNCT(c) || c & X_SLOW)
			break;
	}
	if (e < n && c & X_SLOW)
		return hm__pretok_general(s, n, i);
	while (e < n && (s[e] == '\r' || s[e] == '\n' || s[e] == '/'))
		e++;
	return e;
}

/* Characters that are both UP and LO: the run of UP has no LO among them. */
#define X_BOTH (HM_UC_LM | HM_UC_LO | HM_UC_M)

/*
 * The end of the run of characters having any of `bits` from e, where the
 * character at e (class c, length len) has; the class and length of the
 * character after the run in *c and *len (0 at the end of the text; X_SLOW
 * stops a run).
 */
static X_INLINE size_t
x_run(const unsigned char *s, size_t n, size_t e, unsigned bits, unsigned *c, size_t *len)
{
	size_t l;
	unsigned u, b;

	/*
	 * Two- and three-byte characters (a script's letters) each with its
	 * own step, so that a run of them costs a load of the class and no
	 * length to carry.  Three-byte characters (CJK, Indic) stay in a loop
	 * of their own, without the test for two bytes, which takes the ASCII
	 * character that mostly ends their run.
	 */
	for (e += *len; e < n;) {
		b = s[e];
		if (b - 0xC0u < 0x20u) {
			u = cls2(b, s + e);
			if (!(u & bits)) {
				l = 2;
				goto out;
			}
			e += 2;
		} else if (b - 0xE0u < 0x10u) {
			for (;;) {
				u = cls3(b, s + e);
				if (!(u & bits)) {
					l = 3;
					goto out;
				}
				e += 3;
				if (e >= n)
					goto end;
				b = s[e];
				if (b - 0xE0u >= 0x10u)
					break;
			}
			if (b < 0x80) {
				u = ascii_x[b];
				if (!(u & bits)) {
					l = 1;
					goto out;
				}
				e++;
			}
		} else {
			u = xcls_at(s, e, &l);
			if (!(u & bits))
				goto out;
			e += l;
		}
	}
end:
	*c = 0;
	return e;
out:
	*c = u;
	*len = l;
	return e;
}

/*
 * Alternatives 1 and 2 after the prefix, at p whose class c and length len
 * are known: word_lower(p), or when that fails word_upper(p), in one pass.
 * word_lower fails only when the run of UP from p holds no LO character
 * and is not followed by one; word_upper is then that run.  c is UP or LO;
 * 0 when an X_SLOW character ends a run (its class would decide).
 */
static X_INLINE size_t
x_word(const unsigned char *s, size_t n, size_t p, unsigned c, size_t len)
{
	size_t e = p, last = 0;

	while (c & X_UP) {
		if (c & X_BOTH) {
			e = x_run(s, n, e, X_BOTH, &c, &len);
			last = e;
		} else {
			e = x_run(s, n, e, 0, &c, &len);
		}
	}
	if (c & X_LO)
		e = x_run(s, n, e, X_LO, &c, &len);
	else if (last)
		e = last;
	return c & X_SLOW ? 0 : e;
}

/*
 * The end of the run of two-byte (x_run2) or three-byte (x_run3)
 * characters having any of `bits` from e: a word's letters in Arabic,
 * Cyrillic, Devanagari ...  The first character that fails is mostly the
 * space or punctuation after the word, news that one branch pays for once
 * a word; x_run went on to ask what it was (three bytes? ASCII? its class)
 * before space_word could see the word had ended.  A two-byte letter is
 * one load of its two bytes and one of hm__uclass2, which is 0 for what
 * is not a two-byte character: no test of the lead.  Valid UTF-8 keeps a
 * lead's continuations inside the text.
 */
static X_INLINE size_t
x_run2(const unsigned char *s, size_t n, size_t e, unsigned bits)
{
	/*
	 * Two bytes from e while e < n - 1 (n > 0: the first letter is
	 * before e); at n - 1 is a one-byte character, which ends the run.
	 */
	for (n--; e < n && hm__uclass2[hm__ld16(s + e)] & bits; e += 2)
		;
	return e;
}

static X_INLINE size_t
x_run3(const unsigned char *s, size_t n, size_t e, unsigned bits)
{
	while (e < n && s[e] - 0xE0u < 0x10u && cls3(s[e], s + e) & bits)
		e += 3;
	return e;
}

/*
 * space_word's word when its run of letters of one length does not end at
 * a space, punctuation or the end of the text (below): the run goes on from
 * its last character, at e - len1, as x_run, and what ends it decides.
 */
#ifdef __GNUC__
__attribute__((noinline))
#endif
static size_t
space_word_rest(const unsigned char *s, size_t n, size_t p, unsigned c1, size_t len1, size_t e)
{
	size_t len = len1;
	unsigned c;

	if (c1 & X_BOTH) {
		e = x_run(s, n, e - len1, X_BOTH, &c, &len);
		if (!(c & (X_UP | X_LO | X_SLOW)))
			return contraction(s, n, e);
	} else {
		e = x_run(s, n, e - len1, X_LO, &c, &len);
		if (!(c & X_SLOW))
			return contraction(s, n, e);
	}
	e = x_word(s, n, p, c1, len1);
	return e ? contraction(s, n, e) : hm__pretok_general(s, n, p - 1);
}

/*
 * A space and a word whose first letter, at p (class c1, length len1), is
 * both UP and LO (Lo, Lm, a mark: Arabic, Devanagari, Korean) or Ll (a
 * Cyrillic word in lower case): x_piece's general route would take it
 * with x_word.  The run of such letters is the word unless what ends it
 * would send x_word on (an UP or LO character after a run of both; an
 * X_SLOW character), so the run alone is tried first, without x_word's
 * tests; else x_word from p.  Most words are letters of one length
 * (len1) up to a space, ASCII punctuation or the end of the text, which
 * ends the word whichever way space_word_rest would go (no letter or
 * number, not the apostrophe of a contraction, not X_SLOW): they end here,
 * with no registers to save, and the rest go on in space_word_rest.  Out
 * of line, so that x_piece's other pieces do not save the registers this
 * takes.
 */
#ifdef __GNUC__
__attribute__((noinline))
#endif
static size_t
space_word(const unsigned char *s, size_t n, size_t p, unsigned c1, size_t len1)
{
	/*
	 * X_BOTH, or X_LO (X_BOTH | LL) for a letter in lower case: each
	 * character has one general category, so c1 has LL only without X_BOTH.
	 */
	unsigned bits = X_BOTH | (c1 & HM_UC_LL);
	size_t e = len1 == 2 ? x_run2(s, n, p + 2, bits) : x_run3(s, n, p + 3, bits);

	if (e == n || (fcls[s[e]] & F_PRE && s[e] != '\''))
		return e;
	return space_word_rest(s, n, p, c1, len1, e);
}

/*
 * x_piece's pieces other than a space and a word or a run of symbols; c1
 * and len1 are the class and length of the character after a space at
 * s[i] when len1 is not 0.  Out of line, so that x_piece's own pieces do
 * not save the registers this takes.
 */
#ifdef __GNUC__
__attribute__((noinline))
#endif
static size_t
x_rest(const unsigned char *s, size_t n, size_t i, unsigned c1, size_t len1)
{
	size_t len, e, k;
	unsigned c;

	if (len1) {
		c = HM_UC_WS;
		len = 1;
	} else {
		c = xcls_at(s, i, &len);
		if (i + len < n)
			c1 = xcls_at(s, i + len, &len1);
	}
	if ((c | c1) & X_SLOW)
		return hm__pretok_general(s, n, i);
	/*
	 * A letter: no prefix, and 1 or 2 match from here.  A mark (UP and LO,
	 * not L) may be a prefix, but a word after it ends where the word from
	 * the mark itself ends (the mark only joins the run of UP), and that
	 * word is never empty; so it is taken the same way.  Else a word after
	 * a prefix: no alternative before it can match, c is neither UP nor LO.
	 */
	e = 0;
	if (c & (X_UP | X_LO))
		e = x_word(s, n, i, c, len);
	else if (X_PREFIX(c) && (c1 & (X_UP | X_LO)))
		e = x_word(s, n, i + len, c1, len1);
	if (e)
		return contraction(s, n, e);
	if (c & (X_UP | X_LO) || (X_PREFIX(c) && (c1 & (X_UP | X_LO))))
		return hm__pretok_general(s, n, i);     /* x_word met X_SLOW */

	/* 3: one to three numbers. */
	if (c & HM_UC_N) {
		e = i + len;
		for (k = 1; k < 3 && e < n && (c1 & HM_UC_N); k++) {
			e += len1;
			if (e < n && (c1 = xcls_at(s, e, &len1)) & X_SLOW)
				return hm__pretok_general(s, n, i);
		}
		return e;
	}

	/* 4: ` ?[^\s\p{L}\p{N}]+[\r\n/]*` */
	e = i;
	if (s[i] == ' ' && i + 1 < n && X_PUNCT(c1)) {
		e = i + 1;
		c = c1;
		len = len1;
	}
	if (X_PUNCT(c))
		return x_symbols(s, n, i, e + len);

	/* 5, 6, 7: whitespace, as in the general scanner */
	return hm__pretok_general(s, n, i);
}

/*
 * hm__pretok_general, reading each character's class once.  Out of line:
 * inlined into hm__pretok_next, it cost the ASCII path registers (3 to 4 %
 * more instructions on the english, code and punct texts).
 */
#ifdef __GNUC__
__attribute__((noinline))
#endif
static size_t
x_piece(const unsigned char *s, size_t n, size_t i)
{
	size_t len1;
	unsigned c1;

	/*
	 * most pieces here: a space, then a letter (a word: space_word) or a
	 * symbol (a run of them: no word can start at the space).
	 */
	if (s[i] == ' ' && i + 1 < n && s[i + 1] - 0xC0u < 0x30u) {
		c1 = s[i + 1] < 0xE0 ? (len1 = 2, cls2(s[i + 1], s + i + 1)) : (len1 = 3, cls3(s[i + 1], s + i + 1));
		if (c1 & (X_BOTH | HM_UC_LL))
			return space_word(s, n, i + 1, c1, len1);
		if (X_PUNCT(c1))
			return x_symbols(s, n, i, i + 1 + len1);
		return x_rest(s, n, i, c1, len1);
	}
	if (s[i] == ' ' && i + 1 < n && s[i + 1] >= 0xF0) {
		c1 = xcls_at(s, i + 1, &len1);
		if (X_PUNCT(c1) && !(c1 & X_SLOW))
			return x_symbols(s, n, i, i + 1 + len1);
		return x_rest(s, n, i, c1, len1);
	}
	return x_rest(s, n, i, 0, 0);
}

size_t
hm__pretok_next(const unsigned char *s, size_t n, size_t i)
{
	/*
	 * A non-ASCII character first or next goes straight to x_piece:
	 * ascii_piece would give up at once.
	 */
	unsigned b1 = i + 1 < n ? s[i + 1] : 0;

	/* one branch for both: which of the two a piece takes is news (emoji text) */
	if ((s[i] | b1) >= 0x80)
		return x_piece(s, n, i);
	return ascii_piece(s, n, i, i + 1 < n ? fcls[b1] : 0);
}

size_t
hm__pretok_general(const unsigned char *s, size_t n, size_t i)
{
	size_t len, len2, e, k;
	unsigned c, c2;

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

size_t
hm__pretok_cut(const unsigned char *s, size_t n, size_t from)
{
	size_t q;

	if (from == 0)
		from = 1;
	if (n <= from)
		return 0;
	/*
	 * q = p - 1 runs down from n - 2 to from - 1, the '\n' looked for
	 * eight bytes at a time: text whose lines start with non-ASCII
	 * letters has no cut point, and was looked at byte by byte.
	 */
	for (q = n - 1; q-- > from - 1;) {
		while (q >= from + 7) { /* and q - 8 >= from - 1 */
			uint64_t x = hm__ld64(s + q - 7) ^ (ONES * '\n');

			if ((x - ONES) & ~x & HIGH)
				break; /* a '\n' among s[q - 7 .. q] */
			q -= 8;
		}
		if (s[q] == '\n' && s[q + 1] > ' ' && s[q + 1] < 0x7f && s[q + 1] != '/')
			return q + 1;
	}
	return 0;
}
