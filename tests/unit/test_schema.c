/* test_schema.c - JSON Schema to TypeScript (spec §3.9) and serde numbers. */
#include <stdlib.h>

#include "harmony.h"
#include "jsonval_int.h"
#include "unit.h"

static int
ts_is(const char *schema, const char *want)
{
	hm_error e;
	size_t n;
	char *t = hm_schema_to_ts(schema, strlen(schema), &n, &e);
	int ok = t && n == strlen(want) && !memcmp(t, want, n);

	if (!ok)
		fprintf(stderr, "schema %s\n  want [%s]\n  got  [%s]\n", schema, want, t ? t : "(null)");
	free(t);
	return ok;
}

static int
num_is(const char *json, const char *want)
{
	hm_buf b = {0};
	hm_jv *v = hm_jv_parse(json, strlen(json), NULL, 0);
	int ok;

	if (!v)
		return 0;
	hm_jv_write(&b, v);
	ok = b.p && !strcmp(b.p, want);
	if (!ok)
		fprintf(stderr, "number %s: want %s got %s\n", json, want, b.p ? b.p : "");
	hm_buf_free(&b);
	hm_jv_free(v);
	return ok;
}

int
main(void)
{
	CHECK(ts_is("{\"type\":\"string\"}", "string"));
	CHECK(ts_is("{}", "any"));
	CHECK(ts_is("{\"anyOf\":[{\"type\":\"string\"}]}", "any"));
	CHECK(ts_is("{\"type\":[\"integer\",\"null\"]}", "number | null"));
	CHECK(ts_is("{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"x\",\"y\"]}}", "\"x\" | \"y\"[]"));
	CHECK(ts_is("{\"type\":\"array\"}", "Array<any>"));
	CHECK(ts_is("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"nullable\":true,\"default\":\"d\"},"
	    "\"b\":{\"type\":\"string\",\"enum\":[\"q\"],\"default\":\"q\"}},\"required\":[\"b\"]}",
	    "{\na?: string | null, // default: \"d\"\nb: \"q\", // default: q\n}"));
	/* The nested-object quirk: description twice, over-indented brace. */
	CHECK(ts_is("{\"type\":\"object\",\"properties\":{\"o\":{\"type\":\"object\",\"description\":\"od\",\"properties\":{\"x\":{\"type\":\"integer\"}}}}}",
	    "{\n// od\no?:     // od\n{\n    x?: number,\n    },\n}"));
	/* Property-level union, from the reference's kitchensink. */
	CHECK(ts_is("{\"type\":\"object\",\"properties\":{\"u\":{\"oneOf\":[{\"type\":\"string\",\"default\":\"s\"},{\"type\":\"number\",\"description\":\"n\"}],\"description\":\"a oneof\",\"default\":20}}}",
	    "{\n// a oneof\n// default: 20\nu?:\n | string // default: \"s\"\n | number // n\n,\n}"));
	/* Top-level union: DEF_A quotes an enum variant's string default. */
	CHECK(ts_is("{\"oneOf\":[{\"type\":\"string\",\"enum\":[\"a\"],\"default\":\"a\"},{\"type\":\"number\",\"default\":3}]}",
	    "\n | \"a\" // default: \"a\"\n | number // default: 3"));

	CHECK(num_is("10", "10"));
	CHECK(num_is("10.0", "10.0"));
	CHECK(num_is("1.50", "1.5"));
	CHECK(num_is("1e21", "1e21"));
	CHECK(num_is("1e+21", "1e21"));
	CHECK(num_is("1.5e-07", "1.5e-7"));
	CHECK(num_is("0.0001", "0.0001"));
	CHECK(num_is("-0", "-0.0"));
	CHECK(num_is("-0.0", "-0.0"));
	CHECK(num_is("12345678901234567890123", "1.2345678901234568e22"));
	CHECK(num_is("18446744073709551615", "18446744073709551615"));
	CHECK(num_is("-9223372036854775808", "-9223372036854775808"));
	CHECK(num_is("1e15", "1000000000000000.0"));
	CHECK(num_is("1e16", "1e16"));
	CHECK(num_is("\"a\\u0000b\"", "\"a\\u0000b\""));
	CHECK(!hm_jv_parse("\"\\ud800\"", 8, NULL, 0));
	CHECK(!hm_jv_parse("[1,]", 4, NULL, 0));
	return UNIT_DONE("test_schema");
}
