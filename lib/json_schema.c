/*
 * json_schema.c - a JSON Schema validator (draft 2020-12, and draft-07's
 * forms where they differ): the schema is read into the JSON tree once,
 * its `$id`s and `$ref`s indexed, then values are checked against it.
 * Every problem names the JSON Pointer of the failing value and the
 * keyword.  Work is bounded: nesting (and `$ref` chains) at 512 levels,
 * and a budget of steps per value, so a hostile schema or value ends in
 * an error, never a hang or a crash.  Regular expressions: json_regex.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversation_int.h"
#include "json_schema_int.h"

#define MAX_DEPTH 512         /* schemas applied inside one another */
#define BASE_STEPS 10000000u  /* the step budget of one value, before its size */
#define KEEP_PROBLEMS 64      /* problems recorded (all are counted) */

/* ------------------------------------------------------------ pointer map */

/* An open-addressing map from pointers to pointers. */
typedef struct ptrmap {
	const void **k;
	void **v;
	size_t cap, n;
} ptrmap;

static size_t
ptr_hash(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x;
}

static void **
ptrmap_find(const ptrmap *m, const void *key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = ptr_hash(key) & (m->cap - 1); m->k[i]; i = (i + 1) & (m->cap - 1))
		if (m->k[i] == key)
			return &m->v[i];
	return NULL;
}

static hm_status
ptrmap_put(ptrmap *m, const void *key, void *val)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		ptrmap g;
		size_t c = m->cap ? 2 * m->cap : 16;

		g.k = calloc(c, sizeof *g.k);
		g.v = calloc(c, sizeof *g.v);
		if (!g.k || !g.v) {
			free(g.k);
			free(g.v);
			return HM_ENOMEM;
		}
		g.cap = c;
		g.n = 0;
		for (i = 0; i < m->cap; i++)
			if (m->k[i])
				ptrmap_put(&g, m->k[i], m->v[i]);
		free(m->k);
		free(m->v);
		*m = g;
	}
	for (i = ptr_hash(key) & (m->cap - 1); m->k[i]; i = (i + 1) & (m->cap - 1))
		if (m->k[i] == key) {
			m->v[i] = val;
			return HM_OK;
		}
	m->k[i] = key;
	m->v[i] = val;
	m->n++;
	return HM_OK;
}

static void
ptrmap_free(ptrmap *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------ the schema */

typedef struct idx_ent {
	char *uri;          /* absolute, no fragment; or URI#anchor */
	const hm_jv *node;
} idx_ent;

/* One `$ref` seen while indexing: its absolute target and, once found, the node. */
typedef struct ref_ent {
	char *uri;
	const hm_jv *target;
	int tried;
} ref_ent;

typedef struct problem {
	size_t path, keyword, msg; /* offsets into the problem text */
} problem;

struct hm_schema {
	hm_jv *root;          /* owned, unless borrowed */
	int borrowed;
	int draft7;           /* $ref alone (siblings ignored) */
	int formats;          /* `format` asserts */
	size_t max_steps;
	hm_jv **docs;         /* resources added (owned) */
	size_t ndocs;
	idx_ent *idx;         /* documents and embedded $id/$anchor, by URI */
	size_t nidx, capidx;
	ptrmap refs;          /* $ref node -> ref_ent */
	ptrmap res;           /* pattern string -> hm_re (compiled on first use) */
	hm_buf text;          /* the problems' strings, NUL-separated */
	problem *probs;
	size_t nprobs, nkept;
	/*
	 * The schema's one out-of-memory flag: set where an allocation fails
	 * while it is built, indexed, resolved or used to validate (the
	 * validation's buffers name it too); each public entry point clears
	 * it first and checks it on the way out.
	 */
	int nomem;
};

/* Add uri (taken over) -> node to the index. */
static hm_status
idx_add(hm_schema *s, char *uri, const hm_jv *node)
{
	if (s->nidx == s->capidx) {
		size_t c = s->capidx ? 2 * s->capidx : 8;
		idx_ent *t = realloc(s->idx, c * sizeof *t);

		if (!t) {
			free(uri);
			s->nomem = 1;
			return HM_ENOMEM;
		}
		s->idx = t;
		s->capidx = c;
	}
	s->idx[s->nidx].uri = uri;
	s->idx[s->nidx].node = node;
	s->nidx++;
	return HM_OK;
}

static const hm_jv *
idx_find(const hm_schema *s, const char *uri, size_t len)
{
	size_t i;

	for (i = s->nidx; i-- > 0;)
		if (strlen(s->idx[i].uri) == len && !memcmp(s->idx[i].uri, uri, len))
			return s->idx[i].node;
	return NULL;
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

/*
 * ref resolved against base (RFC 3986 §5.2, without dot segments), an
 * empty fragment dropped, into *out (malloc'd); HM_ENOMEM sets *nomem,
 * the caller's flag (clear on the way in).
 */
static hm_status
uri_resolve(int *nomem, const char *base, const char *ref, size_t reflen, char **out)
{
	hm_buf b = {0};
	size_t blen = strlen(base), bsch = scheme_len(base, blen), cut, i;
	const char *h;

	if ((h = memchr(base, '#', blen)))
		blen = (size_t)(h - base);
	if (scheme_len(ref, reflen) || !blen) {
		hm__add(nomem, &b, ref, reflen);
	} else if (reflen && ref[0] == '#') {
		hm__add(nomem, &b, base, blen);
		hm__add(nomem, &b, ref, reflen);
	} else if (reflen >= 2 && ref[0] == '/' && ref[1] == '/') {
		hm__add(nomem, &b, base, bsch);
		hm__add(nomem, &b, ref, reflen);
	} else if (reflen && ref[0] == '/') {
		/* the scheme and authority of base */
		cut = bsch;
		if (cut + 1 < blen && base[cut] == '/' && base[cut + 1] == '/') {
			for (cut += 2; cut < blen && base[cut] != '/'; cut++)
				;
		}
		hm__add(nomem, &b, base, cut);
		hm__add(nomem, &b, ref, reflen);
	} else {
		if ((h = memchr(base, '?', blen)))
			blen = (size_t)(h - base);
		for (cut = blen; cut > bsch && base[cut - 1] != '/'; cut--)
			;
		hm__add(nomem, &b, base, cut);
		hm__add(nomem, &b, ref, reflen);
	}
	hm__putc(nomem, &b, '\0');
	*out = NULL;
	if (*nomem) {
		hm_buf_free(&b);
		return HM_ENOMEM;
	}
	i = strlen(b.p);
	if (i && b.p[i - 1] == '#')
		b.p[i - 1] = '\0';
	*out = b.p;
	return HM_OK;
}

/* Members whose values are data, not schemas: not indexed. */
static int
data_member(const char *k)
{
	return !strcmp(k, "enum") || !strcmp(k, "const") || !strcmp(k, "default") ||
	    !strcmp(k, "examples");
}

/* Index n's $id, $anchor and $ref, and those inside it (failure: s->nomem). */
static void
index_node(hm_schema *s, const hm_jv *n, const char *base, int depth)
{
	const hm_jv *id, *ref, *anchor;
	char *nb = NULL;
	size_t i;

	if (s->nomem || depth > 200)
		return;
	if (n->type == HM_JV_ARRAY) {
		for (i = 0; i < n->n; i++)
			index_node(s, n->v[i], base, depth + 1);
		return;
	}
	if (n->type != HM_JV_OBJECT)
		return;
	ref = hm__jv_get(n, "$ref");
	id = hm__jv_get(n, "$id");
	/* draft-07: $id beside $ref is ignored, as every sibling of $ref. */
	if (id && id->type == HM_JV_STRING && !(s->draft7 && ref && ref->type == HM_JV_STRING)) {
		if (uri_resolve(&s->nomem, base, id->s, id->len, &nb) != HM_OK ||
		    idx_add(s, nb, n) != HM_OK)
			return;
		base = nb; /* the index owns it now */
	}
	anchor = hm__jv_get(n, "$anchor");
	if (anchor && anchor->type == HM_JV_STRING) {
		hm_buf a = {0};
		const char *h = strchr(base, '#');

		hm__add(&s->nomem, &a, base, h ? (size_t)(h - base) : strlen(base));
		hm__putc(&s->nomem, &a, '#');
		hm__add(&s->nomem, &a, anchor->s, anchor->len);
		hm__putc(&s->nomem, &a, '\0');
		if (s->nomem) {
			hm_buf_free(&a);
			return;
		}
		if (idx_add(s, a.p, n) != HM_OK)
			return;
	}
	if (ref && ref->type == HM_JV_STRING) {
		ref_ent *r = calloc(1, sizeof *r);

		if (!r || uri_resolve(&s->nomem, base, ref->s, ref->len, &r->uri) != HM_OK ||
		    ptrmap_put(&s->refs, n, r) != HM_OK) {
			if (r)
				free(r->uri);
			free(r);
			s->nomem = 1;
			return;
		}
	}
	for (i = 0; i < n->n; i++)
		if (!data_member(n->k[i]))
			index_node(s, n->v[i], base, depth + 1);
}

/* Add doc under uri (its own $id wins) and index it (failure: s->nomem). */
static void
add_doc(hm_schema *s, const hm_jv *doc, const char *uri)
{
	char *u = NULL;
	const hm_jv *id = hm__jv_get(doc, "$id");
	hm_status st;

	if (doc->type == HM_JV_OBJECT && id && id->type == HM_JV_STRING)
		st = uri_resolve(&s->nomem, uri, id->s, id->len, &u);
	else
		st = uri_resolve(&s->nomem, "", uri, strlen(uri), &u);
	if (st != HM_OK || idx_add(s, u, doc) != HM_OK)
		return;
	index_node(s, doc, s->idx[s->nidx - 1].uri, 0);
}

static int
isxdigit_c(char c)
{
	return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'f');
}

static int
xval(char c)
{
	return c <= '9' ? c - '0' : (c | 32) - 'a' + 10;
}

/* Percent-decode s[0..n) into b (its owner's flag: nomem). */
static void
pct_decode(int *nomem, hm_buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && isxdigit_c(s[i + 1]) &&
		    isxdigit_c(s[i + 2])) {
			hm__putc(nomem, b, (char)(xval(s[i + 1]) * 16 + xval(s[i + 2])));
			i += 2;
		} else
			hm__putc(nomem, b, s[i]);
	}
}

/*
 * The node at JSON Pointer p[0..n) (percent-decoded already) from root,
 * or NULL (out of memory too: *nomem set, the caller's flag).
 */
static const hm_jv *
pointer_get(const hm_jv *root, const char *p, size_t n, int *nomem)
{
	const hm_jv *cur = root;
	hm_buf tok = {0};
	size_t i = 0, j;

	while (cur && i < n) {
		if (p[i] != '/') {
			cur = NULL;
			break;
		}
		hm_buf_reset(&tok);
		for (i++; i < n && p[i] != '/'; i++) {
			if (p[i] == '~' && i + 1 < n && (p[i + 1] == '0' || p[i + 1] == '1')) {
				hm__putc(nomem, &tok, p[i + 1] == '0' ? '~' : '/');
				i++;
			} else
				hm__putc(nomem, &tok, p[i]);
		}
		hm__putc(nomem, &tok, '\0');
		if (*nomem) {
			cur = NULL;
			break;
		}
		if (cur->type == HM_JV_OBJECT) {
			const hm_jv *nx = NULL;

			for (j = cur->n; j-- > 0;)
				if (cur->klen[j] == tok.len - 1 && !memcmp(cur->k[j], tok.p, tok.len - 1)) {
					nx = cur->v[j];
					break;
				}
			cur = nx;
		} else if (cur->type == HM_JV_ARRAY) {
			char *end;
			unsigned long k;

			if (tok.len < 2 || tok.p[0] < '0' || tok.p[0] > '9' ||
			    (tok.p[0] == '0' && tok.len > 2)) {
				cur = NULL;
				break;
			}
			k = strtoul(tok.p, &end, 10);
			cur = (*end || k >= cur->n) ? NULL : cur->v[k];
		} else
			cur = NULL;
	}
	hm_buf_free(&tok);
	return cur;
}

/* The node absolute URI u names, or NULL (*nomem set when out of memory). */
static const hm_jv *
resolve_uri(const hm_schema *s, const char *u, int *nomem)
{
	const char *h = strchr(u, '#');
	size_t dlen = h ? (size_t)(h - u) : strlen(u);
	const hm_jv *doc, *r;
	hm_buf frag = {0};

	if (!h)
		return idx_find(s, u, dlen);
	if (!(doc = idx_find(s, u, dlen)))
		return NULL;
	pct_decode(nomem, &frag, h + 1, strlen(h + 1));
	hm__putc(nomem, &frag, '\0');
	if (*nomem) {
		hm_buf_free(&frag);
		return NULL;
	}
	if (frag.p[0] == '/' || !frag.p[0])
		r = pointer_get(doc, frag.p, frag.len - 1, nomem);
	else
		r = idx_find(s, u, strlen(u)); /* a plain-name anchor */
	hm_buf_free(&frag);
	return r;
}

/* ------------------------------------------------------------ problems */

typedef struct vctx {
	hm_schema *s;
	hm_buf path;     /* JSON Pointer of the value being checked */
	int quiet;       /* inside anyOf, oneOf, not, if, contains: nothing recorded */
	int aborted;     /* a limit was hit: everything fails from here */
	size_t steps, budget;
} vctx; /* out of memory: the schema's flag, c->s->nomem */

static void
record(vctx *c, const char *keyword, const char *fmt, va_list ap)
{
	hm_schema *s = c->s;
	problem *pr;
	char msg[300];

	s->nprobs++;
	if (s->nkept >= KEEP_PROBLEMS)
		return;
	if (!s->probs && !(s->probs = malloc(KEEP_PROBLEMS * sizeof *s->probs))) {
		s->nomem = 1;
		return;
	}
	vsnprintf(msg, sizeof msg, fmt, ap);
	pr = &s->probs[s->nkept++];
	pr->path = s->text.len;
	hm__add(&s->nomem, &s->text, c->path.p ? c->path.p : "", c->path.len);
	hm__putc(&s->nomem, &s->text, '\0');
	pr->keyword = s->text.len;
	hm__adds(&s->nomem, &s->text, keyword);
	hm__putc(&s->nomem, &s->text, '\0');
	pr->msg = s->text.len;
	hm__adds(&s->nomem, &s->text, msg);
	hm__putc(&s->nomem, &s->text, '\0');
}

static int fail(vctx *c, const char *keyword, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record a problem (unless quiet); returns 0, "not valid". */
static int
fail(vctx *c, const char *keyword, const char *fmt, ...)
{
	va_list ap;

	if (c->quiet)
		return 0;
	va_start(ap, fmt);
	record(c, keyword, fmt, ap);
	va_end(ap);
	return 0;
}

static int abort_check(vctx *c, const char *keyword, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

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

static void
path_push_key(vctx *c, const char *k, size_t n)
{
	size_t i;

	hm__putc(&c->s->nomem, &c->path, '/');
	for (i = 0; i < n; i++) {
		if (k[i] == '~')
			hm__put(&c->s->nomem, &c->path, "~0", 2);
		else if (k[i] == '/')
			hm__put(&c->s->nomem, &c->path, "~1", 2);
		else
			hm__putc(&c->s->nomem, &c->path, k[i]);
	}
}

static void
path_push_index(vctx *c, size_t i)
{
	hm__putc(&c->s->nomem, &c->path, '/');
	hm__addu(&c->s->nomem, &c->path, i);
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
is_type(const hm_jv *v, const char *t, size_t n)
{
#define T(w) (n == sizeof w - 1 && !memcmp(t, w, n))
	if (T("string"))
		return v->type == HM_JV_STRING;
	if (T("number"))
		return v->type == HM_JV_NUMBER;
	if (T("integer"))
		return v->type == HM_JV_NUMBER && hm__json_is_integer(v->s, v->len);
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
	case HM_JV_NUMBER: {
		double d = v->num == 0 ? 0 : v->num;

		memcpy(&h, &d, sizeof h);
		return h * 0x9e3779b97f4a7c15ull;
	}
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

/* ------------------------------------------------------------ formats */

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

/* Whether s[0..n) is a pattern that compiles (out of memory: *nomem set, 0). */
static int
fmt_regex(int *nomem, const char *s, size_t n)
{
	char err[120];
	hm_re *re;
	hm_status st = hm__re_compile(s, n, &re, err, sizeof err);

	if (st != HM_OK) {
		if (st == HM_ENOMEM)
			*nomem = 1;
		return 0;
	}
	hm__re_free(re);
	return 1;
}

/* ------------------------------------------------------------ validation */

/* The keywords of one schema object, found in one pass over its members. */
typedef struct kw {
	const hm_jv *type, *enum_, *const_, *ref, *props, *patprops, *addprops, *required;
	const hm_jv *items, *prefix, *additems, *contains, *mincont, *maxcont;
	const hm_jv *allof, *anyof, *oneof, *not_, *if_, *then_, *else_;
	const hm_jv *minlen, *maxlen, *pattern, *format;
	const hm_jv *min, *max, *xmin, *xmax, *mult;
	const hm_jv *minitems, *maxitems, *unique, *minprops, *maxprops, *propnames;
	const hm_jv *deps, *depreq, *depsch, *nullable;
} kw;

static void
read_keywords(const hm_jv *s, kw *k)
{
	size_t i;

	memset(k, 0, sizeof *k);
	for (i = 0; i < s->n; i++) {
		const char *n = s->k[i];
		const hm_jv *v = s->v[i];

#define K(word, field) if (!strcmp(n, word)) { k->field = v; continue; }
		switch (n[0]) {
		case '$': K("$ref", ref) break;
		case 'a':
			K("additionalProperties", addprops) K("additionalItems", additems)
			K("allOf", allof) K("anyOf", anyof) break;
		case 'c': K("const", const_) K("contains", contains) break;
		case 'd':
			K("dependencies", deps) K("dependentRequired", depreq)
			K("dependentSchemas", depsch) break;
		case 'e':
			K("enum", enum_) K("else", else_) K("exclusiveMinimum", xmin)
			K("exclusiveMaximum", xmax) break;
		case 'f': K("format", format) break;
		case 'i': K("items", items) K("if", if_) break;
		case 'm':
			K("minimum", min) K("maximum", max) K("minLength", minlen)
			K("maxLength", maxlen) K("minItems", minitems) K("maxItems", maxitems)
			K("minProperties", minprops) K("maxProperties", maxprops)
			K("multipleOf", mult) K("minContains", mincont) K("maxContains", maxcont)
			break;
		case 'n': K("not", not_) K("nullable", nullable) break;
		case 'o': K("oneOf", oneof) break;
		case 'p':
			K("properties", props) K("patternProperties", patprops)
			K("pattern", pattern) K("prefixItems", prefix)
			K("propertyNames", propnames) break;
		case 'r': K("required", required) break;
		case 't': K("type", type) K("then", then_) break;
		case 'u': K("uniqueItems", unique) break;
		}
#undef K
	}
}

static int val(vctx *c, const hm_jv *sch, const hm_jv *v, int depth);

/* Validate v against sch, recording nothing (for anyOf, oneOf, not, if, contains). */
static int
val_quiet(vctx *c, const hm_jv *sch, const hm_jv *v, int depth)
{
	int r;

	c->quiet++;
	r = val(c, sch, v, depth);
	c->quiet--;
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
	void **slot = ptrmap_find(&c->s->res, key);
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
	if (ptrmap_put(&c->s->res, key, re) != HM_OK) {
		hm__re_free(re);
		c->s->nomem = 1;
		return HM_ENOMEM;
	}
	*out = re;
	return HM_OK;
}

/*
 * 1 when pattern (key: its cache key) matches s[0..n); 0 not; -1 it
 * cannot be used (a bad pattern, recorded; out of memory, c->s->nomem).
 */
static int
pattern_match(vctx *c, const void *key, const char *pat, size_t plen, const char *s,
              size_t n, const char *keyword)
{
	char why[160];
	const hm_re *re;
	hm_status st = regex_of(c, key, pat, plen, &re, why, sizeof why);
	int r;

	if (st != HM_OK) {
		if (st == HM_EINPUT)
			abort_check(c, keyword, "cannot use pattern \"%.*s\": %s", cut(pat, plen, 60), pat, why);
		return -1;
	}
	r = hm__re_search(re, s, n, &c->s->nomem);
	return c->s->nomem ? -1 : r;
}

static double
num_of(const hm_jv *v)
{
	return v->num;
}

static int
multiple_of(const hm_jv *v, const hm_jv *m)
{
	double q;

	if (m->num <= 0)
		return 1;
	if (hm__json_is_integer(v->s, v->len) && hm__json_is_integer(m->s, m->len) &&
	    fabs(v->num) < 9007199254740992.0 && m->num < 9007199254740992.0)
		return m->num >= 1 && (long long)v->num % (long long)m->num == 0;
	q = v->num / m->num;
	if (!isfinite(q))
		return 0;
	if (q >= 9007199254740992.0 || q <= -9007199254740992.0)
		return 1; /* every double this large is whole */
	{
		/* the distance to the nearest whole number (no libm) */
		double r = q - (double)(long long)q, a = q < 0 ? -q : q;

		if (r < 0)
			r = -r;
		if (r > 0.5)
			r = 1 - r;
		return r <= 1e-9 * (a > 1 ? a : 1);
	}
}

static int
check_format(vctx *c, const hm_jv *f, const hm_jv *v)
{
	const char *s = v->s;
	size_t n = v->len;
	int ok = 1;

	if (!c->s->formats || f->type != HM_JV_STRING || v->type != HM_JV_STRING)
		return 1;
	if (!strcmp(f->s, "date-time"))
		ok = fmt_date_time(s, n);
	else if (!strcmp(f->s, "date"))
		ok = fmt_date(s, n);
	else if (!strcmp(f->s, "time"))
		ok = fmt_time(s, n);
	else if (!strcmp(f->s, "email"))
		ok = fmt_email(s, n);
	else if (!strcmp(f->s, "hostname"))
		ok = fmt_hostname(s, n);
	else if (!strcmp(f->s, "ipv4"))
		ok = fmt_ipv4(s, n);
	else if (!strcmp(f->s, "ipv6"))
		ok = fmt_ipv6(s, n);
	else if (!strcmp(f->s, "uri"))
		ok = fmt_uri(s, n);
	else if (!strcmp(f->s, "uri-reference"))
		ok = fmt_uri_reference(s, n);
	else if (!strcmp(f->s, "json-pointer"))
		ok = fmt_json_pointer(s, n);
	else if (!strcmp(f->s, "relative-json-pointer"))
		ok = fmt_relative_json_pointer(s, n);
	else if (!strcmp(f->s, "uuid"))
		ok = fmt_uuid(s, n);
	else if (!strcmp(f->s, "regex"))
		ok = fmt_regex(&c->s->nomem, s, n);
	if (!ok) {
		char b[64];

		return fail(c, "format", "%s is not a valid %s", brief(v, b, sizeof b), f->s);
	}
	return 1;
}

static int
val_type(vctx *c, const hm_jv *t, const hm_jv *v, const kw *k)
{
	size_t i;
	hm_buf w = {0};

	if (v->type == HM_JV_NULL && k->nullable && k->nullable->type == HM_JV_TRUE)
		return 1;
	if (t->type == HM_JV_STRING) {
		if (is_type(v, t->s, t->len))
			return 1;
		return fail(c, "type", "expected %s, got %s", t->s, type_word(v));
	}
	if (t->type != HM_JV_ARRAY)
		return 1;
	for (i = 0; i < t->n; i++)
		if (t->v[i]->type == HM_JV_STRING && is_type(v, t->v[i]->s, t->v[i]->len))
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

/* Whether key k[0..n) is declared by properties or matches a patternProperties pattern. */
/*
 * The member of o named k[0..n), through set (o's keys hashed) when there
 * is one: past a few members a scan per lookup would be quadratic (50,000
 * required properties).
 */
static const hm_jv *
lookup(const hm_jv *o, const hm_strset *set, const char *k, size_t n)
{
	size_t i;

	if (!set->cap)
		return hm__jv_member(o, k, n);
	i = hm__strset_find(set, k, n);
	return i == (size_t)-1 ? NULL : o->v[i];
}

static int
val_object(vctx *c, const kw *k, const hm_jv *v, int depth)
{
	size_t i, j, mark = c->path.len;
	int ok = 1;
	hm_strset vkeys = {0}, pkeys = {0};

	if (v->n > 8 && k->required && k->required->type == HM_JV_ARRAY && k->required->n > 8 &&
	    hm__strset_keys(&vkeys, v) != HM_OK)
		c->s->nomem = 1;
	if (k->props && k->props->type == HM_JV_OBJECT && k->props->n > 8 && v->n > 8 &&
	    hm__strset_keys(&pkeys, k->props) != HM_OK)
		c->s->nomem = 1;
	if (k->required && k->required->type == HM_JV_ARRAY)
		for (i = 0; i < k->required->n && !c->s->nomem; i++) {
			const hm_jv *r = k->required->v[i];

			if (r->type == HM_JV_STRING && !lookup(v, &vkeys, r->s, r->len))
				ok = fail(c, "required", "missing property \"%.*s\"", cut(r->s, r->len, 80), r->s);
		}
	if (k->minprops && k->minprops->type == HM_JV_NUMBER && (double)v->n < num_of(k->minprops))
		ok = fail(c, "minProperties", "%zu properties, fewer than %s", v->n, k->minprops->s);
	if (k->maxprops && k->maxprops->type == HM_JV_NUMBER && (double)v->n > num_of(k->maxprops))
		ok = fail(c, "maxProperties", "%zu properties, more than %s", v->n, k->maxprops->s);
	for (i = 0; i < v->n && !c->aborted; i++) {
		const char *key = v->k[i];
		size_t kl = v->klen[i];
		int seen = 0;

		path_push_key(c, key, kl);
		if (k->props && k->props->type == HM_JV_OBJECT) {
			const hm_jv *ps = lookup(k->props, &pkeys, key, kl);

			if (ps) {
				seen = 1;
				if (!val(c, ps, v->v[i], depth + 1))
					ok = 0;
			}
		}
		if (k->patprops && k->patprops->type == HM_JV_OBJECT)
			for (j = 0; j < k->patprops->n; j++) {
				int m = pattern_match(c, k->patprops->k[j], k->patprops->k[j],
				    k->patprops->klen[j], key, kl, "patternProperties");

				if (m < 0) {
					ok = 0;
					break;
				}
				if (m) {
					seen = 1;
					if (!val(c, k->patprops->v[j], v->v[i], depth + 1))
						ok = 0;
				}
			}
		if (!seen && k->addprops) {
			if (k->addprops->type == HM_JV_FALSE)
				ok = fail(c, "additionalProperties", "property \"%.*s\" is not allowed", cut(key, kl, 80), key);
			else if (!val(c, k->addprops, v->v[i], depth + 1))
				ok = 0;
		}
		if (k->propnames) {
			hm_jv name;

			memset(&name, 0, sizeof name);
			name.type = HM_JV_STRING;
			name.s = v->k[i];
			name.len = kl;
			if (!val_quiet(c, k->propnames, &name, depth + 1))
				ok = fail(c, "propertyNames", "the name \"%.*s\" is not allowed", cut(key, kl, 80), key);
		}
		c->path.len = mark;
	}
	/* dependencies (draft-07), dependentRequired and dependentSchemas */
	for (j = 0; j < 3; j++) {
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
			} else if (!val(c, dv, v, depth + 1))
				ok = 0;
		}
	}
	hm__strset_free(&vkeys);
	hm__strset_free(&pkeys);
	return ok;
}

static int
val_array(vctx *c, const kw *k, const hm_jv *v, int depth)
{
	size_t i, ntuple = 0, mark = c->path.len, first;
	const hm_jv *tuple = NULL, *rest = NULL;
	const char *restkw = "items";
	int ok = 1;
	size_t dup;

	if (k->minitems && k->minitems->type == HM_JV_NUMBER && (double)v->n < num_of(k->minitems))
		ok = fail(c, "minItems", "%zu items, fewer than %s", v->n, k->minitems->s);
	if (k->maxitems && k->maxitems->type == HM_JV_NUMBER && (double)v->n > num_of(k->maxitems))
		ok = fail(c, "maxItems", "%zu items, more than %s", v->n, k->maxitems->s);
	if (k->unique && k->unique->type == HM_JV_TRUE) {
		if ((dup = first_duplicate(&c->s->nomem, v, &first)) > 0)
			ok = fail(c, "uniqueItems", "items %zu and %zu are equal", first, dup);
	}
	/* 2020-12: prefixItems then items; draft-07: items as a list then additionalItems. */
	if (k->prefix && k->prefix->type == HM_JV_ARRAY) {
		tuple = k->prefix;
		rest = k->items;
	} else if (k->items && k->items->type == HM_JV_ARRAY) {
		tuple = k->items;
		rest = k->additems;
		restkw = "additionalItems";
	} else
		rest = k->items;
	if (tuple)
		ntuple = tuple->n;
	for (i = 0; i < v->n && !c->aborted; i++) {
		const hm_jv *is = i < ntuple ? tuple->v[i] : rest;

		if (!is)
			continue;
		path_push_index(c, i);
		if (is->type == HM_JV_FALSE && i >= ntuple)
			ok = fail(c, restkw, "no item allowed past the first %zu", ntuple);
		else if (!val(c, is, v->v[i], depth + 1))
			ok = 0;
		c->path.len = mark;
	}
	if (k->contains) {
		size_t nmatch = 0;
		double lo = 1, hi = -1;

		for (i = 0; i < v->n && !c->aborted; i++)
			nmatch += (size_t)val_quiet(c, k->contains, v->v[i], depth + 1);
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

static int
val_ref(vctx *c, const hm_jv *sch, const hm_jv *ref, const hm_jv *v, int depth)
{
	void **slot = ptrmap_find(&c->s->refs, sch);
	ref_ent *r = slot ? *slot : NULL;

	if (!r) {
		/* not seen while indexing: resolved against the root */
		const char *root = c->s->nidx ? c->s->idx[0].uri : "";
		char *u;
		const hm_jv *t;

		if (uri_resolve(&c->s->nomem, root, ref->s, ref->len, &u) != HM_OK)
			return 0;
		t = resolve_uri(c->s, u, &c->s->nomem);
		free(u);
		if (!t)
			return abort_check(c, "$ref", "cannot resolve \"%.*s\"", cut(ref->s, ref->len, 100), ref->s);
		return val(c, t, v, depth + 1);
	}
	if (!r->tried) {
		r->target = resolve_uri(c->s, r->uri, &c->s->nomem);
		if (c->s->nomem)
			return 0;
		r->tried = 1;
	}
	if (!r->target)
		return abort_check(c, "$ref", "cannot resolve \"%.*s\"", cut(r->uri, strlen(r->uri), 100), r->uri);
	return val(c, r->target, v, depth + 1);
}

static int
val(vctx *c, const hm_jv *sch, const hm_jv *v, int depth)
{
	kw k;
	size_t i, n;
	int ok = 1;
	char b[64];

	if (c->aborted || c->s->nomem)
		return 0;
	if (++c->steps > c->budget)
		return abort_check(c, "budget", "validation took more than %zu steps; stopped", c->budget);
	if (depth > MAX_DEPTH)
		return abort_check(c, "depth", "schemas applied more than %d levels deep "
		    "(a $ref loop?)", MAX_DEPTH);
	if (sch->type == HM_JV_TRUE)
		return 1;
	if (sch->type == HM_JV_FALSE)
		return fail(c, "false", "no value is allowed here");
	if (sch->type != HM_JV_OBJECT)
		return 1;
	read_keywords(sch, &k);
	if (k.ref && k.ref->type == HM_JV_STRING) {
		ok = val_ref(c, sch, k.ref, v, depth);
		if (c->s->draft7)
			return ok;
	}
	if (k.type && !val_type(c, k.type, v, &k))
		ok = 0;
	if (k.enum_ && k.enum_->type == HM_JV_ARRAY) {
		for (i = 0; i < k.enum_->n && !hm__jv_equal(v, k.enum_->v[i]); i++)
			;
		if (i == k.enum_->n)
			ok = fail(c, "enum", "%s is not one of the %zu allowed values",
			    brief(v, b, sizeof b), k.enum_->n);
	}
	if (k.const_ && !hm__jv_equal(v, k.const_))
		ok = fail(c, "const", "%s is not the constant value", brief(v, b, sizeof b));
	switch (v->type) {
	case HM_JV_OBJECT:
		if (!val_object(c, &k, v, depth))
			ok = 0;
		break;
	case HM_JV_ARRAY:
		if (!val_array(c, &k, v, depth))
			ok = 0;
		break;
	case HM_JV_STRING:
		n = (k.minlen || k.maxlen) ? utf8_count(v->s, v->len) : 0;
		if (k.minlen && k.minlen->type == HM_JV_NUMBER && (double)n < num_of(k.minlen))
			ok = fail(c, "minLength", "%zu characters, fewer than %s", n, k.minlen->s);
		if (k.maxlen && k.maxlen->type == HM_JV_NUMBER && (double)n > num_of(k.maxlen))
			ok = fail(c, "maxLength", "%zu characters, more than %s", n, k.maxlen->s);
		if (k.pattern && k.pattern->type == HM_JV_STRING) {
			int m = pattern_match(c, k.pattern, k.pattern->s, k.pattern->len, v->s, v->len,
			    "pattern");

			if (m == 0)
				ok = fail(c, "pattern", "%s does not match \"%.*s\"", brief(v, b, sizeof b),
				    cut(k.pattern->s, k.pattern->len, 60), k.pattern->s);
			else if (m < 0)
				ok = 0;
		}
		if (k.format && !check_format(c, k.format, v))
			ok = 0;
		break;
	case HM_JV_NUMBER:
		if (k.min && k.min->type == HM_JV_NUMBER && v->num < k.min->num)
			ok = fail(c, "minimum", "%s is less than %s", v->s, k.min->s);
		if (k.max && k.max->type == HM_JV_NUMBER && v->num > k.max->num)
			ok = fail(c, "maximum", "%s is greater than %s", v->s, k.max->s);
		if (k.xmin && k.xmin->type == HM_JV_NUMBER && v->num <= k.xmin->num)
			ok = fail(c, "exclusiveMinimum", "%s is not greater than %s", v->s, k.xmin->s);
		if (k.xmax && k.xmax->type == HM_JV_NUMBER && v->num >= k.xmax->num)
			ok = fail(c, "exclusiveMaximum", "%s is not less than %s", v->s, k.xmax->s);
		if (k.mult && k.mult->type == HM_JV_NUMBER && !multiple_of(v, k.mult))
			ok = fail(c, "multipleOf", "%s is not a multiple of %s", v->s, k.mult->s);
		break;
	default:
		break;
	}
	if (k.allof && k.allof->type == HM_JV_ARRAY)
		for (i = 0; i < k.allof->n; i++)
			if (!val(c, k.allof->v[i], v, depth + 1))
				ok = 0;
	if (k.anyof && k.anyof->type == HM_JV_ARRAY) {
		for (i = 0; i < k.anyof->n && !val_quiet(c, k.anyof->v[i], v, depth + 1); i++)
			;
		if (i == k.anyof->n)
			ok = fail(c, "anyOf", "%s matches none of the %zu schemas",
			    brief(v, b, sizeof b), k.anyof->n);
	}
	if (k.oneof && k.oneof->type == HM_JV_ARRAY) {
		size_t nok = 0;

		for (i = 0; i < k.oneof->n && nok < 2; i++)
			nok += (size_t)val_quiet(c, k.oneof->v[i], v, depth + 1);
		if (nok != 1)
			ok = fail(c, "oneOf", "%s matches %s of the %zu schemas, not exactly one",
			    brief(v, b, sizeof b), nok ? "more than one" : "none", k.oneof->n);
	}
	if (k.not_ && val_quiet(c, k.not_, v, depth + 1))
		ok = fail(c, "not", "%s matches the schema it must not", brief(v, b, sizeof b));
	if (k.if_ && (k.then_ || k.else_)) {
		const hm_jv *br = val_quiet(c, k.if_, v, depth + 1) ? k.then_ : k.else_;

		if (br && !val(c, br, v, depth + 1))
			ok = 0;
	}
	return ok && !c->aborted;
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

static hm_status
run(hm_schema *s, const hm_jv *v)
{
	vctx c;
	int ok;

	memset(&c, 0, sizeof c);
	c.s = s;
	s->nprobs = s->nkept = 0;
	hm_buf_reset(&s->text);
	c.budget = s->max_steps ? s->max_steps : BASE_STEPS + 64 * count_nodes(v);
	ok = val(&c, s->root, v, 0);
	if (!ok && !s->nprobs && !s->nomem)
		fail(&c, "schema", "the value does not match");
	hm_buf_free(&c.path);
	if (s->nomem)
		return HM_ENOMEM;
	return ok && !s->nprobs ? HM_OK : HM_EINPUT;
}

/* ------------------------------------------------------------ public */

static void
schema_clear(hm_schema *s)
{
	size_t i;

	for (i = 0; i < s->refs.cap; i++)
		if (s->refs.k[i]) {
			ref_ent *r = s->refs.v[i];

			free(r->uri);
			free(r);
		}
	ptrmap_free(&s->refs);
	for (i = 0; i < s->res.cap; i++)
		if (s->res.k[i])
			hm__re_free(s->res.v[i]);
	ptrmap_free(&s->res);
	for (i = 0; i < s->nidx; i++)
		free(s->idx[i].uri);
	free(s->idx);
	for (i = 0; i < s->ndocs; i++)
		hm__jv_free(s->docs[i]);
	free(s->docs);
	free(s->probs);
	hm_buf_free(&s->text);
	if (!s->borrowed)
		hm__jv_free(s->root);
}

void
hm_schema_free(hm_schema *s)
{
	if (!s)
		return;
	schema_clear(s);
	free(s);
}

/*
 * Check the schema's own patterns and local references up front, so that
 * a bad schema is an error of the schema, not of every value.
 */
static hm_status
precheck(hm_schema *s, const hm_jv *n, hm_error *err, int depth)
{
	size_t i;
	hm_status st;
	char why[160];

	if (depth > 200)
		return HM_OK;
	if (n->type == HM_JV_ARRAY) {
		for (i = 0; i < n->n; i++)
			if ((st = precheck(s, n->v[i], err, depth + 1)) != HM_OK)
				return st;
		return HM_OK;
	}
	if (n->type != HM_JV_OBJECT)
		return HM_OK;
	for (i = 0; i < n->n; i++) {
		const hm_jv *m = n->v[i];

		if (data_member(n->k[i]))
			continue;
		if (!strcmp(n->k[i], "pattern") && m->type == HM_JV_STRING) {
			hm_re *re;

			if ((st = hm__re_compile(m->s, m->len, &re, why, sizeof why)) != HM_OK) {
				if (st == HM_EINPUT)
					hm__seterr(err, "pattern \"%.*s\": %s", cut(m->s, m->len, 60), m->s, why);
				return st;
			}
			hm__re_free(re);
		} else if (!strcmp(n->k[i], "patternProperties") && m->type == HM_JV_OBJECT) {
			size_t j;

			for (j = 0; j < m->n; j++) {
				hm_re *re;

				st = hm__re_compile(m->k[j], m->klen[j], &re, why, sizeof why);
				if (st != HM_OK) {
					if (st == HM_EINPUT)
						hm__seterr(err, "patternProperties \"%.*s\": %s",
						    cut(m->k[j], m->klen[j], 60), m->k[j], why);
					return st;
				}
				hm__re_free(re);
			}
		}
		if ((st = precheck(s, m, err, depth + 1)) != HM_OK)
			return st;
	}
	return HM_OK;
}

/*
 * buf[0..len) read as one JSON value (numbers as written) into *out; a
 * reading that fails is HM_EINPUT with err saying what (what: what the
 * text was to be, "" for none) and the line, or HM_ENOMEM.
 */
static hm_status
read_json(const char *buf, size_t len, const char *what, hm_jv **out, hm_error *err)
{
	char msg[200];
	size_t errpos = 0;
	hm_status st = hm__jv_read(buf, len, NULL, 1, HM_JV_NUMTEXT, out, msg, sizeof msg, &errpos);

	if (st != HM_EINPUT)
		return st;
	hm__seterr(err, "%s%snot JSON: %s", what, *what ? " is " : "", msg);
	hm__err_json_at(err, buf, len, errpos);
	return HM_EINPUT;
}

/* A ref into the root document itself that finds nothing is the schema's error. */
static hm_status
check_local_refs(hm_schema *s, hm_error *err)
{
	const char *root = s->idx[0].uri;
	size_t i, rl = strlen(root);

	for (i = 0; i < s->refs.cap; i++) {
		ref_ent *r;

		if (!s->refs.k[i])
			continue;
		r = s->refs.v[i];
		if (strncmp(r->uri, root, rl) || (r->uri[rl] && r->uri[rl] != '#'))
			continue;
		r->target = resolve_uri(s, r->uri, &s->nomem);
		if (s->nomem)
			return HM_ENOMEM;
		if (!r->target) {
			hm__seterr(err, "$ref \"%.*s\" points to nothing in the schema",
			    cut(r->uri, strlen(r->uri), 120), r->uri);
			return HM_EINPUT;
		}
		r->tried = 1;
	}
	return HM_OK;
}

static int
draft7_uri(const hm_jv *root)
{
	const hm_jv *d = hm__jv_get(root, "$schema");

	return d && d->type == HM_JV_STRING &&
	    (strstr(d->s, "draft-07") || strstr(d->s, "draft-06") || strstr(d->s, "draft-04"));
}

static hm_status
schema_init(hm_schema *s, const hm_schema_opts *o, hm_error *err)
{
	hm_status st;

	s->formats = o->formats;
	s->max_steps = o->max_steps;
	s->draft7 = o->draft == HM_DRAFT_7 ||
	    (o->draft == HM_DRAFT_AUTO && s->root->type == HM_JV_OBJECT && draft7_uri(s->root));
	if (s->root->type != HM_JV_OBJECT && s->root->type != HM_JV_TRUE &&
	    s->root->type != HM_JV_FALSE) {
		hm__seterr(err, "a schema is an object or a boolean, not %s", type_word(s->root));
		return HM_EINPUT;
	}
	s->nomem = 0;
	add_doc(s, s->root, "");
	if (s->nomem)
		return HM_ENOMEM;
	if ((st = precheck(s, s->root, err, 0)) != HM_OK)
		return st;
	return check_local_refs(s, err);
}

hm_status
hm_schema_new(const char *buf, size_t len, const hm_schema_opts *given, hm_schema **out,
              hm_error *err)
{
	hm_schema_opts o = HM_SCHEMA_OPTS_INIT;
	hm_schema *s;
	hm_status st;

	*out = NULL;
	if (err)
		err->line = 0;
	if (hm__opts_take(&o, sizeof o, given, err) != HM_OK)
		return HM_EINPUT;
	if (!(s = calloc(1, sizeof *s)))
		return HM_ENOMEM;
	if ((st = read_json(buf, len, "the schema", &s->root, err)) != HM_OK) {
		free(s);
		return st;
	}
	if ((st = schema_init(s, &o, err)) != HM_OK) {
		hm_schema_free(s);
		return st;
	}
	*out = s;
	return HM_OK;
}

/*
 * The schema of a structured output format: buf holds a JSON Schema, a
 * response format ({"type":"json_schema",...}: Chat's json_schema.schema or
 * Responses' schema) or a request holding one (response_format, text.format).
 */
static const hm_jv *
format_schema(const hm_jv *v)
{
	const hm_jv *f = NULL, *t, *js;

	if (v->type != HM_JV_OBJECT)
		return v;
	if ((t = hm__jv_get(v, "response_format")) && t->type == HM_JV_OBJECT)
		f = t;
	else if ((t = hm__jv_get(hm__jv_get(v, "text"), "format")) && t->type == HM_JV_OBJECT)
		f = t;
	else if ((t = hm__jv_get(v, "type")) && t->type == HM_JV_STRING && !strcmp(t->s, "json_schema"))
		f = v;
	if (!f)
		return v;
	if ((js = hm__jv_get(f, "json_schema")) && js->type == HM_JV_OBJECT)
		f = js;
	return hm__jv_get(f, "schema");
}

hm_status
hm_schema_from_format(const char *buf, size_t len, const hm_schema_opts *given,
                      hm_schema **out, hm_error *err)
{
	hm_schema_opts o = HM_SCHEMA_OPTS_INIT;
	hm_schema *s;
	hm_jv *doc;
	const hm_jv *sch;
	hm_status st;

	*out = NULL;
	if (err)
		err->line = 0;
	if (hm__opts_take(&o, sizeof o, given, err) != HM_OK)
		return HM_EINPUT;
	if ((st = read_json(buf, len, "the schema", &doc, err)) != HM_OK)
		return st;
	if (!(sch = format_schema(doc))) {
		hm__jv_free(doc);
		hm__seterr(err, "the response format holds no `schema`");
		return HM_EINPUT;
	}
	if (!(s = calloc(1, sizeof *s)) || !(s->root = hm__jv_copy(sch))) {
		free(s);
		hm__jv_free(doc);
		return HM_ENOMEM;
	}
	hm__jv_free(doc);
	if ((st = schema_init(s, &o, err)) != HM_OK) {
		hm_schema_free(s);
		return st;
	}
	*out = s;
	return HM_OK;
}

hm_status
hm_schema_add_resource(hm_schema *s, const char *uri, const char *buf, size_t len, hm_error *err)
{
	char msg[200];
	hm_jv *doc, **t;
	hm_status st = hm__jv_read(buf, len, NULL, 1, HM_JV_NUMTEXT, &doc, msg, sizeof msg, NULL);

	if (st != HM_OK) {
		if (st == HM_EINPUT)
			hm__seterr(err, "%s: not JSON: %s", uri, msg);
		return st;
	}
	if (!(t = realloc(s->docs, (s->ndocs + 1) * sizeof *t))) {
		hm__jv_free(doc);
		return HM_ENOMEM;
	}
	s->docs = t;
	s->docs[s->ndocs++] = doc;
	s->nomem = 0;
	add_doc(s, doc, uri);
	return s->nomem ? HM_ENOMEM : HM_OK;
}

/* Problem i as "PATH: KEYWORD: message" into b (under s->nomem). */
static void
problem_text(hm_schema *s, size_t i, hm_buf *b)
{
	const problem *p = &s->probs[i];
	const char *path = s->text.p + p->path;

	hm__adds(&s->nomem, b, *path ? path : "(root)");
	hm__adds(&s->nomem, b, ": ");
	hm__adds(&s->nomem, b, s->text.p + p->keyword);
	hm__adds(&s->nomem, b, ": ");
	hm__adds(&s->nomem, b, s->text.p + p->msg);
}

hm_status
hm_schema_validate(hm_schema *s, const char *buf, size_t len, hm_error *err)
{
	hm_jv *v;
	hm_status st;

	s->nprobs = s->nkept = 0;
	s->nomem = 0;
	if (err)
		err->line = 0;
	if ((st = read_json(buf, len, "", &v, err)) != HM_OK)
		return st;
	st = run(s, v);
	hm__jv_free(v);

	if (st == HM_EINPUT && s->nkept) {
		hm_buf b = {0};

		problem_text(s, 0, &b);
		if (s->nprobs > 1) {
			hm__adds(&s->nomem, &b, " (and ");
			hm__addu(&s->nomem, &b, s->nprobs - 1);
			hm__adds(&s->nomem, &b, s->nprobs > 2 ? " more problems)" : " more problem)");
		}
		if (s->nomem) {
			hm_buf_free(&b);
			return HM_ENOMEM;
		}
		hm__seterr(err, "%s", b.p);
		hm_buf_free(&b);
	}
	return st;
}

size_t
hm_schema_nproblems(const hm_schema *s)
{
	return s->nprobs;
}

int
hm_schema_problem_get(const hm_schema *s, size_t i, hm_schema_problem *p)
{
	if (i >= s->nkept)
		return 0;
	p->path = s->text.p + s->probs[i].path;
	p->keyword = s->text.p + s->probs[i].keyword;
	p->message = s->text.p + s->probs[i].msg;
	return 1;
}

hm_status
hm__schema_check_jv(const hm_jv *schema, const hm_jv *value, size_t *problems, hm_buf *msg)
{
	hm_schema s;
	hm_schema_opts o = HM_SCHEMA_OPTS_INIT;
	hm_error e;
	hm_status st;
	size_t i;

	*problems = 0;
	memset(&s, 0, sizeof s);
	s.root = (hm_jv *)schema;
	s.borrowed = 1;
	e.msg[0] = '\0';
	st = schema_init(&s, &o, &e);
	if (st == HM_EINPUT) {
		*problems = 1;
		hm__adds(&s.nomem, msg, "the tool's schema cannot be used: ");
		hm__adds(&s.nomem, msg, e.msg);
	} else if (st == HM_OK && (st = run(&s, value)) == HM_EINPUT) {
		*problems = s.nprobs;
		for (i = 0; i < s.nkept && i < 4; i++) {
			if (i)
				hm__adds(&s.nomem, msg, "; ");
			problem_text(&s, i, msg);
		}
		if (s.nprobs > 4)
			hm__adds(&s.nomem, msg, "; ...");
	}
	if (s.nomem)
		st = HM_ENOMEM;
	schema_clear(&s);
	return st;
}
