/*
 * test_program - what a program needs from the library and gets without
 * reading message text: the place of a JSON syntax error (line, column,
 * and where the message's own words for them begin), the role
 * validator, and reading what harmony-parse --from auto reads: telling
 * the input's kind, cutting it into records (the same records at every
 * split of the bytes), splitting an array of objects.
 */
#include <stdio.h>
#include <string.h>

#include "harmony.h"
#include "unit.h"

static void
test_error_place(void)
{
	static const char bad[] = "{\"messages\":\n [1,,]}";
	static const char sem[] = "{\"messages\": 3}";
	hm_request r;
	hm_error e;
	size_t k;

	memset(&e, 0xA5, sizeof e);
	CHECK(hm_request_from_json(bad, strlen(bad), HM_DIALECT_AUTO, NULL, &r, &e) == HM_EINPUT);
	CHECK(e.line == 2 && e.col == 5);
	k = hm_error_place(&e);
	CHECK_MSG(k == strlen("expected value"), "%zu in \"%s\"", k, e.msg);
	CHECK(!strcmp(e.msg + k, " at line 2 column 5"));

	/* not a syntax error: no column, nothing to cut */
	memset(&e, 0xA5, sizeof e);
	CHECK(hm_request_from_json(sem, strlen(sem), HM_DIALECT_HARMONY, NULL, &r, &e) == HM_EINPUT);
	CHECK(e.col == 0);
	CHECK(hm_error_place(&e) == strlen(e.msg));

	/* words that look like a place but are not e's own */
	memset(&e, 0, sizeof e);
	snprintf(e.msg, sizeof e.msg, "arguments are not JSON: x at line 1 column 6");
	CHECK(hm_error_place(&e) == strlen(e.msg));
	e.line = 1;
	e.col = 7;
	CHECK(hm_error_place(&e) == strlen(e.msg));
	e.col = 6;
	CHECK(hm_error_place(&e) == strlen("arguments are not JSON: x"));
}

static void
test_role_valid(void)
{
	static const char *const good[] = { "user", "assistant", "system", "developer", "tool",
	    "none", "auto" };
	static const char *const bad[] = { "", "Assistant", "assistant ", "bot", "functions.f" };
	size_t i;

	CHECK(hm_parser_role_valid(NULL));
	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		hm_parser *p = hm_parser_new(good[i], 0);

		CHECK_MSG(hm_parser_role_valid(good[i]), "%s", good[i]);
		CHECK(p != NULL);
		hm_parser_free(p);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK_MSG(!hm_parser_role_valid(bad[i]), "%s", bad[i]);
		CHECK(hm_parser_new(bad[i], 0) == NULL);
	}
}

static void
test_detect(void)
{
	static const struct {
		const char *s;
		unsigned flags;
		hm_input want;
	} t[] = {
		{ "1 2 3", HM_DETECT_END, HM_INPUT_IDS },
		{ "1 2 3", 0, HM_INPUT_MORE },          /* the line may go on as text */
		{ "1 2 3\nx", 0, HM_INPUT_IDS },        /* the first line tells */
		{ "1, 2,\t3\n", 0, HM_INPUT_IDS },
		{ "1 2 3", HM_DETECT_END | HM_DETECT_LINES, HM_INPUT_RECORDS },
		{ " [1, 2]", 0, HM_INPUT_MORE },
		{ " [1, 2]\n", 0, HM_INPUT_RECORDS },
		{ "{", 0, HM_INPUT_RECORDS },
		{ "\n\n  {\"tokens\":[1]}", 0, HM_INPUT_RECORDS },
		{ "data: {}\n\n", 0, HM_INPUT_SSE },
		{ ": keep-alive\n", 0, HM_INPUT_SSE },
		{ "dat", 0, HM_INPUT_MORE },
		{ "dat", HM_DETECT_END, HM_INPUT_TEXT },
		{ "date: today", 0, HM_INPUT_TEXT },
		{ "<|channel|>final<|message|>Hi", 0, HM_INPUT_TEXT },
		{ "12 apples", 0, HM_INPUT_TEXT },
		{ "[]", HM_DETECT_END, HM_INPUT_RECORDS },
		{ ", ,", HM_DETECT_END, HM_INPUT_TEXT },  /* no id at all */
		{ " \n\t", 0, HM_INPUT_MORE },
		{ " \n\t", HM_DETECT_END, HM_INPUT_EMPTY },
		{ "", HM_DETECT_END, HM_INPUT_EMPTY },
		/* --from ids, --from text */
		{ "data: 1", HM_DETECT_IDS, HM_INPUT_IDS },
		{ "[1]", HM_DETECT_IDS, HM_INPUT_RECORDS },
		{ "hello", HM_DETECT_IDS | HM_DETECT_LINES, HM_INPUT_RECORDS },
		{ "1 2 3", HM_DETECT_TEXT, HM_INPUT_TEXT },
		{ "{\"a\":1}", HM_DETECT_TEXT, HM_INPUT_TEXT },
		{ " ", HM_DETECT_TEXT, HM_INPUT_TEXT },
		{ " ", HM_DETECT_TEXT | HM_DETECT_END, HM_INPUT_EMPTY },
	};
	size_t i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		hm_input k = hm_input_detect(t[i].s, strlen(t[i].s), t[i].flags);

		CHECK_MSG(k == t[i].want, "\"%s\" 0x%x: %d, want %d", t[i].s, t[i].flags, k, t[i].want);
	}
}

/* Every frame of s fed in pieces of at most `piece` bytes, as text into out. */
static void
frame_all(const char *s, unsigned flags, size_t piece, char *out, size_t cap)
{
	hm_framer *f = hm_framer_new(flags);
	size_t n = strlen(s), at = 0, used = 0;
	hm_frame fr;
	int r;

	out[0] = '\0';
	if (!f)
		return;
	for (;;) {
		size_t k = n - at < piece ? n - at : piece;

		if (k)
			hm_framer_feed(f, s + at, k);
		else
			hm_framer_finish(f);
		at += k;
		while ((r = hm_framer_next(f, &fr)) > 0 && used < cap)
			used += (size_t)snprintf(out + used, cap - used, "%d@%zu-%zu[%.*s|%.*s]",
			    (int)fr.type, fr.line, fr.last, (int)fr.len, fr.p ? fr.p : "",
			    (int)fr.rest_len, fr.rest ? fr.rest : "");
		CHECK(r == 0);
		if (!k)
			break;
	}
	hm_framer_free(f);
}

static void
test_framer(void)
{
	static const char recs[] =
	    "1 2 3\n"
	    "\n"
	    "  {\"tokens\":[1]}  \n"
	    "[1,\n"
	    " 2]\n"
	    "{\"a\":\"}\",\n"
	    "\"tokens\":[3]} x\n"
	    "[{\"a\":1}, {\"b\":2}]\n"
	    "{\"open\":\n"
	    "[4";
	static const char want[] =
	    "1@1-1[1 2 3|]"
	    "2@3-3[{\"tokens\":[1]}  |]"
	    "2@4-5[[1,\n 2]|]"
	    "3@6-7[{\"a\":\"}\",\n\"tokens\":[3]}|x]"
	    "2@8-8[[{\"a\":1}, {\"b\":2}]|]"
	    /* a '[' in the first column begins a record: the one open is cut */
	    "4@9-9[{\"open\":\n|[4]"
	    "4@10-10[[4\n|]";
	/*
	 * Cut records: each costs itself only.  A line cut inside a string or
	 * a number, then records; a pretty record (what it nests indented);
	 * a batch whose objects stand a line each in the first column.
	 */
	static const char cuts[] =
	    "{\"text\":\"hel\n"
	    "  \"more\"}\n"
	    "{\"tokens\":[1,2\n"
	    "{\"tokens\":[3]}\n"
	    "\n"
	    "{\n"
	    "  \"tokens\": [\n"
	    "    4\n"
	    "  ],\n"
	    "  \"x\": {\"y\": [1]}\n"
	    "}\n"
	    "[\n"
	    "{\"a\":1},\n"
	    "{\"b\":2}\n"
	    "]\n"
	    "[6,7\n"
	    "[8]\n"
	    "{\"tokens\":[5,";
	static const char cuts_want[] =
	    "4@1-1[{\"text\":\"hel\n|  \"more\"}]"
	    "1@2-2[  \"more\"}|]"
	    "4@3-3[{\"tokens\":[1,2\n|{\"tokens\":[3]}]"
	    "2@4-4[{\"tokens\":[3]}|]"
	    "2@6-11[{\n  \"tokens\": [\n    4\n  ],\n  \"x\": {\"y\": [1]}\n}|]"
	    "2@12-15[[\n{\"a\":1},\n{\"b\":2}\n]|]"
	    "4@16-16[[6,7\n|[8]]"
	    "2@17-17[[8]|]"
	    "4@18-18[{\"tokens\":[5,\n|]";
	static const char text[] = "a\n\n{\"b\":\n";
	char got[1024], first[1024];
	size_t piece;

	frame_all(recs, 0, sizeof recs, first, sizeof first);
	CHECK_MSG(!strcmp(first, want), "%s", first);
	/* any split of the bytes gives the same records */
	for (piece = 1; piece < sizeof recs; piece++) {
		frame_all(recs, 0, piece, got, sizeof got);
		CHECK_MSG(!strcmp(got, want), "pieces of %zu: %s", piece, got);
	}
	for (piece = 1; piece <= sizeof cuts; piece++) {
		frame_all(cuts, 0, piece, got, sizeof got);
		CHECK_MSG(!strcmp(got, cuts_want), "cuts, pieces of %zu: %s", piece, got);
	}
	/* text: each line a record, blank or not, nothing joined */
	frame_all(text, HM_FRAMER_TEXT, 3, got, sizeof got);
	CHECK_MSG(!strcmp(got, "1@1-1[a|]1@2-2[|]1@3-3[{\"b\":|]"), "%s", got);
}

static void
test_framer_files(void)
{
	hm_framer *f = hm_framer_new(0);
	hm_frame fr;

	if (!f)
		return;
	/* a last line without its newline; line numbers again from 1 after a finish */
	hm_framer_feed(f, "1\n2", 3);
	CHECK(hm_framer_next(f, &fr) == 1 && fr.type == HM_FRAME_LINE && fr.line == 1);
	CHECK(hm_framer_next(f, &fr) == 0);
	hm_framer_finish(f);
	CHECK(hm_framer_next(f, &fr) == 1 && fr.line == 2 && fr.len == 1 && fr.p[0] == '2');
	CHECK(hm_framer_next(f, &fr) == 0);
	hm_framer_feed(f, "3\n", 2);
	CHECK(hm_framer_next(f, &fr) == 1 && fr.line == 1 && fr.p[0] == '3');
	CHECK(hm_framer_next(f, &fr) == 0);
	hm_framer_free(f);
}

static void
test_array(void)
{
	static const char s[] = "[{\"a\":\"}]\"},\n {\"b\":[1,\n2]}, 3]";
	size_t pos = 0, at, len, nl = 0;

	CHECK(hm_json_array_is_objects(s, strlen(s)));
	CHECK(hm_json_array_is_objects("[ \n{", 4));
	CHECK(!hm_json_array_is_objects("[1, {}]", 7));
	CHECK(!hm_json_array_is_objects("[", 1));
	CHECK(hm_json_array_next(s, strlen(s), &pos, &at, &len, &nl) == 1);
	CHECK(len == 10 && !memcmp(s + at, "{\"a\":\"}]\"}", len) && nl == 0);
	CHECK(hm_json_array_next(s, strlen(s), &pos, &at, &len, &nl) == 1);
	CHECK(!memcmp(s + at, "{\"b\":[1,\n2]}", len) && nl == 2);
	CHECK(hm_json_array_next(s, strlen(s), &pos, &at, &len, &nl) == 0);
}

int
main(void)
{
	test_detect();
	test_framer();
	test_framer_files();
	test_array();
	test_error_place();
	test_role_valid();
	return UNIT_DONE("test_program");
}
