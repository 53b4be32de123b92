/*
 * json_schema.c - a JSON Schema validator (drafts 04, 06, 07, 2019-09 and
 * 2020-12, chosen by `$schema`): the schema is read into the JSON tree
 * once, its resources, `$id`s and references indexed (json_schema_ref.c),
 * then values are checked against it, keyword by keyword, here.  Every
 * problem names the JSON Pointer of the failing value and the keyword.
 * Work is bounded: nesting (and `$ref` chains) at 512 levels, and a
 * budget of steps per value, so a hostile schema or value ends in an
 * error, never a hang or a crash.  Schemas read and the public API:
 * json_schema_load.c; formats: json_schema_fmt.c; numbers:
 * json_schema_num.c; regular expressions: json_regex.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversation_int.h"
#include "json_schema_int.h"

#define MAX_DEPTH 512         /* schemas applied inside one another */
#define BASE_STEPS 10000000u  /* the step budget of one value, before its size */
#define KEEP_PROBLEMS 64      /* problems recorded (all are counted) */

/* ------------------------------------------------------------ problems */

/* One step of the path to the value being checked: a member's name or an index. */
typedef struct pseg {
	const char *k;   /* the name (NULL: an index) */
	size_t n;        /* its length, or the index */
} pseg;

typedef struct vctx {
	hm_schema *s;
	/*
	 * The path to the value being checked, as steps: written out as a
	 * JSON Pointer only when a problem is recorded (most values have none).
	 */
	pseg *seg;
	size_t nseg, capseg;
	pseg inl[32];    /* the first steps: no allocation for most values */
	int quiet;       /* inside anyOf, oneOf, not, if, contains: nothing recorded */
	int aborted;     /* a limit was hit: everything fails from here */
	size_t steps, budget;
	int lazy;        /* the budget's share for the value's size not added yet */
	const hm_jv *value; /* the value checked (its size: the step budget) */
	const hm__res **dyn; /* the dynamic scope: the resources evaluation is in, outermost first */
	size_t ndyn, capdyn;
} vctx; /* out of memory: the schema's flag, c->s->nomem */

/*
 * fmt with ap into msg[0..sz), cut as vsnprintf cuts it: the conversions
 * the messages use (%s, %.*s, %zu, %d, %%) written here, as vsnprintf's
 * setup and dispatch cost more than the message; 0 (nothing sure
 * written) at any other, for vsnprintf to do; else 1, its length in *len.
 */
static int
quick_format(char *msg, size_t sz, const char *fmt, va_list ap, size_t *len)
{
	size_t o = 0, n;
	const char *p;
	char num[24];

	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			if (o + 1 < sz)
				msg[o++] = *fmt;
			continue;
		}
		fmt++;
		if (*fmt == 's') {
			p = va_arg(ap, const char *);
			n = strlen(p);
		} else if (fmt[0] == '.' && fmt[1] == '*' && fmt[2] == 's') {
			int w = va_arg(ap, int);

			p = va_arg(ap, const char *);
			if (w < 0)
				return 0;
			for (n = 0; n < (size_t)w && p[n]; n++)
				;
			fmt += 2;
		} else if ((fmt[0] == 'z' && fmt[1] == 'u') || fmt[0] == 'd') {
			size_t u;
			int neg = 0;

			if (*fmt == 'z') {
				u = va_arg(ap, size_t);
				fmt++;
			} else {
				int d = va_arg(ap, int);

				neg = d < 0;
				u = neg ? -(size_t)(long long)d : (size_t)d;
			}
			n = sizeof num;
			do
				num[--n] = (char)('0' + u % 10);
			while ((u /= 10) != 0);
			if (neg)
				num[--n] = '-';
			p = num + n;
			n = sizeof num - n;
		} else if (*fmt == '%') {
			p = "%";
			n = 1;
		} else
			return 0;
		if (n > sz - 1 - o)
			n = sz - 1 - o;
		memcpy(msg + o, p, n);
		o += n;
	}
	msg[o] = '\0';
	*len = o;
	return 1;
}

static void
record(vctx *c, const char *keyword, const char *fmt, va_list ap)
{
	hm_schema *s = c->s;
	hm__problem *pr;
	char msg[300];
	size_t i, len;
	va_list aq;

	s->nprobs++;
	if (s->nkept >= KEEP_PROBLEMS)
		return;
	if (!s->probs && !(s->probs = malloc(KEEP_PROBLEMS * sizeof *s->probs))) {
		s->nomem = 1;
		return;
	}
	va_copy(aq, ap);
	if (!quick_format(msg, sizeof msg, fmt, aq, &len)) {
		vsnprintf(msg, sizeof msg, fmt, ap);
		len = strlen(msg);
	}
	va_end(aq);
	pr = &s->probs[s->nkept++];
	pr->path = s->text.len;
	for (i = 0; i < c->nseg; i++) {
		const pseg *g = &c->seg[i];
		size_t j;

		hm__putc(&s->nomem, &s->text, '/');
		if (!g->k) {
			hm__addu(&s->nomem, &s->text, g->n);
			continue;
		}
		if (!memchr(g->k, '~', g->n) && !memchr(g->k, '/', g->n)) {
			hm__put(&s->nomem, &s->text, g->k, g->n);
			continue;
		}
		for (j = 0; j < g->n; j++) {
			if (g->k[j] == '~')
				hm__put(&s->nomem, &s->text, "~0", 2);
			else if (g->k[j] == '/')
				hm__put(&s->nomem, &s->text, "~1", 2);
			else
				hm__putc(&s->nomem, &s->text, g->k[j]);
		}
	}
	hm__putc(&s->nomem, &s->text, '\0');
	pr->keyword = s->text.len;
	hm__adds(&s->nomem, &s->text, keyword);
	hm__putc(&s->nomem, &s->text, '\0');
	pr->msg = s->text.len;
	hm__put(&s->nomem, &s->text, msg, len);
	hm__putc(&s->nomem, &s->text, '\0');
}

static int fail_record(vctx *c, const char *keyword, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
fail_record(vctx *c, const char *keyword, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record(c, keyword, fmt, ap);
	va_end(ap);
	return 0;
}

static int abort_check(vctx *c, const char *keyword, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Record a problem (unless quiet); 0, "not valid".  A macro, so that where
 * nothing is recorded (inside anyOf, oneOf, not ...) its arguments are not
 * even worked out.
 */
#define fail(c, ...) ((c)->quiet ? 0 : fail_record((c), __VA_ARGS__))

/* A limit hit: recorded even inside anyOf, and everything fails after it. */
static int
abort_check(vctx *c, const char *keyword, const char *fmt, ...)
{
	va_list ap;

	if (!c->aborted) {
		c->aborted = 1;
		va_start(ap, fmt);
		record(c, keyword, fmt, ap);
		va_end(ap);
	}
	return 0;
}

/* path_push past the steps there is room for: the room doubled (then 0), or 1 out of memory. */
static int
path_grow(vctx *c)
{
	{
		size_t cap = 2 * c->capseg;
		pseg *t = c->seg == c->inl ? malloc(cap * sizeof *t) : realloc(c->seg, cap * sizeof *t);

		if (!t) {
			c->s->nomem = 1;
			return 1;
		}
		if (c->seg == c->inl)
			memcpy(t, c->inl, sizeof c->inl);
		c->seg = t;
		c->capseg = cap;
	}
	return 0;
}

/* A step onto the path (every member checked takes one: inline, the growth apart). */
static inline void
path_push(vctx *c, const char *k, size_t n)
{
	if (c->nseg == c->capseg && path_grow(c))
		return;
	c->seg[c->nseg].k = k;
	c->seg[c->nseg].n = n;
	c->nseg++;
}

static inline void
path_push_key(vctx *c, const char *k, size_t n)
{
	path_push(c, k, n);
}

static inline void
path_push_index(vctx *c, size_t i)
{
	path_push(c, NULL, i);
}

/* ------------------------------------------------------------ values */

int
hm__json_is_integer(const char *s, size_t n)
{
	size_t i = 0, nfrac = 0, zeros = 0;
	long e = 0;
	int nonzero = 0, eneg = 0;

	if (i < n && s[i] == '-')
		i++;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		zeros = s[i] == '0' ? zeros + 1 : 0;
		nonzero |= s[i] != '0';
	}
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, nfrac++) {
			zeros = s[i] == '0' ? zeros + 1 : 0;
			nonzero |= s[i] != '0';
		}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			eneg = s[i++] == '-';
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			if (e < 1000000000L)
				e = e * 10 + (s[i] - '0');
	}
	if (!nonzero)
		return 1;
	return (eneg ? -e : e) - (long)nfrac + (long)zeros >= 0;
}

static const char *
type_word(const hm_jv *v)
{
	switch (v->type) {
	case HM_JV_NULL: return "null";
	case HM_JV_FALSE:
	case HM_JV_TRUE: return "boolean";
	case HM_JV_NUMBER: return hm__json_is_integer(v->s, v->len) ? "integer" : "number";
	case HM_JV_STRING: return "string";
	case HM_JV_ARRAY: return "array";
	case HM_JV_OBJECT: return "object";
	}
	return "value";
}

static int
is_type(const hm_jv *v, const char *t, size_t n, int draft)
{
#define T(w) (n == sizeof w - 1 && !memcmp(t, w, n))
	if (T("string"))
		return v->type == HM_JV_STRING;
	if (T("number"))
		return v->type == HM_JV_NUMBER;
	if (T("integer"))
		return v->type == HM_JV_NUMBER && hm__json_is_integer(v->s, v->len) &&
		    (draft > 4 || !strpbrk(v->s, ".eE")); /* draft-04: 1.0 is not an integer */
	if (T("boolean"))
		return v->type == HM_JV_TRUE || v->type == HM_JV_FALSE;
	if (T("object"))
		return v->type == HM_JV_OBJECT;
	if (T("array"))
		return v->type == HM_JV_ARRAY;
	if (T("null"))
		return v->type == HM_JV_NULL;
#undef T
	return 1; /* a type word JSON Schema does not have ("any") is no constraint */
}

/* A hash that equal values (hm__jv_equal) share. */
static uint64_t
json_hash(const hm_jv *v)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)(v->type == HM_JV_TRUE ? 7 : v->type);
	size_t i;

	switch (v->type) {
	case HM_JV_NUMBER:
		return hm__num_hash(v->s, v->len) * 0x9e3779b97f4a7c15ull;
	case HM_JV_STRING:
		for (i = 0; i < v->len; i++)
			h = (h ^ (unsigned char)v->s[i]) * 0x100000001b3ull;
		return h;
	case HM_JV_ARRAY:
		for (i = 0; i < v->n; i++)
			h = (h ^ json_hash(v->v[i])) * 0x100000001b3ull;
		return h;
	case HM_JV_OBJECT: {
		uint64_t sum = 0;

		for (i = 0; i < v->n; i++) {
			uint64_t k = 0xcbf29ce484222325ull;
			size_t j;

			for (j = 0; j < v->klen[i]; j++)
				k = (k ^ (unsigned char)v->k[i][j]) * 0x100000001b3ull;
			sum += (k ^ json_hash(v->v[i])) * 0x9e3779b97f4a7c15ull;
		}
		return h ^ sum;
	}
	default:
		return h;
	}
}

typedef struct hashed {
	uint64_t h;
	size_t i;
} hashed;

static int
hashed_cmp(const void *a, const void *b)
{
	const hashed *x = a, *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * The first index j whose item equals an earlier one (*first it), or 0
 * (out of memory too: *nomem set, the caller's flag).
 */
static size_t
first_duplicate(int *nomem, const hm_jv *arr, size_t *first)
{
	hashed *hs;
	size_t i, j, n = arr->n, dup = 0;

	if (n < 2)
		return 0;
	if (!(hs = malloc(n * sizeof *hs))) {
		*nomem = 1;
		return 0;
	}
	for (i = 0; i < n; i++) {
		hs[i].h = json_hash(arr->v[i]);
		hs[i].i = i;
	}
	qsort(hs, n, sizeof *hs, hashed_cmp);
	for (i = 0; i < n && !dup; i = j) {
		size_t a, b;

		for (j = i + 1; j < n && hs[j].h == hs[i].h; j++)
			;
		for (a = i; a < j && !dup; a++)
			for (b = a + 1; b < j; b++)
				if (hm__jv_equal(arr->v[hs[a].i], arr->v[hs[b].i])) {
					dup = hs[b].i;
					*first = hs[a].i;
					break;
				}
	}
	free(hs);
	return dup;
}

static size_t
utf8_count(const char *s, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += ((unsigned char)s[i] & 0xc0) != 0x80;
	return k;
}

/* At most max bytes of s[0..n), not cutting a UTF-8 sequence, as an int for %.*s. */
static int
cut(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return (int)n;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return (int)max;
}

/* A short rendering of a value for messages. */
static const char *
brief(const hm_jv *v, char *buf, size_t n)
{
	if (v->type == HM_JV_STRING)
		snprintf(buf, n, "\"%.*s%s\"", cut(v->s, v->len, 40), v->s, v->len > 40 ? "..." : "");
	else if (v->type == HM_JV_NUMBER)
		snprintf(buf, n, "%.40s", v->s);
	else
		snprintf(buf, n, "%s", type_word(v));
	return buf;
}

/* ------------------------------------------------------------ validation */

/*
 * A value's type as a bit, and the bits a `type` keyword allows (TY_SET:
 * worked out; a `type` that is neither a string nor a list is no
 * constraint and is left to val_type).
 */
#define TY_NULL 1u
#define TY_BOOL 2u
#define TY_OBJECT 4u
#define TY_ARRAY 8u
#define TY_NUMBER 16u
#define TY_STRING 32u
#define TY_INTEGER 64u /* whole numbers (draft-04: without a fraction or exponent) */
#define TY_ANY 128u    /* a word JSON Schema does not have ("any"): no constraint */
#define TY_SET 256u

typedef struct kw kw;

#define F_REF 1u      /* $ref */
#define F_DYN 2u      /* $dynamicRef, $recursiveRef */
#define F_EQ 4u       /* enum, const */
#define F_OBJ 8u      /* keywords on objects */
#define F_ARR 16u     /* on arrays */
#define F_STR 32u     /* on strings */
#define F_NUM 64u     /* on numbers */
#define F_APPLY 128u  /* allOf, anyOf, oneOf, not, if */
#define F_UNE 256u    /* unevaluatedProperties, unevaluatedItems */
#define F_DEPS 512u   /* dependencies, dependentRequired, dependentSchemas */

/* A member of `properties` in an open-addressing table by name (k NULL: an empty slot). */
typedef struct kprop {
	const char *k;
	size_t n;
	uint32_t h;
	const hm_jv *sch;
	kw *node;        /* compiled on first use */
	uint64_t req;    /* the places in `required` naming it (kw's reqbits) */
} kprop;

/* A number's text as an int64 when it is a plain whole number of at most 18 digits. */
typedef struct kint {
	int ok;
	int64_t v;
} kint;

/*
 * A schema compiled (s->kws, by the schema's node): its keywords found in
 * one pass over its members, and what checking a value would otherwise
 * work out again for every value read ahead: `type` as bits, bounds as
 * integers, `properties` as a hash table, the compiled `pattern`, and the
 * compiled subschemas (n_*: filled on first use, so a $ref loop or a
 * schema never used costs nothing; a $ref's target once resolved).
 */
struct kw {
	const hm_jv *sch;
	int kind;        /* sch->type: TRUE, FALSE, OBJECT; anything else is no constraint */
	const hm_jv *type, *enum_, *const_, *ref, *props, *patprops, *addprops, *required;
	const hm_jv *items, *prefix, *additems, *contains, *mincont, *maxcont;
	const hm_jv *allof, *anyof, *oneof, *not_, *if_, *then_, *else_;
	const hm_jv *minlen, *maxlen, *pattern, *format;
	const hm_jv *min, *max, *xmin, *xmax, *mult;
	const hm_jv *minitems, *maxitems, *unique, *minprops, *maxprops, *propnames;
	const hm_jv *deps, *depreq, *depsch, *nullable;
	const hm_jv *dynref, *recref, *uneprops, *uneitems;
	/* read ahead */
	unsigned flags;  /* F_*: the groups of keywords present, each skipped at once when absent */
	int leaf;        /* `type` and annotations only ({"type":"string","description":..}) */
	int refonly;     /* `$ref` and annotations only ({"$ref":"#/$defs/day"}) */
	unsigned char accept[HM_JV_OBJECT + 1]; /* by value type: `type` holds (1), not (0), whole numbers only (2) */
	unsigned types;
	kint min_i, max_i, xmin_i, xmax_i;
	kprop *ptab;     /* properties (an object), pmask + 1 slots; or ... */
	size_t pmask;
	size_t plin;     /* ... a few, in order, looked through (no hashing): how many */
	/*
	 * Every name of `required` (at most 64, strings) is in `properties`:
	 * reqall has a bit for each place, and the members' entries, found
	 * anyway, tell whether all are there without looking each name up.
	 */
	uint64_t reqall;
	const hm_re *re; /* pattern's */
	const hm_re **pre; /* patternProperties', by member */
	kw **n_pat;
	const hm_jv *tuple, *rest; /* the items by place (prefixItems, or items as a list) and the rest */
	const char *restkw;
	kw **n_tuple, **n_allof, **n_anyof, **n_oneof;
	kw *n_rest, *n_addprops, *n_propnames, *n_contains, *n_not, *n_if, *n_then, *n_else;
	kw *n_uneprops, *n_uneitems, *n_ref;
	/*
	 * oneOf's branches told apart by one member's `const` (disc_of):
	 * disc_state 0 not worked out, 1 none, 2 disc[i] is branch i's
	 * constant for the member disc_key (NULL: none known, tried always).
	 */
	int disc_state;
	const char *disc_key;
	size_t disc_klen;
	const hm_jv **disc;
};

/*
 * Keywords by the drafts they are in (lo..hi) and their vocabulary, in
 * strcmp order (bsearch).
 */
#define A HM__VOC_APPLICATOR
#define V HM__VOC_VALIDATION
#define U HM__VOC_UNEVALUATED
static const struct keyword {
	const char *name;
	size_t off;
	short lo, hi;
	unsigned char voc;
} KEYWORDS[] = {
#define K(w, f, lo, hi, voc) { w, offsetof(kw, f), lo, hi, voc },
	K("$dynamicRef", dynref, 2020, 2020, 0)
	K("$recursiveRef", recref, 2019, 2019, 0)
	K("$ref", ref, 4, 2020, 0)
	K("additionalItems", additems, 4, 2020, A)
	K("additionalProperties", addprops, 4, 2020, A)
	K("allOf", allof, 4, 2020, A)
	K("anyOf", anyof, 4, 2020, A)
	K("const", const_, 6, 2020, V)
	K("contains", contains, 6, 2020, A)
	K("dependencies", deps, 4, 2020, A)
	K("dependentRequired", depreq, 2019, 2020, V)
	K("dependentSchemas", depsch, 2019, 2020, A)
	K("else", else_, 7, 2020, A)
	K("enum", enum_, 4, 2020, V)
	K("exclusiveMaximum", xmax, 4, 2020, V)
	K("exclusiveMinimum", xmin, 4, 2020, V)
	K("format", format, 4, 2020, 0)
	K("if", if_, 7, 2020, A)
	K("items", items, 4, 2020, A)
	K("maxContains", maxcont, 2019, 2020, V)
	K("maxItems", maxitems, 4, 2020, V)
	K("maxLength", maxlen, 4, 2020, V)
	K("maxProperties", maxprops, 4, 2020, V)
	K("maximum", max, 4, 2020, V)
	K("minContains", mincont, 2019, 2020, V)
	K("minItems", minitems, 4, 2020, V)
	K("minLength", minlen, 4, 2020, V)
	K("minProperties", minprops, 4, 2020, V)
	K("minimum", min, 4, 2020, V)
	K("multipleOf", mult, 4, 2020, V)
	K("not", not_, 4, 2020, A)
	K("nullable", nullable, 4, 2020, V)
	K("oneOf", oneof, 4, 2020, A)
	K("pattern", pattern, 4, 2020, V)
	K("patternProperties", patprops, 4, 2020, A)
	K("prefixItems", prefix, 2020, 2020, A)
	K("properties", props, 4, 2020, A)
	K("propertyNames", propnames, 6, 2020, A)
	K("required", required, 4, 2020, V)
	K("then", then_, 7, 2020, A)
	K("type", type, 4, 2020, V)
	K("unevaluatedItems", uneitems, 2019, 2020, U)
	K("unevaluatedProperties", uneprops, 2019, 2020, U)
	K("uniqueItems", unique, 4, 2020, V)
#undef K
};
#undef A
#undef V
#undef U

static int
keyword_cmp(const void *key, const void *ent)
{
	return strcmp(key, ((const struct keyword *)ent)->name);
}

/* The keywords of schema object s (k zeroed by the caller). */
static void
read_keywords(const hm_jv *s, const hm__res *r, kw *k)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		const struct keyword *w;

		if (s->k[i][0] < '$' || !(w = bsearch(s->k[i], KEYWORDS, sizeof KEYWORDS / sizeof *KEYWORDS,
		    sizeof *KEYWORDS, keyword_cmp)))
			continue;
		if (r->draft < w->lo || r->draft > w->hi || (w->voc && !(r->voc & w->voc)))
			continue;
		*(const hm_jv **)((char *)k + w->off) = s->v[i];
	}
	/* 2020-12: additionalItems goes with a list of items (draft-07's form, kept) */
	if (r->draft == 2020 && k->prefix)
		k->additems = NULL;
}

/* A hash of s[0..n), eight bytes at a time (a member's name is looked up once per member checked). */
static uint32_t
str_hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	size_t i;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	for (w = 0, i = 0; i < n; i++)
		w |= (uint64_t)(unsigned char)s[i] << (8 * i);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 32;
	return (uint32_t)h;
}

/*
 * Whether a[0..n) and b[0..n) are the same bytes: member names are short,
 * so words are compared inline (4 to 7 bytes: two words that overlap)
 * rather than through a call to memcmp.
 */
static inline int
same_bytes(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	uint32_t u, w;

	for (; n >= 8; a += 8, b += 8, n -= 8) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return 0;
	}
	if (n >= 4) {
		memcpy(&u, a, 4);
		memcpy(&w, b, 4);
		if (u != w)
			return 0;
		memcpy(&u, a + n - 4, 4);
		memcpy(&w, b + n - 4, 4);
		return u == w;
	}
	for (; n > 0; a++, b++, n--)
		if (*a != *b)
			return 0;
	return 1;
}

/* Number text s[0..n) as an int64 when it is a plain whole number of at most 18 digits. */
static kint
int_of(const char *s, size_t n)
{
	kint r = { 0, 0 };
	size_t i = 0;
	int neg = 0;

	if (i < n && s[i] == '-')
		neg = 1, i++;
	if (i == n || n - i > 18)
		return r;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return r;
		r.v = r.v * 10 + (s[i] - '0');
	}
	if (neg)
		r.v = -r.v;
	r.ok = 1;
	return r;
}

static kint
bound_of(const hm_jv *b)
{
	kint none = { 0, 0 };

	return b && b->type == HM_JV_NUMBER && b->s ? int_of(b->s, b->len) : none;
}

/* The TY_* bits of type word t[0..n). */
static unsigned
type_bit(const char *t, size_t n)
{
#define T(w) (n == sizeof w - 1 && !memcmp(t, w, n))
	if (T("string"))
		return TY_STRING;
	if (T("number"))
		return TY_NUMBER;
	if (T("integer"))
		return TY_INTEGER;
	if (T("boolean"))
		return TY_BOOL;
	if (T("object"))
		return TY_OBJECT;
	if (T("array"))
		return TY_ARRAY;
	if (T("null"))
		return TY_NULL;
#undef T
	return TY_ANY;
}

static kw **
node_list(int *nomem, const hm_jv *l)
{
	kw **t;

	if (!l || l->type != HM_JV_ARRAY)
		return NULL;
	if (!(t = calloc(l->n ? l->n : 1, sizeof *t)))
		*nomem = 1;
	return t;
}

static void
kw_free(kw *k)
{
	free(k->ptab);
	free(k->pre);
	free(k->n_pat);
	free(k->n_tuple);
	free(k->n_allof);
	free(k->n_anyof);
	free(k->n_oneof);
	free(k->disc);
	free(k);
}

/* Schema sch compiled (see kw), or NULL when out of memory (s->nomem set). */
static kw *
compile_node(hm_schema *s, const hm_jv *sch, const hm__res *res)
{
	kw *k = calloc(1, sizeof *k);
	size_t i;

	if (!k) {
		s->nomem = 1;
		return NULL;
	}
	k->sch = sch;
	k->kind = sch->type;
	if (sch->type != HM_JV_OBJECT)
		return k;
	read_keywords(sch, res, k);
	if (k->type && k->type->type == HM_JV_STRING)
		k->types = TY_SET | type_bit(k->type->s, k->type->len);
	else if (k->type && k->type->type == HM_JV_ARRAY) {
		k->types = TY_SET;
		for (i = 0; i < k->type->n; i++)
			if (k->type->v[i]->type == HM_JV_STRING)
				k->types |= type_bit(k->type->v[i]->s, k->type->v[i]->len);
	}
	if (k->types) {
		unsigned m = k->types & TY_ANY ? ~0u : k->types;

		k->accept[HM_JV_NULL] = (m & TY_NULL) != 0;
		k->accept[HM_JV_FALSE] = k->accept[HM_JV_TRUE] = (m & TY_BOOL) != 0;
		k->accept[HM_JV_OBJECT] = (m & TY_OBJECT) != 0;
		k->accept[HM_JV_ARRAY] = (m & TY_ARRAY) != 0;
		k->accept[HM_JV_STRING] = (m & TY_STRING) != 0;
		k->accept[HM_JV_NUMBER] = m & TY_NUMBER ? 1 : m & TY_INTEGER ? 2 : 0;
	}
	k->min_i = bound_of(k->min);
	k->max_i = bound_of(k->max);
	k->xmin_i = bound_of(k->xmin);
	k->xmax_i = bound_of(k->xmax);
	if (k->props && k->props->type == HM_JV_OBJECT && k->props->n <= 8) {
		/* a few names: compared in turn, a length and a byte ruling most out */
		if (!(k->ptab = calloc(k->props->n ? k->props->n : 1, sizeof *k->ptab)))
			goto nomem;
		for (i = 0; i < k->props->n; i++) {
			size_t j;

			k->ptab[i].k = k->props->k[i];
			k->ptab[i].n = k->props->klen[i];
			k->ptab[i].sch = k->props->v[i];
			/* a name given twice: the last one, as hm__jv_member has it; the earlier never matches */
			for (j = 0; j < i; j++)
				if (k->ptab[j].n == k->ptab[i].n && !memcmp(k->ptab[j].k, k->ptab[i].k, k->ptab[i].n))
					k->ptab[j].n = (size_t)-1;
		}
		k->plin = k->props->n;
	} else if (k->props && k->props->type == HM_JV_OBJECT) {
		size_t cap = 8;

		while (cap < 2 * k->props->n)
			cap *= 2;
		if (!(k->ptab = calloc(cap, sizeof *k->ptab)))
			goto nomem;
		k->pmask = cap - 1;
		/* a name given twice: the last one, as hm__jv_member has it */
		for (i = 0; i < k->props->n; i++) {
			uint32_t h = str_hash(k->props->k[i], k->props->klen[i]);
			size_t j;

			for (j = h & k->pmask; k->ptab[j].k; j = (j + 1) & k->pmask)
				if (k->ptab[j].n == k->props->klen[i] &&
				    !memcmp(k->ptab[j].k, k->props->k[i], k->props->klen[i]))
					break;
			k->ptab[j].k = k->props->k[i];
			k->ptab[j].n = k->props->klen[i];
			k->ptab[j].h = h;
			k->ptab[j].sch = k->props->v[i];
		}
	}
	if (k->ptab && k->required && k->required->type == HM_JV_ARRAY && k->required->n <= 64) {
		uint64_t all = 0;

		for (i = 0; i < k->required->n; i++) {
			const hm_jv *r = k->required->v[i];
			size_t j, nslot = k->plin ? k->plin : k->pmask + 1, found = 0;

			if (r->type != HM_JV_STRING)
				break;
			for (j = 0; j < nslot; j++)
				if (k->ptab[j].k && k->ptab[j].n == r->len && !memcmp(k->ptab[j].k, r->s, r->len)) {
					k->ptab[j].req |= (uint64_t)1 << i;
					found = 1;
				}
			if (!found)
				break;
			all |= (uint64_t)1 << i;
		}
		if (i == k->required->n)
			k->reqall = all;
		else
			for (i = 0; i <= (k->plin ? k->plin - 1 : k->pmask); i++)
				k->ptab[i].req = 0;
	}
	if (k->patprops && k->patprops->type == HM_JV_OBJECT) {
		if (!(k->pre = calloc(k->patprops->n ? k->patprops->n : 1, sizeof *k->pre)) ||
		    !(k->n_pat = calloc(k->patprops->n ? k->patprops->n : 1, sizeof *k->n_pat)))
			goto nomem;
	}
	/* 2020-12: prefixItems then items; draft-07: items as a list then additionalItems. */
	k->restkw = "items";
	if (k->prefix && k->prefix->type == HM_JV_ARRAY) {
		k->tuple = k->prefix;
		k->rest = k->items;
	} else if (k->items && k->items->type == HM_JV_ARRAY) {
		k->tuple = k->items;
		k->rest = k->additems;
		k->restkw = "additionalItems";
	} else
		k->rest = k->items;
	k->n_tuple = node_list(&s->nomem, k->tuple);
	k->n_allof = node_list(&s->nomem, k->allof);
	k->n_anyof = node_list(&s->nomem, k->anyof);
	k->n_oneof = node_list(&s->nomem, k->oneof);
#define HAS(f, x) (k->flags |= (x) ? (f) : 0)
	HAS(F_REF, k->ref && k->ref->type == HM_JV_STRING);
	HAS(F_DYN, k->dynref || k->recref);
	HAS(F_EQ, k->enum_ || k->const_);
	HAS(F_DEPS, k->deps || k->depreq || k->depsch);
	HAS(F_OBJ, k->required || k->minprops || k->maxprops || k->ptab || k->pre || k->addprops ||
	    k->propnames || (k->flags & F_DEPS));
	HAS(F_ARR, k->minitems || k->maxitems || k->unique || k->tuple || k->rest || k->contains);
	HAS(F_STR, k->minlen || k->maxlen || k->pattern || k->format);
	HAS(F_NUM, k->min || k->max || k->xmin || k->xmax || k->mult);
	HAS(F_APPLY, k->n_allof || k->n_anyof || k->n_oneof || k->not_ || k->if_);
	HAS(F_UNE, k->uneprops || k->uneitems);
#undef HAS
	k->leaf = !k->flags && (k->types & TY_SET) && !(k->types & TY_ANY) && !k->nullable;
	k->refonly = k->flags == F_REF && !k->type;
	if (!s->nomem)
		return k;
nomem:
	s->nomem = 1;
	kw_free(k);
	return NULL;
}

/*
 * Annotations for unevaluatedProperties and unevaluatedItems: which
 * members or items of one value the keywords that apply to it evaluated.
 */
typedef struct ann {
	unsigned char *seen; /* a byte a member or item */
	size_t n;
} ann;

static int
ann_init(vctx *c, ann *a, const hm_jv *v)
{
	a->n = v->n;
	if (!(a->seen = calloc(v->n ? v->n : 1, 1))) {
		c->s->nomem = 1;
		return 0;
	}
	return 1;
}

/* Merge b into a (a may be NULL: nothing to do), then free b. */
static void
ann_merge(ann *a, ann *b)
{
	size_t i;

	if (a && b->seen)
		for (i = 0; i < a->n && i < b->n; i++)
			a->seen[i] |= b->seen[i];
	free(b->seen);
	b->seen = NULL;
}

/*
 * The compiled form of schema sch (any JSON value), compiled on first use
 * and kept (s->kws); NULL when out of memory.
 */
static kw *
node_of(vctx *c, const hm_jv *sch)
{
	void **slot = hm__ptrmap_find(&c->s->kws, sch);
	kw *k;

	if (slot)
		return *slot;
	if (!(k = compile_node(c->s, sch, c->s->track ? hm__schema_res_of(c->s, sch) : c->s->res[0])))
		return NULL;
	if (hm__ptrmap_put(&c->s->kws, sch, k) != HM_OK) {
		kw_free(k);
		c->s->nomem = 1;
		return NULL;
	}
	return k;
}

/* The compiled subschema sch, kept in *slot. */
static kw *
sub(vctx *c, kw **slot, const hm_jv *sch)
{
	if (!*slot)
		*slot = node_of(c, sch);
	return *slot;
}

static int val_node(vctx *c, kw *k, const hm_jv *v, int depth, ann *a);

/* Validate v against k, recording nothing (for anyOf, oneOf, not, if, contains). */
static int
val_quiet(vctx *c, kw *k, const hm_jv *v, int depth, ann *a)
{
	int r;

	c->quiet++;
	r = val_node(c, k, v, depth, a);
	c->quiet--;
	return r;
}

/*
 * k applied to v in place (allOf, $ref ...): its annotations go into a
 * (may be NULL) when it holds.  quiet: recording nothing.
 */
static int
val_in_place(vctx *c, kw *k, const hm_jv *v, int depth, ann *a, int quiet)
{
	ann t = {0};
	int r;

	if (!a && !quiet)
		return val_node(c, k, v, depth, NULL);
	if (a && !ann_init(c, &t, v))
		return 0;
	c->quiet += quiet;
	r = val_node(c, k, v, depth, a ? &t : NULL);
	c->quiet -= quiet;
	if (r)
		ann_merge(a, &t);
	free(t.seen);
	return r;
}

/*
 * The compiled regex of pattern string p (cached) into *out: HM_EINPUT
 * with why[0..whysz) saying what is wrong; HM_ENOMEM (c->s->nomem set).
 */
static hm_status
regex_of(vctx *c, const void *key, const char *p, size_t n, const hm_re **out, char *why,
         size_t whysz)
{
	void **slot = hm__ptrmap_find(&c->s->res_re, key);
	hm_re *re;
	hm_status st;

	if (slot) {
		*out = *slot;
		return HM_OK;
	}
	*out = NULL;
	if ((st = hm__re_compile(p, n, &re, why, whysz)) != HM_OK) {
		if (st == HM_ENOMEM)
			c->s->nomem = 1;
		return st;
	}
	if (hm__ptrmap_put(&c->s->res_re, key, re) != HM_OK) {
		hm__re_free(re);
		c->s->nomem = 1;
		return HM_ENOMEM;
	}
	*out = re;
	return HM_OK;
}

/*
 * 1 when pattern (key: its cache key; *slot: its regex once compiled)
 * matches s[0..n); 0 not; -1 it cannot be used (a bad pattern, recorded;
 * out of memory, c->s->nomem).
 */
static int
pattern_match(vctx *c, const hm_re **slot, const void *key, const char *pat, size_t plen,
              const char *s, size_t n, const char *keyword)
{
	char why[160];
	int r;

	if (!*slot) {
		hm_status st = regex_of(c, key, pat, plen, slot, why, sizeof why);

		if (st != HM_OK) {
			if (st == HM_EINPUT)
				abort_check(c, keyword, "cannot use pattern \"%.*s\": %s", cut(pat, plen, 60), pat, why);
			return -1;
		}
	}
	r = hm__re_search(*slot, s, n, &c->s->nomem);
	return c->s->nomem ? -1 : r;
}

static double
num_of(const hm_jv *v)
{
	return v->num;
}

/* A short rendering of v for a message, not made where nothing is recorded (b: the caller's buffer). */
#define BRIEF(v) (c->quiet ? "" : brief((v), b, sizeof b))

static int
check_format(vctx *c, const hm_jv *f, const hm_jv *v)
{
	char b[64];

	if (f->type != HM_JV_STRING || v->type != HM_JV_STRING)
		return 1;
	if (hm__schema_format(f->s, v->s, v->len, &c->s->nomem) == 0)
		return fail(c, "format", "%s is not a valid %s", BRIEF(v), f->s);
	return 1;
}

/* Whether v is of a type k's `type` allows, from its table (k->types has TY_SET). */
static inline int
type_ok(const kw *k, const hm_jv *v, int draft)
{
	int a = k->accept[v->type];

	if (a < 2)
		return a;
	if (int_of(v->s, v->len).ok)
		return 1;
	return hm__json_is_integer(v->s, v->len) && (draft > 4 || !strpbrk(v->s, ".eE"));
}

static int
val_type(vctx *c, const hm_jv *t, const hm_jv *v, const kw *k, int draft)
{
	size_t i;
	hm_buf w = {0};

	if (v->type == HM_JV_NULL && k->nullable && k->nullable->type == HM_JV_TRUE)
		return 1;
	if (t->type == HM_JV_STRING) {
		if (is_type(v, t->s, t->len, draft))
			return 1;
		return fail(c, "type", "expected %s, got %s", t->s, type_word(v));
	}
	if (t->type != HM_JV_ARRAY)
		return 1;
	for (i = 0; i < t->n; i++)
		if (t->v[i]->type == HM_JV_STRING && is_type(v, t->v[i]->s, t->v[i]->len, draft))
			return 1;
	if (c->quiet)
		return 0;
	for (i = 0; i < t->n; i++)
		if (t->v[i]->type == HM_JV_STRING) {
			if (w.len)
				hm__adds(&c->s->nomem, &w, " or ");
			hm__add(&c->s->nomem, &w, t->v[i]->s, t->v[i]->len);
		}
	hm__putc(&c->s->nomem, &w, '\0');
	fail(c, "type", "expected %s, got %s", w.p && w.p[0] ? w.p : "no type", type_word(v));
	hm_buf_free(&w);
	return 0;
}

/*
 * Whether o has a member named k[0..n), through set (o's keys hashed)
 * when there is one: past a few members a scan per lookup would be
 * quadratic (50,000 required properties).
 */
static int
has_member(const hm_jv *o, const hm_strset *set, const char *k, size_t n)
{
	size_t i;

	if (set->cap)
		return hm__strset_find(set, k, n) != (size_t)-1;
	for (i = 0; i < o->n; i++)
		if (o->klen[i] == n && same_bytes(o->k[i], k, n))
			return 1;
	return 0;
}

/*
 * The entry of `properties` named key[0..n), or NULL (inline at both its
 * uses: most of its cost is the call).  *next: where a few names, in
 * order, are looked through from (the one after the last found: members
 * mostly come in the schema's order); a name is in them once (compile).
 */
static inline __attribute__((always_inline)) kprop *
prop_find(const kw *k, const char *key, size_t n, size_t *next)
{
	uint32_t h;
	size_t i, t;

	if (k->plin) {
		for (t = 0, i = *next; t < k->plin; t++, i++) {
			if (i == k->plin)
				i = 0;
			if (k->ptab[i].n == n && same_bytes(k->ptab[i].k, key, n)) {
				*next = i + 1;
				return &k->ptab[i];
			}
		}
		return NULL;
	}
	h = str_hash(key, n);

	for (i = h & k->pmask; k->ptab[i].k; i = (i + 1) & k->pmask)
		if (k->ptab[i].h == h && k->ptab[i].n == n && same_bytes(k->ptab[i].k, key, n))
			return &k->ptab[i];
	return NULL;
}

/*
 * A member's or an item's schema applied to it: most are a `type` alone
 * (and annotations), and one that holds is settled here, counted as a
 * step as val_node counts it; anything else (a limit near, the type not
 * held, the dynamic scope followed) goes through val_node.
 */
static inline int
val_child(vctx *c, kw *k, const hm_jv *v, int depth)
{
	if (k && k->leaf && c->steps < c->budget && depth <= MAX_DEPTH && !c->s->track &&
	    !c->s->nomem && !c->aborted) {
		/* where nothing is recorded the type decides either way */
		if (type_ok(k, v, c->s->res[0]->draft)) {
			c->steps++;
			return 1;
		}
		if (c->quiet) {
			c->steps++;
			return 0;
		}
	}
	return val_node(c, k, v, depth, NULL);
}

/* Where nothing is recorded (quiet) the first problem decides: the rest is not looked at. */
#define SETTLED() (!ok && c->quiet)

static int
val_object(vctx *c, kw *k, const hm_jv *v, int depth, ann *a)
{
	size_t i, j, mark = c->nseg, next = 0;
	int ok = 1, found = 0;
	hm_strset vkeys = {0};
	kprop *pm[16];

	/* the members' `properties` entries first: where they hold every required name, `required` holds */
	if (k->reqall && v->n <= 16) {
		uint64_t got = 0;

		for (i = 0; i < v->n; i++)
			if ((pm[i] = prop_find(k, v->k[i], v->klen[i], &next)))
				got |= pm[i]->req;
		found = 1;
		if ((got & k->reqall) == k->reqall)
			goto required_held;
	}
	if (v->n > 8 && k->required && k->required->type == HM_JV_ARRAY && k->required->n > 8 &&
	    hm__strset_keys(&vkeys, v) != HM_OK)
		c->s->nomem = 1;
	if (k->required && k->required->type == HM_JV_ARRAY)
		for (i = 0; i < k->required->n && !c->s->nomem && !SETTLED(); i++) {
			const hm_jv *r = k->required->v[i];

			if (r->type == HM_JV_STRING && !has_member(v, &vkeys, r->s, r->len))
				ok = fail(c, "required", "missing property \"%.*s\"", cut(r->s, r->len, 80), r->s);
		}
required_held:
	if (k->minprops && k->minprops->type == HM_JV_NUMBER && (double)v->n < num_of(k->minprops))
		ok = fail(c, "minProperties", "%zu properties, fewer than %s", v->n, k->minprops->s);
	if (k->maxprops && k->maxprops->type == HM_JV_NUMBER && (double)v->n > num_of(k->maxprops))
		ok = fail(c, "maxProperties", "%zu properties, more than %s", v->n, k->maxprops->s);
	for (i = 0; i < v->n && !c->aborted && !SETTLED(); i++) {
		const char *key = v->k[i];
		size_t kl = v->klen[i];
		int seen = 0;

		path_push_key(c, key, kl);
		if (k->ptab) {
			kprop *p = found ? pm[i] : prop_find(k, key, kl, &next);

			if (p) {
				seen = 1;
				if (!val_child(c, sub(c, &p->node, p->sch), v->v[i], depth + 1))
					ok = 0;
			}
		}
		if (k->pre)
			for (j = 0; j < k->patprops->n; j++) {
				int m = pattern_match(c, &k->pre[j], k->patprops->k[j], k->patprops->k[j],
				    k->patprops->klen[j], key, kl, "patternProperties");

				if (m < 0) {
					ok = 0;
					break;
				}
				if (m) {
					seen = 1;
					if (!val_node(c, sub(c, &k->n_pat[j], k->patprops->v[j]), v->v[i], depth + 1,
					    NULL))
						ok = 0;
				}
			}
		if (!seen && k->addprops) {
			seen = 1;
			if (k->addprops->type == HM_JV_FALSE)
				ok = fail(c, "additionalProperties", "property \"%.*s\" is not allowed", cut(key, kl, 80), key);
			else if (!val_node(c, sub(c, &k->n_addprops, k->addprops), v->v[i], depth + 1, NULL))
				ok = 0;
		}
		if (seen && a)
			a->seen[i] = 1;
		if (k->propnames) {
			hm_jv name;

			memset(&name, 0, sizeof name);
			name.type = HM_JV_STRING;
			name.s = v->k[i];
			name.len = kl;
			if (!val_quiet(c, sub(c, &k->n_propnames, k->propnames), &name, depth + 1, NULL))
				ok = fail(c, "propertyNames", "the name \"%.*s\" is not allowed", cut(key, kl, 80), key);
		}
		c->nseg = mark;
	}
	/* dependencies (draft-07), dependentRequired and dependentSchemas */
	for (j = 0; (k->flags & F_DEPS) && j < 3 && !SETTLED(); j++) {
		const hm_jv *d = j == 0 ? k->deps : j == 1 ? k->depreq : k->depsch;

		if (!d || d->type != HM_JV_OBJECT)
			continue;
		for (i = 0; i < d->n; i++) {
			const hm_jv *dv = d->v[i];
			size_t r;

			if (!hm__jv_member(v, d->k[i], d->klen[i]))
				continue;
			if (dv->type == HM_JV_ARRAY) {
				for (r = 0; r < dv->n; r++)
					if (dv->v[r]->type == HM_JV_STRING &&
					    !hm__jv_member(v, dv->v[r]->s, dv->v[r]->len))
						ok = fail(c, j == 0 ? "dependencies" : "dependentRequired",
						    "property \"%.*s\" needs property \"%.*s\"", cut(d->k[i], d->klen[i], 60),
						    d->k[i], cut(dv->v[r]->s, dv->v[r]->len, 60), dv->v[r]->s);
			} else if (j != 1 && !val_in_place(c, node_of(c, dv), v, depth + 1, a, 0))
				ok = 0;
		}
	}
	if (vkeys.cap)
		hm__strset_free(&vkeys);
	return ok;
}

static int
val_array(vctx *c, kw *k, const hm_jv *v, int depth, int draft, ann *a)
{
	size_t i, ntuple = k->tuple ? k->tuple->n : 0, mark = c->nseg, first;
	int ok = 1;
	size_t dup;

	if (k->minitems && k->minitems->type == HM_JV_NUMBER && (double)v->n < num_of(k->minitems))
		ok = fail(c, "minItems", "%zu items, fewer than %s", v->n, k->minitems->s);
	if (k->maxitems && k->maxitems->type == HM_JV_NUMBER && (double)v->n > num_of(k->maxitems))
		ok = fail(c, "maxItems", "%zu items, more than %s", v->n, k->maxitems->s);
	if (SETTLED())
		return 0;
	if (k->unique && k->unique->type == HM_JV_TRUE) {
		if ((dup = first_duplicate(&c->s->nomem, v, &first)) > 0)
			ok = fail(c, "uniqueItems", "items %zu and %zu are equal", first, dup);
	}
	for (i = 0; i < v->n && !c->aborted && !SETTLED(); i++) {
		kw *is;

		if (i < ntuple)
			is = sub(c, &k->n_tuple[i], k->tuple->v[i]);
		else if (k->rest)
			is = sub(c, &k->n_rest, k->rest);
		else
			continue;
		if (a)
			a->seen[i] = 1;
		path_push_index(c, i);
		if (is && is->kind == HM_JV_FALSE && i >= ntuple)
			ok = fail(c, k->restkw, "no item allowed past the first %zu", ntuple);
		else if (!val_child(c, is, v->v[i], depth + 1))
			ok = 0;
		c->nseg = mark;
	}
	if (k->contains && !SETTLED()) {
		size_t nmatch = 0;
		double lo = 1, hi = -1;
		kw *ck = sub(c, &k->n_contains, k->contains);

		for (i = 0; i < v->n && !c->aborted; i++)
			if (val_quiet(c, ck, v->v[i], depth + 1, NULL)) {
				nmatch++;
				/* 2020-12: the items contains matched are evaluated */
				if (a && draft >= 2020)
					a->seen[i] = 1;
			}
		if (k->mincont && k->mincont->type == HM_JV_NUMBER)
			lo = num_of(k->mincont);
		if (k->maxcont && k->maxcont->type == HM_JV_NUMBER)
			hi = num_of(k->maxcont);
		if ((double)nmatch < lo)
			ok = fail(c, lo == 1 ? "contains" : "minContains",
			    "%zu items match the contains schema, fewer than %g", nmatch, lo);
		if (hi >= 0 && (double)nmatch > hi)
			ok = fail(c, "maxContains", "%zu items match the contains schema, more than %g",
			    nmatch, hi);
	}
	return ok;
}

/* A reason after "cannot resolve ...": " (why)", or nothing (three %s). */
#define WHY(w) (w) ? " (" : "", (w) ? (w) : "", (w) ? ")" : ""

/* The target of reference r (resolved once), or NULL when it names nothing. */
static const hm_jv *
ref_target(vctx *c, hm__ref *r)
{
	if (!r->tried) {
		c->s->doc_err[0] = '\0';
		r->target = hm__schema_resolve(c->s, r->uri);
		if (!r->target && c->s->doc_err[0] && !(r->why = hm__memdup(c->s->doc_err, strlen(c->s->doc_err))))
			c->s->nomem = 1;
		if (c->s->nomem)
			return NULL;
		r->tried = 1;
	}
	return r->target;
}

static int
val_ref(vctx *c, kw *k, const hm_jv *v, int depth, ann *a)
{
	void **slot;
	hm__ref *r;
	const hm_jv *t;

	if (k->n_ref)
		return val_in_place(c, k->n_ref, v, depth + 1, a, 0);
	slot = hm__ptrmap_find(&c->s->refs, k->sch);
	r = slot ? *slot : NULL;
	if (!r) {
		/* not seen while indexing: resolved against the root */
		const char *root = c->s->nidx ? c->s->res[0]->uri : "";
		char *u;

		if (hm__uri_resolve(&c->s->nomem, root, k->ref->s, k->ref->len, &u) != HM_OK)
			return 0;
		c->s->doc_err[0] = '\0';
		t = hm__schema_resolve(c->s, u);
		free(u);
		if (!t)
			return abort_check(c, "$ref", "cannot resolve \"%.*s\"%s%s%s", cut(k->ref->s, k->ref->len, 100),
			    k->ref->s, WHY(c->s->doc_err[0] ? c->s->doc_err : NULL));
		return val_in_place(c, node_of(c, t), v, depth + 1, a, 0);
	}
	if (!(t = ref_target(c, r))) {
		if (c->s->nomem)
			return 0;
		return abort_check(c, "$ref", "cannot resolve \"%.*s\"%s%s%s", cut(r->uri, strlen(r->uri), 100), r->uri,
		    WHY(r->why));
	}
	/* the target is fixed once found: kept with the schema */
	return val_in_place(c, sub(c, &k->n_ref, t), v, depth + 1, a, 0);
}

/* Whether node has member key as the string name, or as true (name NULL). */
static int
has_anchor(const hm_jv *node, const char *key, const char *name, size_t n)
{
	const hm_jv *m = node->type == HM_JV_OBJECT ? hm__jv_get(node, key) : NULL;

	if (!m)
		return 0;
	if (!name)
		return m->type == HM_JV_TRUE;
	return m->type == HM_JV_STRING && m->len == n && !memcmp(m->s, name, n);
}

/*
 * $dynamicRef (2020-12) and $recursiveRef (2019-09): the static target,
 * or, when it is a dynamic anchor, the outermost resource in the dynamic
 * scope (the resources the evaluation went through) that has one of the
 * same name.
 */
static int
val_dynref(vctx *c, const hm_jv *sch, const hm_jv *ref, int recursive, const hm_jv *v,
           int depth, ann *a)
{
	void **slot = hm__ptrmap_find(&c->s->drefs, sch);
	hm__ref *r = slot ? *slot : NULL;
	const hm_jv *t;
	const char *h;
	size_t i;

	if (!r || !(t = ref_target(c, r))) {
		if (c->s->nomem)
			return 0;
		return abort_check(c, recursive ? "$recursiveRef" : "$dynamicRef", "cannot resolve \"%.*s\"%s%s%s",
		    cut(ref->s, ref->len, 100), ref->s, WHY(r ? r->why : NULL));
	}
	if (recursive) {
		if (has_anchor(t, "$recursiveAnchor", NULL, 0))
			for (i = 0; i < c->ndyn; i++)
				if (has_anchor(c->dyn[i]->node, "$recursiveAnchor", NULL, 0)) {
					t = c->dyn[i]->node;
					break;
				}
	} else if ((h = strchr(r->uri, '#')) && h[1] && h[1] != '/' &&
	    has_anchor(t, "$dynamicAnchor", h + 1, strlen(h + 1))) {
		hm_buf u = {0};

		for (i = 0; i < c->ndyn; i++) {
			const hm_jv *n;

			hm_buf_reset(&u);
			hm__adds(&c->s->nomem, &u, c->dyn[i]->uri);
			hm__adds(&c->s->nomem, &u, h);
			if (c->s->nomem)
				break;
			n = hm__schema_idx_find(c->s, u.p, u.len);
			if (n && has_anchor(n, "$dynamicAnchor", h + 1, strlen(h + 1))) {
				t = n;
				break;
			}
		}
		hm_buf_free(&u);
	}
	return val_in_place(c, node_of(c, t), v, depth + 1, a, 0);
}

/* -1, 0, 1 as number v is below, at, above bound b (vi, bi: their integers, when plain). */
static int
num_cmp(const hm_jv *v, const kint *vi, const hm_jv *b, const kint *bi)
{
	if (vi->ok && bi->ok)
		return (vi->v > bi->v) - (vi->v < bi->v);
	return hm__num_cmp(v->s, v->len, b->s, b->len);
}

static int
val_number(vctx *c, const kw *k, const hm_jv *v, int draft)
{
	int ok = 1, xmin = 0, xmax = 0;
	kint vi = int_of(v->s, v->len);

	/* draft-04: exclusiveMinimum and exclusiveMaximum are booleans that sharpen minimum and maximum */
	if (draft == 4) {
		xmin = k->xmin && k->xmin->type == HM_JV_TRUE;
		xmax = k->xmax && k->xmax->type == HM_JV_TRUE;
	}
	if (k->min && k->min->type == HM_JV_NUMBER) {
		int cmp = num_cmp(v, &vi, k->min, &k->min_i);

		if (xmin ? cmp <= 0 : cmp < 0)
			ok = fail(c, "minimum", xmin ? "%s is not greater than %s" : "%s is less than %s", v->s, k->min->s);
	}
	if (k->max && k->max->type == HM_JV_NUMBER) {
		int cmp = num_cmp(v, &vi, k->max, &k->max_i);

		if (xmax ? cmp >= 0 : cmp > 0)
			ok = fail(c, "maximum", xmax ? "%s is not less than %s" : "%s is greater than %s", v->s, k->max->s);
	}
	if (k->xmin && k->xmin->type == HM_JV_NUMBER && num_cmp(v, &vi, k->xmin, &k->xmin_i) <= 0)
		ok = fail(c, "exclusiveMinimum", "%s is not greater than %s", v->s, k->xmin->s);
	if (k->xmax && k->xmax->type == HM_JV_NUMBER && num_cmp(v, &vi, k->xmax, &k->xmax_i) >= 0)
		ok = fail(c, "exclusiveMaximum", "%s is not less than %s", v->s, k->xmax->s);
	if (k->mult && k->mult->type == HM_JV_NUMBER && hm__num_positive(k->mult->s, k->mult->len)) {
		int mo = hm__num_multiple(v->s, v->len, k->mult->s, k->mult->len);

		if (mo == 0)
			ok = fail(c, "multipleOf", "%s is not a multiple of %s", v->s, k->mult->s);
		else if (mo == -1) /* never a verdict made up: not shown valid */
			ok = fail(c, "multipleOf", "too many digits to tell whether %s is a multiple of %s",
			    v->s, k->mult->s);
		else if (mo < 0)
			c->s->nomem = 1;
	}
	return ok;
}

/*
 * The schema a oneOf branch k stands for: k, or the target of a $ref that
 * is its only keyword, followed; NULL when that is not known (other
 * keywords beside a $ref, a target not found).
 */
static kw *
through_refs(vctx *c, kw *k)
{
	int hops;

	for (hops = 0; k && hops < 16; hops++) {
		void **slot;
		const hm_jv *t;

		if (k->kind != HM_JV_OBJECT)
			return NULL;
		if (!(k->flags & F_REF))
			return k;
		if (k->flags != F_REF || k->type)
			return NULL;
		if (k->n_ref) {
			k = k->n_ref;
			continue;
		}
		if (!(slot = hm__ptrmap_find(&c->s->refs, k->sch)) || !(t = ref_target(c, *slot)))
			return NULL;
		k = sub(c, &k->n_ref, t);
	}
	return NULL;
}

/* The `const` that member key[0..n) of object schema t must equal (its properties'), or NULL. */
static const hm_jv *
member_const(vctx *c, kw *t, const char *key, size_t n)
{
	size_t next = 0;
	kprop *p = t->ptab ? prop_find(t, key, n, &next) : NULL;
	kw *m = p ? sub(c, &p->node, p->sch) : NULL;

	return m && m->kind == HM_JV_OBJECT && !(m->flags & F_REF) ? m->const_ : NULL;
}

/*
 * oneOf's discriminator: a member that the branches' `properties` each
 * hold to a `const` ({"kind":{"const":"shell"}}, the branches reached
 * through $refs).  An object whose member of that name (one of it) equals
 * none but branch i's constant fails every other branch where that
 * constant fails: those are not tried (a branch whose constant is not
 * known always is).  The answer is the one trying them all would give.
 */
static void
disc_of(vctx *c, kw *k)
{
	size_t i, j, known = 0;

	k->disc_state = 1;
	if (!(k->disc = calloc(k->oneof->n ? k->oneof->n : 1, sizeof *k->disc))) {
		c->s->nomem = 1;
		return;
	}
	for (i = 0; i < k->oneof->n && !c->s->nomem; i++) {
		kw *t = through_refs(c, sub(c, &k->n_oneof[i], k->oneof->v[i]));

		if (!t || !t->ptab)
			continue;
		/* the member: the first of the first such branch's properties that is a const */
		for (j = 0; j < t->props->n && !k->disc_key; j++)
			if (member_const(c, t, t->props->k[j], t->props->klen[j])) {
				k->disc_key = t->props->k[j];
				k->disc_klen = t->props->klen[j];
			}
		if (k->disc_key && (k->disc[i] = member_const(c, t, k->disc_key, k->disc_klen)))
			known++;
	}
	if (known >= 2 && !c->s->nomem)
		k->disc_state = 2;
}

/* The value of o's member named key[0..n) when there is exactly one, or NULL. */
static const hm_jv *
only_member(const hm_jv *o, const char *key, size_t n)
{
	const hm_jv *m = NULL;
	size_t i;

	for (i = 0; i < o->n; i++)
		if (o->klen[i] == n && same_bytes(o->k[i], key, n)) {
			if (m)
				return NULL;
			m = o->v[i];
		}
	return m;
}

/* Push r on the dynamic scope unless it is on top already; 1 when pushed. */
static int
dyn_push(vctx *c, const hm__res *r)
{
	if (c->ndyn && c->dyn[c->ndyn - 1] == r)
		return 0;
	if (c->ndyn == c->capdyn) {
		size_t n = c->capdyn ? 2 * c->capdyn : 16;
		const hm__res **t = realloc(c->dyn, n * sizeof *t);

		if (!t) {
			c->s->nomem = 1;
			return 0;
		}
		c->dyn = t;
		c->capdyn = n;
	}
	c->dyn[c->ndyn++] = r;
	return 1;
}

/* Count the nodes of v (for the step budget). */
static size_t
count_nodes(const hm_jv *v)
{
	size_t i, n = 1;

	for (i = 0; i < v->n; i++)
		n += count_nodes(v->v[i]);
	return n;
}

static int val_keywords(vctx *c, kw *k, const hm__res *res, const hm_jv *v, int depth, ann *a);

/* Validate v against compiled schema k (NULL: out of memory, s->nomem set). */
static int
val_node(vctx *c, kw *k, const hm_jv *v, int depth, ann *a)
{
	const hm__res *res;
	int ok, pushed = 0;

again:
	if (!k || c->aborted || c->s->nomem)
		return 0;
	if (++c->steps > c->budget) {
		/* the value's share of the budget, counted only by a value that comes near it */
		if (c->lazy) {
			c->lazy = 0;
			c->budget += 64 * count_nodes(c->value);
		}
		if (c->steps > c->budget)
			return abort_check(c, "budget", "validation took more than %zu steps; stopped", c->budget);
	}
	if (depth > MAX_DEPTH)
		return abort_check(c, "depth", "schemas applied more than %d levels deep "
		    "(a $ref loop?)", MAX_DEPTH);
	if (k->kind != HM_JV_OBJECT)
		return k->kind == HM_JV_FALSE ? fail(c, "false", "no value is allowed here") : 1;
	/*
	 * A `$ref` alone, its target known, nothing to collect: the target
	 * checked at once, as val_ref would check it in place (nothing else
	 * of the node checks anything).
	 */
	if (k->refonly && k->n_ref && !c->s->track &&
	    (!a || (v->type != HM_JV_OBJECT && v->type != HM_JV_ARRAY))) {
		k = k->n_ref;
		depth++;
		a = NULL;
		goto again;
	}
	res = c->s->res[0];
	if (c->s->track) {
		/*
		 * The root's resource starts the dynamic scope, even when a
		 * document read on the way (a $ref's) brought the first
		 * $dynamicRef, and with it the need to know the scope.
		 */
		if (!c->ndyn)
			dyn_push(c, c->s->res[0]);
		res = hm__schema_res_of(c->s, k->sch);
		pushed = dyn_push(c, res);
	}
	ok = val_keywords(c, k, res, v, depth, a);
	if (pushed)
		c->ndyn--;
	return ok;
}

static int
val_keywords(vctx *c, kw *k, const hm__res *res, const hm_jv *v, int depth, ann *a)
{
	size_t i, n;
	int ok = 1;
	char b[64];
	ann own = {0}, *outer = a;

	if (v->type != HM_JV_OBJECT && v->type != HM_JV_ARRAY)
		a = NULL;
	else if ((k->flags & F_UNE) &&
	    ((v->type == HM_JV_OBJECT && k->uneprops) || (v->type == HM_JV_ARRAY && k->uneitems))) {
		/* this schema's unevaluated* looks at what it and the schemas it applies in place evaluated */
		if (!ann_init(c, &own, v))
			return 0;
	}
	if (own.seen)
		a = &own;
	/* drafts 4 to 7: $ref alone, its siblings ignored (and no unevaluated* there) */
	if (k->flags & F_REF) {
		ok = val_ref(c, k, v, depth, a);
		if (res->draft <= 7 || SETTLED())
			goto out;
	}
	if (k->flags & F_DYN) {
		if (k->dynref && k->dynref->type == HM_JV_STRING &&
		    !val_dynref(c, k->sch, k->dynref, 0, v, depth, a))
			ok = 0;
		if (k->recref && k->recref->type == HM_JV_STRING &&
		    !val_dynref(c, k->sch, k->recref, 1, v, depth, a))
			ok = 0;
	}
	/* where nothing is recorded the table's answer is val_type's (but for `nullable`) */
	if (k->type && !(k->types && type_ok(k, v, res->draft)) &&
	    ((k->types && c->quiet && !k->nullable) || !val_type(c, k->type, v, k, res->draft)))
		ok = 0;
	if ((k->flags & F_EQ) && !SETTLED()) {
		if (k->enum_ && k->enum_->type == HM_JV_ARRAY) {
			for (i = 0; i < k->enum_->n && !hm__jv_equal(v, k->enum_->v[i]); i++)
				;
			if (i == k->enum_->n)
				ok = fail(c, "enum", "%s is not one of the %zu allowed values",
				    BRIEF(v), k->enum_->n);
		}
		if (k->const_ && !hm__jv_equal(v, k->const_))
			ok = fail(c, "const", "%s is not the constant value", BRIEF(v));
	}
	if (SETTLED())
		goto out;
	switch (v->type) {
	case HM_JV_OBJECT:
		if ((k->flags & F_OBJ) && !val_object(c, k, v, depth, a))
			ok = 0;
		break;
	case HM_JV_ARRAY:
		if ((k->flags & F_ARR) && !val_array(c, k, v, depth, res->draft, a))
			ok = 0;
		break;
	case HM_JV_STRING:
		if (!(k->flags & F_STR))
			break;
		n = (k->minlen || k->maxlen) ? utf8_count(v->s, v->len) : 0;
		if (k->minlen && k->minlen->type == HM_JV_NUMBER && (double)n < num_of(k->minlen))
			ok = fail(c, "minLength", "%zu characters, fewer than %s", n, k->minlen->s);
		if (k->maxlen && k->maxlen->type == HM_JV_NUMBER && (double)n > num_of(k->maxlen))
			ok = fail(c, "maxLength", "%zu characters, more than %s", n, k->maxlen->s);
		if (k->pattern && k->pattern->type == HM_JV_STRING && !SETTLED()) {
			int m = pattern_match(c, &k->re, k->pattern, k->pattern->s, k->pattern->len, v->s,
			    v->len, "pattern");

			if (m == 0)
				ok = fail(c, "pattern", "%s does not match \"%.*s\"", BRIEF(v),
				    cut(k->pattern->s, k->pattern->len, 60), k->pattern->s);
			else if (m < 0)
				ok = 0;
		}
		if (k->format && res->formats && !SETTLED() && !check_format(c, k->format, v))
			ok = 0;
		break;
	case HM_JV_NUMBER:
		if ((k->flags & F_NUM) && !val_number(c, k, v, res->draft))
			ok = 0;
		break;
	default:
		break;
	}
	if (SETTLED() || !(k->flags & F_APPLY))
		goto une;
	if (k->n_allof)
		for (i = 0; i < k->allof->n && !SETTLED(); i++)
			if (!val_in_place(c, sub(c, &k->n_allof[i], k->allof->v[i]), v, depth + 1, a, 0))
				ok = 0;
	if (k->n_anyof && !SETTLED()) {
		size_t nok = 0;

		/* with annotations to collect every branch is tried, else the first that holds ends it */
		for (i = 0; i < k->anyof->n && (a || !nok); i++)
			if (a)
				nok += (size_t)val_in_place(c, sub(c, &k->n_anyof[i], k->anyof->v[i]), v, depth + 1, a, 1);
			else {
				c->quiet++;
				nok += (size_t)val_child(c, sub(c, &k->n_anyof[i], k->anyof->v[i]), v, depth + 1);
				c->quiet--;
			}
		if (!nok)
			ok = fail(c, "anyOf", "%s matches none of the %zu schemas",
			    BRIEF(v), k->anyof->n);
	}
	if (k->n_oneof && !SETTLED()) {
		size_t nok = 0;
		ann t = {0};
		const hm_jv *dv = NULL;

		if (v->type == HM_JV_OBJECT) {
			if (!k->disc_state)
				disc_of(c, k);
			if (k->disc_state == 2)
				dv = only_member(v, k->disc_key, k->disc_klen);
		}
		for (i = 0; i < k->oneof->n && nok < 2; i++) {
			/* the branch's const for that member does not hold: neither does the branch */
			if (dv && k->disc[i] && !hm__jv_equal(dv, k->disc[i]))
				continue;
			if (a && !ann_init(c, &t, v))
				break;
			if (val_quiet(c, sub(c, &k->n_oneof[i], k->oneof->v[i]), v, depth + 1, a ? &t : NULL)) {
				if (!nok++)
					ann_merge(a, &t);
			}
			free(t.seen);
			t.seen = NULL;
		}
		if (nok != 1)
			ok = fail(c, "oneOf", "%s matches %s of the %zu schemas, not exactly one",
			    BRIEF(v), nok ? "more than one" : "none", k->oneof->n);
	}
	if (k->not_ && !SETTLED() && val_quiet(c, sub(c, &k->n_not, k->not_), v, depth + 1, NULL))
		ok = fail(c, "not", "%s matches the schema it must not", BRIEF(v));
	if (k->if_ && (k->then_ || k->else_ || a) && !SETTLED()) {
		/* if's own annotations count when it holds */
		int hold = val_in_place(c, sub(c, &k->n_if, k->if_), v, depth + 1, a, 1);

		if (hold && k->then_ && !val_in_place(c, sub(c, &k->n_then, k->then_), v, depth + 1, a, 0))
			ok = 0;
		if (!hold && k->else_ && !val_in_place(c, sub(c, &k->n_else, k->else_), v, depth + 1, a, 0))
			ok = 0;
	}
une:
	if (own.seen && !SETTLED()) {
		const hm_jv *u = v->type == HM_JV_OBJECT ? k->uneprops : k->uneitems;
		kw *uk = v->type == HM_JV_OBJECT ? sub(c, &k->n_uneprops, u) : sub(c, &k->n_uneitems, u);
		size_t mark = c->nseg;

		for (i = 0; i < v->n && !c->aborted && !SETTLED(); i++) {
			if (own.seen[i])
				continue;
			if (v->type == HM_JV_OBJECT)
				path_push_key(c, v->k[i], v->klen[i]);
			else
				path_push_index(c, i);
			if (u->type == HM_JV_FALSE)
				ok = v->type == HM_JV_OBJECT ?
				    fail(c, "unevaluatedProperties", "property \"%.*s\" is not allowed",
				    cut(v->k[i], v->klen[i], 80), v->k[i]) :
				    fail(c, "unevaluatedItems", "item %zu is not allowed", i);
			else if (!val_node(c, uk, v->v[i], depth + 1, NULL))
				ok = 0;
			c->nseg = mark;
		}
		/* every member or item is evaluated now */
		if (outer)
			memset(outer->seen, 1, outer->n);
	}
out:
	free(own.seen);
	return ok && !c->aborted;
}

static hm_status
run(hm_schema *s, const hm_jv *v)
{
	vctx c;
	int ok;

	/* every member but the inline path steps (512 bytes, written before they are read) */
	memset(&c, 0, offsetof(vctx, inl));
	memset((char *)&c + offsetof(vctx, quiet), 0, sizeof c - offsetof(vctx, quiet));
	c.s = s;
	s->nprobs = s->nkept = 0;
	hm_buf_reset(&s->text);
	c.value = v;
	c.budget = s->max_steps ? s->max_steps : BASE_STEPS;
	c.lazy = !s->max_steps;
	c.seg = c.inl;
	c.capseg = sizeof c.inl / sizeof *c.inl;
	if (!s->root_kw)
		s->root_kw = node_of(&c, s->root);
	ok = val_node(&c, s->root_kw, v, 0, NULL);
	if (!ok && !s->nprobs && !s->nomem)
		fail(&c, "schema", "the value does not match");
	if (c.seg != c.inl)
		free(c.seg);
	free(c.dyn);
	if (s->nomem)
		return HM_ENOMEM;
	return ok && !s->nprobs ? HM_OK : HM_EINPUT;
}

/* ------------------------------------------------------------ for json_schema_load.c */


void
hm__schema_compiled_free(hm_schema *s)
{
	size_t i;

	for (i = 0; i < s->kws.cap; i++)
		if (s->kws.k[i])
			kw_free(s->kws.v[i]);
	hm__ptrmap_free(&s->kws);
	s->root_kw = NULL;
}

hm_status
hm__schema_run(hm_schema *s, const hm_jv *v)
{
	return run(s, v);
}

int
hm__schema_cut(const char *str, size_t n, size_t max)
{
	return cut(str, n, max);
}

const char *
hm__schema_type_word(const hm_jv *v)
{
	return type_word(v);
}

int
hm__schema_keyword_drafts(const char *k, int *lo, int *hi)
{
	const struct keyword *w = bsearch(k, KEYWORDS, sizeof KEYWORDS / sizeof *KEYWORDS,
	    sizeof *KEYWORDS, keyword_cmp);

	if (!w)
		return 0;
	*lo = w->lo;
	*hi = w->hi;
	return 1;
}
