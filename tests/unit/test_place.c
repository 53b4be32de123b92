/* test_place.c - hm_ids_place and hm_record_field (harmony-tokens diff). */
#include <stdlib.h>

#include "harmony.h"
#include "unit.h"

static hm_ids
enc(const char *text)
{
	hm_encoder *e = hm_encoder_new();
	hm_ids ids = { 0 };

	if (!e || hm_encode(e, text, strlen(text), HM_ENC_SPECIAL, &ids, NULL) != HM_OK)
		fprintf(stderr, "cannot encode %s\n", text);
	hm_encoder_free(e);
	return ids;
}

/* The place of ids[i] is part/message/role/channel/recipient. */
static int
at(const hm_ids *ids, size_t i, hm_place_part part, size_t msg, const char *role,
   const char *channel, const char *rcpt, int unfinished)
{
	hm_place pl = { 0 };
	const char *r, *c, *t;
	int ok;

	if (hm_ids_place(ids->v, ids->len, i, &pl) != HM_OK)
		return 0;
	/* "" in the table: absent (or empty) */
	r = pl.role.p ? pl.role.p : "";
	c = pl.channel.p ? pl.channel.p : "";
	t = pl.recipient.p ? pl.recipient.p : "";
	ok = pl.part == part && pl.message == msg && !strcmp(r, role) && !strcmp(c, channel) &&
	    !strcmp(t, rcpt) && pl.unfinished == unfinished;
	if (!ok)
		fprintf(stderr, "token %zu: part %d message %zu role '%s' channel '%s' to '%s' unfinished %d\n",
		        i, (int)pl.part, pl.message, r, c, t, pl.unfinished);
	hm_place_free(&pl);
	return ok;
}

static void
test_prompt(void)
{
	/* 0 <|start|> 1 user 2 <|message|> 3 Hi 4 <|end|> 5 <|start|> 6 assistant
	 * 7 <|channel|> 8 final 9 <|message|> 10 Hello 11 <|return|> 12 Hello
	 * 13 <|start|> 14 assistant */
	hm_ids ids = enc("<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final"
	                 "<|message|>Hello<|return|>Hello<|start|>assistant");
	size_t i;

	CHECK(ids.len == 15);
	for (i = 0; i <= 2; i++)
		CHECK(at(&ids, i, HM_PLACE_HEADER, 1, "user", "", "", 0));
	CHECK(at(&ids, 3, HM_PLACE_CONTENT, 1, "user", "", "", 0));
	CHECK(at(&ids, 4, HM_PLACE_STOP, 1, "user", "", "", 0));
	for (i = 5; i <= 9; i++)
		CHECK(at(&ids, i, HM_PLACE_HEADER, 2, "assistant", "final", "", 0));
	CHECK(at(&ids, 10, HM_PLACE_CONTENT, 2, "assistant", "final", "", 0));
	CHECK(at(&ids, 11, HM_PLACE_STOP, 2, "assistant", "final", "", 0));
	CHECK(at(&ids, 12, HM_PLACE_OUTSIDE, 2, "", "", "", 0));
	CHECK(at(&ids, 13, HM_PLACE_HEADER, 3, "assistant", "", "", 1));
	CHECK(at(&ids, 14, HM_PLACE_HEADER, 3, "assistant", "", "", 1));
	hm_ids_free(&ids);
}

static void
test_completion(void)
{
	hm_ids ids = enc("<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>"
	                 "commentary to=functions.get_weather <|constrain|>json<|message|>{}<|call|>");
	hm_place pl = { 0 };

	CHECK(at(&ids, 0, HM_PLACE_HEADER, 1, "assistant", "analysis", "", 0));
	CHECK(at(&ids, 3, HM_PLACE_CONTENT, 1, "assistant", "analysis", "", 0));
	CHECK(at(&ids, ids.len - 1, HM_PLACE_STOP, 2, "assistant", "commentary",
	         "functions.get_weather", 0));
	CHECK(at(&ids, ids.len - 2, HM_PLACE_CONTENT, 2, "assistant", "commentary",
	         "functions.get_weather", 0));
	/* an index past the end is outside, never a crash */
	CHECK(hm_ids_place(ids.v, ids.len, ids.len, &pl) == HM_OK && pl.part == HM_PLACE_OUTSIDE);
	hm_place_free(&pl);
	hm_ids_free(&ids);

	/* a header part of any length is kept whole, not cut to a field's size */
	{
		char text[400];
		char name[260];

		memset(name, 'x', sizeof name - 1);
		name[sizeof name - 1] = '\0';
		snprintf(text, sizeof text, "<|channel|>commentary to=functions.%s <|constrain|>json"
		    "<|message|>{}<|call|>", name);
		ids = enc(text);
		CHECK(hm_ids_place(ids.v, ids.len, ids.len - 1, &pl) == HM_OK &&
		    pl.recipient.len == 10 + strlen(name) && !strncmp(pl.recipient.p, "functions.", 10));
		hm_place_free(&pl);
		hm_ids_free(&ids);
	}

	/* plain text without a header is an assistant message's content */
	ids = enc("just text");
	CHECK(at(&ids, 0, HM_PLACE_CONTENT, 1, "assistant", "", "", 0));
	CHECK(at(&ids, ids.len - 1, HM_PLACE_CONTENT, 1, "assistant", "", "", 0));
	hm_ids_free(&ids);
}

/* Longer than a feeding slice: places past it are still found. */
static void
test_long(void)
{
	hm_ids ids = { 0 };
	size_t i;
	uint32_t head[] = { HM_TOK_START, 1428, HM_TOK_MESSAGE };

	hm_ids_append(&ids, head, 3);
	for (i = 0; i < 1500; i++)
		hm_ids_push(&ids, 12194);
	hm_ids_push(&ids, HM_TOK_END);
	hm_ids_append(&ids, head, 3);
	hm_ids_push(&ids, 12194);
	CHECK(at(&ids, 700, HM_PLACE_CONTENT, 1, "user", "", "", 0));
	CHECK(at(&ids, 1503, HM_PLACE_STOP, 1, "user", "", "", 0));
	CHECK(at(&ids, 1505, HM_PLACE_HEADER, 2, "user", "", "", 0));
	CHECK(at(&ids, 1507, HM_PLACE_CONTENT, 2, "user", "", "", 0));
	hm_ids_free(&ids);
}

static int
field_is(const char *rec, const char *key, const char *want)
{
	char *v = NULL;
	hm_error e;
	hm_status st = hm_record_field(rec, strlen(rec), key, &v, &e);
	int ok = want ? st == HM_OK && v && !strcmp(v, want) : st == HM_EINPUT && !v;

	if (!ok)
		fprintf(stderr, "%s [%s]: got %s (%s)\n", rec, key, v ? v : "-", st ? e.msg : "");
	free(v);
	return ok;
}

static void
test_field(void)
{
	CHECK(field_is("{\"id\":\"a\",\"tokens\":[1]}", "id", "\"a\""));
	CHECK(field_is("{\"id\":7}", "id", "7"));
	CHECK(field_is("{\"id\": {\"x\": [1, 2]}}", "id", "{\"x\":[1,2]}"));
	CHECK(field_is("{\"id\":\"caf\\u00e9\"}", "id", "\"caf\xc3\xa9\""));
	CHECK(field_is("{\"n\":1}", "id", NULL));
	CHECK(field_is("[1,2]", "id", NULL));
	CHECK(field_is("{\"id\":", "id", NULL));
	CHECK(field_is("1 2 3", "id", NULL));
}

/* hm_place_same: one place, whatever the storage; any part that differs makes two. */
static void
test_same(void)
{
	hm_place a = { HM_PLACE_CONTENT, 2, 0, { "user", 4 }, { NULL, 0 }, { NULL, 0 } };
	hm_place b = a;
	char role[] = "user";

	b.role.p = role; /* the same bytes elsewhere */
	CHECK(hm_place_same(&a, &b));
	b.channel.p = ""; /* empty is absent */
	CHECK(hm_place_same(&a, &b));
	b.channel = (hm_str){ "final", 5 };
	CHECK(!hm_place_same(&a, &b));
	b = a;
	b.message = 3;
	CHECK(!hm_place_same(&a, &b));
	b = a;
	b.part = HM_PLACE_STOP;
	CHECK(!hm_place_same(&a, &b));
	b = a;
	b.unfinished = 1;
	CHECK(!hm_place_same(&a, &b));
	b = a;
	b.recipient = (hm_str){ "functions.f", 11 };
	CHECK(!hm_place_same(&a, &b));
	b = a;
	b.role.len = 3;
	CHECK(!hm_place_same(&a, &b));
}

int
main(void)
{
	test_same();
	test_prompt();
	test_completion();
	test_long();
	test_field();
	return UNIT_DONE("test_place");
}
