/*
 * fuzz_grammar - hm_grammar_from_request over any JSON Schema: the input
 * is a schema, put in a Chat request as a tool's parameters and as the
 * response format's schema; a hash of it picks the form and the
 * tool_choice.  The grammar is written (HM_OK: NUL-terminated, its
 * length the string's, a header first) or the request is refused with a
 * message (HM_EINPUT); never a crash, a leak or a hang, whatever the
 * schema's $ref loops, nesting or patterns.
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const choices[] = {"auto", "required", "none",
	    "{\"type\":\"function\",\"function\":{\"name\":\"f\"}}"};
	static const char head[] = "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],"
	    "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":";
	static const char mid[] = "}}],\"response_format\":{\"type\":\"json_schema\","
	    "\"json_schema\":{\"name\":\"r\",\"schema\":";
	static const char tail[] = "}}}";
	uint64_t h = fuzz_hash(data, size);
	hm_grammar_opts o = HM_GRAMMAR_OPTS_INIT;
	hm_error err;
	hm_status st;
	char *req, *out = NULL;
	size_t n = 0, len = 2 * size + sizeof head + sizeof mid + sizeof tail;

	if (!(req = malloc(len)))
		return 0;
	len = 0;
	memcpy(req + len, head, sizeof head - 1);
	len += sizeof head - 1;
	memcpy(req + len, data, size);
	len += size;
	memcpy(req + len, mid, sizeof mid - 1);
	len += sizeof mid - 1;
	memcpy(req + len, data, size);
	len += size;
	memcpy(req + len, tail, sizeof tail - 1);
	len += sizeof tail - 1;
	o.form = (hm_grammar_form)(h % 4);
	o.tool_choice = choices[(h >> 8) % 4];
	o.no_analysis = (int)((h >> 16) & 1);
	o.python = (int)((h >> 17) & 1);
	memset(&err, 0, sizeof err);
	st = hm_grammar_from_request(req, len, &o, &out, &n, &err);
	FUZZ_CHECK(st == HM_OK || st == HM_EINPUT, "status %d", (int)st);
	FUZZ_CHECK((st == HM_OK) == (out != NULL), "status %d, grammar %p", (int)st, (void *)out);
	FUZZ_CHECK(st == HM_OK || err.msg[0], "refused without a message");
	if (out) {
		FUZZ_CHECK(strlen(out) == n, "length %zu, string %zu", n, strlen(out));
		FUZZ_CHECK(o.form == HM_GRAMMAR_STRUCTURAL_TAG ? out[0] == '{' : out[0] == '#' || out[0] == '/',
		    "no header: %.20s", out);
	}
	free(out);
	free(req);
	return 0;
}
