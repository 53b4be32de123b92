/*
 * json_schema_idna.c - IDNA2008 host names (RFC 5890-5893) for JSON
 * Schema's `hostname` and `idn-hostname` formats: Punycode (RFC 3492),
 * the code-point classes and contextual rules (RFC 5892), the label rules
 * of RFC 5891 4.2.3 and the Bidi rule (RFC 5893).  The Unicode facts are
 * idna_tables.c's (tools/gen_idna.py), Normalization Form C (UAX #15)
 * included.
 */
#include <string.h>

#include "idna_int.h"

/* The longest label in its A-label (ASCII) form, and of a whole name (RFC 1034, RFC 5890). */
#define LABEL_MAX 63
#define NAME_MAX_ 253

/* The run of the n runs starting at start[] that holds c: the last starting at or before it. */
static size_t
run_of(const uint32_t *start, size_t n, uint32_t c)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (start[mid] <= c)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static unsigned
prop(uint32_t c)
{
	return hm__idna_prop[run_of(hm__idna_start, hm__idna_nruns, c)];
}

/* ------------------------------------------------------------ Punycode (RFC 3492) */

enum { BASE = 36, TMIN = 1, TMAX = 26, SKEW = 38, DAMP = 700, BIAS0 = 72, N0 = 0x80 };

static uint32_t
adapt(uint32_t delta, uint32_t npoints, int first)
{
	uint32_t k = 0;

	delta = first ? delta / DAMP : delta / 2;
	delta += delta / npoints;
	while (delta > ((BASE - TMIN) * TMAX) / 2) {
		delta /= BASE - TMIN;
		k += BASE;
	}
	return k + (BASE - TMIN + 1) * delta / (delta + SKEW);
}

static uint32_t
threshold(uint32_t k, uint32_t bias)
{
	return k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
}

static int
digit_value(char c)
{
	if (c >= 'a' && c <= 'z')
		return c - 'a';
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= '0' && c <= '9')
		return c - '0' + 26;
	return -1;
}

/* Punycode s (n bytes) into cp (at most max); the count, or -1 when it is not Punycode. */
static int
puny_decode(const char *s, size_t n, uint32_t *cp, size_t max)
{
	size_t b = 0, in, out = 0, j;
	uint32_t i = 0, code = N0, bias = BIAS0;

	for (j = 0; j < n; j++)
		if (s[j] == '-')
			b = j;
	if (b > max)
		return -1;
	for (j = 0; j < b; j++)
		cp[out++] = (unsigned char)s[j];
	for (in = b ? b + 1 : 0; in < n;) {
		uint32_t oldi = i, w = 1, k;

		for (k = BASE;; k += BASE) {
			int d = in < n ? digit_value(s[in++]) : -1;
			uint32_t t;

			if (d < 0 || (uint32_t)d > (UINT32_MAX - i) / w)
				return -1;
			i += (uint32_t)d * w;
			t = threshold(k, bias);
			if ((uint32_t)d < t)
				break;
			if (w > UINT32_MAX / (BASE - t))
				return -1;
			w *= BASE - t;
		}
		bias = adapt(i - oldi, (uint32_t)out + 1, oldi == 0);
		if (i / (out + 1) > 0x10FFFF - code)
			return -1;
		code += i / (uint32_t)(out + 1);
		i %= (uint32_t)(out + 1);
		if (out >= max || (code >= 0xD800 && code <= 0xDFFF))
			return -1;
		memmove(cp + i + 1, cp + i, (out - i) * sizeof *cp);
		cp[i++] = code;
		out++;
	}
	return (int)out;
}

static char
digit_char(uint32_t d)
{
	return (char)(d < 26 ? 'a' + d : '0' + (d - 26));
}

/* cp (n code points) as Punycode into out (at most max bytes); the length, or -1 when longer. */
static int
puny_encode(const uint32_t *cp, size_t n, char *out, size_t max)
{
	size_t len = 0, j, h, b;
	uint32_t code = N0, delta = 0, bias = BIAS0;

	for (j = 0; j < n; j++)
		if (cp[j] < 0x80) {
			if (len >= max)
				return -1;
			out[len++] = (char)cp[j];
		}
	h = b = len;
	if (b) {
		if (len >= max)
			return -1;
		out[len++] = '-';
	}
	while (h < n) {
		uint32_t m = UINT32_MAX;

		for (j = 0; j < n; j++)
			if (cp[j] >= code && cp[j] < m)
				m = cp[j];
		/* at most 63 code points below 0x110000: no overflow */
		delta += (m - code) * (uint32_t)(h + 1);
		code = m;
		for (j = 0; j < n; j++) {
			if (cp[j] < code)
				delta++;
			if (cp[j] == code) {
				uint32_t q = delta, k;

				for (k = BASE;; k += BASE) {
					uint32_t t = threshold(k, bias);

					if (q < t)
						break;
					if (len >= max)
						return -1;
					out[len++] = digit_char(t + (q - t) % (BASE - t));
					q = (q - t) / (BASE - t);
				}
				if (len >= max)
					return -1;
				out[len++] = digit_char(q);
				bias = adapt(delta, (uint32_t)h + 1, h == b);
				delta = 0;
				h++;
			}
		}
		delta++;
		code++;
	}
	return (int)len;
}

/* ------------------------------------------------------------ Normalization Form C (UAX #15) */

enum { SBASE = 0xAC00, LBASE = 0x1100, VBASE = 0x1161, TBASE = 0x11A7,
       LCOUNT = 19, VCOUNT = 21, TCOUNT = 28, NCOUNT = VCOUNT * TCOUNT, SCOUNT = LCOUNT * NCOUNT };

static unsigned
ccc(uint32_t c)
{
	return hm__nfc_ccc[run_of(hm__nfc_ccc_start, hm__nfc_nccc, c)];
}

/* The full canonical decomposition of the valid code point c into d (3 places); its length. */
static size_t
decompose(uint32_t c, uint32_t *d)
{
	size_t lo = 0, hi = hm__nfc_ndecomp;

	if (c >= SBASE && c < SBASE + SCOUNT) {
		uint32_t s = c - SBASE;

		d[0] = LBASE + s / NCOUNT;
		d[1] = VBASE + (s % NCOUNT) / TCOUNT;
		d[2] = TBASE + s % TCOUNT;
		return d[2] == TBASE ? 2 : 3;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (hm__nfc_decomp[mid][0] < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < hm__nfc_ndecomp && hm__nfc_decomp[lo][0] == c) {
		d[0] = hm__nfc_decomp[lo][1];
		d[1] = hm__nfc_decomp[lo][2];
		d[2] = hm__nfc_decomp[lo][3];
		return d[2] ? 3 : d[1] ? 2 : 1;
	}
	d[0] = c;
	return 1;
}

/* The primary composite of a and b, or 0. */
static uint32_t
compose(uint32_t a, uint32_t b)
{
	size_t lo = 0, hi = hm__nfc_ncomp;

	if (a >= LBASE && a < LBASE + LCOUNT && b >= VBASE && b < VBASE + VCOUNT)
		return SBASE + ((a - LBASE) * VCOUNT + (b - VBASE)) * TCOUNT;
	if (a >= SBASE && a < SBASE + SCOUNT && (a - SBASE) % TCOUNT == 0 &&
	    b > TBASE && b < TBASE + TCOUNT)
		return a + (b - TBASE);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (hm__nfc_comp[mid][0] < a || (hm__nfc_comp[mid][0] == a && hm__nfc_comp[mid][1] < b))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < hm__nfc_ncomp && hm__nfc_comp[lo][0] == a && hm__nfc_comp[lo][1] == b)
		return hm__nfc_comp[lo][2];
	return 0;
}

/*
 * Whether the valid code points cp (n, at most LABEL_MAX) are in
 * Normalization Form C (RFC 5891 5.3): decomposed, put in canonical
 * order and composed again, they are what they were.
 */
static int
nfc_ok(const uint32_t *cp, size_t n)
{
	uint32_t d[LABEL_MAX * 3], starter;
	size_t len = 0, i, j, spos = 0, out;
	unsigned last;

	for (i = 0; i < n; i++)
		len += decompose(cp[i], d + len);
	/* canonical order: each run of marks sorted by class, stably */
	for (i = 1; i < len; i++)
		for (j = i; j && ccc(d[j]) && ccc(d[j - 1]) > ccc(d[j]); j--) {
			uint32_t x = d[j];

			d[j] = d[j - 1];
			d[j - 1] = x;
		}
	/* composition: a mark joins the last starter unless something between blocks it */
	starter = d[0];
	last = ccc(starter) ? 256 : 0;
	for (i = out = 1; i < len; i++) {
		unsigned c = ccc(d[i]);
		uint32_t comp = compose(starter, d[i]);

		if (comp && (last < c || last == 0)) {
			d[spos] = starter = comp;
			continue;
		}
		if (!c) {
			spos = out;
			starter = d[i];
		}
		last = c;
		d[out++] = d[i];
	}
	return out == n && !memcmp(d, cp, n * sizeof *cp);
}

/* ------------------------------------------------------------ labels */

/* RFC 5892 appendix A: whether the CONTEXTJ or CONTEXTO code point cp[i] may stand where it is. */
static int
context_ok(const uint32_t *cp, size_t n, size_t i)
{
	uint32_t c = cp[i];
	size_t j;

	switch (c) {
	case 0x200C: /* ZERO WIDTH NON-JOINER: after a virama, or inside a joining pair */
		if (i && HM__IDNA_VIRAMA(prop(cp[i - 1])))
			return 1;
		for (j = i; j && HM__IDNA_JOIN(prop(cp[j - 1])) == HM__JOIN_T; j--)
			;
		if (!j || (HM__IDNA_JOIN(prop(cp[j - 1])) != HM__JOIN_L &&
		    HM__IDNA_JOIN(prop(cp[j - 1])) != HM__JOIN_D))
			return 0;
		for (j = i + 1; j < n && HM__IDNA_JOIN(prop(cp[j])) == HM__JOIN_T; j++)
			;
		return j < n && (HM__IDNA_JOIN(prop(cp[j])) == HM__JOIN_R ||
		    HM__IDNA_JOIN(prop(cp[j])) == HM__JOIN_D);
	case 0x200D: /* ZERO WIDTH JOINER: after a virama */
		return i && HM__IDNA_VIRAMA(prop(cp[i - 1]));
	case 0x00B7: /* MIDDLE DOT: between two l (Catalan l·l) */
		return i && i + 1 < n && cp[i - 1] == 'l' && cp[i + 1] == 'l';
	case 0x0375: /* GREEK LOWER NUMERAL SIGN (KERAIA): before Greek */
		return i + 1 < n && HM__IDNA_SCRIPT(prop(cp[i + 1])) == HM__SCRIPT_GREEK;
	case 0x05F3: /* HEBREW PUNCTUATION GERESH, GERSHAYIM: after Hebrew */
	case 0x05F4:
		return i && HM__IDNA_SCRIPT(prop(cp[i - 1])) == HM__SCRIPT_HEBREW;
	case 0x30FB: /* KATAKANA MIDDLE DOT: in a label with Hiragana, Katakana or Han */
		for (j = 0; j < n; j++) {
			unsigned s = HM__IDNA_SCRIPT(prop(cp[j]));

			if (cp[j] != 0x30FB && (s == HM__SCRIPT_HIRAGANA ||
			    s == HM__SCRIPT_KATAKANA || s == HM__SCRIPT_HAN))
				return 1;
		}
		return 0;
	}
	if ((c >= 0x0660 && c <= 0x0669) || (c >= 0x06F0 && c <= 0x06F9)) {
		/* ARABIC-INDIC DIGITS and the EXTENDED ones: not both in a label */
		uint32_t other = c <= 0x0669 ? 0x06F0 : 0x0660;

		for (j = 0; j < n; j++)
			if (cp[j] >= other && cp[j] <= other + 9)
				return 0;
		return 1;
	}
	return 0; /* a contextual code point without a rule is not allowed */
}

/*
 * Whether cp (n code points) is a U-label (RFC 5891 4.2.3, RFC 5892):
 * no hyphen first, last or in the 3rd and 4th places, no mark first,
 * every code point PVALID or allowed by its context, in Normalization
 * Form C.  *rtl: whether it has
 * a right-to-left code point (R, AL or AN), which makes the name a Bidi
 * domain name.
 */
static int
ulabel_ok(const uint32_t *cp, size_t n, int *rtl)
{
	size_t i;

	if (!n || cp[0] == '-' || cp[n - 1] == '-' || (n >= 4 && cp[2] == '-' && cp[3] == '-') ||
	    HM__IDNA_MARK(prop(cp[0])))
		return 0;
	for (i = 0; i < n; i++) {
		unsigned p = prop(cp[i]), bidi = HM__IDNA_BIDI(p);

		switch (HM__IDNA_CLASS(p)) {
		case HM__IDNA_PVALID:
			break;
		case HM__IDNA_CONTEXTJ:
		case HM__IDNA_CONTEXTO:
			if (!context_ok(cp, n, i))
				return 0;
			break;
		default:
			return 0;
		}
		if (bidi == HM__BIDI_R || bidi == HM__BIDI_AL || bidi == HM__BIDI_AN)
			*rtl = 1;
	}
	return nfc_ok(cp, n);
}

/* RFC 5893 section 2: the Bidi rule, which every label of a Bidi domain name keeps. */
static int
bidi_ok(const uint32_t *cp, size_t n)
{
	unsigned first = HM__IDNA_BIDI(prop(cp[0])), last, b;
	size_t i, e = n;
	int en = 0, an = 0;

	if (first != HM__BIDI_L && first != HM__BIDI_R && first != HM__BIDI_AL)
		return 0;
	while (e > 1 && HM__IDNA_BIDI(prop(cp[e - 1])) == HM__BIDI_NSM)
		e--;
	last = HM__IDNA_BIDI(prop(cp[e - 1]));
	for (i = 0; i < n; i++) {
		b = HM__IDNA_BIDI(prop(cp[i]));
		en |= b == HM__BIDI_EN;
		an |= b == HM__BIDI_AN;
		if (first == HM__BIDI_L) {
			if (b != HM__BIDI_L && b != HM__BIDI_EN && b != HM__BIDI_ES && b != HM__BIDI_CS &&
			    b != HM__BIDI_ET && b != HM__BIDI_ON && b != HM__BIDI_BN && b != HM__BIDI_NSM)
				return 0;
		} else if (b == HM__BIDI_L || b == HM__BIDI_NONE)
			return 0;
	}
	if (first == HM__BIDI_L)
		return last == HM__BIDI_L || last == HM__BIDI_EN;
	return !(en && an) && (last == HM__BIDI_R || last == HM__BIDI_AL ||
	    last == HM__BIDI_EN || last == HM__BIDI_AN);
}

/* One UTF-8 sequence at s[*i] (of n); the code point, or -1 when it is not UTF-8. */
static long
utf8_next(const char *s, size_t n, size_t *i)
{
	const unsigned char *u = (const unsigned char *)s + *i;
	size_t len, k;
	uint32_t c;

	if (u[0] < 0x80) {
		(*i)++;
		return u[0];
	}
	if (u[0] >= 0xC2 && u[0] <= 0xDF)
		len = 2, c = u[0] & 0x1F;
	else if (u[0] >= 0xE0 && u[0] <= 0xEF)
		len = 3, c = u[0] & 0x0F;
	else if (u[0] >= 0xF0 && u[0] <= 0xF4)
		len = 4, c = u[0] & 0x07;
	else
		return -1;
	if (*i + len > n)
		return -1;
	for (k = 1; k < len; k++) {
		if ((u[k] & 0xC0) != 0x80)
			return -1;
		c = c << 6 | (u[k] & 0x3F);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10FFFF)))
		return -1;
	*i += len;
	return (long)c;
}

/* The label separators of IDNA (RFC 3490 3.1): . U+3002 U+FF0E U+FF61 */
static int
is_dot(uint32_t c, int unicode)
{
	return c == '.' || (unicode && (c == 0x3002 || c == 0xFF0E || c == 0xFF61));
}

/*
 * The label s (n bytes) as code points in cp (LABEL_MAX + 1 of them):
 * -1 when it is no label; 0 an LDH label (ASCII letters folded to lower
 * case); 1 a U-label, given as UTF-8 (unicode only) or as an A-label
 * (xn--, decoded).  *alen: its length in A-label form.
 */
static int
label_cps(const char *s, size_t n, int unicode, uint32_t *cp, size_t *ncp, size_t *alen)
{
	size_t i, k = 0;
	int ascii = 1;
	char enc[LABEL_MAX + 1], low[LABEL_MAX];

	for (i = 0; i < n; i++)
		ascii &= (unsigned char)s[i] < 0x80;
	if (ascii) {
		if (!n || n > LABEL_MAX || s[0] == '-' || s[n - 1] == '-')
			return -1;
		for (i = 0; i < n; i++) {
			char c = s[i];

			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || c == '-'))
				return -1;
			cp[i] = (unsigned char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
			low[i] = (char)cp[i];
		}
		*ncp = n;
		*alen = n;
		if (n < 4 || (s[0] | 32) != 'x' || (s[1] | 32) != 'n' || s[2] != '-' || s[3] != '-')
			return 0;
		/*
		 * an A-label: Punycode of a U-label with a code point beyond
		 * ASCII, in its one spelling; case does not matter in a DNS
		 * label, so it is read in lower case
		 */
		{
			int m = puny_decode(low + 4, n - 4, cp, LABEL_MAX), e;

			if (m <= 0)
				return -1;
			for (i = 0; i < (size_t)m && cp[i] < 0x80; i++)
				;
			if (i == (size_t)m)
				return -1;
			e = puny_encode(cp, (size_t)m, enc, sizeof enc);
			if (e != (int)(n - 4))
				return -1;
			for (i = 0; i < n - 4; i++)
				if (enc[i] != low[4 + i])
					return -1;
			*ncp = (size_t)m;
			return 1;
		}
	}
	if (!unicode)
		return -1;
	for (i = 0; i < n;) {
		long c = utf8_next(s, n, &i);

		if (c < 0 || k >= LABEL_MAX)
			return -1;
		cp[k++] = (uint32_t)c;
	}
	{
		int e = puny_encode(cp, k, enc, LABEL_MAX - 4);

		if (e < 0)
			return -1;
		*ncp = k;
		*alen = 4 + (size_t)e;
	}
	return 1;
}

/*
 * Walk the labels of s; check: each label (and the name's length); or,
 * bidi set, the Bidi rule on each.  *rtl: whether a label has a
 * right-to-left code point.
 */
static int
walk(const char *s, size_t n, int unicode, int bidi, int *rtl)
{
	uint32_t cp[LABEL_MAX + 1];
	size_t i = 0, start = 0, total = 0, ncp, alen;

	for (;;) {
		size_t end = i;
		long c = i < n ? utf8_next(s, n, &i) : '.';
		int kind;

		if (c < 0)
			return 0;
		if (end < n && !is_dot((uint32_t)c, unicode))
			continue;
		/* s[start, end) is a label; i is past its separator */
		if ((kind = label_cps(s + start, end - start, unicode, cp, &ncp, &alen)) < 0)
			return 0;
		if (bidi) {
			if (!bidi_ok(cp, ncp))
				return 0;
		} else {
			if (kind == 1 && !ulabel_ok(cp, ncp, rtl))
				return 0;
			total += alen + (total ? 1 : 0);
			if (total > NAME_MAX_)
				return 0;
		}
		if (end >= n)
			return 1;
		start = i;
	}
}

int
hm__idna_hostname(const char *s, size_t n, int unicode)
{
	int rtl = 0;

	if (!n || !walk(s, n, unicode, 0, &rtl))
		return 0;
	/* a right-to-left label makes it a Bidi domain name, whose every label keeps the rule */
	return !rtl || walk(s, n, unicode, 1, &rtl);
}
