/*
 * test_threads - the library from eight threads at once: each renders a
 * conversation, encodes a completion, parses it (as ids and as text,
 * counting its tokens) and writes the Chat and Anthropic shapes; reads log
 * records, id arrays and id records (the one-pass scanner and the general
 * JSON reader, errors too) and merges stats summaries; again and again;
 * every result must be the one the same work gives on one thread.  Each
 * object belongs to one thread; only the vocabulary and the tables are
 * shared, read-only (harmony.h: no mutable global state).  make sanitize
 * runs it under AddressSanitizer; a data race that corrupts a result, as
 * the render's shared encoder once did, fails it here too.  make check
 * also runs it built with ThreadSanitizer (build/tests/test_threads_tsan,
 * fewer rounds): there any data race is a report, and a report ends it
 * (halt_on_error below) with a failure.  Each round also runs the
 * example program (docs/example.c, libharmony(3)'s EXAMPLES), its output
 * caught per thread.
 */
#include <pthread.h>
#include <stdarg.h>

#include "harmony.h"
#include "unit.h"

/* ---------------------------------------------------------------- the README's example */

/* What the example prints, a buffer for each thread. */
static _Thread_local hm_buf example_out;

static int
example_printf(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n > 0)
		hm_buf_add(&example_out, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
	return n;
}

static int
example_putchar(int c)
{
	hm_buf_addc(&example_out, (char)c);
	return c;
}

#define main readme_example
#define printf(...) example_printf(__VA_ARGS__)
#define fprintf(f, ...) example_printf(__VA_ARGS__)
#define putchar(c) example_putchar(c)
#include "../../docs/example.c"
#undef main
#undef printf
#undef fprintf
#undef putchar

/* The example's status and output, as text to compare. */
static void
run_example(hm_buf *res)
{
	int st;

	hm_buf_reset(&example_out);
	st = readme_example();
	hm_buf_adds(res, st == 0 ? "example ok\n" : "example failed\n");
	hm_buf_add(res, example_out.p, example_out.len);
	if (example_out.oom)
		res->oom = 1;
	hm_buf_free(&example_out);
}

#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_THREAD__) || __has_feature(thread_sanitizer)
/* Under ThreadSanitizer: the first report ends the run, as a failure. */
const char *__tsan_default_options(void);
const char *
__tsan_default_options(void)
{
	return "halt_on_error=1:exitcode=66";
}
#define THREADS 8
#define ROUNDS 8
#define NAME "test_threads_tsan"
#else
#define THREADS 8
#define ROUNDS 40
#define NAME "test_threads"
#endif

static const char conv[] =
	"{\"messages\":[{\"role\":\"system\",\"content\":[{\"type\":\"system_content\","
	"\"model_identity\":\"You are a helpful assistant.\",\"reasoning_effort\":\"High\","
	"\"conversation_start_date\":\"2025-06-28\"}]},{\"role\":\"user\",\"content\":"
	"\"What is the weather in Tokyo, and what is 2+2? Answer in French, s'il vous plaît.\"}]}";
static const char completion[] =
	"<|channel|>analysis<|message|>The user asks two things; call the weather tool, "
	"then answer. Ünïcödé, 数字, emoji \xF0\x9F\x98\x80 and a long numbr 1234567890123.<|end|>"
	"<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json"
	"<|message|>{\"city\":\"Tokyo\"}<|call|>"
	"<|start|>assistant<|channel|>final<|message|>Il fait beau ; 2+2 = 4.<|return|>";

/*
 * The conversation of round r: the one above with a user message of long
 * made-up words, longer each round, so that byte-pair merging needs more
 * scratch while other threads merge too.
 */
static char *
conversation(int r)
{
	hm_buf b = { 0 };
	uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(r + 1);
	int i, k;

	hm_buf_add(&b, conv, strlen(conv) - 4); /* without the closing "}]} */
	hm_buf_adds(&b, " ");
	for (i = 0; i < 4; i++) {
		for (k = 0; k < 40 + 25 * r; k++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			hm_buf_addc(&b, (char)('a' + (x >> 59) % 26));
		}
		hm_buf_addc(&b, ' ');
	}
	hm_buf_adds(&b, "\"}]}");
	return b.oom ? (hm_buf_free(&b), NULL) : b.p;
}

/* ---------------------------------------------------------------- records, ids, merge */

/* An error as text: its status, place and message. */
static void
say_error(hm_buf *res, hm_status st, const hm_error *e)
{
	hm_buf_adds(res, "status ");
	hm_buf_addu(res, (unsigned long long)st);
	if (st == HM_EINPUT) {
		hm_buf_adds(res, " col ");
		hm_buf_addu(res, e->col);
		hm_buf_adds(res, " index ");
		hm_buf_addu(res, e->index);
		hm_buf_addc(res, ' ');
		hm_buf_adds(res, e->msg);
	}
	hm_buf_addc(res, '\n');
}

/*
 * Round r's log records: ones the one-pass scanner takes, and ones it
 * leaves to the general reader (a leading zero, a repeated key, escapes,
 * text, JSON errors, ids out of range), read as records and as ids; then
 * a stats writer sums them up, and its summary is merged with others'
 * (one after a byte order mark), bad ones refused.
 */
static void
records_work(int r, hm_buf *res)
{
	char recs[8][256];
	hm_record *rec = hm_record_new();
	hm_writer *w = hm_writer_new(HM_TO_STATS, 0), *m = hm_writer_new(HM_TO_STATS, 0);
	hm_error e;
	hm_status st;
	size_t i, k, n;
	const char *s;
	char *rest;

	if (!rec || !w || !m) {
		res->oom = 1;
		goto out;
	}
	snprintf(recs[0], sizeof recs[0], "{\"id\":\"r%d\",\"tokens\":[200005,%d,200007],\"m\":{\"k\":[1,2]}}", r, 1000 + r);
	snprintf(recs[1], sizeof recs[1], "{\"id\":%d,\"token_ids\":[200005,%d,200007],\"x\":\"caf\\u00e9\"}", r, r + 1);
	/* the member read given twice is an error: an id key not read is carried */
	snprintf(recs[2], sizeof recs[2], "\v{\"output_ids\":[%d],\"input_ids\":[7]}", 300 + r);
	snprintf(recs[3], sizeof recs[3], "{\"text\":\"<|channel|>final<|message|>%d \\ud83d\\ude00<|return|>\",\"n\":01}", r);
	snprintf(recs[4], sizeof recs[4], "{\"tokens\":[1,2,%d}", r);
	snprintf(recs[5], sizeof recs[5], "{\"input_ids\":[%d,4294967296]}", r);
	snprintf(recs[6], sizeof recs[6], "[%d, 2, 3]", 500 + r);
	snprintf(recs[7], sizeof recs[7], "{\"tokens\":[%d,1e400],\"a\":\"\\uZZZZ\"}", r);
	for (i = 0; i < 8; i++) {
		hm_ids ids = { 0 };
		hm_parser *p;

		/* as a record, then its ids through a parser into the stats */
		st = hm_record_read(rec, recs[i], strlen(recs[i]), 0, &e);
		say_error(res, st, &e);
		if (st == HM_OK) {
			const uint32_t *v = hm_record_tokens(rec, &n);
			const char *f = hm_record_fields(rec, &k);

			hm_buf_add(res, f, k);
			hm_buf_addc(res, '|');
			hm_buf_adds(res, hm_record_id(rec) ? hm_record_id(rec) : "-");
			hm_buf_addc(res, '|');
			hm_buf_addu(res, hm_record_end(rec));
			hm_buf_addc(res, '|');
			if ((p = hm_parser_new("assistant", v ? 0 : HM_PARSE_COUNT))) {
				hm_event ev;

				hm_writer_set_text_input(w, !v);
				if (v)
					hm_parser_feed(p, v, n);
				else if ((s = hm_record_text(rec, &n)))
					hm_parser_feed_text(p, s, n);
				hm_parser_finish(p);
				while (hm_parser_next(p, &ev))
					hm_writer_event(w, &ev);
				hm_parser_free(p);
			} else
				res->oom = 1;
			for (k = 0; v && k < n; k++)
				hm_buf_addu(res, v[k]), hm_buf_addc(res, ' ');
			if (!v && (s = hm_record_text(rec, &n)))
				hm_buf_add(res, s, n);
			hm_buf_addc(res, '\n');
		}
		/* as ids, the members left carried */
		rest = NULL;
		st = hm_ids_parse(recs[i], strlen(recs[i]), i & 1 ? HM_IDS_ANY : 0, &ids, &rest, &e);
		say_error(res, st, &e);
		for (k = 0; st == HM_OK && k < ids.len; k++)
			hm_buf_addu(res, ids.v[k]), hm_buf_addc(res, ' ');
		hm_buf_adds(res, rest ? rest : "(no rest)");
		hm_buf_addc(res, '\n');
		free(rest);
		hm_ids_free(&ids);
	}
	/* the summary, merged with two of other parts, and bad lines refused whole */
	s = hm_writer_output(w, &n);
	hm_buf_add(res, s, n);
	hm_writer_consume(w);
	if (hm_writer_summary(w) != HM_OK)
		res->oom = 1;
	s = hm_writer_output(w, &n);
	hm_buf_add(res, s, n);
	{
		char other[256];
		const char *lines[4];

		snprintf(other, sizeof other, "\xEF\xBB\xBF{\"records\":%d,\"tokens\":%d,\"channels\":{\"final\":%d},"
		    "\"recoveries\":{\"F3\":1},\"tokens_min\":2,\"tokens_max\":%d,"
		    "\"tokens_hist\":{\"2\":1,\"16\":%d}} trailing", r + 1, 10 * r + 2, r, 16 + r, r);
		lines[0] = s;
		lines[1] = other;
		lines[2] = "{\"records\":1,\"channels\":{\"final\":-1}}";
		lines[3] = "{\"records\":[";
		for (i = 0; i < 4; i++) {
			st = hm_writer_merge_summary(m, lines[i], i ? strlen(lines[i]) : n, &e);
			say_error(res, st, &e);
		}
	}
	if (hm_writer_summary(m) != HM_OK)
		res->oom = 1;
	s = hm_writer_output(m, &n);
	hm_buf_add(res, s, n);
out:
	hm_record_free(rec);
	hm_writer_free(w);
	hm_writer_free(m);
}

/* One round's results, as text to compare. */
static char *
work(int r)
{
	char *conv = conversation(r);
	hm_render_opts ro = HM_RENDER_OPTS_INIT;
	hm_conversation *c = NULL;
	hm_encoder *enc = hm_encoder_new();
	hm_ids prompt = { 0 }, out = { 0 };
	hm_buf res = { 0 };
	hm_error err;
	hm_event ev;
	int shape, text;
	size_t i, n;
	const char *s;

	ro.mode = HM_RENDER_COMPLETION;
	if (!conv || !enc || hm_conversation_from_json(conv, strlen(conv), &c, &err) != HM_OK ||
	    hm_render(c, &ro, &prompt, &err) != HM_OK ||
	    hm_encode(enc, completion, strlen(completion), HM_ENC_SPECIAL, &out, NULL) != HM_OK) {
		hm_encoder_free(enc);
		hm_conversation_free(c);
		free(conv);
		return NULL;
	}
	free(conv);
	/* the thread's own encoder, warm from the completion: the same prompt */
	{
		hm_ids again = { 0 };
		int same = hm_render_with(enc, c, &ro, &again, &err) == HM_OK &&
		    again.len == prompt.len &&
		    !memcmp(again.v, prompt.v, prompt.len * sizeof *prompt.v);

		hm_ids_free(&again);
		if (!same)
			res.oom = 1; /* counted as a failed round */
	}
	for (i = 0; i < prompt.len; i++)
		hm_buf_addu(&res, prompt.v[i]), hm_buf_addc(&res, ' ');
	hm_buf_addc(&res, '\n');
	for (i = 0; i < out.len; i++)
		hm_buf_addu(&res, out.v[i]), hm_buf_addc(&res, ' ');
	hm_buf_addc(&res, '\n');
	for (shape = 0; shape < 2; shape++) {
		for (text = 0; text < 2; text++) {
			hm_parser *p = hm_parser_new("assistant", text ? HM_PARSE_COUNT : 0);
			hm_writer *w = hm_writer_new(shape ? HM_TO_ANTHROPIC : HM_TO_CHAT, 0);

			if (!p || !w) {
				hm_parser_free(p);
				hm_writer_free(w);
				res.oom = 1;
				break;
			}
			if (text) {
				hm_writer_set_text_input(w, 1);
				hm_parser_feed_text(p, completion, strlen(completion));
			} else {
				hm_parser_feed(p, out.v, out.len);
			}
			hm_parser_finish(p);
			while (hm_parser_next(p, &ev))
				hm_writer_event(w, &ev);
			s = hm_writer_output(w, &n);
			hm_buf_add(&res, s, n);
			hm_parser_free(p);
			hm_writer_free(w);
		}
	}
	records_work(r, &res);
	run_example(&res);
	hm_ids_free(&prompt);
	hm_ids_free(&out);
	hm_encoder_free(enc);
	hm_conversation_free(c);
	if (res.oom) {
		hm_buf_free(&res);
		return NULL;
	}
	return res.p;
}

struct job {
	char **want; /* each round's, from one thread */
	int first, bad;
};

static void *
run(void *arg)
{
	struct job *j = arg;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		int r = (j->first + i) % ROUNDS; /* the threads at different rounds */
		char *got = work(r);

		if (!got || strcmp(got, j->want[r]))
			j->bad++;
		free(got);
	}
	return NULL;
}

int
main(void)
{
	pthread_t t[THREADS];
	struct job jobs[THREADS];
	char *want[ROUNDS];
	int i, started[THREADS], ok = 1;

	for (i = 0; i < ROUNDS; i++) {
		want[i] = work(i);
		ok &= want[i] != NULL;
	}
	CHECK_MSG(ok && strstr(want[0], "get_weather") && strstr(want[0], "Il fait beau"),
	          "one thread: %s", want[0] ? want[0] : "(failed)");
	/* records, ids and summaries: read, refused and merged */
	CHECK_MSG(ok && strstr(want[0], "status 1 col 17 index 18446744073709551615 not a JSON object\n") &&
	          strstr(want[0], "\"input_ids\":[7]|-|37|300 \n") &&
	          strstr(want[0], "status 1 col 0 index 18446744073709551615 a figure of the summary is not a count\n") &&
	          strstr(want[0], "{\"records\":6,") && strstr(want[0], "\"recoveries\":{\"F3\":1,"),
	          "records, ids, merge: %s", want[0] ? want[0] : "(failed)");
	/* the README's example, as the README says it runs */
	CHECK_MSG(ok && strstr(want[0], "example ok\nprompt: 13 tokens\n"
	          "assistant [analysis]: Easy. (end)\nassistant [final]: 4 (return)\nfirst ids: "),
	          "the README's example: %s", want[0] ? strstr(want[0], "example") : "(failed)");
	if (!ok)
		return UNIT_DONE(NAME);
	for (i = 0; i < THREADS; i++) {
		jobs[i].want = want;
		jobs[i].first = i * ROUNDS / THREADS;
		jobs[i].bad = 0;
		started[i] = pthread_create(&t[i], NULL, run, &jobs[i]) == 0;
		CHECK_MSG(started[i], "thread %d not started", i);
	}
	for (i = 0; i < THREADS; i++) {
		if (!started[i])
			continue;
		pthread_join(t[i], NULL);
		CHECK_MSG(jobs[i].bad == 0, "thread %d: %d of %d rounds differ from one thread's",
		          i, jobs[i].bad, ROUNDS);
	}
	for (i = 0; i < ROUNDS; i++)
		free(want[i]);
	return UNIT_DONE(NAME);
}
