/*
 * grammar_schema.c - JSON Schema to grammar rules, and the syntax pieces
 * of the three rule forms (EBNF, GBNF, Lark).
 *
 * A schema node gets one rule, made once and named by the node's address,
 * so that $ref to a node (itself, for recursion) names the rule before its
 * body is written.  Objects are written with their properties in the
 * declared order, each optional one skippable: the commas are placed by a
 * chain of rules k<i> ("something is written before property i"), one per
 * property, so the rules grow linearly with the schema.  What a grammar
 * cannot hold (uniqueItems, multipleOf, numeric bounds other than the
 * sign, format, not ...) is left looser and noted in g->notes; the caller
 * names it in the grammar's header.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grammar_int.h"

/* Deeper schema nesting than this is written as any value (a hostile schema's stack). */
#define SCHEMA_DEPTH_MAX 64

/* ---------------------------------------------------------------- syntax */

static int
lark(const hm_gw *g)
{
	return g->form == HM_GRAMMAR_LARK;
}

void
hm__gw_rule_begin(hm_gw *g, hm_buf *b, const char *name)
{
	if (!strcmp(name, "root") && lark(g))
		name = "start";
	hm__adds(&g->nomem, b, name);
	hm__adds(&g->nomem, b, lark(g) ? ": " : " ::= ");
}

void
hm__gw_rule_begin_id(hm_gw *g, hm_buf *b, unsigned id)
{
	char name[24];

	snprintf(name, sizeof name, "r%u", id);
	hm__gw_rule_begin(g, b, name);
}

void
hm__gw_ref(hm_gw *g, hm_buf *b, unsigned id)
{
	hm__putc(&g->nomem, b, 'r');
	hm__addu(&g->nomem, b, id);
	hm__putc(&g->nomem, b, ' ');
}

static void
hex2(hm_gw *g, hm_buf *b, unsigned c)
{
	char x[5];

	snprintf(x, sizeof x, "\\x%02x", c & 0xff);
	hm__adds(&g->nomem, b, x);
}

void
hm__gw_lit(hm_gw *g, hm_buf *b, const char *s, size_t n)
{
	size_t i;

	hm__putc(&g->nomem, b, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			hm__putc(&g->nomem, b, '\\');
			hm__putc(&g->nomem, b, (char)c);
		} else if (c == '\n')
			hm__adds(&g->nomem, b, "\\n");
		else if (c == '\t')
			hm__adds(&g->nomem, b, "\\t");
		else if (c < 0x20 || c == 0x7f)
			hex2(g, b, c);
		else
			hm__putc(&g->nomem, b, (char)c);
	}
	hm__adds(&g->nomem, b, "\" ");
}

void
hm__gw_json_lit(hm_gw *g, hm_buf *b, const char *s, size_t n)
{
	g->tmp.len = 0;
	hm__json_str(&g->nomem, &g->tmp, s, n);
	if (g->tmp.p)
		hm__gw_lit(g, b, g->tmp.p, g->tmp.len);
}

void
hm__gw_class(hm_gw *g, hm_buf *b, const char *body, size_t n)
{
	size_t i;

	hm__adds(&g->nomem, b, lark(g) ? "/[" : "[");
	for (i = 0; i < n; i++) {
		/* a slash would end Lark's regex; the class is the same byte escaped */
		if (body[i] == '/')
			hm__adds(&g->nomem, b, "\\x2f");
		else
			hm__putc(&g->nomem, b, body[i]);
	}
	hm__adds(&g->nomem, b, lark(g) ? "]/ " : "] ");
}

/* item (already a unit: a name, a literal, a class or a group) repeated lo..hi times. */
static void
rep_item(hm_gw *g, hm_buf *b, const char *item, size_t n, size_t lo, size_t hi)
{
	char q[64];

	if (lo == 0 && hi == SIZE_MAX) {
		hm__adds(&g->nomem, b, "(");
		hm__add(&g->nomem, b, item, n);
		hm__adds(&g->nomem, b, ")* ");
		return;
	}
	if (lo == 1 && hi == SIZE_MAX) {
		hm__adds(&g->nomem, b, "(");
		hm__add(&g->nomem, b, item, n);
		hm__adds(&g->nomem, b, ")+ ");
		return;
	}
	if (lo == 0 && hi == 1) {
		hm__adds(&g->nomem, b, "(");
		hm__add(&g->nomem, b, item, n);
		hm__adds(&g->nomem, b, ")? ");
		return;
	}
	if (lark(g)) {
		/* Lark's ~ takes a closed range; an open one is lo times, then any more. */
		if (hi == SIZE_MAX)
			snprintf(q, sizeof q, ")~%zu ", lo);
		else if (lo == hi)
			snprintf(q, sizeof q, ")~%zu ", lo);
		else
			snprintf(q, sizeof q, ")~%zu..%zu ", lo, hi);
		hm__adds(&g->nomem, b, "(");
		hm__add(&g->nomem, b, item, n);
		hm__adds(&g->nomem, b, q);
		if (hi == SIZE_MAX) {
			hm__adds(&g->nomem, b, "(");
			hm__add(&g->nomem, b, item, n);
			hm__adds(&g->nomem, b, ")* ");
		}
		return;
	}
	if (hi == SIZE_MAX)
		snprintf(q, sizeof q, "){%zu,} ", lo);
	else
		snprintf(q, sizeof q, "){%zu,%zu} ", lo, hi);
	hm__adds(&g->nomem, b, "(");
	hm__add(&g->nomem, b, item, n);
	hm__adds(&g->nomem, b, q);
}

void
hm__gw_special(hm_gw *g, hm_buf *b, const char *text)
{
	if (lark(g) || g->form == HM_GRAMMAR_GBNF) {
		/*
		 * llguidance, and llama.cpp since its grammars match tokens
		 * (ggml-org/llama.cpp#17816), take a special token written bare
		 * as that token, by id: never its text spelt in ordinary tokens.
		 */
		hm__adds(&g->nomem, b, text);
		hm__putc(&g->nomem, b, ' ');
	} else
		hm__gw_lit(g, b, text, strlen(text));
}

static void
end_rule(hm_gw *g, hm_buf *b)
{
	while (b->len && b->p[b->len - 1] == ' ')
		b->p[--b->len] = '\0';
	hm__putc(&g->nomem, b, '\n');
}

/* A JSON number's optional fraction and exponent: ("." [0-9]+)? ([eE] [-+]? [0-9]+)? */
static void
num_tail(hm_gw *g, hm_buf *b)
{
	hm__adds(&g->nomem, b, "(\".\" ");
	hm__gw_class(g, b, "0-9", 3);
	hm__adds(&g->nomem, b, "+)? (");
	hm__gw_class(g, b, "eE", 2);
	hm__gw_class(g, b, "\\x2d+", 5);
	hm__adds(&g->nomem, b, "? ");
	hm__gw_class(g, b, "0-9", 3);
	hm__adds(&g->nomem, b, "+)?");
}

/* JSON string characters: anything but `"`, `\` and controls, or an escape. */
#define JCHR_CLASS "^\\x22\\x5c\\x00-\\x1f"

const char *
hm__gw_shared(hm_gw *g, unsigned which)
{
	hm_buf *b = &g->rules;

	if (g->have & which)
		goto name;
	g->have |= which;
	switch (which) {
	case HM_GR_WS:
		hm__gw_rule_begin(g, b, "ws");
		hm__adds(&g->nomem, b, "(");
		hm__gw_class(g, b, " \\x09\\x0a\\x0d", 13);
		hm__adds(&g->nomem, b, ")*");
		break;
	case HM_GR_CHR:
		hm__gw_rule_begin(g, b, "jchr");
		hm__gw_class(g, b, JCHR_CLASS, strlen(JCHR_CLASS));
		hm__adds(&g->nomem, b, "| ");
		hm__gw_lit(g, b, "\\", 1);
		hm__gw_class(g, b, "\\x22\\x5c/bfnrt", 14);
		hm__adds(&g->nomem, b, "| ");
		hm__gw_lit(g, b, "\\u", 2);
		rep_item(g, b, lark(g) ? "/[0-9a-fA-F]/" : "[0-9a-fA-F]", lark(g) ? 13 : 11, 4, 4);
		break;
	case HM_GR_STR:
		hm__gw_shared(g, HM_GR_CHR);
		hm__gw_rule_begin(g, b, "jstr");
		hm__gw_lit(g, b, "\"", 1);
		hm__adds(&g->nomem, b, "jchr* ");
		hm__gw_lit(g, b, "\"", 1);
		break;
	case HM_GR_INT:
		hm__gw_rule_begin(g, b, "jint");
		hm__adds(&g->nomem, b, "\"-\"? (\"0\" | ");
		hm__gw_class(g, b, "1-9", 3);
		hm__gw_class(g, b, "0-9", 3);
		hm__adds(&g->nomem, b, "*)");
		break;
	case HM_GR_NUM:
		hm__gw_shared(g, HM_GR_INT);
		hm__gw_rule_begin(g, b, "jnum");
		hm__adds(&g->nomem, b, "jint ");
		num_tail(g, b);
		break;
	case HM_GR_VAL:
		hm__gw_shared(g, HM_GR_WS);
		hm__gw_shared(g, HM_GR_STR);
		hm__gw_shared(g, HM_GR_NUM);
		hm__gw_rule_begin(g, b, "jval");
		hm__adds(&g->nomem, b, "jobj | jarr | jstr | jnum | \"true\" | \"false\" | \"null\"\n");
		hm__gw_rule_begin(g, b, "jobj");
		hm__adds(&g->nomem, b, "\"{\" ws (jstr ws \":\" ws jval ws (\",\" ws jstr ws \":\" ws jval ws)*)? \"}\"\n");
		hm__gw_rule_begin(g, b, "jarr");
		hm__adds(&g->nomem, b, "\"[\" ws (jval ws (\",\" ws jval ws)*)? \"]\"");
		break;
	case HM_GR_TEXT:
		/*
		 * Message text: anything without "<|", so that a special token's
		 * text (<|end|>) cannot be taken as content and the message ends
		 * where the model ends it.
		 */
		hm__gw_rule_begin(g, b, "t");
		hm__adds(&g->nomem, b, "(");
		hm__gw_class(g, b, "^<", 2);
		hm__adds(&g->nomem, b, "| \"<\"+ ");
		hm__gw_class(g, b, "^<|", 3);
		hm__adds(&g->nomem, b, ")* \"<\"*");
		break;
	}
	end_rule(g, b);
name:
	switch (which) {
	case HM_GR_WS: return "ws";
	case HM_GR_STR: return "jstr";
	case HM_GR_NUM: return "jnum";
	case HM_GR_INT: return "jint";
	case HM_GR_VAL: return "jval";
	case HM_GR_TEXT: return "t";
	default: return "jchr";
	}
}

/* ---------------------------------------------------------------- memo */

static size_t
ptr_hash(const void *p, size_t cap)
{
	uintptr_t x = (uintptr_t)p;

	x ^= x >> 17;
	x *= (uintptr_t)0x9e3779b97f4a7c15ull;
	return (size_t)(x >> 7) & (cap - 1);
}

static hm_gmemo *
memo_find(hm_gw *g, const hm_jv *node)
{
	size_t i;

	if (!g->memocap)
		return NULL;
	for (i = ptr_hash(node, g->memocap); g->memo[i].node; i = (i + 1) & (g->memocap - 1))
		if (g->memo[i].node == node)
			return &g->memo[i];
	return NULL;
}

static hm_status
memo_add(hm_gw *g, const hm_jv *node, unsigned id)
{
	size_t i;

	if ((g->memon + 1) * 2 > g->memocap) {
		size_t ncap = g->memocap ? g->memocap * 2 : 64, j;
		hm_gmemo *nm = calloc(ncap, sizeof *nm);

		if (!nm)
			return HM_ENOMEM;
		for (j = 0; j < g->memocap; j++) {
			if (!g->memo[j].node)
				continue;
			for (i = ptr_hash(g->memo[j].node, ncap); nm[i].node; i = (i + 1) & (ncap - 1))
				;
			nm[i] = g->memo[j];
		}
		free(g->memo);
		g->memo = nm;
		g->memocap = ncap;
	}
	for (i = ptr_hash(node, g->memocap); g->memo[i].node; i = (i + 1) & (g->memocap - 1))
		;
	g->memo[i].node = node;
	g->memo[i].id = id;
	g->memon++;
	return HM_OK;
}

void
hm__gw_free(hm_gw *g)
{
	size_t i;

	for (i = 0; i < sizeof g->body / sizeof g->body[0]; i++)
		hm_buf_free(&g->body[i]);
	hm_buf_free(&g->tmp);
	hm_buf_free(&g->rules);
	free(g->memo);
	g->memo = NULL;
	g->memocap = g->memon = 0;
}

/* ---------------------------------------------------------------- regex */

/*
 * ECMA-262 pattern to rules over a JSON string's text: literal characters
 * (a quote or backslash as its escape), classes, ., \d \w \s, groups,
 * alternation and the quantifiers.  Anything else (lookaround, backrefs,
 * anchors inside) is refused and the string left free (HM_GN_PATTERN).
 * A class or `.` never matches a quote, backslash or control character
 * (their JSON escapes are not written), a narrowing named in the header.
 */
typedef struct rx {
	hm_gw *g;
	const char *s;
	size_t n, i;
	int bad;
} rx;

static void rx_alt(rx *r, hm_buf *b);

/* A class body item for byte c (escaped when not alphanumeric). */
static void
class_char(rx *r, hm_buf *b, unsigned char c)
{
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80)
		hm__putc(&r->g->nomem, b, (char)c);
	else
		hex2(r->g, b, c);
}

/* One character of the pattern as a JSON text literal. */
static void
rx_lit_char(rx *r, hm_buf *b, const char *p, size_t n)
{
	hm__gw_json_lit(r->g, b, p, n);
}

/* The length of the UTF-8 sequence at s[i]. */
static size_t
u8len(const char *s, size_t n, size_t i)
{
	unsigned char c = (unsigned char)s[i];
	size_t k = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;

	return i + k <= n ? k : n - i;
}

/* A shorthand class's body (\d \w \s); neg for \D \W \S. */
static int
shorthand(char c, const char **body, int *neg)
{
	*neg = c == 'D' || c == 'W' || c == 'S';
	switch (c) {
	case 'd': case 'D': *body = "0-9"; return 1;
	case 'w': case 'W': *body = "a-zA-Z0-9_"; return 1;
	case 's': case 'S': *body = "\\x20"; return 1;
	default: return 0;
	}
}

static void
rx_class(rx *r, hm_buf *b)
{
	hm_buf body = {0};
	int neg = 0;

	r->i++; /* [ */
	if (r->i < r->n && r->s[r->i] == '^') {
		neg = 1;
		r->i++;
	}
	while (r->i < r->n && r->s[r->i] != ']') {
		unsigned char c = (unsigned char)r->s[r->i];

		if (c == '\\' && r->i + 1 < r->n) {
			const char *sb;
			int sneg;
			char e = r->s[r->i + 1];

			r->i += 2;
			if (shorthand(e, &sb, &sneg)) {
				if (sneg)
					r->bad = 1;
				hm__adds(&r->g->nomem, &body, sb);
				continue;
			}
			c = e == 'n' ? '\n' : e == 't' ? '\t' : (unsigned char)e;
			if (c == '"' || c == '\\' || c < 0x20)
				r->bad = 1;
			class_char(r, &body, c);
		} else if (c == '-' && body.len && r->i + 1 < r->n && r->s[r->i + 1] != ']') {
			hm__putc(&r->g->nomem, &body, '-');
			r->i++;
		} else {
			size_t k = u8len(r->s, r->n, r->i);

			if (c == '"')
				r->bad = 1;
			if (k == 1)
				class_char(r, &body, c);
			else
				hm__add(&r->g->nomem, &body, r->s + r->i, k);
			r->i += k;
		}
	}
	if (r->i >= r->n) {
		r->bad = 1;
		hm_buf_free(&body);
		return;
	}
	r->i++; /* ] */
	{
		hm_buf cls = {0};

		if (neg)
			hm__adds(&r->g->nomem, &cls, JCHR_CLASS);
		if (body.p)
			hm__add(&r->g->nomem, &cls, body.p, body.len);
		if (cls.p)
			hm__gw_class(r->g, b, cls.p, cls.len);
		hm_buf_free(&cls);
	}
	hm_buf_free(&body);
}

/* One atom into b; 0 at the end of a sequence. */
static int
rx_atom(rx *r, hm_buf *b)
{
	char c;

	if (r->i >= r->n)
		return 0;
	c = r->s[r->i];
	switch (c) {
	case '|': case ')':
		return 0;
	case '(':
		r->i++;
		if (r->i + 1 < r->n && r->s[r->i] == '?') {
			if (r->s[r->i + 1] != ':') {
				r->bad = 1;
				return 0;
			}
			r->i += 2;
		}
		hm__adds(&r->g->nomem, b, "(");
		rx_alt(r, b);
		if (r->i >= r->n || r->s[r->i] != ')') {
			r->bad = 1;
			return 0;
		}
		r->i++;
		hm__adds(&r->g->nomem, b, ") ");
		return 1;
	case '[':
		rx_class(r, b);
		return !r->bad;
	case '.':
		r->i++;
		hm__gw_class(r->g, b, JCHR_CLASS, strlen(JCHR_CLASS));
		return 1;
	case '^': case '$': case '*': case '+': case '?': case '{':
		r->bad = 1;
		return 0;
	case '\\': {
		const char *sb;
		int sneg;
		char e;

		if (r->i + 1 >= r->n) {
			r->bad = 1;
			return 0;
		}
		e = r->s[r->i + 1];
		r->i += 2;
		if (shorthand(e, &sb, &sneg)) {
			hm_buf cls = {0};

			if (sneg)
				hm__adds(&r->g->nomem, &cls, JCHR_CLASS);
			hm__adds(&r->g->nomem, &cls, sb);
			if (cls.p)
				hm__gw_class(r->g, b, cls.p, cls.len);
			hm_buf_free(&cls);
			return 1;
		}
		if ((e >= '0' && e <= '9') || e == 'b' || e == 'B' || e == 'u' || e == 'x' ||
		    e == 'p' || e == 'P' || e == 'k' || e == 'c') {
			r->bad = 1;
			return 0;
		}
		{
			char ch = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'f' ? '\f' :
			    e == 'v' ? '\v' : e;

			rx_lit_char(r, b, &ch, 1);
		}
		return 1;
	}
	default: {
		size_t k = u8len(r->s, r->n, r->i);

		rx_lit_char(r, b, r->s + r->i, k);
		r->i += k;
		return 1;
	}
	}
}

static int
rx_num(rx *r, size_t *v)
{
	size_t x = 0;
	int any = 0;

	while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9') {
		if (x > 100000)
			r->bad = 1;
		x = x * 10 + (size_t)(r->s[r->i++] - '0');
		any = 1;
	}
	*v = x;
	return any;
}

static void
rx_seq(rx *r, hm_buf *b)
{
	for (;;) {
		hm_buf a = {0};
		size_t lo = 1, hi = 1;

		if (!rx_atom(r, &a)) {
			hm_buf_free(&a);
			return;
		}
		if (r->i < r->n) {
			char q = r->s[r->i];

			if (q == '*' || q == '+' || q == '?') {
				lo = q == '+';
				hi = q == '?' ? 1 : SIZE_MAX;
				r->i++;
			} else if (q == '{') {
				size_t save = r->i;

				r->i++;
				if (rx_num(r, &lo)) {
					hi = lo;
					if (r->i < r->n && r->s[r->i] == ',') {
						r->i++;
						if (!rx_num(r, &hi))
							hi = SIZE_MAX;
					}
					if (r->i >= r->n || r->s[r->i] != '}' || hi < lo)
						r->bad = 1;
					else
						r->i++;
				} else {
					r->i = save;
					r->bad = 1;
				}
			}
			if (r->i < r->n && r->s[r->i] == '?' && (lo != 1 || hi != 1))
				r->i++; /* lazy: the same language */
		}
		if (a.p) {
			if (lo == 1 && hi == 1)
				hm__add(&r->g->nomem, b, a.p, a.len);
			else
				rep_item(r->g, b, a.p, a.len, lo, hi);
		}
		hm_buf_free(&a);
		if (r->bad)
			return;
	}
}

static void
rx_alt(rx *r, hm_buf *b)
{
	size_t start = b->len;

	rx_seq(r, b);
	if (b->len == start)
		r->bad = 1; /* an empty alternative: no empty literal in every form */
	while (!r->bad && r->i < r->n && r->s[r->i] == '|') {
		r->i++;
		hm__adds(&r->g->nomem, b, "| ");
		start = b->len;
		rx_seq(r, b);
		if (b->len == start)
			r->bad = 1;
	}
}

/* The inside of a string matching pattern p (searched, as JSON Schema does); 0 when not writable. */
static int
pattern_body(hm_gw *g, hm_buf *b, const char *p, size_t n)
{
	rx r = {g, p, n, 0, 0};
	hm_buf body = {0};
	int head = n && p[0] == '^', tail = 0;

	if (head)
		r.i = 1;
	if (n > r.i && p[n - 1] == '$' && (n < 2 || p[n - 2] != '\\')) {
		tail = 1;
		r.n = n - 1;
	}
	rx_alt(&r, &body);
	if (r.bad || r.i != r.n || !body.p) {
		hm_buf_free(&body);
		return 0;
	}
	hm__gw_shared(g, HM_GR_CHR);
	g->notes |= HM_GN_PATTERNS;
	if (!head)
		hm__adds(&g->nomem, b, "jchr* ");
	hm__adds(&g->nomem, b, "(");
	hm__add(&g->nomem, b, body.p, body.len);
	hm__adds(&g->nomem, b, ") ");
	if (!tail)
		hm__adds(&g->nomem, b, "jchr* ");
	hm_buf_free(&body);
	return 1;
}

/* ---------------------------------------------------------------- schemas */

static int
num_of(const hm_jv *v, double *d)
{
	if (!v || v->type != HM_JV_NUMBER)
		return 0;
	*d = v->num;
	return 1;
}

static size_t
count_of(const hm_jv *v, size_t dflt)
{
	if (!v || v->type != HM_JV_NUMBER || v->num < 0)
		return dflt;
	if (v->num > 100000)
		return dflt == 0 ? 0 : SIZE_MAX;
	return (size_t)v->num;
}

/* A $ref inside the document: "#" or "#/a/b" (~0 ~1 decoded); NULL otherwise. */
static const hm_jv *
resolve(const hm_jv *doc, const char *ref, size_t n)
{
	const hm_jv *at = doc;
	size_t i = 1;

	if (!n || ref[0] != '#')
		return NULL;
	while (i < n && at) {
		char key[256];
		size_t k = 0;

		if (ref[i] != '/')
			return NULL;
		i++;
		while (i < n && ref[i] != '/' && k + 1 < sizeof key) {
			if (ref[i] == '~' && i + 1 < n && (ref[i + 1] == '0' || ref[i + 1] == '1')) {
				key[k++] = ref[i + 1] == '0' ? '~' : '/';
				i += 2;
			} else
				key[k++] = ref[i++];
		}
		key[k] = '\0';
		if (at->type == HM_JV_OBJECT)
			at = hm__jv_member(at, key, k);
		else if (at->type == HM_JV_ARRAY) {
			char *end;
			unsigned long x = strtoul(key, &end, 10);

			at = *end || x >= at->n ? NULL : at->v[x];
		} else
			return NULL;
	}
	return at;
}

static hm_status schema_rule(hm_gw *g, const hm_jv *s, unsigned *id);

hm_status
hm__gw_any(hm_gw *g, unsigned *id)
{
	return schema_rule(g, NULL, id);
}

/* Names the keywords of s that its rule cannot hold. */
static void
note_keywords(hm_gw *g, const hm_jv *s)
{
	static const struct { const char *k; unsigned bit; } kw[] = {
		{"multipleOf", HM_GN_MULTIPLE}, {"format", HM_GN_FORMAT}, {"not", HM_GN_NOT},
		{"if", HM_GN_NOT}, {"contains", HM_GN_CONTAINS}, {"patternProperties", HM_GN_PROPS},
		{"propertyNames", HM_GN_PROPS}, {"minProperties", HM_GN_PROPS},
		{"maxProperties", HM_GN_PROPS}, {"dependentRequired", HM_GN_PROPS},
		{"dependentSchemas", HM_GN_PROPS}, {"dependencies", HM_GN_PROPS},
	};
	const hm_jv *u = hm__jv_get(s, "uniqueItems");
	size_t i;

	for (i = 0; i < sizeof kw / sizeof kw[0]; i++)
		if (hm__jv_get(s, kw[i].k))
			g->notes |= kw[i].bit;
	if (u && u->type == HM_JV_TRUE)
		g->notes |= HM_GN_UNIQUE;
}

/* The type bits a node allows: explicit, else read from its keywords. */
enum { T_NULL = 1, T_BOOL = 2, T_OBJ = 4, T_ARR = 8, T_STR = 16, T_NUM = 32, T_INT = 64 };

static unsigned
type_bit(const hm_jv *t)
{
	static const char *const names[] = {"null", "boolean", "object", "array", "string",
	    "number", "integer"};
	size_t i;

	if (!t || t->type != HM_JV_STRING)
		return 0;
	for (i = 0; i < 7; i++)
		if (!strcmp(t->s, names[i]))
			return 1u << i;
	return 0;
}

static unsigned
types_of(const hm_jv *s)
{
	const hm_jv *t = hm__jv_get(s, "type");
	unsigned bits = 0;
	size_t i;

	if (t && t->type == HM_JV_ARRAY) {
		for (i = 0; i < t->n; i++)
			bits |= type_bit(t->v[i]);
		return bits;
	}
	if (t)
		return type_bit(t);
	if (hm__jv_get(s, "properties") || hm__jv_get(s, "required") ||
	    hm__jv_get(s, "additionalProperties"))
		bits |= T_OBJ;
	if (hm__jv_get(s, "items") || hm__jv_get(s, "prefixItems") || hm__jv_get(s, "minItems") ||
	    hm__jv_get(s, "maxItems"))
		bits |= T_ARR;
	if (hm__jv_get(s, "pattern") || hm__jv_get(s, "minLength") || hm__jv_get(s, "maxLength"))
		bits |= T_STR;
	if (hm__jv_get(s, "minimum") || hm__jv_get(s, "maximum") ||
	    hm__jv_get(s, "exclusiveMinimum") || hm__jv_get(s, "exclusiveMaximum"))
		bits |= T_NUM;
	return bits;
}

static void
alt(hm_gw *g, hm_buf *b, int *first)
{
	if (!*first)
		hm__adds(&g->nomem, b, "| ");
	*first = 0;
}

/* One "key": value pair of property name k (its value rule vid). */
static void
kv(hm_gw *g, hm_buf *b, const char *k, size_t n, unsigned vid)
{
	hm__gw_json_lit(g, b, k, n);
	hm__adds(&g->nomem, b, "ws \":\" ws ");
	hm__gw_ref(g, b, vid);
	hm__adds(&g->nomem, b, "ws ");
}

/* An extra pair: any key, value rule xid. */
static void
kvx(hm_gw *g, hm_buf *b, unsigned xid)
{
	hm__adds(&g->nomem, b, "jstr ws \":\" ws ");
	hm__gw_ref(g, b, xid);
	hm__adds(&g->nomem, b, "ws ");
}

static int
is_required(const hm_jv *req, const char *k, size_t n)
{
	size_t i;

	if (!req || req->type != HM_JV_ARRAY)
		return 0;
	for (i = 0; i < req->n; i++)
		if (req->v[i]->type == HM_JV_STRING && req->v[i]->len == n && !memcmp(req->v[i]->s, k, n))
			return 1;
	return 0;
}

static hm_status
object_body(hm_gw *g, const hm_jv *s, hm_buf *b)
{
	const hm_jv *props = hm__jv_get(s, "properties"), *req = hm__jv_get(s, "required");
	const hm_jv *ap = hm__jv_get(s, "additionalProperties");
	size_t np = props && props->type == HM_JV_OBJECT ? props->n : 0, i, firstreq = np;
	unsigned *vid = NULL, *kid = NULL, xid = 0;
	/*
	 * Pairs beyond the declared ones only where additionalProperties
	 * allows them outright (true or a schema), as xgrammar's strict mode
	 * has it: an extra pair's key could otherwise be a declared name with
	 * a value its schema refuses.
	 */
	int extra = ap && (ap->type == HM_JV_TRUE || ap->type == HM_JV_OBJECT), first = 1;
	hm_status st = HM_OK;

	hm__gw_shared(g, HM_GR_WS);
	hm__gw_shared(g, HM_GR_STR);
	if (np > 1)
		g->notes |= HM_GN_ORDER;
	if (!extra && !(ap && ap->type == HM_JV_FALSE))
		g->notes |= HM_GN_EXTRA;
	if (extra && (st = schema_rule(g, ap && ap->type == HM_JV_OBJECT ? ap : NULL, &xid)) != HM_OK)
		return st;
	if ((np && !(vid = calloc(np, sizeof *vid))) || !(kid = calloc(np + 1, sizeof *kid))) {
		free(vid);
		return HM_ENOMEM;
	}
	for (i = 0; i < np && st == HM_OK; i++) {
		st = schema_rule(g, props->v[i], &vid[i]);
		if (firstreq == np && is_required(req, props->k[i], props->klen[i]))
			firstreq = i;
	}
	if (st != HM_OK)
		goto out;
	/* k<i>: the rest from property i on, something written before it. */
	for (i = np + 1; i-- > 0;)
		kid[i] = g->next++;
	for (i = np + 1; i-- > 1;) { /* k0 is never referred to */
		hm_buf *rb = &g->body[g->depth], r;

		rb->len = 0;
		r = *rb;

		hm__gw_rule_begin_id(g, &r, kid[i]);
		if (i == np) {
			if (extra) {
				hm__adds(&g->nomem, &r, "(\",\" ws ");
				kvx(g, &r, xid);
				hm__adds(&g->nomem, &r, ")*");
			} else
				hm__adds(&g->nomem, &r, "ws"); /* never empty: ws may be */
		} else {
			int reqd = is_required(req, props->k[i], props->klen[i]);

			hm__adds(&g->nomem, &r, reqd ? "\",\" ws " : "(\",\" ws ");
			kv(g, &r, props->k[i], props->klen[i], vid[i]);
			if (!reqd)
				hm__adds(&g->nomem, &r, ")? ");
			hm__gw_ref(g, &r, kid[i + 1]);
		}
		end_rule(g, &r);
		if (r.p)
			hm__add(&g->nomem, &g->rules, r.p, r.len);
		*rb = r; /* kept for the next one */
	}
	if (!np && !extra) {
		hm__adds(&g->nomem, b, "\"{\" ws \"}\" ");
		goto out;
	}
	/* The first pair written: property j (j up to the first required one), or an extra. */
	hm__adds(&g->nomem, b, "\"{\" ws (");
	for (i = 0; i < np && i <= firstreq; i++) {
		alt(g, b, &first);
		kv(g, b, props->k[i], props->klen[i], vid[i]);
		hm__gw_ref(g, b, kid[i + 1]);
	}
	if (firstreq == np && extra) {
		alt(g, b, &first);
		kvx(g, b, xid);
		hm__gw_ref(g, b, kid[np]);
	}
	hm__adds(&g->nomem, b, ")");
	if (firstreq == np)
		hm__adds(&g->nomem, b, "?");
	hm__adds(&g->nomem, b, " \"}\" ");
out:
	free(vid);
	free(kid);
	return st;
}

static hm_status
array_body(hm_gw *g, const hm_jv *s, hm_buf *b)
{
	const hm_jv *pre = hm__jv_get(s, "prefixItems"), *items = hm__jv_get(s, "items");
	size_t lo = count_of(hm__jv_get(s, "minItems"), 0), hi = count_of(hm__jv_get(s, "maxItems"), SIZE_MAX);
	size_t np = 0, i, depth = 0;
	unsigned iid = 0;
	int more = 1;
	hm_status st;

	hm__gw_shared(g, HM_GR_WS);
	if (items && items->type == HM_JV_ARRAY) /* draft 4's tuple form */
		pre = items, items = hm__jv_get(s, "additionalItems");
	if (pre && pre->type == HM_JV_ARRAY)
		np = pre->n;
	if (items && items->type == HM_JV_FALSE)
		more = 0;
	if (more && (st = schema_rule(g, items && items->type == HM_JV_OBJECT ? items : NULL, &iid)) != HM_OK)
		return st;
	if (!more && hi > np)
		hi = np;
	hm__adds(&g->nomem, b, "\"[\" ws ");
	if (hi == 0) {
		hm__adds(&g->nomem, b, "\"]\" ");
		return HM_OK;
	}
	/* The prefix items in turn, each optional once minItems is met. */
	for (i = 0; i < np && i < hi; i++) {
		unsigned pid;

		if ((st = schema_rule(g, pre->v[i], &pid)) != HM_OK)
			return st;
		if (i >= lo) {
			hm__adds(&g->nomem, b, "(");
			depth++;
		}
		if (i)
			hm__adds(&g->nomem, b, "\",\" ws ");
		hm__gw_ref(g, b, pid);
		hm__adds(&g->nomem, b, "ws ");
	}
	if (more && hi > np) {
		size_t rlo = lo > np ? lo - np : 0, rhi = hi == SIZE_MAX ? SIZE_MAX : hi - np;
		hm_buf item = {0};

		if (np) {
			hm__adds(&g->nomem, &item, "\",\" ws ");
			hm__gw_ref(g, &item, iid);
			hm__adds(&g->nomem, &item, "ws");
			if (item.p)
				rep_item(g, b, item.p, item.len, rlo, rhi);
		} else {
			/* The first item without its comma. */
			if (!rlo)
				hm__adds(&g->nomem, b, "(");
			hm__gw_ref(g, b, iid);
			hm__adds(&g->nomem, b, "ws ");
			hm__adds(&g->nomem, &item, "\",\" ws ");
			hm__gw_ref(g, &item, iid);
			hm__adds(&g->nomem, &item, "ws");
			if (item.p)
				rep_item(g, b, item.p, item.len, rlo ? rlo - 1 : 0,
				    rhi == SIZE_MAX ? SIZE_MAX : rhi - 1);
			if (!rlo)
				hm__adds(&g->nomem, b, ")? ");
		}
		hm_buf_free(&item);
	}
	while (depth--)
		hm__adds(&g->nomem, b, ")? ");
	hm__adds(&g->nomem, b, "\"]\" ");
	return HM_OK;
}

static void
string_body(hm_gw *g, const hm_jv *s, hm_buf *b)
{
	const hm_jv *pat = hm__jv_get(s, "pattern");
	size_t lo = count_of(hm__jv_get(s, "minLength"), 0), hi = count_of(hm__jv_get(s, "maxLength"), SIZE_MAX);

	hm__gw_shared(g, HM_GR_CHR);
	hm__gw_lit(g, b, "\"", 1);
	if (pat && pat->type == HM_JV_STRING) {
		if (lo || hi != SIZE_MAX)
			g->notes |= HM_GN_BOUNDS; /* a length and a pattern together: the pattern */
		if (!pattern_body(g, b, pat->s, pat->len)) {
			g->notes |= HM_GN_PATTERN;
			hm__adds(&g->nomem, b, "jchr* ");
		}
	} else if (lo == 0 && hi == SIZE_MAX)
		hm__adds(&g->nomem, b, "jchr* ");
	else
		rep_item(g, b, "jchr", 4, lo, hi);
	hm__gw_lit(g, b, "\"", 1);
}

/* Whether s's bounds say non-negative (minimum >= 0 or exclusiveMinimum >= 0); notes the rest. */
static int
nonneg(hm_gw *g, const hm_jv *s, int *positive)
{
	double d;
	int nn = 0;
	const hm_jv *xmin = hm__jv_get(s, "exclusiveMinimum");

	*positive = 0;
	if (num_of(hm__jv_get(s, "minimum"), &d)) {
		if (d >= 0)
			nn = 1;
		if (d != 0)
			g->notes |= HM_GN_BOUNDS;
	}
	if (num_of(xmin, &d)) {
		if (d >= 0)
			nn = 1;
		if (d == 0)
			*positive = 1;
		else
			g->notes |= HM_GN_BOUNDS;
	}
	if (hm__jv_get(s, "maximum") || hm__jv_get(s, "exclusiveMaximum"))
		g->notes |= HM_GN_BOUNDS;
	return nn;
}

static void
number_body(hm_gw *g, const hm_jv *s, hm_buf *b, int integer)
{
	int pos, nn = nonneg(g, s, &pos);

	if (!nn) {
		hm__adds(&g->nomem, b, integer ? hm__gw_shared(g, HM_GR_INT) : hm__gw_shared(g, HM_GR_NUM));
		hm__putc(&g->nomem, b, ' ');
		return;
	}
	/* Without a sign; an integer above 0 has no leading 0. */
	hm__adds(&g->nomem, b, "(");
	if (!(pos && integer))
		hm__adds(&g->nomem, b, "\"0\" | ");
	hm__gw_class(g, b, "1-9", 3);
	hm__gw_class(g, b, "0-9", 3);
	hm__adds(&g->nomem, b, "*) ");
	if (!integer) {
		num_tail(g, b);
		hm__adds(&g->nomem, b, " ");
	}
}

static hm_status
literal_value(hm_gw *g, hm_buf *b, const hm_jv *v)
{
	g->tmp.len = 0;
	hm__jv_write_to(&g->nomem, &g->tmp, v);
	if (g->tmp.p)
		hm__gw_lit(g, b, g->tmp.p, g->tmp.len);
	return HM_OK;
}

static hm_status
schema_body(hm_gw *g, const hm_jv *s, hm_buf *b)
{
	const hm_jv *x;
	unsigned bits, sub;
	hm_status st;
	size_t i;
	int first = 1;

	if (!s || s->type != HM_JV_OBJECT) {
		hm__adds(&g->nomem, b, hm__gw_shared(g, HM_GR_VAL));
		return HM_OK;
	}
	note_keywords(g, s);
	if ((x = hm__jv_get(s, "$ref")) && x->type == HM_JV_STRING) {
		const hm_jv *t = resolve(g->doc, x->s, x->len);

		if (!t)
			g->notes |= HM_GN_REF;
		if ((st = schema_rule(g, t, &sub)) != HM_OK)
			return st;
		hm__gw_ref(g, b, sub);
		return HM_OK;
	}
	if ((x = hm__jv_get(s, "const"))) {
		return literal_value(g, b, x);
	}
	if ((x = hm__jv_get(s, "enum")) && x->type == HM_JV_ARRAY && x->n) {
		for (i = 0; i < x->n; i++) {
			alt(g, b, &first);
			literal_value(g, b, x->v[i]);
		}
		return HM_OK;
	}
	if (((x = hm__jv_get(s, "anyOf")) || (x = hm__jv_get(s, "oneOf"))) && x->type == HM_JV_ARRAY && x->n) {
		if (hm__jv_get(s, "oneOf"))
			g->notes |= HM_GN_ONEOF;
		for (i = 0; i < x->n; i++) {
			if ((st = schema_rule(g, x->v[i], &sub)) != HM_OK)
				return st;
			alt(g, b, &first);
			hm__gw_ref(g, b, sub);
		}
		return HM_OK;
	}
	if ((x = hm__jv_get(s, "allOf")) && x->type == HM_JV_ARRAY && x->n) {
		if (x->n == 1 && !types_of(s)) {
			if ((st = schema_rule(g, x->v[0], &sub)) != HM_OK)
				return st;
			hm__gw_ref(g, b, sub);
			return HM_OK;
		}
		g->notes |= HM_GN_ALLOF;
	}
	bits = types_of(s);
	if (!bits) {
		hm__adds(&g->nomem, b, hm__gw_shared(g, HM_GR_VAL));
		return HM_OK;
	}
	if (bits & T_NULL) {
		alt(g, b, &first);
		hm__adds(&g->nomem, b, "\"null\" ");
	}
	if (bits & T_BOOL) {
		alt(g, b, &first);
		hm__adds(&g->nomem, b, "\"true\" | \"false\" ");
	}
	if (bits & T_OBJ) {
		alt(g, b, &first);
		if ((st = object_body(g, s, b)) != HM_OK)
			return st;
	}
	if (bits & T_ARR) {
		alt(g, b, &first);
		if ((st = array_body(g, s, b)) != HM_OK)
			return st;
	}
	if (bits & T_STR) {
		alt(g, b, &first);
		string_body(g, s, b);
	}
	if (bits & (T_NUM | T_INT)) {
		alt(g, b, &first);
		number_body(g, s, b, !(bits & T_NUM));
	}
	return HM_OK;
}

static hm_status
schema_rule(hm_gw *g, const hm_jv *s, unsigned *id)
{
	static const hm_jv any_key = {0}; /* the memo key of "any value" */
	const hm_jv *key = s ? s : &any_key;
	hm_gmemo *m = memo_find(g, key);
	hm_buf *b;
	hm_status st;

	if (m) {
		*id = m->id;
		return HM_OK;
	}
	if (g->depth >= SCHEMA_DEPTH_MAX) {
		g->notes |= HM_GN_REF;
		return schema_rule(g, NULL, id);
	}
	*id = g->next++;
	if (memo_add(g, key, *id) != HM_OK)
		return HM_ENOMEM;
	b = &g->body[g->depth++];
	b->len = 0;
	hm__gw_rule_begin_id(g, b, *id);
	st = schema_body(g, s && s->type == HM_JV_TRUE ? NULL : s, b);
	g->depth--;
	end_rule(g, b);
	if (b->p)
		hm__add(&g->nomem, &g->rules, b->p, b->len);
	if (g->nomem)
		return HM_ENOMEM;
	return st;
}

hm_status
hm__gw_schema(hm_gw *g, const hm_jv *doc, const hm_jv *s, unsigned *id)
{
	g->doc = doc;
	return schema_rule(g, s, id);
}
