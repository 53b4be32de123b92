/*
 * test_tool_choice - the tool_choice reader (tool_choice.c): every
 * dialect's shape, which calls each allows and whether it asks for one,
 * a record's carried member or request.tool_choice, and the errors.
 */
#include <string.h>

#include "harmony.h"
#include "unit.h"

/* tc read from s; NULL (and a failed check) when it is not read. */
static hm_tool_choice *
read_tc(const char *s)
{
	hm_tool_choice *tc = NULL;
	hm_error e;
	hm_status st = hm_tool_choice_new(s, strlen(s), &tc, &e);

	CHECK_MSG(st == HM_OK && tc, "%s: %s", s, st == HM_OK ? "" : e.msg);
	return tc;
}

static int
allows(const hm_tool_choice *tc, const char *r)
{
	return hm_tool_choice_allows(tc, r, strlen(r));
}

int
main(void)
{
	hm_tool_choice *tc;
	hm_error e;
	static const char *const bad[] = {
		"sometimes", "{\"type\":\"nonsense\"}", "7", "{\"type\":7}", "{\"x\":1}",
		"{\"type\":\"allowed_tools\"}", "{\"type\":\"allowed_tools\",\"mode\":\"maybe\",\"tools\":[]}",
		"{\"type\":\"function\"}", "{\"bad json",
	};
	size_t i;

	/* auto, as a bare word, a string, Anthropic's, null */
	static const char *const autos[] = { "auto", "\"auto\"", "{\"type\":\"auto\"}", "null" };
	for (i = 0; i < sizeof autos / sizeof autos[0]; i++) {
		if (!(tc = read_tc(autos[i])))
			continue;
		CHECK(allows(tc, "functions.f") && allows(tc, "browser.search") && allows(tc, "python"));
		CHECK(!hm_tool_choice_requires(tc));
		CHECK(!strcmp(hm_tool_choice_describe(tc), "auto"));
		hm_tool_choice_free(tc);
	}
	/* none: no call at all */
	if ((tc = read_tc("{\"type\":\"none\"}"))) {
		CHECK(!allows(tc, "functions.f") && !allows(tc, "python"));
		CHECK(!hm_tool_choice_requires(tc));
		hm_tool_choice_free(tc);
	}
	/* required, any: any call, one needed */
	if ((tc = read_tc("{\"type\":\"any\"}"))) {
		CHECK(allows(tc, "functions.f") && allows(tc, "browser.open"));
		CHECK(hm_tool_choice_requires(tc));
		hm_tool_choice_free(tc);
	}
	/* one function, in Chat's, Responses' and Anthropic's shapes */
	static const char *const named[] = {
		"{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}",
		"{\"type\":\"function\",\"name\":\"get_weather\"}",
		"{\"type\":\"tool\",\"name\":\"get_weather\"}",
	};
	for (i = 0; i < sizeof named / sizeof named[0]; i++) {
		if (!(tc = read_tc(named[i])))
			continue;
		CHECK(allows(tc, "functions.get_weather"));
		CHECK(!allows(tc, "functions.get_weathe") && !allows(tc, "functions.get_weather2"));
		CHECK(!allows(tc, "functions.get_time") && !allows(tc, "get_weather"));
		CHECK(hm_tool_choice_requires(tc));
		CHECK(!strcmp(hm_tool_choice_describe(tc), "functions.get_weather"));
		hm_tool_choice_free(tc);
	}
	/* a hosted type: the built-in's namespace, any of its functions */
	if ((tc = read_tc("{\"type\":\"web_search_preview\"}"))) {
		CHECK(allows(tc, "browser.search") && allows(tc, "browser.open"));
		CHECK(!allows(tc, "browsers.x") && !allows(tc, "python") && !allows(tc, "functions.f"));
		hm_tool_choice_free(tc);
	}
	/* allowed_tools, Chat's nesting (required) and Responses' (auto) */
	if ((tc = read_tc("{\"type\":\"allowed_tools\",\"allowed_tools\":{\"mode\":\"required\","
	    "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"a\"}},{\"type\":\"code_interpreter\"}]}}"))) {
		CHECK(allows(tc, "functions.a") && allows(tc, "python") && !allows(tc, "functions.b"));
		CHECK(hm_tool_choice_requires(tc));
		CHECK(!strcmp(hm_tool_choice_describe(tc), "allowed_tools (required)"));
		hm_tool_choice_free(tc);
	}
	if ((tc = read_tc("{\"type\":\"allowed_tools\",\"mode\":\"auto\",\"tools\":[{\"type\":\"function\",\"name\":\"a\"}]}"))) {
		CHECK(allows(tc, "functions.a") && !allows(tc, "functions.b"));
		CHECK(!hm_tool_choice_requires(tc));
		hm_tool_choice_free(tc);
	}
	/* errors: a message, nothing made */
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		tc = (hm_tool_choice *)&e; /* set to NULL on failure */
		memset(&e, 0, sizeof e);
		CHECK_MSG(hm_tool_choice_new(bad[i], strlen(bad[i]), &tc, &e) == HM_EINPUT, "%s", bad[i]);
		CHECK_MSG(tc == NULL && !strncmp(e.msg, "tool_choice: ", 13), "%s: %s", bad[i], e.msg);
	}
	/* a record's members: tool_choice, else request.tool_choice, else none */
	{
		static const char m1[] = "\"id\":\"x\",\"tool_choice\":\"none\"",
		    m2[] = "\"request\":{\"model\":\"m\",\"tool_choice\":\"required\"}",
		    m3[] = "\"id\":\"tool_choice\",\"meta\":{}", m4[] = "\"tool_choice\":{\"type\":7}",
		    m5[] = "\"tool_choice\":\"auto\",\"request\":{\"tool_choice\":\"none\"}";

		CHECK(hm_tool_choice_from_members(m1, strlen(m1), &tc, &e) == HM_OK && tc &&
		    !allows(tc, "functions.f"));
		hm_tool_choice_free(tc);
		CHECK(hm_tool_choice_from_members(m2, strlen(m2), &tc, &e) == HM_OK && tc &&
		    hm_tool_choice_requires(tc));
		hm_tool_choice_free(tc);
		tc = (hm_tool_choice *)&e;
		CHECK(hm_tool_choice_from_members(m3, strlen(m3), &tc, &e) == HM_OK && tc == NULL);
		tc = (hm_tool_choice *)&e;
		CHECK(hm_tool_choice_from_members("", 0, &tc, &e) == HM_OK && tc == NULL);
		CHECK(hm_tool_choice_from_members(m4, strlen(m4), &tc, &e) == HM_EINPUT && tc == NULL);
		CHECK(hm_tool_choice_from_members(m5, strlen(m5), &tc, &e) == HM_OK && tc &&
		    allows(tc, "functions.f")); /* the record's own first */
		hm_tool_choice_free(tc);
	}
	/* NULL: nothing asked */
	CHECK(allows(NULL, "functions.f") && !hm_tool_choice_requires(NULL));
	hm_tool_choice_free(NULL);
	return UNIT_DONE("tool_choice");
}
