/*
 * render.h - the request readers of harmony-render, one fuzz target per
 * dialect (fuzz_render_DIALECT.c defines FUZZ_DIALECT and includes this).
 * The input is read as a request with options drawn from its hash; a
 * request that reads is rendered in the three modes, and
 *   - the ids decode to the text hm_render_text writes;
 *   - the conversation written as JSON reads back to the same JSON, but
 *     for the digits of numbers: the reader reproduces the reference's
 *     number parsing, which does not always round to the nearest double,
 *     so a float written out may read back one step away.
 * A request that does not read has a message.
 */
#include "fuzz.h"

static void
ignore_warning(void *ctx, size_t line, const char *msg)
{
	(void)line;
	FUZZ_CHECK(msg && *msg, "an empty warning");
	++*(size_t *)ctx;
}

static void
round_trip(const hm_conversation *c)
{
	size_t n1, n2;
	char *j1 = hm_conversation_to_json(c, &n1), *j2;
	hm_conversation *back = NULL;
	hm_error err;

	FUZZ_CHECK(j1 != NULL, "hm_conversation_to_json");
	FUZZ_CHECK(hm_conversation_from_json(j1, n1, &back, &err) == HM_OK,
	           "our own conversation JSON does not read: %s\n%s", err.msg, j1);
	j2 = hm_conversation_to_json(back, &n2);
	FUZZ_CHECK(j2 != NULL, "hm_conversation_to_json");
	mask_numbers(j1);
	mask_numbers(j2);
	FUZZ_CHECK(!strcmp(j1, j2), "conversation JSON changes when read back:\n%s\n%s", j1, j2);
	free(j1);
	free(j2);
	hm_conversation_free(back);
}

static void
render_modes(const hm_conversation *c, uint64_t h)
{
	static const hm_render_mode modes[] = { HM_RENDER_CONVERSATION, HM_RENDER_COMPLETION, HM_RENDER_TRAINING };
	size_t m;

	for (m = 0; m < 3; m++) {
		hm_render_opts o = HM_RENDER_OPTS_INIT;
		hm_ids ids = { 0 };
		hm_error e1, e2;
		hm_status s1, s2;
		char *text = NULL, *back;
		size_t tlen = 0, blen;

		o.mode = modes[m];
		o.next_role = (hm_role)((h >> (8 + m)) % 5);
		o.keep_analysis = (int)((h >> 12) & 1);
		s1 = hm_render(c, &o, &ids, &e1);

		s2 = hm_render_text(c, &o, &text, &tlen, &e2);
		FUZZ_CHECK(s1 == s2, "hm_render %d, hm_render_text %d", (int)s1, (int)s2);
		if (s1 == HM_OK) {
			back = fuzz_decode(ids.v, ids.len, &blen);
			FUZZ_CHECK(blen == tlen && !memcmp(back, text, tlen), "the ids do not decode to the text");
			free(back);
		} else {
			FUZZ_CHECK(s1 == HM_EINPUT && e1.msg[0] && e2.msg[0], "status %d", (int)s1);
		}
		free(text);
		hm_ids_free(&ids);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const dates[] = { NULL, "2025-06-28", "" };
	uint64_t h = fuzz_hash(data, size);
	size_t warnings = 0;
	hm_request_opts o;
	hm_request r;
	hm_error err;
	hm_status st;

	o = (hm_request_opts)HM_REQUEST_OPTS_INIT;
	memset(&r, 0, sizeof r);
	o.effort = (hm_effort)(h % 4);
	o.date = dates[(h >> 2) % 3];
	o.cutoff = (h >> 4) & 1 ? "2024-06" : NULL;
	o.identity = (h >> 5) & 1 ? "You are a test." : NULL;
	o.browser = (h >> 6) & 1;
	o.python = (h >> 7) & 1;
	o.warn = ignore_warning;
	o.warn_ctx = &warnings;
	st = hm_request_from_json(size ? (const char *)data : "", size, FUZZ_DIALECT, &o, &r, &err);
	FUZZ_CHECK(st == HM_OK || st == HM_EINPUT, "status %d", (int)st);
	if (st == HM_OK) {
		FUZZ_CHECK(r.conv != NULL, "no conversation");
		render_modes(r.conv, h);
		round_trip(r.conv);
	} else {
		FUZZ_CHECK(memchr(err.msg, '\0', sizeof err.msg) && err.msg[0], "an error without a message");
	}
	hm_request_free(&r);
	return 0;
}
