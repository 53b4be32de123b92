/*
 * dialect.c - Chat Completions, Responses and Anthropic Messages requests
 * (and Harmony's own JSON) to a Harmony conversation.  The mapping tables
 * are in harmony-render(1); where a request is ambiguous the choice made
 * here is the one written there.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversation_int.h"

static const char *const dialect_names[] = {
	"auto", "harmony", "chat", "responses", "anthropic",
};

const char *
hm_dialect_name(hm_dialect d)
{
	return (unsigned)d < 5 ? dialect_names[d] : "?";
}

int
hm_dialect_parse(const char *s)
{
	int i;

	for (i = 0; i < 5; i++)
		if (!strcmp(s, dialect_names[i]))
			return i;
	return -1;
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
} conv;

static int
bad(conv *k, hm_status st)
{
	if (k->st == HM_OK)
		k->st = st;
	return -1;
}

#define FAIL(k, ...) (hm_seterr((k)->err, __VA_ARGS__), bad((k), HM_EINPUT))

static int
is_str(const hm_jv *v)
{
	return v && v->type == HM_JV_STRING;
}

static int
streq(const hm_jv *v, const char *s)
{
	return is_str(v) && v->len == strlen(s) && !memcmp(v->s, s, v->len);
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

	if (!is_str(id) || !is_str(name))
		return 0;
	if (!(p = realloc(k->calls, (k->ncalls + 1) * sizeof *p)))
		return bad(k, HM_ENOMEM);
	k->calls = p;
	p += k->ncalls;
	p->id = strdup(id->s);
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

	if (!is_str(id))
		return NULL;
	for (i = k->ncalls; i-- > 0;)
		if (!strcmp(k->calls[i].id, id->s))
			return k->calls[i].name;
	return NULL;
}

/* Text parts: a string, or a list of {type: text|input_text|output_text, text}. */
static int
is_text_part(const hm_jv *p)
{
	const hm_jv *t = hm_jv_get(p, "type");

	return streq(t, "text") || streq(t, "input_text") || streq(t, "output_text");
}

/* Append the text of content (string or parts) to b; parts are concatenated. */
static int
gather_text(conv *k, const hm_jv *content, hm_buf *b, const char *where)
{
	size_t i;

	if (!content || content->type == HM_JV_NULL)
		return 0;
	if (content->type == HM_JV_STRING) {
		hm_buf_add(b, content->s, content->len);
		return 0;
	}
	if (content->type != HM_JV_ARRAY)
		return FAIL(k, "%s: content must be a string or a list of parts", where);
	for (i = 0; i < content->n; i++) {
		const hm_jv *p = content->v[i], *t;

		if (!is_text_part(p)) {
			t = hm_jv_get(p, "type");
			return FAIL(k, "%s: unsupported content part type '%s'", where,
			    is_str(t) ? t->s : "?");
		}
		if (!is_str(t = hm_jv_get(p, "text")))
			return FAIL(k, "%s: a text part needs a string `text`", where);
		hm_buf_add(b, t->s, t->len);
	}
	return 0;
}

/* Each text part of content becomes one text item of m. */
static int
content_items(conv *k, hm_message *m, const hm_jv *content, const char *where)
{
	size_t i;

	if (!content || content->type == HM_JV_NULL)
		return 0;
	if (content->type == HM_JV_STRING)
		return add_text(k, m, content->s, content->len);
	if (content->type != HM_JV_ARRAY)
		return FAIL(k, "%s: content must be a string or a list of parts", where);
	for (i = 0; i < content->n; i++) {
		const hm_jv *p = content->v[i], *t;

		if (!is_text_part(p)) {
			t = hm_jv_get(p, "type");
			return FAIL(k, "%s: unsupported content part type '%s'", where,
			    is_str(t) ? t->s : "?");
		}
		if (!is_str(t = hm_jv_get(p, "text")))
			return FAIL(k, "%s: a text part needs a string `text`", where);
		if (add_text(k, m, t->s, t->len) < 0)
			return -1;
	}
	return 0;
}

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

static int
add_function(conv *k, const hm_jv *name, const hm_jv *desc, const hm_jv *params,
             const char *where)
{
	hm_jv *pc = NULL;
	hm_status st;

	if (!is_str(name))
		return FAIL(k, "%s: a tool needs a string `name`", where);
	if (desc && desc->type != HM_JV_NULL && !is_str(desc))
		return FAIL(k, "%s: tool '%s': `description` must be a string", where, name->s);
	if (!k->fns && !(k->fns = hm_tools_namespace(&k->tools, "functions")))
		return bad(k, HM_ENOMEM);
	if (params && params->type != HM_JV_NULL && !(pc = hm_jv_copy(params)))
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

static hm_effort
effort_word(const hm_jv *v)
{
	if (streq(v, "low") || streq(v, "minimal"))
		return HM_EFFORT_LOW;
	if (streq(v, "medium"))
		return HM_EFFORT_MEDIUM;
	if (streq(v, "high"))
		return HM_EFFORT_HIGH;
	return HM_EFFORT_NONE;
}

/* ---------------------------------------------------------------- chat */

static int
chat_tools(conv *k, const hm_jv *tools)
{
	size_t i;

	if (!tools || tools->type == HM_JV_NULL)
		return 0;
	if (tools->type != HM_JV_ARRAY)
		return FAIL(k, "tools: must be a list");
	for (i = 0; i < tools->n; i++) {
		const hm_jv *t = tools->v[i], *f = hm_jv_get(t, "function"), *ty;

		ty = hm_jv_get(t, "type");
		if (ty && !streq(ty, "function"))
			return FAIL(k, "tools[%zu]: unsupported tool type '%s'", i,
			    is_str(ty) ? ty->s : "?");
		if (!f)
			f = t; /* tolerate the flat Responses shape */
		if (add_function(k, hm_jv_get(f, "name"), hm_jv_get(f, "description"),
		    hm_jv_get(f, "parameters"), "tools") < 0)
			return -1;
	}
	return 0;
}

static int
chat_messages(conv *k, const hm_jv *msgs)
{
	size_t i, j;

	if (!msgs || msgs->type != HM_JV_ARRAY)
		return FAIL(k, "missing field `messages` (a list)");
	for (i = 0; i < msgs->n; i++) {
		const hm_jv *m = msgs->v[i], *role = hm_jv_get(m, "role");
		const hm_jv *content = hm_jv_get(m, "content");
		char where[32];

		snprintf(where, sizeof where, "messages[%zu]", i);
		if (!m || m->type != HM_JV_OBJECT)
			return FAIL(k, "%s: must be an object", where);
		if (streq(role, "system") || streq(role, "developer")) {
			if (add_instructions(k, content, where) < 0)
				return -1;
		} else if (streq(role, "user")) {
			hm_message *u = add_msg(k, HM_ROLE_USER);

			if (!u || content_items(k, u, content, where) < 0)
				return -1;
		} else if (streq(role, "assistant")) {
			static const char *const rkeys[] = {"reasoning_content", "reasoning", "thinking"};
			const hm_jv *calls = hm_jv_get(m, "tool_calls"), *r = NULL;
			int ncalls = calls && calls->type == HM_JV_ARRAY && calls->n;
			hm_message *a;

			for (j = 0; j < 3 && !r; j++)
				if (is_str(hm_jv_get(m, rkeys[j])))
					r = hm_jv_get(m, rkeys[j]);
			if (r && add_channel_text(k, "analysis", r->s, r->len) < 0)
				return -1;
			if (content && content->type != HM_JV_NULL &&
			    !(content->type == HM_JV_STRING && !content->len && ncalls)) {
				if (!(a = add_msg(k, HM_ROLE_ASSISTANT)) ||
				    sets(k, &a->channel, ncalls ? "commentary" : "final") < 0 ||
				    content_items(k, a, content, where) < 0)
					return -1;
			}
			for (j = 0; ncalls && j < calls->n; j++) {
				const hm_jv *c = calls->v[j], *f = hm_jv_get(c, "function");
				const hm_jv *name = hm_jv_get(f, "name"), *args = hm_jv_get(f, "arguments");

				if (!is_str(name))
					return FAIL(k, "%s: tool_calls[%zu]: missing function name", where, j);
				if (remember_call(k, hm_jv_get(c, "id"), name) < 0)
					return -1;
				if (is_str(args)) {
					if (add_call(k, name, args->s, args->len) < 0)
						return -1;
				} else {
					hm_buf b = {0};
					int rc;

					if (args)
						hm_jv_write(&b, args);
					rc = b.oom ? bad(k, HM_ENOMEM) : add_call(k, name, b.p ? b.p : "", b.len);
					hm_buf_free(&b);
					if (rc < 0)
						return -1;
				}
			}
		} else if (streq(role, "tool") || streq(role, "function")) {
			const char *name = call_name(k, hm_jv_get(m, "tool_call_id"));
			hm_message *t;

			if (!name && is_str(hm_jv_get(m, "name")))
				name = hm_jv_get(m, "name")->s;
			if (!name)
				return FAIL(k, "%s: tool message whose tool_call_id matches no earlier tool call", where);
			if (!(t = add_result(k, name)) || content_items(k, t, content, where) < 0)
				return -1;
		} else
			return FAIL(k, "%s: unknown role '%s'", where, is_str(role) ? role->s : "?");
	}
	return 0;
}

/* ---------------------------------------------------------------- responses */

static int
responses_input(conv *k, const hm_jv *input)
{
	size_t i, j;

	if (!input || input->type == HM_JV_NULL)
		return 0;
	if (input->type == HM_JV_STRING) {
		hm_message *u = add_msg(k, HM_ROLE_USER);

		return u ? add_text(k, u, input->s, input->len) : -1;
	}
	if (input->type != HM_JV_ARRAY)
		return FAIL(k, "input: must be a string or a list of items");
	for (i = 0; i < input->n; i++) {
		const hm_jv *it = input->v[i], *type = hm_jv_get(it, "type");
		const hm_jv *role = hm_jv_get(it, "role");
		char where[32];

		snprintf(where, sizeof where, "input[%zu]", i);
		if (!it || it->type != HM_JV_OBJECT)
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
			const hm_jv *parts = hm_jv_get(it, "content");
			hm_buf b = {0};
			int n = 0, rc;

			if (!parts || parts->type != HM_JV_ARRAY || !parts->n)
				parts = hm_jv_get(it, "summary");
			for (j = 0; parts && parts->type == HM_JV_ARRAY && j < parts->n; j++) {
				const hm_jv *t = hm_jv_get(parts->v[j], "text");

				if (!is_str(t))
					continue;
				if (n++)
					hm_buf_addc(&b, '\n');
				hm_buf_add(&b, t->s, t->len);
			}
			rc = b.oom ? bad(k, HM_ENOMEM) :
			    add_channel_text(k, "analysis", b.p ? b.p : "", b.len);
			hm_buf_free(&b);
			if (rc < 0)
				return -1;
		} else if (streq(type, "function_call")) {
			const hm_jv *name = hm_jv_get(it, "name"), *args = hm_jv_get(it, "arguments");

			if (!is_str(name))
				return FAIL(k, "%s: function_call needs a string `name`", where);
			if (remember_call(k, hm_jv_get(it, "call_id"), name) < 0 ||
			    add_call(k, name, is_str(args) ? args->s : "", is_str(args) ? args->len : 0) < 0)
				return -1;
		} else if (streq(type, "function_call_output")) {
			const char *name = call_name(k, hm_jv_get(it, "call_id"));
			const hm_jv *out = hm_jv_get(it, "output");
			hm_message *t;

			if (!name)
				return FAIL(k, "%s: function_call_output whose call_id matches no earlier function_call", where);
			if (!(t = add_result(k, name)) || content_items(k, t, out, where) < 0)
				return -1;
		} else
			return FAIL(k, "%s: unsupported item type '%s'", where, is_str(type) ? type->s : "?");
	}
	return 0;
}

/* ---------------------------------------------------------------- anthropic */

static int
anthropic_blocks_text(conv *k, hm_buf *b, const hm_jv *content, const char *where)
{
	size_t i;

	if (!content || content->type == HM_JV_NULL)
		return 0;
	if (content->type == HM_JV_STRING) {
		hm_buf_add(b, content->s, content->len);
		return 0;
	}
	if (content->type != HM_JV_ARRAY)
		return FAIL(k, "%s: content must be a string or a list of blocks", where);
	for (i = 0; i < content->n; i++) {
		const hm_jv *t = hm_jv_get(content->v[i], "text");

		if (!streq(hm_jv_get(content->v[i], "type"), "text") || !is_str(t))
			return FAIL(k, "%s: only text blocks are supported here", where);
		hm_buf_add(b, t->s, t->len);
	}
	return 0;
}

static int
anthropic_messages(conv *k, const hm_jv *msgs)
{
	size_t i, j;

	if (!msgs || msgs->type != HM_JV_ARRAY)
		return FAIL(k, "missing field `messages` (a list)");
	for (i = 0; i < msgs->n; i++) {
		const hm_jv *m = msgs->v[i], *role = hm_jv_get(m, "role");
		const hm_jv *content = hm_jv_get(m, "content");
		int user = streq(role, "user"), calls = 0;
		hm_message *cur = NULL; /* the open user or text message */
		char where[32];

		snprintf(where, sizeof where, "messages[%zu]", i);
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
			return FAIL(k, "%s: content must be a string or a list of blocks", where);
		for (j = 0; !user && j < content->n; j++)
			calls |= streq(hm_jv_get(content->v[j], "type"), "tool_use");
		for (j = 0; j < content->n; j++) {
			const hm_jv *b = content->v[j], *type = hm_jv_get(b, "type");

			if (streq(type, "text")) {
				const hm_jv *t = hm_jv_get(b, "text");

				if (!is_str(t))
					return FAIL(k, "%s: a text block needs a string `text`", where);
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

				if (add_channel_text(k, "analysis", is_str(t) ? t->s : "", is_str(t) ? t->len : 0) < 0)
					return -1;
			} else if (streq(type, "redacted_thinking") && !user) {
				continue; /* nothing readable to render */
			} else if (streq(type, "tool_use") && !user) {
				const hm_jv *name = hm_jv_get(b, "name"), *input = hm_jv_get(b, "input");
				hm_buf a = {0};
				int rc;

				if (!is_str(name))
					return FAIL(k, "%s: tool_use needs a string `name`", where);
				if (remember_call(k, hm_jv_get(b, "id"), name) < 0)
					return -1;
				if (input)
					hm_jv_write(&a, input);
				else
					hm_buf_adds(&a, "{}");
				rc = a.oom ? bad(k, HM_ENOMEM) : add_call(k, name, a.p, a.len);
				hm_buf_free(&a);
				if (rc < 0)
					return -1;
			} else if (streq(type, "tool_result") && user) {
				const char *name = call_name(k, hm_jv_get(b, "tool_use_id"));
				hm_message *t;
				hm_buf txt = {0};
				int rc;

				if (!name)
					return FAIL(k, "%s: tool_result whose tool_use_id matches no earlier tool_use", where);
				if (!(t = add_result(k, name)))
					return -1;
				rc = anthropic_blocks_text(k, &txt, hm_jv_get(b, "content"), where);
				if (rc == 0)
					rc = txt.oom ? bad(k, HM_ENOMEM) : add_text(k, t, txt.p ? txt.p : "", txt.len);
				hm_buf_free(&txt);
				if (rc < 0)
					return -1;
			} else
				return FAIL(k, "%s: unsupported %s block type '%s'", where,
				    user ? "user" : "assistant", is_str(type) ? type->s : "?");
		}
	}
	return 0;
}

static int
anthropic_tools(conv *k, const hm_jv *tools)
{
	size_t i;

	if (!tools || tools->type == HM_JV_NULL)
		return 0;
	if (tools->type != HM_JV_ARRAY)
		return FAIL(k, "tools: must be a list");
	for (i = 0; i < tools->n; i++) {
		const hm_jv *t = tools->v[i], *ty = hm_jv_get(t, "type");

		if (ty && !streq(ty, "custom"))
			return FAIL(k, "tools[%zu]: unsupported tool type '%s'", i, is_str(ty) ? ty->s : "?");
		if (add_function(k, hm_jv_get(t, "name"), hm_jv_get(t, "description"),
		    hm_jv_get(t, "input_schema"), "tools") < 0)
			return -1;
	}
	return 0;
}

static hm_effort
temperature_effort(const hm_jv *t)
{
	if (!t || t->type != HM_JV_NUMBER)
		return HM_EFFORT_NONE;
	if (t->num <= 0.3)
		return HM_EFFORT_LOW;
	if (t->num < 0.8)
		return HM_EFFORT_MEDIUM;
	return HM_EFFORT_HIGH;
}

/* ---------------------------------------------------------------- shape */

static int
any_message_has(const hm_jv *msgs, const char *key)
{
	size_t i;

	for (i = 0; msgs && msgs->type == HM_JV_ARRAY && i < msgs->n; i++)
		if (hm_jv_get(msgs->v[i], key))
			return 1;
	return 0;
}

static int
any_block_type(const hm_jv *msgs, const char *const *types)
{
	size_t i, j, t;

	for (i = 0; msgs && msgs->type == HM_JV_ARRAY && i < msgs->n; i++) {
		const hm_jv *c = hm_jv_get(msgs->v[i], "content");

		for (j = 0; c && c->type == HM_JV_ARRAY && j < c->n; j++)
			for (t = 0; types[t]; t++)
				if (streq(hm_jv_get(c->v[j], "type"), types[t]))
					return 1;
	}
	return 0;
}

static hm_dialect
detect(const hm_jv *v)
{
	static const char *const anth[] = {"tool_use", "tool_result", "thinking", "redacted_thinking", "image", NULL};
	static const char *const harm[] = {"system_content", "developer_content", NULL};
	const hm_jv *msgs, *tools;
	size_t i;

	if (v->type == HM_JV_ARRAY)
		return HM_DIALECT_HARMONY;
	if (v->type != HM_JV_OBJECT)
		return HM_DIALECT_AUTO;
	if (hm_jv_get(v, "role"))
		return HM_DIALECT_HARMONY;
	if (hm_jv_get(v, "input") || hm_jv_get(v, "instructions"))
		return HM_DIALECT_RESPONSES;
	if (!(msgs = hm_jv_get(v, "messages")))
		return HM_DIALECT_AUTO;
	tools = hm_jv_get(v, "tools");
	for (i = 0; tools && tools->type == HM_JV_ARRAY && i < tools->n; i++)
		if (hm_jv_get(tools->v[i], "input_schema"))
			return HM_DIALECT_ANTHROPIC;
	if (hm_jv_get(v, "system") || any_block_type(msgs, anth))
		return HM_DIALECT_ANTHROPIC;
	if (any_block_type(msgs, harm) || any_message_has(msgs, "channel") ||
	    any_message_has(msgs, "recipient") || any_message_has(msgs, "content_type"))
		return HM_DIALECT_HARMONY;
	if (!hm_jv_get(v, "model") && !tools && !hm_jv_get(v, "reasoning_effort") &&
	    !any_message_has(msgs, "tool_calls") && !any_message_has(msgs, "tool_call_id"))
		return HM_DIALECT_HARMONY;
	return HM_DIALECT_CHAT;
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
 * one message object; its messages are appended.
 */
static int
harmony_value(conv *k, const hm_jv *v, size_t *msgno)
{
	const hm_jv *msgs = v;
	size_t i, n = 1;
	int one = 0;

	if (v->type == HM_JV_OBJECT && hm_jv_get(v, "role"))
		one = 1;
	else if (v->type == HM_JV_OBJECT && !(msgs = hm_jv_get(v, "messages")))
		return FAIL(k, "missing field `messages`");
	else if (msgs->type != HM_JV_ARRAY)
		return FAIL(k, "a Harmony conversation needs a list of messages");
	if (!one)
		n = msgs->n;
	for (i = 0; i < n; i++) {
		hm_message *m = add_msg(k, HM_ROLE_USER);
		hm_status st;

		if (!m)
			return -1;
		++*msgno;
		if ((st = hm_message_from_jv(one ? v : msgs->v[i], m, k->err)) != HM_OK) {
			k->c->n--;
			if (k->err && st == HM_EINPUT) {
				char tmp[sizeof k->err->msg];

				memcpy(tmp, k->err->msg, sizeof tmp);
				hm_seterr(k->err, "message %zu: %s", *msgno, tmp);
			}
			return bad(k, st);
		}
	}
	return 0;
}

hm_status
hm_request_from_json(const char *buf, size_t len, hm_dialect from,
                     const hm_request_opts *o, hm_request *out, hm_error *err)
{
	static const hm_request_opts none;
	char msg[200];
	hm_jv *v;
	conv k;
	hm_message *sys = NULL, *dev;
	hm_effort effort = HM_EFFORT_NONE;
	size_t i, nfront, pos = 0;

	memset(out, 0, sizeof *out);
	memset(&k, 0, sizeof k);
	k.err = err;
	if (!o)
		o = &none;
	if (!(v = hm_jv_parse_next(buf, len, &pos, msg, sizeof msg))) {
		if (!msg[0])
			return HM_ENOMEM;
		hm_seterr(err, "%s", msg);
		return HM_EINPUT;
	}
	if (pos < len) {
		/* Several values: a Harmony conversation followed by messages. */
		if (from != HM_DIALECT_AUTO && from != HM_DIALECT_HARMONY) {
			hm_jv_free(v);
			v = hm_jv_parse(buf, len, msg, sizeof msg);
			hm_seterr(err, "%s", v ? "trailing characters" : msg);
			hm_jv_free(v);
			return HM_EINPUT;
		}
		from = HM_DIALECT_HARMONY;
	}
	if (from == HM_DIALECT_AUTO && (from = detect(v)) == HM_DIALECT_AUTO) {
		hm_seterr(err, "cannot tell the request's shape (want messages, input or a list); use --from");
		hm_jv_free(v);
		return HM_EINPUT;
	}
	out->dialect = from;
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
	if (from == HM_DIALECT_HARMONY) {
		size_t msgno = 0;

		for (;;) {
			if (harmony_value(&k, v, &msgno) < 0 || pos >= len)
				break;
			hm_jv_free(v);
			if (!(v = hm_jv_parse_next(buf, len, &pos, msg, sizeof msg))) {
				if (!msg[0])
					bad(&k, HM_ENOMEM);
				else
					FAIL(&k, "%s", msg);
				break;
			}
		}
		if (k.st == HM_OK)
			harmony_opts(&k, o);
		goto done;
	}
	if (v->type != HM_JV_OBJECT) {
		FAIL(&k, "a %s request must be a JSON object", hm_dialect_name(from));
		goto done;
	}
	/* The system and developer messages go first; turns follow. */
	if (!(sys = add_msg(&k, HM_ROLE_SYSTEM)) || !hm_message_add_system(sys)) {
		bad(&k, HM_ENOMEM);
		goto done;
	}
	if (!add_msg(&k, HM_ROLE_DEVELOPER))
		goto done;
	nfront = k.c->n;
	switch (from) {
	case HM_DIALECT_CHAT:
		effort = effort_word(hm_jv_get(v, "reasoning_effort"));
		if (chat_tools(&k, hm_jv_get(v, "tools")) == 0)
			chat_messages(&k, hm_jv_get(v, "messages"));
		break;
	case HM_DIALECT_RESPONSES: {
		const hm_jv *ins = hm_jv_get(v, "instructions");

		effort = effort_word(hm_jv_get(hm_jv_get(v, "reasoning"), "effort"));
		if (ins && ins->type != HM_JV_NULL && add_instructions(&k, ins, "instructions") < 0)
			break;
		if (chat_tools(&k, hm_jv_get(v, "tools")) == 0)
			responses_input(&k, hm_jv_get(v, "input"));
		break;
	}
	case HM_DIALECT_ANTHROPIC: {
		const hm_jv *system = hm_jv_get(v, "system");

		effort = effort_word(hm_jv_get(v, "reasoning_effort"));
		if (effort == HM_EFFORT_NONE)
			effort = temperature_effort(hm_jv_get(v, "temperature"));
		if (system && system->type != HM_JV_NULL) {
			if (k.has_instr)
				hm_buf_adds(&k.instr, "\n\n");
			k.has_instr = 1;
			if (anthropic_blocks_text(&k, &k.instr, system, "system") < 0)
				break;
		}
		if (anthropic_tools(&k, hm_jv_get(v, "tools")) == 0)
			anthropic_messages(&k, hm_jv_get(v, "messages"));
		break;
	}
	default:
		FAIL(&k, "unknown dialect");
		break;
	}
	if (k.st != HM_OK)
		goto done;
	sys = &k.c->msgs[0];
	dev = &k.c->msgs[1];
	(void)nfront;
	if (apply_opts(&k, sys->content[0].sys, o, o->effort ? o->effort : effort) < 0)
		goto done;
	if (k.has_instr || k.tools.n) {
		hm_developer_content *d = hm_message_add_developer(dev);

		if (!d) {
			bad(&k, HM_ENOMEM);
			goto done;
		}
		if (k.has_instr) {
			if (k.instr.oom || set(&k, &d->instructions, k.instr.p ? k.instr.p : "", k.instr.len) < 0) {
				bad(&k, HM_ENOMEM);
				goto done;
			}
		}
		d->tools = k.tools;
		memset(&k.tools, 0, sizeof k.tools);
	} else {
		/* No developer message at all. */
		hm_message_clear(dev);
		memmove(dev, dev + 1, (k.c->n - 2) * sizeof *dev);
		k.c->n--;
	}
done:
	if (k.st == HM_OK) {
		/* The router's selection text: the last user message. */
		for (i = k.c->n; i-- > 0;) {
			const hm_message *m = &k.c->msgs[i];
			hm_buf b = {0};
			size_t j;

			if (m->role != HM_ROLE_USER)
				continue;
			for (j = 0; j < m->ncontent; j++)
				if (m->content[j].type == HM_CONTENT_TEXT)
					hm_buf_add(&b, m->content[j].text.p, m->content[j].text.len);
			if (b.oom || hm_str_set(&out->selection_text, b.p ? b.p : "", b.len) != HM_OK)
				bad(&k, HM_ENOMEM);
			hm_buf_free(&b);
			break;
		}
	}
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
	return (unsigned)s < 6 ? shape_names[s] : "?";
}

int
hm_tool_shape_parse(const char *s)
{
	int i;

	for (i = 0; i < 6; i++)
		if (!strcmp(s, shape_names[i]))
			return i;
	return -1;
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
read_tool(conv *k, const hm_jv *t, hm_tool_shape from, size_t i)
{
	static const char *const schema_key[] = {
		NULL, "parameters", "parameters", "inputSchema", "input_schema", "parameters",
	};
	hm_tool_shape s = from == HM_TOOLS_AUTO ? tool_shape(t) : from;
	const hm_jv *f = t;
	char where[32];

	snprintf(where, sizeof where, "tool %zu", i + 1);
	if (!t || t->type != HM_JV_OBJECT)
		return FAIL(k, "%s: must be an object", where);
	if (s == HM_TOOLS_CHAT) {
		const hm_jv *ty = hm_jv_get(t, "type");

		if (ty && !streq(ty, "function"))
			return FAIL(k, "%s: unsupported tool type '%s'", where, is_str(ty) ? ty->s : "?");
		if (!(f = hm_jv_get(t, "function")) || f->type != HM_JV_OBJECT)
			return FAIL(k, "%s: a chat tool needs a `function` object", where);
	}
	return add_function(k, hm_jv_get(f, "name"), hm_jv_get(f, "description"),
	    hm_jv_get(f, schema_key[s]), where);
}

hm_status
hm_tools_read(const char *buf, size_t len, hm_tool_shape from, hm_namespace *ns,
              hm_error *err)
{
	char msg[200];
	hm_jv *v = hm_jv_parse(buf, len, msg, sizeof msg);
	const hm_jv *list;
	conv k;
	size_t i;

	if (!v) {
		if (!msg[0])
			return HM_ENOMEM;
		hm_seterr(err, "%s", msg);
		return HM_EINPUT;
	}
	memset(&k, 0, sizeof k);
	k.err = err;
	k.fns = ns;
	list = v;
	if (v->type == HM_JV_OBJECT && hm_jv_get(v, "result") && hm_jv_get(v, "jsonrpc"))
		list = hm_jv_get(v, "result"); /* a JSON-RPC tools/list response */
	if (list->type == HM_JV_OBJECT && hm_jv_is(hm_jv_get(list, "tools"), HM_JV_ARRAY)) {
		/* A Harmony namespace, or anything holding a tools list. */
		const hm_jv *name = hm_jv_get(list, "name");

		if (is_str(name) && !ns->name.p &&
		    hm_str_set(&ns->name, name->s, name->len) != HM_OK)
			bad(&k, HM_ENOMEM);
		list = hm_jv_get(list, "tools");
	}
	if (list->type == HM_JV_ARRAY) {
		for (i = 0; k.st == HM_OK && i < list->n; i++)
			read_tool(&k, list->v[i], from, i);
	} else
		read_tool(&k, list, from, 0);
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

/* Does value v have JSON Schema type word t? */
static int
type_ok(const hm_jv *v, const hm_jv *t)
{
	if (streq(t, "string"))
		return v->type == HM_JV_STRING;
	if (streq(t, "number"))
		return v->type == HM_JV_NUMBER;
	if (streq(t, "integer")) {
		size_t i;

		if (v->type != HM_JV_NUMBER)
			return 0;
		for (i = 0; i < v->len; i++)
			if (v->s[i] == '.' || v->s[i] == 'e' || v->s[i] == 'E')
				return v->num == (double)(long long)v->num;
		return 1;
	}
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

static void
problem(hm_buf *b, int *n, const char *what, const char *key)
{
	if ((*n)++ < 4) {
		if (b->len)
			hm_buf_adds(b, "; ");
		hm_buf_adds(b, what);
		hm_buf_adds(b, key);
	}
}

int
hm_tool_check(const hm_tool *t, const char *args, size_t len, hm_error *err)
{
	char msg[160];
	hm_jv *v = hm_jv_parse(args, len, msg, sizeof msg);
	const hm_jv *schema = t->parameters, *props, *req;
	hm_buf b = {0};
	int n = 0;
	size_t i;

	if (err)
		err->msg[0] = '\0';
	if (!v) {
		hm_seterr(err, "arguments are not JSON: %s", msg[0] ? msg : "out of memory");
		return 1;
	}
	if (schema && !schema_type_ok(v, schema)) {
		problem(&b, &n, "arguments have the wrong type", "");
	} else if (schema && v->type == HM_JV_OBJECT) {
		req = hm_jv_get(schema, "required");
		props = hm_jv_get(schema, "properties");
		for (i = 0; req && req->type == HM_JV_ARRAY && i < req->n; i++)
			if (is_str(req->v[i]) && !hm_jv_get(v, req->v[i]->s))
				problem(&b, &n, "missing required property ", req->v[i]->s);
		for (i = 0; props && props->type == HM_JV_OBJECT && i < props->n; i++) {
			const hm_jv *a = hm_jv_get(v, props->k[i]);

			if (a && !schema_type_ok(a, props->v[i]))
				problem(&b, &n, "wrong type for property ", props->k[i]);
		}
	}
	if (n > 4)
		hm_buf_adds(&b, "; ...");
	if (n && err)
		hm_seterr(err, "%s", b.p ? b.p : "out of memory");
	hm_buf_free(&b);
	hm_jv_free(v);
	return n;
}
