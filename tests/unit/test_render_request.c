/*
 * test_render_request.c - requests and tool definitions read by the
 * library: error lines, warnings through the callback, the shape chosen
 * per JSON value, tool namespaces, and call argument checks.
 */
#include <stdlib.h>

#include "harmony.h"
#include "unit.h"

static char warned[512];
static size_t warned_line, nwarn;

static void
on_warn(void *ctx, size_t line, const char *msg)
{
	(void)ctx;
	snprintf(warned, sizeof warned, "%s", msg);
	warned_line = line;
	nwarn++;
}

/* Read json; the status, with the dialect in *d and the error in *e. */
static hm_status
req(const char *json, hm_dialect from, hm_dialect *d, hm_error *e)
{
	hm_request_opts o;
	hm_request r;
	hm_status st;

	o = (hm_request_opts)HM_REQUEST_OPTS_INIT;
	o.warn = on_warn;
	warned[0] = '\0';
	warned_line = nwarn = 0;
	e->msg[0] = '\0';
	e->line = 99;
	st = hm_request_from_json(json, strlen(json), from, &o, &r, e);
	if (d)
		*d = st == HM_OK ? r.dialect : HM_DIALECT_AUTO;
	if (st == HM_OK)
		hm_request_free(&r);
	return st;
}

static int
dialect_is(const char *json, hm_dialect want)
{
	hm_dialect d;
	hm_error e;

	if (req(json, HM_DIALECT_AUTO, &d, &e) != HM_OK) {
		fprintf(stderr, "%s: %s\n", json, e.msg);
		return 0;
	}
	if (d != want)
		fprintf(stderr, "%s: read as %s\n", json, hm_dialect_name(d));
	return d == want;
}

/* An input error with message want (a prefix) on line `line`. */
static int
error_is(const char *json, hm_dialect from, size_t line, const char *want)
{
	hm_error e;
	int ok = req(json, from, NULL, &e) == HM_EINPUT &&
	    !strncmp(e.msg, want, strlen(want)) && e.line == line;

	if (!ok)
		fprintf(stderr, "%s\n  want %zu: %s\n  got  %zu: %s\n", json, line, want, e.line, e.msg);
	return ok;
}

static int
check_is(const char *schema, const char *args, int n, const char *want)
{
	hm_namespace ns;
	hm_error e;
	int got = -1, ok;

	memset(&ns, 0, sizeof ns);
	if (hm_namespace_add_tool(&ns, "f", 1, "", 0, schema, strlen(schema), &e) == HM_OK) {
		size_t k = 99;
		hm_status st = hm_tool_check(&ns.tools[0], args, strlen(args), &k, &e);

		/* HM_EINPUT exactly when there are problems, and they are counted */
		got = (st == HM_OK && k == 0) || (st == HM_EINPUT && k > 0) ? (int)k : -2;
	}
	ok = got == n && (!n || !strcmp(e.msg, want));
	if (!ok)
		fprintf(stderr, "check %s\n  want %d [%s]\n  got  %d [%s]\n", args, n, want, got,
		    got > 0 ? e.msg : "");
	hm_namespace_free(&ns);
	return ok;
}

int
main(void)
{
	hm_error e;
	hm_dialect d;

	/* The shape, value by value. */
	CHECK(dialect_is("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", HM_DIALECT_HARMONY));
	CHECK(dialect_is("{\"messages\":[{\"role\":\"user\",\"content\":\"q\"},{\"role\":\"assistant\","
	    "\"reasoning_content\":\"r\",\"content\":\"a\"}]}", HM_DIALECT_CHAT));
	CHECK(dialect_is("{\"stream\":true,\"messages\":[]}", HM_DIALECT_CHAT));
	CHECK(dialect_is("{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"q\"}]}]}",
	    HM_DIALECT_CHAT));
	/* Harmony's fields outweigh a text part. */
	CHECK(dialect_is("[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"q\"}]},"
	    "{\"role\":\"assistant\",\"channel\":\"final\",\"content\":\"a\"}]", HM_DIALECT_HARMONY));
	CHECK(dialect_is("{\"model\":\"claude-sonnet-4\",\"max_tokens\":9,\"messages\":[]}", HM_DIALECT_ANTHROPIC));
	CHECK(dialect_is("{\"model\":\"gpt-4o\",\"max_tokens\":9,\"messages\":[]}", HM_DIALECT_CHAT));
	CHECK(dialect_is("{\"anthropic_version\":\"x\",\"messages\":[]}", HM_DIALECT_ANTHROPIC));
	CHECK(dialect_is("{\"metadata\":{\"user_id\":\"u\"},\"messages\":[]}", HM_DIALECT_ANTHROPIC));
	CHECK(dialect_is("{\"top_k\":5,\"messages\":[]}", HM_DIALECT_ANTHROPIC));
	/* vLLM takes top_k in Chat requests too. */
	CHECK(dialect_is("{\"top_k\":5,\"messages\":[{\"role\":\"tool\",\"tool_call_id\":\"x\",\"name\":\"f\",\"content\":\"1\"}]}",
	    HM_DIALECT_CHAT));
	CHECK(dialect_is("{\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":99},\"messages\":[]}", HM_DIALECT_ANTHROPIC));
	CHECK(dialect_is("{\"thinking\":{\"type\":\"enabled\"},\"seed\":1,\"messages\":[]}", HM_DIALECT_CHAT));
	CHECK(dialect_is("[{\"type\":\"function_call\",\"call_id\":\"c\",\"name\":\"f\",\"arguments\":\"{}\"}]",
	    HM_DIALECT_RESPONSES));
	CHECK(dialect_is("{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}",
	    HM_DIALECT_CHAT));
	CHECK(error_is("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"channel\":\"x\",\"content\":\"a\"}]}",
	    HM_DIALECT_AUTO, 1, "the request mixes Harmony fields (messages[0].channel) with Chat fields (model)"));
	CHECK(error_is("{\"system\":\"s\",\"messages\":[{\"role\":\"assistant\",\"tool_calls\":[]}]}",
	    HM_DIALECT_AUTO, 1, "the request mixes Anthropic fields (system) with Chat fields (messages[0].tool_calls)"));
	/* Several values: Harmony messages in a row, never requests. */
	CHECK(req("[{\"role\":\"user\",\"content\":\"a\"}]\n{\"role\":\"user\",\"content\":\"b\"}",
	    HM_DIALECT_AUTO, &d, &e) == HM_OK && d == HM_DIALECT_HARMONY);
	CHECK(error_is("{\"model\":\"m\",\"messages\":[]}\n\n{\"model\":\"m\",\"messages\":[]}", HM_DIALECT_AUTO, 3,
	    "a second JSON value after a chat request"));
	CHECK(error_is("[{\"role\":\"user\",\"content\":\"a\"}]\n{\"model\":\"m\",\"messages\":[]}", HM_DIALECT_AUTO, 2,
	    "a chat request after Harmony messages"));
	CHECK(error_is("{\"messages\":[]}\n{\"messages\":[]}", HM_DIALECT_CHAT, 2, "a second JSON value after a chat request"));

	/* Errors carry the line of the value at fault. */
	CHECK(error_is("{\"model\":\"m\",\n\"messages\":[\n{\"role\":\"user\",\"content\":\"a\"},\n{\"role\":\"bogus\"}]}",
	    HM_DIALECT_AUTO, 4, "messages[1]: unknown role 'bogus'"));
	CHECK(error_is("{\"model\":\"m\",\n\"messages\":[\n{\"role\":\"user\" \"x\"}]}", HM_DIALECT_AUTO, 3,
	    "expected `,` or `}` at line 3 column 16"));
	CHECK(error_is("[\n{\"role\":\"user\",\"content\":\"a\"},\n{\"role\":\"User\",\"content\":\"b\"}]", HM_DIALECT_AUTO, 3,
	    "messages[1]: unknown variant `User`"));
	CHECK(error_is("{\"input\":[\n{\"role\":\"user\",\"content\":[\n{\"type\":\"input_image\"}]}]}", HM_DIALECT_AUTO, 3,
	    "input[0].content[0]: unsupported content part type 'input_image'"));
	CHECK(error_is("{\"system\":\"s\",\"messages\":[{\"role\":\"user\",\"content\":[\n{\"type\":\"image\"}]}]}",
	    HM_DIALECT_AUTO, 2, "messages[0].content[0]: unsupported user block type 'image'"));

	/* Efforts: the APIs' lower-case words, else an error naming the field. */
	CHECK(error_is("{\"model\":\"m\",\"reasoning_effort\":\"High\",\"messages\":[]}", HM_DIALECT_AUTO, 1,
	    "reasoning_effort: 'High' is not a reasoning effort"));
	CHECK(error_is("{\"model\":\"m\",\"reasoning_effort\":2,\"messages\":[]}", HM_DIALECT_AUTO, 1,
	    "reasoning_effort: must be a string"));
	CHECK(error_is("{\"input\":\"x\",\n\"reasoning\":{\"effort\":\"bogus\"}}", HM_DIALECT_AUTO, 2,
	    "reasoning.effort: 'bogus' is not a reasoning effort"));
	CHECK(error_is("{\"system\":\"s\",\"temperature\":\"hot\",\"messages\":[]}", HM_DIALECT_AUTO, 1,
	    "temperature: must be a number, not a string"));
	CHECK(error_is("{\"system\":\"s\",\"temperature\":-1,\"messages\":[]}", HM_DIALECT_AUTO, 1,
	    "temperature: must be 0 or more"));
	CHECK(req("{\"model\":\"m\",\"reasoning_effort\":null,\"messages\":[]}", HM_DIALECT_AUTO, &d, &e) == HM_OK);

	/* Fields that would be lost are errors. */
	CHECK(error_is("{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"reasoning_content\":[\"r\"],\"content\":\"a\"}]}",
	    HM_DIALECT_AUTO, 1, "messages[0].reasoning_content: must be a string, not a list"));
	CHECK(error_is("{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"reasoning_content\":\"a\",\"reasoning\":\"b\"}]}",
	    HM_DIALECT_AUTO, 1, "messages[0]: `reasoning_content` and `reasoning` hold different text"));
	CHECK(req("{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"reasoning_content\":\"a\",\"reasoning\":\"a\"}]}",
	    HM_DIALECT_AUTO, &d, &e) == HM_OK);
	CHECK(error_is("{\"model\":\"m\",\"messages\":[{\"role\":\"assistant\",\"refusal\":1}]}", HM_DIALECT_AUTO, 1,
	    "messages[0].refusal: must be a string, not a number"));
	CHECK(error_is("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"name\":[],\"content\":\"x\"}]}", HM_DIALECT_AUTO, 1,
	    "messages[0].name: must be a string, not a list"));

	/* Warnings come through the callback with their line. */
	CHECK(req("{\"system\":\"s\",\"tools\":[\n{\"name\":\"f\",\"inputSchema\":{}}],\"messages\":[]}",
	    HM_DIALECT_AUTO, &d, &e) == HM_OK && d == HM_DIALECT_ANTHROPIC && nwarn == 1 && warned_line == 2 &&
	    !strcmp(warned, "tools[0]: tool 'f': schema read from `inputSchema` (this shape's key is `input_schema`)"));
	CHECK(req("{\"input\":[{\"type\":\"reasoning\",\"encrypted_content\":\"x\",\"summary\":[]}]}",
	    HM_DIALECT_AUTO, &d, &e) == HM_OK && nwarn == 1 &&
	    !strcmp(warned, "input[0]: reasoning item with no readable text (only encrypted_content) left out"));

	/* Tool namespaces: the input's name and description, or the caller's name. */
	{
		static const char nsjson[] = "{\"name\":\"myns\",\"description\":\"NS desc\",\"tools\":[{\"name\":\"f\",\"description\":\"d\"}]}";
		hm_tools_read_opts o;
		hm_namespace ns;
		char *t;

		o = (hm_tools_read_opts)HM_TOOLS_READ_OPTS_INIT;
		o.warn = on_warn;
		memset(&ns, 0, sizeof ns);
		nwarn = 0;
		CHECK(hm_tools_read(nsjson, strlen(nsjson), &o, &ns, &e) == HM_OK);
		t = hm_render_namespace(&ns, NULL);
		CHECK(t && !strcmp(t, "## myns\n\n// NS desc\nnamespace myns {\n\n// d\ntype f = () => any;\n\n} // namespace myns"));
		free(t);
		/* A second file with another name: a warning, the first name stays. */
		CHECK(hm_tools_read("{\"name\":\"b\",\"tools\":[]}", 23, &o, &ns, &e) == HM_OK && nwarn == 1 &&
		    !strcmp(ns.name.p, "myns") && !strcmp(warned, "namespace 'b': its tools go into namespace 'myns'"));
		/* A bad file leaves the namespace as it was. */
		CHECK(hm_tools_read("[{\"name\":\"g\"},\n3]", 17, &o, &ns, &e) == HM_EINPUT && e.line == 2 &&
		    !strcmp(e.msg, "[1]: must be an object, not a number") && ns.ntools == 1);
		hm_namespace_free(&ns);
		memset(&ns, 0, sizeof ns);
		hm_str_set(&ns.name, "other", 5);
		o.name_given = 1;
		nwarn = 0;
		CHECK(hm_tools_read(nsjson, strlen(nsjson), &o, &ns, &e) == HM_OK && nwarn == 0 &&
		    !strcmp(ns.name.p, "other") && !strcmp(ns.description.p, "NS desc"));
		hm_namespace_free(&ns);
	}

	/* Call arguments against the schema, nested and with any JSON number. */
	{
		static const char s[] = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"},"
		    "\"addr\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
		    "\"geo\":{\"type\":\"object\",\"properties\":{\"lat\":{\"type\":\"number\"}},\"required\":[\"lat\"]}},"
		    "\"required\":[\"city\"]},\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
		    "\"rows\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"integer\"}}}}},"
		    "\"required\":[\"n\"]}";

		CHECK(check_is(s, "{\"n\":1}", 0, ""));
		CHECK(check_is(s, "{\"n\":1e400}", 0, ""));
		CHECK(check_is(s, "{\"n\":1.0e2}", 0, ""));
		CHECK(check_is(s, "{\"n\":150e-2}", 1, "/n: type: expected integer, got number"));
		CHECK(check_is(s, "{\"n\":1e-400}", 1, "/n: type: expected integer, got number"));
		CHECK(check_is(s, "{\"n\":0.000e-9}", 0, ""));
		CHECK(check_is(s, "{\"n\":1,\"addr\":{\"geo\":{\"lat\":\"x\"}}}", 2,
		    "/addr: required: missing property \"city\"; /addr/geo/lat: type: expected number, got string"));
		CHECK(check_is(s, "{\"n\":1,\"addr\":{\"city\":\"c\",\"geo\":{}}}", 1, "/addr/geo: required: missing property \"lat\""));
		CHECK(check_is(s, "{\"n\":1,\"tags\":[\"a\",2,\"c\",false]}", 2,
		    "/tags/1: type: expected string, got integer; "
		    "/tags/3: type: expected string, got boolean"));
		CHECK(check_is(s, "{\"n\":1,\"rows\":[{\"q\":1},{\"q\":0.5}]}", 1,
		    "/rows/1/q: type: expected integer, got number"));
		CHECK(check_is(s, "[1]", 1, "(root): type: expected object, got array"));
		CHECK(check_is(s, "{\"n\":", 1, "arguments are not JSON: EOF while parsing a value at line 1 column 6"));
		CHECK(check_is(s, "{\"tags\":[1,2,3,4,5,6]}", 7,
		    "(root): required: missing property \"n\"; /tags/0: type: expected string, got integer; "
		    "/tags/1: type: expected string, got integer; "
		    "/tags/2: type: expected string, got integer; ..."));
	}
	return UNIT_DONE("test_render_request");
}
