/*
 * test_prefill.c - hm_render_opts.continue_last and hm_request.continue_last:
 * the last message left open, what cannot be, and a caller built before
 * the member existed.
 */
#include <stddef.h>
#include <stdlib.h>

#include "harmony.h"
#include "unit.h"

/* The text rendering of a Harmony conversation; NULL on error (*e says). */
static char *
render_text(const char *json, hm_render_mode mode, int cont, hm_error *e)
{
	hm_conversation *c = NULL;
	hm_render_opts o = HM_RENDER_OPTS_INIT;
	char *t = NULL;
	size_t n;

	o.mode = mode;
	o.continue_last = cont;
	if (hm_conversation_from_json(json, strlen(json), &c, e) != HM_OK)
		return NULL;
	if (hm_render_text(c, &o, &t, &n, e) != HM_OK)
		t = NULL;
	hm_conversation_free(c);
	return t;
}

static int
text_is(const char *json, hm_render_mode mode, int cont, const char *want)
{
	hm_error e = {0};
	char *t = render_text(json, mode, cont, &e);
	int ok = t && !strcmp(t, want);

	if (!ok)
		fprintf(stderr, "want [%s]\n got [%s] %s\n", want, t ? t : "", t ? "" : e.msg);
	free(t);
	return ok;
}

static int
fails_with(const char *json, hm_render_mode mode, const char *msg)
{
	hm_error e = {0};
	char *t = render_text(json, mode, 1, &e);
	int ok = !t && !strcmp(e.msg, msg);

	if (!ok)
		fprintf(stderr, "want error [%s]\n got [%s]\n", msg, t ? t : e.msg);
	free(t);
	return ok;
}

/* The request's continue_last, or -1 when it is not read. */
static int
request_continues(const char *json, hm_dialect d)
{
	hm_request r;
	hm_error e;
	int v;

	if (hm_request_from_json(json, strlen(json), d, NULL, &r, &e) != HM_OK)
		return -1;
	v = hm_conversation_continues(r.conv);
	hm_request_free(&r);
	return v;
}

int
main(void)
{
	static const char hi[] = "[{\"role\":\"user\",\"content\":\"hi\"},"
	    "{\"role\":\"assistant\",\"channel\":\"final\",\"content\":\"Hel\"}]";
	static const char turn[] = "[{\"role\":\"user\",\"content\":\"q\"},"
	    "{\"role\":\"assistant\",\"channel\":\"analysis\",\"content\":\"a\"},"
	    "{\"role\":\"assistant\",\"channel\":\"final\",\"content\":\"f\"}]";
	hm_conversation *c = NULL;
	hm_ids open = {0}, closed = {0};
	hm_error e;

	/* open in completion and conversation mode: no stop, no next header */
	CHECK(text_is(hi, HM_RENDER_COMPLETION, 1,
	    "<|start|>user<|message|>hi<|end|><|start|>assistant<|channel|>final<|message|>Hel"));
	CHECK(text_is(hi, HM_RENDER_CONVERSATION, 1,
	    "<|start|>user<|message|>hi<|end|><|start|>assistant<|channel|>final<|message|>Hel"));
	CHECK(text_is(hi, HM_RENDER_COMPLETION, 0,
	    "<|start|>user<|message|>hi<|end|><|start|>assistant<|channel|>final<|message|>Hel<|end|><|start|>assistant"));
	/* the analysis of the turn being continued is kept; closed, it is dropped */
	CHECK(text_is(turn, HM_RENDER_COMPLETION, 1,
	    "<|start|>user<|message|>q<|end|><|start|>assistant<|channel|>analysis<|message|>a<|end|>"
	    "<|start|>assistant<|channel|>final<|message|>f"));
	CHECK(text_is(turn, HM_RENDER_COMPLETION, 0,
	    "<|start|>user<|message|>q<|end|><|start|>assistant<|channel|>final<|message|>f<|end|><|start|>assistant"));

	/* the ids: the closed conversation's, less its <|end|> */
	CHECK(hm_conversation_from_json(hi, strlen(hi), &c, &e) == HM_OK);
	{
		hm_render_opts o = HM_RENDER_OPTS_INIT;

		CHECK(c && hm_render(c, &o, &closed, &e) == HM_OK);
		o.continue_last = 1;
		CHECK(c && hm_render(c, &o, &open, &e) == HM_OK);
		CHECK(closed.len == open.len + 1 && closed.v[closed.len - 1] == 200007 &&
		    !memcmp(open.v, closed.v, open.len * sizeof *open.v));
	}
	/* a caller built before continue_last: its size stops short of it */
	{
		struct { hm_render_opts o; char pad[16]; } old;
		hm_ids ids = {0};

		memset(&old, 0xff, sizeof old);
		old.o.size = offsetof(hm_render_opts, continue_last);
		old.o.mode = HM_RENDER_CONVERSATION;
		old.o.next_role = HM_ROLE_ASSISTANT;
		old.o.keep_analysis = 0;
		CHECK(c && hm_render(c, &old.o, &ids, &e) == HM_OK && ids.len == closed.len &&
		    !memcmp(ids.v, closed.v, ids.len * sizeof *ids.v));
		hm_ids_free(&ids);
	}
	hm_conversation_free(c);
	hm_ids_free(&open);
	hm_ids_free(&closed);

	/* what cannot be continued */
	CHECK(fails_with("[{\"role\":\"user\",\"content\":\"hi\"}]", HM_RENDER_COMPLETION,
	    "the last message is the user's: only an assistant's message can be continued"));
	CHECK(fails_with("[{\"role\":\"assistant\",\"recipient\":\"functions.f\",\"content\":\"{}\"}]",
	    HM_RENDER_COMPLETION, "the last message is a tool call (to functions.f): a call is not continued, its result follows it"));
	CHECK(fails_with("[]", HM_RENDER_CONVERSATION, "no message to continue"));
	CHECK(fails_with(hi, HM_RENDER_TRAINING,
	    "a training sample holds whole messages: its last message cannot be left open to continue"));

	/* requests that ask for it */
	CHECK(request_continues("{\"model\":\"claude-x\",\"messages\":[{\"role\":\"user\",\"content\":\"a\"},"
	    "{\"role\":\"assistant\",\"content\":\"b\"}]}", HM_DIALECT_ANTHROPIC) == 1);
	CHECK(request_continues("{\"model\":\"claude-x\",\"messages\":[{\"role\":\"user\",\"content\":\"a\"}]}",
	    HM_DIALECT_ANTHROPIC) == 0);
	CHECK(request_continues("{\"messages\":[{\"role\":\"user\",\"content\":\"a\"},"
	    "{\"role\":\"assistant\",\"content\":\"b\"}],\"continue_final_message\":true}", HM_DIALECT_CHAT) == 1);
	CHECK(request_continues("{\"messages\":[{\"role\":\"user\",\"content\":\"a\"},"
	    "{\"role\":\"assistant\",\"content\":\"b\"}]}", HM_DIALECT_CHAT) == 0);
	CHECK(request_continues("{\"messages\":[{\"role\":\"user\",\"content\":\"a\"}],"
	    "\"continue_final_message\":true}", HM_DIALECT_CHAT) == -1);
	CHECK(request_continues("[{\"role\":\"user\",\"content\":\"a\"},"
	    "{\"role\":\"assistant\",\"content\":\"b\"}]", HM_DIALECT_HARMONY) == 0);
	return UNIT_DONE("test_prefill");
}
