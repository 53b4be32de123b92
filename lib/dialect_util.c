/* dialect_util.c - helpers the request readers share: messages, text, tools, calls. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect_int.h"

/* The index of s in names[0..n), or -1. */
int
hm__dl_name_index(const char *const *names, int n, const char *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

hm_status
hm__dl_bad(conv *k, hm_status st)
{
	if (k->st == HM_OK)
		k->st = st;
	return k->st;
}

static size_t
line_of(const conv *k, const hm_jv *v)
{
	if (!k->buf || !v)
		return 0;
	return hm__text_line(k->buf, k->len, v->pos);
}

/* An input error about value `at` (NULL: the value being read). */
hm_status
hm__dl_fail_at(conv *k, const hm_jv *at, const char *fmt, ...)
{
	va_list ap;

	if (k->err && k->st == HM_OK) {
		va_start(ap, fmt);
		vsnprintf(k->err->msg, sizeof k->err->msg, fmt, ap);
		va_end(ap);
		k->err->line = line_of(k, at ? at : k->at);
		k->err->col = 0;
		k->err->index = (size_t)-1;
		k->err->hint = HM_HINT_NONE;
	}
	return hm__dl_bad(k, HM_EINPUT);
}

void
hm__dl_warn_at(conv *k, const hm_jv *at, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!k->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	k->warn(k->warn_ctx, line_of(k, at ? at : k->at), msg);
}

int
hm__dl_is_str(const hm_jv *v)
{
	return v && v->type == HM_JV_STRING;
}

int
hm__dl_is_null(const hm_jv *v)
{
	return !v || v->type == HM_JV_NULL;
}

int
hm__dl_streq(const hm_jv *v, const char *s)
{
	return hm__dl_is_str(v) && v->len == strlen(s) && !memcmp(v->s, s, v->len);
}

/* A JSON type for messages: "a number". */
const char *
hm__dl_a_type(const hm_jv *v)
{
	switch (v ? v->type : HM_JV_NULL) {
	case HM_JV_NULL: return "null";
	case HM_JV_FALSE:
	case HM_JV_TRUE: return "a boolean";
	case HM_JV_NUMBER: return "a number";
	case HM_JV_STRING: return "a string";
	case HM_JV_ARRAY: return "a list";
	default: return "an object";
	}
}

/* A string field that may be absent or null, else must be a string. */
hm_status
hm__dl_opt_string(conv *k, const hm_jv *obj, const char *key, const char *where,
           const hm_jv **out)
{
	const hm_jv *v = hm__jv_get(obj, key);

	*out = NULL;
	if (hm__dl_is_null(v))
		return HM_OK;
	if (!hm__dl_is_str(v))
		return hm__dl_fail_at(k, v, "%s.%s: must be a string, not %s", where, key, hm__dl_a_type(v));
	*out = v;
	return HM_OK;
}

hm_message *
hm__dl_add_msg(conv *k, hm_role role)
{
	hm_message *m = hm_conversation_push(k->c, role);

	if (!m)
		hm__dl_bad(k, HM_ENOMEM);
	return m;
}

hm_status
hm__dl_set(conv *k, hm_str *dst, const char *s, size_t n)
{
	if (hm_str_set(dst, s, n) != HM_OK)
		return hm__dl_bad(k, HM_ENOMEM);
	return HM_OK;
}

hm_status
hm__dl_sets(conv *k, hm_str *dst, const char *s)
{
	return hm__dl_set(k, dst, s, strlen(s));
}

hm_status
hm__dl_add_text(conv *k, hm_message *m, const char *s, size_t n)
{
	if (hm_message_add_text(m, s, n) != HM_OK)
		return hm__dl_bad(k, HM_ENOMEM);
	return HM_OK;
}

hm_status
hm__dl_remember_call(conv *k, const hm_jv *id, const hm_jv *name)
{
	struct call *p;

	if (!hm__dl_is_str(name))
		return HM_OK;
	if (!(p = realloc(k->calls, (k->ncalls + 1) * sizeof *p)))
		return hm__dl_bad(k, HM_ENOMEM);
	k->calls = p;
	p += k->ncalls;
	/* A legacy function_call has no id; role "function" finds it by name. */
	p->id = strdup(hm__dl_is_str(id) ? id->s : "");
	p->name = strdup(name->s);
	if (!p->id || !p->name) {
		free(p->id);
		free(p->name);
		return hm__dl_bad(k, HM_ENOMEM);
	}
	k->ncalls++;
	return HM_OK;
}

const char *
hm__dl_call_name(conv *k, const hm_jv *id)
{
	size_t i;

	if (!hm__dl_is_str(id) || !id->len)
		return NULL;
	for (i = k->ncalls; i-- > 0;)
		if (!strcmp(k->calls[i].id, id->s))
			return k->calls[i].name;
	return NULL;
}

/*
 * The text of a content part: {type: text|input_text|output_text, text}
 * or {type: refusal, refusal}.  NULL with an error for another part.
 */
static const hm_jv *
part_text(conv *k, const hm_jv *p, const char *where, size_t i)
{
	const hm_jv *t = hm__jv_get(p, "type");
	const char *key = "text";

	if (hm__dl_streq(t, "refusal"))
		key = "refusal";
	else if (!hm__dl_streq(t, "text") && !hm__dl_streq(t, "input_text") && !hm__dl_streq(t, "output_text")) {
		hm__dl_fail_at(k, p, "%s.content[%zu]: unsupported content part type '%s'", where, i,
		    hm__dl_is_str(t) ? t->s : "?");
		return NULL;
	}
	if (!hm__dl_is_str(hm__jv_get(p, key))) {
		hm__dl_fail_at(k, p, "%s.content[%zu]: a %s part needs a string `%s`", where, i, t->s, key);
		return NULL;
	}
	return hm__jv_get(p, key);
}

/* Append the text of content (string or parts) to b; parts are concatenated. */
static hm_status
gather_text(conv *k, const hm_jv *content, hm_buf *b, const char *where)
{
	size_t i;

	if (hm__dl_is_null(content))
		return HM_OK;
	if (content->type == HM_JV_STRING) {
		hm__add(&k->nomem, b, content->s, content->len);
		return HM_OK;
	}
	if (content->type != HM_JV_ARRAY)
		return hm__dl_fail_at(k, content, "%s.content: must be a string or a list of parts", where);
	for (i = 0; i < content->n; i++) {
		const hm_jv *t = part_text(k, content->v[i], where, i);

		if (!t)
			return k->st;
		hm__add(&k->nomem, b, t->s, t->len);
	}
	return HM_OK;
}

/* Each text part of content becomes one text item of m. */
hm_status
hm__dl_content_items(conv *k, hm_message *m, const hm_jv *content, const char *where)
{
	size_t i;

	if (hm__dl_is_null(content))
		return HM_OK;
	if (content->type == HM_JV_STRING)
		return hm__dl_add_text(k, m, content->s, content->len);
	if (content->type != HM_JV_ARRAY)
		return hm__dl_fail_at(k, content, "%s.content: must be a string or a list of parts", where);
	for (i = 0; i < content->n; i++) {
		const hm_jv *t = part_text(k, content->v[i], where, i);

		if (!t || hm__dl_add_text(k, m, t->s, t->len) != HM_OK)
			return k->st;
	}
	return HM_OK;
}

/* Separate instructions (messages, fields) are joined by a blank line. */
hm_status
hm__dl_add_instructions(conv *k, const hm_jv *content, const char *where)
{
	if (k->has_instr)
		hm__adds(&k->nomem, &k->instr, "\n\n");
	k->has_instr = 1;
	if (gather_text(k, content, &k->instr, where) != HM_OK)
		return k->st;
	if (k->nomem)
		return hm__dl_bad(k, HM_ENOMEM);
	return HM_OK;
}

/*
 * The parameter schema of tool object t: under the shape's own key, or
 * (with a warning, never silently dropped) under another known key.
 */
const hm_jv *
hm__dl_tool_schema(conv *k, const hm_jv *t, const char *own, const char *where)
{
	static const char *const keys[] = {"parameters", "input_schema", "inputSchema"};
	const hm_jv *s = hm__jv_get(t, own), *o, *name = hm__jv_get(t, "name");
	const char *used = own;
	size_t i;

	for (i = 0; i < 3; i++) {
		if (!strcmp(keys[i], own) || hm__dl_is_null(o = hm__jv_get(t, keys[i])))
			continue;
		if (!hm__dl_is_null(s)) {
			hm__dl_warn_at(k, o, "%s: tool '%s': `%s` ignored, its schema is `%s`", where,
			    hm__dl_is_str(name) ? name->s : "?", keys[i], used);
			continue;
		}
		hm__dl_warn_at(k, o, "%s: tool '%s': schema read from `%s` (this shape's key is `%s`)",
		    where, hm__dl_is_str(name) ? name->s : "?", keys[i], own);
		s = o;
		used = keys[i];
	}
	return s;
}

hm_status
hm__dl_add_function(conv *k, const hm_jv *name, const hm_jv *desc, const hm_jv *params,
             const char *where)
{
	hm_jv *pc = NULL;
	hm_status st;

	if (!hm__dl_is_str(name))
		return FAIL(k, "%s: a tool needs a string `name`", where);
	if (!name->len)
		return FAIL(k, "%s: a tool's `name` must not be empty", where);
	if (!hm__dl_is_null(desc) && !hm__dl_is_str(desc))
		return FAIL(k, "%s: tool '%s': `description` must be a string", where, name->s);
	if (!k->fns && !(k->fns = hm_tools_namespace(&k->tools, "functions")))
		return hm__dl_bad(k, HM_ENOMEM);
	if (!hm__dl_is_null(params) && !(pc = hm__jv_copy(params)))
		return hm__dl_bad(k, HM_ENOMEM);
	st = hm__namespace_add_tool_jv(k->fns, name->s, name->len,
	    hm__dl_is_str(desc) ? desc->s : "", hm__dl_is_str(desc) ? desc->len : 0, pc);
	return st == HM_OK ? 0 : hm__dl_bad(k, st);
}

/* An assistant tool call: commentary, to functions.NAME, <|constrain|>json. */
static hm_status
add_call(conv *k, const hm_jv *name, const char *args, size_t alen)
{
	hm_message *m = hm__dl_add_msg(k, HM_ROLE_ASSISTANT);
	hm_buf r = {0};
	hm_status rc;

	if (!m)
		return k->st;
	hm__adds(&k->nomem, &r, "functions.");
	hm__add(&k->nomem, &r, name->s, name->len);
	rc = k->nomem ? hm__dl_bad(k, HM_ENOMEM) : hm__dl_set(k, &m->recipient, r.p, r.len);
	hm_buf_free(&r);
	if (rc != HM_OK || hm__dl_sets(k, &m->channel, "commentary") != HM_OK ||
	    hm__dl_sets(k, &m->content_type, "<|constrain|>json") != HM_OK)
		return k->st;
	return hm__dl_add_text(k, m, args, alen);
}

/* A call whose arguments are a JSON string (kept as is) or a JSON value. */
hm_status
hm__dl_add_call_jv(conv *k, const hm_jv *name, const hm_jv *args, const char *none)
{
	hm_buf b = {0};
	hm_status rc;

	if (hm__dl_is_str(args))
		return add_call(k, name, args->s, args->len);
	if (hm__dl_is_null(args))
		hm__adds(&k->nomem, &b, none);
	else
		hm__jv_write_to(&k->nomem, &b, args);
	rc = k->nomem ? hm__dl_bad(k, HM_ENOMEM) : add_call(k, name, b.p ? b.p : "", b.len);
	hm_buf_free(&b);
	return rc;
}

/* A tool result: functions.NAME to assistant on commentary. */
hm_message *
hm__dl_add_result(conv *k, const char *name)
{
	hm_message *m = hm__dl_add_msg(k, HM_ROLE_TOOL);
	hm_buf r = {0};
	hm_status rc;

	if (!m)
		return NULL;
	hm__adds(&k->nomem, &r, "functions.");
	hm__adds(&k->nomem, &r, name);
	rc = k->nomem ? hm__dl_bad(k, HM_ENOMEM) : hm__dl_set(k, &m->name, r.p, r.len);
	hm_buf_free(&r);
	if (rc != HM_OK || hm__dl_sets(k, &m->recipient, "assistant") != HM_OK ||
	    hm__dl_sets(k, &m->channel, "commentary") != HM_OK)
		return NULL;
	return m;
}

hm_status
hm__dl_add_channel_text(conv *k, const char *channel, const char *s, size_t n)
{
	hm_message *m = hm__dl_add_msg(k, HM_ROLE_ASSISTANT);

	if (!m || hm__dl_sets(k, &m->channel, channel) != HM_OK)
		return k->st;
	return hm__dl_add_text(k, m, s, n);
}

/*
 * An effort word of a request: low, medium, high (minimal counts as low),
 * lower case as the APIs take them; absent or null is none.  Anything
 * else is an error naming the field.
 */
hm_status
hm__dl_effort_field(conv *k, const hm_jv *v, const char *field, hm_effort *out)
{
	*out = HM_EFFORT_NONE;
	if (hm__dl_is_null(v))
		return HM_OK;
	if (hm__dl_streq(v, "low") || hm__dl_streq(v, "minimal"))
		*out = HM_EFFORT_LOW;
	else if (hm__dl_streq(v, "medium"))
		*out = HM_EFFORT_MEDIUM;
	else if (hm__dl_streq(v, "high"))
		*out = HM_EFFORT_HIGH;
	else if (hm__dl_is_str(v))
		return hm__dl_fail_at(k, v, "%s: '%s' is not a reasoning effort (low, medium, high or minimal)",
		    field, v->s);
	else
		return hm__dl_fail_at(k, v, "%s: must be a string (low, medium, high or minimal), not %s",
		    field, hm__dl_a_type(v));
	return HM_OK;
}
