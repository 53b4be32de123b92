/*
 * schema_ts.c - JSON Schema to the TypeScript-like text of the reference
 * (spec §3.9), quirks included: the steps below follow the spec's order,
 * and each odd output (repeated descriptions, unparenthesised unions
 * before `[]`, the `null` substring test) is deliberate.
 */
#include <stdlib.h>
#include <string.h>

#include "conversation_int.h"
#include "schema_ts_int.h"

static void
spaces(int *nomem, hm_buf *b, size_t n)
{
	static const char sp[] = "                                ";

	while (n > sizeof sp - 1) {
		hm__add(nomem, b, sp, sizeof sp - 1);
		n -= sizeof sp - 1;
	}
	hm__add(nomem, b, sp, n);
}

static const hm_jv *
get(const hm_jv *s, const char *k)
{
	return hm__jv_get(s, k);
}

static const hm_jv *
getstr(const hm_jv *s, const char *k)
{
	const hm_jv *v = hm__jv_get(s, k);

	return v && v->type == HM_JV_STRING ? v : NULL;
}

static int
is_enum(const hm_jv *s)
{
	const hm_jv *e = get(s, "enum");

	return e && e->type == HM_JV_ARRAY && e->n > 0;
}

static int
is_nullable(const hm_jv *s)
{
	const hm_jv *v = get(s, "nullable");

	return v && v->type == HM_JV_TRUE;
}

/*
 * DEF(schema) of §3.9; quote_enum selects DEF_A, where a string default
 * of an enum variant is written as JSON.
 */
static void
def_text(int *nomem, hm_buf *b, const hm_jv *s, int quote_enum)
{
	const hm_jv *v = get(s, "default");

	hm__adds(nomem, b, "default: ");
	if (v->type == HM_JV_STRING && !is_enum(s)) {
		hm__putc(nomem, b, '"');
		hm__add(nomem, b, v->s, v->len);
		hm__putc(nomem, b, '"');
	} else if (v->type == HM_JV_STRING && !quote_enum)
		hm__add(nomem, b, v->s, v->len);
	else
		hm__jv_write_to(nomem, b, v);
}

/* TS of s, then " | null" when s is nullable and the text has no "null". */
static void
ts_nullable(int *nomem, hm_buf *b, const hm_jv *s, size_t indent)
{
	size_t start = b->len;

	hm__ts_write(nomem, b, s, indent);
	if (is_nullable(s) && !*nomem) {
		size_t i, n = b->len - start;
		const char *t = b->p + start;
		int has = 0;

		for (i = 0; i + 4 <= n; i++)
			if (!memcmp(t + i, "null", 4)) {
				has = 1;
				break;
			}
		if (!has)
			hm__adds(nomem, b, " | null");
	}
}

static void
line_comment(int *nomem, hm_buf *b, size_t indent, const char *s, size_t n)
{
	spaces(nomem, b, indent);
	hm__adds(nomem, b, "// ");
	hm__add(nomem, b, s, n);
	hm__putc(nomem, b, '\n');
}

static int
str_eq(const hm_jv *a, const hm_jv *b)
{
	return a && b && a->len == b->len && !memcmp(a->s, b->s, a->len);
}

static void
property_union(int *nomem, hm_buf *b, const hm_jv *key, size_t klen, const hm_jv *p,
               const hm_jv *oneof, int req, size_t indent)
{
	const hm_jv *pd = getstr(p, "description");
	int shown = 0;
	size_t i;

	(void)klen;
	if (pd && !(oneof->n > 0 && str_eq(getstr(oneof->v[0], "description"), pd))) {
		line_comment(nomem, b, indent, pd->s, pd->len);
		shown = 1;
	}
	if (get(p, "default")) {
		spaces(nomem, b, indent);
		hm__adds(nomem, b, "// ");
		def_text(nomem, b, p, 0);
		hm__putc(nomem, b, '\n');
	}
	spaces(nomem, b, indent);
	hm__add(nomem, b, key->s, key->len);
	hm__adds(nomem, b, req ? ":\n" : "?:\n");
	for (i = 0; i < oneof->n; i++) {
		const hm_jv *v = oneof->v[i], *d = getstr(v, "description");
		int parts = 0;

		spaces(nomem, b, indent);
		hm__adds(nomem, b, " | ");
		ts_nullable(nomem, b, v, indent + 3);
		if (d && !(i == 0 && shown) && !str_eq(d, pd)) {
			hm__adds(nomem, b, " // ");
			hm__add(nomem, b, d->s, d->len);
			parts++;
		}
		if (get(v, "default")) {
			hm__adds(nomem, b, parts ? " " : " // ");
			def_text(nomem, b, v, 0);
		}
		hm__putc(nomem, b, '\n');
	}
	spaces(nomem, b, indent);
	hm__adds(nomem, b, ",\n");
}

static void
ts_object(int *nomem, hm_buf *b, const hm_jv *s, size_t indent)
{
	const hm_jv *d = getstr(s, "description"), *props, *req;
	hm_strset reqset = {0};
	int hashed = 0;
	size_t i, j;

	if (d)
		line_comment(nomem, b, indent, d->s, d->len);
	hm__adds(nomem, b, "{\n");
	props = get(s, "properties");
	req = get(s, "required");
	if (req && req->type != HM_JV_ARRAY)
		req = NULL;
	/*
	 * A scan of `required` per property is quadratic; past a few names a
	 * hash set keeps large schemas linear (it failing to allocate only
	 * means scanning).
	 */
	if (req && props && props->type == HM_JV_OBJECT && req->n > 8 && props->n > 8) {
		hashed = 1;
		for (j = 0; j < req->n && hashed; j++)
			if (req->v[j]->type == HM_JV_STRING &&
			    hm__strset_add(&reqset, req->v[j]->s, req->v[j]->len, j) < 0)
				hashed = 0;
	}
	if (props && props->type == HM_JV_OBJECT) {
		for (i = 0; i < props->n; i++) {
			const hm_jv *p = props->v[i], *t, *ex, *oneof;
			hm_jv key = {0};
			int isreq = 0;

			key.s = props->k[i];
			key.len = props->klen[i];
			if (hashed)
				isreq = hm__strset_find(&reqset, key.s, key.len) != (size_t)-1;
			else if (req)
				for (j = 0; j < req->n && !isreq; j++)
					isreq = req->v[j]->type == HM_JV_STRING &&
					    str_eq(req->v[j], &key);
			if ((t = getstr(p, "title"))) {
				line_comment(nomem, b, indent, t->s, t->len);
				spaces(nomem, b, indent);
				hm__adds(nomem, b, "//\n");
			}
			oneof = get(p, "oneOf");
			if (!oneof && (d = getstr(p, "description")))
				line_comment(nomem, b, indent, d->s, d->len);
			ex = get(p, "examples");
			if (ex && ex->type == HM_JV_ARRAY && ex->n > 0) {
				spaces(nomem, b, indent);
				hm__adds(nomem, b, "// Examples:\n");
				for (j = 0; j < ex->n; j++) {
					if (ex->v[j]->type != HM_JV_STRING)
						continue;
					spaces(nomem, b, indent);
					hm__adds(nomem, b, "// - \"");
					hm__add(nomem, b, ex->v[j]->s, ex->v[j]->len);
					hm__adds(nomem, b, "\"\n");
				}
			}
			if (oneof && oneof->type == HM_JV_ARRAY) {
				property_union(nomem, b, &key, key.len, p, oneof, isreq, indent);
				continue;
			}
			spaces(nomem, b, indent);
			hm__add(nomem, b, key.s, key.len);
			hm__adds(nomem, b, isreq ? ": " : "?: ");
			ts_nullable(nomem, b, p, indent + 4);
			hm__putc(nomem, b, ',');
			if (!oneof && get(p, "default")) {
				hm__adds(nomem, b, " // ");
				def_text(nomem, b, p, 0);
			}
			hm__putc(nomem, b, '\n');
		}
	}
	hm__strset_free(&reqset);
	spaces(nomem, b, indent);
	hm__putc(nomem, b, '}');
}

void
hm__ts_write(int *nomem, hm_buf *b, const hm_jv *s, size_t indent)
{
	const hm_jv *oneof = get(s, "oneOf"), *type = get(s, "type");
	size_t i;

	/* Step A: a union at this level. */
	if (oneof && oneof->type == HM_JV_ARRAY) {
		for (i = 0; i < oneof->n; i++) {
			const hm_jv *v = oneof->v[i], *d = getstr(v, "description");
			int parts = 0;

			hm__putc(nomem, b, '\n');
			spaces(nomem, b, indent);
			hm__adds(nomem, b, " | ");
			ts_nullable(nomem, b, v, indent + 3);
			if (d) {
				hm__adds(nomem, b, " // ");
				hm__add(nomem, b, d->s, d->len);
				parts++;
			}
			if (get(v, "default")) {
				hm__adds(nomem, b, parts ? " " : " // ");
				def_text(nomem, b, v, 1);
			}
		}
		return;
	}
	/* Step B: a list of types. */
	if (type && type->type == HM_JV_ARRAY) {
		int n = 0;

		for (i = 0; i < type->n; i++) {
			const hm_jv *t = type->v[i];

			if (t->type != HM_JV_STRING)
				continue;
			if (n++)
				hm__adds(nomem, b, " | ");
			if (!strcmp(t->s, "integer") && t->len == 7)
				hm__adds(nomem, b, "number");
			else
				hm__add(nomem, b, t->s, t->len);
		}
		if (n)
			return;
	}
	/* Step C: one type; Step D: anything else is `any`. */
	if (!type || type->type != HM_JV_STRING) {
		hm__adds(nomem, b, "any");
		return;
	}
#define IS(word) (type->len == sizeof(word) - 1 && !memcmp(type->s, word, type->len))
	if (IS("object")) {
		ts_object(nomem, b, s, indent);
	} else if (IS("string")) {
		const hm_jv *e = get(s, "enum");
		int n = 0;

		if (e && e->type == HM_JV_ARRAY)
			for (i = 0; i < e->n; i++) {
				if (e->v[i]->type != HM_JV_STRING)
					continue;
				if (n++)
					hm__adds(nomem, b, " | ");
				hm__putc(nomem, b, '"');
				hm__add(nomem, b, e->v[i]->s, e->v[i]->len);
				hm__putc(nomem, b, '"');
			}
		if (!n)
			hm__adds(nomem, b, "string");
	} else if (IS("number") || IS("integer")) {
		hm__adds(nomem, b, "number");
	} else if (IS("boolean")) {
		hm__adds(nomem, b, "boolean");
	} else if (IS("array")) {
		const hm_jv *items = get(s, "items");

		if (items) {
			hm__ts_write(nomem, b, items, indent);
			hm__adds(nomem, b, "[]");
		} else
			hm__adds(nomem, b, "Array<any>");
	} else
		hm__adds(nomem, b, "any");
#undef IS
}

/*
 * Rust's str::lines(): split at LF, drop a CR before the LF, no extra
 * empty line after a final terminator.  Calls f for each line.
 */
static void
each_line(int *nomem, hm_buf *b, const hm_str *s, const char *prefix)
{
	size_t i = 0, start;

	while (i < s->len) {
		size_t end;

		start = i;
		while (i < s->len && s->p[i] != '\n')
			i++;
		end = i;
		if (i < s->len) {
			i++;
			if (end > start && s->p[end - 1] == '\r')
				end--;
		}
		hm__adds(nomem, b, prefix);
		hm__add(nomem, b, s->p + start, end - start);
		hm__putc(nomem, b, '\n');
	}
}

void
hm__namespace_block_write(int *nomem, hm_buf *b, const hm_namespace *ns)
{
	size_t i;

	/*
	 * The reference joins elements with "\n"; elements that end in "\n"
	 * give a blank line.  Each element is written here followed by its
	 * joining "\n", and the last one without.
	 */
	hm__adds(nomem, b, "## ");
	hm__add(nomem, b, ns->name.p, ns->name.len);
	hm__putc(nomem, b, '\n');
	if (ns->description.p) {
		if (ns->description.len)
			hm__putc(nomem, b, '\n');
		each_line(nomem, b, &ns->description, ns->ntools ? "// " : "");
		if (ns->description.len && b->len && !*nomem)
			b->len--, b->p[b->len] = '\0';
	}
	if (!ns->ntools)
		return;
	hm__adds(nomem, b, "\nnamespace ");
	hm__add(nomem, b, ns->name.p, ns->name.len);
	hm__adds(nomem, b, " {\n");
	for (i = 0; i < ns->ntools; i++) {
		const hm_tool *t = &ns->tools[i];

		hm__putc(nomem, b, '\n');
		each_line(nomem, b, &t->description, "// ");
		hm__adds(nomem, b, "type ");
		hm__add(nomem, b, t->name.p, t->name.len);
		if (t->parameters) {
			hm__adds(nomem, b, " = (_: ");
			hm__ts_write(nomem, b, t->parameters, 0);
			hm__adds(nomem, b, ") => any;\n");
		} else
			hm__adds(nomem, b, " = () => any;\n");
	}
	hm__adds(nomem, b, "\n} // namespace ");
	hm__add(nomem, b, ns->name.p, ns->name.len);
}

void
hm__tools_section_write(int *nomem, hm_buf *b, const hm_tools *t)
{
	size_t i;

	hm__adds(nomem, b, "# Tools");
	for (i = 0; i < t->n; i++) {
		hm__adds(nomem, b, "\n\n");
		hm__namespace_block_write(nomem, b, &t->ns[i]);
	}
}

char *
hm_render_namespace(const hm_namespace *ns, size_t *len)
{
	hm_buf b = {0};
	int nomem = 0;

	hm__namespace_block_write(&nomem, &b, ns);
	if (nomem || !b.p) {
		hm_buf_free(&b);
		return NULL;
	}
	if (len)
		*len = b.len;
	return b.p;
}

hm_status
hm_schema_to_ts(const char *json, size_t len, char **ts, size_t *tslen, hm_error *err)
{
	char msg[200];
	hm_jv *v;
	hm_status st = hm__jv_read(json, len, NULL, 1, HM_JV_NODUP, &v, msg, sizeof msg, NULL);
	hm_buf b = {0};
	int nomem = 0;

	*ts = NULL;
	if (st != HM_OK) {
		if (st == HM_EINPUT)
			hm__seterr(err, "%s", msg);
		return st;
	}
	hm__ts_write(&nomem, &b, v, 0);
	hm__jv_free(v);
	if (nomem) {
		hm_buf_free(&b);
		return HM_ENOMEM;
	}
	/* A schema may have no text ({"oneOf":[]}): "". */
	if (!b.p && !(b.p = calloc(1, 1)))
		return HM_ENOMEM;
	*ts = b.p;
	if (tslen)
		*tslen = b.len;
	return HM_OK;
}
