/*
 * json_schema_ref.c - JSON Schema's references and documents: URIs
 * resolved against their base, the documents a schema knows (itself, the
 * ones added, the bundled metaschemas, the ones read from a mapped
 * directory, never fetched), their resources (`$id`) with the draft and
 * vocabularies each one is written in, and the nodes `$id`, `$anchor`,
 * `$dynamicAnchor` and JSON Pointers name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversation_int.h"
#include "json_schema_int.h"

/* ------------------------------------------------------------ pointer map */

static size_t
ptr_hash(const void *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x;
}

void **
hm__ptrmap_find(const hm__ptrmap *m, const void *key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = ptr_hash(key) & (m->cap - 1); m->k[i]; i = (i + 1) & (m->cap - 1))
		if (m->k[i] == key)
			return &m->v[i];
	return NULL;
}

hm_status
hm__ptrmap_put(hm__ptrmap *m, const void *key, void *val)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		hm__ptrmap g;
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
				hm__ptrmap_put(&g, m->k[i], m->v[i]);
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

void
hm__ptrmap_free(hm__ptrmap *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------ the index */

struct hm__idx {
	char *uri;          /* absolute, no fragment; or URI#anchor */
	const hm_jv *node;
};

/* Add uri (taken over) -> node to the index. */
static hm_status
idx_add(hm_schema *s, char *uri, const hm_jv *node)
{
	if (s->nidx == s->capidx) {
		size_t c = s->capidx ? 2 * s->capidx : 8;
		struct hm__idx *t = realloc(s->idx, c * sizeof *t);

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

const hm_jv *
hm__schema_idx_find(const hm_schema *s, const char *uri, size_t len)
{
	size_t i;

	for (i = s->nidx; i-- > 0;)
		if (strlen(s->idx[i].uri) == len && !memcmp(s->idx[i].uri, uri, len))
			return s->idx[i].node;
	return NULL;
}

/* ------------------------------------------------------------ URIs */

/* Length of a URI's scheme and colon ("http:"), or 0 for a relative reference. */
size_t
hm__uri_scheme_len(const char *u, size_t n)
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
 * RFC 3986 section 5.2.4: p[0..n) without its "." and ".." segments,
 * into b.
 */
static void
remove_dots(int *nomem, hm_buf *b, const char *p, size_t n)
{
	size_t start = b->len, i = 0;

	while (i < n) {
		size_t j;

		if (n - i >= 3 && !memcmp(p + i, "../", 3)) {
			i += 3;
		} else if (n - i >= 2 && !memcmp(p + i, "./", 2)) {
			i += 2;
		} else if ((n - i >= 3 && !memcmp(p + i, "/./", 3)) || (n - i == 2 && !memcmp(p + i, "/.", 2))) {
			i += 2; /* "/./x" -> "/x", "/." -> "/" */
			if (i == n) {
				hm__putc(nomem, b, '/');
				break;
			}
		} else if ((n - i >= 4 && !memcmp(p + i, "/../", 4)) || (n - i == 3 && !memcmp(p + i, "/..", 3))) {
			/* drop the last segment written */
			while (b->len > start && b->p[b->len - 1] != '/')
				b->len--;
			if (b->len > start)
				b->len--;
			i += 3;
			if (i == n) {
				hm__putc(nomem, b, '/');
				break;
			}
		} else if ((n - i == 1 && p[i] == '.') || (n - i == 2 && !memcmp(p + i, "..", 2))) {
			break;
		} else {
			/* the first segment, with its leading slash */
			j = i + (p[i] == '/');
			while (j < n && p[j] != '/')
				j++;
			hm__add(nomem, b, p + i, j - i);
			i = j;
		}
	}
}

hm_status
hm__uri_resolve(int *nomem, const char *base, const char *ref, size_t reflen, char **out)
{
	hm_buf m = {0}, b = {0};
	size_t blen = strlen(base), bsch = hm__uri_scheme_len(base, blen), cut, i, auth, pend;
	const char *h;

	if ((h = memchr(base, '#', blen)))
		blen = (size_t)(h - base);
	/* the merged reference in m, then its path without dot segments in b */
	if (hm__uri_scheme_len(ref, reflen) || !blen) {
		hm__add(nomem, &m, ref, reflen);
	} else if (reflen && ref[0] == '#') {
		hm__add(nomem, &m, base, blen);
		hm__add(nomem, &m, ref, reflen);
	} else if (reflen >= 2 && ref[0] == '/' && ref[1] == '/') {
		hm__add(nomem, &m, base, bsch);
		hm__add(nomem, &m, ref, reflen);
	} else if (reflen && ref[0] == '/') {
		/* the scheme and authority of base */
		cut = bsch;
		if (cut + 1 < blen && base[cut] == '/' && base[cut + 1] == '/') {
			for (cut += 2; cut < blen && base[cut] != '/'; cut++)
				;
		}
		hm__add(nomem, &m, base, cut);
		hm__add(nomem, &m, ref, reflen);
	} else {
		if ((h = memchr(base, '?', blen)) && (reflen == 0 || ref[0] != '?'))
			blen = (size_t)(h - base);
		if (reflen && ref[0] == '?') {
			if ((h = memchr(base, '?', blen)))
				blen = (size_t)(h - base);
			cut = blen;
		} else
			for (cut = blen; cut > bsch && base[cut - 1] != '/'; cut--)
				;
		hm__add(nomem, &m, base, cut);
		hm__add(nomem, &m, ref, reflen);
	}
	hm__putc(nomem, &m, '\0');
	*out = NULL;
	if (*nomem) {
		hm_buf_free(&m);
		return HM_ENOMEM;
	}
	/* scheme and authority as they are; the path's dots removed; the rest */
	auth = hm__uri_scheme_len(m.p, m.len - 1);
	if (m.p[auth] == '/' && m.p[auth + 1] == '/')
		for (auth += 2; m.p[auth] && m.p[auth] != '/' && m.p[auth] != '?' && m.p[auth] != '#'; auth++)
			;
	for (pend = auth; m.p[pend] && m.p[pend] != '?' && m.p[pend] != '#'; pend++)
		;
	hm__add(nomem, &b, m.p, auth);
	if (hm__uri_scheme_len(m.p, m.len - 1) || (pend > auth && m.p[auth] == '/'))
		remove_dots(nomem, &b, m.p + auth, pend - auth);
	else
		hm__add(nomem, &b, m.p + auth, pend - auth); /* relative: kept as written */
	hm__adds(nomem, &b, m.p + pend);
	hm__putc(nomem, &b, '\0');
	hm_buf_free(&m);
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

/* ------------------------------------------------------------ drafts */

/* The draft a metaschema URI names (no fragment or an empty one), or 0. */
static int
draft_of_uri(const char *u, size_t n)
{
	static const struct {
		const char *uri;
		int draft;
	} known[] = {
		{ "json-schema.org/draft-04/schema", 4 },
		{ "json-schema.org/draft-06/schema", 6 },
		{ "json-schema.org/draft-07/schema", 7 },
		{ "json-schema.org/draft/2019-09/schema", 2019 },
		{ "json-schema.org/draft/2020-12/schema", 2020 },
		{ "json-schema.org/schema", 2020 }, /* the latest */
		{ "json-schema.org/draft-03/schema", 3 },
	};
	size_t i;

	if (n && u[n - 1] == '#')
		n--;
	if (n > 8 && !memcmp(u, "https://", 8))
		u += 8, n -= 8;
	else if (n > 7 && !memcmp(u, "http://", 7))
		u += 7, n -= 7;
	else
		return 0;
	for (i = 0; i < sizeof known / sizeof *known; i++)
		if (strlen(known[i].uri) == n && !memcmp(known[i].uri, u, n))
			return known[i].draft;
	return 0;
}

int
hm__schema_doc_draft(const hm_schema *s, const hm_jv *doc)
{
	const hm_jv *ms = doc->type == HM_JV_OBJECT ? hm__jv_get(doc, "$schema") : NULL;

	if (!ms)
		return s->nres ? s->res[0]->draft : 2020;
	return ms->type == HM_JV_STRING ? draft_of_uri(ms->s, ms->len) : 0;
}

static unsigned
voc_bit(const char *u, int *draft)
{
	static const char *const p19 = "https://json-schema.org/draft/2019-09/vocab/";
	static const char *const p20 = "https://json-schema.org/draft/2020-12/vocab/";
	const char *name;

	if (!strncmp(u, p19, strlen(p19))) {
		*draft = 2019;
		name = u + strlen(p19);
		if (!strcmp(name, "applicator"))
			return HM__VOC_APPLICATOR | HM__VOC_UNEVALUATED;
	} else if (!strncmp(u, p20, strlen(p20))) {
		*draft = 2020;
		name = u + strlen(p20);
		if (!strcmp(name, "applicator"))
			return HM__VOC_APPLICATOR;
		if (!strcmp(name, "unevaluated"))
			return HM__VOC_UNEVALUATED;
		if (!strcmp(name, "format-assertion"))
			return HM__VOC_FORMAT;
	} else
		return (unsigned)-1;
	if (!strcmp(name, "validation"))
		return HM__VOC_VALIDATION;
	if (!strcmp(name, "core") || !strcmp(name, "meta-data") || !strcmp(name, "content") ||
	    !strcmp(name, "format") || !strcmp(name, "format-annotation"))
		return 0;
	return (unsigned)-1;
}

/*
 * The draft and vocabularies of a resource whose `$schema` is d (a
 * string member), into *draft, *voc: a draft's metaschema, or a
 * metaschema known to s (added, bundled, in a mapped directory) whose
 * own `$schema` is a draft's and whose `$vocabulary` lists what applies.
 * HM_EINPUT (err) when it is none of these, or draft-03.
 */
static hm_status
draft_of(hm_schema *s, const hm_jv *d, int *draft, unsigned *voc, hm_error *err)
{
	const hm_jv *meta, *ms, *vocab;
	char *u;
	size_t i;
	int k = draft_of_uri(d->s, d->len);

	*voc = HM__VOC_DEFAULT;
	if (k == 3) {
		hm__seterr(err, "$schema \"%s\": draft-03 is not supported (drafts 04, 06, 07, "
		    "2019-09 and 2020-12 are)", d->s);
		return HM_EINPUT;
	}
	if (k) {
		*draft = k;
		return HM_OK;
	}
	if (hm__uri_resolve(&s->nomem, "", d->s, d->len, &u) != HM_OK)
		return HM_ENOMEM;
	meta = hm__schema_resolve(s, u);
	free(u);
	if (s->nomem)
		return HM_ENOMEM;
	ms = meta ? hm__jv_get(meta, "$schema") : NULL;
	if (!meta || !ms || ms->type != HM_JV_STRING || !(k = draft_of_uri(ms->s, ms->len)) ||
	    k == 3) {
		hm__seterr(err, "$schema \"%.*s\" is not a draft this validator knows (04, 06, 07, "
		    "2019-09, 2020-12) nor a metaschema given to it", (int)(d->len > 200 ? 200 : d->len),
		    d->s);
		return HM_EINPUT;
	}
	*draft = k;
	vocab = hm__jv_get(meta, "$vocabulary");
	if (k >= 2019 && vocab && vocab->type == HM_JV_OBJECT) {
		*voc = 0;
		for (i = 0; i < vocab->n; i++) {
			int vd = k;
			unsigned bit = voc_bit(vocab->k[i], &vd);

			if (bit == (unsigned)-1) {
				if (vocab->v[i]->type == HM_JV_TRUE) {
					hm__seterr(err, "$schema \"%.*s\" requires the vocabulary \"%.*s\", "
					    "which this validator does not know", (int)(d->len > 120 ? 120 : d->len),
					    d->s, (int)(vocab->klen[i] > 120 ? 120 : vocab->klen[i]), vocab->k[i]);
					return HM_EINPUT;
				}
				continue;
			}
			*voc |= bit;
		}
	}
	return HM_OK;
}

/* ------------------------------------------------------------ indexing */

int
hm__schema_data_member(const char *k)
{
	return !strcmp(k, "enum") || !strcmp(k, "const") || !strcmp(k, "default") ||
	    !strcmp(k, "examples");
}

static hm__res *
res_new(hm_schema *s, const hm_jv *node, const char *uri, int draft, unsigned voc)
{
	hm__res *r, **t;

	if (!(t = realloc(s->res, (s->nres + 1) * sizeof *t)) || !(r = calloc(1, sizeof *r))) {
		if (t)
			s->res = t;
		s->nomem = 1;
		return NULL;
	}
	s->res = t;
	if (!(r->uri = hm__memdup(uri, strlen(uri)))) {
		free(r);
		s->nomem = 1;
		return NULL;
	}
	r->node = node;
	r->draft = draft;
	r->voc = voc;
	/* format: as asked, else asserted in drafts 4 to 7 and by the format-assertion vocabulary */
	if (s->opt_formats >= 0)
		r->formats = s->opt_formats;
	else
		r->formats = draft <= 7 || (voc & HM__VOC_FORMAT);
	s->res[s->nres++] = r;
	if (s->nres > 1 && (draft != s->res[0]->draft || voc != s->res[0]->voc ||
	    r->formats != s->res[0]->formats))
		s->track = 1;
	return r;
}

/* Index n's $id, anchors and references, and those inside it (failure: s->nomem). */
static hm_status
index_node(hm_schema *s, const hm_jv *n, const hm__res *res, const char *base, int depth,
           hm_error *err)
{
	const hm_jv *id, *ref, *anchor, *dref, *sch;
	char *nb = NULL;
	size_t i;
	hm_status st;

	if (s->nomem || depth > 200)
		return s->nomem ? HM_ENOMEM : HM_OK;
	if (n->type == HM_JV_ARRAY) {
		for (i = 0; i < n->n; i++)
			if ((st = index_node(s, n->v[i], res, base, depth + 1, err)) != HM_OK)
				return st;
		return HM_OK;
	}
	if (n->type != HM_JV_OBJECT)
		return HM_OK;
	ref = hm__jv_get(n, "$ref");
	id = hm__jv_get(n, res->draft == 4 ? "id" : "$id");
	/* drafts 4 to 7: $id beside $ref is ignored, as every sibling of $ref */
	if (res->draft <= 7 && ref && ref->type == HM_JV_STRING)
		id = NULL;
	if (id && id->type == HM_JV_STRING && depth > 0) {
		if (res->draft <= 7 && id->len && id->s[0] == '#') {
			/* drafts 4 to 7: "$id": "#name" is a plain-name anchor */
			if (hm__uri_resolve(&s->nomem, base, id->s, id->len, &nb) != HM_OK ||
			    idx_add(s, nb, n) != HM_OK)
				return HM_ENOMEM;
		} else {
			int draft = res->draft;
			unsigned voc = res->voc;
			hm__res *r;

			sch = hm__jv_get(n, "$schema");
			if (sch && sch->type == HM_JV_STRING &&
			    (st = draft_of(s, sch, &draft, &voc, err)) != HM_OK)
				return st;
			if (hm__uri_resolve(&s->nomem, base, id->s, id->len, &nb) != HM_OK)
				return HM_ENOMEM;
			if (!(r = res_new(s, n, nb, draft, voc)) || idx_add(s, nb, n) != HM_OK)
				return HM_ENOMEM;
			res = r;
			base = nb; /* the index owns it now */
		}
	}
	if (hm__ptrmap_put(&s->resof, n, (void *)res) != HM_OK) {
		s->nomem = 1;
		return HM_ENOMEM;
	}
	for (i = 0; i < 2; i++) {
		anchor = hm__jv_get(n, i ? "$dynamicAnchor" : "$anchor");
		if (anchor && anchor->type == HM_JV_STRING && res->draft >= (i ? 2020 : 2019)) {
			hm_buf a = {0};
			const char *h = strchr(base, '#');

			hm__add(&s->nomem, &a, base, h ? (size_t)(h - base) : strlen(base));
			hm__putc(&s->nomem, &a, '#');
			hm__add(&s->nomem, &a, anchor->s, anchor->len);
			hm__putc(&s->nomem, &a, '\0');
			if (s->nomem) {
				hm_buf_free(&a);
				return HM_ENOMEM;
			}
			if (idx_add(s, a.p, n) != HM_OK)
				return HM_ENOMEM;
		}
	}
	for (i = 0; i < 3; i++) {
		static const char *const words[] = { "$ref", "$dynamicRef", "$recursiveRef" };
		hm__ref *r;

		dref = i ? hm__jv_get(n, words[i]) : ref;
		if (!dref || dref->type != HM_JV_STRING)
			continue;
		if (i)
			s->track = 1;
		if (!(r = calloc(1, sizeof *r)) ||
		    hm__uri_resolve(&s->nomem, base, dref->s, dref->len, &r->uri) != HM_OK ||
		    hm__ptrmap_put(i ? &s->drefs : &s->refs, n, r) != HM_OK) {
			if (r)
				free(r->uri);
			free(r);
			s->nomem = 1;
			return HM_ENOMEM;
		}
	}
	for (i = 0; i < n->n; i++)
		if (!hm__schema_data_member(n->k[i]) &&
		    (st = index_node(s, n->v[i], res, base, depth + 1, err)) != HM_OK)
			return st;
	return HM_OK;
}

hm_status
hm__schema_add_doc(hm_schema *s, const hm_jv *doc, const char *uri, int draft, hm_error *err)
{
	char *u = NULL;
	const hm_jv *id = NULL, *sch = NULL;
	unsigned voc = HM__VOC_DEFAULT;
	hm__res *r;
	hm_status st;

	if (doc->type == HM_JV_OBJECT) {
		sch = hm__jv_get(doc, "$schema");
		if (sch && sch->type == HM_JV_STRING &&
		    (st = draft_of(s, sch, &draft, &voc, err)) != HM_OK)
			return st;
		id = hm__jv_get(doc, draft == 4 ? "id" : "$id");
	}
	if (id && id->type == HM_JV_STRING)
		st = hm__uri_resolve(&s->nomem, uri, id->s, id->len, &u);
	else
		st = hm__uri_resolve(&s->nomem, "", uri, strlen(uri), &u);
	if (st != HM_OK)
		return st;
	/* a fragment in a draft-04 root id ("...schema#") is no part of the document's URI */
	if (strchr(u, '#'))
		*strchr(u, '#') = '\0';
	if (!(r = res_new(s, doc, u, draft, voc))) {
		free(u);
		return HM_ENOMEM;
	}
	if (idx_add(s, u, doc) != HM_OK)
		return HM_ENOMEM;
	/* the document under the name it was asked by too */
	if (*uri && strcmp(uri, u)) {
		char *u2 = NULL;

		if (hm__uri_resolve(&s->nomem, "", uri, strlen(uri), &u2) != HM_OK ||
		    idx_add(s, u2, doc) != HM_OK)
			return HM_ENOMEM;
	}
	return index_node(s, doc, r, r->uri, 0, err);
}

/* ------------------------------------------------------------ documents */

/* Keep doc (read here) with the schema's documents. */
static int
keep_doc(hm_schema *s, hm_jv *doc)
{
	hm_jv **t = realloc(s->docs, (s->ndocs + 1) * sizeof *t);

	if (!t) {
		hm__jv_free(doc);
		s->nomem = 1;
		return 0;
	}
	s->docs = t;
	s->docs[s->ndocs++] = doc;
	return 1;
}

/* Read the document of absolute URI doc[0..n) from a bundled metaschema or a mapped directory. */
static const hm_jv *
load_doc(hm_schema *s, const char *doc, size_t n)
{
	const struct hm__metaschema *m = hm__metaschema_find(doc, n);
	hm_buf text = {0}, path = {0};
	hm_jv *v = NULL;
	char *uri;
	size_t i;
	hm_error e;

	s->doc_err[0] = '\0';
	if (m) {
		for (i = 0; m->text[i]; i++)
			hm__adds(&s->nomem, &text, m->text[i]);
	} else {
		for (i = 0; i + 1 < s->ndirs; i += 2) {
			size_t pl = strlen(s->dirs[i]);
			FILE *f;
			char chunk[4096];
			size_t k;

			if (n <= pl || memcmp(doc, s->dirs[i], pl))
				continue;
			/* the rest of the URI as a path under the directory, without ".." (dots are gone) */
			hm_buf_reset(&path);
			hm__adds(&s->nomem, &path, s->dirs[i + 1]);
			if (path.len && path.p[path.len - 1] != '/' && doc[pl] != '/')
				hm__putc(&s->nomem, &path, '/');
			hm__add(&s->nomem, &path, doc + pl, n - pl);
			hm__putc(&s->nomem, &path, '\0');
			if (s->nomem || memchr(doc + pl, '?', n - pl) || strstr(path.p, "/../"))
				continue;
			if (!(f = fopen(path.p, "rb")))
				continue;
			while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
				hm__add(&s->nomem, &text, chunk, k);
			fclose(f);
			break;
		}
		if (i + 1 >= s->ndirs) {
			hm_buf_free(&path);
			return NULL;
		}
	}
	if (s->nomem || hm__jv_read(text.p ? text.p : "", text.len, NULL, 1, HM_JV_NUMTEXT | HM_JV_NODUP, &v,
	    e.msg, sizeof e.msg, NULL) != HM_OK) {
		if (!s->nomem)
			snprintf(s->doc_err, sizeof s->doc_err, "%.80s is not JSON: %.100s",
			    path.p ? path.p : "the document", e.msg);
		hm_buf_free(&path);
		hm_buf_free(&text);
		return NULL;
	}
	hm_buf_free(&text);
	/* a bundled metaschema is known good; a directory's document is checked first */
	if (!m && s->check_doc && s->check_doc(s, v, &e) != HM_OK) {
		if (!s->nomem)
			snprintf(s->doc_err, sizeof s->doc_err, "%.80s: %.110s", path.p ? path.p : "the document", e.msg);
		hm__jv_free(v);
		hm_buf_free(&path);
		return NULL;
	}
	if (!keep_doc(s, v) || !(uri = hm__memdup(doc, n))) {
		s->nomem = 1;
		hm_buf_free(&path);
		return NULL;
	}
	if (hm__schema_add_doc(s, v, uri, s->nres ? s->res[0]->draft : 2020, &e) != HM_OK) {
		if (!s->nomem)
			snprintf(s->doc_err, sizeof s->doc_err, "%.80s: %.110s", path.p ? path.p : uri, e.msg);
		hm_buf_free(&path);
		free(uri);
		return NULL;
	}
	hm_buf_free(&path);
	free(uri);
	return hm__schema_idx_find(s, doc, n);
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

const hm_jv *
hm__schema_resolve(hm_schema *s, const char *u)
{
	const char *h = strchr(u, '#');
	size_t dlen = h ? (size_t)(h - u) : strlen(u);
	const hm_jv *doc, *r;
	hm_buf frag = {0};

	if (!(doc = hm__schema_idx_find(s, u, dlen)) && !(doc = load_doc(s, u, dlen)))
		return NULL;
	if (!h)
		return doc;
	pct_decode(&s->nomem, &frag, h + 1, strlen(h + 1));
	hm__putc(&s->nomem, &frag, '\0');
	if (s->nomem) {
		hm_buf_free(&frag);
		return NULL;
	}
	if (frag.p[0] == '/' || !frag.p[0])
		r = pointer_get(doc, frag.p, frag.len - 1, &s->nomem);
	else
		r = hm__schema_idx_find(s, u, strlen(u)); /* a plain-name anchor */
	hm_buf_free(&frag);
	return r;
}

const hm__res *
hm__schema_res_of(const hm_schema *s, const hm_jv *sch)
{
	void **r = hm__ptrmap_find(&s->resof, sch);

	return r ? *r : s->res[0];
}

void
hm__schema_refs_free(hm_schema *s)
{
	size_t i, m;

	for (m = 0; m < 2; m++) {
		hm__ptrmap *pm = m ? &s->drefs : &s->refs;

		for (i = 0; i < pm->cap; i++)
			if (pm->k[i]) {
				hm__ref *r = pm->v[i];

				free(r->uri);
				free(r->why);
				free(r);
			}
		hm__ptrmap_free(pm);
	}
	hm__ptrmap_free(&s->resof);
	for (i = 0; i < s->nidx; i++)
		free(s->idx[i].uri);
	free(s->idx);
	for (i = 0; i < s->nres; i++) {
		free(s->res[i]->uri);
		free(s->res[i]);
	}
	free(s->res);
	for (i = 0; i < s->ndocs; i++)
		hm__jv_free(s->docs[i]);
	free(s->docs);
	for (i = 0; i < s->ndirs; i++)
		free(s->dirs[i]);
	free(s->dirs);
}
