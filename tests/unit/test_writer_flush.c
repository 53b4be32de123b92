/*
 * test_writer_flush.c - hm_writer_set_flush_fn: a long text written into
 * the output goes out in slices through the caller's function, and the
 * slices join into the very bytes written without it, in every shape that
 * holds a completion and with --pretty's indenting; a short one is
 * written as before, without a call.
 */
#include "harmony.h"
#include "unit.h"

/* The caller's side: the output taken at each call, and the calls counted. */
struct sink {
	hm_buf all;
	size_t calls, most; /* the most the output held at a call */
};

static void
take(struct sink *k, hm_writer *w)
{
	size_t n;
	const char *s = hm_writer_output(w, &n);

	if (n > k->most)
		k->most = n;
	hm_buf_add(&k->all, s, n);
	hm_writer_consume(w);
}

static void
flush(void *ctx, hm_writer *w)
{
	struct sink *k = ctx;

	k->calls++;
	take(k, w);
}

/*
 * The completion s[0..n) (Harmony text) through a writer of shape to,
 * flags, with the flush function (on) or without; the whole output in
 * k->all.
 */
static void
run(hm_shape to, unsigned flags, const char *s, size_t n, int on, struct sink *k)
{
	hm_parser *p = hm_parser_new("assistant", 0);
	hm_writer *w = hm_writer_new(to, flags | HM_WRITER_TEXT_INPUT);
	hm_event ev;
	int ok = 1;

	memset(k, 0, sizeof *k);
	CHECK(p && w);
	if (!p || !w)
		return;
	if (on)
		hm_writer_set_flush_fn(w, flush, k);
	CHECK(hm_parser_feed_text(p, s, n) == HM_OK);
	hm_parser_finish(p);
	/* the output taken after each event, as harmony-parse does */
	while (hm_parser_next(p, &ev)) {
		ok &= hm_writer_event(w, &ev) == HM_OK;
		take(k, w);
	}
	CHECK(ok);
	hm_writer_free(w);
	hm_parser_free(p);
}

int
main(void)
{
	static const hm_shape whole[] = { HM_TO_CHAT, HM_TO_CHAT_COMPLETION, HM_TO_RESPONSES,
	    HM_TO_RESPONSES_STREAM, HM_TO_ANTHROPIC };
	hm_buf c = { 0 };
	size_t i, j;

	/*
	 * Reasoning, then an answer of 300 KB whose characters straddle the
	 * 64 KiB slices (3-byte é's after an odd start), quotes and newlines
	 * to escape.
	 */
	hm_buf_adds(&c, "<|channel|>analysis<|message|>Think \"first\".<|end|>"
	    "<|start|>assistant<|channel|>final<|message|>a");
	for (i = 0; i < 30000; i++)
		hm_buf_adds(&c, "\xE2\x82\xAC\"x\"\n\\ ");
	hm_buf_adds(&c, "<|return|>");
	CHECK(!c.oom);
	for (i = 0; i < sizeof whole / sizeof whole[0]; i++)
		for (j = 0; j < 2; j++) {
			unsigned fl = j ? HM_WRITER_PRETTY : 0;
			struct sink a, b;

			if (j && (whole[i] == HM_TO_RESPONSES_STREAM))
				continue; /* no indenting of SSE */
			run(whole[i], fl, c.p, c.len, 0, &a);
			run(whole[i], fl, c.p, c.len, 1, &b);
			CHECK_MSG(a.all.len > c.len && a.all.len == b.all.len &&
			    !memcmp(a.all.p, b.all.p, a.all.len), "%s%s: %zu bytes, %zu with slices",
			    hm_shape_name(whole[i]), j ? " pretty" : "", a.all.len, b.all.len);
			/* 300 KB escaped is at least 4 slices: none held the whole */
			CHECK_MSG(b.calls >= 4 && b.most < a.all.len / 2, "%s: %zu calls, at most %zu",
			    hm_shape_name(whole[i]), b.calls, b.most);
			CHECK(a.calls == 0);
			hm_buf_free(&a.all);
			hm_buf_free(&b.all);
		}
	/* a short completion: no call */
	{
		static const char s[] = "<|channel|>final<|message|>Hi.<|return|>";
		struct sink k;

		run(HM_TO_CHAT, 0, s, sizeof s - 1, 1, &k);
		CHECK(k.calls == 0 && k.all.len > 0);
		hm_buf_free(&k.all);
	}
	hm_buf_free(&c);
	return UNIT_DONE("test_writer_flush");
}
