/*
 * json_schema_num.c - JSON Schema's numbers on the JSON text's decimal
 * value: comparisons (minimum, maximum, exclusive*), equality (const,
 * enum, uniqueItems) and multipleOf, exactly.  A double cannot tell
 * 123456789012345678901234567890 from ...891, nor say that 1e308 is a
 * multiple of 0.01 or that 1e-400 is above 0; the digits can.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_schema_int.h"

/*
 * A JSON number as sign x 0.D1D2...Dn x 10^exp, D1 non-zero and Dn
 * non-zero (n == 0: zero).  The digits are not copied: dig[] indexes the
 * text's digit characters, skipping the decimal point.
 */
typedef struct dec {
	int neg;
	const char *s;      /* the text */
	size_t ib, ie;      /* integer digits s[ib..ie) */
	size_t fb, fe;      /* fraction digits s[fb..fe) */
	size_t first, n;    /* the first significant digit's rank, how many */
	long long exp;
} dec;

/* The k-th digit (from 0) of the integer and fraction digits run together. */
static int
dig(const dec *d, size_t k)
{
	size_t ni = d->ie - d->ib;

	return k < ni ? d->s[d->ib + k] - '0' : d->s[d->fb + (k - ni)] - '0';
}

static void
dec_read(dec *d, const char *s, size_t n)
{
	size_t i = 0, total, k;
	long long e = 0;
	int eneg = 0;

	memset(d, 0, sizeof *d);
	d->s = s;
	if (i < n && s[i] == '-') {
		d->neg = 1;
		i++;
	}
	d->ib = i;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	d->ie = i;
	d->fb = d->fe = i;
	if (i < n && s[i] == '.') {
		d->fb = ++i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		d->fe = i;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			eneg = s[i++] == '-';
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			if (e < 1000000000000000LL)
				e = e * 10 + (s[i] - '0');
	}
	total = (d->ie - d->ib) + (d->fe - d->fb);
	for (k = 0; k < total && dig(d, k) == 0; k++)
		;
	d->first = k;
	if (k == total) {
		d->n = 0;
		d->neg = 0;
		return;
	}
	while (total > k && dig(d, total - 1) == 0)
		total--;
	d->n = total - k;
	/* 0.D x 10^exp: the point sits after the integer digits */
	d->exp = (eneg ? -e : e) + (long long)(d->ie - d->ib) - (long long)k;
}

/* Compare magnitudes. */
static int
mag_cmp(const dec *a, const dec *b)
{
	size_t i;

	if (!a->n || !b->n)
		return (a->n != 0) - (b->n != 0);
	if (a->exp != b->exp)
		return a->exp < b->exp ? -1 : 1;
	for (i = 0; i < a->n && i < b->n; i++) {
		int x = dig(a, a->first + i), y = dig(b, b->first + i);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return (a->n > b->n) - (a->n < b->n);
}

int
hm__num_cmp(const char *as, size_t an, const char *bs, size_t bn)
{
	dec a, b;
	int m;

	dec_read(&a, as, an);
	dec_read(&b, bs, bn);
	if (a.neg != b.neg)
		return a.neg ? -1 : 1;
	m = mag_cmp(&a, &b);
	return a.neg ? -m : m;
}

int
hm__num_positive(const char *s, size_t n)
{
	dec a;

	dec_read(&a, s, n);
	return a.n && !a.neg;
}

__extension__ typedef unsigned __int128 u128;

/* 10^k mod m (m > 0). */
static uint64_t
pow10_mod(long long k, uint64_t m)
{
	u128 r = 1 % m, b = 10 % m;

	while (k > 0) {
		if (k & 1)
			r = r * b % m;
		b = b * b % m;
		k >>= 1;
	}
	return (uint64_t)r;
}

int
hm__num_multiple(const char *as, size_t an, const char *ms, size_t mn)
{
	dec a, m;
	uint64_t M = 0, r = 0;
	long long ea, em, e;
	size_t i;

	dec_read(&a, as, an);
	dec_read(&m, ms, mn);
	if (!a.n)
		return 1;
	if (!m.n)
		return 0;
	/* a = A x 10^ea, m = M x 10^em with A, M whole (their significant digits) */
	ea = a.exp - (long long)a.n;
	em = m.exp - (long long)m.n;
	if (m.n > 19) {
		/* a divisor of more than 19 digits: the double's answer */
		double q = strtod(as, NULL) / strtod(ms, NULL);

		return isfinite(q) && q == floor(q);
	}
	for (i = 0; i < m.n; i++)
		M = M * 10 + (uint64_t)dig(&m, m.first + i);
	if (em > ea) {
		/*
		 * A would be a multiple of M x 10^(em-ea), so of 10: it is not,
		 * its last digit is not zero.
		 */
		return 0;
	}
	/* A x 10^(ea-em) mod M */
	for (i = 0; i < a.n; i++)
		r = (uint64_t)(((u128)r * 10 + (uint64_t)dig(&a, a.first + i)) % M);
	e = ea - em;
	r = (uint64_t)((u128)r * pow10_mod(e, M) % M);
	return r == 0;
}

uint64_t
hm__num_hash(const char *s, size_t n)
{
	dec a;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	dec_read(&a, s, n);
	h = (h ^ (uint64_t)a.neg) * 0x100000001b3ull;
	h = (h ^ (uint64_t)a.exp) * 0x100000001b3ull;
	for (i = 0; i < a.n; i++)
		h = (h ^ (uint64_t)dig(&a, a.first + i)) * 0x100000001b3ull;
	return h;
}
