/*
 * parse_header.c - the tolerant header grammar of the default mode.
 *
 * The reference grammar (parse_header_strict.c, parse_header) reads a header as a role,
 * a channel cut out at <|channel|> and words split at blanks, the last one
 * or two of which are the recipient and content type.  Models write
 * headers it cannot read: a part twice (`to=f to=f`), a recipient with a
 * blank (`to=functions.Web Search`), the parts in another order
 * (`<|constrain|>json to=f`), a special token between them.  This grammar
 * reads the header as a sequence of parts instead:
 *
 *   <|channel|> NAME     the channel (the next word)
 *   to= NAME             the recipient: every word up to the next keyword
 *                        (`to=`), special token or content type
 *   <|constrain|> NAME   the content type, kept as `<|constrain|>NAME`
 *   json, code, ...      a bare content type
 *   <|x|>                any other special token: ends the part before it
 *
 * in any order, with blanks anywhere.  A special token always ends a part,
 * so no field ever holds the text of one (the content type's own leading
 * `<|constrain|>` aside, which the reference keeps).  What was repaired is
 * returned as flags; the parser turns them into warnings.
 */
#include <string.h>

#include "buf_int.h"
#include "parser_int.h"

/* Length of the blank character at s[i..n), or 0. */
static size_t
blank_at(const char *s, size_t n, size_t i)
{
	uint32_t cp;
	size_t bad, k;

	if ((unsigned char)s[i] < 0x80)
		return hm__is_uws((unsigned char)s[i]) ? 1 : 0;
	k = hm_utf8_decode((const unsigned char *)s + i, n - i, &cp, &bad);
	return k && hm__is_uws(cp) ? k : 0;
}

/*
 * Length of the special-token-like text at s[i..n): `<|name|>` (name of
 * letters, digits and _), or a bare `<|` that opens nothing; 0 when s[i]
 * does not start one.
 */
size_t
hm__hdr_mark_len(const char *s, size_t n, size_t i)
{
	size_t j;

	if (i + 1 >= n || s[i] != '<' || s[i + 1] != '|')
		return 0;
	for (j = i + 2; j < n && j < i + 40; j++) {
		unsigned char c = (unsigned char)s[j];

		if (c == '|' && j + 1 < n && s[j + 1] == '>')
			return j + 2 - i;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_'))
			break;
	}
	return 2;
}

/* Whether s[from..to) holds special-token text. */
static int
has_mark(const char *s, size_t to, size_t from)
{
	size_t i;

	for (i = from; i + 1 < to; i++)
		if (s[i] == '<' && s[i + 1] == '|')
			return 1;
	return 0;
}

static int prefix_fold(const char *s, const char *w, size_t m);

/* A byte of a MIME type's or parameter's name (RFC 6838, restricted-name). */
static int
mime_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '!' || c == '#' || c == '$' || c == '&' || c == '^' || c == '_' ||
	    c == '.' || c == '+' || c == '-';
}

/*
 * Parameters s[0..n) glued to a MIME type or a word of their own:
 * `;name=value` pieces, the first `;` optional when lead is 0, a `;` at
 * the end allowed.  Whether s is that.
 */
static int
mime_params(const char *s, size_t n, int lead)
{
	size_t i = 0, a;

	for (;;) {
		if (i < n && s[i] == ';')
			i++;
		else if (lead || i > 0)
			return 0;
		if (i == n)
			return i > 0;
		for (a = i; i < n && mime_byte((unsigned char)s[i]); i++)
			;
		if (i == a || i == n || s[i] != '=')
			return 0;
		for (a = ++i; i < n && (mime_byte((unsigned char)s[i]) || s[i] == '"' ||
		    s[i] == '/' || s[i] == '='); i++)
			;
		if (i == a)
			return 0;
		if (i == n)
			return 1;
		lead = 1;
	}
}

/* Whether s[0..n) is a MIME type (`text/plain`), maybe with `;name=value` glued. */
static int
mime_type(const char *s, size_t n)
{
	static const char *const top[] = {
		"text", "application", "image", "audio", "video", "multipart",
		"message", "model", "font",
	};
	size_t i, m, j;

	for (i = 0; i < sizeof top / sizeof top[0]; i++) {
		m = strlen(top[i]);
		if (n > m + 1 && s[m] == '/' && prefix_fold(s, top[i], m))
			break;
	}
	if (i == sizeof top / sizeof top[0])
		return 0;
	for (j = m + 1; j < n && mime_byte((unsigned char)s[j]); j++)
		;
	return j > m + 1 && (j == n || mime_params(s + j, n - j, 1));
}

int
hm__ctype_word(const char *s, size_t n)
{
	static const char *const known[] = {
		"json", "code", "text", "markdown", "md", "yaml", "xml", "html",
		"csv", "toml",
	};
	size_t i, j;

	for (i = 0; i < sizeof known / sizeof known[0]; i++) {
		if (strlen(known[i]) != n)
			continue;
		for (j = 0; j < n; j++)
			if ((s[j] | 0x20) != known[i][j])
				break;
		if (j == n)
			return 1;
	}
	return mime_type(s, n);
}

int
hm__tool_name(const char *s, size_t n)
{
	static const char *const ns[] = { "functions.", "browser.", "container." };
	size_t i, m;

	if (n == 6 && !memcmp(s, "python", 6))
		return 1;
	for (i = 0; i < 3; i++) {
		m = strlen(ns[i]);
		if (n > m && !memcmp(s, ns[i], m))
			return 1;
	}
	return 0;
}

static int
role_of(const char *s, size_t n, int fold)
{
	size_t i, j;

	for (i = 0; i < HM__NROLES; i++) {
		if (strlen(hm__role_names[i]) != n)
			continue;
		for (j = 0; j < n; j++)
			if ((fold ? (s[j] | 0x20) : s[j]) != hm__role_names[i][j])
				break;
		if (j == n)
			return (int)i;
	}
	return -1;
}

static int
prefix_fold(const char *s, const char *w, size_t m)
{
	size_t j;

	for (j = 0; j < m; j++)
		if ((s[j] | 0x20) != w[j])
			return 0;
	return 1;
}

int
hm__hdr_glued(const char *s, size_t n, int *role, size_t *rest)
{
	size_t i, m;
	int r, g;

	for (r = 0; r < HM__NROLES; r++) {
		m = strlen(hm__role_names[r]);
		if (n <= m || !prefix_fold(s, hm__role_names[r], m))
			continue;
		for (i = m; n - i >= m && prefix_fold(s + i, hm__role_names[r], m); i += m)
			;
		g = i > m ? HM_GLUE_TWICE : 0;
		*role = r;
		*rest = i;
		if (i == n)
			return g;
		if (r != HM_ROLE_ASSISTANT)
			return 0;
		if (hm__chan_index(s + i, n - i) >= 0)
			return g | HM_GLUE_CHAN;
		if (n - i > 3 && !memcmp(s + i, "to=", 3))
			return g | HM_GLUE_TO;
		return 0;
	}
	return 0;
}

/* One item of a header: a word, or a special token (kind). */
enum { IT_WORD, IT_CHANNEL, IT_CONSTRAIN, IT_OTHER };

struct item {
	int kind;
	size_t off, len;
	int blank_before; /* blanks between this and the item before */
};

/* The next item at s[*i..n), skipping blanks; 0 at the end. */
static int
next_item(const char *s, size_t n, size_t *i, struct item *it)
{
	size_t k, m;

	it->blank_before = 0;
	while (*i < n && (k = blank_at(s, n, *i))) {
		*i += k;
		it->blank_before = 1;
	}
	if (*i >= n)
		return 0;
	it->off = *i;
	if ((m = hm__hdr_mark_len(s, n, *i))) {
		it->len = m;
		it->kind = m == 11 && !memcmp(s + *i, "<|channel|>", 11) ? IT_CHANNEL :
		    m == 13 && !memcmp(s + *i, "<|constrain|>", 13) ? IT_CONSTRAIN : IT_OTHER;
		*i += m;
		return 1;
	}
	it->kind = IT_WORD;
	while (*i < n && !blank_at(s, n, *i) && !hm__hdr_mark_len(s, n, *i))
		(*i)++;
	it->len = *i - it->off;
	return 1;
}

/* A field value: a span of s, and where the value seen before it was. */
struct val {
	size_t off, len;
	int has;
};

static int
same(const char *s, const struct val *a, const struct val *b)
{
	return a->len == b->len && !memcmp(s + a->off, s + b->off, a->len);
}

static int
is_to(const char *s, const struct item *it)
{
	return it->kind == IT_WORD && it->len >= 3 && !memcmp(s + it->off, "to=", 3);
}

/* The header part the next item belongs to, as the loose reading goes. */
enum pend {
	PEND_NONE,      /* none: the item is a part of its own */
	PEND_CHANNEL,   /* after <|channel|>: the channel */
	PEND_CONSTRAIN, /* after <|constrain|>: the content type */
	PEND_TO,        /* after a lone to=: the recipient */
	PEND_RCPT,      /* inside a recipient (blanks in it) */
	PEND_CTYPE,     /* after a MIME type: its parameters */
	PEND_NAME,      /* after a tool's own name */
};

int
hm__hdr_loose(const char *s, size_t n, int role, struct hm_hdr_parts *out)
{
	struct item it;
	struct val chan = { 0, 0, 0 }, rcpt = { 0, 0, 0 }, name = { 0, 0, 0 };
	struct val ctype = { 0, 0, 0 }, junk = { 0, 0, 0 }, tool = { 0, 0, 0 }, cprev = { 0, 0, 0 }, v;
	size_t i = 0, njunk = 0, nchan = 0, gk;
	enum pend pend = PEND_NONE;
	int ctype_mark = 0, first = 1, r, g, any_analysis = 0, chan_differ = 0;
	int cprev_mark = 0;
	unsigned cprev_flags = 0;
	hm_buf *b = &out->buf;

	memset(out->h.off, 0, sizeof out->h.off);
	memset(out->h.len, 0, sizeof out->h.len);
	memset(out->h.has, 0, sizeof out->h.has);
	out->flags = 0;
	out->h.role = role;
	hm_buf_reset(b);
	while (next_item(s, n, &i, &it)) {
		if (it.kind != IT_WORD) {
			if (pend == PEND_CHANNEL)
				out->flags |= HM_HP_EMPTY;
			if (pend == PEND_CONSTRAIN) {
				out->flags |= HM_HP_EMPTY;
				ctype.has = 0;
			}
			if (pend == PEND_TO)
				out->flags |= HM_HP_EMPTY;
			pend = it.kind == IT_CHANNEL ? PEND_CHANNEL : it.kind == IT_CONSTRAIN ? PEND_CONSTRAIN : 0;
			if (it.kind == IT_OTHER)
				out->flags |= HM_HP_SPECIAL;
			if (it.kind == IT_CHANNEL && ++nchan > 1)
				out->flags |= HM_HP_REPEAT;
			if (it.kind == IT_CONSTRAIN) {
				cprev = ctype;
				cprev_mark = ctype_mark;
				cprev_flags = out->flags;
				if (ctype.has)
					out->flags |= HM_HP_REPEAT;
				ctype.has = 1;
				ctype_mark = 1;
				ctype.off = it.off;
				ctype.len = 13;
			}
			first = 0;
			continue;
		}
		if (pend == PEND_CTYPE && !is_to(s, &it) && (s[it.off] == ';' || s[ctype.off + ctype.len - 1] == ';') &&
		    mime_params(s + it.off, it.len, 0)) {
			/* `text/plain; charset=utf-8`: the parameters are the content type's. */
			ctype.len = it.off + it.len - ctype.off;
			out->flags |= HM_HP_CTYPE_PARAMS;
			continue;
		}
		if (pend == PEND_CTYPE)
			pend = PEND_NONE;
		if (it.blank_before && (pend == PEND_CHANNEL || pend == PEND_CONSTRAIN || pend == PEND_TO))
			out->flags |= HM_HP_BLANK;
		if (pend == PEND_CHANNEL && !is_to(s, &it)) {
			v.off = it.off;
			v.len = it.len;
			v.has = 1;
			if (chan.has && !same(s, &chan, &v))
				chan_differ = 1;
			if (v.len == 8 && !memcmp(s + v.off, "analysis", 8))
				any_analysis = 1;
			chan = v;
			pend = PEND_NONE;
			continue;
		}
		if (pend == PEND_CONSTRAIN && !is_to(s, &it)) {
			/* <|constrain|>NAME: the span from the marker, blanks left out below. */
			if (hm__tool_name(s + it.off, it.len)) {
				/* Perhaps the recipient (below): the content type stays as it was. */
				tool.off = it.off;
				tool.len = it.len;
				tool.has = 1;
				ctype = cprev;
				ctype_mark = cprev_mark;
				if (!(cprev_flags & HM_HP_REPEAT))
					out->flags &= ~(unsigned)HM_HP_REPEAT;
				pend = PEND_NONE;
				continue;
			}
			ctype.off = it.off;
			ctype.len = it.len;
			ctype_mark = 1;
			pend = mime_type(s + it.off, it.len) ? PEND_CTYPE : 0;
			continue;
		}
		if (pend == PEND_CHANNEL)
			out->flags |= HM_HP_EMPTY;
		if (pend == PEND_CONSTRAIN) {
			out->flags |= HM_HP_EMPTY;
			ctype.has = 0;
		}
		if (is_to(s, &it) || pend == PEND_TO) {
			size_t o = is_to(s, &it) ? it.off + 3 : it.off;
			size_t l = is_to(s, &it) ? it.len - 3 : it.len;

			if (!l) {
				pend = PEND_TO;
				first = 0;
				continue;
			}
			v.off = o;
			v.len = l;
			v.has = 1;
			if (rcpt.has) {
				out->flags |= HM_HP_REPEAT;
				if (!same(s, &rcpt, &v))
					out->flags |= HM_HP_DIFFER;
			}
			rcpt = v;
			pend = PEND_RCPT;
			first = 0;
			continue;
		}
		if (pend == PEND_RCPT && !hm__ctype_word(s + it.off, it.len)) {
			/* A recipient runs over blanks: `functions.Web Search`. */
			rcpt.len = it.off + it.len - rcpt.off;
			continue;
		}
		pend = PEND_NONE;
		if (first && (g = hm__hdr_glued(s + it.off, it.len, &r, &gk)) &&
		    (out->h.role < 0 || out->h.role == r)) {
			/* `assistantassistant`, `assistantfinal`, `assistantto=f`. */
			out->h.role = r;
			first = 0;
			out->flags |= g == HM_GLUE_TWICE ? HM_HP_ROLE_TWICE : HM_HP_ROLE_GLUED;
			if (g & HM_GLUE_CHAN) {
				chan.off = it.off + gk;
				chan.len = it.len - gk;
				chan.has = 1;
				nchan++;
				any_analysis |= chan.len == 8;
			} else if (g & HM_GLUE_TO) {
				rcpt.off = it.off + gk + 3;
				rcpt.len = it.len - gk - 3;
				rcpt.has = 1;
				pend = PEND_RCPT;
			}
			continue;
		}
		if (first && out->h.role < 0 && (r = role_of(s + it.off, it.len, 1)) >= 0) {
			out->h.role = r;
			first = 0;
			continue;
		}
		if (first && out->h.role >= 0 && role_of(s + it.off, it.len, 1) == out->h.role) {
			first = 0;
			continue;
		}
		if (first && out->h.role < 0) {
			/* A tool's own name (`functions.Web Search to=assistant`). */
			name.off = it.off;
			name.len = it.len;
			name.has = 1;
			pend = PEND_NAME;
			first = 0;
			continue;
		}
		first = 0;
		if (hm__ctype_word(s + it.off, it.len)) {
			if (ctype.has)
				out->flags |= HM_HP_REPEAT;
			ctype.off = it.off;
			ctype.len = it.len;
			ctype.has = 1;
			ctype_mark = 0;
			pend = mime_type(s + it.off, it.len) ? PEND_CTYPE : 0;
			continue;
		}
		if (!chan.has && hm__chan_index(s + it.off, it.len) >= 0) {
			/* `commentary to=f`: a channel without its <|channel|>. */
			chan.off = it.off;
			chan.len = it.len;
			chan.has = 1;
			any_analysis |= it.len == 8;
			out->flags |= HM_HP_BARE_CHAN;
			continue;
		}
		njunk++;
		if (!junk.has)
			junk.off = it.off;
		junk.len = it.off + it.len - junk.off;
		junk.has = 1;
	}
	if (pend == PEND_CHANNEL || pend == PEND_TO)
		out->flags |= HM_HP_EMPTY;
	if (pend == PEND_CONSTRAIN) {
		out->flags |= HM_HP_EMPTY;
		ctype.has = 0;
	}
	/* Words after a tool's name, before any part, are more of the name. */
	if (name.has && junk.has && junk.off < (rcpt.has ? rcpt.off : n) &&
	    !has_mark(s, junk.off + junk.len, name.off)) {
		name.len = junk.off + junk.len - name.off;
		junk.has = 0;
		njunk = 0;
	}
	if (out->h.role < 0) {
		if (name.has && (rcpt.has || chan.has)) {
			out->h.role = 4;
		} else {
			out->h.role = 1;
			out->flags |= HM_HP_NO_ROLE;
			if (name.has) {
				/* No role word, no tool: the word was junk. */
				if (!junk.has)
					junk = name;
				else
					junk.len = junk.off + junk.len - name.off, junk.off = name.off;
				njunk++;
				name.has = 0;
			}
		}
	}
	if (tool.has && !rcpt.has) {
		/* `<|constrain|>functions.f` and no recipient: the tool is the recipient. */
		rcpt = tool;
		out->flags |= HM_HP_CONSTRAIN_RCPT;
	} else if (tool.has && !ctype.has) {
		ctype = tool;
		ctype_mark = 1;
	}
	if (junk.has) {
		if (njunk == 1 && !rcpt.has && !has_mark(s, junk.off + junk.len, junk.off)) {
			/* The reference's rule: a lone word is the recipient. */
			rcpt = junk;
			out->flags |= HM_HP_LONE;
		} else {
			out->flags |= HM_HP_JUNK;
			out->junk_off = junk.off;
			out->junk_len = junk.len;
		}
	}
	if (chan_differ)
		out->flags |= HM_HP_DIFFER;
	if (chan_differ && any_analysis) {
		chan.off = 0;
		chan.len = 8;
		/* When in doubt between reasoning and answer: reasoning. */
		out->flags |= HM_HP_ANALYSIS;
	}
	/* Whatever went before: no field holds special-token text. */
	if (name.has && has_mark(s, name.off + name.len, name.off))
		name.has = 0, out->flags |= HM_HP_JUNK;
	if (rcpt.has && has_mark(s, rcpt.off + rcpt.len, rcpt.off))
		rcpt.has = 0, out->flags |= HM_HP_JUNK;
	if (out->flags & HM_HP_JUNK && !junk.has) {
		out->junk_off = 0;
		out->junk_len = n;
	}
	/* The fields, into out->buf. */
	if (name.has) {
		out->h.off[P_NAME] = b->len;
		out->h.len[P_NAME] = name.len;
		out->h.has[P_NAME] = 1;
		hm_buf_add(b, s + name.off, name.len);
	}
	if (rcpt.has) {
		out->h.off[P_RCPT] = b->len;
		out->h.len[P_RCPT] = rcpt.len;
		out->h.has[P_RCPT] = 1;
		hm_buf_add(b, s + rcpt.off, rcpt.len);
	}
	if (chan.has) {
		out->h.off[P_CHAN] = b->len;
		out->h.len[P_CHAN] = chan.len;
		out->h.has[P_CHAN] = 1;
		if (out->flags & HM_HP_ANALYSIS)
			hm_buf_adds(b, "analysis");
		else
			hm_buf_add(b, s + chan.off, chan.len);
	}
	if (ctype.has) {
		out->h.off[P_CTYPE] = b->len;
		out->h.has[P_CTYPE] = 1;
		if (ctype_mark && !(ctype.len == 13 && !memcmp(s + ctype.off, "<|constrain|>", 13)))
			hm_buf_adds(b, "<|constrain|>");
		hm_buf_add(b, s + ctype.off, ctype.len);
		out->h.len[P_CTYPE] = b->len - out->h.off[P_CTYPE];
		if (out->h.len[P_CTYPE] == 13 && ctype_mark) {
			/* `<|constrain|>` with nothing after it names no type. */
			out->h.has[P_CTYPE] = 0;
			b->len = out->h.off[P_CTYPE];
		}
	}
	return b->oom ? -1 : 0;
}

int
hm__hdr_is_prose(const char *s, size_t n)
{
	struct hm_hdr_parts hp;
	int r;

	memset(&hp, 0, sizeof hp);
	if (hm__hdr_loose(s, n, 1, &hp) < 0) {
		hm_buf_free(&hp.buf);
		return 0;
	}
	r = (hp.flags & HM_HP_JUNK) || ((hp.flags & HM_HP_LONE) &&
	    !memchr(hp.buf.p + hp.h.off[P_RCPT], '.', hp.h.len[P_RCPT]));
	hm_buf_free(&hp.buf);
	return r;
}
