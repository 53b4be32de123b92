/* tools_io.c - tool definitions in and out of every shape; checking a call's arguments. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect_int.h"
#include "json_schema_int.h"

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

static hm_status
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
	hm_status st;

	if (hm__opts_take(&opts, sizeof opts, given, err) != HM_OK)
		return HM_EINPUT;
	if (err)
		err->line = 0;
	if ((st = hm__jv_read(buf, len, NULL, 1, HM_JV_NODUP, &v, msg, sizeof msg, &errpos)) != HM_OK) {
		if (st == HM_EINPUT) {
			hm__seterr(err, "%s", msg);
			hm__err_json_at(err, buf, len, errpos);
		}
		return st;
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
	if (k.nomem)
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
	int nomem = 0;

	if (to == HM_TOOLS_HARMONY || to == HM_TOOLS_AUTO) {
		hm__namespace_write(&nomem, &b, ns);
	} else {
		hm__putc(&nomem, &b, '[');
		for (i = 0; i < ns->ntools; i++) {
			const hm_tool *t = &ns->tools[i];

			if (i)
				hm__putc(&nomem, &b, ',');
			if (to == HM_TOOLS_CHAT)
				hm__adds(&nomem, &b, "{\"type\":\"function\",\"function\":{");
			else if (to == HM_TOOLS_RESPONSES)
				hm__adds(&nomem, &b, "{\"type\":\"function\",");
			else
				hm__putc(&nomem, &b, '{');
			hm__adds(&nomem, &b, "\"name\":");
			hm__json_str(&nomem, &b, t->name.p, t->name.len);
			if (t->description.len) {
				hm__adds(&nomem, &b, ",\"description\":");
				hm__json_str(&nomem, &b, t->description.p, t->description.len);
			}
			if (t->parameters || to == HM_TOOLS_MCP || to == HM_TOOLS_ANTHROPIC) {
				hm__adds(&nomem, &b, to == HM_TOOLS_MCP ? ",\"inputSchema\":" :
				    to == HM_TOOLS_ANTHROPIC ? ",\"input_schema\":" : ",\"parameters\":");
				if (t->parameters)
					hm__jv_write_to(&nomem, &b, t->parameters);
				else
					hm__adds(&nomem, &b, "{\"type\":\"object\",\"properties\":{}}");
			}
			hm__adds(&nomem, &b, to == HM_TOOLS_CHAT ? "}}" : "}");
		}
		hm__putc(&nomem, &b, ']');
	}
	if (nomem || !b.p) {
		hm_buf_free(&b);
		return NULL;
	}
	if (len)
		*len = b.len;
	return b.p;
}

/*
 * The check with schema options: the parameters written out and read by
 * hm_schema_new with them (the metaschema checked too: some 150 us a
 * call; calls --check --formats is not a hot path), the problems in the
 * words hm__schema_check_jv gives them.
 */
static hm_status
check_opts(const hm_tool *t, const hm_jv *v, const hm_schema_opts *o, size_t *n,
    hm_buf *msg)
{
	hm_buf text = {0};
	hm_schema *s = NULL;
	hm_schema_problem p;
	hm_error e;
	hm_status st;
	size_t i;
	int nomem = 0;

	hm__jv_write_to(&nomem, &text, t->parameters);
	if (nomem) {
		hm_buf_free(&text);
		return HM_ENOMEM;
	}
	e.msg[0] = '\0';
	st = hm_schema_new(text.p, text.len, o, &s, &e);
	hm_buf_free(&text);
	if (st == HM_EINPUT) {
		*n = 1;
		hm__adds(&nomem, msg, "the tool's schema cannot be used: ");
		hm__adds(&nomem, msg, e.msg);
	} else if (st == HM_OK && (st = hm_schema_validate_value(s, v, NULL)) == HM_EINPUT) {
		*n = hm_schema_nproblems(s);
		for (i = 0; i < 4 && hm_schema_problem_get(s, i, &p); i++) {
			if (i)
				hm__adds(&nomem, msg, "; ");
			hm__adds(&nomem, msg, *p.path ? p.path : "(root)");
			hm__adds(&nomem, msg, ": ");
			hm__adds(&nomem, msg, p.keyword);
			hm__adds(&nomem, msg, ": ");
			hm__adds(&nomem, msg, p.message);
		}
		if (*n > 4)
			hm__adds(&nomem, msg, "; ...");
	}
	hm_schema_free(s);
	return nomem ? HM_ENOMEM : st;
}

hm_status
hm_tool_check_opts(const hm_tool *t, const char *args, size_t len,
    const hm_schema_opts *o, size_t *problems, hm_error *err)
{
	char why[160];
	hm_jv *v;
	/*
	 * A key given twice is an error: the arguments are what a model
	 * wrote, and which of its values is meant cannot be told.
	 */
	hm_status st = hm__jv_read(args, len, NULL, 1, HM_JV_NUMTEXT | HM_JV_NODUP, &v, why,
	    sizeof why, NULL);
	hm_buf msg = {0};
	size_t n = 0;

	if (problems)
		*problems = 0;
	if (st == HM_ENOMEM)
		return st;
	if (st != HM_OK) {
		if (!strncmp(why, "duplicate key ", 14))
			hm__seterr(err, "arguments: %s", why);
		else
			hm__seterr(err, "arguments are not JSON: %s", why);
		if (problems)
			*problems = 1;
		return HM_EINPUT;
	}
	/* the library's JSON Schema validator (json_schema.c); msg is its scratch */
	if (t->parameters)
		st = o ? check_opts(t, v, o, &n, &msg) : hm__schema_check_jv(t->parameters, v,
		    &n, &msg);
	if (st == HM_EINPUT) {
		hm__seterr(err, "%s", msg.p ? msg.p : "");
		if (problems)
			*problems = n;
	}
	hm_buf_free(&msg);
	hm__jv_free(v);
	return st;
}

hm_status
hm_tool_check(const hm_tool *t, const char *args, size_t len, size_t *problems,
    hm_error *err)
{
	return hm_tool_check_opts(t, args, len, NULL, problems, err);
}
