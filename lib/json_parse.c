/*
 * json_parse.c - JSON text to the value tree (json_val_int.h) with
 * serde_json's grammar and errors: strict JSON, valid UTF-8, its recursion
 * limit, and its reading of numbers (which is not always the nearest
 * double).  With HM_JV_LAX, the lenient grammar log records, id arrays
 * and summary lines have always been read with (see json_val_int.h).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts_int.h"
#include "json_val_int.h"

/*
 * serde_json's recursion limit: it counts down from 128 and fails when a
 * container takes it to 0, so 127 levels of arrays and objects read and
 * the 128th is an error (at that bracket).  Every reader of JSON input
 * recurses at most this deep.
 */
#define MAX_DEPTH 128
/* The lenient grammar's: 1000 levels read, the 1001st is an error. */
#define LAX_MAX_DEPTH 1000

/* ---------------------------------------------------------------- parser */

typedef struct parser {
	const unsigned char *s;
	size_t len, pos;
	char *err;
	size_t errsz;
	int nomem;       /* the reader's one out-of-memory flag */
	int depth;
	unsigned flags;
	size_t errpos;
} parser;

static void
fail(parser *p, const char *what)
{
	size_t line = 1, col = 1, i;

	if (!p->err || !p->errsz || p->err[0])
		return;
	p->errpos = p->pos;
	for (i = 0; i < p->pos && i < p->len; i++) {
		if (p->s[i] == '\n') {
			line++;
			col = 1;
		} else
			col++;
	}
	snprintf(p->err, p->errsz, "%s at line %zu column %zu", what, line, col);
}

static void
skip_ws(parser *p)
{
	if (p->flags & HM_JV_LAX) {
		/* every byte up to the space, control characters too */
		while (p->pos < p->len && p->s[p->pos] <= ' ')
			p->pos++;
		return;
	}
	while (p->pos < p->len) {
		unsigned char c = p->s[p->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->pos++;
	}
}

/*
 * The parsing functions return the value read, or NULL when reading
 * failed: p->err says why, or p->nomem is set.
 */
static hm_jv *parse_value(parser *p);

static hm_status
hex4(parser *p, unsigned *out)
{
	unsigned v = 0;
	int i;

	if (p->len - p->pos < 4) {
		p->pos = p->len;
		fail(p, "EOF while parsing a string");
		return HM_EINPUT;
	}
	for (i = 0; i < 4; i++) {
		unsigned char c = p->s[p->pos];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else {
			fail(p, "invalid escape");
			return HM_EINPUT;
		}
		p->pos++;
	}
	*out = v;
	return HM_OK;
}

/*
 * The lenient grammar's strings.  The closing quote is the first one no
 * backslash escapes; the bytes between are taken as they are (bytes that
 * are not UTF-8) but a control character, which is an error there (an
 * escaped one is not); an escape is one of " \ / b f n
 * r t or \uXXXX, where XXXX not in hex stands for U+0000 and a surrogate
 * must be a leading one followed by \u and a trailing one.  The value ends
 * at its first NUL (\u0000 included).  The error's place: the byte after
 * the opening quote when the string does not end, the backslash of a bad
 * escape.
 */
static unsigned
lax_hex4(const unsigned char *s)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		unsigned c = s[i];

		if (c >= '0' && c <= '9')
			v = v << 4 | (c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v << 4 | (c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v = v << 4 | (c - 'A' + 10);
		else
			return 0;
	}
	return v;
}

/*
 * A string's error: a raw control byte (ctl, 0: none) when it comes
 * before the bad escape at esc (esc: the closing quote when none).  A
 * raw control byte is not JSON (RFC 8259 section 7): cJSON took it, and
 * a NUL then cut the text silently; now the record is an error, placed at
 * that byte.
 */
static hm_status
lax_string_error(parser *p, size_t ctl, size_t esc)
{
	if (ctl && ctl < esc) {
		p->pos = ctl;
		fail(p, "control character (\\u0000-\\u001F) found while parsing a string");
	} else {
		p->pos = esc;
		fail(p, "invalid escape");
	}
	return HM_EINPUT;
}

static hm_status
lax_string(parser *p, hm_buf *b)
{
	size_t open = p->pos, i = open + 1, end, start;
	char *o;
	int e;

	size_t ctl = 0;

	while (i < p->len && p->s[i] != '"') {
		if ((unsigned char)p->s[i] < 0x20 && !ctl)
			ctl = i;
		if (p->s[i] == '\\' && ++i >= p->len)
			break;
		i++;
	}
	if (i >= p->len) {
		p->pos = open + 1;
		fail(p, "EOF while parsing a string");
		return HM_EINPUT;
	}
	end = i;
	/* what it decodes to is never longer than its text */
	if (hm__reserve(&p->nomem, b, end - open - 1) != HM_OK)
		return HM_ENOMEM;
	o = b->p + b->len;
	for (i = open + 1; i < end;) {
		unsigned u, lo;

		for (start = i; i < end && p->s[i] != '\\'; i++)
			;
		memcpy(o, p->s + start, i - start);
		o += i - start;
		if (i == end)
			break;
		if ((e = hm__json_escape((char)p->s[i + 1])) >= 0) {
			*o++ = (char)e;
			i += 2;
			continue;
		}
		if (p->s[i + 1] != 'u' || end - i < 6 ||
		    ((u = lax_hex4(p->s + i + 2)) >= 0xDC00 && u <= 0xDFFF))
			return lax_string_error(p, ctl, i);
		if (u >= 0xD800 && u <= 0xDBFF) {
			if (end - i < 12 || p->s[i + 6] != '\\' || p->s[i + 7] != 'u' ||
			    (lo = lax_hex4(p->s + i + 8)) < 0xDC00 || lo > 0xDFFF)
				return lax_string_error(p, ctl, i);
			u = 0x10000 + ((u & 0x3FF) << 10 | (lo & 0x3FF));
			*o++ = (char)(0xF0 | u >> 18);
			*o++ = (char)(0x80 | (u >> 12 & 0x3F));
			i += 6;
		} else if (u >= 0x800) {
			*o++ = (char)(0xE0 | u >> 12);
		} else if (u >= 0x80) {
			*o++ = (char)(0xC0 | u >> 6);
			*o++ = (char)(0x80 | (u & 0x3F));
			i += 6;
			continue;
		} else {
			*o++ = (char)u;
			i += 6;
			continue;
		}
		*o++ = (char)(0x80 | (u >> 6 & 0x3F));
		*o++ = (char)(0x80 | (u & 0x3F));
		i += 6;
	}
	*o = '\0';
	if (ctl)
		return lax_string_error(p, ctl, end);
	/* the value ends at its first NUL */
	b->len = strlen(b->p);
	p->pos = end + 1;
	return HM_OK;
}

/* A byte of the lenient grammar's numbers: 0-9 + - e E . */
static int
lax_numchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == 'e' || c == 'E' || c == '.';
}

/*
 * The lenient grammar's numbers: the run of bytes from 0-9 + - e E .
 * read by strtod, which takes what it can (01, 1., -.5, and the 1 of 1e
 * or 1e+ alone); nothing it can take is an error.  A run of at most 15
 * digits (and a sign) is the integer strtod would give, without it.
 * Their num only: s is NULL.
 */
static hm_jv *
lax_number(parser *p)
{
	const unsigned char *s = p->s + p->pos;
	size_t left = p->len - p->pos, n, k;
	char tmp[64], *lex = tmp, *end;
	int neg = s[0] == '-';
	uint64_t u = 0;
	double d;
	hm_jv *v;

	for (k = (size_t)neg; k < left && k < 16 && s[k] >= '0' && s[k] <= '9'; k++)
		u = u * 10 + (s[k] - '0');
	if (k > (size_t)neg && k < 16 && (k == left || !lax_numchar(s[k]))) {
		d = neg ? -(double)u : (double)u;
		n = k;
	} else {
		for (n = 0; n < left && lax_numchar(s[n]); n++)
			;
		if (n >= sizeof tmp && !(lex = malloc(n + 1))) {
			p->nomem = 1;
			return NULL;
		}
		memcpy(lex, s, n);
		lex[n] = '\0';
		d = strtod(lex, &end);
		n = (size_t)(end - lex);
		if (lex != tmp)
			free(lex);
		if (!n) {
			fail(p, "invalid number");
			return NULL;
		}
	}
	if (!(v = hm__jv_new(HM_JV_NUMBER))) {
		p->nomem = 1;
		return NULL;
	}
	v->num = d;
	/* with HM_JV_NUMTEXT the bytes read too, for a count exact past 2^53 */
	if ((p->flags & HM_JV_NUMTEXT) && !(v->s = hm__memdup((const char *)s, n))) {
		hm__jv_free(v);
		p->nomem = 1;
		return NULL;
	}
	v->len = (p->flags & HM_JV_NUMTEXT) ? n : 0;
	p->pos += n;
	return v;
}

/*
 * Parse a string at p->pos (on the opening quote) into b, a scratch
 * buffer of the reader's: HM_EINPUT (p->err says why), HM_ENOMEM.
 */
static hm_status
parse_string(parser *p, hm_buf *b)
{
	if (p->flags & HM_JV_LAX)
		return lax_string(p, b);
	p->pos++;
	for (;;) {
		size_t start = p->pos, k, bad;
		uint32_t cp;
		unsigned c, u, lo;
		int e;

		while (p->pos < p->len) {
			c = p->s[p->pos];
			if (c == '"' || c == '\\' || c < 0x20)
				break;
			if (c < 0x80) {
				p->pos++;
				continue;
			}
			k = hm_utf8_decode(p->s + p->pos, p->len - p->pos, &cp, &bad);
			if (!k) {
				fail(p, "invalid unicode code point");
				return HM_EINPUT;
			}
			p->pos += k;
		}
		hm__add(&p->nomem, b, p->s + start, p->pos - start);
		if (p->pos >= p->len) {
			fail(p, "EOF while parsing a string");
			return HM_EINPUT;
		}
		c = p->s[p->pos];
		if (c == '"') {
			p->pos++;
			return p->nomem ? HM_ENOMEM : HM_OK;
		}
		if (c < 0x20) {
			fail(p, "control character (\\u0000-\\u001F) found while parsing a string");
			return HM_EINPUT;
		}
		p->pos++;
		if (p->pos >= p->len) {
			fail(p, "EOF while parsing a string");
			return HM_EINPUT;
		}
		c = p->s[p->pos++];
		if ((e = hm__json_escape((char)c)) >= 0) {
			hm__putc(&p->nomem, b, (char)e);
			continue;
		}
		switch (c) {
		case 'u':
			if (hex4(p, &u) != HM_OK)
				return HM_EINPUT;
			if (u >= 0xDC00 && u <= 0xDFFF) {
				fail(p, "lone leading surrogate in hex escape");
				return HM_EINPUT;
			}
			if (u >= 0xD800 && u <= 0xDBFF) {
				if (p->len - p->pos < 2 || p->s[p->pos] != '\\' ||
				    p->s[p->pos + 1] != 'u') {
					fail(p, "unexpected end of hex escape");
					return HM_EINPUT;
				}
				p->pos += 2;
				if (hex4(p, &lo) != HM_OK)
					return HM_EINPUT;
				if (lo < 0xDC00 || lo > 0xDFFF) {
					fail(p, "lone leading surrogate in hex escape");
					return HM_EINPUT;
				}
				u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
			}
			hm__add_cp(&p->nomem, b, u);
			break;
		default:
			p->pos--;
			fail(p, "invalid escape");
			return HM_EINPUT;
		}
	}
}

/*
 * serde_json (without its float_roundtrip feature) does not round a
 * decimal to the nearest double: it gathers at most the digits that fit
 * a u64, ignores the rest (counting integer digits into the exponent),
 * and scales by one correctly rounded power of ten, so 1.2345678901234567e-20
 * reads as 1.2345678901234569e-20.  The reference renders what it read,
 * so this reproduces that arithmetic step by step on a lexeme already
 * checked against the JSON grammar.  Returns -1 where serde_json says
 * "number out of range".
 */
static const double pow10_tab[309] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
	1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
	1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26,
	1e27, 1e28, 1e29, 1e30, 1e31, 1e32, 1e33, 1e34, 1e35,
	1e36, 1e37, 1e38, 1e39, 1e40, 1e41, 1e42, 1e43, 1e44,
	1e45, 1e46, 1e47, 1e48, 1e49, 1e50, 1e51, 1e52, 1e53,
	1e54, 1e55, 1e56, 1e57, 1e58, 1e59, 1e60, 1e61, 1e62,
	1e63, 1e64, 1e65, 1e66, 1e67, 1e68, 1e69, 1e70, 1e71,
	1e72, 1e73, 1e74, 1e75, 1e76, 1e77, 1e78, 1e79, 1e80,
	1e81, 1e82, 1e83, 1e84, 1e85, 1e86, 1e87, 1e88, 1e89,
	1e90, 1e91, 1e92, 1e93, 1e94, 1e95, 1e96, 1e97, 1e98,
	1e99, 1e100, 1e101, 1e102, 1e103, 1e104, 1e105, 1e106, 1e107,
	1e108, 1e109, 1e110, 1e111, 1e112, 1e113, 1e114, 1e115, 1e116,
	1e117, 1e118, 1e119, 1e120, 1e121, 1e122, 1e123, 1e124, 1e125,
	1e126, 1e127, 1e128, 1e129, 1e130, 1e131, 1e132, 1e133, 1e134,
	1e135, 1e136, 1e137, 1e138, 1e139, 1e140, 1e141, 1e142, 1e143,
	1e144, 1e145, 1e146, 1e147, 1e148, 1e149, 1e150, 1e151, 1e152,
	1e153, 1e154, 1e155, 1e156, 1e157, 1e158, 1e159, 1e160, 1e161,
	1e162, 1e163, 1e164, 1e165, 1e166, 1e167, 1e168, 1e169, 1e170,
	1e171, 1e172, 1e173, 1e174, 1e175, 1e176, 1e177, 1e178, 1e179,
	1e180, 1e181, 1e182, 1e183, 1e184, 1e185, 1e186, 1e187, 1e188,
	1e189, 1e190, 1e191, 1e192, 1e193, 1e194, 1e195, 1e196, 1e197,
	1e198, 1e199, 1e200, 1e201, 1e202, 1e203, 1e204, 1e205, 1e206,
	1e207, 1e208, 1e209, 1e210, 1e211, 1e212, 1e213, 1e214, 1e215,
	1e216, 1e217, 1e218, 1e219, 1e220, 1e221, 1e222, 1e223, 1e224,
	1e225, 1e226, 1e227, 1e228, 1e229, 1e230, 1e231, 1e232, 1e233,
	1e234, 1e235, 1e236, 1e237, 1e238, 1e239, 1e240, 1e241, 1e242,
	1e243, 1e244, 1e245, 1e246, 1e247, 1e248, 1e249, 1e250, 1e251,
	1e252, 1e253, 1e254, 1e255, 1e256, 1e257, 1e258, 1e259, 1e260,
	1e261, 1e262, 1e263, 1e264, 1e265, 1e266, 1e267, 1e268, 1e269,
	1e270, 1e271, 1e272, 1e273, 1e274, 1e275, 1e276, 1e277, 1e278,
	1e279, 1e280, 1e281, 1e282, 1e283, 1e284, 1e285, 1e286, 1e287,
	1e288, 1e289, 1e290, 1e291, 1e292, 1e293, 1e294, 1e295, 1e296,
	1e297, 1e298, 1e299, 1e300, 1e301, 1e302, 1e303, 1e304, 1e305,
	1e306, 1e307, 1e308,
};

static int
u64_overflows(uint64_t sig, unsigned d)
{
	return sig >= UINT64_MAX / 10 && (sig > UINT64_MAX / 10 || d > UINT64_MAX % 10);
}

static int32_t
sat_add32(int32_t a, int64_t b)
{
	int64_t r = (int64_t)a + b;

	return r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : (int32_t)r;
}

int
hm__json_f64(const char *str, size_t n, double *out)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	int neg = 0, stop = 0;
	uint64_t sig = 0;
	int32_t exp10 = 0;
	double f;

	if (i < n && s[i] == '-') {
		neg = 1;
		i++;
	}
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = s[i] - '0';

		if (!stop && u64_overflows(sig, d))
			stop = 1;
		if (stop)
			exp10 = sat_add32(exp10, 1); /* a digit dropped */
		else
			sig = sig * 10 + d;
	}
	if (i < n && s[i] == '.') {
		/* Fraction digits keep filling the u64, even after the
		 * integer part overflowed it, until one does not fit. */
		stop = 0;
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
			unsigned d = s[i] - '0';

			if (!stop && u64_overflows(sig, d))
				stop = 1;
			if (!stop) {
				sig = sig * 10 + d;
				exp10 = sat_add32(exp10, -1);
			}
		}
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		int pos = 1, eover = 0;
		int32_t e = 0;

		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			pos = s[i++] == '+';
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
			int32_t d = s[i] - '0';

			if (eover)
				continue;
			if (e >= INT32_MAX / 10 && (e > INT32_MAX / 10 || d > INT32_MAX % 10))
				eover = 1;
			else
				e = e * 10 + d;
		}
		if (eover) {
			if (pos && sig != 0)
				return -1;
			*out = neg ? -0.0 : 0.0;
			return 0;
		}
		exp10 = sat_add32(exp10, pos ? (int64_t)e : -(int64_t)e);
	}
	f = (double)sig;
	for (;;) {
		uint32_t a = exp10 < 0 ? 0u - (uint32_t)exp10 : (uint32_t)exp10;

		if (a <= 308) {
			if (exp10 >= 0) {
				f *= pow10_tab[a];
				if (isinf(f))
					return -1;
			} else {
				f /= pow10_tab[a];
			}
			break;
		}
		if (f == 0)
			break;
		if (exp10 >= 0)
			return -1;
		f /= 1e308;
		exp10 += 308;
	}
	*out = neg ? -f : f;
	return 0;
}

static hm_jv *
parse_number(parser *p)
{
	size_t start = p->pos, ndig;
	int neg = 0, isint = 1;
	hm_jv *v;
	char *end;

	if (p->s[p->pos] == '-') {
		neg = 1;
		p->pos++;
	}
	if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9') {
		fail(p, "invalid number");
		return NULL;
	}
	if (p->s[p->pos] == '0')
		p->pos++;
	else
		while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
			p->pos++;
	ndig = p->pos - start - (size_t)neg;
	if (p->pos < p->len && p->s[p->pos] == '.') {
		isint = 0;
		p->pos++;
		if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9') {
			fail(p, "invalid number");
			return NULL;
		}
		while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
			p->pos++;
	}
	if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		isint = 0;
		p->pos++;
		if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
			p->pos++;
		if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9') {
			fail(p, "invalid number");
			return NULL;
		}
		while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
			p->pos++;
	}
	if (!(v = hm__jv_new(HM_JV_NUMBER))) {
		p->nomem = 1;
		return NULL;
	}
	{
		char tmp[64], *lex = tmp;
		size_t n = p->pos - start;

		if (n >= sizeof tmp && !(lex = malloc(n + 1))) {
			free(v);
			p->nomem = 1;
			return NULL;
		}
		memcpy(lex, p->s + start, n);
		lex[n] = '\0';
		errno = 0;
		v->num = strtod(lex, &end);
		/*
		 * serde_json keeps an integer as u64/i64 when it fits and
		 * prints it as written; otherwise (and for -0) it is an f64.
		 */
		if (isint && (ndig < 20 || (ndig == 20 && !neg))) {
			unsigned long long u;

			errno = 0;
			u = strtoull(lex + neg, NULL, 10);
			if (errno == 0 && (!neg ? 1 : (u != 0 && u <= (unsigned long long)INT64_MAX + 1))) {
				v->s = hm__memdup(lex, n);
				v->len = n;
				isint = 2;
			}
		}
		if (lex != tmp)
			free(lex);
	}
	if (isint != 2) {
		hm_buf b = {0};

		if (p->flags & HM_JV_NUMTEXT) {
			/* Valid JSON at any size: keep the text as written. */
			v->s = hm__memdup((const char *)p->s + start, p->pos - start);
			v->len = p->pos - start;
		} else if (hm__json_f64((const char *)p->s + start, p->pos - start, &v->num) < 0) {
			free(v);
			fail(p, "number out of range");
			return NULL;
		} else {
			hm__jv_fmt_double(&p->nomem, &b, v->num);
			v->s = b.p;
			v->len = b.len;
		}
	}
	if (!v->s) {
		free(v);
		p->nomem = 1;
		return NULL;
	}
	return v;
}

static hm_status
literal(parser *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n)) {
		fail(p, "expected value");
		return HM_EINPUT;
	}
	p->pos += n;
	return HM_OK;
}

/*
 * HM_JV_NODUP: the key key (its opening quote at byte at) given before in
 * the object c is an error there, naming it: which of the two values is
 * meant cannot be told, and each JSON reader would take another (serde
 * refuses a duplicate field, most take the last, some the first).  Few
 * keys are compared in turn; from 16 on, they are looked up in *set (the
 * object's, filled as it grows: linear time for 50,000 keys).
 */
#define DUP_SET_FROM 16

/* The error at the key's opening quote; apart, as it is rarely called. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static void
dup_fail(parser *p, const char *k, size_t n, size_t at)
{
	char what[160];
	size_t i, o;

	/* the key as JSON writes it, control characters escaped, cut at 48 bytes */
	o = (size_t)snprintf(what, sizeof what, "duplicate key \"");
	for (i = 0; i < n && i < 48 && o + 8 < sizeof what; i++) {
		unsigned char ch = (unsigned char)k[i];

		if (ch < 0x20 || ch == 0x7f)
			o += (size_t)snprintf(what + o, sizeof what - o, "\\u%04x", ch);
		else {
			if (ch == '"' || ch == '\\')
				what[o++] = '\\';
			what[o++] = (char)ch;
		}
	}
	snprintf(what + o, sizeof what - o, "%s\" (which of its values is meant cannot be "
	    "told)", i < n ? "..." : "");
	p->pos = at;
	fail(p, what);
}

/*
 * Whether the key may have been given before in its object: a bit of 64
 * stands for keys of its length and bytes, set as each comes (*sig, the
 * object's).  Most keys find their bit clear, and are looked at no more.
 */
static int
dup_seen(uint64_t *sig, const hm_buf *key)
{
	size_t n = key->len;
	const unsigned char *k = (const unsigned char *)key->p;
	unsigned h = n ? (unsigned)(n * 7u) ^ k[0] ^ (k[n - 1] << 1) ^ (k[n / 2] << 2) : 0;
	uint64_t bit = (uint64_t)1 << (h & 63);
	int seen = (*sig & bit) != 0;

	*sig |= bit;
	return seen;
}

static hm_status
dup_key(parser *p, const hm_jv *c, hm_strset *set, const hm_buf *key, size_t at)
{
	const char *k = key->p ? key->p : "";
	size_t i, n = key->len;
	int found = 0;

	if (c->n < DUP_SET_FROM) {
		for (i = 0; i < c->n && !found; i++)
			found = c->klen[i] == n && !memcmp(c->k[i], k, n);
	} else {
		/* the keys added since the last look (all of them, the first time) */
		for (i = set->n; i < c->n; i++)
			if (hm__strset_add(set, c->k[i], c->klen[i], i) != HM_OK) {
				p->nomem = 1;
				return HM_ENOMEM;
			}
		found = hm__strset_find(set, k, n) != (size_t)-1;
	}
	if (!found)
		return HM_OK;
	dup_fail(p, k, n, at);
	return HM_EINPUT;
}

static hm_jv *
parse_container(parser *p, int obj)
{
	hm_jv *c = hm__jv_new(obj ? HM_JV_OBJECT : HM_JV_ARRAY);
	hm_strset keys = {0}; /* HM_JV_NODUP: a large object's keys */
	uint64_t sig = 0;     /* ... and a bit of each key's (dup_bit) */

	if (!c) {
		p->nomem = 1;
		return NULL;
	}
	if (p->flags & HM_JV_LAX ? ++p->depth > LAX_MAX_DEPTH : ++p->depth >= MAX_DEPTH) {
		fail(p, HM_JSON_TOO_DEEP);
		goto bad;
	}
	p->pos++;
	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']')) {
		p->pos++;
		p->depth--;
		return c;
	}
	for (;;) {
		hm_jv *item;

		skip_ws(p);
		if (obj) {
			hm_buf key = {0};
			size_t kat;

			if (p->pos >= p->len) {
				fail(p, "EOF while parsing an object");
				goto bad;
			}
			if (p->s[p->pos] != '"') {
				if (p->flags & HM_JV_LAX)
					p->pos++; /* the lenient grammar's place: the byte after */
				fail(p, "key must be a string");
				goto bad;
			}
			kat = p->pos;
			if (parse_string(p, &key) != HM_OK) {
				hm_buf_free(&key);
				goto bad;
			}
			if ((p->flags & HM_JV_NODUP) && dup_seen(&sig, &key) &&
			    dup_key(p, c, &keys, &key, kat) != HM_OK) {
				hm_buf_free(&key);
				goto bad;
			}
			skip_ws(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				hm_buf_free(&key);
				fail(p, p->pos >= p->len ? "EOF while parsing an object" : "expected `:`");
				goto bad;
			}
			p->pos++;
			if (!(item = parse_value(p))) {
				hm_buf_free(&key);
				goto bad;
			}
			if (!key.p && !(key.p = hm__memdup("", 0))) {
				hm__jv_free(item);
				p->nomem = 1;
				goto bad;
			}
			if (hm__jv_set_owned(c, key.p, key.len, item) != HM_OK) {
				p->nomem = 1;
				goto bad;
			}
		} else {
			if (!(item = parse_value(p)))
				goto bad;
			if (hm__jv_push(c, item) != HM_OK) {
				p->nomem = 1;
				goto bad;
			}
		}
		skip_ws(p);
		if (p->pos >= p->len) {
			fail(p, obj ? "EOF while parsing an object" : "EOF while parsing a list");
			goto bad;
		}
		if (p->s[p->pos] == ',') {
			p->pos++;
			skip_ws(p);
			if (p->pos < p->len && p->s[p->pos] == (obj ? '}' : ']') &&
			    !(p->flags & HM_JV_LAX)) {
				fail(p, "trailing comma");
				goto bad;
			}
			continue;
		}
		if (p->s[p->pos] == (obj ? '}' : ']')) {
			p->pos++;
			p->depth--;
			if (keys.e)
				hm__strset_free(&keys);
			return c;
		}
		fail(p, obj ? "expected `,` or `}`" : "expected `,` or `]`");
		goto bad;
	}
bad:
	if (keys.e)
		hm__strset_free(&keys);
	hm__jv_free(c);
	return NULL;
}

static hm_jv *
parse_value1(parser *p)
{
	hm_jv *v;

	switch (p->s[p->pos]) {
	case '{':
		return parse_container(p, 1);
	case '[':
		return parse_container(p, 0);
	case '"': {
		hm_buf b = {0};

		if (parse_string(p, &b) != HM_OK) {
			hm_buf_free(&b);
			return NULL;
		}
		if (!b.p && !(b.p = hm__memdup("", 0))) {
			p->nomem = 1;
			return NULL;
		}
		if (!(v = hm__jv_new(HM_JV_STRING))) {
			hm_buf_free(&b);
			p->nomem = 1;
			return NULL;
		}
		v->s = b.p;
		v->len = b.len;
		return v;
	}
	case 't':
		if (literal(p, "true") != HM_OK)
			return NULL;
		v = hm__jv_new(HM_JV_TRUE);
		break;
	case 'f':
		if (literal(p, "false") != HM_OK)
			return NULL;
		v = hm__jv_new(HM_JV_FALSE);
		break;
	case 'n':
		if (literal(p, "null") != HM_OK)
			return NULL;
		v = hm__jv_new(HM_JV_NULL);
		break;
	default:
		if (p->s[p->pos] == '-' || (p->s[p->pos] >= '0' && p->s[p->pos] <= '9'))
			return p->flags & HM_JV_LAX ? lax_number(p) : parse_number(p);
		fail(p, "expected value");
		return NULL;
	}
	if (!v)
		p->nomem = 1;
	return v;
}

static hm_jv *
parse_value(parser *p)
{
	size_t at;
	hm_jv *v;

	skip_ws(p);
	if (p->pos >= p->len) {
		fail(p, "EOF while parsing a value");
		return NULL;
	}
	at = p->pos;
	if ((v = parse_value1(p)))
		v->pos = at;
	return v;
}

hm_status
hm__jv_read(const char *buf, size_t len, size_t *pos, int whole, unsigned flags,
            hm_jv **out, char *err, size_t errsz, size_t *errpos)
{
	char dummy[8];
	parser p;
	hm_jv *v;

	memset(&p, 0, sizeof p);
	p.s = (const unsigned char *)buf;
	p.len = len;
	/* Without a message buffer the position is still wanted. */
	p.err = err && errsz ? err : dummy;
	p.errsz = err && errsz ? errsz : sizeof dummy;
	p.flags = flags;
	p.err[0] = '\0';
	p.pos = pos ? *pos : 0;
	/* The lenient grammar skips a UTF-8 byte order mark (before 2 bytes or more). */
	if ((flags & HM_JV_LAX) && p.pos == 0 && len >= 5 && !memcmp(buf, "\xEF\xBB\xBF", 3))
		p.pos = 3;
	v = parse_value(&p);
	if (v && !(flags & HM_JV_LAX)) {
		skip_ws(&p);
		if (whole && p.pos < p.len) {
			fail(&p, "trailing characters");
			hm__jv_free(v);
			v = NULL;
		}
	}
	if (!v && p.nomem)
		p.err[0] = '\0';
	/* the lenient grammar's place is a byte of the text: the last at its end */
	if (!v && (flags & HM_JV_LAX) && p.errpos >= len)
		p.errpos = len ? len - 1 : 0;
	if (!v && errpos)
		*errpos = p.errpos;
	if (pos)
		*pos = p.pos;
	*out = v;
	return v ? HM_OK : p.nomem ? HM_ENOMEM : HM_EINPUT;
}

hm_jv *
hm__jv_parse_ex(const char *buf, size_t len, size_t *pos, int whole,
               unsigned flags, char *err, size_t errsz, size_t *errpos)
{
	hm_jv *v;

	hm__jv_read(buf, len, pos, whole, flags, &v, err, errsz, errpos);
	return v;
}

hm_jv *
hm__jv_parse(const char *buf, size_t len, char *err, size_t errsz)
{
	return hm__jv_parse_ex(buf, len, NULL, 1, 0, err, errsz, NULL);
}

hm_jv *
hm__jv_parse_next(const char *buf, size_t len, size_t *pos, char *err,
                 size_t errsz)
{
	return hm__jv_parse_ex(buf, len, pos, 0, 0, err, errsz, NULL);
}

size_t
hm__text_line(const char *buf, size_t len, size_t off)
{
	const char *p = buf, *end = buf + (off < len ? off : len);
	size_t line = 1;

	while ((p = memchr(p, '\n', (size_t)(end - p)))) {
		line++;
		p++;
	}
	return line;
}

hm_status
hm_json_compact(hm_buf *b, const char *buf, size_t len)
{
	hm_jv *v;
	hm_status st = hm__jv_read(buf, len, NULL, 1, HM_JV_NUMTEXT, &v, NULL, 0, NULL);
	int nomem = 0; /* this call's (b, failed before, fails it too) */

	if (st != HM_OK)
		return st;
	hm__jv_write_to(&nomem, b, v);
	hm__jv_free(v);
	return nomem ? HM_ENOMEM : HM_OK;
}

/*
 * The column (from 1) of the bracket that nests s[0..n) deeper than 127
 * levels, or 0: the id-record reader, whose lenient grammar nests 1000
 * levels, refuses such input first with HM_JSON_TOO_DEEP, as the strict
 * grammar does, rather than as "not a JSON object".
 */
size_t
hm__json_too_deep(const char *s, size_t n)
{
	size_t i, depth = 0;
	int instr = 0;

	for (i = 0; i < n; i++) {
		if (instr) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				instr = 0;
		} else if (s[i] == '"') {
			instr = 1;
		} else if (s[i] == '[' || s[i] == '{') {
			if (++depth >= 128)
				return i + 1;
		} else if ((s[i] == ']' || s[i] == '}') && depth) {
			depth--;
		}
	}
	return 0;
}

/* The value of the four hex digits at s[0..4), or -1. */
static long
flaw_hex4(const char *s)
{
	long v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

int
hm__json_flaw(const char *s, size_t n, int utf8, char *msg, size_t size, size_t *at)
{
	size_t i, k;
	int instr = 0;
	long u, lo;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x80) {
			if (utf8 && !(k = hm__utf8_len((const unsigned char *)s + i, n - i))) {
				snprintf(msg, size, "bytes that are not UTF-8 at byte %zu", i);
				break;
			}
			if (utf8)
				i += k - 1;
			continue;
		}
		if (!instr) {
			instr = c == '"';
			continue;
		}
		if (c < 0x20) {
			snprintf(msg, size, "raw control character U+%04X in a string at byte %zu "
			    "(JSON writes it escaped)", (unsigned)c, i);
			break;
		}
		if (c == '"') {
			instr = 0;
			continue;
		}
		if (c != '\\' || i + 1 >= n)
			continue;
		if (s[i + 1] != 'u' || n - i < 6 || (u = flaw_hex4(s + i + 2)) < 0xD800 ||
		    u > 0xDFFF) {
			i++;
			continue;
		}
		if (u < 0xDC00 && n - i >= 12 && s[i + 6] == '\\' && s[i + 7] == 'u' &&
		    (lo = flaw_hex4(s + i + 8)) >= 0xDC00 && lo <= 0xDFFF) {
			i += 11;
			continue;
		}
		snprintf(msg, size, "lone surrogate \\u%.4s in a string at byte %zu "
		    "(no character: a pair's half alone)", s + i + 2, i);
		break;
	}
	if (i >= n)
		return 0;
	if (at)
		*at = i;
	return 1;
}
