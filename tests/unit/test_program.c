/*
 * test_program - what a program needs from the library and gets without
 * reading message text: the place of a JSON syntax error (line, column,
 * and where the message's own words for them begin), and the role
 * validator.
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

int
main(void)
{
	test_error_place();
	test_role_valid();
	return UNIT_DONE("test_program");
}
