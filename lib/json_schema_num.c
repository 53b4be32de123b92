/*
 * json_schema_num.c - JSON Schema's numbers on the JSON text's decimal
 * value: comparisons (minimum, maximum, exclusive*), equality (const,
 * enum, uniqueItems) and multipleOf, exactly.  A double cannot tell
 * 123456789012345678901234567890 from ...891, nor say that 1e308 is a
 * multiple of 0.01 or that 1e-400 is above 0; the digits can.
 */
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

/*
 * Whole numbers of any size for a divisor past 64 bits: little-endian
 * limbs of 32 bits.  A divisor of n digits takes n / 9 + 2 limbs at most.
 */
typedef struct big {
	uint32_t *l;
	size_t n, cap;
} big;

/* b = b x k + add (k, add < 2^32); 0 when out of memory. */
static int
big_muladd(big *b, uint32_t k, uint32_t add)
{
	uint64_t carry = add;
	size_t i;

	for (i = 0; i < b->n; i++) {
		uint64_t t = (uint64_t)b->l[i] * k + carry;

		b->l[i] = (uint32_t)t;
		carry = t >> 32;
	}
	if (carry) {
		if (b->n == b->cap) {
			size_t cap = b->cap ? 2 * b->cap : 8;
			uint32_t *l = realloc(b->l, cap * sizeof *l);

			if (!l)
				return 0;
			b->l = l;
			b->cap = cap;
		}
		b->l[b->n++] = (uint32_t)carry;
	}
	return 1;
}

/*
 * Whether k (0 < k < 2^32) divides b; when it does, b becomes b / k.
 * -1: out of memory.
 */
static int
big_divides(big *b, uint32_t k)
{
	uint64_t r = 0;
	size_t i;
	uint32_t *q = malloc((b->n ? b->n : 1) * sizeof *q);

	if (!q)
		return -1;
	for (i = b->n; i-- > 0;) {
		uint64_t t = (r << 32) | b->l[i];

		q[i] = (uint32_t)(t / k);
		r = t % k;
	}
	if (!r) {
		memcpy(b->l, q, b->n * sizeof *q);
		while (b->n && !b->l[b->n - 1])
			b->n--;
	}
	free(q);
	return r == 0;
}

static int
big_cmp(const big *a, const big *b)
{
	size_t i;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	for (i = a->n; i-- > 0;)
		if (a->l[i] != b->l[i])
			return a->l[i] < b->l[i] ? -1 : 1;
	return 0;
}

/* a -= b (a >= b). */
static void
big_sub(big *a, const big *b)
{
	uint64_t borrow = 0;
	size_t i;

	for (i = 0; i < a->n; i++) {
		uint64_t t = (uint64_t)a->l[i] - (i < b->n ? b->l[i] : 0) - borrow;

		a->l[i] = (uint32_t)t;
		borrow = (t >> 32) & 1;
	}
	while (a->n && !a->l[a->n - 1])
		a->n--;
}

/* The work big_multiple may do, digits of the value times digits of the divisor. */
#define BIG_WORK 4000000

/*
 * Whether A x 10^e is a multiple of M (a's and m's significant digits,
 * e >= 0) for M past 64 bits.  M has no factor 10 (its last digit is not
 * zero), so M = M' x 2^x or M' x 5^y with M' prime to 10: A x 10^e is a
 * multiple of M when it is one of M' (10^e adds nothing there) and of the
 * 2^(x-e) or 5^(y-e) that 10^e does not cover.  That divisor D is built,
 * then A mod D is taken a digit at a time.  -1: more digits than BIG_WORK
 * allows (a hostile pair of numbers), which the caller says; -2: out of
 * memory.
 */
static int
big_multiple(const dec *a, const dec *m, long long e)
{
	big d = {0}, r = {0};
	/* M ends in a non-zero digit: an even one holds the 2s, a 5 the 5s */
	int last = dig(m, m->first + m->n - 1), ok = -2, j, q;
	uint32_t p = last % 2 == 0 ? 2 : last == 5 ? 5 : 0;
	long long k = 0;
	size_t i;

	if ((double)a->n * (double)m->n > BIG_WORK)
		return -1;
	for (i = 0; i < m->n; i++)
		if (!big_muladd(&d, 10, (uint32_t)dig(m, m->first + i)))
			goto out;
	/* d = M' x p^(k - e), k the power of p in M */
	if (p) {
		while ((q = big_divides(&d, p)) > 0)
			k++;
		if (q < 0)
			goto out;
		for (; k > e; k--)
			if (!big_muladd(&d, p, 0))
				goto out;
	}
	for (i = 0; i < a->n; i++) {
		if (!big_muladd(&r, 10, (uint32_t)dig(a, a->first + i)))
			goto out;
		for (j = 0; j < 10 && big_cmp(&r, &d) >= 0; j++)
			big_sub(&r, &d);
	}
	ok = r.n == 0;
out:
	free(d.l);
	free(r.l);
	return ok;
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
	if (m.n > 19)
		return em > ea ? 0 : big_multiple(&a, &m, ea - em);
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
