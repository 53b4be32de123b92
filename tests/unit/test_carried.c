/*
 * test_carried.c - a record's carried fields through every shape, through
 * harmony.h alone: whatever the spelling of the members handed to
 * hm_writer_begin (the carried form, or blanks and escapes), and whether
 * the output is drained after every event or once, the output is the
 * same bytes; the members come out in the carried form (records_int.h:
 * nested values, escapes, odd numbers as written, repeated keys kept),
 * the shape's own keys win, and the carried "id" (a number, a string or
 * an object) names the object in every chunk of a stream.
 */
#include <stdlib.h>
#include <string.h>

#include "harmony.h"
#include "unit.h"

static const char completion[] =
    "<|channel|>analysis<|message|>think<|end|>"
    "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json"
    "<|message|>{\"x\": 1e400}<|call|>"
    "<|start|>assistant<|channel|>final<|message|>done \"q\"<|return|>";

/* One record's output through a new writer: drained after every event (each) or once. */
static void
run(hm_shape shape, const char *fields, int each, hm_buf *out)
{
	hm_writer *w = hm_writer_new(shape, HM_WRITER_RECORDS | HM_WRITER_TEXT_INPUT);
	hm_parser *p = hm_parser_new("assistant", 0);
	hm_event ev;
	const char *s;
	size_t n;

	out->len = 0;
	CHECK(w && p && hm_writer_begin(w, fields, strlen(fields)) == HM_OK);
	hm_parser_feed_text(p, completion, strlen(completion));
	hm_parser_finish(p);
	while (hm_parser_next(p, &ev)) {
		CHECK(hm_writer_event(w, &ev) == HM_OK);
		if (each && (s = hm_writer_output(w, &n))) {
			hm_buf_add(out, s, n);
			hm_writer_consume(w);
		}
	}
	s = hm_writer_output(w, &n);
	hm_buf_add(out, s, n);
	hm_writer_consume(w);
	hm_buf_add(out, "", 0);
	hm_parser_free(p);
	hm_writer_free(w);
}

/* How many times needle occurs in hay. */
static size_t
count(const char *hay, const char *needle)
{
	size_t k = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		k++;
	return k;
}

/* Every "data: {" line of an SSE stream names the object id (as `"id":ID` or `"id":"ID..."`). */
static int
every_chunk_names(const char *sse, const char *idmember)
{
	const char *l;
	size_t n = 0;

	for (l = sse; (l = strstr(l, "data: {")); l++, n++) {
		const char *e = strchr(l, '\n');
		const char *at = strstr(l, idmember);

		if (!at || (e && at > e))
			return 0;
	}
	return n > 2;
}

int
main(void)
{
	/* The same members in the carried form, and spelled otherwise. */
	static const char *const ids[][2] = {
		{ "7", "7" },
		{ "\"r-1\"", "\"\\u0072-1\"" },
		{ "{\"k\":[1,\"\\u0001/\"]}", "{ \"k\" : [ 1 , \"\\u0001\\/\" ] }" },
	};
	static const char rest_c[] =
	    "\"model\":\"m\",\"nested\":{\"a\":[1,{\"b\":\"x\xc3\xa9/\"}]},"
	    "\"s\":\"q\\\"\\\\\\n\\u0001\",\"big\":12345678901234567890,\"h\":1e400,"
	    "\"z\":-0,\"f\":1.50,\"d\":1,\"d\":2,"
	    "\"usage\":{\"input_tokens\":5,\"input_tokens\":9}";
	static const char rest_o[] =
	    " \"model\" : \"m\" , \"nested\":{ \"a\" : [1, {\"b\":\"x\\u00e9\\/\"}] },\n"
	    "\t\"s\" : \"q\\\"\\\\\\n\\u0001\", \"big\":12345678901234567890, \"h\": 1e400,"
	    " \"z\":-0 , \"f\" :1.50, \"d\":1, \"d\" : 2,"
	    " \"usage\": { \"input_tokens\" : 5 , \"input_tokens\":9 } ";
	/* what every shape that carries fields shows of them (usage and model aside) */
	static const char kept[] =
	    "\"nested\":{\"a\":[1,{\"b\":\"x\xc3\xa9/\"}]},"
	    "\"s\":\"q\\\"\\\\\\n\\u0001\",\"big\":12345678901234567890,\"h\":1e400,"
	    "\"z\":-0,\"f\":1.50,\"d\":1,\"d\":2";
	static const hm_shape shapes[] = {
		HM_TO_MESSAGES, HM_TO_EVENTS, HM_TO_CHAT_STREAM, HM_TO_RESPONSES,
		HM_TO_RESPONSES_STREAM, HM_TO_STATS, HM_TO_CHAT_COMPLETION, HM_TO_ANTHROPIC,
		HM_TO_ANTHROPIC_STREAM,
	};
	hm_buf a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 }, fa = { 0 }, fb = { 0 }, idm = { 0 };
	size_t i, k;

	for (k = 0; k < sizeof ids / sizeof ids[0]; k++) {
		fa.len = fb.len = idm.len = 0;
		hm_buf_adds(&fa, "\"id\":");
		hm_buf_adds(&fa, ids[k][0]);
		hm_buf_adds(&fa, ",");
		hm_buf_adds(&fa, rest_c);
		hm_buf_adds(&fb, " \"id\" :");
		hm_buf_adds(&fb, ids[k][1]);
		hm_buf_adds(&fb, ",");
		hm_buf_adds(&fb, rest_o);
		hm_buf_adds(&idm, "\"id\":");
		hm_buf_adds(&idm, ids[k][0]);
		for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
			hm_shape sh = shapes[i];
			int own = sh == HM_TO_RESPONSES || sh == HM_TO_CHAT_COMPLETION ||
			    sh == HM_TO_ANTHROPIC || sh == HM_TO_ANTHROPIC_STREAM ||
			    sh == HM_TO_RESPONSES_STREAM;

			run(sh, fa.p, 0, &a);
			run(sh, fa.p, 1, &b);
			run(sh, fb.p, 0, &c);
			run(sh, fb.p, 1, &d);
			CHECK_MSG(a.len && !strcmp(a.p, b.p) && !strcmp(a.p, c.p) && !strcmp(a.p, d.p),
			    "shape %zu id %s:\n%s\n---\n%s", i, ids[k][0], a.p, c.p);
			/* the members in the carried form: once, or with every event */
			CHECK_MSG(sh == HM_TO_EVENTS ? count(a.p, kept) == count(a.p, "\n") :
			    count(a.p, kept) == 1, "shape %zu id %s: %s", i, ids[k][0], a.p);
			/* the record's own model and usage win, written once, in the shape's place */
			if (sh == HM_TO_RESPONSES || sh == HM_TO_CHAT_COMPLETION || sh == HM_TO_ANTHROPIC) {
				CHECK_MSG(count(a.p, "\"model\":\"m\"") == 1 && !strstr(a.p, "gpt-oss"),
				    "shape %zu: %s", i, a.p);
				CHECK_MSG(!strstr(a.p, "\"input_tokens\":9"), "shape %zu: %s", i, a.p);
			} else if (!own) {
				CHECK_MSG(strstr(a.p, "\"model\":\"m\""), "shape %zu: %s", i, a.p);
			}
			/* the carried id names the object */
			if (sh == HM_TO_CHAT_STREAM)
				CHECK_MSG(every_chunk_names(a.p, idm.p), "chat-stream id %s: %s",
				    ids[k][0], a.p);
			else
				CHECK_MSG(strstr(a.p, idm.p) != NULL, "shape %zu: %s", i, a.p);
		}
		/* Anthropic's input tokens: the first of a repeated count. */
		run(HM_TO_ANTHROPIC, fb.p, 0, &a);
		CHECK_MSG(strstr(a.p, "\"usage\":{\"input_tokens\":5,") != NULL, "%s", a.p);
	}
	/* Text that is not object members is carried as it is. */
	run(HM_TO_MESSAGES, "1, 2", 0, &a);
	CHECK_MSG(!strncmp(a.p, "{1, 2,\"messages\"", 16), "%s", a.p);
	hm_buf_free(&a);
	hm_buf_free(&b);
	hm_buf_free(&c);
	hm_buf_free(&d);
	hm_buf_free(&fa);
	hm_buf_free(&fb);
	hm_buf_free(&idm);
	return UNIT_DONE("carried");
}
