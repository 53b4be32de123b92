/*
 * test_record_api.c - the public log record reader (hm_record) and the
 * writer's HM_WRITER_PRETTY, through harmony.h alone, as a library user
 * (and harmony-parse) sees them.  Carried fields are checked against the
 * carried form spelled out (records_int.h): compact, strings escaped as
 * hm_buf_json_str does, numbers as written.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h> /* test_pretty compares JSON values */

#include "harmony.h"
#include "unit.h"

static int
same_ids(const uint32_t *v, size_t n, const uint32_t *want, size_t nw)
{
	return v && n == nw && (!n || !memcmp(v, want, n * sizeof *v));
}

static int
fields_are(const hm_record *r, const char *want)
{
	size_t n;
	const char *f = hm_record_fields(r, &n);

	return n == strlen(want) && !strcmp(f, want);
}

static void
test_ids_record(hm_record *r)
{
	static const char rec[] = "{\"id\":\"a\",\"tokens\":[200006, 1428,200008],\"model\":\"m\"}";
	static const uint32_t want[] = { 200006, 1428, 200008 };
	hm_error e;
	const uint32_t *v;
	size_t n;

	CHECK(hm_record_read(r, rec, strlen(rec), 0, &e) == HM_OK);
	v = hm_record_tokens(r, &n);
	CHECK(same_ids(v, n, want, 3));
	CHECK(hm_record_text(r, &n) == NULL);
	CHECK(fields_are(r, "\"id\":\"a\",\"model\":\"m\""));
	CHECK(hm_record_id(r) && !strcmp(hm_record_id(r), "\"a\""));
	CHECK(hm_record_end(r) == strlen(rec));

	/* Leading blanks; what follows the record is the caller's. */
	CHECK(hm_record_read(r, "  {\"token_ids\":[7]} tail", 24, 0, &e) == HM_OK);
	CHECK(hm_record_end(r) == 19);
	v = hm_record_tokens(r, &n);
	CHECK(n == 1 && v[0] == 7);
	CHECK(hm_record_id(r) == NULL);
	CHECK(fields_are(r, ""));

	/* No ids at all is still an id record. */
	CHECK(hm_record_read(r, "{\"tokens\":[]}", 13, 0, &e) == HM_OK);
	CHECK(hm_record_tokens(r, &n) != NULL && n == 0);

	/* The first id key present, in order of the keys, wins. */
	CHECK(hm_record_read(r, "{\"input_ids\":[1],\"output_ids\":[2]}", 34, 0, &e) == HM_OK);
	v = hm_record_tokens(r, &n);
	CHECK(n == 1 && v[0] == 2);
	CHECK(fields_are(r, "\"input_ids\":[1]"));
}

static void
test_text_record(hm_record *r)
{
	static const char rec[] = "{\"text\":\"<|end|>caf\\u00e9 \\ud83d\\ude00\\n\",\"id\":7}";
	static const char want[] = "<|end|>caf\xc3\xa9 \xf0\x9f\x98\x80\n";
	const char *t;
	size_t n;

	CHECK(hm_record_read(r, rec, strlen(rec), 0, NULL) == HM_OK);
	t = hm_record_text(r, &n);
	CHECK(t && n == strlen(want) && !memcmp(t, want, n));
	CHECK(hm_record_tokens(r, &n) == NULL);
	CHECK(fields_are(r, "\"id\":7"));
	CHECK(hm_record_id(r) && !strcmp(hm_record_id(r), "7"));
	CHECK(hm_record_end(r) == strlen(rec));

	/* A text member that is not a string is not the text: the next name is. */
	CHECK(hm_record_read(r, "{\"text\":5,\"content\":\"c\"}", 25, 0, NULL) == HM_OK);
	t = hm_record_text(r, &n);
	CHECK(t && n == 1 && *t == 'c');
	CHECK(fields_are(r, "\"text\":5"));

	/* An empty text is a text record. */
	CHECK(hm_record_read(r, "{\"completion\":\"\"}", 17, 0, NULL) == HM_OK);
	t = hm_record_text(r, &n);
	CHECK(t && n == 0);
}

/*
 * Records the one-pass reader leaves to the general one (escapes that
 * are written otherwise, blanks in nested values, forms only a lenient
 * reader takes): the carried form all the same.  Numbers are kept as
 * written; through cJSON's double they were not (12345678901234567890
 * was 1.2345678901234567e+19, 1e400 null, -0 0, 1e3 1000), nor was a
 * string past a \u0000, nor invalid UTF-8 turned into U+FFFD.
 */
static void
test_fallback(hm_record *r)
{
	static const struct {
		const char *rec, *fields, *id;
	} t[] = {
		{ "{\"id\":\"x\",\"tokens\":[1,2],\"w\":\"caf\\u00e9\",\"n\":1e3}",
		  "\"id\":\"x\",\"w\":\"caf\xc3\xa9\",\"n\":1e3", "\"x\"" },
		{ "{\"id\":1.50,\"tokens\":[3],\"u\":{\"a\" : [1 , 2.0]}}",
		  "\"id\":1.50,\"u\":{\"a\":[1,2.0]}", "1.50" },
		{ "{\"tokens\":[1, 2],\"s\":\"a\\/b\"}", "\"s\":\"a/b\"", NULL },
		{ "{\"id\":-0,\"text\":\"hi\",\"big\":12345678901234567890}",
		  "\"id\":-0,\"big\":12345678901234567890", "-0" },
		{ "{\"content\":\"x\",\"e\":\"\\u0041\\u00e9\",\"f\":1E+2}",
		  "\"e\":\"A\xc3\xa9\",\"f\":1E+2", NULL },
		{ "{\"tokens\":[1],\"h\":1e400,\"l\":-1e-400,\"z\":\"a\\u0000b\"}",
		  "\"h\":1e400,\"l\":-1e-400,\"z\":\"a\\u0000b\"", NULL },
		/* forms JSON does not allow, taken as they always were */
		{ "{\"tokens\":[1],\"n\":007,\"m\":-.5,\"p\":2.,\"q\":1.e2}",
		  "\"n\":7,\"m\":-0.5,\"p\":2,\"q\":1e2", NULL },
		{ "{\"tokens\":[1],\"b\":\"\xff\\u0001\",\"id\":{\"k\" :\"\\/\"},\"id\":2}",
		  "\"b\":\"\xef\xbf\xbd\\u0001\",\"id\":{\"k\":\"/\"},\"id\":2", "{\"k\":\"/\"}" },
	};
	size_t i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		const char *id;

		CHECK_MSG(hm_record_read(r, t[i].rec, strlen(t[i].rec), 0, NULL) == HM_OK, "%s", t[i].rec);
		CHECK_MSG(fields_are(r, t[i].fields), "%s: want %s, got %s", t[i].rec, t[i].fields,
		    hm_record_fields(r, &(size_t){ 0 }));
		id = hm_record_id(r);
		CHECK_MSG(t[i].id ? id && !strcmp(id, t[i].id) : !id, "%s: id %s", t[i].rec,
		    id ? id : "none");
		CHECK(hm_record_end(r) == strlen(t[i].rec));
	}
	/* ... and the ids themselves. */
	{
		static const uint32_t want[] = { 1, 2 };
		size_t n;
		const uint32_t *v;

		hm_record_read(r, t[2].rec, strlen(t[2].rec), 0, NULL);
		v = hm_record_tokens(r, &n);
		CHECK(same_ids(v, n, want, 2));
	}
	/*
	 * An id has one spelling in every reader (issue 35): a whole number
	 * without sign, fraction, exponent or leading zero, here as in a bare
	 * array or stream.
	 */
	{
		static const char *const bad[] = {
			"{\"tokens\":[01, 2]}", "{\"tokens\":[1,-0]}", "{\"tokens\":[2.9e2]}",
			"{\"tokens\":[290.0]}", "{\"tokens\":[0290]}", "{\"s\":\"a\\/b\",\"tokens\":[1E2]}",
		};
		hm_error e;

		for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			CHECK_MSG(hm_record_read(r, bad[i], strlen(bad[i]), 0, &e) == HM_EINPUT, "%s", bad[i]);
			CHECK_MSG(strstr(e.msg, "not a token id at index") != NULL, "%s: %s", bad[i], e.msg);
		}
	}
}

static void
test_arrays(hm_record *r)
{
	static const uint32_t want[] = { 200006, 1428, 4294967295u };
	const uint32_t *v;
	size_t n;

	CHECK(hm_record_read(r, "[200006,1428, 4294967295]", 25, 0, NULL) == HM_OK);
	v = hm_record_tokens(r, &n);
	CHECK(same_ids(v, n, want, 3));
	CHECK(hm_record_id(r) == NULL);
	CHECK(fields_are(r, ""));
	/* Over lines, as `jq .` writes it; a leading zero is no id (issue 35). */
	CHECK(hm_record_read(r, "[\n  200006,\n  1428,\n  4294967295\n]", 34, 0, NULL) == HM_OK);
	v = hm_record_tokens(r, &n);
	CHECK(same_ids(v, n, want, 3));
	CHECK(hm_record_end(r) == 34);
	CHECK(hm_record_read(r, "[\n  200006,\n  01428,\n  4294967295\n]", 35, 0, NULL) == HM_EINPUT);
	CHECK(hm_record_read(r, "[]", 2, 0, NULL) == HM_OK);
	CHECK(hm_record_tokens(r, &n) != NULL && n == 0);
}

static void
test_bad(hm_record *r)
{
	hm_error e;

	/* Each bad record keeps its id, for the error line naming it. */
	CHECK(hm_record_read(r, "{\"id\":\"bad\",\"tokens\":[1,\"x\",3]}", 31, 0, &e) == HM_EINPUT);
	CHECK(e.index == 1);
	CHECK_MSG(!strcmp(e.msg, "not a token id at index 1"), "%s", e.msg);
	CHECK(hm_record_id(r) && !strcmp(hm_record_id(r), "\"bad\""));
	CHECK(hm_record_end(r) == 0);

	CHECK(hm_record_read(r, "{\"id\":{\"k\":1},\"tokens\":[1,99999999999]}", 39, 0, &e) == HM_EINPUT);
	CHECK(e.index == 1 && strstr(e.msg, "out of range"));
	CHECK(hm_record_id(r) && !strcmp(hm_record_id(r), "{\"k\":1}"));

	CHECK(hm_record_read(r, "{\"id\":5,\"other\":1}", 18, 0, &e) == HM_EINPUT);
	CHECK(!strcmp(e.msg, "no tokens, token_ids, output_ids or input_ids array"));
	CHECK(e.index == (size_t)-1);
	CHECK(hm_record_id(r) && !strcmp(hm_record_id(r), "5"));

	/* An id key holding no array is an error, not a text record. */
	CHECK(hm_record_read(r, "{\"tokens\":\"1 2\",\"text\":\"t\"}", 27, 0, &e) == HM_EINPUT);
	CHECK(!strcmp(e.msg, "the id field is not an array") && e.index == (size_t)-1);
	CHECK(hm_record_id(r) == NULL);

	CHECK(hm_record_read(r, "{\"id\":1,\"tokens\":[1,2", 21, 0, &e) == HM_EINPUT);
	CHECK(hm_record_id(r) == NULL);

	/*
	 * Bytes that are no JSON, named: a raw control character in a string
	 * (a NUL cut the text before), a lone surrogate (the same rule as
	 * every reader's), in text records and carried members alike.
	 */
	CHECK(hm_record_read(r, "{\"text\":\"a\0b\"}", sizeof "{\"text\":\"a\0b\"}" - 1, 0, &e) == HM_EINPUT);
	CHECK_MSG(!strcmp(e.msg, "not JSON: raw control character U+0000 in a string at byte 10 "
	    "(JSON writes it escaped)"), "%s", e.msg);
	CHECK(hm_record_read(r, "{\"x\":\"\x01\",\"tokens\":[1]}", sizeof "{\"x\":\"\x01\",\"tokens\":[1]}" - 1, 0, &e) == HM_EINPUT);
	CHECK_MSG(strstr(e.msg, "raw control character U+0001") != NULL, "%s", e.msg);
	CHECK(hm_record_read(r, "{\"text\":\"a\\ud800b\"}", sizeof "{\"text\":\"a\\ud800b\"}" - 1, 0, &e) == HM_EINPUT);
	CHECK_MSG(!strcmp(e.msg, "not JSON: lone surrogate \\ud800 in a string at byte 10 "
	    "(no character: a pair's half alone)"), "%s", e.msg);
	CHECK(hm_record_read(r, "{\"x\":\"\\udc00\",\"tokens\":[1]}", sizeof "{\"x\":\"\\udc00\",\"tokens\":[1]}" - 1, 0, &e) == HM_EINPUT);
	CHECK_MSG(strstr(e.msg, "lone surrogate \\udc00") != NULL, "%s", e.msg);
	/* escaped, they are text */
	CHECK(hm_record_read(r, "{\"text\":\"a\\u0000b\\ud83d\\ude00\"}", 33, 0, &e) == HM_OK);

	CHECK(hm_record_read(r, "[1, 2, x]", 9, 0, &e) == HM_EINPUT);
	CHECK(e.index == 2 && !strcmp(e.msg, "not a token id: 'x'"));
	CHECK(hm_record_id(r) == NULL);
	CHECK(hm_record_read(r, "[1 2]", 5, 0, &e) == HM_EINPUT);
	/* the list's punctuation is about no one id */
	CHECK(e.index == (size_t)-1 && !strcmp(e.msg, "expected ',' or ']' between ids"));
	CHECK(hm_record_read(r, "[1, 2", 5, 0, &e) == HM_EINPUT);
	CHECK(e.index == (size_t)-1 && !strcmp(e.msg, "unterminated JSON array: no ']'"));
	CHECK(hm_record_read(r, "[4294967296]", 12, 0, &e) == HM_EINPUT);
	CHECK(e.index == 0 && !strcmp(e.msg, "id 4294967296 out of range (max 4294967295)"));

	CHECK(hm_record_read(r, "12 13", 5, 0, &e) == HM_EINPUT && e.index == (size_t)-1);
	CHECK(hm_record_read(r, "   ", 3, 0, &e) == HM_EINPUT);
	/* After an error the accessors describe no record. */
	CHECK(hm_record_tokens(r, &(size_t){ 0 }) == NULL);
	CHECK(hm_record_text(r, &(size_t){ 0 }) == NULL);
}

static void
test_text_only(hm_record *r)
{
	hm_error e;
	size_t n;
	const char *t;

	CHECK(hm_record_read(r, "{\"id\":1,\"tokens\":[1,2]}", 23, HM_RECORD_TEXT_ONLY, &e) == HM_EINPUT);
	CHECK(hm_record_id(r) && !strcmp(hm_record_id(r), "1"));
	CHECK(hm_record_read(r, "{\"tokens\":[1e0],\"text\":\"t\"}", 27, HM_RECORD_TEXT_ONLY, &e) == HM_EINPUT);
	CHECK(hm_record_read(r, "[1, 2]", 6, HM_RECORD_TEXT_ONLY, &e) == HM_EINPUT);
	CHECK(hm_record_read(r, "{\"text\":\"a\"}", 12, HM_RECORD_TEXT_ONLY, &e) == HM_OK);
	t = hm_record_text(r, &n);
	CHECK(t && n == 1 && *t == 'a');
	/* The slow way too. */
	CHECK(hm_record_read(r, "{\"text\":\"a\",\"n\":01}", 19, HM_RECORD_TEXT_ONLY, &e) == HM_OK);
	CHECK(fields_are(r, "\"n\":1"));
}

static void
test_text_field(hm_record *r)
{
	static const char rec[] = "{\"response\":\"r\",\"text\":\"t\"}";
	const char *const *k;
	const char *t;
	size_t n;

	k = hm_record_text_fields(r);
	CHECK(k[0] && !strcmp(k[0], "text"));
	CHECK(hm_record_set_text_field(r, "response") == HM_OK);
	k = hm_record_text_fields(r);
	CHECK(k[0] && !strcmp(k[0], "response") && !k[1]);
	CHECK(hm_record_read(r, rec, strlen(rec), 0, NULL) == HM_OK);
	t = hm_record_text(r, &n);
	CHECK(t && n == 1 && *t == 'r');
	CHECK(fields_are(r, "\"text\":\"t\""));
	/* Only that name now: a "text" alone is no record. */
	CHECK(hm_record_read(r, "{\"text\":\"t\"}", 12, 0, NULL) == HM_EINPUT);
	CHECK(hm_record_set_text_field(r, NULL) == HM_OK);
	CHECK(hm_record_read(r, rec, strlen(rec), 0, NULL) == HM_OK);
	t = hm_record_text(r, &n);
	CHECK(t && n == 1 && *t == 't');
}

/* ---------------------------------------------------------------- pretty */

static const char completion[] =
    "<|channel|>analysis<|message|>think {a: [b]}<|end|>"
    "<|start|>assistant<|channel|>final<|message|>done<|return|>";

/* The output of one record through w, drained after every event or once. */
static void
run_record(hm_writer *w, const char *fields, int each, hm_buf *out)
{
	hm_parser *p = hm_parser_new("assistant", 0);
	hm_event ev;
	size_t n;
	const char *s;

	hm_writer_begin(w, fields, strlen(fields));
	hm_parser_feed_text(p, completion, strlen(completion));
	hm_parser_finish(p);
	while (hm_parser_next(p, &ev)) {
		hm_writer_event(w, &ev);
		if (each && (s = hm_writer_output(w, &n))) {
			hm_buf_add(out, s, n);
			hm_writer_consume(w);
		}
	}
	s = hm_writer_output(w, &n);
	hm_buf_add(out, s, n);
	hm_writer_consume(w);
	hm_parser_free(p);
}

static void
test_pretty(void)
{
	hm_shape shapes[] = { HM_TO_MESSAGES, HM_TO_EVENTS, HM_TO_CHAT, HM_TO_RESPONSES, HM_TO_STATS };
	size_t i;

	for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		unsigned fl = HM_WRITER_RECORDS | HM_WRITER_TEXT_INPUT;
		hm_writer *raw = hm_writer_new(shapes[i], fl);
		hm_writer *once = hm_writer_new(shapes[i], fl | HM_WRITER_PRETTY);
		hm_writer *each = hm_writer_new(shapes[i], fl | HM_WRITER_PRETTY);
		hm_buf a = { 0 }, b = { 0 }, c = { 0 };
		cJSON *x, *y;

		run_record(raw, "\"id\":\"r1\",\"m\":[1,2]", 0, &a);
		run_record(once, "\"id\":\"r1\",\"m\":[1,2]", 0, &b);
		run_record(each, "\"id\":\"r1\",\"m\":[1,2]", 1, &c);
		/* In any pieces, the same text; indented, the same JSON. */
		CHECK_MSG(b.len && b.len == c.len && !memcmp(b.p, c.p, b.len), "shape %zu", i);
		CHECK(b.len > a.len && strstr(b.p, "\n  \"") != NULL);
		x = cJSON_Parse(a.p);
		y = cJSON_Parse(b.p);
		CHECK_MSG(x && y && cJSON_Compare(x, y, 1), "shape %zu: %s", i, b.p);
		cJSON_Delete(x);
		cJSON_Delete(y);
		hm_writer_free(raw);
		hm_writer_free(once);
		hm_writer_free(each);
		hm_buf_free(&a);
		hm_buf_free(&b);
		hm_buf_free(&c);
	}
}

/* An aborted record leaves no trace, even once its output was asked for. */
static void
test_pretty_abort(void)
{
	hm_writer *w = hm_writer_new(HM_TO_MESSAGES, HM_WRITER_RECORDS | HM_WRITER_PRETTY | HM_WRITER_TEXT_INPUT);
	hm_writer *clean = hm_writer_new(HM_TO_MESSAGES, HM_WRITER_RECORDS | HM_WRITER_PRETTY | HM_WRITER_TEXT_INPUT);
	hm_parser *p = hm_parser_new("assistant", 0);
	hm_buf a = { 0 }, b = { 0 };
	hm_event ev;
	size_t n;
	const char *s;

	run_record(w, "\"id\":1", 0, &a);
	run_record(clean, "\"id\":1", 0, &b);
	/* half a record: its output asked for, not consumed, then aborted */
	hm_writer_begin(w, "\"id\":2", 6);
	hm_parser_feed_text(p, completion, 40);
	while (hm_parser_next(p, &ev))
		hm_writer_event(w, &ev);
	s = hm_writer_output(w, &n);
	CHECK(s && n > 0);
	hm_writer_abort(w);
	s = hm_writer_output(w, &n);
	CHECK(n == 0);
	/* the caller's own line in its place, indented like the rest */
	CHECK(hm_writer_put(w, "{\"id\":2,\"error\":\"x\"}\n", 21) == HM_OK);
	CHECK(hm_writer_put(clean, "{\"id\":2,\"error\":\"x\"}\n", 21) == HM_OK);
	s = hm_writer_output(w, &n);
	CHECK(n == 30 && !memcmp(s, "{\n  \"id\": 2,\n  \"error\": \"x\"\n}\n", 30));
	hm_buf_add(&a, s, n);
	hm_writer_consume(w);
	s = hm_writer_output(clean, &n);
	hm_buf_add(&b, s, n);
	hm_writer_consume(clean);
	run_record(w, "\"id\":3", 0, &a);
	run_record(clean, "\"id\":3", 0, &b);
	CHECK(a.len == b.len && !memcmp(a.p, b.p, a.len));
	hm_parser_free(p);
	hm_writer_free(w);
	hm_writer_free(clean);
	hm_buf_free(&a);
	hm_buf_free(&b);
}

int
main(void)
{
	hm_record *r = hm_record_new();

	CHECK(r != NULL);
	test_ids_record(r);
	test_text_record(r);
	test_fallback(r);
	test_arrays(r);
	test_bad(r);
	test_text_only(r);
	test_text_field(r);
	hm_record_free(r);
	hm_record_free(NULL);
	test_pretty();
	test_pretty_abort();
	return UNIT_DONE("test_record_api");
}
