/*
 * test_faults - the library's calls when memory runs out, in the style of
 * SQLite's fault injection: this program defines malloc, calloc and
 * realloc itself (the library and cJSON call these), and runs each
 * scenario once undisturbed, counting its N allocations, then N times
 * more with allocation K failing: only K (transient), then K and every
 * one after it (persistent).  Each run must give the undisturbed result,
 * or have a call of the library say so: HM_ENOMEM, NULL from a
 * constructor, or the parser's HM_EV_ERROR event with code HM_ENOMEM.
 * A crash, another error, or HM_OK with another result is a failure.
 *
 * tests/bats/faults*.bats do the same to the tools through an
 * LD_PRELOAD shim; here each library call is held to it directly.
 * Under AddressSanitizer (make sanitize), whose allocator this would
 * bypass, it reports every check as skipped.
 */
#include <stdarg.h>

#include "harmony.h"
#include "unit.h"

#if defined(__SANITIZE_ADDRESS__)
#define HM_NO_FAULTS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HM_NO_FAULTS 1
#endif
#endif

#ifndef HM_NO_FAULTS

/* ---------------------------------------------------------------- the allocator */

static long calls, fail_at = -1;
static int persistent;

static int
fails(void)
{
	calls++;
	return calls == fail_at || (persistent && fail_at > 0 && calls > fail_at);
}

#include "../faults/allocator.h"

/* ---------------------------------------------------------------- scenarios */

/* What a scenario ends with. */
enum { DONE = 0, NOMEM = 1, WRONG = -1 };

/* A status: OK goes on, ENOMEM is reported, anything else is wrong. */
#define TRY(call) do { \
	hm_status st_ = (call); \
	if (st_ == HM_ENOMEM) { r = NOMEM; goto out; } \
	if (st_ != HM_OK) { r = WRONG; goto out; } \
} while (0)
/* A constructor's result: NULL is out of memory. */
#define NEW(var, call) do { if (!((var) = (call))) { r = NOMEM; goto out; } } while (0)

static const char chat_request[] =
	"{\"model\":\"gpt-oss-120b\",\"reasoning_effort\":\"low\",\"messages\":["
	"{\"role\":\"system\",\"content\":\"Be brief.\"},"
	"{\"role\":\"user\",\"content\":\"Weather in Tokyo? \\u00e9t\\u00e9 \xE6\x95\xB0\"},"
	"{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
	"\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Tokyo\\\"}\"}}]},"
	"{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"{\\\"temp\\\":21}\"}],"
	"\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
	"\"description\":\"Weather now.\",\"parameters\":{\"type\":\"object\",\"properties\":"
	"{\"city\":{\"type\":\"string\"},\"unit\":{\"type\":\"string\",\"enum\":[\"c\",\"f\"]},"
	"\"days\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}},\"required\":[\"city\"]}}}]}";

static const char anthropic_request[] =
	"{\"model\":\"gpt-oss\",\"max_tokens\":64,\"system\":\"Be brief.\",\"messages\":["
	"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hi\"}]}],"
	"\"tools\":[{\"name\":\"lookup\",\"description\":\"Look up.\",\"input_schema\":"
	"{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}}}}]}";

static const char completion[] =
	"<|channel|>analysis<|message|>The user asks two things; call the tool. "
	"\xC3\xA9t\xC3\xA9, \xE6\x95\xB0\xE5\xAD\x97, \xF0\x9F\x98\x80.<|end|>"
	"<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json"
	"<|message|>{\"city\":\"Tokyo\"}<|call|>"
	"<|start|>assistant<|channel|>commentary to=functions.lookup <|constrain|>json"
	"<|message|>[1,2]<|call|>"
	"<|start|>assistant<|channel|>final<|message|>It is 21 \xC2\xB0""C.<|return|>";

/* A malformed one: recipient after the channel, junk, no <|message|>, cut off. */
static const char broken[] =
	"I think so.<|start|>assistant<|channel|>commentary to=get_weather json"
	"<|message|>{\"city\":\"Paris\"}<|call|><|start|>assistant<|channel|>final "
	"Answer without a message token<|end|><|start|>assistant<|channel|>final<|message|>cut";

static const char records[] =
	"{\"id\":\"r1\",\"model\":\"m\",\"usage\":{\"prompt_tokens\":12},\"text\":\"<|channel|>final"
	"<|message|>one<|return|>\"}\n"
	"{\"id\":7,\"output_ids\":[200005,17196,200008,1001,200002],\"extra\":{\"a\":[1,2e3]}}\n"
	"{\"id\":\"bad\",\"nothing\":1}\n";

static const char sse[] =
	"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
	"\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"Think\"}}]}\n\n"
	"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
	"\"delta\":{\"content\":\"Hello\"}}]}\n\n"
	"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
	"\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]},"
	"\"finish_reason\":\"tool_calls\"}]}\n\n"
	"data: [DONE]\n\n";

/* Each scenario gets its variant (a shape, a dialect ...) and writes its result to out. */
struct scenario {
	const char *name;
	int (*run)(int variant, hm_buf *out);
	int variants;
};

static void
add_ids(hm_buf *out, const hm_ids *ids)
{
	size_t i;

	for (i = 0; i < ids->len; i++) {
		hm_buf_addu(out, ids->v[i]);
		hm_buf_addc(out, ' ');
	}
	hm_buf_addc(out, '\n');
}

/* A request of each dialect rendered to ids and to text. */
static int
s_render(int variant, hm_buf *out)
{
	const char *req = variant ? anthropic_request : chat_request;
	hm_request_opts ro = HM_REQUEST_OPTS_INIT;
	hm_request rq = { 0 };
	hm_render_opts o = HM_RENDER_OPTS_INIT;
	hm_ids ids = { 0 };
	hm_error err;
	char *text = NULL;
	size_t n;
	int r = DONE;

	ro.date = "2025-06-28";
	o.mode = HM_RENDER_COMPLETION;
	TRY(hm_request_from_json(req, strlen(req), variant ? HM_DIALECT_ANTHROPIC :
	    HM_DIALECT_CHAT, &ro, &rq, &err));
	TRY(hm_render(rq.conv, &o, &ids, &err));
	TRY(hm_render_text(rq.conv, &o, &text, &n, &err));
	add_ids(out, &ids);
	hm_buf_add(out, text, n);
out:
	free(text);
	hm_ids_free(&ids);
	hm_request_free(&rq);
	return r;
}

/* The completion encoded, whole and streamed in pieces of 7 bytes. */
static int
s_encode(int variant, hm_buf *out)
{
	hm_encoder *enc = NULL;
	hm_ids ids = { 0 };
	size_t i, len = strlen(completion);
	int r = DONE;

	NEW(enc, hm_encoder_new());
	if (!variant)
		TRY(hm_encode(enc, completion, len, HM_ENC_SPECIAL, &ids, NULL));
	else {
		for (i = 0; i < len; i += 7)
			TRY(hm_encoder_feed(enc, completion + i, len - i < 7 ? len - i : 7,
			    HM_ENC_SPECIAL, &ids, NULL));
		TRY(hm_encoder_finish(enc, HM_ENC_SPECIAL, &ids, NULL));
	}
	add_ids(out, &ids);
out:
	hm_ids_free(&ids);
	hm_encoder_free(enc);
	return r;
}

/* Pull every event into the writer: DONE, NOMEM or WRONG. */
static int
drain(hm_parser *p, hm_writer *w)
{
	hm_event ev;
	hm_status st;

	while (hm_parser_next(p, &ev)) {
		if (ev.type == HM_EV_ERROR && ev.code == HM_ENOMEM)
			return hm_writer_event(w, &ev) == HM_ENOMEM ? NOMEM : WRONG;
		if ((st = hm_writer_event(w, &ev)) != HM_OK)
			return st == HM_ENOMEM ? NOMEM : WRONG;
	}
	return DONE;
}

/*
 * A completion parsed into a writer: variant = shape * 4 + input, the
 * input ids or text of the completion or of the broken one, fed in
 * pieces (ids 5 at a time, text 9 bytes at a time).
 */
static int
s_parse(int variant, hm_buf *out)
{
	int shape = variant / 4, text = variant & 1;
	const char *src = variant & 2 ? broken : completion;
	hm_encoder *enc = NULL;
	hm_parser *p = NULL;
	hm_writer *w = NULL;
	hm_ids ids = { 0 };
	size_t i, len = strlen(src), n;
	const char *o;
	int r = DONE;

	NEW(enc, hm_encoder_new());
	TRY(hm_encode(enc, src, len, HM_ENC_SPECIAL, &ids, NULL));
	NEW(p, hm_parser_new("assistant", text ? HM_PARSE_COUNT : 0));
	NEW(w, hm_writer_new((hm_shape)shape, text ? HM_WRITER_TEXT_INPUT : 0));
	TRY(hm_writer_begin(w, "\"id\":\"r\",\"usage\":{\"input_tokens\":3}", 35));
	if (text) {
		for (i = 0; i < len && r == DONE; i += 9) {
			if (shape == HM_TO_HTML) /* the page shows the record's input */
				TRY(hm_writer_record_text(w, src + i, len - i < 9 ? len - i : 9));
			TRY(hm_parser_feed_text(p, src + i, len - i < 9 ? len - i : 9));
			r = drain(p, w);
		}
	} else {
		for (i = 0; i < ids.len && r == DONE; i += 5) {
			if (shape == HM_TO_HTML)
				TRY(hm_writer_record_ids(w, ids.v + i, ids.len - i < 5 ? ids.len - i : 5));
			TRY(hm_parser_feed(p, ids.v + i, ids.len - i < 5 ? ids.len - i : 5));
			r = drain(p, w);
		}
	}
	if (r != DONE)
		goto out;
	hm_parser_finish(p);
	if ((r = drain(p, w)) != DONE)
		goto out;
	if (shape == HM_TO_STATS || shape == HM_TO_METRICS || shape == HM_TO_HTML)
		TRY(hm_writer_summary(w));
	if (!(o = hm_writer_output(w, &n))) {
		r = NOMEM;
		goto out;
	}
	hm_buf_add(out, o, n);
out:
	hm_writer_free(w);
	hm_parser_free(p);
	hm_ids_free(&ids);
	hm_encoder_free(enc);
	return r;
}

/* Log records read and written as chat-completion (0) or anthropic (1) objects. */
static int
s_records(int variant, hm_buf *out)
{
	hm_record *rd = NULL;
	hm_writer *w = NULL;
	hm_parser *p = NULL;
	hm_error e;
	const char *s = records, *nl, *f, *o;
	size_t n, fl;
	hm_status st;
	int r = DONE;

	NEW(rd, hm_record_new());
	NEW(w, hm_writer_new(variant ? HM_TO_ANTHROPIC : HM_TO_CHAT_COMPLETION, HM_WRITER_RECORDS));
	for (; (nl = strchr(s, '\n')); s = nl + 1) {
		const uint32_t *ids;
		const char *text;

		st = hm_record_read(rd, s, (size_t)(nl - s), 0, &e);
		if (st == HM_ENOMEM) {
			r = NOMEM;
			goto out;
		}
		if (st != HM_OK) {
			const char *id = hm_record_id(rd);

			hm_buf_adds(out, "error ");
			hm_buf_adds(out, id ? id : "-");
			hm_buf_adds(out, e.msg);
			hm_buf_addc(out, '\n');
			continue;
		}
		f = hm_record_fields(rd, &fl);
		ids = hm_record_tokens(rd, &n);
		hm_writer_set_text_input(w, ids == NULL);
		TRY(hm_writer_begin(w, f, fl));
		NEW(p, hm_parser_new("auto", ids ? 0 : HM_PARSE_COUNT));
		if (ids)
			TRY(hm_parser_feed(p, ids, n));
		else if ((text = hm_record_text(rd, &n)))
			TRY(hm_parser_feed_text(p, text, n));
		hm_parser_finish(p);
		if ((r = drain(p, w)) != DONE)
			goto out;
		hm_parser_free(p);
		p = NULL;
		if (!(o = hm_writer_output(w, &n))) {
			r = NOMEM;
			goto out;
		}
		hm_buf_add(out, o, n);
		hm_writer_consume(w);
	}
out:
	hm_parser_free(p);
	hm_writer_free(w);
	hm_record_free(rd);
	return r;
}

/* Tool definitions read, written in another shape, rendered, and a call checked. */
static int
s_tools(int variant, hm_buf *out)
{
	static const char schema[] = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
	    "[\"string\",\"null\"],\"description\":\"An a.\"},\"b\":{\"type\":\"object\","
	    "\"properties\":{\"c\":{\"type\":\"integer\"}}}},\"required\":[\"a\"]}";
	const char *tools = strstr(chat_request, "\"tools\":") + 8;
	hm_tools_read_opts o = HM_TOOLS_READ_OPTS_INIT;
	hm_namespace ns = { 0 };
	hm_error err;
	char *js = NULL, *ts = NULL, *nst = NULL;
	size_t n;
	int r = DONE;

	(void)variant;
	TRY(hm_tools_read(tools, strlen(tools) - 1, &o, &ns, &err));
	NEW(js, hm_tools_write(&ns, HM_TOOLS_ANTHROPIC, &n));
	hm_buf_add(out, js, n);
	NEW(nst, hm_render_namespace(&ns, &n));
	hm_buf_add(out, nst, n);
	TRY(hm_schema_to_ts(schema, sizeof schema - 1, &ts, &n, &err));
	hm_buf_add(out, ts, n);
out:
	free(js);
	free(ts);
	free(nst);
	hm_namespace_free(&ns);
	return r;
}

/* A server's SSE stream read into completions. */
static int
s_server(int variant, hm_buf *out)
{
	hm_sse *s = NULL;
	hm_server *sv = NULL;
	hm_server_item it;
	const char *buf = sse, *d;
	size_t len = strlen(sse), used, n, line;
	int ev;
	int r = DONE;

	(void)variant;
	NEW(s, hm_sse_new());
	NEW(sv, hm_server_new());
	hm_server_sse(sv, 1);
	while (len) {
		TRY(hm_sse_feed(s, buf, len < 11 ? len : 11, &used, &ev));
		buf += used;
		len -= used;
		if (!ev)
			continue;
		d = hm_sse_data(s, &n, &line);
		if (n == 6 && !memcmp(d, "[DONE]", 6))
			TRY(hm_server_done(sv));
		else
			TRY(hm_server_feed(sv, d, n, line));
		while (hm_server_next(sv, &it)) {
			hm_buf_addu(out, (unsigned)it.type);
			hm_buf_addc(out, ':');
			if (it.s)
				hm_buf_add(out, it.s, it.len);
			hm_buf_addc(out, '\n');
		}
	}
out:
	hm_server_free(sv);
	hm_sse_free(s);
	return r;
}

/* Records cut from bytes fed in small pieces, a JSON record over lines among them. */
static int
s_framer(int variant, hm_buf *out)
{
	static const char in[] = "1 2 3\n{\"tokens\":\n[4, 5]}\n[6,\n7] x\nhello\n{\"open\":";
	hm_framer *f = NULL;
	hm_frame fr;
	size_t at = 0, k, n = sizeof in - 1;
	int r = DONE, got;

	NEW(f, hm_framer_new(variant ? HM_FRAMER_TEXT : 0));
	for (;;) {
		k = n - at < 5 ? n - at : 5;
		if (k)
			hm_framer_feed(f, in + at, k);
		else
			hm_framer_finish(f);
		at += k;
		while ((got = hm_framer_next(f, &fr)) > 0) {
			hm_buf_addu(out, (unsigned)fr.type);
			hm_buf_addc(out, '@');
			hm_buf_addu(out, fr.line);
			hm_buf_addc(out, ':');
			if (fr.p)
				hm_buf_add(out, fr.p, fr.len);
			hm_buf_addc(out, '\n');
		}
		if (got < 0) {
			r = NOMEM;
			goto out;
		}
		if (!k)
			break;
	}
out:
	hm_framer_free(f);
	return r;
}

static const struct scenario scenarios[] = {
	{ "render", s_render, 2 },
	{ "encode", s_encode, 2 },
	{ "parse", s_parse, 4 * (HM_TO_HTML + 1) },
	{ "records", s_records, 2 },
	{ "tools", s_tools, 1 },
	{ "server", s_server, 1 },
	{ "framer", s_framer, 2 },
};

/* One scenario variant: undisturbed, then every allocation failing in turn. */
static void
sweep(const struct scenario *sc, int variant)
{
	hm_buf want = { 0 }, got = { 0 };
	long k, n, bad = 0;
	int r, mode;

	fail_at = -1;
	calls = 0;
	r = sc->run(variant, &want);
	n = calls;
	if (getenv("HM_FAULTS_VERBOSE"))
		fprintf(stderr, "%s %d: %ld allocations\n", sc->name, variant, n);
	CHECK_MSG(r == DONE && !want.oom && n > 0, "%s %d: the undisturbed run failed (%d)", sc->name,
	    variant, r);
	if (r != DONE)
		return;
	for (mode = 0; mode < 2; mode++) {
		persistent = mode;
		for (k = 1; k <= n; k++) {
			hm_buf_reset(&got);
			fail_at = -1;
			hm_buf_reserve(&got, want.len + 1); /* not among the K */
			calls = 0;
			fail_at = k;
			r = sc->run(variant, &got);
			fail_at = -1;
			if (r == NOMEM || (r == DONE && !got.oom && got.len == want.len &&
			    !memcmp(got.p, want.p, want.len)))
				continue;
			if (bad++ < 3)
				fprintf(stderr, "%s %d: allocation %ld of %ld failing%s: %s\n",
				    sc->name, variant, k, n, mode ? " (and after)" : "",
				    r == WRONG ? "another error" : "HM_OK with another result");
		}
	}
	CHECK_MSG(bad == 0, "%s %d: %ld runs neither undisturbed nor out of memory",
	    sc->name, variant, bad);
	hm_buf_free(&want);
	hm_buf_free(&got);
}

int
main(void)
{
	size_t i;
	int v;

	for (i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
		for (v = 0; v < scenarios[i].variants; v++)
			sweep(&scenarios[i], v);
	return UNIT_DONE("test_faults");
}

#else

int
main(void)
{
	printf("test_faults: 0 passed, 0 failed, 1 skipped\n");
	return 0;
}

#endif
