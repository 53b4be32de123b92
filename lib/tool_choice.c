/*
 * tool_choice.c - a request's tool_choice read to check completions
 * after the fact: which calls it allows, whether it asks for one.  The
 * grammar (grammar.c) keeps a model to it while it samples; this tells
 * whether a log's completions kept to it (harmony-parse --tool-choice).
 * Unlike the grammar it needs no request tools: a name is a name.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harmony.h"
#include "json_val_int.h"

enum { TCM_AUTO, TCM_NONE, TCM_REQUIRED };

struct hm_tool_choice {
	int mode;       /* TCM_* */
	int restricted; /* calls only to the recipients below */
	char **names;   /* "functions.f", or a built-in namespace: "browser", "python" */
	size_t n;
	char desc[160]; /* how it was read, for a warning */
};

static hm_status
bad(hm_error *err, const char *fmt, const char *arg)
{
	if (err) {
		memset(err, 0, sizeof *err);
		snprintf(err->msg, sizeof err->msg, fmt, arg ? arg : "");
	}
	return HM_EINPUT;
}

/* The recipient a hosted tool type of the Responses API calls (NULL: not one). */
static const char *
hosted(const char *type)
{
	if (!strcmp(type, "web_search_preview") || !strcmp(type, "web_search") ||
	    !strncmp(type, "web_search_preview_", 19) || !strncmp(type, "web_search_", 11))
		return "browser";
	if (!strcmp(type, "code_interpreter"))
		return "python";
	return NULL;
}

static int
add_name(hm_tool_choice *tc, const char *ns, const char *name)
{
	char **nv = realloc(tc->names, (tc->n + 1) * sizeof *nv);
	size_t len = strlen(ns) + (name ? 1 + strlen(name) : 0);

	if (!nv)
		return 0;
	tc->names = nv;
	if (!(nv[tc->n] = malloc(len + 1)))
		return 0;
	if (name)
		snprintf(nv[tc->n], len + 1, "%s.%s", ns, name);
	else
		memcpy(nv[tc->n], ns, len + 1);
	tc->n++;
	return 1;
}

/* One tool as a tool_choice or an allowed_tools entry names it: its recipient added. */
static hm_status
add_ref(hm_tool_choice *tc, const hm_jv *ref, hm_error *err)
{
	const hm_jv *ty = hm__jv_get(ref, "type"), *nm;
	const char *ns;

	nm = hm__jv_get(hm__jv_get(ref, "function"), "name");
	if (!nm)
		nm = hm__jv_get(ref, "name");
	if (nm && nm->type == HM_JV_STRING)
		return add_name(tc, "functions", nm->s) ? HM_OK : HM_ENOMEM;
	if (ty && ty->type == HM_JV_STRING && (ns = hosted(ty->s)))
		return add_name(tc, ns, NULL) ? HM_OK : HM_ENOMEM;
	return bad(err, "tool_choice: a tool named by neither `name` nor a hosted `type`%s", NULL);
}

static hm_status
read_choice(hm_tool_choice *tc, const hm_jv *v, hm_error *err)
{
	const hm_jv *ty, *at, *list, *mode;
	hm_status st;
	size_t i;

	if (v->type == HM_JV_STRING) {
		if (!strcmp(v->s, "auto"))
			tc->mode = TCM_AUTO;
		else if (!strcmp(v->s, "none"))
			tc->mode = TCM_NONE;
		else if (!strcmp(v->s, "required") || !strcmp(v->s, "any"))
			tc->mode = TCM_REQUIRED;
		else
			return bad(err, "tool_choice: '%s' is not auto, none or required", v->s);
		snprintf(tc->desc, sizeof tc->desc, "%s", v->s);
		return HM_OK;
	}
	if (v->type != HM_JV_OBJECT || !(ty = hm__jv_get(v, "type")) || ty->type != HM_JV_STRING)
		return bad(err, "tool_choice: must be a string or an object with a `type`%s", NULL);
	/* Anthropic's auto, any, none; a type named as the strings are */
	if (!strcmp(ty->s, "auto") || !strcmp(ty->s, "none") || !strcmp(ty->s, "any") ||
	    !strcmp(ty->s, "required")) {
		tc->mode = !strcmp(ty->s, "auto") ? TCM_AUTO : !strcmp(ty->s, "none") ? TCM_NONE :
		    TCM_REQUIRED;
		snprintf(tc->desc, sizeof tc->desc, "%s", ty->s);
		return HM_OK;
	}
	if (!strcmp(ty->s, "allowed_tools")) {
		/* Chat nests it in allowed_tools; Responses has it in place. */
		if (!(at = hm__jv_get(v, "allowed_tools")))
			at = v;
		mode = hm__jv_get(at, "mode");
		list = hm__jv_get(at, "tools");
		if (!list || list->type != HM_JV_ARRAY)
			return bad(err, "tool_choice: allowed_tools needs a list of `tools`%s", NULL);
		if (mode && mode->type == HM_JV_STRING && !strcmp(mode->s, "required"))
			tc->mode = TCM_REQUIRED;
		else if (!mode || (mode->type == HM_JV_STRING && !strcmp(mode->s, "auto")))
			tc->mode = TCM_AUTO;
		else
			return bad(err, "tool_choice: allowed_tools mode must be auto or required%s", NULL);
		tc->restricted = 1;
		for (i = 0; i < list->n; i++)
			if ((st = add_ref(tc, list->v[i], err)) != HM_OK)
				return st;
		snprintf(tc->desc, sizeof tc->desc, "allowed_tools (%s)",
		    tc->mode == TCM_REQUIRED ? "required" : "auto");
		return HM_OK;
	}
	/* One tool: {type:function, function:{name}}, {type:function, name}, {type:tool, name}, a hosted type. */
	if (strcmp(ty->s, "function") && strcmp(ty->s, "tool") && !hosted(ty->s))
		return bad(err, "tool_choice: unknown type '%s'", ty->s);
	tc->mode = TCM_REQUIRED;
	tc->restricted = 1;
	if ((st = add_ref(tc, v, err)) != HM_OK)
		return st;
	snprintf(tc->desc, sizeof tc->desc, "%s", tc->names[0]);
	return HM_OK;
}

/* Read the value v (NULL, null: auto) into *out. */
static hm_status
from_value(const hm_jv *v, hm_tool_choice **out, hm_error *err)
{
	hm_tool_choice *tc = calloc(1, sizeof *tc);
	hm_status st = HM_OK;

	if (!tc)
		return HM_ENOMEM;
	snprintf(tc->desc, sizeof tc->desc, "auto");
	if (v && v->type != HM_JV_NULL && (st = read_choice(tc, v, err)) != HM_OK) {
		hm_tool_choice_free(tc);
		return st;
	}
	*out = tc;
	return HM_OK;
}

hm_status
hm_tool_choice_new(const char *buf, size_t len, hm_tool_choice **out, hm_error *err)
{
	char msg[200];
	hm_jv *v;
	hm_status st;

	*out = NULL;
	if (!(v = hm__jv_parse_ex(buf, len, NULL, 1, HM_JV_NODUP, msg, sizeof msg, NULL))) {
		if (!msg[0])
			return HM_ENOMEM;
		/* a bare word, as harmony-tools grammar --tool-choice takes it */
		if (memchr(buf, '"', len) || memchr(buf, '{', len))
			return bad(err, "tool_choice: %s", msg);
		if (!(v = hm__jv_str(buf, len)))
			return HM_ENOMEM;
	}
	st = from_value(v, out, err);
	hm__jv_free(v);
	return st;
}

/* Whether s[0..n) has "tool_choice" in it at all. */
static int
mentions(const char *s, size_t n)
{
	static const char key[] = "\"tool_choice\"";
	const char *p = s, *end = s + n;

	while (end - p >= (ptrdiff_t)(sizeof key - 1) && (p = memchr(p, '"', (size_t)(end - p)))) {
		if ((size_t)(end - p) >= sizeof key - 1 && !memcmp(p, key, sizeof key - 1))
			return 1;
		p++;
	}
	return 0;
}

hm_status
hm_tool_choice_from_members(const char *members, size_t len, hm_tool_choice **out,
                            hm_error *err)
{
	char msg[200], *t;
	hm_jv *v;
	const hm_jv *tc;
	hm_status st = HM_OK;

	*out = NULL;
	if (!mentions(members, len))
		return HM_OK; /* the usual case, read no further */
	if (!(t = malloc(len + 2)))
		return HM_ENOMEM;
	t[0] = '{';
	memcpy(t + 1, members, len);
	t[len + 1] = '}';
	v = hm__jv_parse_ex(t, len + 2, NULL, 1, HM_JV_NODUP, msg, sizeof msg, NULL);
	free(t);
	if (!v)
		return msg[0] ? bad(err, "tool_choice: the record's members: %s", msg) : HM_ENOMEM;
	if (!(tc = hm__jv_get(v, "tool_choice")))
		tc = hm__jv_get(hm__jv_get(v, "request"), "tool_choice");
	if (tc)
		st = from_value(tc, out, err);
	hm__jv_free(v);
	return st;
}

int
hm_tool_choice_requires(const hm_tool_choice *tc)
{
	return tc && tc->mode == TCM_REQUIRED;
}

int
hm_tool_choice_allows(const hm_tool_choice *tc, const char *rcpt, size_t n)
{
	size_t i, k;

	if (!tc)
		return 1;
	if (tc->mode == TCM_NONE)
		return 0;
	if (!tc->restricted)
		return 1;
	for (i = 0; i < tc->n; i++) {
		k = strlen(tc->names[i]);
		/* a function by its whole name; a built-in by its namespace (browser.search) */
		if (k == n && !memcmp(tc->names[i], rcpt, n))
			return 1;
		if (strncmp(tc->names[i], "functions.", 10) && n > k && rcpt[k] == '.' &&
		    !memcmp(tc->names[i], rcpt, k))
			return 1;
	}
	return 0;
}

const char *
hm_tool_choice_describe(const hm_tool_choice *tc)
{
	return tc ? tc->desc : "auto";
}

void
hm_tool_choice_free(hm_tool_choice *tc)
{
	size_t i;

	if (!tc)
		return;
	for (i = 0; i < tc->n; i++)
		free(tc->names[i]);
	free(tc->names);
	free(tc);
}
