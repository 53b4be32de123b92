/*
 * fuzz_jsonschema - the JSON Schema validator (hm_schema_new,
 * hm_schema_validate, and hm_schema_validate_value of the value read
 * first: the same answers): the input is a schema, a 0xFF byte, and a value
 * (without 0xFF, the input is both).  A bad schema is HM_EINPUT with a
 * message; a value is valid with no problems, or not valid with problems
 * listed (each with a path starting with '/' or empty, and a keyword), or
 * not JSON with none; never a crash or a hang (nesting and steps are
 * bounded whatever the schema).
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = size ? (const char *)data : "";
	const char *cut = memchr(s, 0xff, size);
	size_t slen = cut ? (size_t)(cut - s) : size;
	const char *val = cut ? cut + 1 : s;
	size_t vlen = cut ? size - slen - 1 : size;
	hm_schema_opts o = HM_SCHEMA_OPTS_INIT;
	hm_schema *sch = NULL;
	hm_schema_problem p;
	hm_error err;
	hm_status st;
	size_t i, n;

	/* a small budget: the fuzzer looks for crashes, not for slow schemas */
	o.max_steps = 200000;
	o.draft = (size & 1) ? HM_DRAFT_7 : HM_DRAFT_AUTO;
	/* formats asserted in 2020-12 too (else only an annotation there) */
	o.formats = (size & 2) ? 1 : HM_FORMATS_DRAFT;
	memset(&err, 0, sizeof err);
	st = hm_schema_new(s, slen, &o, &sch, &err);
	FUZZ_CHECK(st == HM_OK || st == HM_EINPUT, "status %d", (int)st);
	FUZZ_CHECK((st == HM_OK) == (sch != NULL), "status %d, schema %p", (int)st, (void *)sch);
	FUZZ_CHECK(st == HM_OK || err.msg[0], "a bad schema without a message");
	if (st != HM_OK)
		return 0;
	memset(&err, 0, sizeof err);
	st = hm_schema_validate(sch, val, vlen, &err);
	FUZZ_CHECK(st == HM_OK || st == HM_EINPUT, "status %d", (int)st);
	n = hm_schema_nproblems(sch);
	FUZZ_CHECK(st == HM_EINPUT || n == 0, "valid with %zu problems", n);
	FUZZ_CHECK(st == HM_OK || err.msg[0], "not valid without a message");
	for (i = 0; hm_schema_problem_get(sch, i, &p); i++) {
		FUZZ_CHECK(p.path[0] == '\0' || p.path[0] == '/', "path \"%s\"", p.path);
		FUZZ_CHECK(p.keyword[0] != '\0', "a problem without a keyword");
	}
	FUZZ_CHECK(i == (n < 64 ? n : 64), "%zu problems kept of %zu", i, n);
	/* a schema checks any number of values: the same answer again */
	FUZZ_CHECK(hm_schema_validate(sch, val, vlen, NULL) == st, "another answer the second time");
	FUZZ_CHECK(hm_schema_nproblems(sch) == n, "another count the second time");
	/* the value read first (hm_schema_read_value): the same answer and count */
	{
		hm_json *v;

		if (hm_schema_read_value(val, vlen, &v, NULL) == HM_OK) {
			FUZZ_CHECK(hm_schema_validate_value(sch, v, NULL) == st, "another answer read first");
			FUZZ_CHECK(hm_schema_nproblems(sch) == n, "another count read first");
			hm_schema_value_free(v);
		} else
			FUZZ_CHECK(st == HM_EINPUT && n == 0, "not JSON read first, but JSON before");
	}
	hm_schema_free(sch);
	return 0;
}
