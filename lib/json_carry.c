/*
 * json_carry.c - the carried form of JSON members (records_int.h states
 * its rules): any text a JSON reader took, written again in that one
 * compact form, a token at a time, without a tree.  The record scanner
 * (records_scan.c) copies text already in the form; what it cannot copy
 * comes here: from the general record reader and from hm_writer_begin.
 *
 * Every append names the flag of out's owner (nm); a token no reader
 * takes is HM_EINPUT, a failed append HM_ENOMEM.
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
	/*
	 * A lone surrogate has no UTF-8: an error in every reader, as in
	 * serde_json's (json_val_int.h, hm__json_flaw), never a silent U+FFFD.
	 */
	if (*cp >= 0xD800 && *cp < 0xE000)
		return 0;
	return k;
}

/*
 * The string at s[*pi] == '"', decoded and written as hm_buf_json_str
 * writes text.  The bytes between escapes go through the same escaper
 * run by run: an escape never decodes to a UTF-8 continuation byte, so
 * a run's bytes are valid UTF-8 exactly when they are in the whole text.
 */
static hm_status
carry_string(int *nm, hm_buf *out, const char *s, size_t n, size_t *pi)
{
	size_t i = *pi + 1, run;

	hm__putc(nm, out, '"');
	for (;;) {
		uint32_t cp;
		char u[4];
		size_t k;
		int e;

		for (run = i; run < n && s[run] != '"' && s[run] != '\\'; run++)
			;
		hm__json_body(nm, out, s + i, run - i);
		if (run >= n)
			return HM_EINPUT;
		if (s[run] == '"') {
			*pi = run + 1;
			hm__putc(nm, out, '"');
			return HM_OK;
		}
		if (run + 1 >= n)
			return HM_EINPUT;
		i = run + 2;
		if ((e = hm__json_escape(s[run + 1])) >= 0)
			cp = (uint32_t)e;
		else if (s[run + 1] == 'u' && (e = (int)hm__json_uescape(s + i, n - i, &cp)))
			i += (size_t)e;
		else
			return HM_EINPUT;
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
		hm__json_body(nm, out, u, k);
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
static hm_status
carry_number(int *nm, hm_buf *out, const char *s, size_t n, size_t *pi)
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
		return HM_EINPUT; /* no digit: "-", "." */
	e0 = i;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		if (++i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i == n || !is_digit(s[i]))
			return HM_EINPUT;
		while (i < n && is_digit(s[i]))
			i++;
	}
	e1 = i;
	if (i < n && (is_digit(s[i]) || s[i] == '.' || s[i] == '-' || s[i] == '+' ||
	    s[i] == 'e' || s[i] == 'E'))
		return HM_EINPUT;
	if (s[*pi] == '-')
		hm__putc(nm, out, '-');
	if (d1 > d0)
		hm__add(nm, out, s + d0, d1 - d0);
	else
		hm__putc(nm, out, '0');
	if (f1 > f0) {
		hm__putc(nm, out, '.');
		hm__add(nm, out, s + f0, f1 - f0);
	}
	hm__add(nm, out, s + e0, e1 - e0);
	*pi = i;
	return HM_OK;
}

hm_status
hm__carry_value_to(int *nomem, hm_buf *out, const char *s, size_t n, size_t *pi)
{
	size_t i = *pi;
	unsigned depth = 0;

	for (;;) {
		i = skip_blank(s, n, i);
		if (i >= n)
			return HM_EINPUT;
		switch (s[i]) {
		case '{':
		case '[':
			hm__putc(nomem, out, s[i++]);
			depth++;
			continue;
		case '}':
		case ']':
			if (!depth)
				return HM_EINPUT;
			hm__putc(nomem, out, s[i++]);
			depth--;
			break;
		case ',':
		case ':':
			if (!depth)
				return HM_EINPUT;
			hm__putc(nomem, out, s[i++]);
			continue;
		case '"':
			if (carry_string(nomem, out, s, n, &i) != HM_OK)
				return HM_EINPUT;
			break;
		case 't':
		case 'n':
			if (n - i < 4 || memcmp(s + i, s[i] == 't' ? "true" : "null", 4))
				return HM_EINPUT;
			hm__add(nomem, out, s + i, 4);
			i += 4;
			break;
		case 'f':
			if (n - i < 5 || memcmp(s + i, "false", 5))
				return HM_EINPUT;
			hm__add(nomem, out, s + i, 5);
			i += 5;
			break;
		default:
			if (carry_number(nomem, out, s, n, &i) != HM_OK)
				return HM_EINPUT;
		}
		if (!depth) {
			*pi = i;
			return *nomem ? HM_ENOMEM : HM_OK;
		}
	}
}


hm_status
hm__carry_members_to(int *nomem, hm_buf *out, const char *s, size_t n, size_t *pi,
    int (*keep)(void *, const char *, size_t, const char *, size_t), void *arg)
{
	size_t i = skip_blank(s, n, *pi), start = out->len;
	hm_status st;

	while (i < n && s[i] != '}') {
		size_t before = out->len, ks, vs;

		if (out->len > start)
			hm__putc(nomem, out, ',');
		ks = out->len;
		if (s[i] != '"' || carry_string(nomem, out, s, n, &i) != HM_OK)
			return HM_EINPUT;
		i = skip_blank(s, n, i);
		if (i >= n || s[i] != ':')
			return HM_EINPUT;
		hm__putc(nomem, out, ':');
		vs = out->len;
		i++;
		/* what keep is shown must be whole: no look after a failed append */
		if ((st = hm__carry_value_to(nomem, out, s, n, &i)) != HM_OK)
			return st;
		if (keep && !keep(arg, out->p + ks + 1, vs - ks - 3, out->p + vs, out->len - vs)) {
			out->len = before;
			out->p[before] = '\0';
		}
		i = skip_blank(s, n, i);
		if (i < n && s[i] == ',')
			i = skip_blank(s, n, i + 1);
		else if (i < n && s[i] != '}')
			return HM_EINPUT;
	}
	*pi = i;
	return *nomem ? HM_ENOMEM : HM_OK;
}


/* What hm__carry_object's members pass through. */
struct object_keep {
	const char *drop; /* the key of the member to leave out, NULL: none */
	size_t dropn;
	hm_buf *id;       /* the first "id" member's value, when not NULL */
	int *has_id;
	int *nomem;       /* id's owner's flag */
};

static int
object_keep(void *arg, const char *k, size_t kn, const char *v, size_t vn)
{
	struct object_keep *ok = arg;

	if (ok->id && !*ok->has_id && kn == 2 && k[0] == 'i' && k[1] == 'd') {
		hm__add(ok->nomem, ok->id, v, vn);
		*ok->has_id = 1;
	}
	if (ok->drop && kn == ok->dropn && !memcmp(k, ok->drop, kn)) {
		ok->drop = NULL;
		return 0;
	}
	return 1;
}

hm_status
hm__carry_object_to(int *nomem, hm_buf *out, const char *s, size_t n, const char *drop,
    hm_buf *id, int *has_id)
{
	struct object_keep ok;
	size_t i = skip_blank(s, n, 0);
	hm_status st;

	ok.drop = drop;
	ok.dropn = drop ? strlen(drop) : 0;
	ok.id = id;
	ok.has_id = has_id;
	ok.nomem = nomem;
	if (i >= n || s[i] != '{')
		return HM_EINPUT;
	i++;
	if ((st = hm__carry_members_to(nomem, out, s, n, &i, object_keep, &ok)) != HM_OK)
		return st;
	if (i >= n)
		return HM_EINPUT;
	/* allocated and NUL-terminated even when empty: read as strings */
	hm__add(nomem, out, "", 0);
	if (id)
		hm__add(nomem, id, "", 0);
	return *nomem ? HM_ENOMEM : HM_OK;
}

int
hm__carry_object(hm_buf *out, const char *s, size_t n, const char *drop, hm_buf *id,
    int *has_id)
{
	/*
	 * Two buffers, each its own owner: the callers tell which failed by
	 * their flags (hm__reserve sets them), so the one flag here is a local.
	 */
	int nomem = 0;

	return hm__carry_object_to(&nomem, out, s, n, drop, id, has_id) == HM_OK;
}
