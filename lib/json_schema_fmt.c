/*
 * json_schema_fmt.c - the values of JSON Schema's `format`: whether a
 * string is a date-time, an email address, an IPv6 address ...  Which
 * formats assert and when (the draft, the options) is json_schema.c's
 * business; this file only knows the formats.
 */
#include <string.h>

#include "json_schema_int.h"

static int
isxdigit_c(char c)
{
	return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'f');
}

/* Length of a URI's scheme and colon ("http:"), or 0 for a relative reference. */
static size_t
scheme_len(const char *u, size_t n)
{
	size_t i;

	if (!n || !((u[0] | 32) >= 'a' && (u[0] | 32) <= 'z'))
		return 0;
	for (i = 1; i < n; i++) {
		char c = u[i];

		if (c == ':')
			return i + 1;
		if (!(((c | 32) >= 'a' && (c | 32) <= 'z') || (c >= '0' && c <= '9') ||
		    c == '+' || c == '-' || c == '.'))
			return 0;
	}
	return 0;
}

static int
digits(const char *s, size_t n, size_t at, size_t k, int *out)
{
	size_t i;
	int v = 0;

	if (at + k > n)
		return 0;
	for (i = 0; i < k; i++) {
		if (s[at + i] < '0' || s[at + i] > '9')
			return 0;
		v = v * 10 + (s[at + i] - '0');
	}
	*out = v;
	return 1;
}

static int
fmt_date(const char *s, size_t n)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, m, d;

	if (n != 10 || s[4] != '-' || s[7] != '-' || !digits(s, n, 0, 4, &y) ||
	    !digits(s, n, 5, 2, &m) || !digits(s, n, 8, 2, &d))
		return 0;
	if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
		return 0;
	if (m == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 0;
	return 1;
}

/* RFC 3339 full-time: hh:mm:ss[.frac](Z|+hh:mm|-hh:mm). */
static int
fmt_time(const char *s, size_t n)
{
	int h, m, sec, oh = 0, om = 0, sign = 0;
	size_t i = 8;

	if (n < 9 || s[2] != ':' || s[5] != ':' || !digits(s, n, 0, 2, &h) ||
	    !digits(s, n, 3, 2, &m) || !digits(s, n, 6, 2, &sec))
		return 0;
	if (i < n && s[i] == '.') {
		size_t f = ++i;

		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == f)
			return 0;
	}
	if (i < n && (s[i] == 'Z' || s[i] == 'z')) {
		i++;
	} else if (i < n && (s[i] == '+' || s[i] == '-')) {
		sign = s[i] == '-' ? -1 : 1;
		if (n - i != 6 || s[i + 3] != ':' || !digits(s, n, i + 1, 2, &oh) ||
		    !digits(s, n, i + 4, 2, &om) || oh > 23 || om > 59)
			return 0;
		i += 6;
	} else
		return 0;
	if (i != n || h > 23 || m > 59 || sec > 60)
		return 0;
	if (sec == 60) {
		/* a leap second is 23:59:60 in UTC */
		int t = h * 60 + m - sign * (oh * 60 + om);

		t = ((t % 1440) + 1440) % 1440;
		if (t != 23 * 60 + 59)
			return 0;
	}
	return 1;
}

static int
fmt_date_time(const char *s, size_t n)
{
	return n > 11 && (s[10] == 'T' || s[10] == 't') && fmt_date(s, 10) &&
	    fmt_time(s + 11, n - 11);
}

static int
is_alnum(char c)
{
	return ((c | 32) >= 'a' && (c | 32) <= 'z') || (c >= '0' && c <= '9');
}

/* RFC 1123 host name: dot-separated labels of letters, digits, inner hyphens. */
static int
fmt_hostname(const char *s, size_t n)
{
	size_t i, start = 0;

	if (n == 0 || n > 253)
		return 0;
	for (i = 0; i <= n; i++) {
		if (i == n || s[i] == '.') {
			size_t l = i - start;

			if (l == 0 || l > 63 || s[start] == '-' || s[i - 1] == '-')
				return 0;
			start = i + 1;
		} else if (!is_alnum(s[i]) && s[i] != '-')
			return 0;
	}
	return 1;
}

static int
fmt_ipv4(const char *s, size_t n)
{
	size_t i = 0;
	int part, nd;

	for (part = 0; part < 4; part++) {
		int v = 0;

		if (part) {
			if (i >= n || s[i] != '.')
				return 0;
			i++;
		}
		for (nd = 0; i < n && s[i] >= '0' && s[i] <= '9' && nd < 4; nd++, i++)
			v = v * 10 + (s[i] - '0');
		if (nd == 0 || nd > 3 || v > 255 || (nd > 1 && s[i - (size_t)nd] == '0'))
			return 0;
	}
	return i == n;
}

static int
fmt_ipv6(const char *s, size_t n)
{
	size_t i = 0, groups = 0;
	int gap = 0;

	if (n < 2)
		return 0;
	if (s[0] == ':') {
		if (s[1] != ':')
			return 0;
		gap = 1;
		i = 2;
		if (i == n)
			return 1;
	}
	while (i < n) {
		size_t j = i;

		while (j < n && j - i < 5 && ((s[j] >= '0' && s[j] <= '9') ||
		    ((s[j] | 32) >= 'a' && (s[j] | 32) <= 'f')))
			j++;
		if (j < n && s[j] == '.') {
			/* an IPv4 address ends it, as two groups */
			if (!fmt_ipv4(s + i, n - i))
				return 0;
			groups += 2;
			i = n;
			break;
		}
		if (j == i || j - i > 4)
			return 0;
		groups++;
		i = j;
		if (i == n)
			break;
		if (s[i] != ':')
			return 0;
		i++;
		if (i < n && s[i] == ':') {
			if (gap)
				return 0;
			gap = 1;
			i++;
			if (i == n)
				break;
		} else if (i == n)
			return 0;
	}
	return gap ? groups < 8 : groups == 8;
}

static int
fmt_email(const char *s, size_t n)
{
	const char *at = memchr(s, '@', n);
	size_t l, i;

	if (!at || memchr(at + 1, '@', n - (size_t)(at - s) - 1))
		return 0;
	l = (size_t)(at - s);
	if (l == 0 || l == n - 1 || s[0] == '.' || s[l - 1] == '.')
		return 0;
	for (i = 0; i < l; i++) {
		if (s[i] == '.' && s[i + 1] == '.')
			return 0;
		if ((unsigned char)s[i] <= ' ' || strchr("()<>[]:;,\\\"", s[i]))
			return 0;
	}
	return fmt_hostname(at + 1, n - l - 1);
}

/* The characters a URI may hold (RFC 3986 unreserved, reserved, %HH). */
static int
uri_chars(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '%') {
			if (i + 2 >= n)
				return 0;
			if (!isxdigit_c(s[i + 1]) || !isxdigit_c(s[i + 2]))
				return 0;
			i += 2;
		} else if (!(is_alnum((char)c) || strchr("-._~:/?#[]@!$&'()*+,;=", c)) || !c)
			return 0;
	}
	return 1;
}

static int
fmt_uri_reference(const char *s, size_t n)
{
	return uri_chars(s, n);
}

static int
fmt_uri(const char *s, size_t n)
{
	return scheme_len(s, n) > 0 && uri_chars(s, n);
}

static int
fmt_json_pointer(const char *s, size_t n)
{
	size_t i;

	if (n && s[0] != '/')
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] == '~' && (i + 1 >= n || (s[i + 1] != '0' && s[i + 1] != '1')))
			return 0;
	return 1;
}

static int
fmt_relative_json_pointer(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i == 0 || (s[0] == '0' && i > 1))
		return 0;
	if (i < n && s[i] == '#')
		return i + 1 == n;
	return fmt_json_pointer(s + i, n - i);
}

static int
fmt_uuid(const char *s, size_t n)
{
	size_t i;

	if (n != 36)
		return 0;
	for (i = 0; i < n; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
		} else if (!isxdigit_c(s[i]))
			return 0;
	}
	return 1;
}

int
hm__schema_format(const char *f, const char *s, size_t n, int *nomem)
{
	if (!strcmp(f, "date-time"))
		return fmt_date_time(s, n);
	if (!strcmp(f, "date"))
		return fmt_date(s, n);
	if (!strcmp(f, "time"))
		return fmt_time(s, n);
	if (!strcmp(f, "email"))
		return fmt_email(s, n);
	if (!strcmp(f, "hostname"))
		return fmt_hostname(s, n);
	if (!strcmp(f, "ipv4"))
		return fmt_ipv4(s, n);
	if (!strcmp(f, "ipv6"))
		return fmt_ipv6(s, n);
	if (!strcmp(f, "uri"))
		return fmt_uri(s, n);
	if (!strcmp(f, "uri-reference"))
		return fmt_uri_reference(s, n);
	if (!strcmp(f, "json-pointer"))
		return fmt_json_pointer(s, n);
	if (!strcmp(f, "relative-json-pointer"))
		return fmt_relative_json_pointer(s, n);
	if (!strcmp(f, "uuid"))
		return fmt_uuid(s, n);
	if (!strcmp(f, "regex"))
		return hm__re_valid(s, n, nomem);
	return -1;
}
