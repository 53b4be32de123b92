/*
 * test_grammar - hm_grammar_from_request: its options and errors, and
 * every allocation failing in turn (as test_faults does for the other
 * calls): each run gives the undisturbed grammar or HM_ENOMEM.  What the
 * grammars accept is checked by real engines (tests/bats/grammar.bats).
 */
#include "harmony.h"
#include "unit.h"

#if defined(__SANITIZE_ADDRESS__)
#define HM_NO_FAULTS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HM_NO_FAULTS 1
#endif
#endif

static long calls, fail_at = -1;
static int persistent;

static int
fails(void)
{
	calls++;
	return calls == fail_at || (persistent && fail_at > 0 && calls > fail_at);
}

#ifndef HM_NO_FAULTS
#include "../faults/allocator.h"
#endif

/* Tools with nesting, $ref recursion, a pattern and bounds, and a response format. */
static const char request[] =
    "{\"model\":\"gpt-oss-20b\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
    "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":"
    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\",\"items\":"
    "{\"type\":\"string\",\"pattern\":\"^[a-z](x|y)+\\\\d{2,3}$\"},\"maxItems\":2},"
    "\"n\":{\"$ref\":\"#/$defs/n\"},\"e\":{\"enum\":[1,\"b\",null]}},\"required\":[\"a\"],"
    "\"additionalProperties\":false,\"$defs\":{\"n\":{\"type\":\"object\",\"properties\":"
    "{\"c\":{\"anyOf\":[{\"$ref\":\"#/$defs/n\"},{\"type\":\"null\"}]}}}}}}},"
    "{\"type\":\"function\",\"function\":{\"name\":\"g\"}}],"
    "\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"r\",\"schema\":"
    "{\"type\":\"object\",\"properties\":{\"k\":{\"type\":\"integer\",\"minimum\":0}}}}}}";

static hm_status
run(hm_grammar_form form, const char *tc, char **out, size_t *n)
{
	hm_grammar_opts o = HM_GRAMMAR_OPTS_INIT;
	hm_error e;

	o.form = form;
	o.tool_choice = tc;
	o.python = 1;
	return hm_grammar_from_request(request, sizeof request - 1, &o, out, n, &e);
}

static void
sweep(hm_grammar_form form, const char *tc)
{
	char *want = NULL, *got;
	size_t wn = 0, gn, k, total;
	long bad = 0;
	hm_status st;
	int mode;

	fail_at = -1;
	calls = 0;
	st = run(form, tc, &want, &wn);
	total = (size_t)calls;
	CHECK_MSG(st == HM_OK && want && wn > 0, "%s %s: the undisturbed run failed (%d)",
	    hm_grammar_form_name(form), tc, (int)st);
	if (st != HM_OK)
		return;
#ifndef HM_NO_FAULTS
	CHECK_MSG(total > 20, "%s: only %zu allocations counted", hm_grammar_form_name(form), total);
	for (mode = 0; mode < 2; mode++) {
		persistent = mode;
		for (k = 1; k <= total; k++) {
			got = NULL;
			calls = 0;
			fail_at = (long)k;
			st = run(form, tc, &got, &gn);
			fail_at = -1;
			if (st == HM_ENOMEM && !got)
				continue;
			if (st == HM_OK && gn == wn && !memcmp(got, want, wn)) {
				free(got);
				continue;
			}
			if (bad++ < 3)
				fprintf(stderr, "%s %s: allocation %zu of %zu failing%s: status %d\n",
				    hm_grammar_form_name(form), tc, k, total, mode ? " (and after)" : "", (int)st);
			free(got);
		}
	}
#else
	(void)mode;
	(void)k;
	(void)got;
	(void)gn;
#endif
	CHECK_MSG(bad == 0, "%s %s: %ld runs neither undisturbed nor out of memory",
	    hm_grammar_form_name(form), tc, bad);
	free(want);
}

int
main(void)
{
	hm_grammar_opts o = HM_GRAMMAR_OPTS_INIT, z;
	hm_error e;
	char *out = (char *)1;
	size_t n = 9;
	int f;

	/* names */
	CHECK(!strcmp(hm_grammar_form_name(HM_GRAMMAR_STRUCTURAL_TAG), "structural-tag"));
	CHECK(hm_grammar_form_from_name("gbnf") == HM_GRAMMAR_GBNF);
	/* options without their size, an unknown form */
	memset(&z, 0, sizeof z);
	CHECK(hm_grammar_from_request(request, sizeof request - 1, &z, &out, &n, &e) == HM_EINPUT);
	CHECK(out == NULL && n == 0);
	o.form = (hm_grammar_form)9;
	CHECK(hm_grammar_from_request(request, sizeof request - 1, &o, &out, &n, &e) == HM_EINPUT);
	/* a request that is not JSON: its reader's error */
	CHECK(hm_grammar_from_request("{", 1, NULL, &out, &n, &e) == HM_EINPUT && e.msg[0]);
	/* a named tool the request lacks; required without tools */
	o.form = HM_GRAMMAR_EBNF;
	o.tool_choice = "{\"type\":\"tool\",\"name\":\"h\"}";
	CHECK(hm_grammar_from_request(request, sizeof request - 1, &o, &out, &n, &e) == HM_EINPUT);
	CHECK(!strcmp(e.msg, "tool_choice: tool 'h' is not among the request's tools"));
	o.tool_choice = "required";
	CHECK(hm_grammar_from_request("{\"messages\":[]}", 15, &o, &out, &n, NULL) == HM_EINPUT);
	/* the default: EBNF, rules for the final's schema and both tools */
	CHECK(hm_grammar_from_request(request, sizeof request - 1, NULL, &out, &n, &e) == HM_OK);
	CHECK(out && n == strlen(out) && !strncmp(out, "# harmony-tools grammar (xgrammar EBNF)", 39));
	CHECK(out && strstr(out, "\" to=functions.g\"") && strstr(out, "\"\\\"k\\\"\""));
	free(out);
	/* an object without properties, an empty schema, true and false */
	for (f = 0; f < 4; f++) {
		static const char *const params[] = {"{\"type\":\"object\"}", "{}", "true", "false"};
		char req[300];

		snprintf(req, sizeof req, "{\"messages\":[],\"tools\":[{\"type\":\"function\","
		    "\"function\":{\"name\":\"f\",\"parameters\":%s}}]}", params[f]);
		o.tool_choice = NULL;
		out = NULL;
		CHECK_MSG(hm_grammar_from_request(req, strlen(req), &o, &out, &n, &e) == HM_OK && out,
		    "parameters %s: %s", params[f], e.msg);
		free(out);
	}
	/* every allocation failing in turn, each form, two tool_choices */
	for (f = HM_GRAMMAR_STRUCTURAL_TAG; f <= HM_GRAMMAR_LARK; f++) {
		sweep((hm_grammar_form)f, "auto");
		sweep((hm_grammar_form)f, "{\"type\":\"allowed_tools\",\"mode\":\"required\","
		    "\"tools\":[{\"type\":\"function\",\"name\":\"f\"},{\"type\":\"code_interpreter\"}]}");
	}
	return UNIT_DONE("test_grammar");
}
