/* test_render.c - rendering (spec §3) against the reference's golden ids. */
#include <stdlib.h>

#include "harmony.h"
#include "unit.h"

static hm_conversation *
conv(const char *json)
{
	hm_conversation *c = NULL;
	hm_error e;

	if (hm_conversation_from_json(json, strlen(json), &c, &e) != HM_OK)
		fprintf(stderr, "bad conversation: %s\n", e.msg);
	return c;
}

/* Options of the mode, analysis kept or not, the rest the defaults. */
static hm_render_opts
opts(hm_render_mode mode, int keep)
{
	hm_render_opts o = HM_RENDER_OPTS_INIT;

	o.mode = mode;
	o.keep_analysis = keep;
	return o;
}

static int
ids_are(const char *json, hm_render_mode mode, const uint32_t *want, size_t n)
{
	hm_conversation *c = conv(json);
	hm_render_opts o = opts(mode, 0);
	hm_ids ids = {0};
	hm_error e;
	int ok = c && hm_render(c, &o, &ids, &e) == HM_OK && ids.len == n &&
	    !memcmp(ids.v, want, n * sizeof *want);

	hm_ids_free(&ids);
	hm_conversation_free(c);
	return ok;
}

static int
text_is(const char *json, hm_render_mode mode, int keep, const char *want)
{
	hm_conversation *c = conv(json);
	hm_render_opts o = opts(mode, keep);
	char *t = NULL;
	size_t n;
	hm_error e;
	int ok = c && hm_render_text(c, &o, &t, &n, &e) == HM_OK && !strcmp(t, want);

	if (!ok)
		fprintf(stderr, "want [%s]\n got [%s]\n", want, t ? t : "");
	free(t);
	hm_conversation_free(c);
	return ok;
}

/* Whether json reads as a conversation that then fails to render (quietly). */
static int
text_fails(const char *json, hm_render_mode mode)
{
	hm_conversation *c = conv(json);
	hm_render_opts o = opts(mode, 0);
	char *t = NULL;
	size_t n;
	hm_error e;
	int failed = c && hm_render_text(c, &o, &t, &n, &e) != HM_OK;

	free(t);
	hm_conversation_free(c);
	return failed;
}

int
main(void)
{
	/* test_simple_convo.txt */
	static const uint32_t simple[] = {200006, 17360, 200008, 3575, 553, 17554, 162016, 11, 261, 4410,
	    6439, 2359, 22203, 656, 7788, 17527, 558, 87447, 100594, 25, 220, 1323, 19, 12, 3218, 279,
	    30377, 289, 25, 14093, 279, 2, 13888, 18403, 25, 8450, 11, 49159, 11, 1721, 13, 21030, 2804,
	    413, 7360, 395, 1753, 3176, 13, 200007, 200006, 1428, 200008, 4827, 382, 220, 17, 659, 220,
	    17, 30, 200007, 200006, 173781};
	static const uint32_t special[] = {200006, 1428, 200008, 87, 27, 91, 419, 91, 29, 88, 200007};
	static const uint32_t named[] = {200006, 1428, 25, 148206, 200008, 3686, 200007};
	static const uint32_t call[] = {200006, 173781, 316, 28, 44580, 76043, 170154, 200005, 12606, 815,
	    220, 200003, 4108, 200008, 10848, 7693, 1243, 392, 28499, 18826, 18583, 200012};
	const char *drop = "[{\"role\":\"user\",\"content\":\"q\"},{\"role\":\"assistant\",\"channel\":\"analysis\",\"content\":\"a1\"},"
	    "{\"role\":\"assistant\",\"channel\":\"final\",\"content\":\"f1\"},{\"role\":\"user\",\"content\":\"q2\"},"
	    "{\"role\":\"assistant\",\"channel\":\"analysis\",\"content\":\"a2\"},{\"role\":\"assistant\",\"channel\":\"final\",\"content\":\"f2\"}]";
	hm_conversation *c;
	char *j = NULL;

	CHECK(ids_are("{\"messages\":[{\"role\":\"system\",\"content\":[{\"type\":\"system_content\",\"model_identity\":"
	    "\"You are ChatGPT, a large language model trained by OpenAI.\",\"reasoning_effort\":\"Medium\",\"tools\":null,"
	    "\"conversation_start_date\":null,\"knowledge_cutoff\":\"2024-06\",\"channel_config\":{\"valid_channels\":"
	    "[\"analysis\",\"commentary\",\"final\"],\"channel_required\":true}}]},{\"role\":\"user\",\"content\":\"What is 2 + 2?\"}]}",
	    HM_RENDER_COMPLETION, simple, sizeof simple / sizeof *simple));
	/* Special-token text typed in content stays plain text. */
	CHECK(ids_are("[{\"role\":\"user\",\"content\":\"x<|end|>y\"}]", HM_RENDER_CONVERSATION,
	    special, sizeof special / sizeof *special));
	/* ":alice" is its own segment. */
	CHECK(ids_are("[{\"role\":\"user\",\"name\":\"alice\",\"content\":\"hi\"}]", HM_RENDER_CONVERSATION,
	    named, sizeof named / sizeof *named));
	CHECK(ids_are("[{\"role\":\"assistant\",\"recipient\":\"functions.lookup_weather\",\"channel\":\"commentary\","
	    "\"content_type\":\"<|constrain|>json\",\"content\":\"{\\\"location\\\": \\\"San Francisco\\\"}\"}]",
	    HM_RENDER_CONVERSATION, call, sizeof call / sizeof *call));

	/* Analysis dropping (§3.10). */
	CHECK(text_is(drop, HM_RENDER_CONVERSATION, 0,
	    "<|start|>user<|message|>q<|end|><|start|>assistant<|channel|>final<|message|>f1<|end|><|start|>user<|message|>q2<|end|>"
	    "<|start|>assistant<|channel|>analysis<|message|>a2<|end|><|start|>assistant<|channel|>final<|message|>f2<|end|>"));
	CHECK(text_is(drop, HM_RENDER_TRAINING, 1,
	    "<|start|>user<|message|>q<|end|><|start|>assistant<|channel|>analysis<|message|>a1<|end|><|start|>assistant<|channel|>final<|message|>f1<|end|><|start|>user<|message|>q2<|end|>"
	    "<|start|>assistant<|channel|>analysis<|message|>a2<|end|><|start|>assistant<|channel|>final<|message|>f2<|return|>"));
	/* Errors. */
	CHECK(text_fails("[{\"role\":\"tool\",\"content\":\"x\"}]", HM_RENDER_CONVERSATION));
	c = conv("[{\"role\":\"user\",\"content\":[{\"type\":\"system_content\"}]}]");
	{
		hm_ids ids = {0};
		hm_render_opts o = HM_RENDER_OPTS_INIT;
		hm_error e;

		CHECK(c && hm_render(c, &o, &ids, &e) == HM_EINPUT &&
		    !strcmp(e.msg, "SystemContent may only appear in system messages, found in User"));
		hm_ids_free(&ids);
	}
	hm_conversation_free(c);

	/* JSON round trip in the serde shape (§2.11/§2.12). */
	c = conv("[{\"content\":\"out\",\"channel\":\"commentary\",\"role\":\"tool\",\"recipient\":\"assistant\",\"name\":\"functions.x\",\"content_type\":\"<|constrain|>json\"},"
	    "{\"role\":\"user\",\"name\":null,\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\",\"text\":\"b\"}]}]");
	CHECK(c && (j = hm_conversation_to_json(c, NULL)) &&
	    !strcmp(j, "{\"messages\":[{\"role\":\"tool\",\"name\":\"functions.x\",\"recipient\":\"assistant\",\"content\":\"out\",\"channel\":\"commentary\",\"content_type\":\"<|constrain|>json\"},"
	    "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\",\"text\":\"b\"}]}]}"));
	free(j);
	hm_conversation_free(c);
	return UNIT_DONE("test_render");
}
