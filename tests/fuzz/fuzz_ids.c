/*
 * fuzz_ids - the id reader (hm_ids_parse, hm_ids_detect) over arbitrary
 * bytes: the whole input and each of its lines as a record (blank or comma
 * separated lists, JSON arrays, NDJSON objects), with and without
 * HM_IDS_ANY.  Ids read back from their own decimal list are the same; a
 * record's other fields come back as a JSON object.
 */
#include <cjson/cJSON.h>

#include "fuzz.h"

static void
one(const char *s, size_t n, unsigned flags)
{
	hm_ids ids = { 0 }, again = { 0 };
	hm_error err;
	char *rest = (char *)1, *list;
	size_t i, m = 0;
	hm_status st;

	(void)hm_ids_detect(s, n);
	memset(&err, 0xa5, sizeof err);
	st = hm_ids_parse(s, n, flags, &ids, &rest, &err);
	FUZZ_CHECK(st == HM_OK || st == HM_EINPUT, "status %d", (int)st);
	if (st != HM_OK) {
		FUZZ_CHECK(memchr(err.msg, '\0', sizeof err.msg) && err.msg[0], "no message");
		if (rest != (char *)1)
			free(rest);
		hm_ids_free(&ids);
		return;
	}
	FUZZ_CHECK(rest != (char *)1, "rest not set");
	for (i = 0; i < ids.len; i++)
		FUZZ_CHECK((flags & HM_IDS_ANY) || hm_is_valid(ids.v[i]), "id %u", (unsigned)ids.v[i]);
	if (rest) {
		cJSON *o = cJSON_Parse(rest);

		FUZZ_CHECK(cJSON_IsObject(o), "rest is not a JSON object: %s", rest);
		cJSON_Delete(o);
		free(rest);
	}
	/* The ids written out as a list read back as the same ids. */
	list = malloc(ids.len * 11 + 1);
	FUZZ_CHECK(list != NULL, "oom");
	for (i = 0; i < ids.len; i++)
		m += (size_t)sprintf(list + m, i % 3 ? ",%u" : " %u", (unsigned)ids.v[i]);
	FUZZ_CHECK(hm_ids_parse(list, m, flags, &again, NULL, &err) == HM_OK, "%s", err.msg);
	FUZZ_CHECK(again.len == ids.len && (!ids.len || !memcmp(again.v, ids.v, ids.len * sizeof *ids.v)),
	           "ids differ when read back");
	free(list);
	hm_ids_free(&again);
	hm_ids_free(&ids);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *nl;
	size_t at = 0;

	one(s, size, 0);
	one(s, size, HM_IDS_ANY);
	while (at < size) {
		size_t end;

		nl = memchr(s + at, '\n', size - at);
		end = nl ? (size_t)(nl - s) : size;

		one(s + at, end - at, HM_IDS_ANY);
		at = end + 1;
	}
	return 0;
}
