/*
 * json_regex.c - the regular expressions of JSON Schema's `pattern` and
 * `patternProperties`: ECMA-262 syntax without lookaround or
 * backreferences (Unicode property escapes: the general categories the
 * tokenizer's tables know), compiled to a small program and run as a
 * Thompson NFA (every thread advanced one code point at a time), so that
 * matching takes at most (program size) x (text length) steps whatever
 * the pattern: no catastrophic backtracking on hostile input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_schema_int.h"
#include "unicode_int.h"

#define RE_MAX_PROG 20000 /* instructions in one program */
#define SMALL_TEXT 256    /* hm__re_search: code points matched without allocating */
#define SMALL_PROG 128    /* ... and instructions */
#define RE_MAX_NEST 64    /* groups inside groups */
#define RE_MAX_COUNT 1000 /* the largest {n,m} bound */
#define RE_BRANCH_END (-2) /* parse_piece: no piece, the branch ends here */

enum { N_EMPTY, N_CLASS, N_ANY, N_BOL, N_EOL, N_WB, N_NWB, N_CAT, N_ALT, N_REP };
enum { I_CLASS, I_ANY, I_SPLIT, I_JMP, I_BOL, I_EOL, I_WB, I_NWB, I_MATCH };

typedef struct re_item {
	uint32_t lo, hi; /* a range of code points, or ... */
	int builtin;     /* ... 'd', 'D', 'w', 'W', 's', 'S' (lo, hi unused) */
} re_item;

typedef struct re_class {
	size_t first, n; /* items[first .. first + n) */
	int neg;
} re_class;

typedef struct re_node {
	int type;
	int kid, next; /* first child (CAT, ALT, REP), next sibling; -1: none */
	int min, max;  /* REP bounds, max -1: unbounded; CLASS: the class */
} re_node;

typedef struct re_inst {
	int op, x, y;
} re_inst;

typedef struct re_dfa re_dfa;

struct hm_re {
	re_inst *prog;
	size_t nprog;
	re_dfa *dfa;     /* the program as a DFA, built as texts need it; NULL: the NFA only */
	re_item *items;
	re_class *classes;
	size_t nitems, nclasses;
};

static hm_status dfa_new(hm_re *re);
static void dfa_free(re_dfa *d);

/*
 * The parser's state: the pattern as code points and the tree it builds.
 * The parsing functions return a node's index, -1 when they failed: the
 * failure is in the state, bad (err says what) or nomem.
 */
typedef struct re_parse {
	uint32_t *cp;
	size_t n, i;
	re_node *nodes;
	size_t nnodes, capnodes;
	re_item *items;
	size_t nitems, capitems;
	re_class *classes;
	size_t nclasses, capclasses;
	char *err;
	size_t errsz;
	int nomem, bad, nest; /* nomem: the compile's one out-of-memory flag */
	int unsupported;      /* bad: valid ECMA-262 this matcher does not run */
} re_parse;

static void
re_fail(re_parse *p, const char *what)
{
	if (!p->bad && !p->nomem)
		snprintf(p->err, p->errsz, "%s at character %zu", what, p->i + 1);
	p->bad = 1;
}

/* Valid ECMA-262 that this matcher does not run (backreferences, lookaround). */
static void
re_unsupported(re_parse *p, const char *what)
{
	if (!p->bad)
		p->unsupported = 1;
	re_fail(p, what);
}

static hm_status
grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 8;
	void *t;

	if (need <= *cap)
		return HM_OK;
	while (c < need)
		c *= 2;
	if (!(t = realloc(*arr, c * size)))
		return HM_ENOMEM;
	*arr = t;
	*cap = c;
	return HM_OK;
}

static int
node_new(re_parse *p, int type)
{
	re_node *n;

	if (p->nomem || p->bad)
		return -1;
	if (grow((void **)&p->nodes, &p->capnodes, p->nnodes + 1, sizeof *p->nodes) != HM_OK) {
		p->nomem = 1;
		return -1;
	}
	n = &p->nodes[p->nnodes];
	n->type = type;
	n->kid = n->next = -1;
	n->min = n->max = 0;
	return (int)p->nnodes++;
}

static void
item_add(re_parse *p, uint32_t lo, uint32_t hi, int builtin)
{
	if (p->nomem || p->bad)
		return;
	if (grow((void **)&p->items, &p->capitems, p->nitems + 1, sizeof *p->items) != HM_OK) {
		p->nomem = 1;
		return;
	}
	p->items[p->nitems].lo = lo;
	p->items[p->nitems].hi = hi;
	p->items[p->nitems].builtin = builtin;
	p->nitems++;
}

/* A CLASS node for the items from `first` on. */
static int
class_node(re_parse *p, size_t first, int neg)
{
	int k;

	if (p->nomem || p->bad)
		return -1;
	if (grow((void **)&p->classes, &p->capclasses, p->nclasses + 1, sizeof *p->classes) != HM_OK) {
		p->nomem = 1;
		return -1;
	}
	if ((k = node_new(p, N_CLASS)) < 0)
		return -1;
	p->classes[p->nclasses].first = first;
	p->classes[p->nclasses].n = p->nitems - first;
	p->classes[p->nclasses].neg = neg;
	p->nodes[k].min = (int)p->nclasses++;
	return k;
}

static int
char_node(re_parse *p, uint32_t c)
{
	size_t first = p->nitems;

	item_add(p, c, c, 0);
	return class_node(p, first, 0);
}

static int
hexval(uint32_t c)
{
	if (c >= '0' && c <= '9')
		return (int)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (int)(c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (int)(c - 'A' + 10);
	return -1;
}

/* k hex digits at p->i as a number, or -1 (p->i unmoved). */
static long
hex_digits(re_parse *p, int k)
{
	long v = 0;
	int j;

	if (p->i + (size_t)k > p->n)
		return -1;
	for (j = 0; j < k; j++) {
		int h = hexval(p->cp[p->i + (size_t)j]);

		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	p->i += (size_t)k;
	return v;
}

/*
 * Unicode properties (\p{...}, \P{...}) are builtins too: RE_PROP and
 * the class bits of unicode_int.h (the tokenizer's Unicode 16.0 tables),
 * or RE_PROP_ND for decimal digits, which those tables do not tell from
 * other numbers.
 */
#define RE_PROP 0x100
#define RE_PROP_NOT 0x200
#define RE_PROP_ND 0x400

/* Nd (Decimal_Number), the ranges of Unicode 17.0 (node's /\p{Nd}/u). */
static const struct {
	uint32_t lo, hi;
} ND[] = {
	{ 0x30, 0x39 }, { 0x660, 0x669 }, { 0x6f0, 0x6f9 }, { 0x7c0, 0x7c9 },
	{ 0x966, 0x96f }, { 0x9e6, 0x9ef }, { 0xa66, 0xa6f }, { 0xae6, 0xaef },
	{ 0xb66, 0xb6f }, { 0xbe6, 0xbef }, { 0xc66, 0xc6f }, { 0xce6, 0xcef },
	{ 0xd66, 0xd6f }, { 0xde6, 0xdef }, { 0xe50, 0xe59 }, { 0xed0, 0xed9 },
	{ 0xf20, 0xf29 }, { 0x1040, 0x1049 }, { 0x1090, 0x1099 }, { 0x17e0, 0x17e9 },
	{ 0x1810, 0x1819 }, { 0x1946, 0x194f }, { 0x19d0, 0x19d9 }, { 0x1a80, 0x1a89 },
	{ 0x1a90, 0x1a99 }, { 0x1b50, 0x1b59 }, { 0x1bb0, 0x1bb9 }, { 0x1c40, 0x1c49 },
	{ 0x1c50, 0x1c59 }, { 0xa620, 0xa629 }, { 0xa8d0, 0xa8d9 }, { 0xa900, 0xa909 },
	{ 0xa9d0, 0xa9d9 }, { 0xa9f0, 0xa9f9 }, { 0xaa50, 0xaa59 }, { 0xabf0, 0xabf9 },
	{ 0xff10, 0xff19 }, { 0x104a0, 0x104a9 }, { 0x10d30, 0x10d39 }, { 0x10d40, 0x10d49 },
	{ 0x11066, 0x1106f }, { 0x110f0, 0x110f9 }, { 0x11136, 0x1113f }, { 0x111d0, 0x111d9 },
	{ 0x112f0, 0x112f9 }, { 0x11450, 0x11459 }, { 0x114d0, 0x114d9 }, { 0x11650, 0x11659 },
	{ 0x116c0, 0x116c9 }, { 0x116d0, 0x116e3 }, { 0x11730, 0x11739 }, { 0x118e0, 0x118e9 },
	{ 0x11950, 0x11959 }, { 0x11bf0, 0x11bf9 }, { 0x11c50, 0x11c59 }, { 0x11d50, 0x11d59 },
	{ 0x11da0, 0x11da9 }, { 0x11de0, 0x11de9 }, { 0x11f50, 0x11f59 }, { 0x16130, 0x16139 },
	{ 0x16a60, 0x16a69 }, { 0x16ac0, 0x16ac9 }, { 0x16b50, 0x16b59 }, { 0x16d70, 0x16d79 },
	{ 0x1ccf0, 0x1ccf9 }, { 0x1d7ce, 0x1d7ff }, { 0x1e140, 0x1e149 }, { 0x1e2f0, 0x1e2f9 },
	{ 0x1e4f0, 0x1e4f9 }, { 0x1e5f1, 0x1e5fa }, { 0x1e950, 0x1e959 }, { 0x1fbf0, 0x1fbf9 },
};

static int
is_nd(uint32_t c)
{
	size_t lo = 0, hi = sizeof ND / sizeof *ND;

	while (lo < hi) {
		size_t m = (lo + hi) / 2;

		if (c < ND[m].lo)
			hi = m;
		else if (c > ND[m].hi)
			lo = m + 1;
		else
			return 1;
	}
	return 0;
}

/*
 * The name of \p{NAME} at p->i (past the 'p') as a builtin, or -1: the
 * general categories the tables have (L, Lu, Ll, Lt, Lm, Lo, LC, M, N,
 * Nd, long names and "General_Category=" / "gc=" too) and White_Space.
 */
static int
property(re_parse *p)
{
	static const struct {
		const char *name;
		int b;
	} names[] = {
		{ "L", RE_PROP | HM_UC_L }, { "Letter", RE_PROP | HM_UC_L },
		{ "Lu", RE_PROP | HM_UC_LU }, { "Uppercase_Letter", RE_PROP | HM_UC_LU },
		{ "Ll", RE_PROP | HM_UC_LL }, { "Lowercase_Letter", RE_PROP | HM_UC_LL },
		{ "Lt", RE_PROP | HM_UC_LT }, { "Titlecase_Letter", RE_PROP | HM_UC_LT },
		{ "LC", RE_PROP | HM_UC_LU | HM_UC_LL | HM_UC_LT },
		{ "Cased_Letter", RE_PROP | HM_UC_LU | HM_UC_LL | HM_UC_LT },
		{ "Lm", RE_PROP | HM_UC_LM }, { "Modifier_Letter", RE_PROP | HM_UC_LM },
		{ "Lo", RE_PROP | HM_UC_LO }, { "Other_Letter", RE_PROP | HM_UC_LO },
		{ "M", RE_PROP | HM_UC_M }, { "Mark", RE_PROP | HM_UC_M },
		{ "Combining_Mark", RE_PROP | HM_UC_M },
		{ "N", RE_PROP | HM_UC_N }, { "Number", RE_PROP | HM_UC_N },
		{ "Nd", RE_PROP_ND }, { "digit", RE_PROP_ND }, { "Decimal_Number", RE_PROP_ND },
		{ "White_Space", RE_PROP | HM_UC_WS }, { "space", RE_PROP | HM_UC_WS },
	};
	char name[40];
	size_t j = 0, k, skip = 0;

	if (p->i >= p->n || p->cp[p->i] != '{') {
		re_fail(p, "\\p needs {NAME}");
		return -1;
	}
	for (k = p->i + 1; k < p->n && p->cp[k] != '}' && j + 1 < sizeof name; k++)
		name[j++] = p->cp[k] < 128 ? (char)p->cp[k] : '?';
	name[j] = '\0';
	if (k >= p->n || p->cp[k] != '}') {
		re_fail(p, "\\p{ without its }");
		return -1;
	}
	if (!strncmp(name, "General_Category=", 17))
		skip = 17;
	else if (!strncmp(name, "gc=", 3))
		skip = 3;
	for (j = 0; j < sizeof names / sizeof *names; j++)
		if (!strcmp(name + skip, names[j].name)) {
			p->i = k + 1;
			return names[j].b;
		}
	re_fail(p, "a Unicode property this validator does not know (it knows L, Lu, Ll, Lt, "
	    "LC, Lm, Lo, M, N, Nd and White_Space)");
	return -1;
}

/*
 * The escape after a backslash (p->i past it) as a code point; *builtin
 * gets 'd', 'w', 's' (or capitals) for a class escape, 'b'/'B' outside a
 * class for a word boundary.  -1 after an error.
 */
static long
escape(re_parse *p, int in_class, int *builtin)
{
	uint32_t c;
	long v;

	*builtin = 0;
	if (p->i >= p->n) {
		re_fail(p, "a pattern cannot end with a backslash");
		return -1;
	}
	c = p->cp[p->i++];
	switch (c) {
	case 'd': case 'D': case 'w': case 'W': case 's': case 'S':
		*builtin = (int)c;
		return 0;
	case 'b':
		if (in_class)
			return 8;
		*builtin = 'b';
		return 0;
	case 'B':
		if (in_class) {
			re_fail(p, "\\B inside a class");
			return -1;
		}
		*builtin = 'B';
		return 0;
	case 't': return '\t';
	case 'n': return '\n';
	case 'r': return '\r';
	case 'v': return '\v';
	case 'f': return '\f';
	case '0':
		if (p->i < p->n && p->cp[p->i] >= '0' && p->cp[p->i] <= '9') {
			re_unsupported(p, "octal escapes are not supported");
			return -1;
		}
		return 0;
	case 'c':
		if (p->i < p->n && ((p->cp[p->i] | 32) >= 'a' && (p->cp[p->i] | 32) <= 'z'))
			return (long)(p->cp[p->i++] % 32);
		re_fail(p, "\\c needs a letter");
		return -1;
	case 'x':
		if ((v = hex_digits(p, 2)) < 0)
			re_fail(p, "\\x needs two hex digits");
		return v;
	case 'u':
		if (p->i < p->n && p->cp[p->i] == '{') {
			size_t j = p->i + 1;

			v = 0;
			while (j < p->n && hexval(p->cp[j]) >= 0 && v <= 0x10ffff)
				v = v * 16 + hexval(p->cp[j++]);
			if (j == p->i + 1 || j >= p->n || p->cp[j] != '}' || v > 0x10ffff) {
				re_fail(p, "bad \\u{...} escape");
				return -1;
			}
			p->i = j + 1;
			return v;
		}
		if ((v = hex_digits(p, 4)) < 0) {
			re_fail(p, "\\u needs four hex digits");
			return -1;
		}
		/* A surrogate pair written as two escapes is one code point. */
		if (v >= 0xd800 && v <= 0xdbff && p->i + 6 <= p->n && p->cp[p->i] == '\\' &&
		    p->cp[p->i + 1] == 'u') {
			size_t save = p->i;
			long lo;

			p->i += 2;
			lo = hex_digits(p, 4);
			if (lo >= 0xdc00 && lo <= 0xdfff)
				return 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
			p->i = save;
		}
		return v;
	case 'p': case 'P':
		if ((*builtin = property(p)) < 0)
			return -1;
		if (c == 'P')
			*builtin |= RE_PROP_NOT;
		return 0;
	case 'k':
		re_unsupported(p, "backreferences are not supported");
		return -1;
	default:
		if (c >= '1' && c <= '9') {
			re_unsupported(p, "backreferences are not supported");
			return -1;
		}
		/* An escaped character that means itself: \. \\ \/ \- ... */
		if ((c | 32) >= 'a' && (c | 32) <= 'z') {
			re_fail(p, "unknown escape");
			return -1;
		}
		return (long)c;
	}
}

static int parse_alt(re_parse *p);

/* [...] at p->i (past the '['). */
static int
parse_class(re_parse *p)
{
	size_t first = p->nitems;
	int neg = 0, b;
	long lo, hi;

	if (p->i < p->n && p->cp[p->i] == '^') {
		neg = 1;
		p->i++;
	}
	for (;;) {
		if (p->i >= p->n) {
			re_fail(p, "unterminated character class");
			return -1;
		}
		if (p->cp[p->i] == ']') {
			p->i++;
			break;
		}
		if (p->cp[p->i] == '\\') {
			p->i++;
			if ((lo = escape(p, 1, &b)) < 0)
				return -1;
			if (b) {
				item_add(p, 0, 0, b);
				continue;
			}
		} else
			lo = (long)p->cp[p->i++];
		hi = lo;
		if (p->i + 1 < p->n && p->cp[p->i] == '-' && p->cp[p->i + 1] != ']') {
			p->i++;
			if (p->cp[p->i] == '\\') {
				p->i++;
				if ((hi = escape(p, 1, &b)) < 0)
					return -1;
				if (b) {
					re_fail(p, "a class escape cannot end a range");
					return -1;
				}
			} else
				hi = (long)p->cp[p->i++];
			if (hi < lo) {
				re_fail(p, "range out of order in character class");
				return -1;
			}
		}
		item_add(p, (uint32_t)lo, (uint32_t)hi, 0);
	}
	return class_node(p, first, neg);
}

/* {n}, {n,}, {n,m} at p->i; 0 when it is not one (a literal brace then). */
static int
parse_braces(re_parse *p, int *min, int *max)
{
	size_t j = p->i + 1;
	long a = 0, b = -1;
	int digits = 0;

	while (j < p->n && p->cp[j] >= '0' && p->cp[j] <= '9') {
		if (a <= RE_MAX_COUNT)
			a = a * 10 + (long)(p->cp[j] - '0');
		j++;
		digits = 1;
	}
	if (!digits)
		return 0;
	if (j < p->n && p->cp[j] == ',') {
		j++;
		if (j < p->n && p->cp[j] >= '0' && p->cp[j] <= '9') {
			b = 0;
			while (j < p->n && p->cp[j] >= '0' && p->cp[j] <= '9') {
				if (b <= RE_MAX_COUNT)
					b = b * 10 + (long)(p->cp[j] - '0');
				j++;
			}
		}
	} else
		b = a;
	if (j >= p->n || p->cp[j] != '}')
		return 0;
	p->i = j + 1;
	if (a > RE_MAX_COUNT || b > RE_MAX_COUNT) {
		re_fail(p, "repeat count over 1000");
		return -1;
	}
	if (b >= 0 && b < a) {
		re_fail(p, "numbers out of order in {} quantifier");
		return -1;
	}
	*min = (int)a;
	*max = (int)b;
	return 1;
}

/* One atom and its quantifier; RE_BRANCH_END at the end of a branch. */
static int
parse_piece(re_parse *p)
{
	uint32_t c;
	int k, b, min, max, r;
	long v;

	if (p->i >= p->n || p->cp[p->i] == '|' || p->cp[p->i] == ')')
		return RE_BRANCH_END;
	c = p->cp[p->i++];
	switch (c) {
	case '^': return node_new(p, N_BOL);
	case '$': return node_new(p, N_EOL);
	case '.': k = node_new(p, N_ANY); break;
	case '[': k = parse_class(p); break;
	case '(':
		if (p->i < p->n && p->cp[p->i] == '?') {
			if (p->i + 1 < p->n && p->cp[p->i + 1] == ':')
				p->i += 2;
			else if (p->i + 2 < p->n && p->cp[p->i + 1] == '<' &&
			    p->cp[p->i + 2] != '=' && p->cp[p->i + 2] != '!') {
				/* a named group: the name is not needed */
				while (p->i < p->n && p->cp[p->i] != '>')
					p->i++;
				if (p->i >= p->n) {
					re_fail(p, "unterminated group name");
					return -1;
				}
				p->i++;
			} else if (p->i + 1 < p->n && (p->cp[p->i + 1] == '=' || p->cp[p->i + 1] == '!' ||
			    p->cp[p->i + 1] == '<')) {
				re_unsupported(p, "lookahead and lookbehind are not supported");
				return -1;
			} else {
				/* (?P<name>...), (?#...), (?i): other dialects' groups */
				re_fail(p, "not an ECMA-262 group");
				return -1;
			}
		}
		if (++p->nest > RE_MAX_NEST) {
			re_fail(p, "groups nested deeper than 64");
			return -1;
		}
		k = parse_alt(p);
		p->nest--;
		if (k < 0)
			return -1;
		if (p->i >= p->n || p->cp[p->i] != ')') {
			re_fail(p, "missing )");
			return -1;
		}
		p->i++;
		break;
	case ')':
		re_fail(p, "unmatched )");
		return -1;
	case '*': case '+': case '?':
		p->i--;
		re_fail(p, "nothing to repeat");
		return -1;
	case '{':
		p->i--;
		if ((r = parse_braces(p, &min, &max)) != 0) {
			if (r > 0)
				re_fail(p, "nothing to repeat");
			return -1;
		}
		p->i++;
		k = char_node(p, '{');
		break;
	case '\\':
		if ((v = escape(p, 0, &b)) < 0)
			return -1;
		if (b == 'b' || b == 'B')
			return node_new(p, b == 'b' ? N_WB : N_NWB);
		if (b) {
			size_t first = p->nitems;

			item_add(p, 0, 0, b);
			k = class_node(p, first, 0);
		} else
			k = char_node(p, (uint32_t)v);
		break;
	default:
		k = char_node(p, c);
	}
	if (k < 0)
		return -1;
	if (p->i >= p->n)
		return k;
	c = p->cp[p->i];
	if (c == '*' || c == '+' || c == '?') {
		min = c == '+';
		max = c == '?' ? 1 : -1;
		p->i++;
	} else if (c == '{') {
		if ((r = parse_braces(p, &min, &max)) < 0)
			return -1;
		if (r == 0)
			return k;
	} else
		return k;
	if (p->i < p->n && p->cp[p->i] == '?')
		p->i++; /* lazy: the same set of matches */
	if (p->i < p->n && (p->cp[p->i] == '*' || p->cp[p->i] == '+' || p->cp[p->i] == '?' ||
	    p->cp[p->i] == '{')) {
		int m2, x2;
		size_t save = p->i;

		if (p->cp[p->i] != '{' || parse_braces(p, &m2, &x2) != 0) {
			p->i = save;
			re_fail(p, "nothing to repeat");
			return -1;
		}
	}
	{
		int rep = node_new(p, N_REP);

		if (rep < 0)
			return -1;
		p->nodes[rep].kid = k;
		p->nodes[rep].min = min;
		p->nodes[rep].max = max;
		return rep;
	}
}

static int
parse_cat(re_parse *p)
{
	int cat = node_new(p, N_CAT), last = -1, k;

	if (cat < 0)
		return -1;
	while ((k = parse_piece(p)) >= 0) {
		if (last < 0)
			p->nodes[cat].kid = k;
		else
			p->nodes[last].next = k;
		last = k;
	}
	return k == RE_BRANCH_END ? cat : -1;
}

static int
parse_alt(re_parse *p)
{
	int alt = node_new(p, N_ALT), last, k;

	if (alt < 0 || (k = parse_cat(p)) < 0)
		return -1;
	p->nodes[alt].kid = last = k;
	while (p->i < p->n && p->cp[p->i] == '|') {
		p->i++;
		if ((k = parse_cat(p)) < 0)
			return -1;
		p->nodes[last].next = k;
		last = k;
	}
	return alt;
}

/* ------------------------------------------------------------ compile */

typedef struct re_emit {
	const re_parse *p;
	re_inst *prog;
	size_t n, cap;
	int nomem, big; /* nomem: out of memory while emitting */
} re_emit;

static size_t
emit(re_emit *e, int op, int x, int y)
{
	if (e->nomem || e->big)
		return 0;
	if (e->n >= RE_MAX_PROG) {
		e->big = 1;
		return 0;
	}
	if (grow((void **)&e->prog, &e->cap, e->n + 1, sizeof *e->prog) != HM_OK) {
		e->nomem = 1;
		return 0;
	}
	e->prog[e->n].op = op;
	e->prog[e->n].x = x;
	e->prog[e->n].y = y;
	return e->n++;
}

static void
comp(re_emit *e, int k)
{
	const re_node *nd;
	size_t s, j, *jmps;
	int i, c;

	if (k < 0 || e->nomem || e->big)
		return;
	nd = &e->p->nodes[k];
	switch (nd->type) {
	case N_CLASS: emit(e, I_CLASS, nd->min, 0); break;
	case N_ANY: emit(e, I_ANY, 0, 0); break;
	case N_BOL: emit(e, I_BOL, 0, 0); break;
	case N_EOL: emit(e, I_EOL, 0, 0); break;
	case N_WB: emit(e, I_WB, 0, 0); break;
	case N_NWB: emit(e, I_NWB, 0, 0); break;
	case N_CAT:
		for (c = nd->kid; c >= 0; c = e->p->nodes[c].next)
			comp(e, c);
		break;
	case N_ALT:
		if (e->p->nodes[nd->kid].next < 0) {
			comp(e, nd->kid);
			break;
		}
		/* split L1, next; L1: a; jmp end; next: split L2, ... */
		{
			size_t njmp = 0, *js = NULL, capj = 0;

			for (c = nd->kid; c >= 0; c = e->p->nodes[c].next) {
				if (e->p->nodes[c].next >= 0) {
					s = emit(e, I_SPLIT, 0, 0);
					if (e->nomem || e->big)
						break;
					e->prog[s].x = (int)e->n;
					comp(e, c);
					if (grow((void **)&js, &capj, njmp + 1, sizeof *js) != HM_OK) {
						e->nomem = 1;
						break;
					}
					js[njmp++] = emit(e, I_JMP, 0, 0);
					if (e->nomem || e->big)
						break;
					e->prog[s].y = (int)e->n;
				} else
					comp(e, c);
			}
			if (!e->nomem && !e->big)
				for (j = 0; j < njmp; j++)
					e->prog[js[j]].x = (int)e->n;
			free(js);
		}
		break;
	case N_REP:
		for (i = 0; i < nd->min && !e->nomem && !e->big; i++)
			comp(e, nd->kid);
		if (nd->max < 0) {
			/* L: split body, out; body; jmp L; out: */
			s = emit(e, I_SPLIT, 0, 0);
			if (e->nomem || e->big)
				break;
			e->prog[s].x = (int)e->n;
			comp(e, nd->kid);
			emit(e, I_JMP, (int)s, 0);
			if (!e->nomem && !e->big)
				e->prog[s].y = (int)e->n;
		} else {
			/* (body (body ...)?)? : every split skips to the end. */
			int more = nd->max - nd->min;

			if (!more)
				break;
			if (!(jmps = malloc((size_t)more * sizeof *jmps))) {
				e->nomem = 1;
				break;
			}
			for (i = 0; i < more && !e->nomem && !e->big; i++) {
				jmps[i] = emit(e, I_SPLIT, 0, 0);
				if (e->nomem || e->big)
					break;
				e->prog[jmps[i]].x = (int)e->n;
				comp(e, nd->kid);
			}
			if (!e->nomem && !e->big)
				for (i = 0; i < more; i++)
					e->prog[jmps[i]].y = (int)e->n;
			free(jmps);
		}
		break;
	default:
		break;
	}
}

static void
parse_free(re_parse *p)
{
	free(p->cp);
	free(p->nodes);
	free(p->items);
	free(p->classes);
}

/* hm__re_compile, *unsupported set when the pattern is refused only for what the matcher cannot run. */
static hm_status
compile(const char *pat, size_t len, hm_re **out, char *err, size_t errsz, int *unsupported)
{
	re_parse p;
	re_emit e;
	hm_re *re;
	size_t i = 0, k;
	int root;

	*out = NULL;
	memset(&p, 0, sizeof p);
	memset(&e, 0, sizeof e);
	err[0] = '\0';
	p.err = err;
	p.errsz = errsz;
	if (!(p.cp = malloc((len + 1) * sizeof *p.cp)))
		return HM_ENOMEM;
	while (i < len) {
		size_t bad = 0;

		k = hm_utf8_decode((const unsigned char *)pat + i, len - i, &p.cp[p.n], &bad);
		if (!k) {
			snprintf(err, errsz, "the pattern is not valid UTF-8");
			parse_free(&p);
			return HM_EINPUT;
		}
		p.n++;
		i += k;
	}
	root = parse_alt(&p);
	if (!p.bad && !p.nomem && p.i < p.n)
		re_fail(&p, "unmatched )");
	if (p.nomem || p.bad || root < 0) {
		*unsupported = p.unsupported;
		parse_free(&p);
		if (p.nomem) {
			err[0] = '\0';
			return HM_ENOMEM;
		}
		if (!err[0])
			snprintf(err, errsz, "bad pattern");
		return HM_EINPUT;
	}
	e.p = &p;
	comp(&e, root);
	emit(&e, I_MATCH, 0, 0);
	if (e.big) {
		snprintf(err, errsz, "the pattern is too large (over %d instructions)", RE_MAX_PROG);
		*unsupported = 1;
		free(e.prog);
		parse_free(&p);
		return HM_EINPUT;
	}
	if (e.nomem || !(re = calloc(1, sizeof *re))) {
		free(e.prog);
		parse_free(&p);
		return HM_ENOMEM;
	}
	re->prog = e.prog;
	re->nprog = e.n;
	re->items = p.items;
	re->nitems = p.nitems;
	re->classes = p.classes;
	re->nclasses = p.nclasses;
	p.items = NULL;
	p.classes = NULL;
	parse_free(&p);
	if (dfa_new(re) != HM_OK) {
		hm__re_free(re);
		return HM_ENOMEM;
	}
	*out = re;
	return HM_OK;
}

void
hm__re_free(hm_re *re)
{
	if (!re)
		return;
	dfa_free(re->dfa);
	free(re->prog);
	free(re->items);
	free(re->classes);
	free(re);
}

/* ------------------------------------------------------------ match */

static int
is_word(uint32_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* ECMA-262 WhiteSpace and LineTerminator. */
static int
is_space(uint32_t c)
{
	return (c >= 9 && c <= 13) || c == ' ' || c == 0xa0 || c == 0x1680 ||
	    (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
	    c == 0x205f || c == 0x3000 || c == 0xfeff;
}

static int
is_line_end(uint32_t c)
{
	return c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029;
}

static int
builtin_match(int b, uint32_t c)
{
	if (b & (RE_PROP | RE_PROP_ND)) {
		int in = b & RE_PROP_ND ? is_nd(c) : (hm__uclass(c) & (unsigned)(b & 0xff)) != 0;

		return b & RE_PROP_NOT ? !in : in;
	}
	switch (b) {
	case 'd': return c >= '0' && c <= '9';
	case 'D': return !(c >= '0' && c <= '9');
	case 'w': return is_word(c);
	case 'W': return !is_word(c);
	case 's': return is_space(c);
	case 'S': return !is_space(c);
	}
	return 0;
}

static int
class_match(const hm_re *re, int k, uint32_t c)
{
	const re_class *cl = &re->classes[k];
	size_t i;

	for (i = 0; i < cl->n; i++) {
		const re_item *it = &re->items[cl->first + i];

		if (it->builtin ? builtin_match(it->builtin, c) : (c >= it->lo && c <= it->hi))
			return !cl->neg;
	}
	return cl->neg;
}

typedef struct re_run {
	const hm_re *re;
	const uint32_t *t;
	size_t n;
	size_t *mark;  /* per instruction: 1 + the position whose list holds it */
	int *stack;    /* the closure's work list, one entry per instruction at most */
} re_run;

/*
 * Add pc and what it reaches without consuming a character to list
 * (at position pos); 1 when that reaches MATCH.
 */
static int
add_thread(re_run *r, int *list, size_t *nlist, int pc, size_t pos)
{
	size_t sp = 0;
	const re_inst *in;

	r->stack[sp++] = pc;
	while (sp) {
		pc = r->stack[--sp];
		if (r->mark[pc] == pos + 1)
			continue;
		r->mark[pc] = pos + 1;
		in = &r->re->prog[pc];
		switch (in->op) {
		case I_JMP:
			r->stack[sp++] = in->x;
			break;
		case I_SPLIT:
			r->stack[sp++] = in->y;
			r->stack[sp++] = in->x;
			break;
		case I_BOL:
			if (pos == 0)
				r->stack[sp++] = pc + 1;
			break;
		case I_EOL:
			if (pos == r->n)
				r->stack[sp++] = pc + 1;
			break;
		case I_WB:
		case I_NWB: {
			int a = pos > 0 && is_word(r->t[pos - 1]);
			int b = pos < r->n && is_word(r->t[pos]);

			if ((a != b) == (in->op == I_WB))
				r->stack[sp++] = pc + 1;
			break;
		}
		case I_MATCH:
			return 1;
		default:
			list[(*nlist)++] = pc;
		}
	}
	return 0;
}

/*
 * The NFA's states as a DFA, built as texts need them: a DFA state is a
 * set of threads (program counters) at a position, and its move on each
 * ASCII byte is worked out once and kept, so that a pattern checked
 * against many values (a schema's `pattern`) costs a table look-up a
 * byte, not a thread list.  Programs with word boundaries (which look at
 * the byte ahead) and texts with a byte past ASCII are left to the NFA,
 * and so is a text that would need more than DFA_MAX_STATES states (the
 * ones made are kept).  Matching is a search, as the NFA's: the thread
 * at pc 0 starts again at every position.
 */
#define DFA_MAX_STATES 256

typedef struct re_dstate {
	int *set;              /* the threads, sorted (0 among them, but for the start) */
	size_t n;
	int start;             /* the state at position 0, where ^ holds */
	int16_t next[128];     /* the state after each ASCII byte; -1: not worked out yet */
	signed char mid, end;  /* MATCH reached inside the text / at its end; -1: not worked out */
	signed char stuck;     /* no thread can move: the answer is `end` whatever follows */
} re_dstate;

struct re_dfa {
	re_dstate *st;
	size_t n, cap;
	unsigned *mark, gen;   /* the closure's visited pcs, by generation */
	int *stack, *list, *kern;
};

static void
dfa_free(re_dfa *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->n; i++)
		free(d->st[i].set);
	free(d->st);
	free(d->mark);
	free(d->stack);
	free(d->list);
	free(d->kern);
	free(d);
}

/*
 * The closure of the threads set[0..n) (bol: ^ holds, eol: $ holds): the
 * threads that consume a character into d->list (*nl of them); 1 when
 * MATCH is reached.
 */
static int
dfa_closure(const hm_re *re, re_dfa *d, const int *set, size_t n, int bol, int eol, size_t *nl)
{
	size_t sp = 0, i;
	int found = 0;

	if (!++d->gen) {
		memset(d->mark, 0, re->nprog * sizeof *d->mark);
		d->gen = 1;
	}
	*nl = 0;
	for (i = n; i-- > 0;)
		d->stack[sp++] = set[i];
	while (sp) {
		int pc = d->stack[--sp];
		const re_inst *in = &re->prog[pc];

		if (d->mark[pc] == d->gen)
			continue;
		d->mark[pc] = d->gen;
		switch (in->op) {
		case I_JMP:
			d->stack[sp++] = in->x;
			break;
		case I_SPLIT:
			d->stack[sp++] = in->y;
			d->stack[sp++] = in->x;
			break;
		case I_BOL:
			if (bol)
				d->stack[sp++] = pc + 1;
			break;
		case I_EOL:
			if (eol)
				d->stack[sp++] = pc + 1;
			break;
		case I_MATCH:
			found = 1;
			break;
		default:
			d->list[(*nl)++] = pc;
		}
	}
	return found;
}

/* The state of threads set[0..n) (not the start), made when new; -1 when full or out of memory (*nomem). */
static int
dfa_state(const hm_re *re, re_dfa *d, const int *set, size_t n, int start, int *nomem)
{
	re_dstate *s;
	size_t i, nl;

	for (i = 0; i < d->n; i++)
		if (d->st[i].start == start && d->st[i].n == n && !memcmp(d->st[i].set, set, n * sizeof *set))
			return (int)i;
	if (d->n == DFA_MAX_STATES)
		return -1;
	if (d->n == d->cap) {
		size_t c = d->cap ? 2 * d->cap : 8;
		re_dstate *t = realloc(d->st, c * sizeof *t);

		if (!t) {
			*nomem = 1;
			return -1;
		}
		d->st = t;
		d->cap = c;
	}
	s = &d->st[d->n];
	if (!(s->set = malloc((n ? n : 1) * sizeof *s->set))) {
		*nomem = 1;
		return -1;
	}
	memcpy(s->set, set, n * sizeof *set);
	s->n = n;
	s->start = start;
	memset(s->next, 0xff, sizeof s->next);
	s->mid = (signed char)dfa_closure(re, d, set, n, start, 0, &nl);
	s->stuck = !start && nl == 0 && n == 1 && set[0] == 0;
	s->end = (signed char)dfa_closure(re, d, set, n, start, 1, &nl);
	return (int)d->n++;
}

/* The state after state k on ASCII byte b; -1 when full or out of memory (*nomem). */
static int
dfa_move(const hm_re *re, re_dfa *d, int k, unsigned char b, int *nomem)
{
	size_t nl, i, j, nk = 0;
	int t;

	dfa_closure(re, d, d->st[k].set, d->st[k].n, d->st[k].start, 0, &nl);
	d->kern[nk++] = 0;
	for (i = 0; i < nl; i++) {
		const re_inst *in = &re->prog[d->list[i]];
		int pc = d->list[i] + 1;

		if (!(in->op == I_ANY ? !is_line_end(b) : class_match(re, in->x, b)))
			continue;
		/* insert pc, keeping kern sorted and without repeats */
		for (j = nk; j > 0 && d->kern[j - 1] > pc; j--)
			;
		if (j > 0 && d->kern[j - 1] == pc)
			continue;
		memmove(&d->kern[j + 1], &d->kern[j], (nk - j) * sizeof *d->kern);
		d->kern[j] = pc;
		nk++;
	}
	if ((t = dfa_state(re, d, d->kern, nk, 0, nomem)) >= 0)
		d->st[k].next[b] = (int16_t)t;
	return t;
}

/* The DFA's answer for s[0..len): 1, 0, or -1 to ask the NFA (a byte past ASCII, too many states). */
static int
dfa_search(const hm_re *re, const char *s, size_t len, int *nomem)
{
	re_dfa *d = re->dfa;
	size_t i;
	int k = 0;

	for (i = 0; i < len; i++) {
		const re_dstate *st = &d->st[k];
		unsigned char b = (unsigned char)s[i];
		int t;

		if (st->mid)
			return 1;
		if (st->stuck)
			return st->end;
		if (b >= 128)
			return -1;
		if ((t = st->next[b]) < 0 && (t = dfa_move(re, d, k, b, nomem)) < 0)
			return *nomem ? 0 : -1;
		k = t;
	}
	return d->st[k].end;
}

/* A DFA for re when its program allows one (no word boundaries): HM_ENOMEM. */
static hm_status
dfa_new(hm_re *re)
{
	re_dfa *d;
	size_t i;
	int zero = 0, nomem = 0;

	for (i = 0; i < re->nprog; i++)
		if (re->prog[i].op == I_WB || re->prog[i].op == I_NWB)
			return HM_OK;
	if (!(d = calloc(1, sizeof *d)) || !(d->mark = calloc(re->nprog, sizeof *d->mark)) ||
	    !(d->stack = malloc((3 * re->nprog + 1) * sizeof *d->stack)) ||
	    !(d->list = malloc(re->nprog * sizeof *d->list)) ||
	    !(d->kern = malloc((re->nprog + 2) * sizeof *d->kern))) {
		dfa_free(d);
		return HM_ENOMEM;
	}
	re->dfa = d;
	if (dfa_state(re, d, &zero, 1, 1, &nomem) < 0) {
		re->dfa = NULL;
		dfa_free(d);
		return HM_ENOMEM;
	}
	return HM_OK;
}

int
hm__re_search_nfa(const hm_re *re, const char *s, size_t len, int *nomem)
{
	re_run r;
	uint32_t *t;
	int *cl, *nl, *tmp, found = 0;
	size_t n = 0, i = 0, ncl = 0, nnl, j, k, bad;

	/* a short text and a small program (names, ids, dates): no allocation */
	uint32_t t_small[SMALL_TEXT];
	int cl_small[SMALL_PROG], nl_small[SMALL_PROG], st_small[2 * SMALL_PROG + 1];
	size_t mark_small[SMALL_PROG];
	int small = len < SMALL_TEXT && re->nprog <= SMALL_PROG;

	memset(&r, 0, sizeof r);
	if (small) {
		t = t_small;
		cl = cl_small;
		nl = nl_small;
		r.stack = st_small;
		r.mark = mark_small;
		memset(mark_small, 0, re->nprog * sizeof *mark_small);
	} else {
		t = malloc((len + 1) * sizeof *t);
		cl = malloc(re->nprog * sizeof *cl);
		nl = malloc(re->nprog * sizeof *nl);
		r.stack = malloc((2 * re->nprog + 1) * sizeof *r.stack);
		r.mark = calloc(re->nprog, sizeof *r.mark);
	}
	if (!t || !cl || !nl || !r.stack || !r.mark) {
		*nomem = 1;
		goto done;
	}
	while (i < len) {
		bad = 0;
		k = hm_utf8_decode((const unsigned char *)s + i, len - i, &t[n], &bad);
		if (!k) {
			k = bad ? bad : 1;
			t[n] = 0xfffd;
		}
		n++;
		i += k;
	}
	r.re = re;
	r.t = t;
	r.n = n;
	for (i = 0; i <= n && !found; i++) {
		/* A match may start at every position. */
		if (add_thread(&r, cl, &ncl, 0, i)) {
			found = 1;
			break;
		}
		if (i == n)
			break;
		nnl = 0;
		for (j = 0; j < ncl && !found; j++) {
			const re_inst *in = &re->prog[cl[j]];
			int ok = in->op == I_ANY ? !is_line_end(t[i]) : class_match(re, in->x, t[i]);

			if (ok && add_thread(&r, nl, &nnl, cl[j] + 1, i + 1))
				found = 1;
		}
		tmp = cl;
		cl = nl;
		nl = tmp;
		ncl = nnl;
	}
done:
	if (!small) {
		free(t);
		free(cl);
		free(nl);
		free(r.stack);
		free(r.mark);
	}
	return found;
}

int
hm__re_search(const hm_re *re, const char *s, size_t len, int *nomem)
{
	int r;

	if (re->dfa && (r = dfa_search(re, s, len, nomem)) >= 0)
		return r;
	return hm__re_search_nfa(re, s, len, nomem);
}

hm_status
hm__re_compile(const char *pat, size_t len, hm_re **out, char *err, size_t errsz)
{
	int unsupported = 0;

	return compile(pat, len, out, err, errsz, &unsupported);
}

int
hm__re_valid(const char *pat, size_t len, int *nomem)
{
	char err[160];
	hm_re *re;
	int unsupported = 0;
	hm_status st = compile(pat, len, &re, err, sizeof err, &unsupported);

	if (st == HM_OK) {
		hm__re_free(re);
		return 1;
	}
	if (st == HM_ENOMEM)
		*nomem = 1;
	return st == HM_EINPUT && unsupported;
}
