/*
 * dialect.c - Chat Completions, Responses and Anthropic Messages requests
 * (and Harmony's own JSON) to a Harmony conversation.  The mapping tables,
 * the detection order and every field left out on purpose are in
 * harmony-render(1); where a request is ambiguous the choice made here is
 * the one written there.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversation_int.h"

static const char *const dialect_names[] = {
	"auto", "harmony", "chat", "responses", "anthropic",
};

#define NNAMES(a) ((int)(sizeof (a) / sizeof (a)[0]))

/* The index of s in names[0..n), or -1. */
static int
name_index(const char *const *names, int n, const char *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

const char *
hm_dialect_name(hm_dialect d)
{
	return (int)d >= 0 && (int)d < NNAMES(dialect_names) ? dialect_names[d] : "?";
}

int
hm_dialect_parse(const char *s)
{
	return name_index(dialect_names, NNAMES(dialect_names), s);
}

void
hm_request_clear(hm_request *r)
{
	hm_conversation_free(r->conv);
	free(r->selection_text.p);
	free(r->model.p);
	memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- helpers */

/* The state of one conversion. */
typedef struct conv {
	hm_conversation *c;
	hm_buf instr;      /* developer instructions gathered so far */
	int has_instr;
	hm_namespace *fns; /* the functions namespace, once a tool is seen */
	hm_tools tools;    /* developer tools */
	struct call { char *id; char *name; } *calls;
	size_t ncalls;
	hm_error *err;
	hm_status st;
	const char *buf;   /* the input text, for line numbers */
	size_t len;
	const hm_jv *at;   /* the value being read: an error's line */
	hm_warn_fn *warn;
	void *warn_ctx;
} conv;

static int
bad(conv *k, hm_status st)
{
	if (k->st == HM_OK)
		k->st = st;
	return -1;
}

static size_t
line_of(const conv *k, const hm_jv *v)
{
	if (!k->buf || !v)
		return 0;
	return hm_text_line(k->buf, k->len, v->pos);
}

/* An input error about value `at` (NULL: the value being read). */
static int
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
fail_at(conv *k, const hm_jv *at, const char *fmt, ...)
{
	va_list ap;

	if (k->err && k->st == HM_OK) {
		va_start(ap, fmt);
		vsnprintf(k->err->msg, sizeof k->err->msg, fmt, ap);
		va_end(ap);
		k->err->line = line_of(k, at ? at : k->at);
	}
	return bad(k, HM_EINPUT);
}

#define FAIL(k, ...) fail_at((k), NULL, __VA_ARGS__)

static void
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
warn_at(conv *k, const hm_jv *at, const char *fmt, ...)
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

static int
is_str(const hm_jv *v)
{
	return v && v->type == HM_JV_STRING;
}

static int
is_null(const hm_jv *v)
{
	return !v || v->type == HM_JV_NULL;
}

static int
streq(const hm_jv *v, const char *s)
{
	return is_str(v) && v->len == strlen(s) && !memcmp(v->s, s, v->len);
}

/* A JSON type for messages: "a number". */
static const char *
a_type(const hm_jv *v)
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
static int
opt_string(conv *k, const hm_jv *obj, const char *key, const char *where,
           const hm_jv **out)
{
	const hm_jv *v = hm_jv_get(obj, key);

	*out = NULL;
	if (is_null(v))
		return 0;
	if (!is_str(v))
		return fail_at(k, v, "%s.%s: must be a string, not %s", where, key, a_type(v));
	*out = v;
	return 0;
}

static hm_message *
add_msg(conv *k, hm_role role)
{
	hm_message *m = hm_conversation_push(k->c, role);

	if (!m)
		bad(k, HM_ENOMEM);
	return m;
}

static int
set(conv *k, hm_str *dst, const char *s, size_t n)
{
	if (hm_str_set(dst, s, n) != HM_OK)
		return bad(k, HM_ENOMEM);
	return 0;
}

static int
sets(conv *k, hm_str *dst, const char *s)
{
	return set(k, dst, s, strlen(s));
}

static int
add_text(conv *k, hm_message *m, const char *s, size_t n)
{
	if (hm_message_add_text(m, s, n) != HM_OK)
		return bad(k, HM_ENOMEM);
	return 0;
}

static int
remember_call(conv *k, const hm_jv *id, const hm_jv *name)
{
	struct call *p;

	if (!is_str(name))
		return 0;
	if (!(p = realloc(k->calls, (k->ncalls + 1) * sizeof *p)))
		return bad(k, HM_ENOMEM);
	k->calls = p;
	p += k->ncalls;
	/* A legacy function_call has no id; role "function" finds it by name. */
	p->id = strdup(is_str(id) ? id->s : "");
	p->name = strdup(name->s);
	if (!p->id || !p->name) {
		free(p->id);
		free(p->name);
		return bad(k, HM_ENOMEM);
	}
	k->ncalls++;
	return 0;
}

static const char *
call_name(conv *k, const hm_jv *id)
{
	size_t i;

	if (!is_str(id) || !id->len)
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
	const hm_jv *t = hm_jv_get(p, "type");
	const char *key = "text";

	if (streq(t, "refusal"))
		key = "refusal";
	else if (!streq(t, "text") && !streq(t, "input_text") && !streq(t, "output_text")) {
		fail_at(k, p, "%s.content[%zu]: unsupported content part type '%s'", where, i,
		    is_str(t) ? t->s : "?");
		return NULL;
	}
	if (!is_str(hm_jv_get(p, key))) {
		fail_at(k, p, "%s.content[%zu]: a %s part needs a string `%s`", where, i, t->s, key);
		return NULL;
	}
	return hm_jv_get(p, key);
}

/* Append the text of content (string or parts) to b; parts are concatenated. */
static int
gather_text(conv *k, const hm_jv *content, hm_buf *b, const char *where)
{
	size_t i;

	if (is_null(content))
		return 0;
	if (content->type == HM_JV_STRING) {
		hm_buf_add(b, content->s, content->len);
		return 0;
	}
	if (content->type != HM_JV_ARRAY)
		return fail_at(k, content, "%s.content: must be a string or a list of parts", where);
	for (i = 0; i < content->n; i++) {
		const hm_jv *t = part_text(k, content->v[i], where, i);

		if (!t)
			return -1;
		hm_buf_add(b, t->s, t->len);
	}
	return 0;
}

/* Each text part of content becomes one text item of m. */
static int
content_items(conv *k, hm_message *m, const hm_jv *content, const char *where)
{
	size_t i;

	if (is_null(content))
		return 0;
	if (content->type == HM_JV_STRING)
		return add_text(k, m, content->s, content->len);
	if (content->type != HM_JV_ARRAY)
		return fail_at(k, content, "%s.content: must be a string or a list of parts", where);
	for (i = 0; i < content->n; i++) {
		const hm_jv *t = part_text(k, content->v[i], where, i);

		if (!t || add_text(k, m, t->s, t->len) < 0)
			return -1;
	}
	return 0;
}

/* Separate instructions (messages, fields) are joined by a blank line. */
static int
add_instructions(conv *k, const hm_jv *content, const char *where)
{
	if (k->has_instr)
		hm_buf_adds(&k->instr, "\n\n");
	k->has_instr = 1;
	if (gather_text(k, content, &k->instr, where) < 0)
		return -1;
	if (k->instr.oom)
		return bad(k, HM_ENOMEM);
	return 0;
}

/*
 * The parameter schema of tool object t: under the shape's own key, or
 * (with a warning, never silently dropped) under another known key.
 */
static const hm_jv *
tool_schema(conv *k, const hm_jv *t, const char *own, const char *where)
{
	static const char *const keys[] = {"parameters", "input_schema", "inputSchema"};
	const hm_jv *s = hm_jv_get(t, own), *o, *name = hm_jv_get(t, "name");
	const char *used = own;
	size_t i;

	for (i = 0; i < 3; i++) {
		if (!strcmp(keys[i], own) || is_null(o = hm_jv_get(t, keys[i])))
			continue;
		if (!is_null(s)) {
			warn_at(k, o, "%s: tool '%s': `%s` ignored, its schema is `%s`", where,
			    is_str(name) ? name->s : "?", keys[i], used);
			continue;
		}
		warn_at(k, o, "%s: tool '%s': schema read from `%s` (this shape's key is `%s`)",
		    where, is_str(name) ? name->s : "?", keys[i], own);
		s = o;
		used = keys[i];
	}
	return s;
}

static int
add_function(conv *k, const hm_jv *name, const hm_jv *desc, const hm_jv *params,
             const char *where)
{
	hm_jv *pc = NULL;
	hm_status st;

	if (!is_str(name))
		return FAIL(k, "%s: a tool needs a string `name`", where);
	if (!name->len)
		return FAIL(k, "%s: a tool's `name` must not be empty", where);
	if (!is_null(desc) && !is_str(desc))
		return FAIL(k, "%s: tool '%s': `description` must be a string", where, name->s);
	if (!k->fns && !(k->fns = hm_tools_namespace(&k->tools, "functions")))
		return bad(k, HM_ENOMEM);
	if (!is_null(params) && !(pc = hm_jv_copy(params)))
		return bad(k, HM_ENOMEM);
	st = hm_namespace_add_tool_jv(k->fns, name->s, name->len,
	    is_str(desc) ? desc->s : "", is_str(desc) ? desc->len : 0, pc);
	return st == HM_OK ? 0 : bad(k, st);
}

/* An assistant tool call: commentary, to functions.NAME, <|constrain|>json. */
static int
add_call(conv *k, const hm_jv *name, const char *args, size_t alen)
{
	hm_message *m = add_msg(k, HM_ROLE_ASSISTANT);
	hm_buf r = {0};
	int rc;

	if (!m)
		return -1;
	hm_buf_adds(&r, "functions.");
	hm_buf_add(&r, name->s, name->len);
	rc = r.oom ? bad(k, HM_ENOMEM) : set(k, &m->recipient, r.p, r.len);
	hm_buf_free(&r);
	if (rc < 0 || sets(k, &m->channel, "commentary") < 0 ||
	    sets(k, &m->content_type, "<|constrain|>json") < 0)
		return -1;
	return add_text(k, m, args, alen);
}

/* A call whose arguments are a JSON string (kept as is) or a JSON value. */
static int
add_call_jv(conv *k, const hm_jv *name, const hm_jv *args, const char *none)
{
	hm_buf b = {0};
	int rc;

	if (is_str(args))
		return add_call(k, name, args->s, args->len);
	if (is_null(args))
		hm_buf_adds(&b, none);
	else
		hm_jv_write(&b, args);
	rc = b.oom ? bad(k, HM_ENOMEM) : add_call(k, name, b.p ? b.p : "", b.len);
	hm_buf_free(&b);
	return rc;
}

/* A tool result: functions.NAME to assistant on commentary. */
static hm_message *
add_result(conv *k, const char *name)
{
	hm_message *m = add_msg(k, HM_ROLE_TOOL);
	hm_buf r = {0};
	int rc;

	if (!m)
		return NULL;
	hm_buf_adds(&r, "functions.");
	hm_buf_adds(&r, name);
	rc = r.oom ? bad(k, HM_ENOMEM) : set(k, &m->name, r.p, r.len);
	hm_buf_free(&r);
	if (rc < 0 || sets(k, &m->recipient, "assistant") < 0 ||
	    sets(k, &m->channel, "commentary") < 0)
		return NULL;
	return m;
}

static int
add_channel_text(conv *k, const char *channel, const char *s, size_t n)
{
	hm_message *m = add_msg(k, HM_ROLE_ASSISTANT);

	if (!m || sets(k, &m->channel, channel) < 0)
		return -1;
	return add_text(k, m, s, n);
}

/*
 * An effort word of a request: low, medium, high (minimal counts as low),
 * lower case as the APIs take them; absent or null is none.  Anything
 * else is an error naming the field.
 */
static int
effort_field(conv *k, const hm_jv *v, const char *field, hm_effort *out)
{
	*out = HM_EFFORT_NONE;
	if (is_null(v))
		return 0;
	if (streq(v, "low") || streq(v, "minimal"))
		*out = HM_EFFORT_LOW;
	else if (streq(v, "medium"))
		*out = HM_EFFORT_MEDIUM;
	else if (streq(v, "high"))
		*out = HM_EFFORT_HIGH;
	else if (is_str(v))
		return fail_at(k, v, "%s: '%s' is not a reasoning effort (low, medium, high or minimal)",
		    field, v->s);
	else
		return fail_at(k, v, "%s: must be a string (low, medium, high or minimal), not %s",
		    field, a_type(v));
	return 0;
}

/* ---------------------------------------------------------------- chat */

static int
chat_tools(conv *k, const hm_jv *tools, const char *field)
{
	size_t i;
	char where[48];

	if (is_null(tools))
		return 0;
	if (tools->type != HM_JV_ARRAY)
		return fail_at(k, tools, "%s: must be a list", field);
	for (i = 0; i < tools->n; i++) {
		const hm_jv *t = tools->v[i], *f, *ty;

		k->at = t;
		snprintf(where, sizeof where, "%s[%zu]", field, i);
		if (t->type != HM_JV_OBJECT)
			return FAIL(k, "%s: must be an object", where);
		f = hm_jv_get(t, "function");
		ty = hm_jv_get(t, "type");
		if (ty && !streq(ty, "function"))
			return FAIL(k, "%s: unsupported tool type '%s'", where,
			    is_str(ty) ? ty->s : "?");
		if (!f)
			f = t; /* the flat Responses shape, and legacy `functions` */
		else if (f->type != HM_JV_OBJECT)
			return FAIL(k, "%s.function: must be an object", where);
		if (add_function(k, hm_jv_get(f, "name"), hm_jv_get(f, "description"),
		    tool_schema(k, f, "parameters", where), where) < 0)
			return -1;
	}
	return 0;
}

/*
 * An assistant's reasoning: reasoning_content, reasoning or thinking
 * (servers write one or the other, some both with the same text).
 */
static int
chat_reasoning(conv *k, const hm_jv *m, const char *where, const hm_jv **out)
{
	static const char *const keys[] = {"reasoning_content", "reasoning", "thinking"};
	const hm_jv *r;
	size_t j, first = 0;

	*out = NULL;
	for (j = 0; j < 3; j++) {
		if (opt_string(k, m, keys[j], where, &r) < 0)
			return -1;
		if (!r)
			continue;
		if (!*out) {
			*out = r;
			first = j;
		} else if (r->len != (*out)->len || memcmp(r->s, (*out)->s, r->len))
			return fail_at(k, r, "%s: `%s` and `%s` hold different text; give one",
			    where, keys[first], keys[j]);
	}
	return 0;
}

static int
chat_assistant(conv *k, const hm_jv *m, const char *where)
{
	const hm_jv *content = hm_jv_get(m, "content"), *calls = hm_jv_get(m, "tool_calls");
	const hm_jv *fc = hm_jv_get(m, "function_call"), *r, *refusal;
	int ncalls;
	size_t j;
	hm_message *a;

	if (chat_reasoning(k, m, where, &r) < 0 || opt_string(k, m, "refusal", where, &refusal) < 0)
		return -1;
	if (!is_null(calls) && calls->type != HM_JV_ARRAY)
		return fail_at(k, calls, "%s.tool_calls: must be a list", where);
	if (!is_null(fc) && fc->type != HM_JV_OBJECT)
		return fail_at(k, fc, "%s.function_call: must be an object", where);
	ncalls = (!is_null(calls) && calls->n) || !is_null(fc);
	if (r && add_channel_text(k, "analysis", r->s, r->len) < 0)
		return -1;
	if (!is_null(content) &&
	    !(content->type == HM_JV_STRING && !content->len && (ncalls || refusal))) {
		if (!(a = add_msg(k, HM_ROLE_ASSISTANT)) ||
		    sets(k, &a->channel, ncalls ? "commentary" : "final") < 0 ||
		    content_items(k, a, content, where) < 0)
			return -1;
	}
	/* A refusal is what the user was told: a final answer. */
	if (refusal && add_channel_text(k, "final", refusal->s, refusal->len) < 0)
		return -1;
	for (j = 0; !is_null(calls) && j < calls->n; j++) {
		const hm_jv *c = calls->v[j], *f = hm_jv_get(c, "function");
		const hm_jv *name = hm_jv_get(f, "name");

		if (!is_str(name) || !name->len)
			return fail_at(k, c, "%s.tool_calls[%zu]: missing function name", where, j);
		if (remember_call(k, hm_jv_get(c, "id"), name) < 0 ||
		    add_call_jv(k, name, hm_jv_get(f, "arguments"), "") < 0)
			return -1;
	}
	if (!is_null(fc)) {
		const hm_jv *name = hm_jv_get(fc, "name");

		if (!is_str(name) || !name->len)
			return fail_at(k, fc, "%s.function_call: missing `name`", where);
		if (remember_call(k, NULL, name) < 0 ||
		    add_call_jv(k, name, hm_jv_get(fc, "arguments"), "") < 0)
			return -1;
	}
	return 0;
}

static int
chat_messages(conv *k, const hm_jv *msgs)
{
	size_t i;

	if (!msgs || msgs->type != HM_JV_ARRAY)
		return fail_at(k, msgs, "missing field `messages` (a list)");
	for (i = 0; i < msgs->n; i++) {
		const hm_jv *m = msgs->v[i], *role = hm_jv_get(m, "role");
		const hm_jv *content = hm_jv_get(m, "content"), *name;
		char where[32];

		k->at = m;
		snprintf(where, sizeof where, "messages[%zu]", i);
		if (m->type != HM_JV_OBJECT)
			return FAIL(k, "%s: must be an object", where);
		if (streq(role, "system") || streq(role, "developer")) {
			if (add_instructions(k, content, where) < 0)
				return -1;
		} else if (streq(role, "user")) {
			hm_message *u;

			if (opt_string(k, m, "name", where, &name) < 0 || !(u = add_msg(k, HM_ROLE_USER)))
				return -1;
			/* Harmony's author name: <|start|>user:NAME (spec §3.2). */
			if (name && name->len && set(k, &u->name, name->s, name->len) < 0)
				return -1;
			if (content_items(k, u, content, where) < 0)
				return -1;
		} else if (streq(role, "assistant")) {
			if (chat_assistant(k, m, where) < 0)
				return -1;
		} else if (streq(role, "tool") || streq(role, "function")) {
			const hm_jv *id = hm_jv_get(m, "tool_call_id");
			const char *fname = call_name(k, id);
			hm_message *t;

			if (opt_string(k, m, "name", where, &name) < 0)
				return -1;
			if (!fname && name && name->len)
				fname = name->s;
			if (!fname && is_str(id))
				return FAIL(k, "%s: tool message whose tool_call_id matches no earlier tool call", where);
			if (!fname)
				return FAIL(k, "%s: %s message without tool_call_id or name", where, role->s);
			if (!(t = add_result(k, fname)) || content_items(k, t, content, where) < 0)
				return -1;
		} else
			return FAIL(k, "%s: unknown role '%s'", where, is_str(role) ? role->s : "?");
	}
	return 0;
}

/* ---------------------------------------------------------------- responses */

/* A reasoning item: content texts, else summary texts, one per line. */
static int
responses_reasoning(conv *k, const hm_jv *it, const char *where)
{
	const hm_jv *parts = hm_jv_get(it, "content");
	const char *field = "content";
	hm_buf b = {0};
	size_t j;
	int rc;

	if (is_null(parts) || (parts->type == HM_JV_ARRAY && !parts->n)) {
		parts = hm_jv_get(it, "summary");
		field = "summary";
	}
	if (!is_null(parts) && parts->type != HM_JV_ARRAY)
		return fail_at(k, parts, "%s.%s: must be a list", where, field);
	for (j = 0; !is_null(parts) && j < parts->n; j++) {
		const hm_jv *t = hm_jv_get(parts->v[j], "text");

		if (!is_str(t)) {
			hm_buf_free(&b);
			return fail_at(k, parts->v[j], "%s.%s[%zu]: needs a string `text`", where, field, j);
		}
		if (j)
			hm_buf_addc(&b, '\n');
		hm_buf_add(&b, t->s, t->len);
	}
	if (!b.oom && !b.len) {
		warn_at(k, it, "%s: reasoning item with no readable text (%s) left out", where,
		    hm_jv_get(it, "encrypted_content") ? "only encrypted_content" : "empty summary");
		hm_buf_free(&b);
		return 0;
	}
	rc = b.oom ? bad(k, HM_ENOMEM) : add_channel_text(k, "analysis", b.p, b.len);
	hm_buf_free(&b);
	return rc;
}

static int
responses_input(conv *k, const hm_jv *input)
{
	size_t i;

	if (is_null(input))
		return 0;
	if (input->type == HM_JV_STRING) {
		hm_message *u = add_msg(k, HM_ROLE_USER);

		return u ? add_text(k, u, input->s, input->len) : -1;
	}
	if (input->type != HM_JV_ARRAY)
		return fail_at(k, input, "input: must be a string or a list of items");
	for (i = 0; i < input->n; i++) {
		const hm_jv *it = input->v[i], *type = hm_jv_get(it, "type");
		const hm_jv *role = hm_jv_get(it, "role");
		char where[32];

		k->at = it;
		snprintf(where, sizeof where, "input[%zu]", i);
		if (it->type != HM_JV_OBJECT)
			return FAIL(k, "%s: must be an object", where);
		if (streq(type, "message") || (!type && role)) {
			const hm_jv *content = hm_jv_get(it, "content");

			if (streq(role, "system") || streq(role, "developer")) {
				if (add_instructions(k, content, where) < 0)
					return -1;
			} else if (streq(role, "user")) {
				hm_message *u = add_msg(k, HM_ROLE_USER);

				if (!u || content_items(k, u, content, where) < 0)
					return -1;
			} else if (streq(role, "assistant")) {
				hm_message *a = add_msg(k, HM_ROLE_ASSISTANT);

				if (!a || sets(k, &a->channel, "final") < 0 ||
				    content_items(k, a, content, where) < 0)
					return -1;
			} else
				return FAIL(k, "%s: unknown role '%s'", where, is_str(role) ? role->s : "?");
		} else if (streq(type, "reasoning")) {
			if (responses_reasoning(k, it, where) < 0)
				return -1;
		} else if (streq(type, "function_call")) {
			const hm_jv *name = hm_jv_get(it, "name");

			if (!is_str(name) || !name->len)
				return FAIL(k, "%s: function_call needs a string `name`", where);
			if (remember_call(k, hm_jv_get(it, "call_id"), name) < 0 ||
			    add_call_jv(k, name, hm_jv_get(it, "arguments"), "") < 0)
				return -1;
		} else if (streq(type, "function_call_output")) {
			const char *name = call_name(k, hm_jv_get(it, "call_id"));
			hm_message *t;

			if (!name)
				return FAIL(k, "%s: function_call_output whose call_id matches no earlier function_call", where);
			if (!(t = add_result(k, name)) || content_items(k, t, hm_jv_get(it, "output"), where) < 0)
				return -1;
		} else
			return FAIL(k, "%s: unsupported item type '%s'", where, is_str(type) ? type->s : "?");
	}
	return 0;
}

/* ---------------------------------------------------------------- anthropic */

/* Text blocks (or a string) appended to b with nothing in between. */
static int
anthropic_blocks_text(conv *k, hm_buf *b, const hm_jv *content, const char *where)
{
	size_t i;

	if (is_null(content))
		return 0;
	if (content->type == HM_JV_STRING) {
		hm_buf_add(b, content->s, content->len);
		return 0;
	}
	if (content->type != HM_JV_ARRAY)
		return fail_at(k, content, "%s: must be a string or a list of blocks", where);
	for (i = 0; i < content->n; i++) {
		const hm_jv *bl = content->v[i], *t = hm_jv_get(bl, "text");
		const hm_jv *ty = hm_jv_get(bl, "type");

		if (!streq(ty, "text"))
			return fail_at(k, bl, "%s[%zu]: unsupported block type '%s' (only text here)", where, i,
			    is_str(ty) ? ty->s : "?");
		if (!is_str(t))
			return fail_at(k, bl, "%s[%zu]: a text block needs a string `text`", where, i);
		hm_buf_add(b, t->s, t->len);
	}
	return 0;
}

static int
anthropic_messages(conv *k, const hm_jv *msgs)
{
	size_t i, j;

	if (!msgs || msgs->type != HM_JV_ARRAY)
		return fail_at(k, msgs, "missing field `messages` (a list)");
	for (i = 0; i < msgs->n; i++) {
		const hm_jv *m = msgs->v[i], *role = hm_jv_get(m, "role");
		const hm_jv *content = hm_jv_get(m, "content");
		int user = streq(role, "user"), calls = 0;
		hm_message *cur = NULL; /* the open user or text message */
		char where[32], bw[64];

		k->at = m;
		snprintf(where, sizeof where, "messages[%zu]", i);
		if (m->type != HM_JV_OBJECT)
			return FAIL(k, "%s: must be an object", where);
		if (!user && !streq(role, "assistant"))
			return FAIL(k, "%s: role must be user or assistant", where);
		if (is_str(content)) {
			hm_message *x = add_msg(k, user ? HM_ROLE_USER : HM_ROLE_ASSISTANT);

			if (!x || (!user && sets(k, &x->channel, "final") < 0) ||
			    add_text(k, x, content->s, content->len) < 0)
				return -1;
			continue;
		}
		if (!content || content->type != HM_JV_ARRAY)
			return FAIL(k, "%s.content: must be a string or a list of blocks", where);
		for (j = 0; !user && j < content->n; j++)
			calls |= streq(hm_jv_get(content->v[j], "type"), "tool_use");
		for (j = 0; j < content->n; j++) {
			const hm_jv *b = content->v[j], *type = hm_jv_get(b, "type");

			k->at = b;
			snprintf(bw, sizeof bw, "%s.content[%zu]", where, j);
			if (streq(type, "text")) {
				const hm_jv *t = hm_jv_get(b, "text");

				if (!is_str(t))
					return FAIL(k, "%s: a text block needs a string `text`", bw);
				if (!cur) {
					if (!(cur = add_msg(k, user ? HM_ROLE_USER : HM_ROLE_ASSISTANT)))
						return -1;
					if (!user && sets(k, &cur->channel, calls ? "commentary" : "final") < 0)
						return -1;
				}
				if (add_text(k, cur, t->s, t->len) < 0)
					return -1;
				continue;
			}
			cur = NULL;
			if (streq(type, "thinking") && !user) {
				const hm_jv *t = hm_jv_get(b, "thinking");

				if (!is_str(t))
					return FAIL(k, "%s: a thinking block needs a string `thinking`", bw);
				if (add_channel_text(k, "analysis", t->s, t->len) < 0)
					return -1;
			} else if (streq(type, "redacted_thinking") && !user) {
				continue; /* nothing readable to render */
			} else if (streq(type, "tool_use") && !user) {
				const hm_jv *name = hm_jv_get(b, "name");

				if (!is_str(name) || !name->len)
					return FAIL(k, "%s: tool_use needs a string `name`", bw);
				if (remember_call(k, hm_jv_get(b, "id"), name) < 0 ||
				    add_call_jv(k, name, hm_jv_get(b, "input"), "{}") < 0)
					return -1;
			} else if (streq(type, "tool_result") && user) {
				const char *name = call_name(k, hm_jv_get(b, "tool_use_id"));
				hm_message *t;
				hm_buf txt = {0};
				char cw[80];
				int rc;

				if (!name)
					return FAIL(k, "%s: tool_result whose tool_use_id matches no earlier tool_use", bw);
				if (!(t = add_result(k, name)))
					return -1;
				/* is_error has no Harmony field: the content says it. */
				snprintf(cw, sizeof cw, "%s.content", bw);
				rc = anthropic_blocks_text(k, &txt, hm_jv_get(b, "content"), cw);
				if (rc == 0)
					rc = txt.oom ? bad(k, HM_ENOMEM) : add_text(k, t, txt.p ? txt.p : "", txt.len);
				hm_buf_free(&txt);
				if (rc < 0)
					return -1;
			} else
				return FAIL(k, "%s: unsupported %s block type '%s'", bw,
				    user ? "user" : "assistant", is_str(type) ? type->s : "?");
		}
	}
	return 0;
}

static int
anthropic_tools(conv *k, const hm_jv *tools)
{
	size_t i;
	char where[32];

	if (is_null(tools))
		return 0;
	if (tools->type != HM_JV_ARRAY)
		return fail_at(k, tools, "tools: must be a list");
	for (i = 0; i < tools->n; i++) {
		const hm_jv *t = tools->v[i], *ty = hm_jv_get(t, "type");

		k->at = t;
		snprintf(where, sizeof where, "tools[%zu]", i);
		if (t->type != HM_JV_OBJECT)
			return FAIL(k, "%s: must be an object", where);
		if (ty && !streq(ty, "custom"))
			return FAIL(k, "%s: unsupported tool type '%s'", where, is_str(ty) ? ty->s : "?");
		if (add_function(k, hm_jv_get(t, "name"), hm_jv_get(t, "description"),
		    tool_schema(k, t, "input_schema", where), where) < 0)
			return -1;
	}
	return 0;
}

/* temperature -> effort: <= 0.3 low, < 0.8 medium, else high. */
static int
temperature_effort(conv *k, const hm_jv *t, hm_effort *out)
{
	*out = HM_EFFORT_NONE;
	if (is_null(t))
		return 0;
	if (t->type != HM_JV_NUMBER)
		return fail_at(k, t, "temperature: must be a number, not %s", a_type(t));
	if (t->num < 0)
		return fail_at(k, t, "temperature: must be 0 or more, not %s", t->s);
	*out = t->num <= 0.3 ? HM_EFFORT_LOW : t->num < 0.8 ? HM_EFFORT_MEDIUM : HM_EFFORT_HIGH;
	return 0;
}

/* ---------------------------------------------------------------- shape */

/*
 * What a list of messages says about its dialect.  Text parts
 * ({"type":"text"}) are Chat's, but Harmony's text items look the same:
 * a weak sign, outweighed by any Harmony field.
 */
enum {
	SIG_HARMONY = 1,   /* channel, recipient, content_type; system/developer_content */
	SIG_CHAT = 2,      /* a field, role or part type only Chat has */
	SIG_TEXT = 4,      /* a {"type":"text"} part */
	SIG_ANTHROPIC = 8, /* an Anthropic block type */
	SIG_RESPONSES = 16 /* a Responses item type */
};

typedef struct sig {
	unsigned bits;
	char harmony[48], chat[48], anthropic[48]; /* the first field seen of each */
} sig;

static void
mark(sig *s, unsigned bit, const char *fmt, ...)
{
	char *dst = bit == SIG_HARMONY ? s->harmony : bit == SIG_CHAT ? s->chat :
	    bit == SIG_ANTHROPIC ? s->anthropic : NULL;
	va_list ap;

	if (dst && !(s->bits & bit)) {
		va_start(ap, fmt);
		vsnprintf(dst, sizeof s->chat, fmt, ap);
		va_end(ap);
	}
	s->bits |= bit;
}

static int
in_list(const hm_jv *v, const char *const *words)
{
	size_t i;

	for (i = 0; words[i]; i++)
		if (streq(v, words[i]))
			return 1;
	return 0;
}

static void
scan_messages(const hm_jv *msgs, const char *path, sig *s)
{
	static const char *const hkeys[] = {"channel", "recipient", "content_type", NULL};
	static const char *const ckeys[] = {"tool_calls", "tool_call_id", "reasoning_content",
	    "reasoning", "thinking", "refusal", "function_call", "audio", NULL};
	static const char *const hparts[] = {"system_content", "developer_content", NULL};
	static const char *const cparts[] = {"image_url", "input_audio", "file", "refusal", NULL};
	static const char *const aparts[] = {"tool_use", "tool_result", "thinking",
	    "redacted_thinking", "image", "document", "search_result", "server_tool_use",
	    "web_search_tool_result", NULL};
	static const char *const ritems[] = {"message", "reasoning", "function_call",
	    "function_call_output", NULL};
	size_t i, j;

	for (i = 0; msgs && msgs->type == HM_JV_ARRAY && i < msgs->n; i++) {
		const hm_jv *m = msgs->v[i], *c = hm_jv_get(m, "content");

		for (j = 0; hkeys[j]; j++)
			if (hm_jv_get(m, hkeys[j]))
				mark(s, SIG_HARMONY, "%s[%zu].%s", path, i, hkeys[j]);
		for (j = 0; ckeys[j]; j++)
			if (hm_jv_get(m, ckeys[j]))
				mark(s, SIG_CHAT, "%s[%zu].%s", path, i, ckeys[j]);
		if (streq(hm_jv_get(m, "role"), "function"))
			mark(s, SIG_CHAT, "%s[%zu].role \"function\"", path, i);
		if (!hm_jv_get(m, "role") && in_list(hm_jv_get(m, "type"), ritems))
			s->bits |= SIG_RESPONSES;
		for (j = 0; c && c->type == HM_JV_ARRAY && j < c->n; j++) {
			const hm_jv *t = hm_jv_get(c->v[j], "type");

			if (in_list(t, hparts))
				mark(s, SIG_HARMONY, "%s[%zu].content[%zu] %s", path, i, j, t->s);
			else if (in_list(t, cparts))
				mark(s, SIG_CHAT, "%s[%zu].content[%zu] %s", path, i, j, t->s);
			else if (in_list(t, aparts) || hm_jv_get(c->v[j], "cache_control"))
				mark(s, SIG_ANTHROPIC, "%s[%zu].content[%zu] %s", path, i, j,
				    is_str(t) ? t->s : "block");
			else if (streq(t, "text"))
				s->bits |= SIG_TEXT;
		}
	}
}

/* The top-level fields of a request object with `messages`. */
static void
scan_top(const hm_jv *v, sig *s)
{
	static const char *const akeys[] = {"system", "anthropic_version", "stop_sequences", NULL};
	/* Chat's own fields, then the ones Anthropic requests have too. */
	static const char *const ckeys[] = {"functions", "function_call", "stream_options",
	    "max_completion_tokens", "n", "stop", "seed", "response_format", "logprobs",
	    "top_logprobs", "logit_bias", "presence_penalty", "frequency_penalty", "user",
	    "parallel_tool_calls", "store", "modalities", "prediction", "audio",
	    "web_search_options", "reasoning", "chat_template_kwargs", "min_p",
	    "repetition_penalty", NULL};
	static const char *const shared[] = {"model", "tools", "tool_choice", "reasoning_effort",
	    "stream", "max_tokens", "temperature", "top_p", "top_k", "thinking", "metadata",
	    "service_tier", NULL};
	const hm_jv *tools = hm_jv_get(v, "tools"), *model = hm_jv_get(v, "model");
	size_t i;

	for (i = 0; ckeys[i]; i++)
		if (hm_jv_get(v, ckeys[i]))
			mark(s, SIG_CHAT, "%s", ckeys[i]);
	for (i = 0; akeys[i]; i++)
		if (!is_null(hm_jv_get(v, akeys[i])))
			mark(s, SIG_ANTHROPIC, "%s", akeys[i]);
	if (hm_jv_get(hm_jv_get(v, "metadata"), "user_id"))
		mark(s, SIG_ANTHROPIC, "metadata.user_id");
	for (i = 0; tools && tools->type == HM_JV_ARRAY && i < tools->n; i++)
		if (hm_jv_get(tools->v[i], "input_schema") && !hm_jv_get(tools->v[i], "function"))
			mark(s, SIG_ANTHROPIC, "tools[%zu].input_schema", i);
	if (is_str(model) && model->len >= 6 && !strncmp(model->s, "claude", 6) &&
	    hm_jv_get(v, "max_tokens"))
		mark(s, SIG_ANTHROPIC, "model \"%s\" with max_tokens", model->s);
	/*
	 * top_k and a thinking object are Anthropic's, unless the rest says
	 * Chat (vLLM takes top_k, some Chat servers a thinking switch).
	 */
	if (hm_jv_get(v, "top_k") && !(s->bits & SIG_CHAT))
		mark(s, SIG_ANTHROPIC, "top_k");
	if (hm_jv_is(hm_jv_get(v, "thinking"), HM_JV_OBJECT) && !(s->bits & SIG_CHAT))
		mark(s, SIG_ANTHROPIC, "thinking");
	for (i = 0; !(s->bits & SIG_ANTHROPIC) && shared[i]; i++)
		if (hm_jv_get(v, shared[i]))
			mark(s, SIG_CHAT, "%s", shared[i]);
}

/*
 * The dialect of one JSON value (the order is harmony-render(1)'s), or
 * HM_DIALECT_AUTO with the reason in why.
 */
static hm_dialect
detect(const hm_jv *v, char *why, size_t whysz)
{
	const hm_jv *msgs;
	hm_jv one;
	hm_jv *onev[1];
	sig s;
	int top = 0;

	memset(&s, 0, sizeof s);
	if (v->type == HM_JV_ARRAY) {
		msgs = v;
	} else if (v->type != HM_JV_OBJECT) {
		snprintf(why, whysz, "a request must be a JSON object or list, not %s", a_type(v));
		return HM_DIALECT_AUTO;
	} else if (hm_jv_get(v, "role")) {
		memset(&one, 0, sizeof one);
		one.type = HM_JV_ARRAY;
		one.n = 1;
		onev[0] = (hm_jv *)v;
		one.v = onev;
		msgs = &one;
	} else if (hm_jv_get(v, "input") || hm_jv_get(v, "instructions")) {
		return HM_DIALECT_RESPONSES;
	} else if (!(msgs = hm_jv_get(v, "messages"))) {
		snprintf(why, whysz, "cannot tell the request's shape (want messages, input or a list); use --from");
		return HM_DIALECT_AUTO;
	} else
		top = 1;
	scan_messages(msgs, "messages", &s);
	if (top)
		scan_top(v, &s);
	if ((s.bits & SIG_ANTHROPIC) && (s.bits & (SIG_HARMONY | SIG_CHAT))) {
		snprintf(why, whysz, "the request mixes Anthropic fields (%s) with %s fields (%s); use --from",
		    s.anthropic, s.bits & SIG_HARMONY ? "Harmony" : "Chat",
		    s.bits & SIG_HARMONY ? s.harmony : s.chat);
		return HM_DIALECT_AUTO;
	}
	if (s.bits & SIG_ANTHROPIC)
		return HM_DIALECT_ANTHROPIC;
	if ((s.bits & SIG_HARMONY) && (s.bits & SIG_CHAT)) {
		snprintf(why, whysz, "the request mixes Harmony fields (%s) with Chat fields (%s); use --from",
		    s.harmony, s.chat);
		return HM_DIALECT_AUTO;
	}
	if (s.bits & SIG_HARMONY)
		return HM_DIALECT_HARMONY;
	if (s.bits & (SIG_CHAT | SIG_TEXT))
		return HM_DIALECT_CHAT;
	if (!top && (s.bits & SIG_RESPONSES))
		return HM_DIALECT_RESPONSES;
	return HM_DIALECT_HARMONY;
}

/* ---------------------------------------------------------------- system */

static int
apply_opts(conv *k, hm_system_content *s, const hm_request_opts *o, hm_effort effort)
{
	if (effort != HM_EFFORT_NONE)
		s->effort = effort;
	if (o->date && sets(k, &s->date, o->date) < 0)
		return -1;
	if (o->cutoff && sets(k, &s->cutoff, o->cutoff) < 0)
		return -1;
	if (o->identity && sets(k, &s->model_identity, o->identity) < 0)
		return -1;
	if (o->browser && hm_tools_add_builtin(&s->tools, "browser") != HM_OK)
		return bad(k, HM_ENOMEM);
	if (o->python && hm_tools_add_builtin(&s->tools, "python") != HM_OK)
		return bad(k, HM_ENOMEM);
	return 0;
}

static int
opts_given(const hm_request_opts *o)
{
	return o->effort || o->date || o->cutoff || o->identity || o->browser || o->python;
}

/* Harmony input: edit the first system content, adding one when missing. */
static int
harmony_opts(conv *k, const hm_request_opts *o)
{
	hm_conversation *c = k->c;
	size_t i, j;
	hm_message *m;
	hm_system_content *s;

	if (!opts_given(o))
		return 0;
	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->msgs[i].ncontent; j++)
			if (c->msgs[i].content[j].type == HM_CONTENT_SYSTEM)
				return apply_opts(k, c->msgs[i].content[j].sys, o, o->effort);
	if (!(m = add_msg(k, HM_ROLE_SYSTEM)))
		return -1;
	/* Move the new message to the front. */
	{
		hm_message tmp = *m;

		memmove(c->msgs + 1, c->msgs, (c->n - 1) * sizeof *c->msgs);
		c->msgs[0] = tmp;
		m = &c->msgs[0];
	}
	if (!(s = hm_message_add_system(m)))
		return bad(k, HM_ENOMEM);
	return apply_opts(k, s, o, o->effort);
}

static int
is_harmony_model(const hm_str *m)
{
	static const char *const pats[] = {"gpt-oss", "gpt_oss", "gptoss", "harmony"};
	size_t i, j, n;

	for (i = 0; m->p && i < m->len; i++)
		for (j = 0; j < 4; j++) {
			n = strlen(pats[j]);
			if (i + n <= m->len) {
				size_t x;

				for (x = 0; x < n && tolower((unsigned char)m->p[i + x]) == pats[j][x]; x++)
					;
				if (x == n)
					return 1;
			}
		}
	return 0;
}

/*
 * One JSON value of Harmony input: a Conversation, a list of messages or
 * one message object; its messages are appended (*msgno counts them).
 */
static int
harmony_value(conv *k, const hm_jv *v, size_t *msgno)
{
	const hm_jv *msgs = v;
	size_t i, n = 1;
	int one = 0;

	k->at = v;
	if (v->type == HM_JV_OBJECT && hm_jv_get(v, "role"))
		one = 1;
	else if (v->type == HM_JV_OBJECT && !(msgs = hm_jv_get(v, "messages")))
		return FAIL(k, "missing field `messages`");
	else if (msgs->type != HM_JV_ARRAY)
		return fail_at(k, msgs, "a Harmony conversation needs a list of messages, not %s",
		    a_type(msgs));
	if (!one)
		n = msgs->n;
	for (i = 0; i < n; i++) {
		const hm_jv *mv = one ? v : msgs->v[i];
		hm_message *m = add_msg(k, HM_ROLE_USER);
		hm_error e;
		hm_status st;

		if (!m)
			return -1;
		k->at = mv;
		if ((st = hm_message_from_jv(mv, m, &e)) != HM_OK) {
			k->c->n--;
			if (st == HM_EINPUT)
				return FAIL(k, "messages[%zu]: %s", *msgno, e.msg);
			return bad(k, st);
		}
		++*msgno;
	}
	return 0;
}

/* Reading a request value into k->c; top is NULL for a bare message list. */
static int
read_dialect(conv *k, hm_dialect from, const hm_jv *top, const hm_jv *list, hm_effort *effort)
{
	switch (from) {
	case HM_DIALECT_CHAT:
		if (top) {
			if (effort_field(k, hm_jv_get(top, "reasoning_effort"), "reasoning_effort", effort) < 0 ||
			    chat_tools(k, hm_jv_get(top, "tools"), "tools") < 0 ||
			    chat_tools(k, hm_jv_get(top, "functions"), "functions") < 0)
				return -1;
			list = hm_jv_get(top, "messages");
		}
		return chat_messages(k, list);
	case HM_DIALECT_RESPONSES:
		if (top) {
			const hm_jv *ins = hm_jv_get(top, "instructions"), *r = hm_jv_get(top, "reasoning");

			if (!is_null(r) && r->type != HM_JV_OBJECT)
				return fail_at(k, r, "reasoning: must be an object, not %s", a_type(r));
			if (effort_field(k, hm_jv_get(r, "effort"), "reasoning.effort", effort) < 0)
				return -1;
			if (!is_null(ins) && ins->type != HM_JV_STRING)
				return fail_at(k, ins, "instructions: must be a string, not %s", a_type(ins));
			if (!is_null(ins) && add_instructions(k, ins, "instructions") < 0)
				return -1;
			if (chat_tools(k, hm_jv_get(top, "tools"), "tools") < 0)
				return -1;
			list = hm_jv_get(top, "input");
		}
		return responses_input(k, list);
	case HM_DIALECT_ANTHROPIC:
		if (top) {
			const hm_jv *system = hm_jv_get(top, "system");

			if (effort_field(k, hm_jv_get(top, "reasoning_effort"), "reasoning_effort", effort) < 0)
				return -1;
			if (*effort == HM_EFFORT_NONE &&
			    temperature_effort(k, hm_jv_get(top, "temperature"), effort) < 0)
				return -1;
			if (!is_null(system)) {
				k->has_instr = 1;
				if (anthropic_blocks_text(k, &k->instr, system, "system") < 0)
					return -1;
			}
			if (anthropic_tools(k, hm_jv_get(top, "tools")) < 0)
				return -1;
			list = hm_jv_get(top, "messages");
		}
		return anthropic_messages(k, list);
	default:
		return FAIL(k, "unknown dialect");
	}
}

/* The router's selection text: the last user message. */
static void
selection(conv *k, hm_request *out)
{
	size_t i, j;

	for (i = k->c->n; i-- > 0;) {
		const hm_message *m = &k->c->msgs[i];
		hm_buf b = {0};

		if (m->role != HM_ROLE_USER)
			continue;
		for (j = 0; j < m->ncontent; j++)
			if (m->content[j].type == HM_CONTENT_TEXT)
				hm_buf_add(&b, m->content[j].text.p, m->content[j].text.len);
		if (b.oom || hm_str_set(&out->selection_text, b.p ? b.p : "", b.len) != HM_OK)
			bad(k, HM_ENOMEM);
		hm_buf_free(&b);
		break;
	}
}

/* A request of another dialect: system, developer, then the turns. */
static void
read_request(conv *k, hm_dialect from, const hm_jv *v, const hm_request_opts *o)
{
	const hm_jv *top = NULL, *list = v;
	hm_jv one;
	hm_jv *onev[1];
	hm_message *sys, *dev;
	hm_effort effort = HM_EFFORT_NONE;

	if (v->type == HM_JV_OBJECT && hm_jv_get(v, "role")) {
		/* One message (or input item) on its own. */
		memset(&one, 0, sizeof one);
		one.type = HM_JV_ARRAY;
		one.n = 1;
		onev[0] = (hm_jv *)v;
		one.v = onev;
		one.pos = v->pos;
		list = &one;
	} else if (v->type == HM_JV_OBJECT) {
		top = v;
	} else if (v->type != HM_JV_ARRAY) {
		FAIL(k, "a %s request must be a JSON object or a list of messages", hm_dialect_name(from));
		return;
	}
	if (!(sys = add_msg(k, HM_ROLE_SYSTEM)) || !hm_message_add_system(sys)) {
		bad(k, HM_ENOMEM);
		return;
	}
	if (!add_msg(k, HM_ROLE_DEVELOPER))
		return;
	if (read_dialect(k, from, top, list, &effort) < 0)
		return;
	sys = &k->c->msgs[0];
	dev = &k->c->msgs[1];
	if (apply_opts(k, sys->content[0].sys, o, o->effort ? o->effort : effort) < 0)
		return;
	if (k->has_instr || k->tools.n) {
		hm_developer_content *d = hm_message_add_developer(dev);

		if (!d) {
			bad(k, HM_ENOMEM);
			return;
		}
		if (k->has_instr && (k->instr.oom ||
		    set(k, &d->instructions, k->instr.p ? k->instr.p : "", k->instr.len) < 0)) {
			bad(k, HM_ENOMEM);
			return;
		}
		d->tools = k->tools;
		memset(&k->tools, 0, sizeof k->tools);
	} else {
		/* No developer message at all. */
		hm_message_clear(dev);
		memmove(dev, dev + 1, (k->c->n - 2) * sizeof *dev);
		k->c->n--;
	}
}

hm_status
hm_request_from_json(const char *buf, size_t len, hm_dialect from,
                     const hm_request_opts *o, hm_request *out, hm_error *err)
{
	static const hm_request_opts none;
	char msg[200], why[200];
	hm_jv *v;
	conv k;
	hm_dialect d;
	size_t i, pos = 0, errpos = 0;

	memset(out, 0, sizeof *out);
	memset(&k, 0, sizeof k);
	if (err)
		err->line = 0;
	if (!o)
		o = &none;
	k.err = err;
	k.buf = buf;
	k.len = len;
	k.warn = o->warn;
	k.warn_ctx = o->warn_ctx;
	if (!(v = hm_jv_parse_ex(buf, len, &pos, 0, 0, msg, sizeof msg, &errpos))) {
		if (!msg[0])
			return HM_ENOMEM;
		hm_seterr(err, "%s", msg);
		if (err)
			err->line = hm_text_line(buf, len, errpos);
		return HM_EINPUT;
	}
	k.at = v;
	d = from;
	if (d == HM_DIALECT_AUTO && (d = detect(v, why, sizeof why)) == HM_DIALECT_AUTO) {
		FAIL(&k, "%s", why);
		hm_jv_free(v);
		return k.st;
	}
	if (pos < len && d != HM_DIALECT_HARMONY) {
		/* pos is on the second value. */
		hm_jv at = {0};

		at.pos = pos;
		fail_at(&k, &at, "a second JSON value after a %s request: give one request per input, "
		    "or use --lines (one request a line)", hm_dialect_name(d));
		hm_jv_free(v);
		return k.st;
	}
	out->dialect = d;
	if (!(k.c = hm_conversation_new())) {
		hm_jv_free(v);
		return HM_ENOMEM;
	}
	if (v->type == HM_JV_OBJECT && is_str(hm_jv_get(v, "model"))) {
		const hm_jv *mv = hm_jv_get(v, "model");

		if (hm_str_set(&out->model, mv->s, mv->len) != HM_OK)
			bad(&k, HM_ENOMEM);
		out->harmony_model = is_harmony_model(&out->model);
	}
	if (d == HM_DIALECT_HARMONY) {
		size_t msgno = 0;

		/* Several values in a row: a conversation, then more messages. */
		for (;;) {
			if (harmony_value(&k, v, &msgno) < 0 || pos >= len)
				break;
			hm_jv_free(v);
			if (!(v = hm_jv_parse_ex(buf, len, &pos, 0, 0, msg, sizeof msg, &errpos))) {
				hm_jv at = {0};

				at.pos = errpos;
				if (!msg[0])
					bad(&k, HM_ENOMEM);
				else
					fail_at(&k, &at, "%s", msg);
				break;
			}
			k.at = v;
			if (from == HM_DIALECT_AUTO && (d = detect(v, why, sizeof why)) != HM_DIALECT_HARMONY) {
				if (d == HM_DIALECT_AUTO)
					FAIL(&k, "%s", why);
				else
					FAIL(&k, "a %s request after Harmony messages: only Harmony messages "
					    "and conversations are read one after another (use --lines: "
					    "one request a line)", hm_dialect_name(d));
				break;
			}
		}
		if (k.st == HM_OK)
			harmony_opts(&k, o);
	} else
		read_request(&k, d, v, o);
	if (k.st == HM_OK)
		selection(&k, out);
	hm_jv_free(v);
	hm_buf_free(&k.instr);
	hm_tools_clear(&k.tools);
	for (i = 0; i < k.ncalls; i++) {
		free(k.calls[i].id);
		free(k.calls[i].name);
	}
	free(k.calls);
	if (k.st != HM_OK) {
		hm_conversation_free(k.c);
		free(out->model.p);
		free(out->selection_text.p);
		memset(out, 0, sizeof *out);
		return k.st;
	}
	out->conv = k.c;
	return HM_OK;
}

/* ---------------------------------------------------------------- tool shapes */

static const char *const shape_names[] = {
	"auto", "chat", "responses", "mcp", "anthropic", "harmony",
};

const char *
hm_tool_shape_name(hm_tool_shape s)
{
	return (int)s >= 0 && (int)s < NNAMES(shape_names) ? shape_names[s] : "?";
}

int
hm_tool_shape_parse(const char *s)
{
	return name_index(shape_names, NNAMES(shape_names), s);
}

static hm_tool_shape
tool_shape(const hm_jv *t)
{
	if (hm_jv_get(t, "function"))
		return HM_TOOLS_CHAT;
	if (hm_jv_get(t, "inputSchema"))
		return HM_TOOLS_MCP;
	if (hm_jv_get(t, "input_schema"))
		return HM_TOOLS_ANTHROPIC;
	if (streq(hm_jv_get(t, "type"), "function"))
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
		return FAIL(k, "%s: must be an object, not %s", where, a_type(t));
	s = from == HM_TOOLS_AUTO ? tool_shape(t) : from;
	if (s == HM_TOOLS_CHAT) {
		const hm_jv *ty = hm_jv_get(t, "type");

		if (ty && !streq(ty, "function"))
			return FAIL(k, "%s: unsupported tool type '%s'", where, is_str(ty) ? ty->s : "?");
		if (!(f = hm_jv_get(t, "function")) || f->type != HM_JV_OBJECT)
			return FAIL(k, "%s: a chat tool needs a `function` object", where);
	}
	return add_function(k, hm_jv_get(f, "name"), hm_jv_get(f, "description"),
	    tool_schema(k, f, schema_key[s], where), where);
}

/* Drop the tools past the first n (a failed read leaves ns as it was). */
static void
tools_truncate(hm_namespace *ns, size_t n)
{
	while (ns->ntools > n) {
		hm_tool *t = &ns->tools[--ns->ntools];

		free(t->name.p);
		free(t->description.p);
		hm_jv_free(t->parameters);
		memset(t, 0, sizeof *t);
	}
}

hm_status
hm_tools_read(const char *buf, size_t len, const hm_tools_read_opts *o,
              hm_namespace *ns, hm_error *err)
{
	static const hm_tools_read_opts none;
	char msg[200], where[32];
	size_t errpos = 0, i, n0 = ns->ntools;
	hm_jv *v;
	const hm_jv *list, *nsname = NULL, *nsdesc = NULL;
	conv k;

	if (!o)
		o = &none;
	if (err)
		err->line = 0;
	if (!(v = hm_jv_parse_ex(buf, len, NULL, 1, 0, msg, sizeof msg, &errpos))) {
		if (!msg[0])
			return HM_ENOMEM;
		hm_seterr(err, "%s", msg);
		if (err)
			err->line = hm_text_line(buf, len, errpos);
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
	if (v->type == HM_JV_OBJECT && hm_jv_get(v, "result") && hm_jv_get(v, "jsonrpc"))
		list = hm_jv_get(v, "result"); /* a JSON-RPC tools/list response */
	if (list->type == HM_JV_OBJECT && hm_jv_is(hm_jv_get(list, "tools"), HM_JV_ARRAY)) {
		/* A Harmony namespace, or anything holding a tools list. */
		if (is_str(hm_jv_get(list, "name")))
			nsname = hm_jv_get(list, "name");
		if (is_str(hm_jv_get(list, "description")))
			nsdesc = hm_jv_get(list, "description");
		list = hm_jv_get(list, "tools");
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
				bad(&k, HM_ENOMEM);
		} else if (!o->name_given && (ns->name.len != nsname->len ||
		    memcmp(ns->name.p, nsname->s, nsname->len)))
			warn_at(&k, nsname, "namespace '%s': its tools go into namespace '%s'",
			    nsname->s, ns->name.p);
	}
	if (k.st == HM_OK && nsdesc && !ns->description.p &&
	    hm_str_set(&ns->description, nsdesc->s, nsdesc->len) != HM_OK)
		bad(&k, HM_ENOMEM);
	if (k.st != HM_OK)
		tools_truncate(ns, n0);
	hm_jv_free(v);
	return k.st;
}

char *
hm_tools_write(const hm_namespace *ns, hm_tool_shape to, size_t *len)
{
	hm_buf b = {0};
	size_t i;

	if (to == HM_TOOLS_HARMONY || to == HM_TOOLS_AUTO) {
		hm_namespace_write(&b, ns);
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
					hm_jv_write(&b, t->parameters);
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
	if (streq(t, "string"))
		return v->type == HM_JV_STRING;
	if (streq(t, "number"))
		return v->type == HM_JV_NUMBER;
	if (streq(t, "integer"))
		return v->type == HM_JV_NUMBER && integer_text(v->s, v->len);
	if (streq(t, "boolean"))
		return v->type == HM_JV_TRUE || v->type == HM_JV_FALSE;
	if (streq(t, "object"))
		return v->type == HM_JV_OBJECT;
	if (streq(t, "array"))
		return v->type == HM_JV_ARRAY;
	if (streq(t, "null"))
		return v->type == HM_JV_NULL;
	return 1; /* unknown type words are not checked */
}

static int
schema_type_ok(const hm_jv *v, const hm_jv *schema)
{
	const hm_jv *t = hm_jv_get(schema, "type");
	size_t i;

	if (v->type == HM_JV_NULL && hm_jv_is(hm_jv_get(schema, "nullable"), HM_JV_TRUE))
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
		i = hm_strset_find(keys, key, klen);
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
		return;
	}
	if (v->type == HM_JV_OBJECT) {
		hm_strset set = {0};
		const hm_strset *keys = NULL;

		/* Past a few members, a hash of the keys keeps lookups linear. */
		if (v->n > 8 && hm_strset_keys(&set, v) == 0)
			keys = &set;
		req = hm_jv_get(schema, "required");
		props = hm_jv_get(schema, "properties");
		for (i = 0; req && req->type == HM_JV_ARRAY && i < req->n; i++) {
			const hm_jv *r = req->v[i];

			if (!is_str(r) || member(v, keys, r->s, r->len))
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
		hm_strset_free(&set);
	} else if (v->type == HM_JV_ARRAY && (items = hm_jv_get(schema, "items"))) {
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

int
hm_tool_check(const hm_tool *t, const char *args, size_t len, hm_error *err)
{
	char msg[160];
	hm_jv *v = hm_jv_parse_ex(args, len, NULL, 1, HM_JV_NUMTEXT, msg, sizeof msg, NULL);
	check c;

	if (err) {
		err->msg[0] = '\0';
		err->line = 0;
	}
	if (!v) {
		hm_seterr(err, "arguments are not JSON: %s", msg[0] ? msg : "out of memory");
		return 1;
	}
	memset(&c, 0, sizeof c);
	check_value(&c, v, t->parameters, 0);
	if (c.n > 4)
		hm_buf_adds(&c.msg, "; ...");
	if (c.n && err)
		hm_seterr(err, "%s", c.msg.p && !c.msg.oom ? c.msg.p : "out of memory");
	hm_buf_free(&c.msg);
	hm_buf_free(&c.path);
	hm_jv_free(v);
	return c.n;
}
