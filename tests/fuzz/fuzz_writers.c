/*
 * fuzz_writers - every output shape over the events of arbitrary input:
 * Harmony text parsed as text, or encoded (special tokens recognised) and
 * parsed as ids; default or strict mode, with the writer flags, channel
 * filter and carried record fields drawn from the input's hash, two
 * records in a row.  What the JSON shapes write must be JSON: each line
 * of messages, events (and of chat and responses with records), the
 * `data:` lines of the streams, and chat and responses as whole values.
 * A record that ends in a strict-mode ERROR is dropped with
 * hm_writer_abort where harmony-parse drops it (records, and every shape
 * but events).
 */
#include "buf_int.h"
#include "fuzz.h"
#include "json_val_int.h"
#include "parser_int.h"

/* Every JSON value in s[0..n), one after another, parses. */
static void
json_values(const char *s, size_t n, const char *what)
{
	size_t pos = 0;
	char err[160];

	while (pos < n && (s[pos] == '\n' || s[pos] == ' '))
		pos++;
	while (pos < n) {
		hm_jv *v = hm__jv_parse_next(s, n, &pos, err, sizeof err);

		FUZZ_CHECK(v != NULL, "%s: not JSON at byte %zu: %s\n%.*s", what, pos, err, (int)n, s);
		hm__jv_free(v);
	}
}

/* Each line of s[0..n) that is not blank is JSON (after prefix, if given). */
static void
json_lines(const char *s, size_t n, const char *prefix, const char *what)
{
	size_t at = 0, k = prefix ? strlen(prefix) : 0;

	while (at < n) {
		const char *nl = memchr(s + at, '\n', n - at);
		size_t end = nl ? (size_t)(nl - s) : n;

		if (end > at && prefix) {
			if (end - at >= k && !memcmp(s + at, prefix, k) &&
			    !(end - at - k == 6 && !memcmp(s + at + k, "[DONE]", 6)))
				json_values(s + at + k, end - at - k, what);
		} else if (end > at) {
			json_values(s + at, end - at, what);
		}
		at = end + 1;
	}
}

static void
check_output(hm_shape shape, unsigned flags, const char *s, size_t n)
{
	switch (shape) {
	case HM_TO_MESSAGES:
	case HM_TO_EVENTS:
		json_lines(s, n, NULL, shape == HM_TO_MESSAGES ? "messages" : "events");
		break;
	case HM_TO_CHAT:
	case HM_TO_RESPONSES:
	case HM_TO_CHAT_COMPLETION:
	case HM_TO_ANTHROPIC:
		if (flags & HM_WRITER_RECORDS)
			json_lines(s, n, NULL, "records");
		else
			json_values(s, n, "whole objects");
		break;
	case HM_TO_CHAT_STREAM:
	case HM_TO_RESPONSES_STREAM:
	case HM_TO_ANTHROPIC_STREAM:
		json_lines(s, n, "data: ", "stream");
		break;
	case HM_TO_ANSWER:
		/* the model's text as it is (a NUL included); records: JSON strings */
		if (flags & HM_WRITER_RECORDS)
			json_lines(s, n, NULL, "answer records");
		break;
	case HM_TO_METRICS: {
		/* every line a comment or a harmony_ sample */
		size_t at = 0;

		while (at < n) {
			const char *nl = memchr(s + at, '\n', n - at);
			size_t end = nl ? (size_t)(nl - s) : n;

			FUZZ_CHECK(end - at >= 2 && (!memcmp(s + at, "# ", 2) ||
			    (end - at > 8 && !memcmp(s + at, "harmony_", 8))),
			    "metrics line: %.*s", (int)(end - at), s + at);
			at = end + 1;
		}
		break;
	}
	default:
		FUZZ_CHECK(n == 0 || memchr(s, '\0', n) == NULL, "a NUL in text or stats output");
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const channels[] = { NULL, "final", "analysis,commentary", "none", "final,none" };
	static const char *const fields[] = { "", "\"id\":7", "\"id\":\"r1\",\"x\":[1,{\"y\":null}]", "\"model\":\"m\",\"id\":1" };
	uint64_t h = fuzz_hash(data, size), seed = h;
	hm_ids ids = { 0 };
	int text = (h & 1) != 0;
	unsigned pflags = (h >> 1) & 1 ? HM_PARSE_STRICT : 0;
	int shape;

	if (!text) {
		hm_encoder *e = hm_encoder_new();

		FUZZ_CHECK(e && hm_encode(e, (const char *)data, size, HM_ENC_SPECIAL | HM_ENC_LOSSY, &ids, NULL) == HM_OK,
		           "encode");
		hm_encoder_free(e);
	}
	for (shape = HM_TO_MESSAGES; shape <= HM_TO_HTML; shape++) {
		unsigned wflags = (unsigned)(fuzz_next(&seed) & (HM_WRITER_COLOR | HM_WRITER_RANDOM_IDS | HM_WRITER_RECORDS));
		const char *ch = channels[fuzz_next(&seed) % 5];
		const char *f = fields[fuzz_next(&seed) % 4];
		hm_writer *w;
		hm_buf out = { 0 };
		int r;

		if (text)
			wflags |= HM_WRITER_TEXT_INPUT;
		w = hm_writer_new((hm_shape)shape, wflags);
		FUZZ_CHECK(w != NULL, "hm_writer_new(%d)", shape);
		FUZZ_CHECK(hm_writer_set_channels(w, ch) == HM_OK, "channels %s", ch ? ch : "NULL");
		hm_writer_set_seed(w, h, (int64_t)(h >> 40));
		for (r = 0; r < 2; r++) {
			hm_parser *p = hm_parser_new("assistant", pflags);
			hm_event ev;
			const char *o;
			size_t n;
			hm_status st = HM_OK;
			int failed = 0;

			FUZZ_CHECK(p != NULL, "hm_parser_new");
			if (shape != HM_TO_EVENTS && shape != HM_TO_CHAT_STREAM &&
			    shape != HM_TO_RESPONSES_STREAM && shape != HM_TO_ANTHROPIC_STREAM)
				hm_parser_set_merge(p, 1);
			FUZZ_CHECK(hm_writer_begin(w, f, strlen(f)) == HM_OK, "begin");
			if (shape == HM_TO_HTML) /* the page shows the record's input */
				FUZZ_CHECK((text ? hm_writer_record_text(w, size ? (const char *)data : "", size) :
				    hm_writer_record_ids(w, ids.v ? ids.v : (const uint32_t *)"", ids.len)) == HM_OK, "record input");
			if (text)
				FUZZ_CHECK(hm_parser_feed_text(p, size ? (const char *)data : "", size) == HM_OK, "feed");
			else
				FUZZ_CHECK(hm_parser_feed(p, ids.v ? ids.v : (const uint32_t *)"", ids.len) == HM_OK, "feed");
			while (st == HM_OK && hm_parser_next(p, &ev)) {
				failed |= ev.type == HM_EV_ERROR;
				st = hm_writer_event(w, &ev);
			}
			hm_parser_finish(p);
			{
				uint64_t at;
				const char *msg = hm_writer_warning(w, &at);

				FUZZ_CHECK(!msg || *msg, "an empty writer warning");
			}
			while (st == HM_OK && hm_parser_next(p, &ev)) {
				failed |= ev.type == HM_EV_ERROR;
				st = hm_writer_event(w, &ev);
			}
			FUZZ_CHECK(st == HM_OK, "writer status %d", (int)st);
			if (failed && ((wflags & HM_WRITER_RECORDS) || shape != HM_TO_EVENTS))
				hm_writer_abort(w);
			hm_parser_free(p);
			o = hm_writer_output(w, &n);
			hm_buf_add(&out, o, n);
			hm_writer_consume(w);
		}
		if (shape == HM_TO_STATS || shape == HM_TO_METRICS || shape == HM_TO_HTML) {
			const char *o;
			size_t n;

			FUZZ_CHECK(hm_writer_summary(w) == HM_OK, "summary");
			o = hm_writer_output(w, &n);
			hm_buf_add(&out, o, n);
		}
		check_output((hm_shape)shape, wflags, out.p ? out.p : "", out.len);
		hm_buf_free(&out);
		hm_writer_free(w);
	}
	hm_ids_free(&ids);
	return 0;
}
