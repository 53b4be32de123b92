/* dialect_chat.c - a Chat Completions request to a conversation (harmony-render(1)). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect_int.h"

hm_status
hm__dl_chat_tools(conv *k, const hm_jv *tools, const char *field)
{
	size_t i;
	char where[48];

	if (hm__dl_is_null(tools))
		return HM_OK;
	if (tools->type != HM_JV_ARRAY)
		return hm__dl_fail_at(k, tools, "%s: must be a list", field);
	for (i = 0; i < tools->n; i++) {
		const hm_jv *t = tools->v[i], *f, *ty;

		k->at = t;
		snprintf(where, sizeof where, "%s[%zu]", field, i);
		if (t->type != HM_JV_OBJECT)
			return FAIL(k, "%s: must be an object", where);
		f = hm__jv_get(t, "function");
		ty = hm__jv_get(t, "type");
		if (ty && !hm__dl_streq(ty, "function"))
			return FAIL(k, "%s: unsupported tool type '%s'", where,
			    hm__dl_is_str(ty) ? ty->s : "?");
		if (!f)
			f = t; /* the flat Responses shape, and legacy `functions` */
		else if (f->type != HM_JV_OBJECT)
			return FAIL(k, "%s.function: must be an object", where);
		if (hm__dl_add_function(k, hm__jv_get(f, "name"), hm__jv_get(f, "description"),
		    hm__dl_tool_schema(k, f, "parameters", where), where) != HM_OK)
			return k->st;
	}
	return HM_OK;
}

/*
 * An assistant's reasoning: reasoning_content, reasoning or thinking
 * (servers write one or the other, some both with the same text).
 */
static hm_status
chat_reasoning(conv *k, const hm_jv *m, const char *where, const hm_jv **out)
{
	static const char *const keys[] = {"reasoning_content", "reasoning", "thinking"};
	const hm_jv *r;
	size_t j, first = 0;

	*out = NULL;
	for (j = 0; j < 3; j++) {
		if (hm__dl_opt_string(k, m, keys[j], where, &r) != HM_OK)
			return k->st;
		if (!r)
			continue;
		if (!*out) {
			*out = r;
			first = j;
		} else if (r->len != (*out)->len || memcmp(r->s, (*out)->s, r->len))
			return hm__dl_fail_at(k, r, "%s: `%s` and `%s` hold different text; give one",
			    where, keys[first], keys[j]);
	}
	return HM_OK;
}

static hm_status
chat_assistant(conv *k, const hm_jv *m, const char *where)
{
	const hm_jv *content = hm__jv_get(m, "content"), *calls = hm__jv_get(m, "tool_calls");
	const hm_jv *fc = hm__jv_get(m, "function_call"), *r, *refusal;
	int ncalls;
	size_t j;
	hm_message *a;

	if (chat_reasoning(k, m, where, &r) != HM_OK || hm__dl_opt_string(k, m, "refusal", where, &refusal) != HM_OK)
		return k->st;
	if (!hm__dl_is_null(calls) && calls->type != HM_JV_ARRAY)
		return hm__dl_fail_at(k, calls, "%s.tool_calls: must be a list", where);
	if (!hm__dl_is_null(fc) && fc->type != HM_JV_OBJECT)
		return hm__dl_fail_at(k, fc, "%s.function_call: must be an object", where);
	ncalls = (!hm__dl_is_null(calls) && calls->n) || !hm__dl_is_null(fc);
	if (r && hm__dl_add_channel_text(k, "analysis", r->s, r->len) != HM_OK)
		return k->st;
	if (!hm__dl_is_null(content) &&
	    !(content->type == HM_JV_STRING && !content->len && (ncalls || refusal))) {
		if (!(a = hm__dl_add_msg(k, HM_ROLE_ASSISTANT)) ||
		    hm__dl_sets(k, &a->channel, ncalls ? "commentary" : "final") != HM_OK ||
		    hm__dl_content_items(k, a, content, where) != HM_OK)
			return k->st;
	}
	/* A refusal is what the user was told: a final answer. */
	if (refusal && hm__dl_add_channel_text(k, "final", refusal->s, refusal->len) != HM_OK)
		return k->st;
	for (j = 0; !hm__dl_is_null(calls) && j < calls->n; j++) {
		const hm_jv *c = calls->v[j], *f = hm__jv_get(c, "function");
		const hm_jv *name = hm__jv_get(f, "name");

		if (!hm__dl_is_str(name) || !name->len)
			return hm__dl_fail_at(k, c, "%s.tool_calls[%zu]: missing function name", where, j);
		if (hm__dl_remember_call(k, hm__jv_get(c, "id"), name) != HM_OK ||
		    hm__dl_add_call_jv(k, name, hm__jv_get(f, "arguments"), "") != HM_OK)
			return k->st;
	}
	if (!hm__dl_is_null(fc)) {
		const hm_jv *name = hm__jv_get(fc, "name");

		if (!hm__dl_is_str(name) || !name->len)
			return hm__dl_fail_at(k, fc, "%s.function_call: missing `name`", where);
		if (hm__dl_remember_call(k, NULL, name) != HM_OK ||
		    hm__dl_add_call_jv(k, name, hm__jv_get(fc, "arguments"), "") != HM_OK)
			return k->st;
	}
	return HM_OK;
}

/* An assistant message's first tool call's id; NULL. */
static const hm_jv *
first_call_id(const hm_jv *m)
{
	const hm_jv *calls = hm__jv_get(m, "tool_calls");

	return hm__jv_is(calls, HM_JV_ARRAY) && calls->n ? hm__jv_get(calls->v[0], "id") : NULL;
}

/* A choice as harmony-parse --to chat writes it: its message read (dialect_turn.c). */
static hm_status
reread(conv *k, const hm_jv *out)
{
	hm_jv *arr = hm__jv_new(HM_JV_ARRAY);
	hm_status st;

	if (!arr || hm__jv_push(arr, hm__jv_copy(hm__jv_get(out, "message"))) != HM_OK) {
		hm__jv_free(arr);
		return hm__dl_bad(k, HM_ENOMEM);
	}
	st = hm__dl_chat_messages(k, arr);
	hm__jv_free(arr);
	return st;
}

hm_status
hm__dl_chat_messages(conv *k, const hm_jv *msgs)
{
	size_t i;

	if (!msgs || msgs->type != HM_JV_ARRAY)
		return hm__dl_fail_at(k, msgs, "missing field `messages` (a list)");
	for (i = 0; i < msgs->n; i++) {
		const hm_jv *m = msgs->v[i], *role = hm__jv_get(m, "role");
		const hm_jv *content = hm__jv_get(m, "content"), *name;
		char where[32];

		k->at = m;
		snprintf(where, sizeof where, "messages[%zu]", i);
		if (m->type != HM_JV_OBJECT)
			return FAIL(k, "%s: must be an object", where);
		if (hm__dl_streq(role, "system") || hm__dl_streq(role, "developer")) {
			if (hm__dl_add_instructions(k, content, where) != HM_OK)
				return k->st;
		} else if (hm__dl_streq(role, "user")) {
			hm_message *u;

			if (hm__dl_opt_string(k, m, "name", where, &name) != HM_OK || !(u = hm__dl_add_msg(k, HM_ROLE_USER)))
				return k->st;
			/* Harmony's author name: <|start|>user:NAME (spec §3.2). */
			if (name && name->len && hm__dl_set(k, &u->name, name->s, name->len) != HM_OK)
				return k->st;
			if (hm__dl_content_items(k, u, content, where) != HM_OK)
				return k->st;
		} else if (hm__dl_streq(role, "assistant")) {
			size_t from = k->c->n;

			/* harmony_tokens: the ids its model wrote (harmony-parse --with-tokens) */
			if (chat_assistant(k, m, where) != HM_OK ||
			    hm__dl_turn(k, HM_DIALECT_CHAT, from, hm__jv_get(m, "harmony_tokens"),
			    first_call_id(m), where, reread) != HM_OK)
				return k->st;
		} else if (hm__dl_streq(role, "tool") || hm__dl_streq(role, "function")) {
			const hm_jv *id = hm__jv_get(m, "tool_call_id");
			const char *fname = hm__dl_call_name(k, id);
			hm_message *t;

			if (hm__dl_opt_string(k, m, "name", where, &name) != HM_OK)
				return k->st;
			if (!fname && name && name->len)
				fname = name->s;
			if (!fname && hm__dl_is_str(id))
				return FAIL(k, "%s: tool message whose tool_call_id matches no earlier tool call", where);
			if (!fname)
				return FAIL(k, "%s: %s message without tool_call_id or name", where, role->s);
			if (!(t = hm__dl_add_result(k, fname)) || hm__dl_content_items(k, t, content, where) != HM_OK)
				return k->st;
		} else
			return FAIL(k, "%s: unknown role '%s'", where, hm__dl_is_str(role) ? role->s : "?");
	}
	return HM_OK;
}
