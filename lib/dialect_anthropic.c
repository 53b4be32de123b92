/* dialect_anthropic.c - an Anthropic Messages request to a conversation (harmony-render(1)). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect_int.h"
#include "ids_pack_int.h"

/* Text blocks (or a string) appended to b with nothing in between. */
hm_status
hm__dl_anthropic_blocks_text(conv *k, hm_buf *b, const hm_jv *content, const char *where)
{
	size_t i;

	if (hm__dl_is_null(content))
		return HM_OK;
	if (content->type == HM_JV_STRING) {
		hm__add(&k->nomem, b, content->s, content->len);
		return HM_OK;
	}
	if (content->type != HM_JV_ARRAY)
		return hm__dl_fail_at(k, content, "%s: must be a string or a list of blocks", where);
	for (i = 0; i < content->n; i++) {
		const hm_jv *bl = content->v[i], *t = hm__jv_get(bl, "text");
		const hm_jv *ty = hm__jv_get(bl, "type");

		if (!hm__dl_streq(ty, "text"))
			return hm__dl_fail_at(k, bl, "%s[%zu]: unsupported block type '%s' (only text here)", where, i,
			    hm__dl_is_str(ty) ? ty->s : "?");
		if (!hm__dl_is_str(t))
			return hm__dl_fail_at(k, bl, "%s[%zu]: a text block needs a string `text`", where, i);
		hm__add(&k->nomem, b, t->s, t->len);
	}
	return HM_OK;
}

static hm_status reread(conv *k, const hm_jv *out);

/* A signature or data holding ids packed (ids_pack_int.h), not Anthropic's own. */
static int
packed(const hm_jv *v)
{
	return hm__dl_is_str(v) && hm__ids_packed(v->s, v->len);
}

hm_status
hm__dl_anthropic_messages(conv *k, const hm_jv *msgs)
{
	size_t i, j;

	if (!msgs || msgs->type != HM_JV_ARRAY)
		return hm__dl_fail_at(k, msgs, "missing field `messages` (a list)");
	for (i = 0; i < msgs->n; i++) {
		const hm_jv *m = msgs->v[i], *role = hm__jv_get(m, "role");
		const hm_jv *content = hm__jv_get(m, "content");
		int user = hm__dl_streq(role, "user"), calls = 0;
		hm_message *cur = NULL; /* the open user or text message */
		size_t from = k->c->n;
		const hm_jv *ids = NULL; /* the ids its model wrote (harmony-parse --with-tokens) */
		const hm_jv *call = NULL; /* its first tool_use's id */
		char where[32], bw[64];

		k->at = m;
		snprintf(where, sizeof where, "messages[%zu]", i);
		if (m->type != HM_JV_OBJECT)
			return FAIL(k, "%s: must be an object", where);
		if (!user && !hm__dl_streq(role, "assistant"))
			return FAIL(k, "%s: role must be user or assistant", where);
		if (hm__dl_is_str(content)) {
			hm_message *x = hm__dl_add_msg(k, user ? HM_ROLE_USER : HM_ROLE_ASSISTANT);

			if (!x || (!user && hm__dl_sets(k, &x->channel, "final") != HM_OK) ||
			    hm__dl_add_text(k, x, content->s, content->len) != HM_OK)
				return k->st;
			continue;
		}
		if (!content || content->type != HM_JV_ARRAY)
			return FAIL(k, "%s.content: must be a string or a list of blocks", where);
		for (j = 0; !user && j < content->n; j++)
			calls |= hm__dl_streq(hm__jv_get(content->v[j], "type"), "tool_use");
		for (j = 0; j < content->n; j++) {
			const hm_jv *b = content->v[j], *type = hm__jv_get(b, "type");

			k->at = b;
			snprintf(bw, sizeof bw, "%s.content[%zu]", where, j);
			if (hm__dl_streq(type, "text")) {
				const hm_jv *t = hm__jv_get(b, "text");

				if (!hm__dl_is_str(t))
					return FAIL(k, "%s: a text block needs a string `text`", bw);
				if (!cur) {
					if (!(cur = hm__dl_add_msg(k, user ? HM_ROLE_USER : HM_ROLE_ASSISTANT)))
						return k->st;
					if (!user && hm__dl_sets(k, &cur->channel, calls ? "commentary" : "final") != HM_OK)
						return k->st;
				}
				if (hm__dl_add_text(k, cur, t->s, t->len) != HM_OK)
					return k->st;
				continue;
			}
			cur = NULL;
			if (hm__dl_streq(type, "thinking") && !user) {
				const hm_jv *t = hm__jv_get(b, "thinking");

				if (!hm__dl_is_str(t))
					return FAIL(k, "%s: a thinking block needs a string `thinking`", bw);
				if (hm__dl_add_channel_text(k, "analysis", t->s, t->len) != HM_OK)
					return k->st;
				if (!ids && packed(hm__jv_get(b, "signature")))
					ids = hm__jv_get(b, "signature");
			} else if (hm__dl_streq(type, "redacted_thinking") && !user) {
				/* nothing readable to render; ours holds the turn's ids */
				if (!ids && packed(hm__jv_get(b, "data")))
					ids = hm__jv_get(b, "data");
				continue;
			} else if (hm__dl_streq(type, "tool_use") && !user) {
				const hm_jv *name = hm__jv_get(b, "name");

				if (!hm__dl_is_str(name) || !name->len)
					return FAIL(k, "%s: tool_use needs a string `name`", bw);
				if (!call)
					call = hm__jv_get(b, "id");
				if (hm__dl_remember_call(k, hm__jv_get(b, "id"), name) != HM_OK ||
				    hm__dl_add_call_jv(k, name, hm__jv_get(b, "input"), "{}") != HM_OK)
					return k->st;
			} else if (hm__dl_streq(type, "tool_result") && user) {
				const char *name = hm__dl_call_name(k, hm__jv_get(b, "tool_use_id"));
				hm_message *t;
				hm_buf txt = {0};
				char cw[80];
				hm_status rc;

				if (!name)
					return FAIL(k, "%s: tool_result whose tool_use_id matches no earlier tool_use", bw);
				if (!(t = hm__dl_add_result(k, name)))
					return k->st;
				/* is_error has no Harmony field: the content says it. */
				snprintf(cw, sizeof cw, "%s.content", bw);
				rc = hm__dl_anthropic_blocks_text(k, &txt, hm__jv_get(b, "content"), cw);
				if (rc == HM_OK)
					rc = k->nomem ? hm__dl_bad(k, HM_ENOMEM) : hm__dl_add_text(k, t, txt.p ? txt.p : "", txt.len);
				hm_buf_free(&txt);
				if (rc != HM_OK)
					return k->st;
			} else
				return FAIL(k, "%s: unsupported %s block type '%s'", bw,
				    user ? "user" : "assistant", hm__dl_is_str(type) ? type->s : "?");
		}
		if ((ids || (call && k->lookup)) &&
		    hm__dl_turn(k, HM_DIALECT_ANTHROPIC, from, ids, call, where, reread) != HM_OK)
			return k->st;
	}
	return HM_OK;
}

/* A Message as harmony-parse --to anthropic writes it, read (dialect_turn.c). */
static hm_status
reread(conv *k, const hm_jv *out)
{
	hm_jv *arr = hm__jv_new(HM_JV_ARRAY);
	hm_status st;

	if (!arr || hm__jv_push(arr, hm__jv_copy(out)) != HM_OK) {
		hm__jv_free(arr);
		return hm__dl_bad(k, HM_ENOMEM);
	}
	st = hm__dl_anthropic_messages(k, arr);
	hm__jv_free(arr);
	return st;
}

hm_status
hm__dl_anthropic_tools(conv *k, const hm_jv *tools)
{
	size_t i;
	char where[32];

	if (hm__dl_is_null(tools))
		return HM_OK;
	if (tools->type != HM_JV_ARRAY)
		return hm__dl_fail_at(k, tools, "tools: must be a list");
	for (i = 0; i < tools->n; i++) {
		const hm_jv *t = tools->v[i], *ty = hm__jv_get(t, "type");

		k->at = t;
		snprintf(where, sizeof where, "tools[%zu]", i);
		if (t->type != HM_JV_OBJECT)
			return FAIL(k, "%s: must be an object", where);
		if (ty && !hm__dl_streq(ty, "custom"))
			return FAIL(k, "%s: unsupported tool type '%s'", where, hm__dl_is_str(ty) ? ty->s : "?");
		if (hm__dl_add_function(k, hm__jv_get(t, "name"), hm__jv_get(t, "description"),
		    hm__dl_tool_schema(k, t, "input_schema", where), where) != HM_OK)
			return k->st;
	}
	return HM_OK;
}

/* temperature -> effort: <= 0.3 low, < 0.8 medium, else high. */
hm_status
hm__dl_temperature_effort(conv *k, const hm_jv *t, hm_effort *out)
{
	*out = HM_EFFORT_NONE;
	if (hm__dl_is_null(t))
		return HM_OK;
	if (t->type != HM_JV_NUMBER)
		return hm__dl_fail_at(k, t, "temperature: must be a number, not %s", hm__dl_a_type(t));
	if (t->num < 0)
		return hm__dl_fail_at(k, t, "temperature: must be 0 or more, not %s", t->s);
	*out = t->num <= 0.3 ? HM_EFFORT_LOW : t->num < 0.8 ? HM_EFFORT_MEDIUM : HM_EFFORT_HIGH;
	return HM_OK;
}
