/*
 * fuzz_records - the log record reader (hm_record_read, as harmony-parse
 * and harmony-tokens read NDJSON logs) and hm_record_field, over each line
 * of the input.  A reader reused from record to record must read as a new
 * one does; a record's carried members are a JSON object's members, its
 * id a JSON value; an id record reads as hm_ids_parse reads it; the end is
 * inside the input.
 */
#include <cjson/cJSON.h>

#include "fuzz.h"

static hm_record *warm;

static void
json_ok(const char *pre, const char *s, size_t n, const char *post, const char *what)
{
	size_t a = strlen(pre), b = strlen(post);
	char *t = malloc(a + n + b + 1);
	cJSON *j;

	FUZZ_CHECK(t != NULL, "oom");
	memcpy(t, pre, a);
	if (n)
		memcpy(t + a, s, n);
	memcpy(t + a + n, post, b + 1);
	j = cJSON_Parse(t);
	FUZZ_CHECK(j != NULL, "%s is not JSON: %s", what, t);
	cJSON_Delete(j);
	free(t);
}

static void
one(const char *s, size_t n, unsigned flags)
{
	hm_record *fresh = hm_record_new();
	hm_error e1, e2;
	hm_status s1, s2;
	size_t k1, k2, f1, f2;
	const uint32_t *t1, *t2;
	const char *x1, *x2;

	FUZZ_CHECK(fresh != NULL, "hm_record_new");
	s1 = hm_record_read(fresh, s, n, flags, &e1);
	s2 = hm_record_read(warm, s, n, flags, &e2);
	FUZZ_CHECK(s1 == s2, "a reused reader says %d, a new one %d", (int)s2, (int)s1);
	FUZZ_CHECK(s1 == HM_OK || s1 == HM_EINPUT, "status %d", (int)s1);
	x1 = hm_record_id(fresh);
	x2 = hm_record_id(warm);
	FUZZ_CHECK(!x1 == !x2 && (!x1 || !strcmp(x1, x2)), "ids differ: %s, %s", x1 ? x1 : "-", x2 ? x2 : "-");
	if (x1)
		json_ok("", x1, strlen(x1), "", "the id");
	if (s1 != HM_OK) {
		FUZZ_CHECK(e1.msg[0] && !strcmp(e1.msg, e2.msg), "messages differ: %s, %s", e1.msg, e2.msg);
		hm_record_free(fresh);
		return;
	}
	FUZZ_CHECK(hm_record_end(fresh) == hm_record_end(warm) && hm_record_end(fresh) <= n &&
	           hm_record_end(fresh) > 0, "end %zu", hm_record_end(fresh));
	t1 = hm_record_tokens(fresh, &k1);
	t2 = hm_record_tokens(warm, &k2);
	FUZZ_CHECK(!t1 == !t2 && (!t1 || (k1 == k2 && (!k1 || !memcmp(t1, t2, k1 * sizeof *t1)))), "tokens differ");
	x1 = hm_record_text(fresh, &k1);
	x2 = hm_record_text(warm, &k2);
	FUZZ_CHECK(!x1 == !x2 && (!x1 || (k1 == k2 && !memcmp(x1, x2, k1))), "texts differ");
	FUZZ_CHECK(!t1 != !x1, "neither or both of ids and text");
	FUZZ_CHECK(!t1 || !(flags & HM_RECORD_TEXT_ONLY), "ids with HM_RECORD_TEXT_ONLY");
	x1 = hm_record_fields(fresh, &f1);
	x2 = hm_record_fields(warm, &f2);
	FUZZ_CHECK(f1 == f2 && !memcmp(x1, x2, f1), "fields differ: %s | %s", x1, x2);
	json_ok("{", x1, f1, "}", "the carried members");
	if (t1) {
		hm_ids ids = { 0 };
		size_t i = 0;

		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
			i++;
		/* An id object reads as hm_ids_parse reads it. */
		if (i < n && s[i] == '{') {
			FUZZ_CHECK(hm_ids_parse(s, hm_record_end(fresh), HM_IDS_ANY, &ids, NULL, &e1) == HM_OK,
			           "the record reader takes an object hm_ids_parse refuses: %s", e1.msg);
			hm_record_tokens(fresh, &k1);
			FUZZ_CHECK(ids.len == k1 && (!k1 || !memcmp(ids.v, t1, k1 * sizeof *t1)),
			           "hm_ids_parse reads %zu ids, the record reader %zu", ids.len, k1);
		}
		hm_ids_free(&ids);
	}
	hm_record_free(fresh);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	size_t at = 0;
	char *v = NULL;
	hm_error e;

	if (!warm)
		warm = hm_record_new();
	FUZZ_CHECK(warm != NULL, "hm_record_new");
	if (hm_record_field(size ? s : "", size, "id", &v, &e) == HM_OK) {
		json_ok("", v, strlen(v), "", "hm_record_field's value");
		free(v);
	}
	while (at <= size) {
		const char *nl = size ? memchr(s + at, '\n', size - at) : NULL;
		size_t end = nl ? (size_t)(nl - s) : size;

		one(size ? s + at : "", end - at, 0);
		one(size ? s + at : "", end - at, HM_RECORD_TEXT_ONLY);
		at = end + 1;
	}
	return 0;
}
