/*
 * json_schema_fmt.c - the values of JSON Schema's `format`: whether a
 * string is a date-time, an email address, an IPv6 address ...  Which
 * formats assert and when (the draft, the options) is json_schema.c's
 * business; this file only knows the formats.
 */
#include <string.h>

#include "idna_int.h"
#include "json_schema_int.h"

static int
isxdigit_c(char c)
{
	return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'f');
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

/*
 * RFC 1123 host name: dot-separated labels of letters, digits, inner
 * hyphens; one beginning xn-- must be an IDNA2008 A-label (json_schema_idna.c).
 */
static int
fmt_hostname(const char *s, size_t n)
{
	return hm__idna_hostname(s, n, 0);
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

/* RFC 5322 atext, and any byte of a UTF-8 sequence when intl (RFC 6531). */
static int
atext(unsigned char c, int intl)
{
	return is_alnum((char)c) || (c && strchr("!#$%&'*+-/=?^_`{|}~", c)) || (intl && c >= 0x80);
}

/*
 * An e-mail address (RFC 5321 Mailbox): a dot-atom or a quoted string,
 * "@", a host name or an address literal ([IPv4], [IPv6:...]).  intl:
 * idn-email (RFC 6531), UTF-8 in both halves.
 */
static int
email(const char *s, size_t n, int intl)
{
	size_t i = 0, at;

	if (n && s[0] == '"') {
		for (i = 1; i < n && s[i] != '"'; i++) {
			unsigned char c = (unsigned char)s[i];

			if (c == '\\') {
				if (++i >= n)
					return 0;
			} else if (c < ' ' && !(intl && c >= 0x80))
				return 0;
		}
		if (i >= n || i == 1)
			return 0;
		i++;
	} else {
		for (; i < n && s[i] != '@'; i++) {
			if (s[i] == '.') {
				if (i == 0 || s[i - 1] == '.' || i + 1 >= n || s[i + 1] == '@')
					return 0;
			} else if (!atext((unsigned char)s[i], intl))
				return 0;
		}
		if (i == 0)
			return 0;
	}
	if (i >= n || s[i] != '@')
		return 0;
	at = i + 1;
	if (at < n && s[at] == '[' && s[n - 1] == ']') {
		if (n - at > 7 && !memcmp(s + at + 1, "IPv6:", 5))
			return fmt_ipv6(s + at + 6, n - at - 7);
		return fmt_ipv4(s + at + 1, n - at - 2);
	}
	if (intl) {
		/* a host name whose labels may be UTF-8 (U-labels) */
		size_t start = at;

		if (at >= n)
			return 0;
		for (i = at; i <= n; i++) {
			if (i == n || s[i] == '.') {
				if (i == start || s[start] == '-' || s[i - 1] == '-')
					return 0;
				start = i + 1;
			} else if (!is_alnum(s[i]) && s[i] != '-' && !((unsigned char)s[i] >= 0x80))
				return 0;
		}
		return 1;
	}
	return fmt_hostname(s + at, n - at);
}

/* ------------------------------------------------------------ URIs (RFC 3986, RFC 3987) */

static int
unreserved(unsigned char c, int iri)
{
	return is_alnum((char)c) || c == '-' || c == '.' || c == '_' || c == '~' || (iri && c >= 0x80);
}

static int
sub_delim(unsigned char c)
{
	return c && strchr("!$&'()*+,;=", c) != NULL;
}

/* The length of a %HH at s[i..n), or 0. */
static size_t
pct(const char *s, size_t n, size_t i)
{
	return s[i] == '%' && i + 2 < n && isxdigit_c(s[i + 1]) && isxdigit_c(s[i + 2]) ? 3 : 0;
}

/* Whether s[0..n) is all of unreserved, %HH, sub-delims and the characters of extra. */
static int
chars_ok(const char *s, size_t n, const char *extra, int iri)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '%') {
			if (!(k = pct(s, n, i)))
				return 0;
			i += k - 1;
		} else if (!unreserved(c, iri) && !sub_delim(c) && !(c && strchr(extra, c)))
			return 0;
	}
	return 1;
}

/* authority = [ userinfo "@" ] host [ ":" port ] */
static int
authority(const char *s, size_t n, int iri)
{
	const char *at = memchr(s, '@', n);
	size_t h = 0, e, i;

	if (at) {
		h = (size_t)(at - s) + 1;
		if (!chars_ok(s, h - 1, ":", iri))
			return 0;
	}
	if (h < n && s[h] == '[') {
		const char *close = memchr(s + h, ']', n - h);

		if (!close)
			return 0;
		e = (size_t)(close - s);
		if (e + 1 < n && s[e + 1] != ':')
			return 0;
		if (e - h > 1 && (s[h + 1] | 32) == 'v') {
			/* IPvFuture: "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) */
			for (i = h + 2; i < e && isxdigit_c(s[i]); i++)
				;
			if (i == h + 2 || i >= e || s[i] != '.' || i + 1 >= e ||
			    !chars_ok(s + i + 1, e - i - 1, ":", 0))
				return 0;
		} else if (!fmt_ipv6(s + h + 1, e - h - 1))
			return 0;
		e++;
	} else {
		for (e = h; e < n && s[e] != ':'; e++)
			;
		if (!chars_ok(s + h, e - h, "", iri))
			return 0;
	}
	if (e < n) {
		/* ":" port */
		for (i = e + 1; i < n; i++)
			if (s[i] < '0' || s[i] > '9')
				return 0;
	}
	return 1;
}

/*
 * A URI (need_scheme: 1), or a URI reference (0); iri: RFC 3987's IRIs,
 * non-ASCII characters allowed where unreserved ones are.
 */
static int
uri(const char *s, size_t n, int need_scheme, int iri)
{
	size_t sch = hm__uri_scheme_len(s, n), i = sch, q, f, pe;

	if (need_scheme && !sch)
		return 0;
	for (f = 0; f < n && s[f] != '#'; f++)
		;
	for (q = 0; q < f && s[q] != '?'; q++)
		;
	if (f < n && !chars_ok(s + f + 1, n - f - 1, ":@/?", iri))
		return 0;
	if (q < f && !chars_ok(s + q + 1, f - q - 1, ":@/?", iri))
		return 0;
	pe = q;
	if (pe - i >= 2 && s[i] == '/' && s[i + 1] == '/') {
		size_t a = i + 2, ae = a;

		while (ae < pe && s[ae] != '/')
			ae++;
		if (!authority(s + a, ae - a, iri))
			return 0;
		i = ae;
	} else if (!sch) {
		/* path-noscheme: no ":" in the first segment */
		size_t k;

		for (k = i; k < pe && s[k] != '/'; k++)
			if (s[k] == ':')
				return 0;
	}
	return chars_ok(s + i, pe - i, ":@/", iri);
}

static int
fmt_uri_reference(const char *s, size_t n)
{
	return uri(s, n, 0, 0);
}

static int
fmt_uri(const char *s, size_t n)
{
	return uri(s, n, 1, 0);
}

/* RFC 3339 appendix A: P, then date elements (Y M D, in a run), T and time elements (H M S, in a run); or weeks alone. */
static int
fmt_duration(const char *s, size_t n)
{
	static const char date_units[] = "YMD", time_units[] = "HMS";
	size_t i = 1;
	int any = 0, part = 0, last = -1, week = 0;

	if (n < 3 || s[0] != 'P')
		return 0;
	while (i < n) {
		size_t d = i;
		const char *units = part ? time_units : date_units, *u;
		int k;

		if (s[i] == 'T') {
			if (part)
				return 0;
			part = 1;
			last = -1;
			if (++i >= n)
				return 0;
			continue;
		}
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d || i >= n)
			return 0;
		if (s[i] == 'W' && !part) {
			week = 1;
		} else {
			if (!(u = strchr(units, s[i])) || !s[i])
				return 0;
			k = (int)(u - units);
			/* a run of units in order, none skipped once begun */
			if (last >= 0 && k != last + 1)
				return 0;
			last = k;
		}
		any++;
		i++;
	}
	if (week)
		return any == 1;
	/* "T" needs an element after it (checked above), and something was given */
	return any > 0 && !(part && last < 0);
}

/* RFC 6570: literals and {expressions} of variable lists. */
static int
fmt_uri_template(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];

		if (c == '{') {
			size_t e = i + 1;
			int vars = 0;

			if (e < n && strchr("+#./;?&=,!@|", s[e]) && s[e])
				e++;
			for (;;) {
				size_t v = e;

				/* varname: varchar *( ["."] varchar ), varchar = ALPHA / DIGIT / "_" / %HH */
				while (e < n) {
					if (is_alnum(s[e]) || s[e] == '_')
						e++;
					else if (s[e] == '%' && e + 2 < n && isxdigit_c(s[e + 1]) && isxdigit_c(s[e + 2]))
						e += 3;
					else if (s[e] == '.' && e > v && s[e - 1] != '.' && e + 1 < n &&
					    (is_alnum(s[e + 1]) || s[e + 1] == '_' || s[e + 1] == '%'))
						e++;
					else
						break;
				}
				if (e == v)
					return 0;
				vars++;
				if (e < n && s[e] == '*') {
					e++;
				} else if (e < n && s[e] == ':') {
					size_t d = ++e;

					while (e < n && s[e] >= '0' && s[e] <= '9')
						e++;
					if (e == d || e - d > 4 || s[d] == '0')
						return 0;
				}
				if (e < n && s[e] == ',') {
					e++;
					continue;
				}
				break;
			}
			if (e >= n || s[e] != '}' || !vars)
				return 0;
			i = e + 1;
		} else if (c == '%') {
			if (!(i + 2 < n && isxdigit_c(s[i + 1]) && isxdigit_c(s[i + 2])))
				return 0;
			i += 3;
		} else if (c <= ' ' || c == 0x7f || strchr("\"<>\\^`{|}", c)) {
			return 0;
		} else
			i++;
	}
	return 1;
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
		return email(s, n, 0);
	if (!strcmp(f, "idn-email"))
		return email(s, n, 1);
	if (!strcmp(f, "iri"))
		return uri(s, n, 1, 1);
	if (!strcmp(f, "iri-reference"))
		return uri(s, n, 0, 1);
	if (!strcmp(f, "duration"))
		return fmt_duration(s, n);
	if (!strcmp(f, "uri-template"))
		return fmt_uri_template(s, n);
	if (!strcmp(f, "hostname"))
		return fmt_hostname(s, n);
	if (!strcmp(f, "idn-hostname"))
		return hm__idna_hostname(s, n, 1);
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
