/*
 * fuzz_tool_check - call checking (hm_tool_check, harmony-tools calls
 * --check): the input is a tool's parameters schema, a 0xFF byte, and the
 * call's arguments (without 0xFF, the input is both).  The count of
 * problems and the message must agree: none and an empty message, or some
 * and a message.
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = size ? (const char *)data : "";
	const char *cut = memchr(s, 0xff, size);
	size_t slen = cut ? (size_t)(cut - s) : size;
	const char *args = cut ? cut + 1 : s;
	size_t alen = cut ? size - slen - 1 : size;
	hm_namespace ns;
	hm_error err;
	hm_status st;
	size_t k;

	memset(&ns, 0, sizeof ns);
	st = hm_namespace_add_tool(&ns, "f", 1, "", 0, slen ? s : NULL, slen, &err);
	FUZZ_CHECK(st == HM_OK || st == HM_EINPUT, "status %d", (int)st);
	if (st == HM_OK) {
		FUZZ_CHECK(ns.ntools == 1, "%zu tools", ns.ntools);
		memset(&err, 0, sizeof err);
		st = hm_tool_check(&ns.tools[0], args, alen, &k, &err);
		FUZZ_CHECK(st == HM_OK || st == HM_EINPUT, "status %d", (int)st);
		FUZZ_CHECK((st == HM_OK) == (k == 0), "status %d, %zu problems", (int)st, k);
		FUZZ_CHECK(memchr(err.msg, '\0', sizeof err.msg) != NULL, "message not terminated");
		FUZZ_CHECK(!k == !err.msg[0], "%zu problems, message \"%s\"", k, err.msg);
	}
	hm_namespace_free(&ns);
	return 0;
}
