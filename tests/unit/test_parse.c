/*
 * test_parse.c - the streaming parser: reference traces (strict), every
 * split point of ids and text giving the same events, recoveries, bounded
 * memory.
 */
#include <stdlib.h>
#include <string.h>

#include "buf_int.h"
#include "harmony.h"
#include "unit.h"

/* Serialise events; join: merge adjacent deltas (text input chunking). */
static void
ser(hm_buf *b, const hm_event *ev, int join, int *last_delta)
{
	static const char *const t[] = { "", "S", "D", "E", "W", "X", "Z" };

	if (ev->type == HM_EV_DELTA && join && *last_delta) {
		hm_buf_add(b, ev->text.p, ev->text.len);
		return;
	}
	*last_delta = ev->type == HM_EV_DELTA;
	hm_buf_addc(b, '|');
	hm_buf_adds(b, t[ev->type]);
	if (!join) {
		hm_buf_addc(b, '@');
		hm_buf_addu(b, ev->at);
	}
	hm_buf_addc(b, ':');
	switch (ev->type) {
	case HM_EV_START:
		hm_buf_adds(b, ev->role);
		if (ev->name.p) { hm_buf_adds(b, " n="); hm_buf_add(b, ev->name.p, ev->name.len); }
		if (ev->recipient.p) { hm_buf_adds(b, " r="); hm_buf_add(b, ev->recipient.p, ev->recipient.len); }
		if (ev->channel.p) { hm_buf_adds(b, " c="); hm_buf_add(b, ev->channel.p, ev->channel.len); }
		if (ev->content_type.p) { hm_buf_adds(b, " t="); hm_buf_add(b, ev->content_type.p, ev->content_type.len); }
		break;
	case HM_EV_END:
		hm_buf_adds(b, hm_stop_name(ev->stop));
		break;
	case HM_EV_WARNING:
		hm_buf_addu(b, (unsigned)ev->code);
		break;
	case HM_EV_DONE:
		hm_buf_addu(b, (unsigned)ev->truncated);
		break;
	default:
		hm_buf_add(b, ev->text.p, ev->text.len);
	}
}

static void
drain(hm_parser *p, hm_buf *b, int join, int *ld)
{
	hm_event ev;

	while (hm_parser_next(p, &ev))
		ser(b, &ev, join, ld);
}

/* Parse ids cut at the given split points (sorted, ns of them). */
static void
parse_ids(const char *role, unsigned fl, const uint32_t *v, size_t n,
    const size_t *cut, size_t ncut, hm_buf *b)
{
	hm_parser *p = hm_parser_new(role, fl);
	size_t at = 0, i;
	int ld = 0;

	for (i = 0; i <= ncut; i++) {
		size_t end = i < ncut ? cut[i] : n;

		hm_parser_feed(p, v + at, end - at);
		drain(p, b, 0, &ld);
		at = end;
	}
	hm_parser_finish(p);
	drain(p, b, 0, &ld);
	hm_parser_free(p);
}

static void
parse_text(const char *role, unsigned fl, const char *s, size_t n,
    const size_t *cut, size_t ncut, hm_buf *b)
{
	hm_parser *p = hm_parser_new(role, fl);
	size_t at = 0, i;
	int ld = 0;

	for (i = 0; i <= ncut; i++) {
		size_t end = i < ncut ? cut[i] : n;

		hm_parser_feed_text(p, s + at, end - at);
		drain(p, b, 1, &ld);
		at = end;
	}
	hm_parser_finish(p);
	drain(p, b, 1, &ld);
	hm_parser_free(p);
}

static int
ids_same_all_splits(const char *role, unsigned fl, const uint32_t *v, size_t n)
{
	hm_buf whole = { 0 }, part = { 0 };
	size_t i, j, cut[2], *one;
	int ok = 1;

	parse_ids(role, fl, v, n, NULL, 0, &whole);
	for (i = 0; i <= n && ok; i++) {
		for (j = i; j <= n && ok; j++) {
			hm_buf_reset(&part);
			cut[0] = i;
			cut[1] = j;
			parse_ids(role, fl, v, n, cut, 2, &part);
			ok = part.len == whole.len && !memcmp(part.p, whole.p, whole.len);
			if (!ok)
				fprintf(stderr, "split %zu,%zu:\n  %s\n  %s\n", i, j, whole.p, part.p);
		}
	}
	/* Token by token. */
	one = malloc((n + 1) * sizeof *one);
	for (i = 0; i < n; i++)
		one[i] = i;
	hm_buf_reset(&part);
	parse_ids(role, fl, v, n, one, n, &part);
	ok = ok && part.len == whole.len && !memcmp(part.p, whole.p, whole.len);
	free(one);
	hm_buf_free(&whole);
	hm_buf_free(&part);
	return ok;
}

static int
text_same_all_splits(const char *role, unsigned fl, const char *s, hm_buf *whole)
{
	hm_buf part = { 0 };
	size_t n = strlen(s), i, j, cut[2];
	int ok = 1;

	hm_buf_reset(whole);
	parse_text(role, fl, s, n, NULL, 0, whole);
	for (i = 0; i <= n && ok; i++) {
		for (j = i; j <= n && ok; j += 3) {
			hm_buf_reset(&part);
			cut[0] = i;
			cut[1] = j;
			parse_text(role, fl, s, n, cut, 2, &part);
			ok = part.len == whole->len && !memcmp(part.p, whole->p, whole->len);
			if (!ok)
				fprintf(stderr, "text split %zu,%zu:\n  %s\n  %s\n", i, j, whole->p, part.p);
		}
	}
	hm_buf_free(&part);
	return ok;
}

/* Text fed in pieces cut at cut[0..ncut), events with their offsets. */
static const char *tmarker; /* --marker for text_events */

static void
text_events(const char *s, size_t n, const size_t *cut, size_t ncut, hm_buf *b)
{
	hm_parser *p = hm_parser_new("auto", 0);
	size_t at = 0, i;
	int ld = 0;

	if (tmarker)
		hm_parser_set_marker(p, tmarker, strlen(tmarker));

	for (i = 0; i <= ncut; i++) {
		size_t end = i < ncut ? cut[i] : n;

		hm_parser_feed_text(p, s + at, end - at);
		drain(p, b, 0, &ld);
		at = end;
	}
	hm_parser_finish(p);
	drain(p, b, 0, &ld);
	hm_parser_free(p);
}

/*
 * The content c of a final message, from text: the same events (deltas
 * and offsets included) whatever the reads, and one delta per o200k token
 * of c, tokens joined up to whole characters.  every: try every pair of
 * cuts, else `tries` random ones.
 */
static int
text_deltas_ok(const char *c, int every, int tries)
{
	static const char pre[] = "<|channel|>final<|message|>", post[] = "<|return|>";
	hm_buf t = { 0 }, whole = { 0 }, part = { 0 }, want = { 0 };
	hm_ids ids = { 0 };
	size_t n, i, j, cut[3], off, a, len;
	int ok = 1, k;

	hm_buf_adds(&t, pre);
	hm_buf_adds(&t, c);
	hm_buf_adds(&t, post);
	n = t.len;
	text_events(t.p, n, NULL, 0, &whole);
	for (i = 0; ok && every && i <= n; i++)
		for (j = i; ok && j <= n; j++) {
			cut[0] = i;
			cut[1] = j;
			hm_buf_reset(&part);
			text_events(t.p, n, cut, 2, &part);
			ok = part.len == whole.len && !memcmp(part.p, whole.p, whole.len);
		}
	for (k = 0; ok && k < tries; k++) {
		for (i = 0; i < 3; i++)
			cut[i] = (size_t)rand() % (n + 1);
		if (cut[0] > cut[1]) { size_t x = cut[0]; cut[0] = cut[1]; cut[1] = x; }
		if (cut[1] > cut[2]) { size_t x = cut[1]; cut[1] = cut[2]; cut[2] = x; }
		if (cut[0] > cut[1]) { size_t x = cut[0]; cut[0] = cut[1]; cut[1] = x; }
		hm_buf_reset(&part);
		text_events(t.p, n, cut, 3, &part);
		ok = part.len == whole.len && !memcmp(part.p, whole.p, whole.len);
	}
	if (!ok)
		fprintf(stderr, "text cuts %zu,%zu:\n  %s\n  %s\n", cut[0], cut[1], whole.p, part.p);
	/* The deltas the encoder's tokens give. */
	hm_buf_adds(&want, "|S@0:assistant c=final");
	hm_encode_ordinary(c, strlen(c), &ids, NULL);
	off = a = 0;
	for (i = 0; i < ids.len; i++) {
		hm_token_bytes(ids.v[i], &len);
		off += len;
		if (c[off] && ((unsigned char)c[off] & 0xC0) == 0x80)
			continue;
		hm_buf_adds(&want, "|D@");
		hm_buf_addu(&want, sizeof pre - 1 + a);
		hm_buf_addc(&want, ':');
		hm_buf_add(&want, c + a, off - a);
		a = off;
	}
	hm_buf_adds(&want, "|E@");
	hm_buf_addu(&want, sizeof pre - 1 + strlen(c));
	hm_buf_adds(&want, ":return|Z@");
	hm_buf_addu(&want, n);
	hm_buf_adds(&want, ":0");
	/* (Invalid UTF-8 has no encoding to compare with.) */
	if (ok && strlen(c) < 4000 && hm_utf8_valid_prefix(c, strlen(c)) == strlen(c) &&
	    (whole.len != want.len || memcmp(whole.p, want.p, want.len))) {
		fprintf(stderr, "text deltas:\n  want %.*s\n  got  %.*s\n", (int)want.len, want.p,
		    (int)whole.len, whole.p);
		ok = 0;
	}
	hm_ids_free(&ids);
	hm_buf_free(&t);
	hm_buf_free(&whole);
	hm_buf_free(&part);
	hm_buf_free(&want);
	return ok;
}

/*
 * Text t gives the same events, offsets included, for every pair of cuts
 * and fed a byte at a time.
 */
static int
text_events_all_splits(const char *t)
{
	hm_buf whole = { 0 }, part = { 0 };
	size_t n = strlen(t), i, j, cut[2], *one;
	int ok = 1;

	text_events(t, n, NULL, 0, &whole);
	one = malloc((n + 1) * sizeof *one);
	for (i = 0; i < n; i++)
		one[i] = i + 1;
	text_events(t, n, one, n, &part);
	free(one);
	ok = part.len == whole.len && !memcmp(part.p, whole.p, whole.len);
	if (!ok)
		fprintf(stderr, "text bytes:\n  %.*s\n  %.*s\n", (int)whole.len, whole.p,
		    (int)part.len, part.p);
	for (i = 0; ok && i <= n; i++)
		for (j = i; ok && j <= n; j++) {
			cut[0] = i;
			cut[1] = j;
			hm_buf_reset(&part);
			text_events(t, n, cut, 2, &part);
			ok = part.len == whole.len && !memcmp(part.p, whole.p, whole.len);
			if (!ok)
				fprintf(stderr, "text cuts %zu,%zu:\n  %.*s\n  %.*s\n", i, j,
				    (int)whole.len, whole.p, (int)part.len, part.p);
		}
	hm_buf_free(&whole);
	hm_buf_free(&part);
	return ok;
}

/* Events of one whole parse as a string (caller frees). */
static char *
events(const char *role, unsigned fl, const uint32_t *v, size_t n)
{
	hm_buf b = { 0 };

	parse_ids(role, fl, v, n, NULL, 0, &b);
	hm_buf_addc(&b, '\0');
	return b.p;
}

static char *
tevents(const char *role, unsigned fl, const char *s)
{
	hm_buf b = { 0 };

	parse_text(role, fl, s, strlen(s), NULL, 0, &b);
	hm_buf_addc(&b, '\0');
	return b.p;
}

#define EV(role, fl, want, ...) do { \
	static const uint32_t v_[] = { __VA_ARGS__ }; \
	char *got_ = events(role, fl, v_, sizeof v_ / sizeof v_[0]); \
	CHECK_MSG(!strcmp(got_, want), "got %s", got_); \
	free(got_); \
} while (0)

#define TEV(role, fl, s, want) do { \
	char *got_ = tevents(role, fl, s); \
	CHECK_MSG(!strcmp(got_, want), "got %s", got_); \
	free(got_); \
} while (0)

#define STRICT HM_PARSE_STRICT
#define ST 200006
#define MS 200008
#define EN 200007
#define RT 200002
#define CL 200012
#define CH 200005
#define CO 200003
#define IMR 357, 2804, 41897

int
main(void)
{
	hm_buf b = { 0 };

	/* §4.5 delta traces (strict): deltas are what joins the content. */
	EV(NULL, STRICT, "|S@0:assistant|D@4:💖|E@5:end|Z@6:0",
	    ST, 173781, MS, 31446, 244, EN);
	EV(NULL, STRICT, "|S@0:assistant|D@3: |D@4:\xEF\xBF\xBD|D@5: \xEF\xBF\xBD|D@6:worked|E@6:end|Z@7:0",
	    ST, 173781, MS, 9552, 9552, 135596, EN);
	EV(NULL, STRICT, "|S@0:assistant|D@3:ab|D@6:\xEF\xBF\xBD|E@6:eos|Z@6:1",
	    ST, 173781, MS, 378, 4294967295u, 8301);
	EV(NULL, STRICT, "|S@0:assistant|D@3: |D@6:\xEF\xBF\xBD\xEF\xBF\xBD|E@6:eos|Z@6:1",
	    ST, 173781, MS, 9552, 4294967295u, 8301);
	/* Default mode: an unknown id costs one U+FFFD and a warning. */
	EV(NULL, 0, "|S@0:assistant|D@3:ab|W@4:12|D@4:\xEF\xBF\xBD|D@5:cd|W@6:10|E@6:eos|Z@6:1",
	    ST, 173781, MS, 378, 4294967295u, 8301);
	/* Strict errors. */
	EV(NULL, STRICT, "|X@0:Unexpected token 200007 while expecting start token 200006",
	    EN, ST, 1428, MS, 87, EN);
	EV("assistant", STRICT, "|X@1:Unexpected EOS while waiting for message header to complete", 0);
	EV(NULL, STRICT, "|X@2:Unknown role: foo", ST, 16660, MS, 87, EN);
	EV(NULL, STRICT, "|X@5:unexpected tokens remaining in message header: Some(\"I\")",
	    ST, 173781, IMR, MS, 87, EN);
	/* Header grammar quirks (strict, from the reference's verified table). */
	EV(NULL, STRICT, "|S@0:assistant r=json c=commentary|D@7:x|E@8:end|Z@9:0",
	    ST, 173781, CH, 12606, 815, 5701, MS, 87, EN);
	EV(NULL, STRICT, "|S@0:tool n=to=bar|D@5:x|E@6:end|Z@7:0",
	    ST, 935, 28, 2990, MS, 87, EN);
	/* ... which the default mode fixes (F3). */
	EV(NULL, 0, "|W@0:3|S@0:assistant c=commentary t=json|D@7:x|E@8:end|Z@9:0",
	    ST, 173781, CH, 12606, 815, 5701, MS, 87, EN);
	EV(NULL, 0, "|W@0:3|S@0:assistant c=commentary t=<|constrain|>json|D@9:x|E@10:end|Z@11:0",
	    ST, 173781, CH, 12606, 815, 220, CO, 4108, MS, 87, EN);
	/* F7: no <|message|>; F10: cut in the header. */
	EV("assistant", 0, "|W@0:7|S@0:assistant c=commentary|D@4:Hello|E@4:end|Z@5:0",
	    CH, 12606, 815, 32949, EN);
	EV(NULL, 0, "|W@0:10|Z@2:1", ST, 173781);
	/* F9: stray stop, text after a stop. */
	EV(NULL, 0, "|S@0:assistant|D@3:x|E@4:end|W@5:9|Z@6:0", ST, 173781, MS, 87, EN, RT);
	EV(NULL, 0, "|S@0:assistant|D@3:x|E@4:return|W@5:9|Z@6:0", ST, 173781, MS, 87, RT, 87);
	/* role auto: assistant unless the stream starts with <|start|>. */
	EV("auto", 0, "|S@0:assistant c=final|D@3:x|E@4:return|Z@5:0", CH, 17196, MS, 87, RT);
	EV("auto", 0, "|S@0:user|D@3:x|E@4:end|Z@5:0", ST, 1428, MS, 87, EN);

	/* Every split point gives the same events. */
	{
		static const uint32_t s1[] = { CH, 35644, MS, 12194, 1354, 31446, 244, 9552, 87, EN,
		    ST, 173781, 316, 28, 44580, 775, 170154, CH, 12606, 815, 220, CO, 4108, MS,
		    90, 92, CL, ST, 173781, CH, 17196, MS, 378, 4294967295u, 8301, RT, 87 };
		static const uint32_t s2[] = { ST, 173781, CH, 17196, 32949, 1354, 1354, 1354,
		    1354, 1354, 1354, 1354, EN, CH, 35644, MS, 222, 222, 9552 };

		CHECK(ids_same_all_splits("assistant", 0, s1, sizeof s1 / sizeof s1[0]));
		CHECK(ids_same_all_splits("assistant", STRICT, s1, 27));
		CHECK(ids_same_all_splits(NULL, 0, s2, sizeof s2 / sizeof s2[0]));
		CHECK(ids_same_all_splits("auto", 0, s2, sizeof s2 / sizeof s2[0]));
	}
	/*
	 * Role and channel words glued after a call's whole arguments, after
	 * a real <|message|> (F21, issue 35 shape d), from ids: the same
	 * split wherever the feeds are cut (fixtures/parse/f21j's ids), and
	 * words that are no header stay in the arguments.
	 */
	{
		static const uint32_t s3[] = { CH, 12606, 815, 316, 28, 44580, 775, 170154, MS,
		    10848, 17500, 7534, 72782, 18583, 173781, 17196, 3206, 382, 46726, 306,
		    12650, 13, RT };
		hm_parser *p = hm_parser_new("auto", 0);
		hm_event ev;
		int starts = 0, f21 = 0;

		CHECK(ids_same_all_splits("auto", 0, s3, sizeof s3 / sizeof s3[0]));
		hm_parser_feed(p, s3, sizeof s3 / sizeof s3[0]);
		hm_parser_finish(p);
		while (hm_parser_next(p, &ev)) {
			starts += ev.type == HM_EV_START;
			f21 += ev.type == HM_EV_WARNING && ev.code == HM_F_GLUED && ev.at == 14;
		}
		CHECK(starts == 2 && f21 == 1);
		hm_parser_free(p);
	}
	{
		const char *t = "<|channel|>analysis<|message|>Think \xF0\x9F\x92\x96 <|x|> a<b"
		    "<|end|><|start|>assistant to=functions.f<|channel|>commentary <|constrain|>json"
		    "<|message|>{\"a\":1}<|call|>";

		CHECK(text_same_all_splits("auto", 0, t, &b));
		CHECK_MSG(!strcmp(b.p, "|S:assistant c=analysis|D:Think 💖 <|x|> a<b|E:end"
		    "|S:assistant r=functions.f c=commentary t=<|constrain|>json|D:{\"a\":1}"
		    "|E:call|Z:0"), "got %s", b.p);
		CHECK(text_same_all_splits("auto", STRICT, t, &b));
	}
	/* Text input: deltas are the encoder's tokens, whatever the reads. */
	CHECK(text_deltas_ok("Hello world", 1, 0));
	CHECK(text_deltas_ok("It's   spaced\n\n  out,   isn't it? They'll 12345 say \xF0\x9F\x92\x96\xE4\xB8\xAD!", 1, 0));
	CHECK(text_deltas_ok("a \t \n  \r\n b''ll 'S 'RE x", 1, 0));
	CHECK(text_deltas_ok("ab\xFF cd \xE2\x82 e\x80\x80" "f", 1, 0));
	{
		static const char *const frag[] = {
			"a", "B", "cd", " ", "  ", "\n", "\r\n", "\t", "'", "ll", "s", "RE",
			"1", "234", "\xC3\xA9", "\xF0\x9F\x92\x96", "\xE4\xB8\xAD", "!", "..",
			"/", "<", "\xC2\xA0", "\xE3\x80\x80", "\xFF", "\xE2\x82", "\x80",
		};
		char t[512];
		int r, k, ok = 1;

		srand(4);
		for (r = 0; r < 300 && ok; r++) {
			t[0] = '\0';
			for (k = rand() % 40; k > 0; k--)
				strcat(t, frag[rand() % (int)(sizeof frag / sizeof frag[0])]);
			ok = text_deltas_ok(t, 0, 20);
		}
		CHECK(ok);
	}
	{
		/* Past TC_MAX: long runs of blanks and of letters. */
		hm_buf t = { 0 };
		int i;

		for (i = 0; i < 5000; i++)
			hm_buf_addc(&t, i % 1000 == 999 ? 'x' : ' ');
		for (i = 0; i < 9000; i++)
			hm_buf_addc(&t, 'a' + i % 3);
		hm_buf_addc(&t, '\0');
		CHECK(text_deltas_ok(t.p, 0, 60));
		hm_buf_free(&t);
	}
	/* F13: stripped specials, split at any point. */
	CHECK(text_same_all_splits("auto", 0, "analysisUser asks 2+2.assistantfinal4", &b));
	CHECK_MSG(!strcmp(b.p, "|W:13|S:assistant c=analysis|D:User asks 2+2.|E:none"
	    "|S:assistant c=final|D:4|E:eos|Z:0"), "got %s", b.p);
	CHECK(text_events_all_splits("analysisX.assistantcommentary to=functions.f json{\"a\":1}"
	    "assistant to=functions.gcommentary{}assistantfinalDone"));
	CHECK(text_events_all_splits("commentaryPre.assistantfinalOk"));
	/* F13 with no later header: `analysis` glued to a letter is reasoning on its own. */
	CHECK(text_same_all_splits("auto", 0, "analysisIn French.Bonjour, le monde !", &b));
	CHECK_MSG(!strcmp(b.p, "|W:13|S:assistant c=analysis|D:In French.Bonjour, le monde !|E:eos|Z:0"),
	    "got %s", b.p);
	CHECK(text_same_all_splits("auto", 0, "analysisThe user wants French.", &b));
	CHECK_MSG(!strcmp(b.p, "|W:13|S:assistant c=analysis|D:The user wants French.|E:eos|Z:0"),
	    "got %s", b.p);
	CHECK(text_same_all_splits("auto", 0, "assistantanalysis\xC3\x89tude.", &b));
	CHECK_MSG(!strcmp(b.p, "|W:13|S:assistant c=analysis|D:\xC3\x89tude.|E:eos|Z:0"), "got %s", b.p);
	CHECK(text_same_all_splits("auto", 0, "finalBonjour", &b));
	CHECK_MSG(!strcmp(b.p, "|W:13|S:assistant c=final|D:Bonjour|E:eos|Z:0"), "got %s", b.p);
	/* ... but a blank or punctuation after it, or `final` + lowercase, is the answer. */
	CHECK(text_same_all_splits("auto", 0, "analysis shows growth.", &b));
	CHECK_MSG(!strstr(b.p, "c=analysis") && !strstr(b.p, "W:13") && strstr(b.p, "|D:analysis shows growth.|"),
	    "got %s", b.p);
	CHECK(text_same_all_splits("auto", 0, "analysis\xE2\x80\x94no.", &b));
	CHECK_MSG(!strstr(b.p, "c=analysis") && !strstr(b.p, "W:13"), "got %s", b.p);
	CHECK(text_same_all_splits("auto", 0, "finally, done.", &b));
	CHECK_MSG(!strstr(b.p, "c=final") && !strstr(b.p, "W:13"), "got %s", b.p);
	CHECK(text_events_all_splits("<|channel|>final<|message|>a <|constrain|>b\xC3<|end|>"
	    "<|start|>assistant<|channel|>x y z w v u t s r<|return|>"));
	CHECK(text_events_all_splits("  plain text, several words and more of them\n"));
	tmarker = "==F==";
	CHECK(text_events_all_splits("let me think it over ==F== the answer"));
	/* Invalid UTF-8 in text that never had a header: F12 whatever the reads. */
	CHECK(text_events_all_splits("think some more \xE6\x97 ==F== answer \xE6\x97"));
	{
		/* ... at the offsets of the bytes, U+FFFD or not. */
		static const char t[] = "think some more \xE6\x97 ==F== answer \xE6\x97";

		hm_buf_reset(&b);
		text_events(t, sizeof t - 1, NULL, 0, &b);
		CHECK_MSG(!strcmp(b.p, "|S@0:assistant c=analysis|D@0:think|D@5: some"
		    "|D@10: more|W@16:12|D@15: \xEF\xBF\xBD|E@18:none"
		    "|S@18:assistant c=final|D@25:answer|W@32:12|D@31: \xEF\xBF\xBD"
		    "|E@34:eos|Z@34:0"), "got %s", b.p);
	}
	tmarker = NULL;
	/* Other headers taken for content: F7, F8, a header too long. */
	CHECK(text_events_all_splits("<|start|>assistant<|channel|>final hi \xFF there \xE6\x97<|end|>"));
	CHECK(text_events_all_splits("<|start|>assistant to=functions.f\xFF {\"a\":\xC3}<|call|>"));
	CHECK(text_events_all_splits("<|start|>assistant b c d e f \xFFg h i\xE6\x97 j\xF0\x9F"));
	CHECK(text_events_all_splits("plain \xC3 text with no header \xE6"));
	CHECK(text_events_all_splits("analysisa\xFF b ==F== xassistantfinalx\xFFy\xE6\x97"));
	tmarker = "==F==";
	tmarker = NULL;
	CHECK(text_events_all_splits("analysis: the data, says the final."));
	/*
	 * F13 with an incomplete character at the end: the U+FFFD and its
	 * F12 warning belong to the last message, at the end of the stream.
	 */
	CHECK(text_events_all_splits("analysisabcassistantfinalxyz\xE6\x97"));
	CHECK(text_events_all_splits("finalassistantfinal.c\xF0\x9F\x99\x82<|constrain|>"
	    "finalyya<|start|> \xE6\x97"));
	CHECK(text_events_all_splits("analysisa\xE6" "bassistantfinalx\xFFy\xE6\x97"));
	CHECK(text_events_all_splits("analysisaaa bbb ccc ddd eee\xFF fff"));
	CHECK(text_same_all_splits("auto", 0, "analysisabcassistantfinalxyz\xE6\x97", &b));
	CHECK_MSG(!strcmp(b.p, "|W:13|S:assistant c=analysis|D:abc|E:none"
	    "|S:assistant c=final|D:xyz|W:12|D:\xEF\xBF\xBD|E:eos|Z:0"), "got %s", b.p);
	/* F8 with a marker. */
	{
		hm_parser *p = hm_parser_new("auto", 0);
		hm_event ev;
		hm_buf o = { 0 };
		int ld = 0;
		const char *t = "let me think ===FINAL=== the answer";
		size_t i;

		hm_parser_set_marker(p, "===FINAL===", 11);
		for (i = 0; t[i]; i++) {
			hm_parser_feed_text(p, t + i, 1);
			while (hm_parser_next(p, &ev))
				ser(&o, &ev, 1, &ld);
		}
		hm_parser_finish(p);
		while (hm_parser_next(p, &ev))
			ser(&o, &ev, 1, &ld);
		CHECK_MSG(strstr(o.p, "c=analysis|D:let me think|") &&
		    strstr(o.p, "c=final|D:the answer|"), "got %s", o.p);
		hm_parser_free(p);
		hm_buf_free(&o);
	}
	/* Issue 9 (F15-F18): every split gives the same events. */
	{
		static const char *const t9[] = {
			"<|channel|>commentary to=functions.get_weather to=functions.get_weather <|constrain|>json<|message|>{\"a\":1}<|call|>",
			"<|start|>assistant to=functions.x<|channel|>commentary to=functions.y json<|message|>{}<|call|>",
			"<|channel|>commentary to=functions.Web Search <|constrain|>json<|message|>{}<|call|>",
			"<|channel|>analysis<|channel|>final<|message|>hi<|return|>",
			"<|channel|>commentary <|constrain|>json to=functions.x<|message|>{}<|call|>",
			"<|channel|>commentary to=functions.x<|reserved_200013|><|constrain|>json<|message|>{}<|call|>",
			"I think hard.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>",
			"I think hard about this problem and then some more.<|channel|>final<|message|>4<|return|>",
			"Let me see, two and two.<|start|>assistant<|channel|>final<|message|>4<|return|>",
			"Prose only, nothing after it at all here.",
			"<|channel|>analysis<|message|>think<|channel|>final<|message|>4<|return|>",
			"<|channel|>final<|message|>a<|start|>b<|channel|>c<|message|>d<|return|>",
			"analysis<|message|>think<|end|><|start|>assistant<|channel|>final<|message|>4",
			/* The same with the special tokens stripped (F13). */
			"analysisNeed it.assistantcommentary to=functions.f to=functions.f json{\"a\":1}",
			"commentary to=functions.Web Search json{\"q\":\"x\"}",
			"We need to add. 2+2 is 4, simple enough for sure.assistantfinal4",
			"Short think.assistantfinal4",
			/* F9: text between a stop and another message is kept, after the last one skipped. */
			"<|channel|>final<|message|>4<|end|> junk \xFF here<|start|>assistant<|channel|>final<|message|>5<|return|> tail",
			"<|channel|>analysis<|message|>a<|end|>junk<|channel|>final<|message|>x<|return|>",
			"<|channel|>analysis<|message|>a<|end|>assistant<|channel|>final<|message|>x<|return|>",
			"<|call|>\nto=functions.f<|channel|>commentary<|message|>{}<|call|>\ncommentary to=functions.g json<|message|>{}<|call|>",
			"<|channel|>commentary to=functions.x <|constrain|>json{\"a\":1}<|call|>",
			"commentary to=functions.x <|constrain|>json<|message|>{\"a\":1}<|call|>",
			/* A long header: taken for text or not whatever the reads. */
			("<|channel|>to=functions.fjson  user functions.Web Searchhello world commentarytool"
			"<|channel|>hello world <|<|<|start|><|message|>"),
			"<|start|>assistantfinal<|><|message|><|call|><|end|> final",
			"<|start|>assistant I think it is four.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>",
			"<|start|>assistant I think so.<|channel|>final<|message|>4<|return|>",
			/* Nothing lost: text and a stop after a stop, a header without a role, glued content. */
			"<|channel|>final<|message|>4<|return|>finalI think.<|end|><|constrain|>",
			"<|call|><|start|>functions.fjson<|channel|>{\"a\":1}<|return|>",
			"to={\"a\":1}<|end|>to=functions.f{\"a\":1}<|call|><|channel|>finalThe answer.<|return|>",
			"to= {\"a\":1}",
			/* Text after the last stop is skipped even when a header follows it. */
			"<|channel|>final<|message|>4<|return|>Hello<|start|>assistant",
			"<|channel|>final<|message|>4<|return|>Hello<|start|>assistant<|channel|>final<|message|>5",
			"I think.<|end|>more<|start|>assistant<|channel|>final<|message|>5<|return|>",
		};
		size_t i;

		for (i = 0; i < sizeof t9 / sizeof t9[0]; i++)
			CHECK_MSG(text_events_all_splits(t9[i]), "case %zu", i);
		CHECK(text_same_all_splits("auto", 0, t9[7], &b));
		CHECK_MSG(!strcmp(b.p, "|W:18|S:assistant c=analysis|D:I think hard about this problem and then some more."
		    "|E:none|W:17|S:assistant c=final|D:4|E:return|Z:0"), "got %s", b.p);
		CHECK(text_same_all_splits("auto", 0, t9[11], &b));
		/* Each stray token in the answer comes right after its F17 warning (issue 35, shape b). */
		CHECK_MSG(!strcmp(b.p, "|S:assistant c=final|D:a|W:17|D:<|start|>b|W:17|D:<|channel|>c"
		    "|W:17|D:<|message|>d|E:return|Z:0"),
		    "got %s", b.p);
		/* ... in text split at stripped headers (F13), and in a header's text made content (F7) */
		CHECK(text_same_all_splits("auto", 0, "analysisThink.assistantfinalThe answer<|message|> is 4.", &b));
		CHECK_MSG(!strcmp(b.p, "|W:13|S:assistant c=analysis|D:Think.|E:none|S:assistant c=final"
		    "|D:The answer|W:17|D:<|message|> is 4.|E:eos|Z:0"), "got %s", b.p);
		CHECK(text_same_all_splits("auto", 0, "<|channel|>final The answer<|constrain|> is 4.<|return|>", &b));
		CHECK_MSG(!strcmp(b.p, "|W:7|S:assistant c=final|D:The answer|W:17|D:<|constrain|> is 4.|E:return|Z:0"),
		    "got %s", b.p);
	}
	{
		/* The same in ids: prose, <|channel|> in content, a repeated recipient. */
		static const uint32_t s3[] = { 40, 2411, 3479, 1078, 495, 4792, 326, 1815, 1236, 945, 13,
		    CH, 17196, MS, 19, RT };
		static const uint32_t s4[] = { CH, 35644, MS, 47153, CH, 17196, MS, 19, RT };
		static const uint32_t s5[] = { CH, 12606, 815, 316, 28, 44580, 775, 170154, 316, 28, 44580,
		    775, 170154, 220, CO, 4108, MS, 90, 92, CL };
		char *e;

		CHECK(ids_same_all_splits("auto", 0, s3, sizeof s3 / sizeof s3[0]));
		CHECK(ids_same_all_splits("auto", 0, s4, sizeof s4 / sizeof s4[0]));
		CHECK(ids_same_all_splits("auto", 0, s5, sizeof s5 / sizeof s5[0]));
		{
			static const uint32_t s6[] = { CH, 17196, MS, 19, EN, 40, 2411, ST, 173781, CH,
			    17196, MS, 20, RT, 40 };
			char *e6;

			CHECK(ids_same_all_splits("auto", 0, s6, sizeof s6 / sizeof s6[0]));
			e6 = events("auto", 0, s6, sizeof s6 / sizeof s6[0]);
			CHECK_MSG(strstr(e6, "|E@4:end|W@5:18|S@5:assistant c=analysis|D@7:I think|E@7:none|S@7:") &&
			    strstr(e6, "|E@13:return|W@14:9|Z@15:0"), "got %s", e6);
			free(e6);
		}
		e = events("auto", 0, s3, sizeof s3 / sizeof s3[0]);
		CHECK_MSG(strstr(e, "|W@0:18|S@0:assistant c=analysis|") && strstr(e, "c=final|D@14:"), "got %s", e);
		free(e);
		e = events("auto", 0, s5, sizeof s5 / sizeof s5[0]);
		CHECK_MSG(!strncmp(e, "|W@0:15|S@0:assistant r=functions.get_weather c=commentary t=<|constrain|>json|D@17:{",
		    85), "got %s", e);
		free(e);
	}
	/* Split special-token text. */
	TEV("auto", 0, "<|channel|>final<|message|>hi<|return|>",
	    "|S:assistant c=final|D:hi|E:return|Z:0");

	/* Bounded memory: a long stream of messages, fed in chunks. */
	{
		hm_parser *p = hm_parser_new("auto", 0);
		uint32_t chunk[4096];
		hm_event ev;
		size_t i, k, nev = 0;

		for (i = 0; i < 4096; i++)
			chunk[i] = i % 512 == 0 ? ST : i % 512 == 1 ? 173781 : i % 512 == 2 ? MS :
			    i % 512 == 511 ? EN : 1354;
		for (k = 0; k < 500; k++) {
			hm_parser_feed(p, chunk, 4096);
			while (hm_parser_next(p, &ev))
				nev++;
		}
		hm_parser_finish(p);
		while (hm_parser_next(p, &ev))
			nev++;
		CHECK(nev == 500 * 8 * (2 + 508) + 1);
		hm_parser_free(p);
	}
	hm_buf_free(&b);
	return UNIT_DONE("test_parse");
}
