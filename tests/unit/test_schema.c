/* test_schema.c - JSON Schema to TypeScript (spec §3.9), serde numbers, --pretty JSON. */
#include <stdlib.h>

#include "harmony.h"
#include "json_val_int.h"
#include "unit.h"

static int
ts_is(const char *schema, const char *want)
{
	hm_error e;
	size_t n;
	char *t = NULL;
	int ok = hm_schema_to_ts(schema, strlen(schema), &t, &n, &e) == HM_OK &&
	    n == strlen(want) && !memcmp(t, want, n);

	if (!ok)
		fprintf(stderr, "schema %s\n  want [%s]\n  got  [%s]\n", schema, want, t ? t : "(null)");
	free(t);
	return ok;
}

static int
num_is(const char *json, const char *want)
{
	hm_buf b = {0};
	hm_jv *v = hm__jv_parse(json, strlen(json), NULL, 0);
	int ok;

	if (!v)
		return 0;
	hm__jv_write(&b, v);
	ok = b.p && !strcmp(b.p, want);
	if (!ok)
		fprintf(stderr, "number %s: want %s got %s\n", json, want, b.p ? b.p : "");
	hm_buf_free(&b);
	hm__jv_free(v);
	return ok;
}

/* hm_json_pretty(json) is want, and it parses back to the same value. */
static int
pretty_is(const char *json, const char *want)
{
	hm_buf b = {0};
	hm_jv *a, *p;
	int ok;

	hm_json_pretty(&b, json, strlen(json));
	hm_buf_addc(&b, '\0');
	ok = b.p && !strcmp(b.p, want);
	if (!ok)
		fprintf(stderr, "pretty %s\n  want [%s]\n  got  [%s]\n", json, want, b.p ? b.p : "");
	if (ok && (a = hm__jv_parse(json, strlen(json), NULL, 0))) {
		p = hm__jv_parse(b.p, b.len - 1, NULL, 0);
		ok = p && hm__jv_equal(a, p);
		hm__jv_free(p);
		hm__jv_free(a);
	}
	hm_buf_free(&b);
	return ok;
}

/* Many properties, all required: every one written without `?`. */
static int
many_required(size_t n)
{
	hm_buf s = {0}, w = {0};
	size_t i;
	int ok;

	hm_buf_adds(&s, "{\"type\":\"object\",\"properties\":{");
	hm_buf_adds(&w, "{\n");
	for (i = 0; i < n; i++) {
		char k[32];

		snprintf(k, sizeof k, "p%zu", i);
		if (i)
			hm_buf_addc(&s, ',');
		hm_buf_addc(&s, '"');
		hm_buf_adds(&s, k);
		hm_buf_adds(&s, "\":{\"type\":\"string\"}");
		/* Every other one is required. */
		hm_buf_adds(&w, k);
		hm_buf_adds(&w, i % 2 ? "?: string,\n" : ": string,\n");
	}
	hm_buf_adds(&s, "},\"required\":[");
	for (i = n; i-- > 0;) {
		char k[40];

		if (i % 2)
			continue;
		snprintf(k, sizeof k, "\"p%zu\"%s", i, i ? "," : "");
		hm_buf_adds(&s, k);
	}
	hm_buf_adds(&s, ",7]}");
	hm_buf_addc(&w, '}');
	ok = !s.oom && !w.oom && ts_is(s.p, w.p);
	hm_buf_free(&s);
	hm_buf_free(&w);
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
	/*
	 * serde_json's reading, not the nearest double: digits past what fits
	 * a u64 are dropped and one power of ten scales the rest (the
	 * reference's ren-num vectors, spelled as the reference read them).
	 */
	CHECK(num_is("123456789012345678901234", "1.2345678901234567e23"));
	CHECK(num_is("123456789012345678901234567890123456789", "1.2345678901234567e38"));
	CHECK(num_is("1.23456789012345678e-20", "1.2345678901234569e-20"));
	CHECK(num_is("18446744073709551616", "1.8446744073709552e19"));
	CHECK(num_is("-9223372036854775809", "-9.223372036854776e18"));
	CHECK(num_is("4e-320", "4e-320"));
	CHECK(num_is("1e-400", "0.0"));
	CHECK(num_is("-1e-99999999999", "-0.0"));
	CHECK(num_is("0e99999999999", "0.0"));
	CHECK(!hm__jv_parse("1e99999999999", 13, NULL, 0));
	CHECK(!hm__jv_parse("1e309", 5, NULL, 0));
	CHECK(num_is("1.7976931348623157e308", "1.7976931348623157e308"));
	CHECK(num_is("\"a\\u0000b\"", "\"a\\u0000b\""));
	CHECK(!hm__jv_parse("\"\\ud800\"", 8, NULL, 0));
	CHECK(!hm__jv_parse("[1,]", 4, NULL, 0));

	/* A required list past the hash threshold gives the same text. */
	CHECK(many_required(5));
	CHECK(many_required(3000));

	/* Numbers past a double: serde's error, or with HM_JV_NUMTEXT kept as written. */
	{
		char msg[80];
		size_t errpos = 0;
		hm_jv *v;
		hm_buf b = {0};

		CHECK(!hm__jv_parse("[1,1e400]", 9, msg, sizeof msg));
		CHECK(!strcmp(msg, "number out of range at line 1 column 9"));
		v = hm__jv_parse_ex("[1,-1E400]", 10, NULL, 1, HM_JV_NUMTEXT, msg, sizeof msg, NULL);
		CHECK(v && v->v[1]->type == HM_JV_NUMBER && v->v[1]->num < 0);
		if (v)
			hm__jv_write(&b, v);
		CHECK(b.p && !strcmp(b.p, "[1,-1E400]"));
		hm_buf_free(&b);
		hm__jv_free(v);
		/* Where the error is, and where each value starts. */
		CHECK(!hm__jv_parse_ex("[1,\n2,\n x]", 10, NULL, 1, 0, msg, sizeof msg, &errpos));
		CHECK(errpos == 8 && hm__text_line("[1,\n2,\n x]", 10, errpos) == 3);
		CHECK(!strcmp(msg, "expected value at line 3 column 2"));
		errpos = 0;
		CHECK(!hm__jv_parse_ex("[1,\n2,\n x]", 10, NULL, 1, 0, NULL, 0, &errpos) && errpos == 8);
		v = hm__jv_parse("{\"a\":\n [true, {}]}", 18, NULL, 0);
		CHECK(v && v->pos == 0 && v->v[0]->pos == 7 && v->v[0]->v[1]->pos == 14);
		CHECK(v && hm__text_line("{\"a\":\n [true, {}]}", 18, v->v[0]->v[1]->pos) == 2);
		hm__jv_free(v);
	}
	/* String sets: the last index of a repeated string, misses, growth. */
	{
		hm_strset set = {0};
		static char keys[2000][8];
		size_t i;
		int ok = 1;

		for (i = 0; i < 2000; i++) {
			snprintf(keys[i], sizeof keys[i], "k%zu", i);
			ok &= hm__strset_add(&set, keys[i], strlen(keys[i]), i) == 0;
		}
		ok &= hm__strset_add(&set, "k7", 2, 99999) == 0;
		for (i = 0; i < 2000; i++)
			ok &= hm__strset_find(&set, keys[i], strlen(keys[i])) == (i == 7 ? 99999 : i);
		CHECK(ok && set.n == 2000);
		CHECK(hm__strset_find(&set, "k2000", 5) == (size_t)-1);
		CHECK(hm__strset_find(&set, "k1", 1) == (size_t)-1);
		hm__strset_free(&set);
		CHECK(hm__strset_find(&set, "k1", 2) == (size_t)-1);
		CHECK(hm__strset_add(&set, "a\0b", 3, 1) == 0 && hm__strset_find(&set, "a\0b", 3) == 1 &&
		    hm__strset_find(&set, "a", 1) == (size_t)-1);
		hm__strset_free(&set);
	}

	CHECK(pretty_is("{\"a\":1,\"b\":{\"c\":[true,null]}}",
	    "{\n  \"a\": 1,\n  \"b\": {\n    \"c\": [\n      true,\n      null\n    ]\n  }\n}"));
	/* Token ids stay on one line; empty containers stay closed. */
	CHECK(pretty_is("{\"tokens\":[200006,1428,-1.5e3],\"o\":{},\"l\":[ ]}",
	    "{\n  \"tokens\": [200006, 1428, -1.5e3],\n  \"o\": {},\n  \"l\": []\n}"));
	/* Brackets, commas, colons and escaped quotes inside strings are text. */
	CHECK(pretty_is("[\"a,b:{[\\\"]}\",[1,\"x\"]]",
	    "[\n  \"a,b:{[\\\"]}\",\n  [\n    1,\n    \"x\"\n  ]\n]"));
	CHECK(pretty_is("[[1,2],[3]]", "[\n  [1, 2],\n  [3]\n]"));
	CHECK(pretty_is("7", "7"));
	{
		hm_buf b = {0};

		/* hm_json_compact: blanks go, numbers stay as written, bad JSON appends nothing. */
		const char *in = " { \"a\" : [ 1e400 , -0 ] , \"b\":\"\\u00e9\" } ";

		CHECK(hm_json_compact(&b, in, strlen(in)) == HM_OK);
		CHECK(b.p && !strcmp(b.p, "{\"a\":[1e400,-0],\"b\":\"\xc3\xa9\"}"));
		hm_buf_reset(&b);
		CHECK(hm_json_compact(&b, "{\"a\":", 5) == HM_EINPUT && b.len == 0);
		CHECK(hm_json_compact(&b, "1 2", 3) == HM_EINPUT && b.len == 0);
		hm_buf_free(&b);
	}
	/* NDJSON: what lies between top-level values is kept. */
	CHECK(pretty_is("{\"a\":1}\n[2]\n", "{\n  \"a\": 1\n}\n[2]\n"));
	return UNIT_DONE("test_schema");
}
