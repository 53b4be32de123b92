/*
 * json_carry.c - the carried form of JSON members (records_int.h states
 * its rules): any text a JSON reader took, written again in that one
 * compact form, a token at a time, without a tree.  The record scanner
 * (records_scan.c) copies text already in the form; what it cannot copy
 * comes here: from the general record reader and from hm_writer_begin.
 */
#include <stdint.h>
#include <string.h>

#include "records_int.h"

static size_t
skip_blank(const char *s, size_t n, size_t i)
{
	/* Every byte up to the space: what the lenient reader skips too. */
	while (i < n && (unsigned char)s[i] <= 0x20)
		i++;
	return i;
}

static int
hex4(const char *s, size_t n, size_t i, uint32_t *cp)
{
	int k, h;

	if (n - i < 4)
		return 0;
	for (*cp = 0, k = 0; k < 4; k++) {
		if ((h = hm__hexval(s[i + k])) < 0)
			return 0;
		*cp = *cp * 16 + (uint32_t)h;
	}
	return 1;
}

size_t
hm__json_uescape(const char *s, size_t n, uint32_t *cp)
{
	uint32_t lo;
	size_t k = 4;

	if (!hex4(s, n, 0, cp))
		return 0;
	if (*cp >= 0xD800 && *cp < 0xDC00 && n >= 10 && s[4] == '\\' &&
	    s[5] == 'u' && hex4(s, n, 6, &lo) && lo >= 0xDC00 && lo < 0xE000) {
		*cp = 0x10000 + ((*cp - 0xD800) << 10) + (lo - 0xDC00);
		k = 10;
	}
	/* A lone surrogate has no UTF-8: U+FFFD in its place. */
	if (*cp >= 0xD800 && *cp < 0xE000)
		*cp = 0xFFFD;
	return k;
}

/*
 * The string at s[*pi] == '"', decoded and written as hm_buf_json_str
 * writes text.  The bytes between escapes go through the same escaper
 * run by run: an escape never decodes to a UTF-8 continuation byte, so
 * a run's bytes are valid UTF-8 exactly when they are in the whole text.
 */
static int
carry_string(hm_buf *out, const char *s, size_t n, size_t *pi)
{
	size_t i = *pi + 1, run;

	hm_buf_addc(out, '"');
	for (;;) {
		uint32_t cp;
		char u[4];
		size_t k;
		int e;

		for (run = i; run < n && s[run] != '"' && s[run] != '\\'; run++)
			;
		hm_buf_json_body(out, s + i, run - i);
		if (run >= n)
			return 0;
		if (s[run] == '"') {
			*pi = run + 1;
			hm_buf_addc(out, '"');
			return 1;
		}
		if (run + 1 >= n)
			return 0;
		i = run + 2;
		if ((e = hm__json_escape(s[run + 1])) >= 0)
			cp = (uint32_t)e;
		else if (s[run + 1] == 'u' && (e = (int)hm__json_uescape(s + i, n - i, &cp)))
			i += (size_t)e;
		else
			return 0;
		/* Encoded, then escaped as any other text would be. */
		if (cp < 0x80) {
			u[0] = (char)cp;
			k = 1;
		} else if (cp < 0x800) {
			u[0] = (char)(0xC0 | cp >> 6);
			u[1] = (char)(0x80 | (cp & 0x3F));
			k = 2;
		} else if (cp < 0x10000) {
			u[0] = (char)(0xE0 | cp >> 12);
			u[1] = (char)(0x80 | (cp >> 6 & 0x3F));
			u[2] = (char)(0x80 | (cp & 0x3F));
			k = 3;
		} else {
			u[0] = (char)(0xF0 | cp >> 18);
			u[1] = (char)(0x80 | (cp >> 12 & 0x3F));
			u[2] = (char)(0x80 | (cp >> 6 & 0x3F));
			u[3] = (char)(0x80 | (cp & 0x3F));
			k = 4;
		}
		hm_buf_json_body(out, u, k);
	}
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * The number at s[*pi], as written but for two forms JSON does not allow
 * and lenient readers take: leading zeros (01 is 1, -.5 is -0.5) and a
 * point with no digit after it (1. is 1).
 */
static int
carry_number(hm_buf *out, const char *s, size_t n, size_t *pi)
{
	size_t i = *pi, z0, d0, d1, f0, f1, e0, e1;

	if (i < n && s[i] == '-')
		i++;
	for (z0 = i; i < n && s[i] == '0'; i++)
		;
	for (d0 = i; i < n && is_digit(s[i]); i++)
		;
	d1 = f0 = f1 = i;
	if (i < n && s[i] == '.') {
		for (f0 = ++i; i < n && is_digit(s[i]); i++)
			;
		f1 = i;
	}
	if (d1 == z0 && f1 == f0)
		return 0; /* no digit: "-", "." */
	e0 = i;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		if (++i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i == n || !is_digit(s[i]))
			return 0;
		while (i < n && is_digit(s[i]))
			i++;
	}
	e1 = i;
	if (i < n && (is_digit(s[i]) || s[i] == '.' || s[i] == '-' || s[i] == '+' ||
	    s[i] == 'e' || s[i] == 'E'))
		return 0;
	if (s[*pi] == '-')
		hm_buf_addc(out, '-');
	if (d1 > d0)
		hm_buf_add(out, s + d0, d1 - d0);
	else
		hm_buf_addc(out, '0');
	if (f1 > f0) {
		hm_buf_addc(out, '.');
		hm_buf_add(out, s + f0, f1 - f0);
	}
	hm_buf_add(out, s + e0, e1 - e0);
	*pi = i;
	return 1;
}

int
hm__carry_value(hm_buf *out, const char *s, size_t n, size_t *pi)
{
	size_t i = *pi;
	unsigned depth = 0;

	for (;;) {
		i = skip_blank(s, n, i);
		if (i >= n)
			return 0;
		switch (s[i]) {
		case '{':
		case '[':
			hm_buf_addc(out, s[i++]);
			depth++;
			continue;
		case '}':
		case ']':
			if (!depth)
				return 0;
			hm_buf_addc(out, s[i++]);
			depth--;
			break;
		case ',':
		case ':':
			if (!depth)
				return 0;
			hm_buf_addc(out, s[i++]);
			continue;
		case '"':
			if (!carry_string(out, s, n, &i))
				return 0;
			break;
		case 't':
		case 'n':
			if (n - i < 4 || memcmp(s + i, s[i] == 't' ? "true" : "null", 4))
				return 0;
			hm_buf_add(out, s + i, 4);
			i += 4;
			break;
		case 'f':
			if (n - i < 5 || memcmp(s + i, "false", 5))
				return 0;
			hm_buf_add(out, s + i, 5);
			i += 5;
			break;
		default:
			if (!carry_number(out, s, n, &i))
				return 0;
		}
		if (!depth) {
			*pi = i;
			return 1;
		}
	}
}

int
hm__carry_members(hm_buf *out, const char *s, size_t n, size_t *pi,
    int (*keep)(void *, const char *, size_t, const char *, size_t), void *arg)
{
	size_t i = skip_blank(s, n, *pi), start = out->len;

	while (i < n && s[i] != '}') {
		size_t before = out->len, ks, vs;

		if (out->len > start)
			hm_buf_addc(out, ',');
		ks = out->len;
		if (s[i] != '"' || !carry_string(out, s, n, &i))
			return 0;
		i = skip_blank(s, n, i);
		if (i >= n || s[i] != ':')
			return 0;
		hm_buf_addc(out, ':');
		vs = out->len;
		i++;
		if (!hm__carry_value(out, s, n, &i) || out->oom)
			return 0;
		if (keep && !keep(arg, out->p + ks + 1, vs - ks - 3, out->p + vs, out->len - vs)) {
			out->len = before;
			out->p[before] = '\0';
		}
		i = skip_blank(s, n, i);
		if (i < n && s[i] == ',')
			i = skip_blank(s, n, i + 1);
		else if (i < n && s[i] != '}')
			return 0;
	}
	*pi = i;
	return 1;
}

/* What hm__carry_object's members pass through. */
struct object_keep {
	const char *drop; /* the key of the member to leave out, NULL: none */
	size_t dropn;
	hm_buf *id;       /* the first "id" member's value, when not NULL */
	int *has_id;
};

static int
object_keep(void *arg, const char *k, size_t kn, const char *v, size_t vn)
{
	struct object_keep *ok = arg;

	if (ok->id && !*ok->has_id && kn == 2 && k[0] == 'i' && k[1] == 'd') {
		hm_buf_add(ok->id, v, vn);
		*ok->has_id = 1;
	}
	if (ok->drop && kn == ok->dropn && !memcmp(k, ok->drop, kn)) {
		ok->drop = NULL;
		return 0;
	}
	return 1;
}

int
hm__carry_object(hm_buf *out, const char *s, size_t n, const char *drop, hm_buf *id,
    int *has_id)
{
	struct object_keep ok;
	size_t i = skip_blank(s, n, 0);

	ok.drop = drop;
	ok.dropn = drop ? strlen(drop) : 0;
	ok.id = id;
	ok.has_id = has_id;
	if (i >= n || s[i] != '{')
		return 0;
	i++;
	if (!hm__carry_members(out, s, n, &i, object_keep, &ok) || i >= n)
		return 0;
	/* allocated and NUL-terminated even when empty: read as strings */
	hm_buf_add(out, "", 0);
	if (id)
		hm_buf_add(id, "", 0);
	return !out->oom && !(id && id->oom);
}
