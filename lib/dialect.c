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

#include "dialect_int.h"

void
hm_request_free(hm_request *r)
{
	hm_conversation_free(r->conv);
	free(r->selection_text.p);
	free(r->model.p);
	memset(r, 0, sizeof *r);
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
		if (hm__dl_streq(v, words[i]))
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
		const hm_jv *m = msgs->v[i], *c = hm__jv_get(m, "content");

		for (j = 0; hkeys[j]; j++)
			if (hm__jv_get(m, hkeys[j]))
				mark(s, SIG_HARMONY, "%s[%zu].%s", path, i, hkeys[j]);
		for (j = 0; ckeys[j]; j++)
			if (hm__jv_get(m, ckeys[j]))
				mark(s, SIG_CHAT, "%s[%zu].%s", path, i, ckeys[j]);
		if (hm__dl_streq(hm__jv_get(m, "role"), "function"))
			mark(s, SIG_CHAT, "%s[%zu].role \"function\"", path, i);
		if (!hm__jv_get(m, "role") && in_list(hm__jv_get(m, "type"), ritems))
			s->bits |= SIG_RESPONSES;
		for (j = 0; c && c->type == HM_JV_ARRAY && j < c->n; j++) {
			const hm_jv *t = hm__jv_get(c->v[j], "type");

			if (in_list(t, hparts))
				mark(s, SIG_HARMONY, "%s[%zu].content[%zu] %s", path, i, j, t->s);
			else if (in_list(t, cparts))
				mark(s, SIG_CHAT, "%s[%zu].content[%zu] %s", path, i, j, t->s);
			else if (in_list(t, aparts) || hm__jv_get(c->v[j], "cache_control"))
				mark(s, SIG_ANTHROPIC, "%s[%zu].content[%zu] %s", path, i, j,
				    hm__dl_is_str(t) ? t->s : "block");
			else if (hm__dl_streq(t, "text"))
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
	const hm_jv *tools = hm__jv_get(v, "tools"), *model = hm__jv_get(v, "model");
	size_t i;

	for (i = 0; ckeys[i]; i++)
		if (hm__jv_get(v, ckeys[i]))
			mark(s, SIG_CHAT, "%s", ckeys[i]);
	for (i = 0; akeys[i]; i++)
		if (!hm__dl_is_null(hm__jv_get(v, akeys[i])))
			mark(s, SIG_ANTHROPIC, "%s", akeys[i]);
	if (hm__jv_get(hm__jv_get(v, "metadata"), "user_id"))
		mark(s, SIG_ANTHROPIC, "metadata.user_id");
	for (i = 0; tools && tools->type == HM_JV_ARRAY && i < tools->n; i++)
		if (hm__jv_get(tools->v[i], "input_schema") && !hm__jv_get(tools->v[i], "function"))
			mark(s, SIG_ANTHROPIC, "tools[%zu].input_schema", i);
	if (hm__dl_is_str(model) && model->len >= 6 && !strncmp(model->s, "claude", 6) &&
	    hm__jv_get(v, "max_tokens"))
		mark(s, SIG_ANTHROPIC, "model \"%s\" with max_tokens", model->s);
	/*
	 * top_k and a thinking object are Anthropic's, unless the rest says
	 * Chat (vLLM takes top_k, some Chat servers a thinking switch).
	 */
	if (hm__jv_get(v, "top_k") && !(s->bits & SIG_CHAT))
		mark(s, SIG_ANTHROPIC, "top_k");
	if (hm__jv_is(hm__jv_get(v, "thinking"), HM_JV_OBJECT) && !(s->bits & SIG_CHAT))
		mark(s, SIG_ANTHROPIC, "thinking");
	for (i = 0; !(s->bits & SIG_ANTHROPIC) && shared[i]; i++)
		if (hm__jv_get(v, shared[i]))
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
		snprintf(why, whysz, "a request must be a JSON object or list, not %s", hm__dl_a_type(v));
		return HM_DIALECT_AUTO;
	} else if (hm__jv_get(v, "role")) {
		memset(&one, 0, sizeof one);
		one.type = HM_JV_ARRAY;
		one.n = 1;
		onev[0] = (hm_jv *)v;
		one.v = onev;
		msgs = &one;
	} else if (hm__jv_get(v, "input") || hm__jv_get(v, "instructions")) {
		return HM_DIALECT_RESPONSES;
	} else if (!(msgs = hm__jv_get(v, "messages"))) {
		snprintf(why, whysz, "cannot tell the request's shape (want messages, input or a list)");
		return HM_DIALECT_AUTO;
	} else
		top = 1;
	scan_messages(msgs, "messages", &s);
	if (top)
		scan_top(v, &s);
	if ((s.bits & SIG_ANTHROPIC) && (s.bits & (SIG_HARMONY | SIG_CHAT))) {
		snprintf(why, whysz, "the request mixes Anthropic fields (%s) with %s fields (%s)",
		    s.anthropic, s.bits & SIG_HARMONY ? "Harmony" : "Chat",
		    s.bits & SIG_HARMONY ? s.harmony : s.chat);
		return HM_DIALECT_AUTO;
	}
	if (s.bits & SIG_ANTHROPIC)
		return HM_DIALECT_ANTHROPIC;
	if ((s.bits & SIG_HARMONY) && (s.bits & SIG_CHAT)) {
		snprintf(why, whysz, "the request mixes Harmony fields (%s) with Chat fields (%s)",
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

static hm_status
apply_opts(conv *k, hm_system_content *s, const hm_request_opts *o, hm_effort effort)
{
	if (effort != HM_EFFORT_NONE)
		s->effort = effort;
	if (o->date && hm__dl_sets(k, &s->date, o->date) != HM_OK)
		return k->st;
	if (o->cutoff && hm__dl_sets(k, &s->cutoff, o->cutoff) != HM_OK)
		return k->st;
	if (o->identity && hm__dl_sets(k, &s->model_identity, o->identity) != HM_OK)
		return k->st;
	if (o->browser && hm_tools_add_builtin(&s->tools, "browser") != HM_OK)
		return hm__dl_bad(k, HM_ENOMEM);
	if (o->python && hm_tools_add_builtin(&s->tools, "python") != HM_OK)
		return hm__dl_bad(k, HM_ENOMEM);
	return HM_OK;
}

static int
opts_given(const hm_request_opts *o)
{
	return o->effort || o->date || o->cutoff || o->identity || o->browser || o->python;
}

/* Harmony input: edit the first system content, adding one when missing. */
static hm_status
harmony_opts(conv *k, const hm_request_opts *o)
{
	hm_conversation *c = k->c;
	size_t i, j;
	hm_message *m;
	hm_system_content *s;

	if (!opts_given(o))
		return HM_OK;
	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->msgs[i].ncontent; j++)
			if (c->msgs[i].content[j].type == HM_CONTENT_SYSTEM)
				return apply_opts(k, c->msgs[i].content[j].sys, o, o->effort);
	if (!(m = hm__dl_add_msg(k, HM_ROLE_SYSTEM)))
		return k->st;
	/* Move the new message to the front. */
	{
		hm_message tmp = *m;

		memmove(c->msgs + 1, c->msgs, (c->n - 1) * sizeof *c->msgs);
		c->msgs[0] = tmp;
		m = &c->msgs[0];
		if (hm__conv_ids_insert(c, 0) != HM_OK)
			return hm__dl_bad(k, HM_ENOMEM);
	}
	if (!(s = hm_message_add_system(m)))
		return hm__dl_bad(k, HM_ENOMEM);
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
static hm_status
harmony_value(conv *k, const hm_jv *v, size_t *msgno)
{
	const hm_jv *msgs = v;
	size_t i, n = 1;
	int one = 0;

	k->at = v;
	if (v->type == HM_JV_OBJECT && hm__jv_get(v, "role"))
		one = 1;
	else if (v->type == HM_JV_OBJECT && !(msgs = hm__jv_get(v, "messages")))
		return FAIL(k, "missing field `messages`");
	else if (msgs->type != HM_JV_ARRAY)
		return hm__dl_fail_at(k, msgs, "a Harmony conversation needs a list of messages, not %s",
		    hm__dl_a_type(msgs));
	if (!one)
		n = msgs->n;
	for (i = 0; i < n; i++) {
		const hm_jv *mv = one ? v : msgs->v[i];
		hm_message *m = hm__dl_add_msg(k, HM_ROLE_USER);
		hm_error e;
		hm_status st;

		if (!m)
			return k->st;
		k->at = mv;
		if ((st = hm__message_from_jv(mv, m, &e)) != HM_OK ||
		    (st = hm__conv_ids_from_jv(k->c, k->c->n - 1, mv, &e)) != HM_OK) {
			hm__message_clear(m);
			hm__conv_ids_clear(k->c, k->c->n - 1);
			k->c->n--;
			if (st == HM_EINPUT)
				return FAIL(k, "messages[%zu]: %s", *msgno, e.msg);
			return hm__dl_bad(k, st);
		}
		++*msgno;
	}
	return HM_OK;
}

/* Reading a request value into k->c; top is NULL for a bare message list. */
static hm_status
read_dialect(conv *k, hm_dialect from, const hm_jv *top, const hm_jv *list, hm_effort *effort)
{
	switch (from) {
	case HM_DIALECT_CHAT:
		if (top) {
			if (hm__dl_effort_field(k, hm__jv_get(top, "reasoning_effort"), "reasoning_effort",
			    effort) != HM_OK ||
			    hm__dl_chat_tools(k, hm__jv_get(top, "tools"), "tools") != HM_OK ||
			    hm__dl_chat_tools(k, hm__jv_get(top, "functions"), "functions") != HM_OK)
				return k->st;
			list = hm__jv_get(top, "messages");
		}
		return hm__dl_chat_messages(k, list);
	case HM_DIALECT_RESPONSES:
		if (top) {
			const hm_jv *ins = hm__jv_get(top, "instructions"), *r = hm__jv_get(top, "reasoning");

			if (!hm__dl_is_null(r) && r->type != HM_JV_OBJECT)
				return hm__dl_fail_at(k, r, "reasoning: must be an object, not %s", hm__dl_a_type(r));
			if (hm__dl_effort_field(k, hm__jv_get(r, "effort"), "reasoning.effort", effort) != HM_OK)
				return k->st;
			if (!hm__dl_is_null(ins) && ins->type != HM_JV_STRING)
				return hm__dl_fail_at(k, ins, "instructions: must be a string, not %s", hm__dl_a_type(ins));
			if (!hm__dl_is_null(ins) && hm__dl_add_instructions(k, ins, "instructions") != HM_OK)
				return k->st;
			if (hm__dl_chat_tools(k, hm__jv_get(top, "tools"), "tools") != HM_OK)
				return k->st;
			/* the API's stateful loop: the stored response's history first */
			if (hm__dl_previous(k, hm__jv_get(top, "previous_response_id")) != HM_OK)
				return k->st;
			list = hm__jv_get(top, "input");
		}
		return hm__dl_responses_input(k, list);
	case HM_DIALECT_ANTHROPIC:
		if (top) {
			const hm_jv *system = hm__jv_get(top, "system");

			if (hm__dl_effort_field(k, hm__jv_get(top, "reasoning_effort"), "reasoning_effort",
			    effort) != HM_OK)
				return k->st;
			if (*effort == HM_EFFORT_NONE &&
			    hm__dl_temperature_effort(k, hm__jv_get(top, "temperature"), effort) != HM_OK)
				return k->st;
			if (!hm__dl_is_null(system)) {
				k->has_instr = 1;
				if (hm__dl_anthropic_blocks_text(k, &k->instr, system, "system") != HM_OK)
					return k->st;
			}
			if (hm__dl_anthropic_tools(k, hm__jv_get(top, "tools")) != HM_OK)
				return k->st;
			list = hm__jv_get(top, "messages");
		}
		return hm__dl_anthropic_messages(k, list);
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
				hm__add(&k->nomem, &b, m->content[j].text.p, m->content[j].text.len);
		if (k->nomem || hm_str_set(&out->selection_text, b.p ? b.p : "", b.len) != HM_OK)
			hm__dl_bad(k, HM_ENOMEM);
		hm_buf_free(&b);
		break;
	}
}

static hm_status
bool_field(conv *k, const hm_jv *top, const char *key, int *out)
{
	const hm_jv *b = top ? hm__jv_get(top, key) : NULL;

	*out = b && b->type == HM_JV_TRUE;
	if (hm__dl_is_null(b) || b->type == HM_JV_TRUE || b->type == HM_JV_FALSE)
		return HM_OK;
	return hm__dl_fail_at(k, b, "%s: must be true or false, not %s", key, hm__dl_a_type(b));
}

/*
 * Whether the request continues its last message (a prefill): an Anthropic
 * request whose last message is the assistant's, a Chat request with
 * continue_final_message (vLLM's field; with add_generation_prompt also
 * true it asks for two things at once, an error as in vLLM).  The message
 * continued must be an assistant's text or reasoning, never a call.
 */
static hm_status
prefill(conv *k, hm_dialect from, const hm_jv *top, const hm_jv *list, int *out)
{
	const hm_jv *msgs, *last;
	const hm_message *m = k->c->n ? &k->c->msgs[k->c->n - 1] : NULL;
	const char *why = from == HM_DIALECT_CHAT ? "continue_final_message" : "a prefill";
	int gen = 0;

	*out = 0;
	if (from == HM_DIALECT_CHAT) {
		/* add_generation_prompt alone changes nothing: read only with the other */
		if (bool_field(k, top, "continue_final_message", out) != HM_OK ||
		    (*out && bool_field(k, top, "add_generation_prompt", &gen) != HM_OK))
			return k->st;
		if (*out && gen)
			return hm__dl_fail_at(k, hm__jv_get(top, "add_generation_prompt"),
			    "continue_final_message and add_generation_prompt are both true: the last "
			    "message cannot be continued and a new one started; set add_generation_prompt to false");
	}
	if (from == HM_DIALECT_CHAT ? !*out : from != HM_DIALECT_ANTHROPIC)
		return HM_OK;
	msgs = top ? hm__jv_get(top, "messages") : list;
	if (!msgs || msgs->type != HM_JV_ARRAY || !msgs->n)
		return from == HM_DIALECT_CHAT ? FAIL(k, "%s: no message to continue", why) : HM_OK;
	last = msgs->v[msgs->n - 1];
	k->at = last;
	if (!hm__dl_streq(hm__jv_get(last, "role"), "assistant")) {
		if (from == HM_DIALECT_ANTHROPIC)
			return HM_OK;
		return FAIL(k, "messages[%zu]: %s: the last message is not the assistant's; only an "
		    "assistant's message can be continued", msgs->n - 1, why);
	}
	*out = 1;
	if (!m || m->role != HM_ROLE_ASSISTANT)
		return FAIL(k, "messages[%zu]: %s: the assistant's last message holds no text or "
		    "reasoning to continue", msgs->n - 1, why);
	if (m->recipient.p)
		return FAIL(k, "messages[%zu]: %s: the assistant's last message ends with a tool call "
		    "(to %.100s), which is not continued: its result follows it", msgs->n - 1, why,
		    m->recipient.p);
	return HM_OK;
}

/* A request of another dialect: system, developer, then the turns. */
static void
read_request(conv *k, hm_dialect from, const hm_jv *v, const hm_request_opts *o, int *cont)
{
	const hm_jv *top = NULL, *list = v;
	hm_jv one;
	hm_jv *onev[1];
	hm_message *sys, *dev;
	hm_effort effort = HM_EFFORT_NONE;
	int rf;

	if (v->type == HM_JV_OBJECT && hm__jv_get(v, "role")) {
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
	if (!(sys = hm__dl_add_msg(k, HM_ROLE_SYSTEM)) || !hm_message_add_system(sys)) {
		hm__dl_bad(k, HM_ENOMEM);
		return;
	}
	if (!hm__dl_add_msg(k, HM_ROLE_DEVELOPER))
		return;
	if (read_dialect(k, from, top, list, &effort) != HM_OK ||
	    prefill(k, from, top, list, cont) != HM_OK)
		return;
	sys = &k->c->msgs[0];
	dev = &k->c->msgs[1];
	if (apply_opts(k, sys->content[0].sys, o, o->effort ? o->effort : effort) != HM_OK)
		return;
	if (hm__dl_response_format(k, from, top, NULL, &rf) != HM_OK)
		return;
	if (k->has_instr || k->tools.n || rf) {
		hm_developer_content *d = hm_message_add_developer(dev);

		if (!d) {
			hm__dl_bad(k, HM_ENOMEM);
			return;
		}
		if (k->has_instr && (k->nomem ||
		    hm__dl_set(k, &d->instructions, k->instr.p ? k->instr.p : "", k->instr.len) != HM_OK)) {
			hm__dl_bad(k, HM_ENOMEM);
			return;
		}
		d->tools = k->tools;
		memset(&k->tools, 0, sizeof k->tools);
		if (rf && hm__dl_response_format(k, from, top, d, &rf) != HM_OK)
			return;
	} else {
		/* No developer message at all. */
		hm__message_clear(dev);
		memmove(dev, dev + 1, (k->c->n - 2) * sizeof *dev);
		k->c->n--;
		hm__conv_ids_remove(k->c, 1); /* a turn's ids move with it (dialect_turn.c) */
	}
}

hm_status
hm_request_from_json(const char *buf, size_t len, hm_dialect from,
                     const hm_request_opts *given, hm_request *out, hm_error *err)
{
	hm_request_opts opts = HM_REQUEST_OPTS_INIT;
	const hm_request_opts *o = &opts;
	char msg[200], why[200];
	hm_jv *v;
	conv k;
	hm_dialect d;
	hm_status st;
	size_t i, pos = 0, errpos = 0;

	memset(out, 0, sizeof *out);
	memset(&k, 0, sizeof k);
	if (err)
		err->line = 0;
	if (hm__opts_take(&opts, sizeof opts, given, err) != HM_OK)
		return HM_EINPUT;
	k.err = err;
	k.buf = buf;
	k.len = len;
	k.warn = o->warn;
	k.warn_ctx = o->warn_ctx;
	k.lookup = o->lookup;
	k.lookup_ctx = o->lookup_ctx;
	if ((st = hm__jv_read(buf, len, &pos, 0, HM_JV_NODUP, &v, msg, sizeof msg, &errpos)) != HM_OK) {
		if (st == HM_EINPUT) {
			hm__seterr(err, "%s", msg);
			hm__err_json_at(err, buf, len, errpos);
		}
		return st;
	}
	k.at = v;
	d = from;
	if (d == HM_DIALECT_AUTO && (d = detect(v, why, sizeof why)) == HM_DIALECT_AUTO) {
		FAIL(&k, "%s", why);
		if (err)
			err->hint = HM_HINT_DIALECT;
		hm__jv_free(v);
		return k.st;
	}
	if (pos < len && d != HM_DIALECT_HARMONY) {
		/* pos is on the second value. */
		hm_jv at = {0};

		at.pos = pos;
		hm__dl_fail_at(&k, &at, "a second JSON value after a %s request: give one request per input",
		    hm_dialect_name(d));
		if (err)
			err->hint = HM_HINT_ONE_PER_LINE;
		hm__jv_free(v);
		return k.st;
	}
	out->dialect = d;
	if (!(k.c = hm_conversation_new())) {
		hm__jv_free(v);
		return HM_ENOMEM;
	}
	if (v->type == HM_JV_OBJECT && hm__dl_is_str(hm__jv_get(v, "model"))) {
		const hm_jv *mv = hm__jv_get(v, "model");

		if (hm_str_set(&out->model, mv->s, mv->len) != HM_OK)
			hm__dl_bad(&k, HM_ENOMEM);
		out->harmony_model = is_harmony_model(&out->model);
	}
	if (d == HM_DIALECT_HARMONY) {
		size_t msgno = 0;

		/* Several values in a row: a conversation, then more messages. */
		for (;;) {
			if (harmony_value(&k, v, &msgno) != HM_OK || pos >= len)
				break;
			hm__jv_free(v);
			if ((st = hm__jv_read(buf, len, &pos, 0, HM_JV_NODUP, &v, msg, sizeof msg, &errpos)) != HM_OK) {
				hm_jv at = {0};

				at.pos = errpos;
				if (st == HM_ENOMEM)
					hm__dl_bad(&k, HM_ENOMEM);
				else {
					int first = k.st == HM_OK; /* the error is this one */

					hm__dl_fail_at(&k, &at, "%s", msg);
					if (first)
						hm__err_json_at(k.err, buf, len, errpos);
				}
				break;
			}
			k.at = v;
			if (from == HM_DIALECT_AUTO && (d = detect(v, why, sizeof why)) != HM_DIALECT_HARMONY) {
				if (d == HM_DIALECT_AUTO) {
					FAIL(&k, "%s", why);
					if (err)
						err->hint = HM_HINT_DIALECT;
				} else {
					FAIL(&k, "a %s request after Harmony messages: only Harmony messages "
					    "and conversations are read one after another", hm_dialect_name(d));
					if (err)
						err->hint = HM_HINT_ONE_PER_LINE;
				}
				break;
			}
		}
		if (k.st == HM_OK)
			harmony_opts(&k, o);
	} else {
		int cont = 0;

		read_request(&k, d, v, o, &cont);
		if (k.st == HM_OK && hm_conversation_set_continues(k.c, cont) != HM_OK)
			k.st = HM_ENOMEM;
	}
	if (k.st == HM_OK)
		selection(&k, out);
	if (k.nomem)
		hm__dl_bad(&k, HM_ENOMEM);
	hm__jv_free(v);
	hm_buf_free(&k.instr);
	hm__tools_clear(&k.tools);
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
