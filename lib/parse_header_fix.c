/*
 * parse_header_fix.c - the header (struct p_header, which it owns): its
 * text gathered (hm__p_header_begin, hm__p_header_add), then read at
 * <|message|> with the reference's reading (parse_header_strict.c) and in
 * the default mode the repairs when it fails or reads oddly: normalised
 * blanks, the tolerant grammar (parse_header.c), bare and prose headers,
 * checks of recipients and channels (the header recoveries of
 * harmony-parse(1)); and a header that ends without <|message|>, made a
 * message when it holds text (F2, F7, F8, F10, F18).  Calls the strict
 * reading, parse_content.c and parse_events.c below it; the machine
 * (parse_step.c) moves to the state these functions return.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser_int.h"

/* ---------------------------------------------------------------- header */

void
hm__p_header_begin(hm_parser *p, uint64_t at)
{
	hm_buf_reset(&p->h.text);
	p->h.at = at;
	p->h.bad = 0;
	p->h.nwords = 0;
	p->h.wmax = HDR_MAX_WORDS;
	p->h.inword = 0;
}

/* The header's text is its first n bytes (n <= its length). */
void
hm__p_header_cut(hm_parser *p, size_t n)
{
	if (n < p->h.text.len)
		p->h.text.len = n;
}

/* An id outside the vocabulary in the header: the warning names it. */
void
hm__p_header_unknown(hm_parser *p, uint32_t id)
{
	char num[16];

	if (p->cf.strict) {
		p->h.bad = 1;
		return;
	}
	snprintf(num, sizeof num, "%lu", (unsigned long)id);
	hm__p_warn(p, p->st.pos, HM_F_UTF8, "unknown token id %s in header replaced by U+FFFD",
	    num, strlen(num));
	hm__p_header_add(p, "\xEF\xBF\xBD", 3);
}

/*
 * The reference's reading into p->h.hs: HM_OK, HM_EINPUT when it fails
 * (its message in p->h.tmp), HM_ENOMEM (p->nomem).
 */
static hm_status
strict_read(hm_parser *p, const char *s, size_t n, int role, struct hdr *h)
{
	return hm__p_parse_header(&p->nomem, &p->h.hs, &p->h.wbuf, &p->h.tmp, s, n, role, 1, h);
}

void
hm__p_header_add(hm_parser *p, const char *s, size_t n)
{
	size_t i, base, words = p->h.nwords;
	int inword = p->h.inword;

	if (!p->h.text.len)
		p->h.off = p->st.pos;
	hm__put(&p->nomem, &p->h.text, s, n);
	base = p->h.text.len - n; /* (wrong when the append failed: parts_only) */
	for (i = 0; i < n; i++) {
		int ws = hm__p_is_aws((unsigned char)s[i]);

		if (!ws && !inword) {
			size_t q = ++words, k = 0;

			if (q % HDR_MAX_WORDS == 0) {
				for (q /= HDR_MAX_WORDS; !(q & 1); q >>= 1)
					k++;
				if (q == 1 && k < 24)
					p->h.wofs[k] = base + i;
			}
		}
		inword = !ws;
	}
	p->h.nwords = words;
	p->h.inword = inword;
}

/* A content type: `<|constrain|>...`, or a word hm__ctype_word knows. */
static int
is_ctype_word(const char *s, size_t n)
{
	return (n >= 13 && !memcmp(s, "<|constrain|>", 13)) || hm__ctype_word(s, n);
}


/* The built-in tools (python, browser, container): not functions. */
static int
builtin_tool(const char *r, size_t n)
{
	return (n >= 6 && !memcmp(r, "python", 6)) ||
	    (n >= 7 && !memcmp(r, "browser", 7)) ||
	    (n >= 9 && !memcmp(r, "container", 9));
}

/*
 * F16: a recipient with a byte that is not hm__is_rcpt_byte's (a blank,
 * non-ASCII letters), kept as written but worth a word.
 */
static int
odd_name(const char *r, size_t n)
{
	size_t i;

	if (hm__p_find(r, n, "\xEF\xBF\xBD", 0) != (size_t)-1)
		return 0; /* F12's */
	for (i = 0; i < n; i++)
		if (!hm__is_rcpt_byte((unsigned char)r[i]))
			return 1;
	return 0;
}

/* Whether the field f of *h is `<|constrain|>` and a tool's name. */
static int
constrained_tool(const hm_parser *p, const struct hdr *h, int f)
{
	const char *t = p->h.hs.p + h->off[f];

	return h->has[f] && h->len[f] > 13 && !memcmp(t, "<|constrain|>", 13) &&
	    hm__tool_name(t + 13, h->len[f] - 13);
}

/*
 * F3: `<|constrain|>functions.f` in a message with no recipient (the
 * reference reads it as the recipient `<|constrain|>functions.f`, or as
 * the content type after a content type it takes for the recipient): the
 * tool is the recipient, a content type word stays the content type.
 */
static void
constrain_tool(hm_parser *p, struct hdr *h, uint64_t at)
{
	const char *hs = p->h.hs.p;
	size_t o, l;
	int f;

	if (constrained_tool(p, h, P_RCPT) && !h->has[P_CTYPE])
		f = P_RCPT;
	else if (constrained_tool(p, h, P_CTYPE) && (!h->has[P_RCPT] ||
	    is_ctype_word(hs + h->off[P_RCPT], h->len[P_RCPT])))
		f = P_CTYPE;
	else
		return;
	hm__p_warn(p, at, HM_F_CONTENT_TYPE, "\"%s\" names a tool, not a content type: taken as the recipient",
	    hs + h->off[f], h->len[f]);
	o = h->off[f] + 13;
	l = h->len[f] - 13;
	if (f == P_CTYPE) {
		/* The word read as the recipient is the content type. */
		h->off[P_CTYPE] = h->off[P_RCPT];
		h->len[P_CTYPE] = h->len[P_RCPT];
		h->has[P_CTYPE] = h->has[P_RCPT];
	}
	h->off[P_RCPT] = o;
	h->len[P_RCPT] = l;
	h->has[P_RCPT] = 1;
}

/* Default-mode fixes of a header the grammar accepted. */
static void
header_fix(hm_parser *p, struct hdr *h, uint64_t at)
{
	const char *hs = p->h.hs.p;

	constrain_tool(p, h, at);
	if (h->has[P_RCPT] && !h->has[P_CTYPE] &&
	    is_ctype_word(hs + h->off[P_RCPT], h->len[P_RCPT])) {
		hm__p_warn(p, at, HM_F_CONTENT_TYPE, "\"%s\" is a content type, not a recipient",
		    hs + h->off[P_RCPT], h->len[P_RCPT]);
		h->off[P_CTYPE] = h->off[P_RCPT];
		h->len[P_CTYPE] = h->len[P_RCPT];
		h->has[P_CTYPE] = 1;
		h->has[P_RCPT] = 0;
	}
	if (h->has[P_CHAN] && hm__chan_index(hs + h->off[P_CHAN], h->len[P_CHAN]) < 0) {
		size_t a = h->off[P_CHAN], b = a + h->len[P_CHAN];

		while (a < b && !((hs[a] | 0x20) >= 'a' && (hs[a] | 0x20) <= 'z'))
			a++;
		while (b > a && !((hs[b - 1] | 0x20) >= 'a' && (hs[b - 1] | 0x20) <= 'z'))
			b--;
		if (hm__chan_index(hs + a, b - a) >= 0) {
			hm__p_warn(p, at, HM_F_HEADER, "junk around channel \"%s\" ignored", hs + a, b - a);
			h->off[P_CHAN] = a;
			h->len[P_CHAN] = b - a;
		}
	}
	if (h->has[P_RCPT] && odd_name(hs + h->off[P_RCPT], h->len[P_RCPT]))
		hm__p_warn(p, at, HM_F_RCPT_NAME, "recipient \"%s\" is not a plain name: kept as written",
		    hs + h->off[P_RCPT], h->len[P_RCPT]);
	if (h->has[P_RCPT] && h->role == HM_ROLE_ASSISTANT) {
		const char *r = hs + h->off[P_RCPT];
		size_t n = h->len[P_RCPT];

		if (n == 9 && !memcmp(r, "assistant", 9))
			hm__p_warn(p, at, HM_F_SELF, "recipient assistant on an assistant message: not a tool call", NULL, 0);
		else if (hm__p_find(r, n, "\xEF\xBF\xBD", 0) != (size_t)-1)
			hm__p_warn(p, at, HM_F_UTF8, "recipient \"%s\" is not readable: not a tool call", r, n);
		else if (!h->has[P_CHAN] && hm__chan_index(r, n) >= 0)
			hm__p_warn(p, at, HM_F_HEADER, "channel name \"%s\" without <|channel|>: shown on that channel, not as a tool call", r, n);
		else if (n == 10 && !memcmp(r, "functions.", 10))
			hm__p_warn(p, at, HM_F_BARE_NAME, "recipient functions. names no function: a call to \"\"", NULL, 0);
		else if (n && !memchr(r, '.', n) && !builtin_tool(r, n))
			hm__p_warn(p, at, HM_F_BARE_NAME, "recipient \"%s\" has no namespace: taken as a function", r, n);
		if (n > 10 && !memcmp(r, "functions.", 10) && !(h->has[P_CHAN] &&
		    h->len[P_CHAN] == 10 && !memcmp(hs + h->off[P_CHAN], "commentary", 10)))
			hm__p_warn(p, at, HM_F_CHANNEL, "tool call outside the commentary channel: classified by recipient", NULL, 0);
	}
}

/*
 * Default mode: models put blanks after <|channel|>, `to=` and
 * <|constrain|> (`<|channel|> final`, `to= functions.f`, the
 * `<|constrain|> json` of the format's own docs), which the grammar would
 * read as a lost channel or a word of its own.  Glue the next word to its
 * marker, warning once per kind, and return the header so fixed (in
 * p->h.norm, or s itself when nothing changed).
 */
static const char *
header_norm(hm_parser *p, const char *s, size_t *n, uint64_t at)
{
	static const struct {
		const char *mark;
		int code;
		const char *msg;
	} kinds[] = {
		{ "<|channel|>", HM_F_HEADER, "blank after <|channel|> ignored" },
		{ "to=", HM_F_RECIPIENT, "blank after to= ignored: the next word is the recipient" },
		{ "<|constrain|>", HM_F_CONTENT_TYPE, "blank after <|constrain|> ignored" },
	};
	hm_buf *t = &p->h.norm;
	size_t i = 0, j, k, m = 0, len = *n, last = 0;
	unsigned warned = 0, kind;
	uint32_t cp;

	hm_buf_reset(t);
	while (i < len) {
		for (kind = 0; kind < 3; kind++) {
			m = strlen(kinds[kind].mark);
			if (len - i >= m && !memcmp(s + i, kinds[kind].mark, m) &&
			    (kind != 1 || i == 0 || hm__p_is_aws((unsigned char)s[i - 1])))
				break;
		}
		if (kind == 3) {
			i++;
			continue;
		}
		j = k = i + m;
		while (k < len) {
			size_t w = hm__p_char_at(s, len, k, &cp);

			if (!hm__is_uws(cp))
				break;
			k += w;
		}
		if (k > j && k < len && s[k] != '<') {
			hm__add(&p->nomem, t, s + last, j - last);
			last = k;
			if (!(warned & 1u << kind))
				hm__p_warn(p, at, kinds[kind].code, kinds[kind].msg, NULL, 0);
			warned |= 1u << kind;
		}
		i = k;
	}
	if (!warned)
		return s;
	hm__add(&p->nomem, t, s + last, len - last);
	if (p->nomem)
		return s;
	*n = t->len;
	return t->p;
}

/*
 * Repair a header the grammar rejected: HM_OK with *h filled, HM_EINPUT
 * when the grammar rejects it still, HM_ENOMEM (p->nomem).
 */
static hm_status
header_repair(hm_parser *p, const char *s, size_t n, int role, struct hdr *h,
    uint64_t at)
{
	hm_buf t = { 0 };
	size_t i, m;
	hm_status r;

	/* Drop an empty channel marker; lowercase a role. */
	hm__add(&p->nomem, &t, s, n);
	if ((m = hm__p_find(t.p, t.len, "<|channel|>", 0)) != (size_t)-1) {
		size_t e = m + 11;

		if (e == t.len || t.p[e] == '<' || hm__p_is_aws((unsigned char)t.p[e])) {
			memmove(t.p + m, t.p + e, t.len - e);
			t.len -= 11;
		}
	}
	if (role == R_NONE) {
		for (i = 0; i < t.len && !hm__p_is_aws((unsigned char)t.p[i]) && t.p[i] != '<'; i++)
			;
		if (i && t.p[0] >= 'A' && t.p[0] <= 'Z') {
			char w[16];

			if (i < sizeof w) {
				for (m = 0; m < i; m++)
					w[m] = (char)(t.p[m] | 0x20);
				if (hm__role_index(w, i) >= 0)
					memcpy(t.p, w, i);
			}
		}
	}
	if (p->nomem)
		r = HM_ENOMEM;
	else if ((r = strict_read(p, t.p, t.len, role, h)) == HM_OK)
		hm__p_warn(p, at, HM_F_HEADER, "malformed header repaired: %s", s, n);
	hm_buf_free(&t);
	return r;
}

/* header_split: drop blanks at hs[j..) when a word follows (`to= x`). */
static void
glue_blanks(hm_buf *hs, size_t j)
{
	size_t k = j;

	while (k < hs->len && hm__p_is_aws((unsigned char)hs->p[k]))
		k++;
	if (k > j && k < hs->len && hs->p[k] != '<') {
		memmove(hs->p + j, hs->p + k, hs->len - k);
		hs->len -= k - j;
	}
}

static int
ctype_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '_' || c == '-' || c == '.' || c == '+' || c == '/';
}

/*
 * Whether s[0..n) can be a channel's name as a model writes one: letters,
 * digits, '_', '-', '.', or anything not ASCII (names in other scripts);
 * an empty one too (no word at all).  A word with ':' ',' '!' '?' or a
 * quote is prose written where the name goes (shape (c) of issue 35).
 */
static int
chan_word(const char *s, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		unsigned char c = (unsigned char)s[k];

		if (c < 0x80 && !ctype_char(c) && c != '=')
			return 0;
	}
	return 1;
}

/*
 * Split a header that never reached <|message|> into its header part and
 * the content that follows (F7, F8).  Fills *h with offsets into p->h.hs and
 * returns the content's offset in p->h.hs, or -1 when no role is known.
 */
size_t
hm__p_header_split(hm_parser *p, int role, struct hdr *h, int *consumed)
{
	const char *s;
	size_t n, i = 0, e, k;
	hm_buf *hs = &p->h.hs;
	int g, r;

	memset(h, 0, sizeof *h);
	h->role = role;
	*consumed = 0;
	hm_buf_reset(hs);
	hm__p_add_lossy(&p->nomem, hs, p->h.text.p, p->h.text.len);
	s = hs->p ? hs->p : "";
	n = hs->len;
	for (;;) {
		while (i < n && hm__p_is_aws((unsigned char)s[i]))
			i++;
		if (i >= n)
			break;
		/* As in header_norm: a marker takes the word after its blanks. */
		if (n - i >= 11 && !memcmp(s + i, "<|channel|>", 11))
			glue_blanks(hs, i + 11);
		else if (n - i >= 13 && !memcmp(s + i, "<|constrain|>", 13))
			glue_blanks(hs, i + 13);
		else if (n - i >= 3 && !memcmp(s + i, "to=", 3)) {
			size_t k = i + 3;

			/* Not `to= {...}`: that brace is content, not a recipient. */
			while (k < n && hm__p_is_aws((unsigned char)s[k]))
				k++;
			if (k == n || (s[k] != '{' && s[k] != '['))
				glue_blanks(hs, i + 3);
		}
		n = hs->len;
		if (!strncmp(s + i, "<|channel|>", n - i < 11 ? n - i : 11) && n - i >= 11) {
			for (e = i + 11; e < n && !hm__p_is_aws((unsigned char)s[e]) && s[e] != '<'; e++)
				;
			{
				/* `<|channel|>finalThe answer`: a channel name glued to the content. */
				const char *const *ch = hm__chan_names;
				size_t k, m;

				for (k = 0; k < HM__NCHANS; k++) {
					m = strlen(ch[k]);
					if (e - i - 11 > m && !memcmp(s + i + 11, ch[k], m)) {
						e = i + 11 + m;
						break;
					}
				}
			}
			if (!chan_word(s + i + 11, e - i - 11)) {
				/*
				 * `<|channel|>NOTE: the answer is 4.`: prose where the
				 * channel's name goes, no name (a name has no ':' or
				 * '!').  The text is content whole, its first word too.
				 */
				i += 11;
				*consumed = 1;
				break;
			}
			if (e > i + 11) {
				h->off[P_CHAN] = i + 11;
				h->len[P_CHAN] = e - i - 11;
				h->has[P_CHAN] = 1;
			}
			i = e;
			*consumed = 1;
			continue;
		}
		if (n - i >= 13 && !memcmp(s + i, "<|constrain|>", 13)) {
			/* A content type is a name: `<|constrain|>json{...}` has content after it. */
			for (e = i + 13; e < n && !hm__p_is_aws((unsigned char)s[e]) && s[e] != '<' &&
			    (e == i + 13 || ctype_char((unsigned char)s[e])); e++)
				;
			if (!h->has[P_RCPT] && hm__tool_name(s + i + 13, e - i - 13)) {
				/* F3: a tool's name, the recipient (hm__p_header_recover warns). */
				h->off[P_RCPT] = i + 13;
				h->len[P_RCPT] = e - i - 13;
				h->has[P_RCPT] = 1;
				i = e;
				*consumed = 1;
				continue;
			}
			h->off[P_CTYPE] = i;
			h->len[P_CTYPE] = e - i;
			h->has[P_CTYPE] = 1;
			i = e;
			*consumed = 1;
			continue;
		}
		for (e = i; e < n && !hm__p_is_aws((unsigned char)s[e]) && s[e] != '<' &&
		    !(e >= i + 3 && !memcmp(s + i, "to=", 3) && (s[e] == '{' || s[e] == '[')); e++)
			;
		if (*consumed && !h->has[P_CTYPE]) {
			/* `to=f json{...}`: a content type glued to the content. */
			size_t k = i;

			while (k < e && (((unsigned char)s[k] | 0x20) >= 'a' && ((unsigned char)s[k] | 0x20) <= 'z'))
				k++;
			if (k > i && is_ctype_word(s + i, k - i) && (k == e || s[k] == '{' || s[k] == '[')) {
				h->off[P_CTYPE] = i;
				h->len[P_CTYPE] = k - i;
				h->has[P_CTYPE] = 1;
				i = k;
				continue;
			}
		}
		if (e - i > 3 && !memcmp(s + i, "to=", 3)) {
			h->off[P_RCPT] = i + 3;
			h->len[P_RCPT] = e - i - 3;
			h->has[P_RCPT] = 1;
			i = e;
			*consumed = 1;
			continue;
		}
		if (!*consumed && e > i && (g = hm__hdr_glued(s + i, e - i, &r, &k)) &&
		    (h->role < 0 || h->role == r)) {
			/* `assistantfinal`, `assistantto=f`: the role run together. */
			int f = g & HM_GLUE_CHAN ? P_CHAN : P_RCPT;

			h->role = r;
			if (g & HM_GLUE_TO)
				k += 3;
			if (g & (HM_GLUE_CHAN | HM_GLUE_TO)) {
				h->off[f] = i + k;
				h->len[f] = e - i - k;
				h->has[f] = 1;
			}
			i = e;
			*consumed = 1;
			continue;
		}
		if (!*consumed && (e - i) && hm__role_index(s + i, e - i) >= 0 &&
		    (h->role < 0 || h->role == hm__role_index(s + i, e - i))) {
			h->role = hm__role_index(s + i, e - i);
			i = e;
			*consumed = 1;
			continue;
		}
		break;
	}
	if (h->role < 0)
		return (size_t)-1;
	return i;
}

/*
 * Whether the header holds header words alone (`assistant<|channel|>final`):
 * cut off by <|start|>, it is restarted, not an empty message.
 */
int
hm__p_header_bare(hm_parser *p)
{
	struct hdr h;
	int consumed;
	size_t c = hm__p_header_split(p, p->st.first_msg ? p->st.next_role : R_NONE, &h, &consumed);

	return c != (size_t)-1 && c >= p->h.hs.len;
}

/* Whether s[0..n) holds a blank the grammar did not split at (U+00A0). */
static int
has_uws(const char *s, size_t n)
{
	size_t i = 0;
	uint32_t cp;

	while (i < n) {
		i += hm__p_char_at(s, n, i, &cp);
		if (hm__is_uws(cp))
			return 1;
	}
	return 0;
}

/*
 * Whether a field s[0..n) of the reference's reading holds special-token
 * text, a blank or starts with to=.
 */
static int
field_bad(const char *s, size_t n)
{
	return hm__p_find(s, n, "<|", 0) != (size_t)-1 || (n >= 3 && !memcmp(s, "to=", 3)) ||
	    has_uws(s, n);
}

static int
glued(const char *s, size_t n)
{
	int r;
	size_t k;

	return hm__hdr_glued(s, n, &r, &k) != 0;
}

/*
 * Whether the reference grammar's reading *h of the header s[0..n) can be
 * trusted: no field holds special-token text, no content type that is
 * none, and no part of the header was written twice (which the grammar
 * would read as another part).
 */
static int
header_clean(hm_parser *p, const char *s, size_t n, const struct hdr *h)
{
	const char *hs = p->h.hs.p;
	size_t i, m, nto = 0, nch = 0;
	int j;

	if (h->has[P_NAME] && (hm__p_find(hs + h->off[P_NAME], h->len[P_NAME], "<|", 0) != (size_t)-1 ||
	    has_uws(hs + h->off[P_NAME], h->len[P_NAME])))
		return 0;
	if (h->has[P_CHAN] && field_bad(hs + h->off[P_CHAN], h->len[P_CHAN]))
		return 0;
	/* `assistantcommentary to=f` is no tool named so, `assistantfinal` no recipient. */
	if (h->has[P_NAME] && glued(hs + h->off[P_NAME], h->len[P_NAME]))
		return 0;
	if (h->has[P_RCPT] && !(h->off[P_RCPT] >= 3 && !memcmp(hs + h->off[P_RCPT] - 3, "to=", 3)) &&
	    glued(hs + h->off[P_RCPT], h->len[P_RCPT]))
		return 0;
	for (j = 0; j < 2; j++) {
		int f = j ? P_CTYPE : P_RCPT;
		const char *t = hs + h->off[f];
		size_t k = h->len[f];

		if (!h->has[f])
			continue;
		if (k >= 13 && !memcmp(t, "<|constrain|>", 13)) {
			/* A lone <|constrain|>JSON is F3's (header_fix). */
			if (k == 13 || field_bad(t + 13, k - 13) ||
			    (f == P_RCPT && h->has[P_CTYPE]))
				return 0;
		} else if (field_bad(t, k) || (f == P_RCPT && !k && h->has[P_CTYPE]))
			return 0;
	}
	/*
	 * `to=functions.Web Search`: the grammar reads a content type
	 * "Search".  Content types are lowercase names; a word with a capital
	 * is more of the recipient.
	 */
	if (h->has[P_CTYPE] && h->has[P_RCPT] && hs[h->off[P_CTYPE]] >= 'A' &&
	    hs[h->off[P_CTYPE]] <= 'Z' && !hm__ctype_word(hs + h->off[P_CTYPE], h->len[P_CTYPE]))
		return 0;
	/*
	 * `<|channel|>final extra words`: two words, neither `to=` nor a
	 * content type, are no recipient and content type but junk.
	 */
	if (h->has[P_CTYPE] && h->has[P_RCPT] && !(h->off[P_RCPT] >= 3 &&
	    !memcmp(hs + h->off[P_RCPT] - 3, "to=", 3)) &&
	    !hm__ctype_word(hs + h->off[P_CTYPE], h->len[P_CTYPE]) &&
	    !(h->len[P_CTYPE] >= 13 && !memcmp(hs + h->off[P_CTYPE], "<|constrain|>", 13)))
		return 0;
	for (i = 0; i < n; i++) {
		if ((m = hm__hdr_mark_len(s, n, i))) {
			if (m == 11 && !memcmp(s + i, "<|channel|>", 11))
				nch++;
			else if (!(m == 13 && !memcmp(s + i, "<|constrain|>", 13)))
				return 0;
			i += m - 1;
			continue;
		}
		if (n - i >= 3 && !memcmp(s + i, "to=", 3) && (i == 0 ||
		    hm__p_is_aws((unsigned char)s[i - 1]) || s[i - 1] == '>'))
			nto++;
	}
	return nto <= 1 && nch <= 1;
}

/*
 * The tolerant grammar (parse_header.c) reads the header s[0..n): fills
 * *h with offsets into p->h.hs and warns for what it repaired.  HM_OK, or
 * HM_ENOMEM (p->nomem).
 */
static hm_status
header_loose(hm_parser *p, const char *s, size_t n, int role, struct hdr *h)
{
	struct hm_hdr_parts hp;
	uint64_t at = p->h.at;
	unsigned fl;

	memset(&hp, 0, sizeof hp);
	if (hm__hdr_loose(s, n, role, &hp) != HM_OK) {
		/* its own scratch (hp.nomem): the failure is the parser's */
		hm_buf_free(&hp.buf);
		p->nomem = 1;
		return HM_ENOMEM;
	}
	fl = hp.flags;
	memset(h, 0, sizeof *h);
	hm_buf_reset(&p->h.hs);
	hm__add(&p->nomem, &p->h.hs, hp.buf.p, hp.buf.len);
	*h = hp.h; /* its offsets into hp.buf, now copied to p->h.hs */
	if (fl & HM_HP_NO_ROLE)
		hm__p_warn(p, at, HM_F_NO_START, "header without a role: assistant assumed", NULL, 0);
	if (fl & HM_HP_ANALYSIS)
		hm__p_warn(p, at, HM_F_REPEAT, "header names two channels, one of them analysis: taken as analysis: %s", s, n);
	else if (fl & HM_HP_DIFFER)
		hm__p_warn(p, at, HM_F_REPEAT, "header part written twice with different values, the last kept: %s", s, n);
	else if (fl & HM_HP_REPEAT)
		hm__p_warn(p, at, HM_F_REPEAT, "header part written twice, read once: %s", s, n);
	if (fl & HM_HP_SPECIAL)
		hm__p_warn(p, at, HM_F_SPECIAL, "special token inside a header ends the part before it: %s", s, n);
	if (fl & HM_HP_CONSTRAIN_RCPT)
		hm__p_warn(p, at, HM_F_CONTENT_TYPE, "\"<|constrain|>%s\" names a tool, not a content type: taken as the recipient",
		    p->h.hs.p + h->off[P_RCPT], h->len[P_RCPT]);
	if (fl & HM_HP_CTYPE_PARAMS)
		hm__p_warn(p, at, HM_F_CONTENT_TYPE, "content type with parameters read as one: \"%s\"",
		    p->h.hs.p + h->off[P_CTYPE], h->len[P_CTYPE]);
	if (fl & HM_HP_ROLE_TWICE)
		hm__p_warn(p, at, HM_F_REPEAT, "role written twice, read once: %s", s, n);
	if (fl & HM_HP_ROLE_GLUED)
		hm__p_warn(p, at, HM_F_HEADER, "role run together with the header part after it: %s", s, n);
	if (fl & HM_HP_BARE_CHAN)
		hm__p_warn(p, at, HM_F_HEADER, "channel name without <|channel|>: %s", s, n);
	if (fl & (HM_HP_EMPTY | HM_HP_BLANK))
		hm__p_warn(p, at, HM_F_HEADER, "header marker without a value or with blanks after it: %s", s, n);
	if (fl & HM_HP_JUNK) {
		if (!h->has[P_CHAN] && h->role == HM_ROLE_ASSISTANT) {
			/* When in doubt between reasoning and answer: reasoning. */
			h->off[P_CHAN] = p->h.hs.len;
			h->len[P_CHAN] = 8;
			h->has[P_CHAN] = 1;
			hm__adds(&p->nomem, &p->h.hs, "analysis");
			hm__p_warn(p, at, HM_F_HEADER, "junk in header left out, the message kept as analysis: %s",
			    s + hp.junk_off, hp.junk_len);
		} else
			hm__p_warn(p, at, HM_F_HEADER, "junk in header left out: %s", s + hp.junk_off, hp.junk_len);
	}
	if (!(fl & (HM_HP_NO_ROLE | HM_HP_REPEAT | HM_HP_SPECIAL | HM_HP_EMPTY |
	    HM_HP_BLANK | HM_HP_JUNK | HM_HP_BARE_CHAN | HM_HP_ROLE_TWICE |
	    HM_HP_ROLE_GLUED | HM_HP_CONSTRAIN_RCPT | HM_HP_CTYPE_PARAMS)) && !(h->has[P_RCPT] &&
	    odd_name(p->h.hs.p + h->off[P_RCPT], h->len[P_RCPT])))
		hm__p_warn(p, at, HM_F_HEADER, "malformed header repaired: %s", s, n);
	hm_buf_free(&hp.buf);
	return p->nomem ? HM_ENOMEM : HM_OK;
}

/*
 * The text so far of the stream's first header (no <|start|>), or of one
 * after `<|start|>assistant `, is prose (`I think.` before a
 * <|channel|>), not header words.
 */
int
hm__p_header_prose(hm_parser *p)
{
	if (p->cf.strict || !p->h.text.len || (!(p->st.first_msg && p->st.next_role == HM_ROLE_ASSISTANT) &&
	    !(!p->st.first_msg && p->h.text.len > 9 && !memcmp(p->h.text.p, "assistant", 9) &&
	    hm__p_is_aws((unsigned char)p->h.text.p[9]))))
		return 0;
	return hm__p_is_prose(p, p->h.text.p, p->h.text.len) == 1;
}

/*
 * A header of many words may still be one: parts written twice, a
 * recipient with blanks.  Whether its words before word wmax (so
 * that the reads do not matter) are all header parts.
 */
static int
parts_only(hm_parser *p)
{
	size_t k = 0, q;

	/* Out of memory, wofs may point past the text (hm__p_header_add). */
	if (p->cf.strict || p->nomem)
		return 0;
	/* The words before word wmax, whatever the reads brought. */
	for (q = p->h.wmax / HDR_MAX_WORDS; q > 1; q >>= 1)
		k++;
	if (k >= 24)
		return 0;
	return hm__p_is_prose(p, p->h.text.p, p->h.wofs[k]) == 0;
}

/*
 * Default mode: whether the header has grown too long to be one (taken
 * for text): more than HDR_MAX_BYTES, or wmax words, wmax doubling while
 * the words are all header parts.
 */
int
hm__p_header_too_long(hm_parser *p)
{
	while (p->h.nwords >= p->h.wmax && p->h.text.len <= HDR_MAX_BYTES && parts_only(p))
		p->h.wmax *= 2;
	return p->h.nwords >= p->h.wmax || p->h.text.len > HDR_MAX_BYTES;
}

/* The memo's reading of the header s[0..n) given role, or NULL. */
static const struct hdr_memo *
memo_find(const hm_parser *p, const char *s, size_t n, int role)
{
	const struct hdr_memo *m;
	unsigned i;

	for (i = 0; i < p->h.memo_n; i++) {
		m = &p->h.memo[i];
		if (m->text.len == n && m->role == role && !memcmp(m->text.p, s, n))
			return m;
	}
	return NULL;
}

/*
 * Remember that s[0..n) given role reads as *h (fields in p->h.hs).  The
 * memo is a cache, the one part of the header whose allocations are not
 * the parser's: short of memory, nothing is remembered and the reading is
 * done again.  So its appends name a flag of their own (lost), not
 * p->nomem.
 */
static void
memo_add(hm_parser *p, const char *s, size_t n, int role, const struct hdr *h)
{
	struct hdr_memo *m;
	int lost = 0;

	if (n > HDR_MEMO_BYTES || p->h.hs.len > 2 * HDR_MEMO_BYTES)
		return;
	/* Short of memory, nothing is remembered: the reading is done again. */
	if (!p->h.memo && !(p->h.memo = calloc(HDR_MEMO, sizeof *p->h.memo)))
		return;
	m = &p->h.memo[p->h.memo_next];
	p->h.memo_next = (p->h.memo_next + 1) % HDR_MEMO;
	if (p->h.memo_n < HDR_MEMO)
		p->h.memo_n++;
	hm_buf_reset(&m->text);
	hm__add(&lost, &m->text, s, n);
	hm_buf_reset(&m->hs);
	hm__add(&lost, &m->hs, p->h.hs.p, p->h.hs.len);
	m->role = role;
	m->h = *h;
	if (lost) {
		/* Not remembered: an empty key (no header is) matches nothing. */
		hm_buf_free(&m->text);
		hm_buf_free(&m->hs);
		m->role = R_AUTO;
	}
}

/* ---------------------------------------------------------------- a header without <|message|> */

/*
 * The offset in p->h.text of the text at offset c of p->h.hs (header_split):
 * hs is hdr with each invalid sequence as U+FFFD and, before c only, some
 * blanks dropped, so the text from c on is that of the same bytes of hdr.
 */
static size_t
hdr_raw_off(const hm_parser *p, size_t c)
{
	const char *s = p->h.text.p;
	size_t n = p->h.text.len, i = 0, v, o = 0, want;
	int err;

	/* The lossy length of hdr, less that of the text from c. */
	for (;;) {
		v = hm__utf8_check(s + i, n - i, &err);
		o += v;
		i += v;
		if (i >= n)
			break;
		o += 3;
		i = err < 0 ? n : i + (size_t)err;
	}
	want = o - (p->h.hs.len - c);
	for (i = o = 0;;) {
		v = hm__utf8_check(s + i, n - i, &err);
		if (o + v >= want)
			return i + (want - o);
		o += v;
		i += v;
		if (i >= n)
			return n;
		o += 3;
		i = err < 0 ? n : i + (size_t)err;
	}
}

/*
 * Whether the word w[0..n) after <|constrain|> names a content type
 * (`json`, `application/json`, `markdown`) rather than beginning prose
 * (`The`, `I`, `we`): a known name, or a lowercase media type with a slash.
 */
static int
ctype_word(const char *w, size_t n)
{
	static const char *const known[] = {
		"json", "code", "text", "markdown", "md", "yaml", "xml", "html",
		"csv", "toml", "plain", "python", "typescript", "javascript",
	};
	size_t i, k = 0;
	int slash = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)w[i];

		if (c == ';' || c == ' ')
			break; /* parameters */
		if (c == '/')
			slash = 1;
		else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '+' || c == '.' || c == '-' || c == '_'))
			return 0;
	}
	if (slash)
		return 1;
	for (k = 0; k < sizeof known / sizeof known[0]; k++)
		if (strlen(known[k]) == i && !memcmp(w, known[k], i))
			return 1;
	return 0;
}

/*
 * F22: a header that never reached <|message|> whose `<|constrain|>` is
 * followed by prose (`<|channel|>final <|constrain|>The answer…<|end|>`):
 * the words from there on are the model's text, and since they sat in a
 * header they are never the answer.  The content starts at the prose: a
 * call's arguments (the call is kept), else reasoning.  Returns the new c,
 * and the offset of the content in the header's bytes in *raw (which the
 * channel's name added to hs would throw off if computed later).
 */
static size_t
header_prose(hm_parser *p, struct hdr *h, size_t c, uint64_t hat, size_t *raw)
{
	size_t w, r, n;

	if (p->cf.strict || !h->has[P_CTYPE] || h->len[P_CTYPE] <= 13 ||
	    memcmp(p->h.hs.p + h->off[P_CTYPE], "<|constrain|>", 13))
		return c;
	w = h->off[P_CTYPE] + 13;
	n = h->len[P_CTYPE] - 13;
	if (ctype_word(p->h.hs.p + w, n) || w > c)
		return c;
	/* The prose must be the header's own bytes from w on (no blank dropped in it). */
	r = hdr_raw_off(p, w);
	if (r + n > p->h.text.len || memcmp(p->h.text.p + r, p->h.hs.p + w, n))
		return c;
	*raw = r;
	h->has[P_CTYPE] = 0;
	if (h->has[P_RCPT]) {
		/* a call stays a call: its arguments are the words, all of them */
		hm__p_warn(p, hat, HM_F_HEADER_PROSE, "prose after <|constrain|> in a tool call's "
		    "header that never reached <|message|>: kept as its arguments", NULL, 0);
		return w;
	}
	hm__p_warn(p, hat, HM_F_HEADER_PROSE,
	    "prose after <|constrain|> in a header that never reached <|message|>: kept as reasoning",
	    NULL, 0);
	h->off[P_CHAN] = p->h.hs.len;
	h->len[P_CHAN] = 8;
	h->has[P_CHAN] = 1;
	hm__adds(&p->nomem, &p->h.hs, "analysis");
	return w;
}

/* Whether header *h's channel is name. */
static int
chan_is(const hm_parser *p, const struct hdr *h, const char *name)
{
	size_t n = strlen(name);

	return h->has[P_CHAN] && h->len[P_CHAN] == n && !memcmp(p->h.hs.p + h->off[P_CHAN], name, n);
}

/*
 * The header ended without <|message|> (a stop token, <|start|>, EOS, or it
 * grew too long).  Default mode: make a message of it when it holds text.
 * role: as for hm__p_header_done.  go_on: switch to content instead of
 * ending the message.  Returns the state to go to.
 */
enum hm__state
hm__p_header_recover(hm_parser *p, int role, hm_stop stop, int go_on)
{
	struct hdr h;
	size_t c, r, tail = 0;
	int consumed, err, plain, hold, prose;
	unsigned how = 0;
	uint64_t hat = p->h.at;
	hm_buf body = { 0 };

	if (go_on) {
		/* Keep an incomplete character for the content. */
		hm__utf8_check(p->h.text.p, p->h.text.len, &err);
		if (err < 0) {
			size_t v = p->h.text.len;

			while (v > 0 && ((unsigned char)p->h.text.p[v - 1] & 0xC0) == 0x80)
				v--;
			if (v > 0)
				v--;
			tail = p->h.text.len - v;
		}
		p->h.text.len -= tail;
	}
	c = hm__p_header_split(p, role, &h, &consumed);
	if (c == (size_t)-1 && !p->cf.strict) {
		size_t i;

		/* No role, yet text: the model's, so the assistant's (F2). */
		for (i = 0; i < p->h.text.len && hm__p_is_aws((unsigned char)p->h.text.p[i]); i++)
			;
		if (i < p->h.text.len) {
			hm__p_warn(p, hat, HM_F_NO_START, "header without a role: assistant assumed", NULL, 0);
			c = hm__p_header_split(p, HM_ROLE_ASSISTANT, &h, &consumed);
		}
	}
	if (c == (size_t)-1) {
		if (stop == HM_STOP_EOS)
			hm__p_truncated(p, hat, "stream ended inside a header");
		else
			hm__p_warn(p, hat, HM_F_HEADER, "header without a role skipped", NULL, 0);
		return go_on ? S_SKIP : S_START;
	}
	if (c >= p->h.hs.len && !go_on) {
		/* Nothing but a header. */
		if (stop == HM_STOP_EOS) {
			if (p->h.text.len || !p->st.first_msg || p->cf.role0 == R_NONE)
				hm__p_truncated(p, hat, "stream ended inside a header");
			return S_START;
		}
		if (!consumed) {
			if (p->h.text.len)
				hm__p_warn(p, hat, HM_F_NO_MESSAGE, "empty header skipped", NULL, 0);
			return S_START;
		}
	}
	r = (size_t)-1;
	if (consumed && c < p->h.hs.len)
		c = header_prose(p, &h, c, hat, &r);
	/* The content is the header's bytes from r on, checked as content. */
	if (r == (size_t)-1)
		r = hdr_raw_off(p, c);
	if (hm__utf8_check(p->h.text.p, r, &err) < r)
		hm__p_warn(p, hat, HM_F_UTF8, "invalid UTF-8 in header replaced by U+FFFD", NULL, 0);
	plain = !consumed && p->st.first_msg && !p->st.saw_special;
	/*
	 * F18: text with no channel (no header, or a role alone) waits until
	 * the next message tells whether it was reasoning.
	 */
	hold = !h.has[P_CHAN] && !h.has[P_RCPT] && !p->q.holding && !p->cf.strict &&
	    !(plain && p->cf.marker.len) && h.role == HM_ROLE_ASSISTANT;
	/*
	 * F22: prose in a header that never reached <|message|> on a channel
	 * of the answer (`<|channel|>commentary I will check.<|end|>`) waits
	 * too: before another message with a channel that is no tool call (a
	 * real final) it is reasoning, never answer text beside the answer;
	 * alone, or before a call (a preamble), it stays as F7 reads it.
	 */
	prose = !hold && consumed && !p->cf.strict && p->q.holding != 2 &&
	    h.role == HM_ROLE_ASSISTANT && !h.has[P_RCPT] && !h.has[P_CTYPE] && h.has[P_CHAN] &&
	    (chan_is(p, &h, "final") || chan_is(p, &h, "commentary"));
	if (prose && p->q.holding == 1)
		hm__p_hold_release(p, 1); /* a message with a channel, no call, follows it */
	if (hold || prose)
		hm__p_hold_mark(p); /* F18: held until the next message tells what it is */
	if (h.has[P_RCPT] && h.off[P_RCPT] >= 13 && !memcmp(p->h.hs.p + h.off[P_RCPT] - 13, "<|constrain|>", 13))
		hm__p_warn(p, hat, HM_F_CONTENT_TYPE, "\"<|constrain|>%s\" names a tool, not a content type: taken as the recipient",
		    p->h.hs.p + h.off[P_RCPT], h.len[P_RCPT]);
	if (consumed)
		hm__p_warn(p, hat, HM_F_NO_MESSAGE, "no <|message|> after the header: the rest is content", NULL, 0);
	else if (!(plain && p->cf.marker.len))
		hm__p_warn(p, hat, HM_F_NO_HEADER, "text without a header taken as content", NULL, 0);
	hm__add(&p->nomem, &body, p->h.text.p + r, p->h.text.len + tail - r);
	if (plain && p->cf.marker.len) {
		/* --marker: plain text starts as reasoning. */
		h.off[P_CHAN] = p->h.hs.len;
		h.len[P_CHAN] = 8;
		h.has[P_CHAN] = 1;
		hm__adds(&p->nomem, &p->h.hs, "analysis");
	}
	/* Text after <|end|> without a header: like plain text, not cut off at the end. */
	if (plain || (p->st.no_start && !consumed))
		how |= HM__MSG_PLAIN;
	if (plain && p->cf.marker.len)
		how |= HM__MSG_MARKER;
	else if (plain && hold && p->in.text_mode)
		how |= HM__MSG_STRIPPED; /* F18 with stripped specials: `I think.assistantfinal4` */
	hm__p_emit_start(p, &h, p->h.hs.p, hat, p->h.off + r, how);
	if (hold || prose)
		hm__p_hold_on(p, prose ? 3 : 1);
	if (body.len)
		hm__p_content_body(p, body.p, body.len, p->h.off + r);
	hm_buf_free(&body);
	if (go_on)
		return S_CONTENT;
	hm__p_finish_msg(p, stop);
	return S_START;
}

/* ---------------------------------------------------------------- <|message|> */

/*
 * <|message|>: read the header, given role (R_NONE: read from the header),
 * and start its message.  Returns the state to go to: S_CONTENT, S_DONE
 * when strict reading fails, or S_HEADER when out of memory (the parser
 * stops there).
 */
enum hm__state
hm__p_header_done(hm_parser *p, int role)
{
	struct hdr h;
	int err;
	const char *s = p->h.text.p ? p->h.text.p : "";
	size_t n = p->h.text.len, q00, a00;
	/* The memo's key: the header as gathered, whatever repairs it gets. */
	const char *key = s;
	size_t keyn = n;

	if (p->cf.strict) {
		hm__utf8_check(s, n, &err);
		if (p->h.bad || err) {
			hm__p_fails(p, p->st.pos, "could not decode header");
			return S_DONE;
		}
		if (strict_read(p, s, n, role, &h) != HM_OK) {
			hm__p_fail(p, p->st.pos, p->h.tmp.p, p->h.tmp.len);
			return S_DONE;
		}
		hm__p_emit_start(p, &h, p->h.hs.p, p->h.at, p->st.unit_end, 0);
		return S_CONTENT;
	}
	{
		const struct hdr_memo *m = memo_find(p, s, n, role);

		if (m) {
			hm__p_emit_start(p, &m->h, m->hs.p, p->h.at, p->st.unit_end, 0);
			return S_CONTENT;
		}
	}
	hm__utf8_check(s, n, &err);
	if (err) {
		hm_buf t = { 0 };

		hm__p_warn(p, p->h.at, HM_F_UTF8, "invalid UTF-8 in header replaced by U+FFFD", NULL, 0);
		hm__p_add_lossy(&p->nomem, &t, s, n);
		hm_buf_reset(&p->h.text);
		hm__add(&p->nomem, &p->h.text, t.p, t.len);
		hm_buf_free(&t);
		s = p->h.text.p;
		n = p->h.text.len;
	}
	hm__p_queue_mark(p, &q00, &a00);
	{
		/* The reference's reading, unless it fails or is not clean. */
		size_t n0 = n;
		const char *s0 = s;

		s = header_norm(p, s, &n, p->h.at);
		if (p->nomem)
			return S_HEADER; /* hm_parser_next reports it */
		if ((strict_read(p, s, n, role, &h) != HM_OK &&
		    (p->nomem || header_repair(p, s, n, role, &h, p->h.at) != HM_OK)) ||
		    p->nomem || !header_clean(p, s0, n0, &h)) {
			if (p->nomem)
				return S_HEADER;
			/* What the failed reading warned goes. */
			hm__p_queue_rewind(p, q00, a00);
			if (header_loose(p, s0, n0, role, &h) != HM_OK)
				return S_HEADER;
		}
	}
	header_fix(p, &h, p->h.at);
	if (!err && p->q.len == q00 && p->q.arena.len == a00 && !p->nomem)
		memo_add(p, key, keyn, role, &h);
	hm__p_emit_start(p, &h, p->h.hs.p, p->h.at, p->st.unit_end, 0);
	return S_CONTENT;
}

/* A new stream: no header; the memo kept (a reading holds for any stream). */
void
hm__p_header_reset(hm_parser *p)
{
	hm__buf_clear(&p->h.text);
	p->h.at = p->h.off = 0;
	p->h.bad = 0;
	p->h.nwords = p->h.wmax = 0;
	memset(p->h.wofs, 0, sizeof p->h.wofs);
	p->h.inword = 0;
	hm__buf_clear(&p->h.hs);
	hm__buf_clear(&p->h.wbuf);
	hm__buf_clear(&p->h.tmp);
	hm__buf_clear(&p->h.norm);
}

void
hm__p_header_free(hm_parser *p)
{
	unsigned i;

	hm_buf_free(&p->h.text);
	hm_buf_free(&p->h.hs);
	hm_buf_free(&p->h.wbuf);
	hm_buf_free(&p->h.tmp);
	hm_buf_free(&p->h.norm);
	for (i = 0; p->h.memo && i < HDR_MEMO; i++) {
		hm_buf_free(&p->h.memo[i].text);
		hm_buf_free(&p->h.memo[i].hs);
	}
	free(p->h.memo);
}
