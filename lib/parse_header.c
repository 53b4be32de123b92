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

static int
is_analysis(const char *w, size_t n)
{
	return n == 8 && !memcmp(w, "analysis", 8);
}

/* The loose reading as it goes: the parts met so far, and what the next item is. */
struct loose {
	const char *s;
	size_t n;
	struct hm_hdr_parts *out;
	struct val chan, rcpt, name, ctype, junk, tool;
	struct val cprev;       /* the content type before the last <|constrain|> */
	int cprev_mark;
	unsigned cprev_flags;
	size_t njunk, nchan;
	enum pend pend;
	int ctype_mark;         /* the content type came after <|constrain|> */
	int first;              /* no word read yet */
	int any_analysis, chan_differ;
};

/* A marker or a channel left without its word: the part is empty. */
static void
loose_pend_empty(struct loose *L)
{
	if (L->pend == PEND_CHANNEL || L->pend == PEND_TO)
		L->out->flags |= HM_HP_EMPTY;
	if (L->pend == PEND_CONSTRAIN) {
		L->out->flags |= HM_HP_EMPTY;
		L->ctype.has = 0;
	}
}

/* A special token's text in the header: <|channel|>, <|constrain|> or another. */
static void
loose_marker(struct loose *L, const struct item *it)
{
	loose_pend_empty(L);
	L->pend = it->kind == IT_CHANNEL ? PEND_CHANNEL : it->kind == IT_CONSTRAIN ? PEND_CONSTRAIN : 0;
	if (it->kind == IT_OTHER)
		L->out->flags |= HM_HP_SPECIAL;
	if (it->kind == IT_CHANNEL && ++L->nchan > 1)
		L->out->flags |= HM_HP_REPEAT;
	if (it->kind == IT_CONSTRAIN) {
		L->cprev = L->ctype;
		L->cprev_mark = L->ctype_mark;
		L->cprev_flags = L->out->flags;
		if (L->ctype.has)
			L->out->flags |= HM_HP_REPEAT;
		L->ctype.has = 1;
		L->ctype_mark = 1;
		L->ctype.off = it->off;
		L->ctype.len = 13;
	}
	L->first = 0;
}

/* A word after <|channel|> or <|constrain|> (not to=...): 1 when it was theirs. */
static int
loose_after_marker(struct loose *L, const struct item *it)
{
	const char *s = L->s;
	struct val v;

	if (L->pend == PEND_CHANNEL) {
		v.off = it->off;
		v.len = it->len;
		v.has = 1;
		if (L->chan.has && !same(s, &L->chan, &v))
			L->chan_differ = 1;
		if (is_analysis(s + v.off, v.len))
			L->any_analysis = 1;
		L->chan = v;
		L->pend = PEND_NONE;
		return 1;
	}
	if (L->pend != PEND_CONSTRAIN)
		return 0;
	/* <|constrain|>NAME: the span from the marker, blanks left out below. */
	if (hm__tool_name(s + it->off, it->len)) {
		/* Perhaps the recipient (below): the content type stays as it was. */
		L->tool.off = it->off;
		L->tool.len = it->len;
		L->tool.has = 1;
		L->ctype = L->cprev;
		L->ctype_mark = L->cprev_mark;
		if (!(L->cprev_flags & HM_HP_REPEAT))
			L->out->flags &= ~(unsigned)HM_HP_REPEAT;
		L->pend = PEND_NONE;
		return 1;
	}
	L->ctype.off = it->off;
	L->ctype.len = it->len;
	L->ctype_mark = 1;
	L->pend = mime_type(s + it->off, it->len) ? PEND_CTYPE : 0;
	return 1;
}

/* `to=NAME`, or the word after a lone `to=`: the recipient. */
static void
loose_recipient(struct loose *L, const struct item *it)
{
	int to = is_to(L->s, it);
	struct val v;

	v.off = to ? it->off + 3 : it->off;
	v.len = to ? it->len - 3 : it->len;
	v.has = 1;
	L->first = 0;
	if (!v.len) {
		L->pend = PEND_TO;
		return;
	}
	if (L->rcpt.has) {
		L->out->flags |= HM_HP_REPEAT;
		if (!same(L->s, &L->rcpt, &v))
			L->out->flags |= HM_HP_DIFFER;
	}
	L->rcpt = v;
	L->pend = PEND_RCPT;
}

/* The header's first word: the role (perhaps glued to more), or a tool's name.  1: taken. */
static int
loose_first(struct loose *L, const struct item *it)
{
	struct hm_hdr_parts *out = L->out;
	const char *w = L->s + it->off;
	size_t gk;
	int r, g;

	if ((g = hm__hdr_glued(w, it->len, &r, &gk)) && (out->h.role < 0 || out->h.role == r)) {
		/* `assistantassistant`, `assistantfinal`, `assistantto=f`. */
		out->h.role = r;
		L->first = 0;
		out->flags |= g == HM_GLUE_TWICE ? HM_HP_ROLE_TWICE : HM_HP_ROLE_GLUED;
		if (g & HM_GLUE_CHAN) {
			L->chan.off = it->off + gk;
			L->chan.len = it->len - gk;
			L->chan.has = 1;
			L->nchan++;
			L->any_analysis |= is_analysis(L->s + L->chan.off, L->chan.len);
		} else if (g & HM_GLUE_TO) {
			L->rcpt.off = it->off + gk + 3;
			L->rcpt.len = it->len - gk - 3;
			L->rcpt.has = 1;
			L->pend = PEND_RCPT;
		}
		return 1;
	}
	if (out->h.role < 0 && (r = role_of(w, it->len, 1)) >= 0) {
		out->h.role = r;
		L->first = 0;
		return 1;
	}
	if (out->h.role >= 0 && role_of(w, it->len, 1) == out->h.role) {
		L->first = 0;
		return 1;
	}
	if (out->h.role < 0) {
		/* A tool's own name (`functions.Web Search to=assistant`). */
		L->name.off = it->off;
		L->name.len = it->len;
		L->name.has = 1;
		L->pend = PEND_NAME;
		L->first = 0;
		return 1;
	}
	return 0;
}

/* Any other word: a content type, a channel without its marker, or junk. */
static void
loose_other(struct loose *L, const struct item *it)
{
	const char *w = L->s + it->off;

	L->first = 0;
	if (hm__ctype_word(w, it->len)) {
		if (L->ctype.has)
			L->out->flags |= HM_HP_REPEAT;
		L->ctype.off = it->off;
		L->ctype.len = it->len;
		L->ctype.has = 1;
		L->ctype_mark = 0;
		L->pend = mime_type(w, it->len) ? PEND_CTYPE : 0;
		return;
	}
	if (!L->chan.has && hm__chan_index(w, it->len) >= 0) {
		/* `commentary to=f`: a channel without its <|channel|>. */
		L->chan.off = it->off;
		L->chan.len = it->len;
		L->chan.has = 1;
		L->any_analysis |= is_analysis(w, it->len);
		L->out->flags |= HM_HP_BARE_CHAN;
		return;
	}
	L->njunk++;
	if (!L->junk.has)
		L->junk.off = it->off;
	L->junk.len = it->off + it->len - L->junk.off;
	L->junk.has = 1;
}

/* One word of the header. */
static void
loose_word(struct loose *L, const struct item *it)
{
	const char *s = L->s;
	int to = is_to(s, it);

	if (L->pend == PEND_CTYPE && !to && (s[it->off] == ';' ||
	    s[L->ctype.off + L->ctype.len - 1] == ';') && mime_params(s + it->off, it->len, 0)) {
		/* `text/plain; charset=utf-8`: the parameters are the content type's. */
		L->ctype.len = it->off + it->len - L->ctype.off;
		L->out->flags |= HM_HP_CTYPE_PARAMS;
		return;
	}
	if (L->pend == PEND_CTYPE)
		L->pend = PEND_NONE;
	if (it->blank_before && (L->pend == PEND_CHANNEL || L->pend == PEND_CONSTRAIN ||
	    L->pend == PEND_TO))
		L->out->flags |= HM_HP_BLANK;
	if (!to && loose_after_marker(L, it))
		return;
	/* <|channel|> or <|constrain|> then to=: the part is empty (a lone to= is not) */
	if (L->pend != PEND_TO)
		loose_pend_empty(L);
	if (to || L->pend == PEND_TO) {
		loose_recipient(L, it);
		return;
	}
	if (L->pend == PEND_RCPT && !hm__ctype_word(s + it->off, it->len)) {
		/* A recipient runs over blanks: `functions.Web Search`. */
		L->rcpt.len = it->off + it->len - L->rcpt.off;
		return;
	}
	L->pend = PEND_NONE;
	if (L->first && loose_first(L, it))
		return;
	loose_other(L, it);
}

/* The words read: the role, the tool, the lone word and the channels settled. */
static void
loose_settle(struct loose *L)
{
	struct hm_hdr_parts *out = L->out;
	const char *s = L->s;

	loose_pend_empty(L);
	/* Words after a tool's name, before any part, are more of the name. */
	if (L->name.has && L->junk.has && L->junk.off < (L->rcpt.has ? L->rcpt.off : L->n) &&
	    !has_mark(s, L->junk.off + L->junk.len, L->name.off)) {
		L->name.len = L->junk.off + L->junk.len - L->name.off;
		L->junk.has = 0;
		L->njunk = 0;
	}
	if (out->h.role < 0) {
		if (L->name.has && (L->rcpt.has || L->chan.has)) {
			out->h.role = HM_ROLE_TOOL;
		} else {
			out->h.role = HM_ROLE_ASSISTANT;
			out->flags |= HM_HP_NO_ROLE;
			if (L->name.has) {
				/* No role word, no tool: the word was junk. */
				if (!L->junk.has)
					L->junk = L->name;
				else
					L->junk.len = L->junk.off + L->junk.len - L->name.off,
					L->junk.off = L->name.off;
				L->njunk++;
				L->name.has = 0;
			}
		}
	}
	if (L->tool.has && !L->rcpt.has) {
		/* `<|constrain|>functions.f` and no recipient: the tool is the recipient. */
		L->rcpt = L->tool;
		out->flags |= HM_HP_CONSTRAIN_RCPT;
	} else if (L->tool.has && !L->ctype.has) {
		L->ctype = L->tool;
		L->ctype_mark = 1;
	}
	if (L->junk.has) {
		if (L->njunk == 1 && !L->rcpt.has && !has_mark(s, L->junk.off + L->junk.len, L->junk.off)) {
			/* The reference's rule: a lone word is the recipient. */
			L->rcpt = L->junk;
			out->flags |= HM_HP_LONE;
		} else {
			out->flags |= HM_HP_JUNK;
			out->junk_off = L->junk.off;
			out->junk_len = L->junk.len;
		}
	}
	if (L->chan_differ)
		out->flags |= HM_HP_DIFFER;
	if (L->chan_differ && L->any_analysis) {
		L->chan.off = 0;
		L->chan.len = 8;
		/* When in doubt between reasoning and answer: reasoning. */
		out->flags |= HM_HP_ANALYSIS;
	}
	/* Whatever went before: no field holds special-token text. */
	if (L->name.has && has_mark(s, L->name.off + L->name.len, L->name.off))
		L->name.has = 0, out->flags |= HM_HP_JUNK;
	if (L->rcpt.has && has_mark(s, L->rcpt.off + L->rcpt.len, L->rcpt.off))
		L->rcpt.has = 0, out->flags |= HM_HP_JUNK;
	if (out->flags & HM_HP_JUNK && !L->junk.has) {
		out->junk_off = 0;
		out->junk_len = L->n;
	}
}

/* Part i of the header: v's bytes into out->buf. */
static void
loose_put(struct hm_hdr_parts *out, int i, const char *s, const struct val *v)
{
	out->h.off[i] = out->buf.len;
	out->h.len[i] = v->len;
	out->h.has[i] = 1;
	hm__add(&out->nomem, &out->buf, s + v->off, v->len);
}

/* The parts, into out->buf. */
static void
loose_write(const struct loose *L)
{
	struct hm_hdr_parts *out = L->out;
	hm_buf *b = &out->buf;
	const char *s = L->s;

	if (L->name.has)
		loose_put(out, P_NAME, s, &L->name);
	if (L->rcpt.has)
		loose_put(out, P_RCPT, s, &L->rcpt);
	if (L->chan.has) {
		out->h.off[P_CHAN] = b->len;
		out->h.len[P_CHAN] = L->chan.len;
		out->h.has[P_CHAN] = 1;
		if (out->flags & HM_HP_ANALYSIS)
			hm__adds(&out->nomem, b, "analysis");
		else
			hm__add(&out->nomem, b, s + L->chan.off, L->chan.len);
	}
	if (L->ctype.has) {
		out->h.off[P_CTYPE] = b->len;
		out->h.has[P_CTYPE] = 1;
		if (L->ctype_mark && !(L->ctype.len == 13 && !memcmp(s + L->ctype.off, "<|constrain|>", 13)))
			hm__adds(&out->nomem, b, "<|constrain|>");
		hm__add(&out->nomem, b, s + L->ctype.off, L->ctype.len);
		out->h.len[P_CTYPE] = b->len - out->h.off[P_CTYPE];
		if (out->h.len[P_CTYPE] == 13 && L->ctype_mark) {
			/* `<|constrain|>` with nothing after it names no type. */
			out->h.has[P_CTYPE] = 0;
			b->len = out->h.off[P_CTYPE];
		}
	}
}

hm_status
hm__hdr_loose(const char *s, size_t n, int role, struct hm_hdr_parts *out)
{
	struct loose L;
	struct item it;
	size_t i = 0;

	memset(&L, 0, sizeof L);
	L.s = s;
	L.n = n;
	L.out = out;
	L.pend = PEND_NONE;
	L.first = 1;
	memset(out->h.off, 0, sizeof out->h.off);
	memset(out->h.len, 0, sizeof out->h.len);
	memset(out->h.has, 0, sizeof out->h.has);
	out->flags = 0;
	out->h.role = role;
	hm_buf_reset(&out->buf);
	while (next_item(s, n, &i, &it)) {
		if (it.kind != IT_WORD)
			loose_marker(&L, &it);
		else
			loose_word(&L, &it);
	}
	loose_settle(&L);
	loose_write(&L);
	return out->nomem ? HM_ENOMEM : HM_OK;
}

int
hm__hdr_is_prose(int *nomem, const char *s, size_t n)
{
	struct hm_hdr_parts hp;
	int r;

	memset(&hp, 0, sizeof hp);
	if (hm__hdr_loose(s, n, 1, &hp) != HM_OK) {
		hm_buf_free(&hp.buf);
		*nomem = 1;
		return 0;
	}
	r = (hp.flags & HM_HP_JUNK) || ((hp.flags & HM_HP_LONE) &&
	    !memchr(hp.buf.p + hp.h.off[P_RCPT], '.', hp.h.len[P_RCPT]));
	hm_buf_free(&hp.buf);
	return r;
}
