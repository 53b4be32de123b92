/*
 * json_schema_load.c - the JSON Schema validator's public side over
 * json_schema.c's keywords: a schema read (its JSON, a key given twice
 * refused; its patterns and local references checked up front; its
 * keywords against the draft's metaschema, bundled, and with strict
 * against the draft's words), a response format's schema, documents added
 * for references; values read (once, laid out in one block) and checked,
 * and the problems they have, as text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversation_int.h"
#include "json_schema_int.h"
/* ------------------------------------------------------------ public */

static void
schema_clear(hm_schema *s)
{
	size_t i;

	hm__schema_refs_free(s);
	for (i = 0; i < s->res_re.cap; i++)
		if (s->res_re.k[i])
			hm__re_free(s->res_re.v[i]);
	hm__ptrmap_free(&s->res_re);
	hm__schema_compiled_free(s);
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

		if (hm__schema_data_member(n->k[i]))
			continue;
		if (!strcmp(n->k[i], "pattern") && m->type == HM_JV_STRING) {
			hm_re *re;

			if ((st = hm__re_compile(m->s, m->len, &re, why, sizeof why)) != HM_OK) {
				if (st == HM_EINPUT)
					hm__seterr(err, "pattern \"%.*s\": %s", hm__schema_cut(m->s, m->len, 60), m->s, why);
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
						    hm__schema_cut(m->k[j], m->klen[j], 60), m->k[j], why);
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
	hm_status st = hm__jv_read(buf, len, NULL, 1, HM_JV_NUMTEXT | HM_JV_NODUP, out, msg, sizeof msg, &errpos);

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
	const char *root = s->res[0]->uri;
	size_t i, rl = strlen(root);

	for (i = 0; i < s->refs.cap; i++) {
		hm__ref *r;

		if (!s->refs.k[i])
			continue;
		r = s->refs.v[i];
		if (strncmp(r->uri, root, rl) || (r->uri[rl] && r->uri[rl] != '#'))
			continue;
		r->target = hm__schema_resolve(s, r->uri);
		if (s->nomem)
			return HM_ENOMEM;
		if (!r->target) {
			hm__seterr(err, "$ref \"%.*s\" points to nothing in the schema",
			    hm__schema_cut(r->uri, strlen(r->uri), 120), r->uri);
			return HM_EINPUT;
		}
		r->tried = 1;
	}
	return HM_OK;
}

static hm_status schema_init(hm_schema *s, const hm_schema_opts *o, hm_error *err);

/* Whether k names a keyword of draft (one that asserts, or an annotation, or core). */
static int
known_keyword(const char *k, int draft)
{
	static const struct {
		const char *name;
		short lo, hi;
	} other[] = {
		{ "$anchor", 2019, 2020 }, { "$comment", 7, 2020 }, { "$defs", 2019, 2020 },
		{ "$dynamicAnchor", 2020, 2020 }, { "$id", 6, 2020 }, { "$recursiveAnchor", 2019, 2019 },
		{ "$schema", 4, 2020 }, { "$vocabulary", 2019, 2020 }, { "contentEncoding", 7, 2020 },
		{ "contentMediaType", 7, 2020 }, { "contentSchema", 2019, 2020 }, { "default", 4, 2020 },
		{ "definitions", 4, 2020 }, { "deprecated", 2019, 2020 }, { "description", 4, 2020 },
		{ "examples", 6, 2020 }, { "id", 4, 4 }, { "readOnly", 7, 2020 }, { "title", 4, 2020 },
		{ "writeOnly", 7, 2020 },
	};
	int lo, hi;
	size_t i;

	if (hm__schema_keyword_drafts(k, &lo, &hi))
		return draft >= lo && draft <= hi;
	for (i = 0; i < sizeof other / sizeof *other; i++)
		if (!strcmp(k, other[i].name))
			return draft >= other[i].lo && draft <= other[i].hi;
	return 0;
}

/* Members whose value is a schema, a map of schemas, a list of schemas. */
static int
schema_member(const char *k)
{
	static const char *const one[] = { "additionalItems", "additionalProperties", "contains",
		"contentSchema", "else", "if", "items", "not", "propertyNames", "then",
		"unevaluatedItems", "unevaluatedProperties", NULL };
	static const char *const map[] = { "$defs", "definitions", "dependencies",
		"dependentSchemas", "patternProperties", "properties", NULL };
	static const char *const list[] = { "allOf", "anyOf", "oneOf", "prefixItems", NULL };
	size_t i;

	for (i = 0; one[i]; i++)
		if (!strcmp(k, one[i]))
			return 1;
	for (i = 0; map[i]; i++)
		if (!strcmp(k, map[i]))
			return 2;
	for (i = 0; list[i]; i++)
		if (!strcmp(k, list[i]))
			return 3;
	return 0;
}

/*
 * --strict: a member of a schema that is not a keyword of its draft is an
 * error, naming it and its place (path: the JSON Pointer so far).
 */
static hm_status
strict_check(hm_schema *s, const hm_jv *n, hm_buf *path, hm_error *err, int depth)
{
	size_t i, j, mark = path->len;
	int draft;

	if (n->type != HM_JV_OBJECT || depth > 200)
		return HM_OK;
	draft = hm__schema_res_of(s, n)->draft;
	for (i = 0; i < n->n; i++) {
		const char *k = n->k[i];
		const hm_jv *m = n->v[i];
		int kind;
		hm_status st = HM_OK;

		if (!known_keyword(k, draft)) {
			hm__seterr(err, "unknown keyword \"%.*s\" at %s (strict: a keyword the draft "
			    "does not have is an error)", (int)(n->klen[i] > 60 ? 60 : n->klen[i]), k,
			    path->len ? path->p : "(root)");
			return HM_EINPUT;
		}
		if (!(kind = schema_member(k)))
			continue;
		hm__putc(&s->nomem, path, '/');
		hm__adds(&s->nomem, path, k);
		hm__putc(&s->nomem, path, '\0');
		path->len--;
		if (s->nomem)
			return HM_ENOMEM;
		if (kind == 1 && m->type == HM_JV_ARRAY)
			kind = 3; /* a list of items */
		if (kind == 1)
			st = strict_check(s, m, path, err, depth + 1);
		else if (m->type == HM_JV_OBJECT || m->type == HM_JV_ARRAY)
			for (j = 0; j < m->n && st == HM_OK; j++) {
				size_t sub = path->len;

				hm__putc(&s->nomem, path, '/');
				if (kind == 2)
					hm__add(&s->nomem, path, m->k[j], m->klen[j]);
				else
					hm__addu(&s->nomem, path, j);
				hm__putc(&s->nomem, path, '\0');
				path->len--;
				st = s->nomem ? HM_ENOMEM : strict_check(s, m->v[j], path, err, depth + 1);
				path->len = sub;
			}
		path->len = mark;
		if (st != HM_OK)
			return st;
	}
	return HM_OK;
}

/* The draft's metaschema as a schema of its own (not checked against itself). */
static hm_status
metaschema_new(int draft, hm_schema **out)
{
	static const char *const uris[] = {
		"http://json-schema.org/draft-04/schema", "http://json-schema.org/draft-06/schema",
		"http://json-schema.org/draft-07/schema", "https://json-schema.org/draft/2019-09/schema",
		"https://json-schema.org/draft/2020-12/schema",
	};
	const char *u = uris[draft == 4 ? 0 : draft == 6 ? 1 : draft == 7 ? 2 : draft == 2019 ? 3 : 4];
	const struct hm__metaschema *m = hm__metaschema_find(u, strlen(u));
	hm_schema_opts o = HM_SCHEMA_OPTS_INIT;
	hm_schema *ms;
	hm_buf text = {0};
	hm_error e;
	hm_status st;
	int nomem = 0;
	size_t i;

	*out = NULL;
	for (i = 0; m->text[i]; i++)
		hm__adds(&nomem, &text, m->text[i]);
	if (nomem || !(ms = calloc(1, sizeof *ms))) {
		hm_buf_free(&text);
		return HM_ENOMEM;
	}
	ms->no_meta = 1;
	o.formats = 0;
	o.draft = (hm_schema_draft)draft;
	st = hm__jv_read(text.p, text.len, NULL, 1, HM_JV_NUMTEXT, &ms->root, e.msg, sizeof e.msg, NULL);
	hm_buf_free(&text);
	if (st == HM_OK)
		st = schema_init(ms, &o, &e);
	if (st != HM_OK) {
		/* the bundled documents are the drafts' own: only memory fails here */
		hm_schema_free(ms);
		return HM_ENOMEM;
	}
	*out = ms;
	return HM_OK;
}

/*
 * The schema checked against its draft's metaschema (bundled), so that a
 * bad schema ({"type":"strin"}, {"minimum":"5"}, {"required":"a"}) is
 * refused, naming the keyword and its place, and not a schema that every
 * value passes.
 */
static hm_status
meta_check_doc(hm_schema *s, const hm_jv *doc, int draft, int plain, hm_error *err)
{
	hm_schema *ms;
	hm_schema_problem p;
	hm_status st = metaschema_new(draft, &ms);
	const char *kw, *at;

	if (st != HM_OK)
		return st;
	st = hm__schema_run(ms, doc);
	if (st == HM_EINPUT && !s->opt_draft && plain && draft == 2020) {
		/*
		 * No $schema: draft-07's forms (a list of items) are kept in
		 * 2020-12, so a schema valid as draft-07 is no error.
		 */
		hm_schema *m7;

		if (metaschema_new(7, &m7) != HM_OK) {
			hm_schema_free(ms);
			return HM_ENOMEM;
		}
		if ((st = hm__schema_run(m7, doc)) == HM_OK || st == HM_ENOMEM) {
			hm_schema_free(m7);
			hm_schema_free(ms);
			return st;
		}
		hm_schema_free(m7);
	}
	if (st == HM_EINPUT && hm_schema_problem_get(ms, 0, &p)) {
		/* the keyword: the place's last member name that is not an index */
		kw = at = p.path + strlen(p.path);
		while (at > p.path) {
			const char *seg = at;

			while (seg > p.path && seg[-1] != '/')
				seg--;
			kw = seg;
			if (!(*seg >= '0' && *seg <= '9'))
				break;
			at = seg > p.path ? seg - 1 : seg;
		}
		if (!*p.path)
			hm__seterr(err, "the schema is not a valid schema of its draft: %s: %s",
			    p.keyword, p.message);
		else
			hm__seterr(err, "the schema's \"%.*s\" at %s is not valid: %s: %s",
			    (int)strcspn(kw, "/"), kw, p.path, p.keyword, p.message);
	}
	hm_schema_free(ms);
	return st;
}

static hm_status
meta_check(hm_schema *s, hm_error *err)
{
	return meta_check_doc(s, s->root, s->res[0]->draft, s->formats_plain, err);
}

/*
 * A document added for references (hm_schema_add_resource, or read from a
 * mapped directory by json_schema_ref.c through s->check_doc) is checked
 * against its draft's metaschema as the schema itself is: a bad keyword
 * there is an error, not a reference that silently matches anything.
 */
static hm_status
check_doc(hm_schema *s, const hm_jv *doc, hm_error *err)
{
	const hm_jv *sch = doc->type == HM_JV_OBJECT ? hm__jv_get(doc, "$schema") : NULL;
	int draft = hm__schema_doc_draft(s, doc);

	/* another $schema is the reader's to refuse or follow (hm__schema_add_doc) */
	if (s->no_meta || draft < 4)
		return HM_OK;
	return meta_check_doc(s, doc, draft, !sch, err);
}

static hm_status
schema_init(hm_schema *s, const hm_schema_opts *o, hm_error *err)
{
	hm_status st;
	const hm_jv *sch = s->root->type == HM_JV_OBJECT ? hm__jv_get(s->root, "$schema") : NULL;
	size_t i;

	s->opt_formats = o->formats;
	s->opt_draft = o->draft;
	s->max_steps = o->max_steps;
	s->strict = o->strict;
	/* no $schema (a tool's or a response format's schema): 2020-12, draft-07's forms allowed */
	s->formats_plain = !sch || sch->type != HM_JV_STRING;
	if (s->root->type != HM_JV_OBJECT && s->root->type != HM_JV_TRUE &&
	    s->root->type != HM_JV_FALSE) {
		hm__seterr(err, "a schema is an object or a boolean, not %s", hm__schema_type_word(s->root));
		return HM_EINPUT;
	}
	if (o->draft && o->draft != HM_DRAFT_4 && o->draft != HM_DRAFT_6 && o->draft != HM_DRAFT_7 &&
	    o->draft != HM_DRAFT_2019_09 && o->draft != HM_DRAFT_2020_12) {
		hm__seterr(err, "draft %d: not one of 4, 6, 7, 2019, 2020", (int)o->draft);
		return HM_EINPUT;
	}
	for (i = 0; o->dirs && o->dirs[i] && o->dirs[i + 1]; i += 2) {
		char **t = realloc(s->dirs, (s->ndirs + 2) * sizeof *t);

		if (!t)
			return HM_ENOMEM;
		s->dirs = t;
		if (!(s->dirs[s->ndirs] = hm__memdup(o->dirs[i], strlen(o->dirs[i]))))
			return HM_ENOMEM;
		s->ndirs++;
		if (!(s->dirs[s->ndirs] = hm__memdup(o->dirs[i + 1], strlen(o->dirs[i + 1]))))
			return HM_ENOMEM;
		s->ndirs++;
	}
	s->nomem = 0;
	/* the draft asked for wins over $schema */
	if (o->draft) {
		hm_jv *keep = NULL;

		if (sch) {
			/* hidden while the root is added: the option decides */
			keep = (hm_jv *)sch;
			keep->type = HM_JV_NULL;
		}
		st = hm__schema_add_doc(s, s->root, "", (int)o->draft, err);
		if (keep)
			keep->type = HM_JV_STRING;
	} else
		st = hm__schema_add_doc(s, s->root, "", 2020, err);
	if (s->nomem)
		return HM_ENOMEM;
	if (st != HM_OK)
		return st;
	if ((st = precheck(s, s->root, err, 0)) != HM_OK)
		return st;
	s->check_doc = check_doc;
	if (!s->no_meta && (st = meta_check(s, err)) != HM_OK)
		return st;
	if (s->strict) {
		hm_buf path = {0};

		st = strict_check(s, s->root, &path, err, 0);
		hm_buf_free(&path);
		if (st != HM_OK)
			return st;
	}
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
	hm_status st = hm__jv_read(buf, len, NULL, 1, HM_JV_NUMTEXT | HM_JV_NODUP, &doc, msg, sizeof msg, NULL);

	if (st != HM_OK) {
		if (st == HM_EINPUT)
			hm__seterr(err, "%s: not JSON: %s", uri, msg);
		return st;
	}
	s->nomem = 0;
	if ((st = check_doc(s, doc, err)) != HM_OK) {
		if (st == HM_EINPUT) {
			char why[sizeof err->msg];

			snprintf(why, sizeof why, "%s", err->msg);
			hm__seterr(err, "%s: %s", uri, why);
		}
		hm__jv_free(doc);
		return st;
	}
	if (!(t = realloc(s->docs, (s->ndocs + 1) * sizeof *t))) {
		hm__jv_free(doc);
		return HM_ENOMEM;
	}
	s->docs = t;
	s->docs[s->ndocs++] = doc;
	st = hm__schema_add_doc(s, doc, uri, s->res[0]->draft, err);
	return s->nomem ? HM_ENOMEM : st;
}

/* ------------------------------------------------------------ values and problems */

/* Problem i as "PATH: KEYWORD: message" into b (under s->nomem). */
static void
problem_text(hm_schema *s, size_t i, hm_buf *b)
{
	const hm__problem *p = &s->probs[i];
	const char *path = s->text.p + p->path;

	hm__adds(&s->nomem, b, *path ? path : "(root)");
	hm__adds(&s->nomem, b, ": ");
	hm__adds(&s->nomem, b, s->text.p + p->keyword);
	hm__adds(&s->nomem, b, ": ");
	hm__adds(&s->nomem, b, s->text.p + p->msg);
}

/* After run(): err->msg the first problem and how many more (err may be NULL). */
static hm_status
first_problem(hm_schema *s, hm_status st, hm_error *err)
{
	hm_buf b = {0};

	if (st != HM_EINPUT || !s->nkept || !err)
		return st;
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
	return st;
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
	st = hm__schema_run(s, v);
	hm__jv_free(v);
	return first_problem(s, st, err);
}

#define PACK_ALIGN(n) (((n) + 7) & ~(size_t)7)

/* The bytes v takes laid out by pack(). */
static size_t
packed_size(const hm_jv *v)
{
	size_t i, n = PACK_ALIGN(sizeof *v) + (v->s ? PACK_ALIGN(v->len + 1) : 0);

	if (v->type == HM_JV_ARRAY || v->type == HM_JV_OBJECT)
		n += v->n * sizeof *v->v;
	if (v->type == HM_JV_OBJECT) {
		n += v->n * (sizeof *v->k + sizeof *v->klen);
		for (i = 0; i < v->n; i++)
			n += PACK_ALIGN(v->klen[i] + 1);
	}
	for (i = 0; i < v->n; i++)
		n += packed_size(v->v[i]);
	return n;
}

/*
 * A copy of v at *at (advanced past it): the node, its lists, its names
 * and bytes, then its members and items in order, so that a check, which
 * visits them in that order, reads memory forwards.
 */
static hm_jv *
pack(const hm_jv *v, char **at)
{
	hm_jv *c = (hm_jv *)*at;
	size_t i;

	*c = *v;
	*at += PACK_ALIGN(sizeof *c);
	if (v->type == HM_JV_ARRAY || v->type == HM_JV_OBJECT) {
		c->cap = v->n;
		c->v = (hm_jv **)*at;
		*at += v->n * sizeof *c->v;
	}
	if (v->type == HM_JV_OBJECT) {
		c->k = (char **)*at;
		*at += v->n * sizeof *c->k;
		c->klen = (size_t *)*at;
		*at += v->n * sizeof *c->klen;
		for (i = 0; i < v->n; i++) {
			c->klen[i] = v->klen[i];
			c->k[i] = memcpy(*at, v->k[i], v->klen[i] + 1);
			*at += PACK_ALIGN(v->klen[i] + 1);
		}
	}
	if (v->s) {
		c->s = memcpy(*at, v->s, v->len + 1);
		*at += PACK_ALIGN(v->len + 1);
	}
	for (i = 0; i < v->n; i++)
		c->v[i] = pack(v->v[i], at);
	return c;
}

hm_status
hm_schema_read_value(const char *buf, size_t len, hm_json **out, hm_error *err)
{
	hm_jv *v;
	char *block, *at;
	hm_status st;

	*out = NULL;
	if (err)
		err->line = 0;
	if ((st = read_json(buf, len, "", &v, err)) != HM_OK)
		return st;
	/*
	 * Laid out again in one block: the reader's nodes, lists and strings
	 * are allocations of their own, scattered; a value checked many
	 * times is read from memory in order instead.
	 */
	if (!(block = malloc(packed_size(v)))) {
		hm__jv_free(v);
		return HM_ENOMEM;
	}
	at = block;
	*out = pack(v, &at);
	hm__jv_free(v);
	return HM_OK;
}

hm_status
hm_schema_validate_value(hm_schema *s, const hm_json *v, hm_error *err)
{
	hm_status st;

	s->nomem = 0;
	if (!err)
		return hm__schema_run(s, v); /* no summary line to write (first_problem's first test) */
	err->line = 0;
	st = hm__schema_run(s, v);
	return st == HM_EINPUT && s->nkept ? first_problem(s, st, err) : st;
}

void
hm_schema_value_free(hm_json *v)
{
	free(v); /* one block (hm_schema_read_value) */
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
	/*
	 * A tool's schema is read again for every call it checks: the
	 * metaschema check (some 150 us) is hm_schema_new's, not every call's.
	 */
	s.no_meta = 1;
	e.msg[0] = '\0';
	st = schema_init(&s, &o, &e);
	if (st == HM_EINPUT) {
		*problems = 1;
		hm__adds(&s.nomem, msg, "the tool's schema cannot be used: ");
		hm__adds(&s.nomem, msg, e.msg);
	} else if (st == HM_OK && (st = hm__schema_run(&s, value)) == HM_EINPUT) {
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
