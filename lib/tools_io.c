/* tools_io.c - tool definitions in and out of every shape; checking a call's arguments. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect_int.h"

static hm_tool_shape
tool_shape(const hm_jv *t)
{
	if (hm__jv_get(t, "function"))
		return HM_TOOLS_CHAT;
	if (hm__jv_get(t, "inputSchema"))
		return HM_TOOLS_MCP;
	if (hm__jv_get(t, "input_schema"))
		return HM_TOOLS_ANTHROPIC;
	if (hm__dl_streq(hm__jv_get(t, "type"), "function"))
		return HM_TOOLS_RESPONSES;
	return HM_TOOLS_HARMONY;
}

static int
read_tool(conv *k, const hm_jv *t, hm_tool_shape from, const char *where)
{
	static const char *const schema_key[] = {
		NULL, "parameters", "parameters", "inputSchema", "input_schema", "parameters",
	};
	hm_tool_shape s;
	const hm_jv *f = t;

	k->at = t;
	if (t->type != HM_JV_OBJECT)
		return FAIL(k, "%s: must be an object, not %s", where, hm__dl_a_type(t));
	s = from == HM_TOOLS_AUTO ? tool_shape(t) : from;
	if (s == HM_TOOLS_CHAT) {
		const hm_jv *ty = hm__jv_get(t, "type");

		if (ty && !hm__dl_streq(ty, "function"))
			return FAIL(k, "%s: unsupported tool type '%s'", where, hm__dl_is_str(ty) ? ty->s : "?");
		if (!(f = hm__jv_get(t, "function")) || f->type != HM_JV_OBJECT)
			return FAIL(k, "%s: a chat tool needs a `function` object", where);
	}
	return hm__dl_add_function(k, hm__jv_get(f, "name"), hm__jv_get(f, "description"),
	    hm__dl_tool_schema(k, f, schema_key[s], where), where);
}

/* Drop the tools past the first n (a failed read leaves ns as it was). */
static void
tools_truncate(hm_namespace *ns, size_t n)
{
	while (ns->ntools > n) {
		hm_tool *t = &ns->tools[--ns->ntools];

		free(t->name.p);
		free(t->description.p);
		hm__jv_free(t->parameters);
		memset(t, 0, sizeof *t);
	}
}

hm_status
hm_tools_read(const char *buf, size_t len, const hm_tools_read_opts *given,
              hm_namespace *ns, hm_error *err)
{
	hm_tools_read_opts opts = HM_TOOLS_READ_OPTS_INIT;
	const hm_tools_read_opts *o = &opts;
	char msg[200], where[32];
	size_t errpos = 0, i, n0 = ns->ntools;
	hm_jv *v;
	const hm_jv *list, *nsname = NULL, *nsdesc = NULL;
	conv k;

	if (hm__opts_take(&opts, sizeof opts, given, err) < 0)
		return HM_EINPUT;
	if (err)
		err->line = 0;
	if (!(v = hm__jv_parse_ex(buf, len, NULL, 1, 0, msg, sizeof msg, &errpos))) {
		if (!msg[0])
			return HM_ENOMEM;
		hm__seterr(err, "%s", msg);
		if (err)
			err->line = hm__text_line(buf, len, errpos);
		return HM_EINPUT;
	}
	memset(&k, 0, sizeof k);
	k.err = err;
	k.fns = ns;
	k.buf = buf;
	k.len = len;
	k.at = v;
	k.warn = o->warn;
	k.warn_ctx = o->warn_ctx;
	list = v;
	if (v->type == HM_JV_OBJECT && hm__jv_get(v, "result") && hm__jv_get(v, "jsonrpc"))
		list = hm__jv_get(v, "result"); /* a JSON-RPC tools/list response */
	if (list->type == HM_JV_OBJECT && hm__jv_is(hm__jv_get(list, "tools"), HM_JV_ARRAY)) {
		/* A Harmony namespace, or anything holding a tools list. */
		if (hm__dl_is_str(hm__jv_get(list, "name")))
			nsname = hm__jv_get(list, "name");
		if (hm__dl_is_str(hm__jv_get(list, "description")))
			nsdesc = hm__jv_get(list, "description");
		list = hm__jv_get(list, "tools");
		for (i = 0; k.st == HM_OK && i < list->n; i++) {
			snprintf(where, sizeof where, "tools[%zu]", i);
			read_tool(&k, list->v[i], o->from, where);
		}
	} else if (list->type == HM_JV_ARRAY) {
		for (i = 0; k.st == HM_OK && i < list->n; i++) {
			snprintf(where, sizeof where, "[%zu]", i);
			read_tool(&k, list->v[i], o->from, where);
		}
	} else
		read_tool(&k, list, o->from, "tool");
	if (k.st == HM_OK && nsname) {
		if (!ns->name.p) {
			if (hm_str_set(&ns->name, nsname->s, nsname->len) != HM_OK ||
			    hm_str_set(&ns->key, nsname->s, nsname->len) != HM_OK)
				hm__dl_bad(&k, HM_ENOMEM);
		} else if (!o->name_given && (ns->name.len != nsname->len ||
		    memcmp(ns->name.p, nsname->s, nsname->len)))
			hm__dl_warn_at(&k, nsname, "namespace '%s': its tools go into namespace '%s'",
			    nsname->s, ns->name.p);
	}
	if (k.st == HM_OK && nsdesc && !ns->description.p &&
	    hm_str_set(&ns->description, nsdesc->s, nsdesc->len) != HM_OK)
		hm__dl_bad(&k, HM_ENOMEM);
	if (k.st != HM_OK)
		tools_truncate(ns, n0);
	hm__jv_free(v);
	return k.st;
}

char *
hm_tools_write(const hm_namespace *ns, hm_tool_shape to, size_t *len)
{
	hm_buf b = {0};
	size_t i;

	if (to == HM_TOOLS_HARMONY || to == HM_TOOLS_AUTO) {
		hm__namespace_write(&b, ns);
	} else {
		hm_buf_addc(&b, '[');
		for (i = 0; i < ns->ntools; i++) {
			const hm_tool *t = &ns->tools[i];

			if (i)
				hm_buf_addc(&b, ',');
			if (to == HM_TOOLS_CHAT)
				hm_buf_adds(&b, "{\"type\":\"function\",\"function\":{");
			else if (to == HM_TOOLS_RESPONSES)
				hm_buf_adds(&b, "{\"type\":\"function\",");
			else
				hm_buf_addc(&b, '{');
			hm_buf_adds(&b, "\"name\":");
			hm_buf_json_str(&b, t->name.p, t->name.len);
			if (t->description.len) {
				hm_buf_adds(&b, ",\"description\":");
				hm_buf_json_str(&b, t->description.p, t->description.len);
			}
			if (t->parameters || to == HM_TOOLS_MCP || to == HM_TOOLS_ANTHROPIC) {
				hm_buf_adds(&b, to == HM_TOOLS_MCP ? ",\"inputSchema\":" :
				    to == HM_TOOLS_ANTHROPIC ? ",\"input_schema\":" : ",\"parameters\":");
				if (t->parameters)
					hm__jv_write(&b, t->parameters);
				else
					hm_buf_adds(&b, "{\"type\":\"object\",\"properties\":{}}");
			}
			hm_buf_adds(&b, to == HM_TOOLS_CHAT ? "}}" : "}");
		}
		hm_buf_addc(&b, ']');
	}
	if (b.oom || !b.p) {
		hm_buf_free(&b);
		return NULL;
	}
	if (len)
		*len = b.len;
	return b.p;
}

/*
 * Whether number text s[0..n) (JSON grammar) is a whole number, exactly:
 * digits D with the point after the integer part, times 10^e, is whole
 * when D's trailing zeros make up for the fraction digits.  Works for
 * 1e400 and 1.5e-400, which a double cannot tell.
 */
static int
integer_text(const char *s, size_t n)
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

/* Does value v have JSON Schema type word t? */
static int
type_ok(const hm_jv *v, const hm_jv *t)
{
	if (hm__dl_streq(t, "string"))
		return v->type == HM_JV_STRING;
	if (hm__dl_streq(t, "number"))
		return v->type == HM_JV_NUMBER;
	if (hm__dl_streq(t, "integer"))
		return v->type == HM_JV_NUMBER && integer_text(v->s, v->len);
	if (hm__dl_streq(t, "boolean"))
		return v->type == HM_JV_TRUE || v->type == HM_JV_FALSE;
	if (hm__dl_streq(t, "object"))
		return v->type == HM_JV_OBJECT;
	if (hm__dl_streq(t, "array"))
		return v->type == HM_JV_ARRAY;
	if (hm__dl_streq(t, "null"))
		return v->type == HM_JV_NULL;
	return 1; /* unknown type words are not checked */
}

static int
schema_type_ok(const hm_jv *v, const hm_jv *schema)
{
	const hm_jv *t = hm__jv_get(schema, "type");
	size_t i;

	if (v->type == HM_JV_NULL && hm__jv_is(hm__jv_get(schema, "nullable"), HM_JV_TRUE))
		return 1;
	if (!t)
		return 1;
	if (t->type == HM_JV_ARRAY) {
		for (i = 0; i < t->n; i++)
			if (type_ok(v, t->v[i]))
				return 1;
		return t->n == 0;
	}
	return type_ok(v, t);
}

#define CHECK_DEPTH 32 /* levels of nested schema checked */

typedef struct check {
	hm_buf msg;  /* the first few problems */
	hm_buf path; /* the property being checked: address.city, items[2] */
	int n;       /* problems found */
} check;

static void
problem(check *c, const char *what, int with_path)
{
	if (c->n++ >= 4)
		return;
	if (c->msg.len)
		hm_buf_adds(&c->msg, "; ");
	hm_buf_adds(&c->msg, what);
	if (with_path)
		hm_buf_add(&c->msg, c->path.p ? c->path.p : "", c->path.len);
}

/* The member of object v named key[0..klen) (the last when repeated). */
static const hm_jv *
member(const hm_jv *v, const hm_strset *keys, const char *key, size_t klen)
{
	size_t i;

	if (keys) {
		i = hm__strset_find(keys, key, klen);
		return i == (size_t)-1 ? NULL : v->v[i];
	}
	for (i = v->n; i-- > 0;)
		if (v->klen[i] == klen && !memcmp(v->k[i], key, klen))
			return v->v[i];
	return NULL;
}

static void
path_key(check *c, const char *key, size_t klen)
{
	if (c->path.len)
		hm_buf_addc(&c->path, '.');
	hm_buf_add(&c->path, key, klen);
}

/* The JSON type of v, in JSON Schema's words ("integer" for a whole number). */
static const char *
jv_type_word(const hm_jv *v)
{
	switch (v->type) {
	case HM_JV_NULL: return "null";
	case HM_JV_FALSE:
	case HM_JV_TRUE: return "boolean";
	case HM_JV_NUMBER: return integer_text(v->s, v->len) ? "integer" : "number";
	case HM_JV_STRING: return "string";
	case HM_JV_ARRAY: return "array";
	case HM_JV_OBJECT: return "object";
	}
	return "value";
}

/* ": expected T1 or T2, got T" after a type problem. */
static void
expected_given(check *c, const hm_jv *v, const hm_jv *schema)
{
	const hm_jv *t = hm__jv_get(schema, "type");
	size_t i;

	if (c->n > 4)
		return;
	hm_buf_adds(&c->msg, ": expected ");
	if (t && t->type == HM_JV_STRING) {
		hm_buf_add(&c->msg, t->s, t->len);
	} else if (t && t->type == HM_JV_ARRAY) {
		for (i = 0; i < t->n; i++) {
			if (i)
				hm_buf_adds(&c->msg, " or ");
			if (t->v[i]->type == HM_JV_STRING)
				hm_buf_add(&c->msg, t->v[i]->s, t->v[i]->len);
		}
	}
	hm_buf_adds(&c->msg, ", got ");
	hm_buf_adds(&c->msg, jv_type_word(v));
}

static void
check_value(check *c, const hm_jv *v, const hm_jv *schema, int depth)
{
	const hm_jv *req, *props, *items;
	size_t i, mark = c->path.len;

	if (!schema || schema->type != HM_JV_OBJECT || depth > CHECK_DEPTH)
		return;
	if (!schema_type_ok(v, schema)) {
		if (c->path.len)
			problem(c, "wrong type for property ", 1);
		else
			problem(c, "arguments have the wrong type", 0);
		expected_given(c, v, schema);
		return;
	}
	if (v->type == HM_JV_OBJECT) {
		hm_strset set = {0};
		const hm_strset *keys = NULL;

		/* Past a few members, a hash of the keys keeps lookups linear. */
		if (v->n > 8 && hm__strset_keys(&set, v) == 0)
			keys = &set;
		req = hm__jv_get(schema, "required");
		props = hm__jv_get(schema, "properties");
		for (i = 0; req && req->type == HM_JV_ARRAY && i < req->n; i++) {
			const hm_jv *r = req->v[i];

			if (!hm__dl_is_str(r) || member(v, keys, r->s, r->len))
				continue;
			path_key(c, r->s, r->len);
			problem(c, "missing required property ", 1);
			c->path.len = mark;
		}
		for (i = 0; props && props->type == HM_JV_OBJECT && i < props->n; i++) {
			const hm_jv *a = member(v, keys, props->k[i], props->klen[i]);

			if (!a)
				continue;
			path_key(c, props->k[i], props->klen[i]);
			check_value(c, a, props->v[i], depth + 1);
			c->path.len = mark;
		}
		hm__strset_free(&set);
	} else if (v->type == HM_JV_ARRAY && (items = hm__jv_get(schema, "items"))) {
		for (i = 0; i < v->n; i++) {
			const hm_jv *is = items->type == HM_JV_ARRAY ?
			    (i < items->n ? items->v[i] : NULL) : items;

			hm_buf_addc(&c->path, '[');
			hm_buf_addu(&c->path, i);
			hm_buf_addc(&c->path, ']');
			check_value(c, v->v[i], is, depth + 1);
			c->path.len = mark;
		}
	}
}

hm_status
hm_tool_check(const hm_tool *t, const char *args, size_t len, size_t *problems,
    hm_error *err)
{
	char msg[160];
	hm_jv *v = hm__jv_parse_ex(args, len, NULL, 1, HM_JV_NUMTEXT, msg, sizeof msg, NULL);
	hm_status st = HM_OK;
	check c;

	if (problems)
		*problems = 0;
	if (!v) {
		if (!msg[0])
			return HM_ENOMEM;
		hm__seterr(err, "arguments are not JSON: %s", msg);
		if (problems)
			*problems = 1;
		return HM_EINPUT;
	}
	memset(&c, 0, sizeof c);
	check_value(&c, v, t->parameters, 0);
	if (c.n > 4)
		hm_buf_adds(&c.msg, "; ...");
	if (c.msg.oom || c.path.oom)
		st = HM_ENOMEM;
	else if (c.n) {
		hm__seterr(err, "%s", c.msg.p);
		if (problems)
			*problems = (size_t)c.n;
		st = HM_EINPUT;
	}
	hm_buf_free(&c.msg);
	hm_buf_free(&c.path);
	hm__jv_free(v);
	return st;
}
