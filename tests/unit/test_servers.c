/*
 * test_servers.c - the readers of server output: the id reader
 * (hm_idscan), SSE framing (hm_sse) and the server shapes (hm_server),
 * each fed at every split point gives what it gives whole.
 */
#include "harmony.h"
#include "unit.h"

/* ids and the first error of s[0..n) fed in pieces cut at a and b. */
static hm_status
scan3(const char *s, size_t n, size_t a, size_t b, hm_ids *ids, hm_error *err)
{
	hm_idscan *sc = hm_idscan_new(HM_IDS_ARRAY);
	size_t cut[3] = { a, b, n }, at = 0, used, k;
	hm_status st = HM_OK;

	ids->len = 0;
	for (k = 0; k < 3 && st == HM_OK; k++) {
		st = hm_idscan_feed(sc, s + at, cut[k] - at, ids, &used, err);
		at += used;
	}
	if (st == HM_OK)
		st = hm_idscan_end(sc, ids, err);
	hm_idscan_free(sc);
	return st;
}

static void
test_idscan(void)
{
	static const char *const in[] = {
		"[200005, 17196,200008 , 19,\n 200002]", "1 2,3\n4  5", "[13225, 2375",
		"[1,,2]", "[[1,2]]", "[1,2]]", "1 2 4294967296", "12x34 5", "[1 2]",
		"[1, 2] 3", "1234567 12345678 123",
	};
	size_t i, a, b;

	for (i = 0; i < sizeof in / sizeof in[0]; i++) {
		size_t n = strlen(in[i]);
		hm_ids whole = { 0 }, ids = { 0 };
		hm_error ew, e;
		hm_status sw = scan3(in[i], n, n, n, &whole, &ew), st;

		for (a = 0; a <= n; a++)
			for (b = a; b <= n; b++) {
				st = scan3(in[i], n, a, b, &ids, &e);
				CHECK_MSG(st == sw && ids.len == whole.len && (!ids.len ||
				    !memcmp(ids.v, whole.v, ids.len * sizeof *ids.v)) &&
				    (st == HM_OK || (e.col == ew.col && e.index == ew.index &&
				    e.line == ew.line && !strcmp(e.msg, ew.msg))),
				    "%s cut at %zu, %zu", in[i], a, b);
			}
		hm_ids_free(&whole);
		hm_ids_free(&ids);
	}
}

/*
 * s[0..n) fed in pieces of at most step bytes, going on after each error
 * as harmony-parse does: the ids, then each error's place and message.
 */
static void
scan_log(const char *s, size_t n, unsigned flags, size_t step, hm_buf *log)
{
	hm_idscan *sc = hm_idscan_new(flags);
	hm_ids ids = { 0 };
	hm_error err;
	size_t at = 0, used, i, k;
	hm_status st;

	hm_buf_reset(log);
	while (at < n) {
		k = n - at < step ? n - at : step;
		st = hm_idscan_feed(sc, s + at, k, &ids, &used, &err);
		at += used;
		if (st != HM_OK) {
			hm_buf_adds(log, "E");
			hm_buf_addu(log, err.line);
			hm_buf_addc(log, ':');
			hm_buf_addu(log, err.col);
			hm_buf_addc(log, ':');
			hm_buf_addu(log, err.index);
			hm_buf_adds(log, err.msg);
		}
	}
	if (hm_idscan_end(sc, &ids, &err) != HM_OK) {
		hm_buf_adds(log, "E");
		hm_buf_addu(log, err.col);
		hm_buf_adds(log, err.msg);
	}
	hm_buf_addc(log, '|');
	hm_buf_addu(log, hm_idscan_count(sc));
	for (i = 0; i < ids.len; i++) {
		hm_buf_addc(log, ' ');
		hm_buf_addu(log, ids.v[i]);
	}
	hm_ids_free(&ids);
	hm_idscan_free(sc);
}

/*
 * The word-at-a-time reading gives what the byte-at-a-time one gives (a
 * piece shorter than a word is read byte by byte): random lists of
 * numbers of every length, blanks, newlines, commas, brackets and junk.
 */
static void
test_idscan_fast(void)
{
	static const char *const bits[] = {
		"0", "7", "42", "200005", "1234567", "12345678", "4294967295",
		"4294967296", "201088", "201089", " ", "  ", "\n", "\t", ",", ", ",
		",,", "[", "]", "x", "1x", "\r\n", "007", "99999999999",
	};
	static const unsigned flags[] = { 0, HM_IDS_ARRAY, HM_IDS_ANY,
	    HM_IDS_ARRAY | HM_IDS_ANY };
	uint32_t seed = 12345;
	hm_buf in = { 0 }, a = { 0 }, b = { 0 };
	int t, j, f, bad = 0;

	for (t = 0; t < 3000 && !bad; t++) {
		int len = 1 + t % 40;

		hm_buf_reset(&in);
		for (j = 0; j < len; j++) {
			seed = seed * 1103515245 + 12345;
			/* Mostly ids and blanks, as real lists are. */
			if ((seed >> 16) % 3)
				hm_buf_adds(&in, (seed >> 20) % 2 ? "200005 " : "13 ");
			else
				hm_buf_adds(&in, bits[(seed >> 16) % (sizeof bits / sizeof bits[0])]);
		}
		for (f = 0; f < 4; f++) {
			scan_log(in.p, in.len, flags[f], 1, &a);
			scan_log(in.p, in.len, flags[f], in.len, &b);
			if (a.len != b.len || memcmp(a.p, b.p, a.len))
				bad = 1;
			CHECK_MSG(!bad, "flags %u: '%s': byte at a time %s, whole %s",
			    flags[f], in.p, a.p, b.p);
			scan_log(in.p, in.len, flags[f], 9, &b);
			if (a.len != b.len || memcmp(a.p, b.p, a.len))
				bad = 1;
			CHECK_MSG(!bad, "flags %u: '%s': byte at a time %s, by 9 %s",
			    flags[f], in.p, a.p, b.p);
		}
	}
	hm_buf_free(&in);
	hm_buf_free(&a);
	hm_buf_free(&b);
}

/* The events of s[0..n) fed in pieces cut at a and b, joined by \x01. */
static void
sse3(const char *s, size_t n, size_t a, size_t b, hm_buf *out)
{
	hm_sse *e = hm_sse_new();
	size_t cut[3] = { a, b, n }, at = 0, used, k, len, line;
	int k2 = 0;

	hm_buf_reset(out);
	for (k = 0; k < 3; k++)
		while (at < cut[k]) {
			int ev = 0;

			if (hm_sse_feed(e, s + at, cut[k] - at, &used, &ev) != HM_OK)
				out->oom = 1;
			at += used;
			if (ev) {
				const char *d = hm_sse_data(e, &len, &line);

				hm_buf_add(out, d, len);
				hm_buf_addu(out, line);
				hm_buf_addc(out, '\x01');
			}
		}
	if (hm_sse_finish(e, &k2) != HM_OK)
		out->oom = 1;
	if (k2) {
		const char *d = hm_sse_data(e, &len, &line);

		hm_buf_add(out, d, len);
		hm_buf_addc(out, '\x01');
	}
	hm_sse_free(e);
}

static void
test_sse(void)
{
	static const char *const files[] = {
		"fixtures/servers/vllm-chat.sse", "fixtures/servers/tgi-generate-stream.sse",
	};
	static const char crlf[] = ": c\r\ndata: a\r\ndata:b\r\n\r\nevent: x\rdata:  c\r\rdata: d";
	hm_buf whole = { 0 }, got = { 0 };
	size_t i, a, n;
	char *s;

	/* joined data lines, one blank dropped, CR and CRLF, an event cut off at the end */
	sse3(crlf, sizeof crlf - 1, 0, 0, &whole);
	CHECK(whole.len == 11 && !memcmp(whole.p, "a\nb2\x01 c6\x01" "d\x01", 11));
	/* "data" with no colon: a data line with an empty value */
	sse3("data\n\ndata:x\n\n", 14, 14, 14, &got);
	CHECK(got.len == 5 && !memcmp(got.p, "1\x01x3\x01", 5));
	for (a = 0; a <= sizeof crlf - 1; a++) {
		sse3(crlf, sizeof crlf - 1, a, a, &got);
		CHECK_MSG(got.len == whole.len && !memcmp(got.p, whole.p, got.len), "cut at %zu", a);
	}
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		if (!(s = unit_slurp(files[i], &n))) {
			CHECK_MSG(0, "cannot read %s", files[i]);
			continue;
		}
		sse3(s, n, n, n, &whole);
		CHECK(whole.len > 100);
		for (a = 0; a <= n; a++) {
			sse3(s, n, a, a + (a * 7) % (n - a + 1), &got);
			CHECK_MSG(got.len == whole.len && !memcmp(got.p, whole.p, got.len),
			    "%s cut at %zu", files[i], a);
		}
		free(s);
	}
	hm_buf_free(&whole);
	hm_buf_free(&got);
}

/* Feed one value; the items it gives, as text. */
static void
feed(hm_server *sv, const char *json, hm_buf *log)
{
	hm_server_item it;

	CHECK(hm_server_feed(sv, json, strlen(json), 1) == HM_OK);
	while (hm_server_next(sv, &it)) {
		size_t k;

		switch (it.type) {
		case HM_SRV_BEGIN:
			hm_buf_adds(log, it.text ? "B(text){" : "B(ids){");
			hm_buf_add(log, it.s, it.len);
			hm_buf_adds(log, "}");
			break;
		case HM_SRV_TEXT:
			hm_buf_adds(log, "T:");
			hm_buf_add(log, it.s, it.len);
			break;
		case HM_SRV_IDS:
			hm_buf_adds(log, "I:");
			for (k = 0; k < it.n; k++) {
				hm_buf_addu(log, it.ids[k]);
				hm_buf_addc(log, ',');
			}
			break;
		case HM_SRV_END:
			hm_buf_adds(log, "E");
			if (it.len) {
				hm_buf_addc(log, '{');
				hm_buf_add(log, it.s, it.len);
				hm_buf_addc(log, '}');
			}
			break;
		case HM_SRV_ERROR:
			hm_buf_adds(log, "X:");
			hm_buf_add(log, it.s, it.len);
			break;
		case HM_SRV_DUPLICATE:
			hm_buf_adds(log, "D:");
			hm_buf_add(log, it.s, it.len);
			break;
		case HM_SRV_UNKNOWN:
			break;
		}
		hm_buf_addc(log, '|');
	}
}

static int
logis(hm_buf *log, const char *want)
{
	int ok = log->len == strlen(want) && !memcmp(log->p, want, log->len);

	if (!ok)
		fprintf(stderr, "got  %.*s\nwant %s\n", (int)log->len, log->p, want);
	hm_buf_reset(log);
	return ok;
}

static void
test_server(void)
{
	hm_server *sv = hm_server_new();
	hm_buf log = { 0 };

	/* a stream's chunks go out as they come; the stop put back from stop_reason */
	feed(sv, "{\"id\":\"s\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,"
	    "\"text\":\"<|channel|>commentary to=f <|message|>{}\",\"finish_reason\":null}]}", &log);
	CHECK(logis(&log, "B(text){\"id\":\"s\",\"object\":\"text_completion\",\"index\":0}|"
	    "T:<|channel|>commentary to=f <|message|>{}|"));
	/* a whole record behind the open stream waits for it */
	feed(sv, "{\"id\":7,\"tokens\":[1,2]}", &log);
	CHECK(logis(&log, ""));
	feed(sv, "{\"id\":\"s\",\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"stop\","
	    "\"stop_reason\":null}]}", &log);
	/* its END waits for a usage chunk of its id, which it carries with the finish's members */
	CHECK(logis(&log, "T:<|call|>|"));
	feed(sv, "{\"id\":\"s\",\"choices\":[],\"usage\":{\"prompt_tokens\":3}}", &log);
	CHECK(logis(&log, "E{\"id\":\"s\",\"index\":0,\"id\":\"s\",\"usage\":{\"prompt_tokens\":3}}|"
	    "B(ids){\"id\":7}|I:1,2,|E|"));
	/* cumulative (sglang): the suffix only, the stop id from matched */
	feed(sv, "{\"text\":\"a\",\"output_ids\":[5],\"meta_info\":{\"id\":\"g\",\"finish_reason\":null}}", &log);
	feed(sv, "{\"text\":\"ab\",\"output_ids\":[5,6],\"meta_info\":{\"id\":\"g\",\"finish_reason\":null}}", &log);
	feed(sv, "{\"text\":\"ab\",\"output_ids\":[5,6],\"meta_info\":{\"id\":\"g\","
	    "\"finish_reason\":{\"type\":\"stop\",\"matched\":200002}}}", &log);
	CHECK(logis(&log, "B(ids){\"meta_info\":{\"id\":\"g\",\"finish_reason\":null}}|I:5,|"
	    "I:6,|I:200002,|E{\"meta_info\":{\"id\":\"g\",\"finish_reason\":"
	    "{\"type\":\"stop\",\"matched\":200002}}}|"));
	/* an error object; a record with nothing in it */
	feed(sv, "{\"error\":{\"message\":\"boom\"}}", &log);
	CHECK(logis(&log, "X:server error: boom|"));
	feed(sv, "{\"id\":1}", &log);
	CHECK(log.len > 20 && !memcmp(log.p, "X:no completion in the record", 29));
	hm_buf_reset(&log);
	/* Ollama chat: parsed messages made Harmony again */
	feed(sv, "{\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"hm\"},\"done\":false}", &log);
	feed(sv, "{\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":"
	    "{\"name\":\"w\",\"arguments\":{\"c\":1}}}]},\"done\":true,\"done_reason\":\"stop\"}", &log);
	CHECK(logis(&log, "B(text){}|T:<|channel|>analysis<|message|>hm|T:<|end|><|start|>assistant"
	    "<|channel|>commentary to=functions.w <|constrain|>json<|message|>{\"c\":1}<|call|>|E{\"done_reason\":\"stop\"}|"));
	/* --field paths */
	CHECK(hm_server_set_field(sv, ".a[1].b") == HM_OK);
	feed(sv, "{\"id\":2,\"a\":[0,{\"b\":[7,8]}],\"z\":1}", &log);
	CHECK(logis(&log, "B(ids){\"id\":2,\"z\":1}|I:7,8,|E|"));
	CHECK(hm_server_set_field(sv, ".a[") == HM_EINPUT);
	CHECK(hm_server_set_field(sv, "a..b") == HM_OK); /* a bare name, taken whole */
	CHECK(hm_server_set_field(sv, NULL) == HM_OK);
	/*
	 * a carried member given twice: kept as given, named before its BEGIN
	 * (the first such name), by the one-pass and the general reader alike
	 */
	feed(sv, "{\"id\":1,\"m\":1,\"n\":0,\"m\":2,\"n\":3,\"tokens\":[5]}", &log);
	CHECK(logis(&log, "D:m|B(ids){\"id\":1,\"m\":1,\"n\":0,\"m\":2,\"n\":3}|I:5,|E|"));
	feed(sv, "{\"id\":1,\"q\\u00e9\":\"\\/\",\"q\xc3\xa9\":2,\"tokens\":[5]}", &log);
	CHECK(logis(&log, "D:q\xc3\xa9|B(ids){\"id\":1,\"q\xc3\xa9\":\"/\",\"q\xc3\xa9\":2}|I:5,|E|"));
	feed(sv, "{\"id\":1,\"id\":2,\"tokens\":[5]}", &log);
	CHECK(logis(&log, "D:id|B(ids){\"id\":1,\"id\":2}|I:5,|E|"));
	feed(sv, "{\"id\":1,\"tokens\":[5]}", &log);
	CHECK(logis(&log, "B(ids){\"id\":1}|I:5,|E|"));
	CHECK(hm_server_done(sv) == HM_OK);
	hm_buf_free(&log);
	hm_server_free(sv);
}

int
main(void)
{
	test_idscan();
	test_idscan_fast();
	test_sse();
	test_server();
	return UNIT_DONE("servers");
}
