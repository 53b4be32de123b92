/*
 * test_threads - the library from eight threads at once: each renders a
 * conversation, encodes a completion, parses it (as ids and as text,
 * counting its tokens) and writes the Chat and Anthropic shapes, again and
 * again; every result must be the one the same work gives on one thread.
 * Each object belongs to one thread; only the vocabulary and the tables are
 * shared, read-only (harmony.h: no mutable global state).  make sanitize
 * runs it under AddressSanitizer; a data race that corrupts a result, as
 * the render's shared encoder once did, fails it here too.  Each round
 * also runs the README's example program (build/readme_example.c, taken
 * from README.md by the Makefile), its output caught per thread.
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
#include "readme_example.c"
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

#define THREADS 8
#define ROUNDS 40

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
	/* the README's example, as the README says it runs */
	CHECK_MSG(ok && strstr(want[0], "example ok\nprompt: 13 tokens\n"
	          "assistant [analysis]: Easy. (end)\nassistant [final]: 4 (return)\nfirst ids: "),
	          "the README's example: %s", want[0] ? strstr(want[0], "example") : "(failed)");
	if (!ok)
		return UNIT_DONE("test_threads");
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
	return UNIT_DONE("test_threads");
}
