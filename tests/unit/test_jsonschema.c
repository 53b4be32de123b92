/*
 * test_jsonschema - the JSON Schema validator (hm_schema_*) against the
 * JSON-Schema-Test-Suite (Debian's json-schema-test-suite) and this
 * repository's 2020-12 cases: every file that fixtures/jsonschema/suite.list
 * names must pass whole (a case the validator gets wrong is a failure,
 * nothing is skipped).  Then the problems' paths and keywords, and the
 * limits on hostile schemas.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harmony.h"
#include "json_val_int.h"
#include "unit.h"

#define SUITE "/usr/share/json-schema-test-suite"
#define METASCHEMA7 "/usr/lib/python3/dist-packages/jsonschema/schemas/draft7.json"

/* The suite's remote documents: http://localhost:1234/ + their path. */
static int
add_remotes(hm_schema *s, const char *dir, const char *rel)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[1024], uri[1024], rel2[512];
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t len;
		char *buf;
		hm_error err;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		snprintf(rel2, sizeof rel2, "%s%s", rel, e->d_name);
		if (!strstr(e->d_name, ".json")) {
			char sub[520];

			snprintf(sub, sizeof sub, "%s/", rel2);
			n += add_remotes(s, path, sub);
			continue;
		}
		if (!(buf = unit_slurp(path, &len)))
			continue;
		snprintf(uri, sizeof uri, "http://localhost:1234/%s", rel2);
		if (hm_schema_add_resource(s, uri, buf, len, &err) == HM_OK)
			n++;
		free(buf);
	}
	closedir(d);
	return n;
}

static int
add_resources(hm_schema *s)
{
	size_t len;
	char *buf = unit_slurp(METASCHEMA7, &len);
	hm_error err;
	int ok = buf && hm_schema_add_resource(s, "http://json-schema.org/draft-07/schema",
	    buf, len, &err) == HM_OK;

	free(buf);
	return ok && add_remotes(s, SUITE "/remotes", "") > 0;
}

static char *
to_text(const hm_jv *v)
{
	hm_buf b = {0};

	hm__jv_write(&b, v);
	hm_buf_addc(&b, '\0');
	return b.oom ? NULL : b.p;
}

/*
 * The value read first (hm_schema_read_value) and checked with
 * hm_schema_validate_value: the answer vs and the message e gave.
 */
static void
same_when_read_first(hm_schema *s, const char *text, hm_status vs, const hm_error *e)
{
	hm_json *v;
	hm_error e2;
	hm_status st;

	if (hm_schema_read_value(text, strlen(text), &v, &e2) != HM_OK) {
		CHECK_MSG(0, "hm_schema_read_value: %s", e2.msg);
		return;
	}
	st = hm_schema_validate_value(s, v, &e2);
	CHECK_MSG(st == vs && (st != HM_EINPUT || !strcmp(e->msg, e2.msg)),
	    "%s read first: %d (%s), not %d (%s)", text, (int)st, e2.msg, (int)vs, e->msg);
	hm_schema_value_free(v);
}

/* Run one suite file; returns the failures, counting each test. */
static void
run_file(int draft, const char *path, int *passed, int *failed)
{
	size_t len, g, t;
	char *buf = unit_slurp(path, &len), err[200];
	hm_jv *groups;

	*passed = *failed = 0;
	if (!buf) {
		CHECK_MSG(0, "cannot read %s", path);
		(*failed)++;
		return;
	}
	groups = hm__jv_parse_ex(buf, len, NULL, 1, HM_JV_NUMTEXT, err, sizeof err, NULL);
	CHECK_MSG(groups && groups->type == HM_JV_ARRAY, "%s: %s", path, err);
	for (g = 0; groups && g < groups->n; g++) {
		const hm_jv *grp = groups->v[g], *tests = hm__jv_get(grp, "tests");
		char *stext = to_text(hm__jv_get(grp, "schema"));
		hm_schema_opts o = HM_SCHEMA_OPTS_INIT;
		hm_schema *s = NULL;
		hm_error e;
		hm_status st;

		o.draft = draft == 7 ? HM_DRAFT_7 : HM_DRAFT_2020_12;
		o.formats = 1; /* the optional format files: formats asserted (as bench/jsonschema-suite says) */
		st = stext ? hm_schema_new(stext, strlen(stext), &o, &s, &e) : HM_ENOMEM;
		if (st == HM_OK && !add_resources(s))
			st = HM_ENOMEM;
		for (t = 0; tests && t < tests->n; t++) {
			const hm_jv *tc = tests->v[t];
			char *dtext = to_text(hm__jv_get(tc, "data"));
			int want = hm__jv_get(tc, "valid")->type == HM_JV_TRUE, got = -1;
			hm_status vs;

			if (st == HM_OK && dtext) {
				vs = hm_schema_validate(s, dtext, strlen(dtext), &e);
				got = vs == HM_OK ? 1 : vs == HM_EINPUT ? 0 : -1;
				/* invalid means problems listed, valid means none */
				if (vs == HM_EINPUT && !hm_schema_nproblems(s))
					got = -1;
				same_when_read_first(s, dtext, vs, &e);
			}
			if (got == want) {
				(*passed)++;
				unit_pass++;
			} else {
				(*failed)++;
				CHECK_MSG(0, "%s: \"%s\" / \"%s\": expected %s, got %s (%s)", path,
				    hm__jv_getstr(grp, "description", NULL),
				    hm__jv_getstr(tc, "description", NULL), want ? "valid" : "invalid",
				    got < 0 ? "an error" : got ? "valid" : "invalid",
				    st == HM_OK ? e.msg : "schema rejected");
			}
			free(dtext);
		}
		if (st != HM_OK && (!tests || !tests->n))
			CHECK_MSG(0, "%s: schema rejected", path);
		hm_schema_free(s);
		free(stext);
	}
	hm__jv_free(groups);
	free(buf);
}

/*
 * Every file the list names; a line "file DRAFT FILE PASSED TOTAL" each on
 * standard output (bench/jsonschema-suite makes the README's table of them).
 */
static int
suite(const char *listpath)
{
	size_t len;
	char *list = unit_slurp(listpath, &len), *line, *save = NULL;
	int nfiles = 0;

	CHECK_MSG(list != NULL, "cannot read %s", listpath);
	if (!list)
		return 0;
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char path[1024], file[900];
		int draft, p, f;

		if (line[0] == '#' || sscanf(line, "%d %899s", &draft, file) != 2)
			continue;
		if (!strncmp(file, "fixtures/", 9))
			snprintf(path, sizeof path, "%s", file);
		else
			snprintf(path, sizeof path, "%s/tests/%s", SUITE, file);
		run_file(draft, path, &p, &f);
		CHECK_MSG(p + f > 0, "%s: no test ran", path);
		printf("file %d %s %d %d\n", draft, file, p, p + f);
		nfiles++;
	}
	free(list);
	return nfiles;
}

static hm_status
snew(const char *text, hm_schema **s, hm_error *e)
{
	return hm_schema_new(text, strlen(text), NULL, s, e);
}

static hm_status
sval(hm_schema *s, const char *text, hm_error *e)
{
	return hm_schema_validate(s, text, strlen(text), e);
}

/* The first problem of validating value against schema, as "PATH|KEYWORD". */
static const char *
first_problem(const char *schema, const char *value, char *out, size_t n, size_t *count)
{
	hm_schema *s;
	hm_error e;
	hm_schema_problem p;

	out[0] = '\0';
	*count = 0;
	if (hm_schema_new(schema, strlen(schema), NULL, &s, &e) != HM_OK) {
		snprintf(out, n, "schema: %s", e.msg);
		return out;
	}
	if (hm_schema_validate(s, value, strlen(value), &e) == HM_EINPUT &&
	    hm_schema_problem_get(s, 0, &p))
		snprintf(out, n, "%s|%s", p.path, p.keyword);
	*count = hm_schema_nproblems(s);
	hm_schema_free(s);
	return out;
}

static void
problems(void)
{
	char b[300];
	size_t k;
	hm_schema *s;
	hm_error e;

	CHECK(!strcmp(first_problem("{\"properties\":{\"items\":{\"items\":{\"properties\":"
	    "{\"name\":{\"type\":\"string\"}}}}}}", "{\"items\":[{},{},{\"name\":3}]}", b, sizeof b, &k),
	    "/items/2/name|type"));
	CHECK(k == 1);
	CHECK(!strcmp(first_problem("{\"required\":[\"a\"]}", "{}", b, sizeof b, &k), "|required"));
	CHECK(!strcmp(first_problem("{\"properties\":{\"a/b~c\":{\"const\":1}}}", "{\"a/b~c\":2}", b,
	    sizeof b, &k), "/a~1b~0c|const"));
	CHECK(!strcmp(first_problem("{\"additionalProperties\":false}", "{\"x\":1,\"y\":2}", b,
	    sizeof b, &k), "/x|additionalProperties"));
	CHECK(k == 2);
	/* every problem is counted, the first 64 kept */
	first_problem("{\"items\":{\"type\":\"string\"}}",
	    "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,"
	    "31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,"
	    "58,59,60,61,62,63,64,65,66,67,68,69,70]", b, sizeof b, &k);
	CHECK(k == 70);
	/* a bad schema is the schema's error */
	CHECK(snew("{\"pattern\":\"(?=a)\"}", &s, &e) == HM_EINPUT &&
	    strstr(e.msg, "lookahead"));
	CHECK(snew("{\"$ref\":\"#/$defs/nope\"}", &s, &e) == HM_EINPUT &&
	    strstr(e.msg, "points to nothing"));
	CHECK(snew("[1]", &s, &e) == HM_EINPUT);
	CHECK(snew("{", &s, &e) == HM_EINPUT && e.line == 1);
	/* not JSON: no problems, the reason */
	CHECK(snew("true", &s, &e) == HM_OK);
	CHECK(sval(s, "[1,", &e) == HM_EINPUT && hm_schema_nproblems(s) == 0 &&
	    strstr(e.msg, "not JSON"));
	CHECK(sval(s, "1e400", &e) == HM_OK);
	hm_schema_free(s);
	/* the message: first problem, and how many more */
	CHECK(snew("{\"items\":{\"type\":\"string\"}}", &s, &e) == HM_OK);
	CHECK(sval(s, "[1,2]", &e) == HM_EINPUT);
	CHECK_MSG(!strcmp(e.msg, "/0: type: expected string, got integer (and 1 more problem)"),
	    "%s", e.msg);
	hm_schema_free(s);
	/* a value read once, checked again and against another schema */
	{
		hm_json *v;
		hm_schema *s2;

		CHECK(hm_schema_read_value("[1,\"a\"]", 7, &v, &e) == HM_OK);
		CHECK(snew("{\"items\":{\"type\":\"string\"}}", &s, &e) == HM_OK);
		CHECK(snew("{\"maxItems\":1}", &s2, &e) == HM_OK);
		CHECK(hm_schema_validate_value(s, v, &e) == HM_EINPUT &&
		    !strcmp(e.msg, "/0: type: expected string, got integer"));
		CHECK(hm_schema_validate_value(s, v, NULL) == HM_EINPUT && hm_schema_nproblems(s) == 1);
		CHECK_MSG(hm_schema_validate_value(s2, v, &e) == HM_EINPUT &&
		    !strcmp(e.msg, "(root): maxItems: 2 items, more than 1"), "%s", e.msg);
		hm_schema_value_free(v);
		CHECK(hm_schema_read_value("[\"a\"]", 5, &v, &e) == HM_OK);
		CHECK(hm_schema_validate_value(s, v, &e) == HM_OK && hm_schema_nproblems(s) == 0);
		CHECK(hm_schema_validate_value(s2, v, NULL) == HM_OK);
		hm_schema_value_free(v);
		CHECK(hm_schema_read_value("[1,", 3, &v, &e) == HM_EINPUT && !v && strstr(e.msg, "not JSON"));
		hm_schema_free(s);
		hm_schema_free(s2);
	}
}

/* verdict of value against schema: 1 valid, 0 not, -1 the schema refused */
static int
verdict(const char *schema, const char *value)
{
	hm_schema *s;
	hm_error e;
	hm_status st;

	if (hm_schema_new(schema, strlen(schema), NULL, &s, &e) != HM_OK)
		return -1;
	st = hm_schema_validate(s, value, strlen(value), &e);
	hm_schema_free(s);
	return st == HM_OK ? 1 : st == HM_EINPUT ? 0 : -2;
}

/* As verdict, `format` asserted whatever the draft (hm_schema_opts.formats 1). */
static int
fmt_verdict(const char *format, const char *value)
{
	hm_schema *s;
	hm_error e;
	hm_status st;
	hm_schema_opts o = HM_SCHEMA_OPTS_INIT;
	char schema[128];

	o.formats = 1;
	snprintf(schema, sizeof schema, "{\"format\":\"%s\"}", format);
	if (hm_schema_new(schema, strlen(schema), &o, &s, &e) != HM_OK)
		return -1;
	st = hm_schema_validate(s, value, strlen(value), &e);
	hm_schema_free(s);
	return st == HM_OK ? 1 : st == HM_EINPUT ? 0 : -2;
}

/*
 * IDNA2008 host names (json_schema_idna.c) beyond the suite: A-labels in
 * any case, Normalization Form C (RFC 5891 5.3), a Bidi domain name.
 */
static void
idna(void)
{
	CHECK(fmt_verdict("hostname", "\"xn--1ca.example\"") == 1);     /* á */
	CHECK(fmt_verdict("hostname", "\"XN--1CA.example\"") == 1);
	CHECK(fmt_verdict("hostname", "\"xn--a-xbb.example\"") == 0);   /* a + U+0301 */
	CHECK(fmt_verdict("hostname", "\"\u00e1.example\"") == 0);     /* not ASCII */
	CHECK(fmt_verdict("idn-hostname", "\"\u00e1.example\"") == 1);
	CHECK(fmt_verdict("idn-hostname", "\"a\u0301.example\"") == 0);
	CHECK(fmt_verdict("idn-hostname", "\"\uac00\"") == 1);         /* 가 */
	CHECK(fmt_verdict("idn-hostname", "\"\u1100\u1161\"") == 0);  /* its jamo */
	CHECK(fmt_verdict("idn-hostname", "\"\u1ec7\"") == 1);         /* ệ */
	CHECK(fmt_verdict("idn-hostname", "\"\u00ea\u0323\"") == 0);  /* ê + dot below: ệ */
	CHECK(fmt_verdict("idn-hostname", "\"example.\u05d0\u05d1\"") == 1);
	CHECK(fmt_verdict("idn-hostname", "\"1.example\"") == 1);
	CHECK(fmt_verdict("idn-hostname", "\"1.\u05d0\"") == 0);      /* Bidi: begins with a digit */
	CHECK(fmt_verdict("idn-hostname", "\"a1.\u05d0\u05d1\"") == 1);
	CHECK(fmt_verdict("idn-hostname", "\"example.com\"") == 1);
	CHECK(fmt_verdict("idn-hostname", "\"EXAMPLE.com\"") == 1);
}

#define FORECAST_REF "{\"$ref\":\"http://example.com/schemas/forecast.schema.json\"}"
#define EMAIL7 "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"format\":\"email\"}"
#define NOTHING_REF "{\"$ref\":\"http://example.com/schemas/nothing.json\"}"

/* What used to pass silently: the keywords of 2019-09 and later, the draft, numbers. */
static void
silent_gaps(void)
{
	hm_schema *s;
	hm_error e;
	hm_schema_opts o = HM_SCHEMA_OPTS_INIT;
	const char *dirs[] = { "http://example.com/schemas/", "fixtures/jsonschema", NULL };

	CHECK(verdict("{\"properties\":{\"a\":true},\"unevaluatedProperties\":false}",
	    "{\"a\":1,\"b\":2}") == 0);
	CHECK(verdict("{\"properties\":{\"a\":true},\"unevaluatedProperties\":false}",
	    "{\"a\":1}") == 1);
	CHECK(verdict("{\"prefixItems\":[true],\"unevaluatedItems\":false}", "[1,2]") == 0);
	/* the draft by $schema; an unknown one is the schema's error */
	CHECK(verdict("{\"$schema\":\"http://json-schema.org/draft-04/schema#\","
	    "\"maximum\":5,\"exclusiveMaximum\":true}", "5") == 0);
	CHECK(verdict("{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
	    "\"$ref\":\"#/definitions/a\",\"type\":\"string\",\"definitions\":{\"a\":true}}", "1") == 1);
	CHECK(snew("{\"$schema\":\"http://example.com/my-draft\"}", &s, &e) == HM_EINPUT &&
	    strstr(e.msg, "not a draft this validator knows"));
	CHECK(snew("{\"$schema\":\"http://json-schema.org/draft-03/schema#\"}", &s, &e) == HM_EINPUT &&
	    strstr(e.msg, "draft-03"));
	/* a document of a mapped directory, read, never fetched */
	o.dirs = dirs;
	CHECK(hm_schema_new(FORECAST_REF, strlen(FORECAST_REF), &o, &s, &e) == HM_OK);
	CHECK(sval(s, "{\"location\":\"x\"}", &e) == HM_EINPUT);
	hm_schema_free(s);
	CHECK(hm_schema_new(NOTHING_REF, strlen(NOTHING_REF), &o, &s, &e) == HM_OK);
	CHECK(sval(s, "1", &e) == HM_EINPUT && strstr(e.msg, "cannot resolve"));
	hm_schema_free(s);
	/* the bundled metaschema: a schema checked against its draft's */
	CHECK(verdict("{\"$ref\":\"https://json-schema.org/draft/2020-12/schema\"}",
	    "{\"type\":\"strin\"}") == 0);
	CHECK(verdict("{\"$ref\":\"https://json-schema.org/draft/2020-12/schema\"}",
	    "{\"type\":\"string\",\"minLength\":1}") == 1);
	/* Unicode properties in patterns; format regex is ECMA-262's syntax */
	CHECK(verdict("{\"pattern\":\"^\\\\p{Letter}+$\"}", "\"\u00e9t\u00e9\"") == 1);
	CHECK(verdict("{\"pattern\":\"^\\\\p{Letter}+$\"}", "\"a1\"") == 0);
	CHECK(verdict("{\"pattern\":\"^[\\\\P{L}]+$\"}", "\"12 !\"") == 1);
	CHECK(verdict("{\"pattern\":\"^\\\\p{Nd}+$\"}", "\"\u09ea\u09e8\"") == 1);
	CHECK(verdict("{\"pattern\":\"^\\\\p{Nd}+$\"}", "\"\u00b2\"") == 0);
	CHECK(snew("{\"pattern\":\"\\\\p{Greek}\"}", &s, &e) == HM_EINPUT &&
	    strstr(e.msg, "Unicode property"));
	CHECK(fmt_verdict("regex", "\"(?<=a)b\"") == 1);
	CHECK(fmt_verdict("regex", "\"(?P<n>a)\"") == 0);
	/* formats as their RFCs say */
	CHECK(fmt_verdict("duration", "\"P1Y2M3DT4H5M6S\"") == 1);
	CHECK(fmt_verdict("duration", "\"P1Y2D\"") == 0);
	CHECK(fmt_verdict("uri-template", "\"http://x/{term:1}/{+v*}\"") == 1);
	CHECK(fmt_verdict("uri-template", "\"{v:0}\"") == 0);
	CHECK(fmt_verdict("iri", "\"http://\u0192\u00f8\u00f8.com/\u00e9\"") == 1);
	CHECK(fmt_verdict("uri", "\"http://\u0192\u00f8\u00f8.com/\"") == 0);
	CHECK(fmt_verdict("uri", "\"http://example.com:abc/\"") == 0);
	CHECK(fmt_verdict("uri-reference", "\"1:b\"") == 0);
	CHECK(fmt_verdict("email", "\"\\\"joe bloggs\\\"@example.com\"") == 1);
	CHECK(fmt_verdict("email", "\"joe@[IPv6:::1]\"") == 1);
	CHECK(fmt_verdict("idn-email", "\"\uc2e4\ub840@\uc2e4\ub840.\ud14c\uc2a4\ud2b8\"") == 1);
	CHECK(fmt_verdict("email", "\"\uc2e4\ub840@example.com\"") == 0);
	/*
	 * format as the draft says: an annotation in 2020-12, the draft of a
	 * schema without $schema; asserted in draft-07; hm_schema_opts.formats
	 * either way
	 */
	CHECK(verdict("{\"format\":\"email\"}", "\"x\"") == 1);
	CHECK(verdict(EMAIL7, "\"x\"") == 0);
	CHECK(fmt_verdict("email", "\"x\"") == 0);
	o.formats = 0;
	CHECK(hm_schema_new(EMAIL7, strlen(EMAIL7), &o, &s, &e) == HM_OK);
	CHECK(sval(s, "\"x\"", &e) == HM_OK);
	hm_schema_free(s);
	o.formats = HM_FORMATS_DRAFT;
	/* numbers by their decimal text */
	CHECK(verdict("{\"maximum\":123456789012345678901234567889}",
	    "123456789012345678901234567890") == 0);
	CHECK(verdict("{\"const\":123456789012345678901234567891}",
	    "123456789012345678901234567890") == 0);
	CHECK(verdict("{\"enum\":[1e400]}", "10e399") == 1);
	CHECK(verdict("{\"uniqueItems\":true}",
	    "[123456789012345678901234567890,123456789012345678901234567891]") == 1);
	CHECK(verdict("{\"uniqueItems\":true}", "[1.0,1,0.1e1]") == 0);
	CHECK(verdict("{\"multipleOf\":0.01}", "1e308") == 1);
	CHECK(verdict("{\"multipleOf\":0.01}", "0.075") == 0);
	CHECK(verdict("{\"multipleOf\":0.0001}", "19.99") == 1);
	CHECK(verdict("{\"exclusiveMinimum\":0}", "1e-400") == 1);
	CHECK(verdict("{\"exclusiveMaximum\":0}", "-1e-400") == 1);
	CHECK(verdict("{\"minimum\":0}", "-1e-400") == 0);
}

/* Hostile schemas end in a problem within the budget, quickly. */
static void
limits(void)
{
	hm_buf sch = {0}, val = {0};
	hm_schema *s;
	hm_error e;
	hm_schema_problem p;
	clock_t t0 = clock();
	int i;

	/* a long value against a pattern that backtracking matchers take for ever on */
	CHECK(snew("{\"pattern\":\"^(a|a?)+$\"}", &s, &e) == HM_OK);
	hm_buf_addc(&val, '"');
	for (i = 0; i < 100000; i++)
		hm_buf_addc(&val, 'a');
	hm_buf_adds(&val, "b\"");
	CHECK(hm_schema_validate(s, val.p, val.len, &e) == HM_EINPUT);
	hm_schema_free(s);
	/* 127 levels of nested value and schema */
	hm_buf_reset(&val);
	for (i = 0; i < 126; i++)
		hm_buf_addc(&val, '[');
	for (i = 0; i < 126; i++)
		hm_buf_addc(&val, ']');
	CHECK(snew("{\"$defs\":{\"a\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/a\"}}},"
	    "\"$ref\":\"#/$defs/a\"}", &s, &e) == HM_OK);
	CHECK(hm_schema_validate(s, val.p, val.len, &e) == HM_OK);
	hm_schema_free(s);
	/* a $ref loop: the depth limit */
	CHECK(snew("{\"$ref\":\"#\"}", &s, &e) == HM_OK);
	CHECK(sval(s, "1", &e) == HM_EINPUT && hm_schema_problem_get(s, 0, &p) &&
	    !strcmp(p.keyword, "depth"));
	hm_schema_free(s);
	/* exponential anyOf: the budget */
	hm_buf_adds(&sch, "{\"$defs\":{\"a0\":{\"type\":\"object\"}");
	for (i = 1; i < 30; i++) {
		char d[200];

		snprintf(d, sizeof d, ",\"a%d\":{\"anyOf\":[{\"$ref\":\"#/$defs/a%d\"},{\"$ref\":\"#/$defs/a%d\"}]}",
		    i, i - 1, i - 1);
		hm_buf_adds(&sch, d);
	}
	hm_buf_adds(&sch, "},\"$ref\":\"#/$defs/a29\"}");
	CHECK(hm_schema_new(sch.p, sch.len, NULL, &s, &e) == HM_OK);
	CHECK(sval(s, "1", &e) == HM_EINPUT && hm_schema_problem_get(s, 0, &p) &&
	    !strcmp(p.keyword, "budget"));
	hm_schema_free(s);
	CHECK_MSG((double)(clock() - t0) / CLOCKS_PER_SEC < 20, "the hostile cases took %.1f s",
	    (double)(clock() - t0) / CLOCKS_PER_SEC);
	hm_buf_free(&sch);
	hm_buf_free(&val);
}

/*
 * oneOf's branches told apart by a member's const (the compiled form tries
 * only the branch whose constant the value's member equals): the answers
 * of trying them all, and the branches left untried.
 */
static void
discriminated(void)
{
	const char *sch = "{\"oneOf\":[{\"$ref\":\"#/$defs/a\"},{\"$ref\":\"#/$defs/b\"},"
	    "{\"type\":\"object\",\"required\":[\"z\"]}],\"$defs\":{"
	    "\"a\":{\"properties\":{\"kind\":{\"const\":\"a\"},\"n\":{\"type\":\"integer\"}},\"required\":[\"kind\"]},"
	    "\"b\":{\"properties\":{\"kind\":{\"const\":\"b\"},\"n\":{\"type\":\"string\"}},\"required\":[\"kind\"]}}}";
	hm_buf big = {0};
	hm_schema *s;
	hm_error e;
	int i;

	CHECK(verdict(sch, "{\"kind\":\"a\",\"n\":1}") == 1);
	CHECK(verdict(sch, "{\"kind\":\"a\",\"n\":\"x\"}") == 0);
	CHECK(verdict(sch, "{\"kind\":\"b\",\"n\":\"x\"}") == 1);
	/* the branch without a constant is tried too: two hold */
	CHECK(verdict(sch, "{\"kind\":\"a\",\"n\":1,\"z\":0}") == 0);
	CHECK(verdict(sch, "{\"n\":1,\"z\":0}") == 1);
	CHECK(verdict(sch, "{\"n\":1}") == 0);
	CHECK(verdict(sch, "{\"kind\":\"c\"}") == 0);
	/* the member twice: every branch tried (each fails on one of them) */
	CHECK(verdict(sch, "{\"kind\":\"a\",\"kind\":\"b\",\"n\":1}") == 0);
	/* not an object: properties and required hold in a and b */
	CHECK(verdict(sch, "\"x\"") == 0);
	/* constants compared by their decimal value */
	CHECK(verdict("{\"oneOf\":[{\"properties\":{\"k\":{\"const\":1}}},"
	    "{\"properties\":{\"k\":{\"const\":2}}}]}", "{\"k\":1.0}") == 1);
	/*
	 * Branches a and b would blow the step budget on x (an exponential
	 * anyOf) before reaching kind: only c, whose kind the value has, is
	 * tried.
	 */
	hm_buf_adds(&big, "{\"oneOf\":[{\"$ref\":\"#/$defs/a\"},{\"$ref\":\"#/$defs/b\"},{\"$ref\":\"#/$defs/c\"}],"
	    "\"$defs\":{\"a\":{\"properties\":{\"x\":{\"$ref\":\"#/$defs/h29\"},\"kind\":{\"const\":\"a\"}}},"
	    "\"b\":{\"properties\":{\"x\":{\"$ref\":\"#/$defs/h29\"},\"kind\":{\"const\":\"b\"}}},"
	    "\"c\":{\"properties\":{\"kind\":{\"const\":\"c\"}}},\"h0\":{\"type\":\"object\"}");
	for (i = 1; i < 30; i++) {
		char d[200];

		snprintf(d, sizeof d, ",\"h%d\":{\"anyOf\":[{\"$ref\":\"#/$defs/h%d\"},{\"$ref\":\"#/$defs/h%d\"}]}",
		    i, i - 1, i - 1);
		hm_buf_adds(&big, d);
	}
	hm_buf_adds(&big, "}}");
	CHECK(hm_schema_new(big.p, big.len, NULL, &s, &e) == HM_OK);
	CHECK_MSG(sval(s, "{\"x\":1,\"kind\":\"c\"}", &e) == HM_OK, "%s", e.msg);
	/* kind a: branch a is tried, and the budget ends it */
	CHECK(sval(s, "{\"x\":1,\"kind\":\"a\"}", &e) == HM_EINPUT && strstr(e.msg, "budget"));
	hm_schema_free(s);
	hm_buf_free(&big);
}

/* With an argument: only the files of that list (for the README's table). */
/*
 * A document added for references is checked against its draft's
 * metaschema as the schema is: a bad keyword there is refused, never a
 * reference that matches anything.
 */
static void
bad_documents(void)
{
	const char *root = "{\"$ref\":\"https://example.com/x.json\"}";
	const char *bad = "{\"type\":\"strin\"}", *good = "{\"type\":\"string\"}";
	hm_schema *s = NULL;
	hm_error e;

	CHECK(hm_schema_new(root, strlen(root), NULL, &s, &e) == HM_OK);
	if (!s)
		return;
	CHECK(hm_schema_add_resource(s, "https://example.com/x.json", bad, strlen(bad), &e) == HM_EINPUT);
	CHECK(strstr(e.msg, "https://example.com/x.json: the schema's \"type\" at /type is not valid") != NULL);
	/* not kept: the good one given after it is the one used */
	CHECK(hm_schema_add_resource(s, "https://example.com/x.json", good, strlen(good), &e) == HM_OK);
	CHECK(hm_schema_validate(s, "\"a\"", 3, &e) == HM_OK);
	CHECK(hm_schema_validate(s, "5", 1, &e) == HM_EINPUT);
	hm_schema_free(s);
	/* without the good one, the reference names nothing */
	s = NULL;
	CHECK(hm_schema_new(root, strlen(root), NULL, &s, &e) == HM_OK);
	if (!s)
		return;
	CHECK(hm_schema_add_resource(s, "https://example.com/x.json", bad, strlen(bad), &e) == HM_EINPUT);
	CHECK(hm_schema_validate(s, "5", 1, &e) == HM_EINPUT);
	CHECK(strstr(e.msg, "cannot resolve") != NULL);
	hm_schema_free(s);
}

int
main(int argc, char **argv)
{
	if (argc > 1) {
		suite(argv[1]);
		return 0;
	}
	CHECK(suite("fixtures/jsonschema/suite.list") >= 50);
	problems();
	silent_gaps();
	idna();
	limits();
	discriminated();
	bad_documents();
	return UNIT_DONE("test_jsonschema");
}
