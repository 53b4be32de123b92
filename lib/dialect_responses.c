/* dialect_responses.c - a Responses request to a conversation (harmony-render(1)). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialect_int.h"
#include "ids_pack_int.h"

/* A reasoning item: content texts, else summary texts, one per line. */
static hm_status
responses_reasoning(conv *k, const hm_jv *it, const char *where)
{
	const hm_jv *parts = hm__jv_get(it, "content");
	const char *field = "content";
	hm_buf b = {0};
	size_t j;
	hm_status rc;

	if (hm__dl_is_null(parts) || (parts->type == HM_JV_ARRAY && !parts->n)) {
		parts = hm__jv_get(it, "summary");
		field = "summary";
	}
	if (!hm__dl_is_null(parts) && parts->type != HM_JV_ARRAY)
		return hm__dl_fail_at(k, parts, "%s.%s: must be a list", where, field);
	for (j = 0; !hm__dl_is_null(parts) && j < parts->n; j++) {
		const hm_jv *t = hm__jv_get(parts->v[j], "text");

		if (!hm__dl_is_str(t)) {
			hm_buf_free(&b);
			return hm__dl_fail_at(k, parts->v[j], "%s.%s[%zu]: needs a string `text`", where, field, j);
		}
		if (j)
			hm__putc(&k->nomem, &b, '\n');
		hm__add(&k->nomem, &b, t->s, t->len);
	}
	if (!k->nomem && !b.len) {
		const hm_jv *e = hm__jv_get(it, "encrypted_content");

		hm_buf_free(&b);
		/* the item of harmony-parse --with-tokens that only holds the turn's ids */
		if (hm__dl_is_str(e) && hm__ids_packed(e->s, e->len))
			return HM_OK;
		hm__dl_warn_at(k, it, "%s: reasoning item with no readable text (%s) left out", where,
		    hm__jv_get(it, "encrypted_content") ? "only encrypted_content" : "empty summary");
		return HM_OK;
	}
	rc = k->nomem ? hm__dl_bad(k, HM_ENOMEM) : hm__dl_add_channel_text(k, "analysis", b.p, b.len);
	hm_buf_free(&b);
	return rc;
}

/*
 * The items of one assistant turn (reasoning, function calls, assistant
 * messages, one after another) began at message from; the first packed
 * encrypted_content among them is its model's ids (harmony-parse
 * --with-tokens).
 */
struct turn {
	int open;
	size_t from;
	size_t item;       /* its first item's index */
	const hm_jv *ids;
	const hm_jv *call; /* its first function call's call_id */
};

static hm_status reread(conv *k, const hm_jv *out);

/* kind: 0 not of an assistant turn, 1 reasoning, 2 a function call, 3 an assistant message */
static hm_status
turn_item(conv *k, struct turn *t, const hm_jv *it, size_t i, int kind)
{
	if (!kind) {
		if (t->open && (t->ids || (t->call && k->lookup))) {
			char where[32];

			snprintf(where, sizeof where, "input[%zu]", t->item);
			if (hm__dl_turn(k, HM_DIALECT_RESPONSES, t->from, t->ids, t->call, where,
			    reread) != HM_OK)
				return k->st;
		}
		t->open = 0;
		return HM_OK;
	}
	if (!t->open) {
		t->open = 1;
		t->from = k->c->n;
		t->item = i;
		t->ids = t->call = NULL;
	}
	if (kind == 1 && !t->ids) {
		const hm_jv *e = hm__jv_get(it, "encrypted_content");

		if (hm__dl_is_str(e) && hm__ids_packed(e->s, e->len))
			t->ids = e;
	}
	if (kind == 2 && !t->call)
		t->call = hm__jv_get(it, "call_id");
	return HM_OK;
}

hm_status
hm__dl_responses_input(conv *k, const hm_jv *input)
{
	size_t i;
	struct turn turn = { 0 };

	if (hm__dl_is_null(input))
		return HM_OK;
	if (input->type == HM_JV_STRING) {
		hm_message *u = hm__dl_add_msg(k, HM_ROLE_USER);

		return u ? hm__dl_add_text(k, u, input->s, input->len) : k->st;
	}
	if (input->type != HM_JV_ARRAY)
		return hm__dl_fail_at(k, input, "input: must be a string or a list of items");
	for (i = 0; i < input->n; i++) {
		const hm_jv *it = input->v[i], *type = hm__jv_get(it, "type");
		const hm_jv *role = hm__jv_get(it, "role");
		char where[32];

		k->at = it;
		snprintf(where, sizeof where, "input[%zu]", i);
		if (it->type != HM_JV_OBJECT)
			return FAIL(k, "%s: must be an object", where);
		if (turn_item(k, &turn, it, i, hm__dl_streq(type, "reasoning") ? 1 :
		    hm__dl_streq(type, "function_call") ? 2 : (hm__dl_streq(type, "message") ||
		    (!type && role)) && hm__dl_streq(role, "assistant") ? 3 : 0) != HM_OK)
			return k->st;
		if (hm__dl_streq(type, "message") || (!type && role)) {
			const hm_jv *content = hm__jv_get(it, "content");

			if (hm__dl_streq(role, "system") || hm__dl_streq(role, "developer")) {
				if (hm__dl_add_instructions(k, content, where) != HM_OK)
					return k->st;
			} else if (hm__dl_streq(role, "user")) {
				hm_message *u = hm__dl_add_msg(k, HM_ROLE_USER);

				if (!u || hm__dl_content_items(k, u, content, where) != HM_OK)
					return k->st;
			} else if (hm__dl_streq(role, "assistant")) {
				hm_message *a = hm__dl_add_msg(k, HM_ROLE_ASSISTANT);

				if (!a || hm__dl_sets(k, &a->channel, "final") != HM_OK ||
				    hm__dl_content_items(k, a, content, where) != HM_OK)
					return k->st;
			} else
				return FAIL(k, "%s: unknown role '%s'", where, hm__dl_is_str(role) ? role->s : "?");
		} else if (hm__dl_streq(type, "reasoning")) {
			if (responses_reasoning(k, it, where) != HM_OK)
				return k->st;
		} else if (hm__dl_streq(type, "function_call")) {
			const hm_jv *name = hm__jv_get(it, "name");

			if (!hm__dl_is_str(name) || !name->len)
				return FAIL(k, "%s: function_call needs a string `name`", where);
			if (hm__dl_remember_call(k, hm__jv_get(it, "call_id"), name) != HM_OK ||
			    hm__dl_add_call_jv(k, name, hm__jv_get(it, "arguments"), "") != HM_OK)
				return k->st;
		} else if (hm__dl_streq(type, "function_call_output")) {
			const char *name = hm__dl_call_name(k, hm__jv_get(it, "call_id"));
			hm_message *t;

			if (!name)
				return FAIL(k, "%s: function_call_output whose call_id matches no earlier function_call", where);
			if (!(t = hm__dl_add_result(k, name)) || hm__dl_content_items(k, t, hm__jv_get(it, "output"), where) != HM_OK)
				return k->st;
		} else
			return FAIL(k, "%s: unsupported item type '%s'", where, hm__dl_is_str(type) ? type->s : "?");
	}
	return turn_item(k, &turn, NULL, 0, 0);
}

/* A response as harmony-parse --to responses writes it: its output read (dialect_turn.c). */
static hm_status
reread(conv *k, const hm_jv *out)
{
	return hm__dl_responses_input(k, hm__jv_get(out, "output"));
}
