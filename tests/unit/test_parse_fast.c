/*
 * test_parse_fast.c - the fast paths: merged content deltas give the same
 * text as per-token deltas for every split point, the word-at-a-time
 * JSON escaper writes what a plain byte-by-byte serde-style escaper
 * writes, and --pretty's indenter gives the same text however its input
 * is cut.
 */
#include <stdlib.h>
#include <string.h>

#include "buf_int.h"
#include "harmony.h"
#include "parser_int.h"
#include "unit.h"
#include "writers_int.h"

#define ST HM_TOK_START
#define EN HM_TOK_END
#define MS 200008u
#define CH HM_TOK_CHANNEL

/* Events with adjacent deltas joined, so only the text counts. */
static void
drain_joined(hm_parser *p, hm_buf *b, int *ld, size_t *ndelta)
{
	hm_event ev;

	while (hm_parser_next(p, &ev)) {
		if (ev.type == HM_EV_DELTA) {
			(*ndelta)++;
			if (!*ld)
				hm_buf_adds(b, "|D:");
			hm_buf_add(b, ev.text.p, ev.text.len);
			*ld = 1;
			continue;
		}
		*ld = 0;
		hm_buf_adds(b, "|");
		hm_buf_addu(b, (unsigned)ev.type);
		hm_buf_addc(b, '@');
		hm_buf_addu(b, ev.at);
		if (ev.type == HM_EV_WARNING || ev.type == HM_EV_ERROR) {
			hm_buf_addc(b, ':');
			hm_buf_add(b, ev.text.p, ev.text.len);
		}
	}
}

static size_t
run(const uint32_t *v, size_t n, unsigned fl, int merge, size_t c0, size_t c1,
    hm_buf *b)
{
	hm_parser *p = hm_parser_new("assistant", fl);
	size_t cut[3] = { c0, c1, n }, at = 0, i, nd = 0;
	int ld = 0;

	hm_parser_set_merge(p, merge);
	for (i = 0; i < 3; i++) {
		hm_parser_feed(p, v + at, cut[i] - at);
		drain_joined(p, b, &ld, &nd);
		at = cut[i];
	}
	hm_parser_finish(p);
	drain_joined(p, b, &ld, &nd);
	hm_parser_free(p);
	return nd;
}

/* Merged and per-token parses agree for every pair of split points. */
static int
merge_agrees(const uint32_t *v, size_t n, unsigned fl)
{
	hm_buf a = { 0 }, b = { 0 };
	size_t i, j;
	int ok = 1;

	run(v, n, fl, 0, 0, 0, &a);
	for (i = 0; i <= n && ok; i++)
		for (j = i; j <= n && ok; j++) {
			hm_buf_reset(&b);
			run(v, n, fl, 1, i, j, &b);
			ok = a.len == b.len && !memcmp(a.p, b.p, a.len);
			if (!ok)
				fprintf(stderr, "merge split %zu,%zu:\n  %s\n  %s\n", i, j, a.p, b.p);
		}
	hm_buf_free(&a);
	hm_buf_free(&b);
	return ok;
}

static uint32_t
rank_of(const char *s, size_t n)
{
	int32_t r = hm_vocab_rank(s, n);

	return r < 0 ? 0 : (uint32_t)r;
}

/* An ordinary token longer than 16 bytes, and one that is not ASCII. */
static void
find_tokens(uint32_t *longt, uint32_t *utf)
{
	uint32_t id;
	size_t n;
	const char *s;

	*longt = *utf = 0;
	for (id = 1000; id < HM_N_ORDINARY && (!*longt || !*utf); id++) {
		s = hm_token_bytes(id, &n);
		if (!*longt && n > 20 && hm_utf8_valid_prefix(s, n) == n)
			*longt = id;
		if (!*utf && n >= 2 && (unsigned char)s[0] >= 0xC2 &&
		    hm_utf8_valid_prefix(s, n) == n)
			*utf = id;
	}
}

static void
test_merge(void)
{
	uint32_t longt, utf, last = HM_N_ORDINARY - 1;
	uint32_t hello = 24912, world = 2375;
	uint32_t e6 = rank_of("\xE6", 1), b7 = rank_of("\xB7", 1), a5 = rank_of("\xA5", 1);
	uint32_t ff = rank_of("\xFF", 1);

	find_tokens(&longt, &utf);
	CHECK(longt && utf && e6 && b7 && a5 && ff);
	{
		/* Plain ASCII, a long token, a non-ASCII token, the last rank. */
		uint32_t v[] = { CH, 35644, MS, hello, world, longt, utf, hello, last,
		    world, EN, ST, 173781, MS, hello, world, EN };

		CHECK(merge_agrees(v, sizeof v / sizeof v[0], 0));
		CHECK(merge_agrees(v, sizeof v / sizeof v[0], HM_PARSE_STRICT));
	}
	{
		/* A character cut across tokens (U+6DE5 as E6 B7 A5), bad bytes, unknown ids. */
		uint32_t v[] = { CH, 35644, MS, hello, e6, b7, a5, world, e6, world,
		    ff, hello, 300000, world, world, e6, EN };

		CHECK(merge_agrees(v, sizeof v / sizeof v[0], 0));
		CHECK(merge_agrees(v, sizeof v / sizeof v[0], HM_PARSE_STRICT));
	}
	{
		/*
		 * Random content: ASCII runs broken by long, non-ASCII, cut
		 * and unknown tokens and by the last ranks (read up to the end
		 * of the vocabulary's bytes).
		 */
		uint32_t pool[] = { hello, world, hello, world, 13, 220, longt, utf, e6, b7,
		    a5, ff, last, last - 1, last - 2, 300000, hello, world };
		uint32_t v[28];
		unsigned long seed = 7;
		int t, k, ok = 1;

		for (t = 0; t < 300 && ok; t++) {
			v[0] = CH;
			v[1] = 35644;
			v[2] = MS;
			for (k = 3; k < 27; k++) {
				seed = seed * 6364136223846793005UL + 1442695040888963407UL;
				v[k] = pool[(seed >> 33) % (sizeof pool / sizeof pool[0])];
			}
			v[27] = EN;
			ok = merge_agrees(v, 28, 0);
		}
		CHECK(ok);
	}
	{
		/* A whole run is one delta, at its first token. */
		uint32_t v[] = { CH, 35644, MS, hello, world, hello, world, EN };
		hm_parser *p = hm_parser_new("assistant", 0);
		hm_event ev;
		int nd = 0;

		hm_parser_set_merge(p, 1);
		hm_parser_feed(p, v, 8);
		hm_parser_finish(p);
		while (hm_parser_next(p, &ev)) {
			if (ev.type != HM_EV_DELTA)
				continue;
			nd++;
			CHECK(ev.at == 3);
			CHECK(ev.text.len == 22 && !memcmp(ev.text.p, "hello worldhello world", 22));
		}
		CHECK(nd == 1);
		hm_parser_free(p);
	}
	{
		/* Without merging, one delta per token. */
		uint32_t v[] = { CH, 35644, MS, hello, world, hello, world, EN };
		hm_buf b = { 0 };

		CHECK(run(v, 8, 0, 0, 0, 0, &b) == 4);
		hm_buf_reset(&b);
		CHECK(run(v, 8, 0, 1, 0, 0, &b) == 1);
		hm_buf_free(&b);
	}
}

/* ---------------------------------------------------------------- JSON */

/* serde_json's escaping written the plain way, byte by byte, to compare with. */
static void
ref_json_str(hm_buf *b, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, k, bad;
	uint32_t cp;

	hm_buf_addc(b, '"');
	while (i < n) {
		unsigned c = s[i];

		if (c >= 0x80) {
			k = hm_utf8_decode(s + i, n - i, &cp, &bad);
			if (k)
				hm_buf_add(b, s + i, k), i += k;
			else
				hm_buf_add(b, "\xEF\xBF\xBD", 3), i += bad;
			continue;
		}
		if (c == '"')
			hm_buf_adds(b, "\\\"");
		else if (c == '\\')
			hm_buf_adds(b, "\\\\");
		else if (c == '\b')
			hm_buf_adds(b, "\\b");
		else if (c == '\f')
			hm_buf_adds(b, "\\f");
		else if (c == '\n')
			hm_buf_adds(b, "\\n");
		else if (c == '\r')
			hm_buf_adds(b, "\\r");
		else if (c == '\t')
			hm_buf_adds(b, "\\t");
		else if (c < 0x20) {
			char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

			hm_buf_add(b, u, 6);
		} else
			hm_buf_addc(b, (char)c);
		i++;
	}
	hm_buf_addc(b, '"');
}

static int
body_same(const char *s, size_t n)
{
	hm_buf a = { 0 }, b = { 0 };
	int ok;

	ref_json_str(&a, s, n);
	hm__w_str(&b, s, n);
	ok = a.len == b.len && !memcmp(a.p, b.p, a.len);
	if (!ok)
		fprintf(stderr, "escape differs (%zu bytes):\n  %s\n  %s\n", n, a.p, b.p);
	hm_buf_free(&a);
	hm_buf_free(&b);
	return ok;
}

static void
test_escape(void)
{
	static const char specials[] = { '"', '\\', '\n', '\t', '\x01', '\x1f',
	    '\x7f', ' ', '/', '\0' };
	static const char *const multi[] = { "\xC3\xA9", "\xE6\xB7\xA5",
	    "\xF0\x9F\x98\x80", "\xE6\xB7", "\xFF", "\xC0\x80", "\xED\xA0\x80" };
	char s[64];
	size_t n, i, k, bad = 0;
	uint64_t x = 88172645463325252ull;

	/* Every special byte at every position of strings around a word. */
	for (n = 1; n <= 24; n++)
		for (i = 0; i < n; i++)
			for (k = 0; k < sizeof specials; k++) {
				memset(s, 'a', n);
				s[i] = specials[k];
				bad += !body_same(s, n);
			}
	CHECK(bad == 0);
	bad = 0;
	for (n = 0; n <= 20; n++)
		for (i = 0; i + 1 <= n; i++)
			for (k = 0; k < sizeof multi / sizeof multi[0]; k++) {
				size_t m = strlen(multi[k]);

				memset(s, 'b', sizeof s);
				memcpy(s + i, multi[k], m);
				bad += !body_same(s, n + m);
			}
	CHECK(bad == 0);
	/* Random bytes, mostly ASCII. */
	bad = 0;
	for (k = 0; k < 20000; k++) {
		n = k % 48;
		for (i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			s[i] = (x & 7) ? (char)(0x20 + (x >> 8) % 95) : (char)(x >> 16);
		}
		bad += !body_same(s, n);
	}
	CHECK(bad == 0);
	CHECK(body_same("", 0));
}

/* ---------------------------------------------------------------- pretty */

static void
pretty_all(const char *in, size_t cut, hm_buf *out)
{
	struct hm_pretty st = { 0 };
	size_t n = strlen(in);

	hm__w_pretty(&st, out, in, cut);
	hm__w_pretty(&st, out, in + cut, n - cut);
}

static void
test_pretty(void)
{
	static const char in[] =
	    "{\"a\":[1,{\"b\":\"x, {y}: [z]\\\"\\\\\"},[]],\"c\":{},\"d\":null}\n"
	    "{\"e\": [ 1 , 2 ], \"f\":{ }}\n";
	static const char want[] =
	    "{\n"
	    "  \"a\": [\n"
	    "    1,\n"
	    "    {\n"
	    "      \"b\": \"x, {y}: [z]\\\"\\\\\"\n"
	    "    },\n"
	    "    []\n"
	    "  ],\n"
	    "  \"c\": {},\n"
	    "  \"d\": null\n"
	    "}\n"
	    "{\n"
	    "  \"e\": [\n"
	    "    1,\n"
	    "    2\n"
	    "  ],\n"
	    "  \"f\": {}\n"
	    "}\n";
	hm_buf b = { 0 };
	size_t cut, bad = 0;

	pretty_all(in, 0, &b);
	CHECK_MSG(!strcmp(b.p, want), "got:\n%s", b.p);
	/* Every cut point, inside strings and escapes too. */
	for (cut = 0; cut <= strlen(in); cut++) {
		hm_buf_reset(&b);
		pretty_all(in, cut, &b);
		bad += strcmp(b.p, want) != 0;
	}
	CHECK(bad == 0);
	hm_buf_free(&b);
}

int
main(void)
{
	test_merge();
	test_escape();
	test_pretty();
	return UNIT_DONE("test_parse_fast");
}
