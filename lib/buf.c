/* buf.c - growable byte buffer, UTF-8 decoding, JSON strings. */
#include <stdlib.h>
#include <string.h>

#include "buf_int.h"
#include "facts_int.h"

/*
 * The one place a buffer's allocation fails: the owner's flag is set
 * here, and the buffer's own (sticky: a failed buffer takes no more).
 */
hm_status
hm__reserve(int *nomem, hm_buf *b, size_t n)
{
	size_t cap;
	char *p;

	if (b->oom)
		goto fail;
	if (b->len + n + 1 <= b->cap)
		return HM_OK;
	cap = b->cap ? b->cap : 64;
	while (cap < b->len + n + 1) {
		if (cap > SIZE_MAX / 2)
			goto fail;
		cap *= 2;
	}
	p = realloc(b->p, cap);
	if (!p)
		goto fail;
	b->p = p;
	b->cap = cap;
	return HM_OK;
fail:
	b->oom = 1;
	*nomem = 1;
	return HM_ENOMEM;
}

void
hm__add(int *nomem, hm_buf *b, const void *p, size_t n)
{
	/* Room for n bytes and the NUL: no call (cap - len cannot wrap). */
	if ((b->cap - b->len <= n || b->oom) && hm__reserve(nomem, b, n) != HM_OK)
		return;
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
hm__adds(int *nomem, hm_buf *b, const char *s)
{
	hm__add(nomem, b, s, strlen(s));
}

void
hm__addu(int *nomem, hm_buf *b, unsigned long long v)
{
	char tmp[24];
	size_t i = sizeof tmp;

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	hm__add(nomem, b, tmp + i, sizeof tmp - i);
}

/* A buffer standing alone owns itself. */
int
hm_buf_reserve(hm_buf *b, size_t n)
{
	return hm__reserve(&b->oom, b, n) == HM_OK ? 0 : -1;
}

void
hm_buf_add(hm_buf *b, const void *p, size_t n)
{
	hm__add(&b->oom, b, p, n);
}

void
hm_buf_adds(hm_buf *b, const char *s)
{
	hm__adds(&b->oom, b, s);
}

void
hm_buf_addc(hm_buf *b, char c)
{
	hm__putc(&b->oom, b, c);
}

void
hm_buf_addu(hm_buf *b, unsigned long long v)
{
	hm__addu(&b->oom, b, v);
}

void
hm_buf_free(hm_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}

void
hm_buf_reset(hm_buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

void
hm__add_cp(int *nomem, hm_buf *b, uint32_t cp)
{
	char u[4];

	if (cp < 0x80) {
		u[0] = (char)cp;
		hm__add(nomem, b, u, 1);
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3F));
		hm__add(nomem, b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		hm__add(nomem, b, u, 3);
	} else {
		u[0] = (char)(0xF0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 0x3F));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3F));
		u[3] = (char)(0x80 | (cp & 0x3F));
		hm__add(nomem, b, u, 4);
	}
}

size_t
hm_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp, size_t *bad)
{
	unsigned c = s[0];
	size_t need, i;
	uint32_t v;
	unsigned lo, hi;

	*bad = 1;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (!(need = hm__utf8_lead(c, &lo, &hi)))
		return 0;
	v = c & (0x3Fu >> need); /* the lead's payload: 5, 4 or 3 bits */
	for (i = 1; i <= need; i++) {
		unsigned d;

		if (i >= n)
			return 0;
		d = s[i];
		if (d < lo || d > hi)
			return 0;
		lo = 0x80;
		hi = 0xBF;
		v = v << 6 | (d & 0x3F);
		*bad = i + 1;
	}
	*cp = v;
	return need + 1;
}

size_t
hm_utf8_valid_prefix(const char *buf, size_t len)
{
	const unsigned char *s = (const unsigned char *)buf;
	size_t i = 0, k, bad;
	uint32_t cp;

	while (i < len) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		k = hm_utf8_decode(s + i, len - i, &cp, &bad);
		if (!k)
			return i;
		i += k;
	}
	return len;
}

#define ONES UINT64_C(0x0101010101010101)
#define HIGH UINT64_C(0x8080808080808080)

/*
 * The bytes of 8 that need attention (a control character, '"', '\\' or a
 * byte >= 0x80), as their high bits: 0 when none does.  (x - ONES * c) &
 * ~x & HIGH flags the bytes of x below c (c <= 0x80); equality is "below
 * 1" after an xor.  A borrow can flag a byte after one that is flagged
 * rightly, never before it: the lowest bit set is the first byte.
 */
static uint64_t
attn8(const unsigned char *s)
{
	uint64_t x, q, e;

	memcpy(&x, s, 8);
	q = x ^ (ONES * '"');
	e = x ^ (ONES * '\\');
	return (((x - ONES * 0x20) & ~x) | ((q - ONES) & ~q) |
	    ((e - ONES) & ~e) | x) & HIGH;
}

/* Index (0..7) of the first byte flagged in m (not 0), on any host. */
static size_t
first_flagged(uint64_t m, const unsigned char *s)
{
	size_t k = 0;

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	(void)s;
	k = (size_t)__builtin_ctzll(m) / 8;
#else
	/* Byte order aside, the flagged bytes are the ones the test finds. */
	(void)m;
	while (k < 7 && s[k] >= 0x20 && s[k] < 0x80 && s[k] != '"' && s[k] != '\\')
		k++;
#endif
	return k;
}

static int
plain1(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* Runs that need nothing are found a word at a time and copied whole. */
void
hm__json_body(int *nomem, hm_buf *b, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, start = 0, k, bad;
	uint32_t cp;
	unsigned c;

	for (;;) {
		uint64_t m = 0;

		while (i + 8 <= n && !(m = attn8(s + i)))
			i += 8;
		if (m)
			i += first_flagged(m, s + i);
		else {
			while (i < n && plain1(s[i]))
				i++;
			if (i == n)
				break;
		}
		c = s[i];
		if (c >= 0x80) {
			k = hm_utf8_decode(s + i, n - i, &cp, &bad);
			if (k) {
				i += k;
				continue;
			}
			hm__put(nomem, b, s + start, i - start);
			hm__put(nomem, b, "\xEF\xBF\xBD", 3);
			i += bad ? bad : 1;
			start = i;
			continue;
		}
		hm__put(nomem, b, s + start, i - start);
		switch (c) {
		case '"': hm__put(nomem, b, "\\\"", 2); break;
		case '\\': hm__put(nomem, b, "\\\\", 2); break;
		case '\b': hm__put(nomem, b, "\\b", 2); break;
		case '\f': hm__put(nomem, b, "\\f", 2); break;
		case '\n': hm__put(nomem, b, "\\n", 2); break;
		case '\r': hm__put(nomem, b, "\\r", 2); break;
		case '\t': hm__put(nomem, b, "\\t", 2); break;
		default: {
			char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

			hm__put(nomem, b, u, 6);
		}
		}
		start = ++i;
	}
	hm__put(nomem, b, s + start, n - start);
}

void
hm__json_str(int *nomem, hm_buf *b, const char *s, size_t n)
{
	hm__putc(nomem, b, '"');
	if (s)
		hm__json_body(nomem, b, s, n);
	hm__putc(nomem, b, '"');
}

void
hm_buf_json_body(hm_buf *b, const char *s, size_t n)
{
	hm__json_body(&b->oom, b, s, n);
}

void
hm_buf_json_str(hm_buf *b, const char *s, size_t n)
{
	hm__json_str(&b->oom, b, s, n);
}
