/*
 * test_parse_lost.c - "nothing lost": for every parse fixture read in the
 * default mode, the text of all output messages together holds every
 * non-special byte of the input (decoded) up to its last <|return|> or
 * <|call|> (all of it when the last stop is <|end|>), in order, header
 * text aside.
 *
 * Header text is the text between <|start|>, <|channel|> or <|constrain|>
 * and the <|message|> that ends that header, unless it holds a `{` (a
 * call's arguments that run on into the next header, F21).  A header that never reaches
 * <|message|>, text before the first header, text after <|end|> and text
 * after another stop (but before the last one) must all be found.  Where no special token marks
 * a header (stripped specials, a header taken for content), header words
 * (`assistant`, `final`, `to=...`, `json`, a --marker) may be left out.
 * Blanks may be left out; U+FFFD stands for invalid bytes in both.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf_int.h"
#include "harmony.h"
#include "unit.h"

#define SEP '\x01' /* ends each output message */
#define BRK '\x02' /* between two required pieces of input */

static const char *marker; /* the fixture's --marker */

static int
is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/*
 * Length of a header word at s[0..n) that may be left out, or 0: a role,
 * channel or content type, a recipient (`to=...`, or a tool's name that
 * <|constrain|> was taken for).
 */
static size_t
header_word(const char *s, size_t n)
{
	static const char *const w[] = {
		"assistant", "analysis", "commentary", "final", "user", "system",
		"developer", "tool", "json", "code", "application/json", "<|constrain|>",
	};
	size_t i, k, m;

	if (marker && n >= strlen(marker) && !memcmp(s, marker, strlen(marker)))
		return strlen(marker);
	for (i = 0; i < sizeof w / sizeof w[0]; i++) {
		m = strlen(w[i]);
		if (n >= m && !memcmp(s, w[i], m))
			return m;
		/* The input ends inside a header word (`<|channel|>fin`, cut off). */
		if (n < m && !memcmp(s, w[i], n))
			return n;
	}
	for (i = 0; i < 3; i++) {
		/* A tool named without to= (`<|constrain|>functions.f`, stripped `commentary functions.f`). */
		static const char *const ns[] = { "functions.", "browser.", "container." };

		m = strlen(ns[i]);
		if (n > m && !memcmp(s, ns[i], m)) {
			for (k = m; k < n && s[k] != '{' && s[k] != '<' && s[k] != ' ' &&
			    s[k] != '\n' && s[k] != BRK; k++)
				;
			return k;
		}
	}
	if (n >= 3 && !memcmp(s, "to=", 3)) {
		/* A recipient, maybe with blanks, up to its content or content type. */
		for (k = 3; k < n && k < 256 && s[k] != '{' && s[k] != '<' && s[k] != '\n' &&
		    s[k] != BRK; k++)
			if (k + 5 <= n && (!memcmp(s + k, " json", 5) || !memcmp(s + k, " code", 5)))
				break;
		return k;
	}
	return 0;
}

/* Length of an output item that may stand for nothing in the input. */
static size_t
out_extra(const char *s, size_t n)
{
	size_t k;

	if (s[0] == SEP || is_blank((unsigned char)s[0]))
		return 1;
	if (n >= 3 && !memcmp(s, "\xEF\xBF\xBD", 3))
		return 3;
	if (n >= 4 && s[0] == '<' && s[1] == '|')
		for (k = 2; k < n && k < 40; k++)
			if (s[k] == '>' && s[k - 1] == '|')
				return k + 1;
	return 0;
}

/*
 * Whether the required input r[0..rn) is found in order in the output
 * o[0..on).  On failure *at is where in r it was lost.
 */
static int
found_in_order(const char *r, size_t rn, const char *o, size_t on, size_t *at)
{
	size_t i = 0, j = 0, k;

	while (i < rn) {
		/* A header word that the output does not have here is left out. */
		if ((k = header_word(r + i, rn - i)) && (on - j < k || memcmp(o + j, r + i, k))) {
			i += k;
		} else if (j < on && o[j] == r[i]) {
			i++;
			j++;
		} else if (is_blank((unsigned char)r[i]) || r[i] == BRK) {
			i++;
		} else if ((k = header_word(r + i, rn - i))) {
			i += k;
		} else if (j < on && (k = out_extra(o + j, on - j))) {
			j += k;
		} else {
			*at = i;
			return 0;
		}
	}
	return 1;
}

/* A unit of input: a special token (id) or ordinary bytes. */
struct unit {
	uint32_t id;
	int special;
	size_t off, len; /* into the decoded text */
};

static int
is_stop(uint32_t id)
{
	return id == 200002 || id == 200007 || id == 200012;
}

/*
 * The required text of units u[0..n) with their bytes in t: up to the
 * last stop, header text aside.
 */
static void
required(const struct unit *u, size_t n, const char *t, hm_buf *req)
{
	size_t last = n, i, j;
	int in_hdr = 0;

	for (i = 0; i < n; i++)
		if (u[i].special && is_stop(u[i].id))
			last = i;
	/*
	 * No stop: everything.  <|end|> ends a message, not the completion:
	 * text after it is model output too.  Only text after a last
	 * <|return|> or <|call|> may be set aside.
	 */
	if (last < n && u[last].id == 200007)
		last = n;
	/*
	 * Text that opens the stream and reaches <|message|> with no special
	 * token between is the first header (a completion starts after
	 * `<|start|>assistant`).
	 */
	for (j = 0; j < last && !u[j].special; j++)
		;
	in_hdr = j < n && u[j].special && u[j].id == 200008;
	for (i = 0; i < last; i++) {
		if (u[i].special) {
			uint32_t id = u[i].id;

			if (id == 200006 || id == 200005 || id == 200003) {
				/* A header: aside only if <|message|> ends it. */
				for (j = i + 1; j < last && !(u[j].special &&
				    (is_stop(u[j].id) || u[j].id == 200006 || u[j].id == 200008)); j++)
					;
				in_hdr = j < n && u[j].special && u[j].id == 200008;
				/*
				 * Unless a call's arguments run on in it into the next
				 * header (F21, its <|call|> and <|start|> stripped):
				 * then they are content, and required.
				 */
				for (size_t q = i + 1; in_hdr && q < j; q++)
					if (!u[q].special && memchr(t + u[q].off, '{', u[q].len))
						in_hdr = 0;
			} else if (id == 200008 || is_stop(id)) {
				in_hdr = 0;
			} else if (!in_hdr) {
				/* Other special tokens in content are its text. */
				hm_buf_add(req, t + u[i].off, u[i].len);
			}
			hm_buf_addc(req, BRK);
			continue;
		}
		if (!in_hdr)
			hm_buf_add(req, t + u[i].off, u[i].len);
	}
}

/* Parse and check one input; returns 1 when nothing was lost. */
static int
check_input(const char *name, const char *in, size_t inlen, int text, const char *role)
{
	hm_parser *p = hm_parser_new(role, 0);
	hm_buf dec = { 0 }, req = { 0 }, out = { 0 };
	struct unit *u = NULL;
	size_t nu = 0, cap = 0, i = 0, at;
	hm_ids ids = { 0 };
	hm_event ev;
	int ok;

	if (marker)
		hm_parser_set_marker(p, marker, strlen(marker));
	/* Units, and the input decoded. */
	if (text) {
		while (i < inlen) {
			size_t j = i, k;
			uint32_t id;
			int sp = 0;

			if (in[i] == '<' && i + 1 < inlen && in[i + 1] == '|') {
				for (k = i + 2; k < inlen && k < i + 40; k++)
					if (in[k] == '>' && in[k - 1] == '|')
						break;
				if (k < inlen && in[k] == '>' && hm_special_lookup(in + i, k + 1 - i, &id)) {
					j = k + 1;
					sp = 1;
				}
			}
			if (!sp) {
				for (j = i + 1; j < inlen && in[j] != '<'; j++)
					;
				id = 0;
			}
			if (nu == cap) {
				cap = cap ? cap * 2 : 64;
				u = realloc(u, cap * sizeof *u);
			}
			u[nu].id = id;
			u[nu].special = sp;
			u[nu].off = dec.len;
			hm_buf_add(&dec, in + i, j - i);
			u[nu].len = j - i;
			nu++;
			i = j;
		}
		hm_parser_feed_text(p, in, inlen);
	} else {
		char *e;
		const char *s = in;

		for (;;) {
			unsigned long v;

			while (*s && (is_blank((unsigned char)*s) || *s == ','))
				s++;
			if (!*s)
				break;
			v = strtoul(s, &e, 10);
			if (e == s)
				break;
			s = e;
			hm_ids_append(&ids, &(uint32_t){ (uint32_t)v }, 1);
		}
		for (i = 0; i < ids.len; i++) {
			size_t len;
			const char *b = hm_token_bytes(ids.v[i], &len);

			if (nu == cap) {
				cap = cap ? cap * 2 : 64;
				u = realloc(u, cap * sizeof *u);
			}
			u[nu].id = ids.v[i];
			u[nu].special = b && hm_is_special(ids.v[i]);
			u[nu].off = dec.len;
			u[nu].len = b ? len : 0;
			if (b)
				hm_buf_add(&dec, b, len);
			nu++;
		}
		hm_parser_feed(p, ids.v, ids.len);
	}
	hm_parser_finish(p);
	while (hm_parser_next(p, &ev)) {
		if (ev.type == HM_EV_DELTA)
			hm_buf_add(&out, ev.text.p, ev.text.len);
		else if (ev.type == HM_EV_END)
			hm_buf_addc(&out, SEP);
	}
	/* Invalid UTF-8 in the input is U+FFFD in the output: compare so. */
	{
		hm_buf lossy = { 0 };
		struct unit *v = u;
		size_t k;

		for (k = 0; k < nu; k++) {
			size_t o = lossy.len, a = v[k].off, n = v[k].len;

			while (n) {
				size_t bad, m;
				uint32_t cp;

				m = hm_utf8_decode((const unsigned char *)dec.p + a, n, &cp, &bad);
				if (m) {
					hm_buf_add(&lossy, dec.p + a, m);
				} else {
					hm_buf_add(&lossy, "\xEF\xBF\xBD", 3);
					m = bad ? bad : 1;
				}
				a += m;
				n -= m;
			}
			v[k].off = o;
			v[k].len = lossy.len - o;
		}
		required(u, nu, lossy.p ? lossy.p : "", &req);
		hm_buf_free(&lossy);
	}
	ok = found_in_order(req.p ? req.p : "", req.len, out.p ? out.p : "", out.len, &at);
	if (!ok)
		fprintf(stderr, "%s: input lost at \"%.40s\"\n  output: %.*s\n", name,
		    req.p + at, (int)(out.len < 300 ? out.len : 300), out.p);
	hm_parser_free(p);
	hm_buf_free(&dec);
	hm_buf_free(&req);
	hm_buf_free(&out);
	hm_ids_free(&ids);
	free(u);
	return ok;
}

int
main(void)
{
	const char *dir = "fixtures/parse";
	DIR *d = opendir(dir);
	struct dirent *de;
	int nfix = 0;
	size_t at;

	/* The check itself can fail. */
	CHECK(found_in_order("Think.\x02" "final4", 12, "Think.\x01" "4\x01", 9, &at));
	CHECK(!found_in_order("Think hard.\x02" "final4", 17, "Think.\x01" "4\x01", 9, &at));
	CHECK(!found_in_order("junk\x02" "4", 6, "4\x01", 2, &at));
	{
		/* Text after a last <|end|> is required, after a last <|return|> not. */
		static const char t[] = "<|end|>Bonjour";
		struct unit ue[] = { { 200007, 1, 0, 7 }, { 0, 0, 7, 7 } };
		hm_buf r = { 0 };

		required(ue, 2, t, &r);
		CHECK(r.len == 8 && !memcmp(r.p, "\x02" "Bonjour", 8));
		hm_buf_reset(&r);
		ue[0].id = 200002;
		required(ue, 2, t, &r);
		CHECK(r.len == 0);
		hm_buf_free(&r);
	}
	CHECK_MSG(d != NULL, "cannot read %s (run from the top directory)", dir);
	if (!d)
		return UNIT_DONE("test_parse_lost");
	while ((de = readdir(d))) {
		char path[512], args[512], role[32];
		const char *nm = de->d_name;
		size_t len = strlen(nm), n, an;
		char *in, *a;
		int text, ok;

		marker = NULL;
		strcpy(role, "auto");
		if (len > 5 && !strcmp(nm + len - 5, ".args")) {
			snprintf(path, sizeof path, "%s/%s", dir, nm);
			a = unit_slurp(path, &an);
			if (!a)
				continue;
			snprintf(args, sizeof args, "%s", a);
			free(a);
			if (strstr(args, "--strict") || strstr(args, "--channels"))
				continue;
			text = strstr(args, "--from text") != NULL;
			if ((a = strstr(args, "--role ")))
				sscanf(a + 7, "%31s", role);
			if ((a = strstr(args, "--marker "))) {
				static char mk[64];

				sscanf(a + 9, "%63s", mk);
				marker = mk;
			}
			snprintf(path, sizeof path, "%s/%.*s.in", dir, (int)(len - 5), nm);
		} else if (len > 4 && !strcmp(nm + len - 4, ".ids")) {
			text = 0;
			snprintf(path, sizeof path, "%s/%s", dir, nm);
		} else if (len > 4 && !strcmp(nm + len - 4, ".txt")) {
			text = 1;
			snprintf(path, sizeof path, "%s/%s", dir, nm);
		} else
			continue;
		in = unit_slurp(path, &n);
		CHECK_MSG(in != NULL, "cannot read %s", path);
		if (!in)
			continue;
		ok = check_input(path, in, n, text, strcmp(role, "none") ? role : NULL);
		CHECK_MSG(ok, "%s: model output lost", path);
		free(in);
		nfix++;
	}
	closedir(d);
	CHECK_MSG(nfix >= 40, "only %d fixtures", nfix);
	return UNIT_DONE("test_parse_lost");
}
