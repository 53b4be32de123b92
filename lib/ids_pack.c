/*
 * ids_pack.c - token ids as one checked, compact string and back
 * (ids_pack_int.h states the form).
 *
 * A turn's ids ride to the client and back in a field made for opaque
 * data; the renderer trusts them only when they unpack whole and the
 * check holds, and then only when they parse to the very message they
 * came with (dialect_turn.c).
 */
#include <string.h>

#include "buf_int.h"
#include "ids_pack_int.h"

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static uint32_t
check(const unsigned char *p, size_t n)
{
	uint64_t h = 0xCBF29CE484222325ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001B3ull;
	h += 0x9E3779B97F4A7C15ull;
	h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
	h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
	return (uint32_t)(h ^ (h >> 31));
}

/* Bytes p[0..n) as base64url, no padding. */
static void
put64(int *nomem, hm_buf *b, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		char q[4] = { b64[v >> 18], b64[(v >> 12) & 63], b64[(v >> 6) & 63], b64[v & 63] };

		hm__add(nomem, b, q, 4);
	}
	if (n - i == 1) {
		hm__putc(nomem, b, b64[p[i] >> 2]);
		hm__putc(nomem, b, b64[(p[i] & 3) << 4]);
	} else if (n - i == 2) {
		uint32_t v = (uint32_t)p[i] << 8 | p[i + 1];

		hm__putc(nomem, b, b64[v >> 10]);
		hm__putc(nomem, b, b64[(v >> 4) & 63]);
		hm__putc(nomem, b, b64[(v & 15) << 2]);
	}
}

void
hm__ids_pack(int *nomem, hm_buf *b, const uint32_t *ids, size_t n)
{
	hm_buf raw = { 0 };
	int own = 0; /* the scratch buffer's failures are the owner's */
	uint32_t c;
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t v = ids[i];

		while (v >= 0x80) {
			hm__putc(&own, &raw, (char)(0x80 | (v & 0x7F)));
			v >>= 7;
		}
		hm__putc(&own, &raw, (char)v);
	}
	c = check((const unsigned char *)raw.p, raw.len);
	for (i = 0; i < 4; i++)
		hm__putc(&own, &raw, (char)(c >> (8 * i)));
	hm__adds(nomem, b, HM__PACK_PREFIX);
	if (own)
		*nomem = 1;
	else
		put64(nomem, b, (const unsigned char *)raw.p, raw.len);
	hm_buf_free(&raw);
}

int
hm__ids_packed(const char *s, size_t n)
{
	return n >= 2 && !memcmp(s, HM__PACK_PREFIX, 2);
}

static int
val64(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '-' ? 62 : c == '_' ? 63 : -1;
}

hm_status
hm__ids_unpack(const char *s, size_t n, hm_ids *out, const char **why)
{
	hm_buf raw = { 0 };
	int own = 0;
	size_t i, len;
	uint32_t acc = 0, v = 0;
	unsigned bits = 0, shift = 0;
	const unsigned char *p;
	hm_status st = HM_OK;

	out->len = 0;
	*why = NULL;
	if (!hm__ids_packed(s, n)) {
		*why = "not of the form h1...";
		return HM_EINPUT;
	}
	s += 2, n -= 2;
	if (n % 4 == 1) {
		*why = "its length is no base64url length";
		return HM_EINPUT;
	}
	for (i = 0; i < n; i++) {
		int d = val64(s[i]);

		if (d < 0) {
			*why = "a character outside base64url";
			hm_buf_free(&raw);
			return HM_EINPUT;
		}
		acc = acc << 6 | (uint32_t)d;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			hm__putc(&own, &raw, (char)(acc >> bits));
			acc &= (1u << bits) - 1;
		}
	}
	if (own) {
		hm_buf_free(&raw);
		return HM_ENOMEM;
	}
	/* the padding bits are zero in the one spelling pack writes */
	if (acc || raw.len < 4) {
		*why = acc ? "stray bits at its end" : "too short";
		hm_buf_free(&raw);
		return HM_EINPUT;
	}
	p = (const unsigned char *)raw.p;
	len = raw.len - 4;
	if (check(p, len) != ((uint32_t)p[len] | (uint32_t)p[len + 1] << 8 |
	    (uint32_t)p[len + 2] << 16 | (uint32_t)p[len + 3] << 24)) {
		*why = "its check does not hold (edited or cut)";
		hm_buf_free(&raw);
		return HM_EINPUT;
	}
	for (i = 0; i < len && st == HM_OK; i++) {
		if (shift > 28 || (shift == 28 && (p[i] & 0x70))) {
			*why = "an id longer than 32 bits";
			st = HM_EINPUT;
			break;
		}
		v |= (uint32_t)(p[i] & 0x7F) << shift;
		shift += 7;
		if (p[i] & 0x80)
			continue;
		if (v >= HM_N_TOKENS) {
			*why = "an id past the vocabulary";
			st = HM_EINPUT;
			break;
		}
		st = hm_ids_push(out, v);
		v = 0, shift = 0;
	}
	if (st == HM_OK && shift) {
		*why = "a varint cut off";
		st = HM_EINPUT;
	}
	hm_buf_free(&raw);
	return st;
}
