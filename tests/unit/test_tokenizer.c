/* test_tokenizer.c - vocabulary, specials, pre-tokenizer and BPE. */
#include <stdlib.h>
#include <string.h>

#include "bpe_int.h"
#include "harmony.h"
#include "pretok_int.h"
#include "unicode_int.h"
#include "unit.h"
#include "vocab_int.h"

static unsigned rng_state = 2463534242u;

static unsigned
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

static int
enc_eq(const char *text, unsigned flags, const uint32_t *want, size_t n)
{
	hm_encoder *enc = hm_encoder_new();
	hm_ids ids = { 0 };
	int ok = hm_encode(enc, text, strlen(text), flags, &ids, NULL) == HM_OK && ids.len == n &&
	         (n == 0 || memcmp(ids.v, want, n * sizeof *want) == 0);

	if (!ok) {
		fprintf(stderr, "encode(\"%s\") =", text);
		for (size_t i = 0; i < ids.len; i++)
			fprintf(stderr, " %u", ids.v[i]);
		fputc('\n', stderr);
	}
	hm_ids_free(&ids);
	hm_encoder_free(enc);
	return ok;
}

#define ENC(text, flags, ...) do { \
	static const uint32_t w_[] = { __VA_ARGS__ }; \
	CHECK_MSG(enc_eq(text, flags, w_, sizeof w_ / sizeof w_[0]), "%s", text); \
} while (0)

/* tiktoken's merge loop as written in the spec, quadratic, for comparison. */
static void
naive_bpe(const char *p, size_t n, hm_ids *out)
{
	size_t *b = malloc((n + 1) * sizeof *b), m = n, i, best;

	for (i = 0; i <= n; i++)
		b[i] = i;
	for (;;) {
		int32_t min = -1;

		best = 0;
		for (i = 0; i + 1 < m; i++) {
			int32_t r = hm_vocab_rank(p + b[i], b[i + 2] - b[i]);

			if (r >= 0 && (min < 0 || r < min)) {
				min = r;
				best = i;
			}
		}
		if (min < 0)
			break;
		memmove(b + best + 1, b + best + 2, (m - best - 1) * sizeof *b);
		m--;
	}
	for (i = 0; i < m; i++)
		hm_ids_push(out, (uint32_t)hm_vocab_rank(p + b[i], b[i + 1] - b[i]));
	free(b);
}

static void
test_long_pieces(void)
{
	/* single pieces longer than the short-merge limit take the heap path */
	static const char *alpha[] = { "ab", "xyzq", "aeiou", "qwertyuiopasdfghjklzxcvbnm", "la" };
	hm_encoder *enc = hm_encoder_new();
	unsigned seed = 12345;
	size_t t;

	for (t = 0; t < 200; t++) {
		const char *a = alpha[t % 5];
		size_t n = 65 + t * 7 % 400, i, k = strlen(a);
		char *s = malloc(n + 1);
		hm_ids got = { 0 }, want = { 0 };

		for (i = 0; i < n; i++) {
			seed = seed * 1103515245 + 12345;
			s[i] = a[(seed >> 16) % k];
		}
		s[n] = '\0';
		hm_encode(enc, s, n, 0, &got, NULL);
		naive_bpe(s, n, &want);
		CHECK_MSG(got.len == want.len && memcmp(got.v, want.v, got.len * 4) == 0,
		          "piece of %zu letters from \"%s\"", n, a);
		hm_ids_free(&got);
		hm_ids_free(&want);
		free(s);
	}
	hm_encoder_free(enc);
}

/* hm__bpe_merge of p[0..n) with the path limits set to short_max, huge_min
 * (pieces have two bytes or more: 1 turns a path off or on for all). */
static void
merge_with(const char *p, size_t n, size_t short_max, size_t huge_min, hm_ids *out)
{
	hm_bpe_scratch sc = { 0 };

	sc.short_max = short_max;
	sc.huge_min = huge_min;
	sc.plain = 1;
	out->len = 0;
	CHECK(hm__bpe_merge(&sc, (const unsigned char *)p, n, n, out) == HM_OK);
	hm__bpe_scratch_free(&sc);
}

static int
ids_same(const hm_ids *a, const hm_ids *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->v, b->v, a->len * 4) == 0);
}

/*
 * The three merge paths (arrays, heap, compact tree for huge pieces) give
 * the same ids on the same piece, whatever the limits between them; and
 * the spec's loop agrees where it is fast enough to run.  Pieces are drawn
 * from small alphabets (so that merges chain and collide), runs of one
 * letter, UTF-8 letters, and sizes around the tree's 64-byte blocks.
 */
static void
test_bpe_paths(void)
{
	static const char *const alpha[][8] = {
		{ "a" }, { "a", "b" }, { "x", "y", "z", "q" }, { "e", "t", "a", "o", "i", "n", "s", "h" },
		{ "=" , "-", "*" }, { " " }, { "\xe4\xb8\xad", "\xe6\x96\x87", "a" },
		{ "\xc3\xa9", "t", "\xc3\xa9", "s" }, { "A", "a", "B", "b", "0", "/", "+", "=" },
		{ "ab", "cd", "aa", "b" },
	};
	static const size_t sizes[] = { 2, 3, 63, 64, 65, 127, 128, 129, 191, 255, 256, 300, 1000, 4097 };
	size_t na = sizeof alpha / sizeof alpha[0], t, bad = 0, naive_bad = 0;
	hm_ids a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };
	char *s = malloc(20000);

	for (t = 0; t < 1200; t++) {
		const char *const *al = alpha[t % na];
		size_t k = 0, n = 0, want = t < 14 * na ? sizes[t / na] : 2 + rng() % (t % 7 ? 400 : 9000);

		while (k < 8 && al[k])
			k++;
		while (n < want) {
			const char *u = al[rng() % k];
			size_t m = strlen(u);

			if (n + m > want)
				break;
			memcpy(s + n, u, m);
			n += m;
		}
		if (n < 2)
			continue;
		merge_with(s, n, 1, SIZE_MAX, &a);          /* heap */
		merge_with(s, n, 1, 1, &b);                 /* tree */
		merge_with(s, n, 255, SIZE_MAX, &c);        /* arrays up to 255 */
		if (!ids_same(&a, &b) || !ids_same(&a, &c)) {
			if (bad++ < 3)
				fprintf(stderr, "merge paths differ on %zu bytes \"%.*s\"\n", n,
				        (int)(n < 80 ? n : 80), s);
		}
		if (n <= 300) {
			d.len = 0;
			naive_bpe(s, n, &d);
			if (!ids_same(&a, &d) && naive_bad++ < 3)
				fprintf(stderr, "heap and the spec's loop differ on \"%.*s\"\n", (int)n, s);
		}
	}
	CHECK_MSG(bad == 0, "%zu pieces merge differently on the three paths", bad);
	CHECK_MSG(naive_bad == 0, "%zu pieces differ from the spec's loop", naive_bad);
	hm_ids_free(&a);
	hm_ids_free(&b);
	hm_ids_free(&c);
	hm_ids_free(&d);
	free(s);
}

/* hm__bpe_merge of p[0..n) from characters (chars 1) or from bytes only; its status. */
static hm_status
merge_st(const char *p, size_t n, size_t short_max, int chars, hm_ids *out)
{
	hm_bpe_scratch sc = { 0 };
	hm_status st;

	sc.short_max = short_max;
	sc.plain = !chars;
	out->len = 0;
	st = hm__bpe_merge(&sc, (const unsigned char *)p, n, n, out);
	hm__bpe_scratch_free(&sc);
	return st;
}

static void
merge_from(const char *p, size_t n, size_t short_max, int chars, hm_ids *out)
{
	CHECK(merge_st(p, n, short_max, chars, out) == HM_OK);
}

/*
 * Merges that start from whole characters (hm__char_tok) give the ids of
 * merges from single bytes and of the spec's loop: on random Unicode text
 * (CJK, kana, Cyrillic, Arabic, Devanagari, Thai, symbols, the joiner,
 * emoji, ASCII letters, digits, blanks and punctuation, mixed in one
 * piece) and on random bytes (broken and overlong UTF-8 included), on
 * both the array and the heap path.  And the tables are not empty: the
 * common CJK and Cyrillic characters may start as their tokens, and many
 * more beside some of the bytes of a class (hm__char_mask).
 */
static void
test_char_starts(void)
{
	static const char *const sets[][10] = {
		{ "\xe4\xb8\xad", "\xe6\x96\x87", "\xe7\x9a\x84", "\xe6\x98\xaf", "\xe5\x9c\xa8",
		  "\xe4\xba\xba", "\xe3\x81\xae", "\xe3\x83\x86", "\xe8\xaa\x9e", "\xef\xbc\x8c" },
		{ "\xd0\xbf", "\xd1\x80", "\xd0\xb8", "\xd0\xb2", "\xd0\xb5", "\xd1\x82", " ", "\xd0\x9c",
		  "\xd1\x8f", "\xd0\xbe" },
		{ "\xd8\xa7", "\xd9\x84", "\xd9\x85", "\xd8\xb1", "\xd8\xa8", " ", "\xd9\x8a", "\xd8\xb9",
		  "\xd9\x87", "\xd9\x8e" },
		{ "\xe0\xa4\x95", "\xe0\xa4\xbe", "\xe0\xa5\x8d", "\xe0\xa4\xb0", "\xe0\xb8\x81",
		  "\xe0\xb8\xb2", " ", "\xe0\xa4\xae", "\xe0\xa5\x87", "\xe0\xa4\x82" },
		{ "\xe2\x80\x8d", "\xef\xb8\x8f", "\xf0\x9f\x98\x80", "\xe2\x9c\x85", "\xe2\xad\x90",
		  "\xf0\x9f\x91\x8d", "\xe2\x80\x94", "\xc2\xa0", "\xc3\xa9", "\xe2\x82\xac" },
		{ "a", "e", "t", " ", "1", "=", "\n", "\xe4\xb8\x80", "\xd0\xb0", "\xc3\xbc" },
	};
	size_t ns = sizeof sets / sizeof sets[0], t, bad = 0, naive_bad = 0, starts = 0;
	hm_ids a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 }, e = { 0 };
	char s[1200];
	uint32_t cp;

	for (t = 0; t < 6000; t++) {
		size_t n = 0, want = 2 + rng() % (t % 5 ? 40 : 1000);

		if (t % 4 == 3) {
			/* random bytes, biased to lead and continuation bytes */
			while (n < want) {
				unsigned r = rng();

				s[n++] = (char)(r % 3 == 0 ? 0x80 + (r >> 8) % 64 :
				                r % 3 == 1 ? 0xC0 + (r >> 8) % 64 : (r >> 8) & 0xff);
			}
		} else {
			/* one set, or (one time in four) all of them; words after a space */
			size_t k = rng() % ns;

			if (t % 3 == 0)
				s[n++] = ' ';

			while (n < want) {
				const char *u = sets[t % 4 == 2 ? rng() % ns : k][rng() % 10];
				size_t m = strlen(u);

				if (n + m > want)
					break;
				memcpy(s + n, u, m);
				n += m;
			}
		}
		if (n < 2)
			continue;
		merge_from(s, n, 0, 1, &a);     /* defaults: characters */
		merge_from(s, n, 0, 0, &b);     /* defaults: bytes */
		merge_from(s, n, 1, 1, &c);     /* the heap, from characters */
		merge_from(s, n, 255, 1, &e);   /* the arrays up to 255 bytes, the same */
		if (!ids_same(&a, &b) || !ids_same(&a, &c) || !ids_same(&a, &e)) {
			if (bad++ < 3)
				fprintf(stderr, "starting from characters changes the ids of %zu bytes\n", n);
		}
		if (n <= 300) {
			d.len = 0;
			naive_bpe(s, n, &d);
			if (!ids_same(&a, &d) && naive_bad++ < 3)
				fprintf(stderr, "merge from characters and the spec's loop differ on %zu bytes\n",
				        n);
		}
	}
	CHECK_MSG(bad == 0, "%zu pieces merge differently from characters", bad);
	CHECK_MSG(naive_bad == 0, "%zu pieces differ from the spec's loop", naive_bad);
	/* 中 and о: tokens, their entries give their ranks and let them start inside a run */
	CHECK((int32_t)(hm__char_tok[0x4E2D] & HM_VOCAB_RANK_MASK) ==
	      hm__vocab_find((const unsigned char *)"\xe4\xb8\xad", 3));
	CHECK(hm__char_tok[0x4E2D] & HM_CHAR_TOKEN);
	CHECK((int32_t)(hm__char_tok[0x43E] & HM_VOCAB_RANK_MASK) ==
	      hm__vocab_find((const unsigned char *)"\xd0\xbe", 2));
	CHECK(hm__char_tok[0x43E] & HM_CHAR_LEFT_CONT);
	for (cp = 0x80; cp < 0x10000; cp++)
		starts += (hm__char_tok[cp] & (HM_CHAR_LEFT_CONT | HM_CHAR_RIGHT_LEAD)) ==
		          (HM_CHAR_LEFT_CONT | HM_CHAR_RIGHT_LEAD);
	CHECK_MSG(starts > 1000, "only %zu characters may start as tokens inside a run", starts);
	/* the byte masks: a class flag is its mask all ones; some masks allow more */
	for (cp = 0x80, starts = 0, bad = 0; cp < 0x10000; cp++) {
		uint32_t e = hm__char_tok[cp];
		const uint64_t *mk = hm__char_mask[hm__char_slot[cp]];

		if (!(e & HM_CHAR_TOKEN)) {
			bad += hm__char_slot[cp] != 0;
			continue;
		}
		bad += !hm__char_slot[cp] || !(e & HM_CHAR_LEFT_CONT) != (mk[0] != UINT64_MAX) ||
		       !(e & HM_CHAR_RIGHT_LEAD) != (mk[1] != UINT64_MAX);
		starts += !(e & HM_CHAR_LEFT_CONT) && mk[0];
	}
	CHECK_MSG(bad == 0, "%zu characters' byte masks disagree with their flags", bad);
	CHECK_MSG(starts > 500, "only %zu characters may start after some bytes of a class", starts);
	/*
	 * A space and a character as one token at a piece's start
	 * (hm__space_tok): every such character, followed by nothing, an
	 * ASCII letter, a blank, and letters of two and three bytes, merges
	 * to the ids of the bytes' merge; and most letters of the scripts
	 * that need it have an entry (" к", " क", " ب").
	 */
	for (cp = 0x80, starts = 0, bad = 0; cp < 0x10000; cp++) {
		static const char *const after[] = { "", "a", " ", "\xd0\xbe", "\xe0\xa4\x95",
		                                     "\xe4\xb8\xad", "\xd9\x84", "!" };
		size_t i, n;

		if (!(hm__space_tok[cp] & HM_CHAR_TOKEN))
			continue;
		starts++;
		s[0] = ' ';
		n = 1 + (cp < 0x800 ? 2 : 3);
		s[1] = (char)(cp < 0x800 ? 0xC0 | cp >> 6 : 0xE0 | cp >> 12);
		if (cp < 0x800) {
			s[2] = (char)(0x80 | (cp & 0x3F));
		} else {
			s[2] = (char)(0x80 | (cp >> 6 & 0x3F));
			s[3] = (char)(0x80 | (cp & 0x3F));
		}
		bad += (int32_t)(hm__space_tok[cp] & HM_VOCAB_RANK_MASK) !=
		       hm__vocab_find((const unsigned char *)s, n);
		for (i = 0; i < sizeof after / sizeof after[0]; i++) {
			size_t m = strlen(after[i]);

			memcpy(s + n, after[i], m);
			if (((merge_st(s, n + m, 0, 1, &a) | merge_st(s, n + m, 0, 0, &b)) != HM_OK ||
			     !ids_same(&a, &b)) && bad++ < 3)
				fprintf(stderr, "a space and U+%04X then \"%s\" merge differently\n",
				        (unsigned)cp, after[i]);
		}
	}
	CHECK_MSG(bad == 0, "%zu pieces starting with a space and a character merge differently, "
	          "or entries not the token", bad);
	CHECK_MSG(starts > 1000, "only %zu characters may start as one token with a space", starts);
	/*
	 * Emoji (hm__char4, hm__space4): every character U+1F000..U+1FFFF, at
	 * a piece's start, after a space there, after an ASCII letter and
	 * after characters of two, three and four bytes, and before nothing,
	 * a letter, a blank, emoji, symbols, the joiner and letters of two and
	 * three bytes, merges as from bytes.
	 */
	for (cp = 0, bad = 0, starts = 0; cp < 4096; cp++) {
		static const char *const before[] = { "", " ", "a", "\xf0\x9f\x98\x80", "\xe2\x9c\x85",
		                                      "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x87\xab" };
		static const char *const after[] = { "", "a", " ", "\xf0\x9f\x91\x8d",
		                                     "\xf0\x9f\xa6\x80", "\xe2\x9c\x85",
		                                     "\xe2\x80\x8d", "\xef\xb8\x8f", "\xc3\xa9",
		                                     "\xd0\xbe", "\xe4\xb8\xad" };
		size_t i, j;

		starts += (hm__char4[cp] & (HM_CHAR_LEFT_CONT | HM_CHAR_RIGHT_LEAD)) ==
		          (HM_CHAR_LEFT_CONT | HM_CHAR_RIGHT_LEAD);
		for (i = 0; i < sizeof before / sizeof before[0]; i++)
			for (j = 0; j < sizeof after / sizeof after[0]; j++) {
				size_t n = strlen(before[i]);

				memcpy(s, before[i], n);
				s[n++] = (char)0xF0;
				s[n++] = (char)0x9F;
				s[n++] = (char)(0x80 | cp >> 6);
				s[n++] = (char)(0x80 | (cp & 0x3F));
				memcpy(s + n, after[j], strlen(after[j]));
				n += strlen(after[j]);
				if (((merge_st(s, n, 0, 1, &a) | merge_st(s, n, 0, 0, &b) |
				      merge_st(s, n, 1, 1, &c)) != HM_OK ||
				     !ids_same(&a, &b) || !ids_same(&a, &c)) && bad++ < 3)
					fprintf(stderr, "\"%s\" U+%05X \"%s\" merges differently\n", before[i],
					        (unsigned)(0x1F000 + cp), after[j]);
			}
	}
	CHECK_MSG(bad == 0, "%zu pieces with an emoji merge differently from characters", bad);
	CHECK_MSG(starts > 1000, "only %zu emoji may start as their tokens between others", starts);
	CHECK(hm__space_tok[0x43A] & HM_CHAR_RIGHT_LEAD);  /* к */
	CHECK(hm__space_tok[0x915] & HM_CHAR_RIGHT_LEAD);  /* क */
	CHECK(hm__space_tok[0x628] & HM_CHAR_RIGHT_LEAD);  /* ب */
	hm_ids_free(&a);
	hm_ids_free(&b);
	hm_ids_free(&c);
	hm_ids_free(&d);
	hm_ids_free(&e);
}

/*
 * Pieces that start with a space, a byte x and a byte y, which may start
 * merging from the token " x" (hm__space_ascii), give the ids of merges
 * from single bytes: every x and y, each with tails of random ASCII
 * letters, blanks and punctuation (so that " x" and y join on), up to the
 * array path's limit.  And the table is not empty: most pieces of a space
 * and two letters start from " x".
 */
static void
test_space_ascii(void)
{
	static const char tail[] = "etaoinshrdlu cmfwypvbgkqjxz,.'-0123ETAOI";
	size_t bad = 0, letters = 0, x, y, t, k, n;
	hm_ids a = { 0 }, b = { 0 };
	char s[HM_BPE_SHORT_MAX + 1];

	for (x = 0; x < 256; x++)
		for (y = 0; y < 256; y++)
			for (t = 0; t < 3; t++) {
				s[0] = ' ';
				s[1] = (char)x;
				s[2] = (char)y;
				n = 3 + (t == 0 ? 0 : rng() % (HM_BPE_SHORT_MAX - 2));
				for (k = 3; k < n; k++)
					s[k] = tail[rng() % (sizeof tail - 1)];
				if ((merge_st(s, n, HM_BPE_SHORT_MAX, 0, &a) != HM_OK ||
				     merge_st(s, n, HM_BPE_SHORT_MAX, 1, &b) != HM_OK || !ids_same(&a, &b)) &&
				    bad++ < 3)
					fprintf(stderr, "\" %02zx %02zx...\" (%zu bytes) merges differently from \" x\"\n",
					        x, y, n);
			}
	for (x = 'a'; x <= 'z'; x++)
		for (y = 'a'; y <= 'z'; y++)
			letters += hm__space_ascii[x][y >> 6] >> (y & 63) & 1;
	CHECK_MSG(bad == 0, "%zu pieces starting with a space merge differently", bad);
	CHECK_MSG(letters > 600, "only %zu of 676 pairs of letters start from \" x\"", letters);
	hm_ids_free(&a);
	hm_ids_free(&b);
}

/* hm__bpe_merge of p[0..n), plain (from bytes, runs merged out) or not. */
static void
merge_plain(const char *p, size_t n, int plain, hm_ids *out)
{
	hm_bpe_scratch sc = { 0 };

	sc.plain = plain;
	out->len = 0;
	CHECK(hm__bpe_merge(&sc, (const unsigned char *)p, n, n, out) == HM_OK);
	hm__bpe_scratch_free(&sc);
}

/*
 * Runs of one byte, which merge_run builds from a short run's ids and
 * copies of its first token, give the plain merge's ids: every byte, at
 * lengths around the run limit and the periods of the tokens (1 to 16
 * bytes and more), and, for some bytes, past the huge-piece limit and
 * with other bytes before and after the run.
 */
static void
test_runs(void)
{
	static const size_t lens[] = { 2, 100, 512, 513, 514, 515, 516, 517, 518, 519, 520, 521,
	                               527, 528, 529, 543, 544, 545, 600, 640, 1000, 1023, 1024,
	                               1025, 1031, 2047, 4097 };
	static const unsigned char some[] = { 'a', ' ', '=', '-', '0', '\n', 0, 0xE4, 0xFF };
	size_t nl = sizeof lens / sizeof lens[0], b, i, bad = 0;
	hm_ids x = { 0 }, y = { 0 };
	char *s = malloc(HM_BPE_HUGE_MIN + 100);

	for (b = 0; b < 256; b++) {
		for (i = 0; i < nl; i++) {
			memset(s, (int)b, lens[i]);
			merge_plain(s, lens[i], 0, &x);
			merge_plain(s, lens[i], 1, &y);
			if (!ids_same(&x, &y) && bad++ < 3)
				fprintf(stderr, "a run of %zu bytes 0x%02zx merges otherwise\n", lens[i], b);
		}
	}
	for (i = 0; i < sizeof some; i++) {
		size_t n = HM_BPE_HUGE_MIN + 7 * i;

		memset(s, some[i], n);
		merge_plain(s, n, 0, &x);
		merge_plain(s, n, 1, &y);
		if (!ids_same(&x, &y) && bad++ < 3)
			fprintf(stderr, "a run of %zu bytes 0x%02x merges otherwise\n", n, some[i]);
	}
	/* runs with other bytes before and after (up to 16, and 17: not a run) */
	for (b = 0; b < sizeof some + 5; b++) {
		static const char *const heads[] = { "", " ", "\n", "x", "ab=", "0123456789abcdef" };
		static const char *const tails[] = { "", "\n", "\r\n", "/", "=\n\n", "xyz_0123456789abc" };
		static const size_t rl[] = { 513, 520, 529, 545, 1000, 1025, 2047 };
		unsigned char c = b < sizeof some ? some[b] : "._#~*"[b - sizeof some];
		size_t hi, ti, li;

		for (hi = 0; hi < 6; hi++)
			for (ti = 0; ti < 6; ti++)
				for (li = 0; li < 7; li++) {
					size_t hn = strlen(heads[hi]), tn = strlen(tails[ti]), n = hn + rl[li] + tn;

					memcpy(s, heads[hi], hn);
					memset(s + hn, c, rl[li]);
					memcpy(s + hn + rl[li], tails[ti], tn);
					merge_plain(s, n, 0, &x);
					merge_plain(s, n, 1, &y);
					if (!ids_same(&x, &y) && bad++ < 3)
						fprintf(stderr, "\"%s\" + %zu bytes 0x%02x + \"%s\" merge otherwise\n",
						        heads[hi], rl[li], c, tails[ti]);
				}
	}
	CHECK_MSG(bad == 0, "%zu runs of one byte merge otherwise", bad);
	/* not runs: one other byte in the middle keeps the ordinary merge */
	memset(s, 'a', 2000);
	s[1000] = 'b';
	merge_plain(s, 2000, 0, &x);
	merge_plain(s, 2000, 1, &y);
	CHECK(ids_same(&x, &y));
	hm_ids_free(&x);
	hm_ids_free(&y);
	free(s);
}

/* Scratch for merging from bytes with the encoder's limits: a word's own merge. */
static hm_bpe_scratch
plain_scratch(void)
{
	hm_bpe_scratch sc = { 0 };

	sc.short_max = HM_BPE_SHORT_MAX;
	sc.huge_min = HM_BPE_HUGE_MIN;
	sc.plain = 1;
	return sc;
}

/*
 * The encoding of the text s[0..n) with enc against want, its words'
 * own merges (bad: the words whose merge failed); want is freed.
 */
static void
text_as_words(hm_encoder *enc, const char *s, size_t n, hm_ids *want, size_t bad,
              const char *what)
{
	hm_ids got = { 0 };

	CHECK(hm_encode(enc, s, n, 0, &got, NULL) == HM_OK);
	if (!ids_same(&got, want))
		bad++;
	CHECK_MSG(bad == 0, "%s: %zu ids, their own merges %zu", what, got.len, want->len);
	hm_ids_free(&got);
	hm_ids_free(want);
}

/*
 * The piece cache (four ways a set, the least recently used out) gives
 * each piece's own merge however often and however far apart it repeats:
 * a text of 150,000 words (past the size at which the caches grow), drawn
 * unevenly from 30,000 distinct ones (far more than the cache holds, so
 * sets fill, move and evict), against the plain merge of each word.
 */
static void
test_piece_cache(void)
{
	static const char letters[] = "bcdfghjklmnpqrstvwxzaeiou";
	size_t nw = 30000, nt = 150000, i, n = 0, bad = 0;
	char (*pool)[48] = malloc(nw * sizeof *pool), *s = malloc(nt * 48);
	hm_encoder *enc = hm_encoder_new();
	hm_ids want = { 0 };
	hm_bpe_scratch sc = plain_scratch();
	for (i = 0; i < nw; i++) {
		size_t len = 3 + rng() % (i % 10 ? 9 : 30), k = 1;

		pool[i][0] = ' ';
		while (k < len) {
			if (rng() % 12 == 0) { /* some two-byte letters: more ids a piece */
				pool[i][k++] = (char)0xC3;
				pool[i][k++] = (char)(0xA0 + rng() % 30);
			} else {
				pool[i][k++] = letters[rng() % (sizeof letters - 1)];
			}
		}
		pool[i][k] = '\0';
	}
	for (i = 0; i < nt; i++) {
		/* the square of a uniform draw: some words often, most seldom */
		size_t r = rng() % 1000, w = (r * r * (nw / 1000) / 1000 + rng() % (nw / 1000)) % nw;
		size_t k = strlen(pool[w]);

		memcpy(s + n, pool[w], k);
		n += k;
		if (hm__bpe_merge(&sc, (const unsigned char *)pool[w], k, k, &want) != HM_OK)
			bad++;
	}
	text_as_words(enc, s, n, &want, bad, "a text of repeated words");
	hm__bpe_scratch_free(&sc);
	hm_encoder_free(enc);
	free(pool);
	free(s);
}

/*
 * Pieces of 13 to 40 bytes that share their first twelve and last eight
 * bytes and length, so their hash, set and tag: only their middle bytes
 * tell them apart in the piece cache (compared eight at a time), and a
 * text of them, each often, must give each one's own ids.  Some end at
 * the text's end, where fewer than sixteen bytes are readable.
 */
static void
test_piece_cache_middle(void)
{
	static const char mid[] = "ingtheron";
	size_t nt = 40000, i, n = 0, bad = 0;
	char *s = malloc(nt * 48), w[48];
	hm_encoder *enc = hm_encoder_new();
	hm_ids want = { 0 };
	hm_bpe_scratch sc = plain_scratch();
	for (i = 0; i < nt; i++) {
		/* the length first (13..40), then a few middles of each length */
		size_t len = 13 + rng() % 28, k, r = rng() % 4, j;

		memcpy(w, " understandi", 12);
		for (k = 12, j = 0; k + 8 < len; k++, j++)
			w[k] = mid[(r * 7 + j * (r + 1)) % (sizeof mid - 1)];
		memcpy(w + len - 8, "ableness", 8);
		memcpy(s + n, w, len);
		n += len;
		if (hm__bpe_merge(&sc, (const unsigned char *)w, len, len, &want) != HM_OK)
			bad++;
	}
	text_as_words(enc, s, n, &want, bad, "pieces alike but for their middle bytes");
	hm__bpe_scratch_free(&sc);
	hm_encoder_free(enc);
	free(s);
}

/*
 * Through hm_encode, with the default limits: pieces just below, at and
 * above the huge-piece limit give the ids the heap gives for them.
 */
static void
test_huge_limit(void)
{
	size_t n0 = HM_BPE_HUGE_MIN, n, i, bad = 0;
	char *s = malloc(n0 + 2);
	hm_encoder *enc = hm_encoder_new();
	hm_ids got = { 0 }, want = { 0 };
	int kind;

	for (kind = 0; kind < 2; kind++) {
		for (n = n0 - 1; n <= n0 + 1; n++) {
			for (i = 0; i < n; i++)
				s[i] = kind ? (char)('a' + rng() % 26) : 'a';
			got.len = want.len = 0;
			CHECK(hm_encode(enc, s, n, 0, &got, NULL) == HM_OK);
			hm__encoder_bpe_limits(enc, 0, SIZE_MAX);
			CHECK(hm_encode(enc, s, n, 0, &want, NULL) == HM_OK);
			hm__encoder_bpe_limits(enc, 0, 0);
			if (!ids_same(&got, &want))
				bad++;
		}
	}
	CHECK_MSG(bad == 0, "%zu pieces near the huge-piece limit encode differently", bad);
	/* a run of one letter is runs of eight: "aaaaaaaa" is 117525 */
	for (i = 0; i < n0; i++)
		s[i] = 'a';
	got.len = 0;
	CHECK(hm_encode(enc, s, n0, 0, &got, NULL) == HM_OK);
	CHECK(got.len == n0 / 8 && got.v[0] == 117525 && got.v[got.len - 1] == 117525);
	hm_ids_free(&got);
	hm_ids_free(&want);
	hm_encoder_free(enc);
	free(s);
}

/* Short pieces (the array path) against the spec's loop. */
static void
test_short_pieces(void)
{
	static const char *alpha[] = { "ab", "xyzq", "aeiou", "qwertyuiopasdfghjklzxcvbnm", "etaoin" };
	hm_encoder *enc = hm_encoder_new();
	size_t t;

	for (t = 0; t < 3000; t++) {
		const char *a = alpha[t % 5];
		size_t n = 2 + rng() % 63, i, k = strlen(a);
		char s[80];
		hm_ids got = { 0 }, want = { 0 };

		for (i = 0; i < n; i++)
			s[i] = a[rng() % k];
		hm_encode(enc, s, n, 0, &got, NULL);
		naive_bpe(s, n, &want);
		CHECK_MSG(got.len == want.len && memcmp(got.v, want.v, got.len * 4) == 0,
		          "piece \"%.*s\"", (int)n, s);
		hm_ids_free(&got);
		hm_ids_free(&want);
	}
	hm_encoder_free(enc);
}

/*
 * The lookup that reads sixteen bytes at once (when the buffer allows)
 * finds what the careful one finds, whatever follows the string.
 */
static void
test_vocab_key16(void)
{
	unsigned char buf[HM_VOCAB_MAX_LEN + 16];
	uint32_t r;
	size_t n, i, bad = 0;

	for (r = 0; r < HM_N_ORDINARY; r++) {
		const char *b = hm_token_bytes(r, &n);

		memcpy(buf, b, n);
		for (i = n; i < n + 16; i++)
			buf[i] = (unsigned char)rng();
		if (hm__vocab_find_avail(buf, n, n + 16) != (int32_t)r)
			bad++;
	}
	CHECK_MSG(bad == 0, "%zu tokens not found by the 16-byte lookup", bad);
	for (i = 0; i < 20000; i++) {
		n = 1 + rng() % 20;
		for (r = 0; r < n + 16; r++)
			buf[r] = (unsigned char)"ab .e\xc3\xa9xyz"[rng() % 10];
		if (hm__vocab_find_avail(buf, n, n + 16) != hm__vocab_find(buf, n))
			bad++;
	}
	CHECK_MSG(bad == 0, "%zu strings differ between the two lookups", bad);
}

/*
 * The join filter never turns down a real join (every cut of a token into
 * two tokens), and turns down most pairs that are none.
 */
static void
test_join_filter(void)
{
	uint32_t r, missed = 0, joins = 0, passed = 0, tried = 0;
	size_t n, k;

	for (r = 0; r < HM_N_ORDINARY; r++) {
		const unsigned char *b = (const unsigned char *)hm_token_bytes(r, &n);

		for (k = 1; k < n; k++) {
			int32_t x = hm__vocab_find(b, k), y = hm__vocab_find(b + k, n - k);

			if (x >= 0 && y >= 0) {
				joins++;
				missed += !hm__join_maybe(hm__join_hash(hm__join_key((uint32_t)x, (uint32_t)y)));
			}
		}
	}
	CHECK_MSG(missed == 0 && joins > 400000, "%u of %u joins turned down", missed, joins);
	for (k = 0; k < 100000; k++) {
		uint32_t x = rng() % HM_N_ORDINARY, y = rng() % HM_N_ORDINARY;
		const char *a, *b;
		size_t na, nb;
		char cat[2 * HM_VOCAB_MAX_LEN];

		a = hm_token_bytes(x, &na);
		b = hm_token_bytes(y, &nb);
		memcpy(cat, a, na);
		memcpy(cat + na, b, nb);
		if (hm_vocab_rank(cat, na + nb) >= 0)
			continue;
		tried++;
		passed += (uint32_t)hm__join_maybe(hm__join_hash(hm__join_key(x, y)));
	}
	CHECK_MSG(passed * 20 < tried, "%u of %u non-joins pass the filter", passed, tried);
}

/*
 * The scanner's ASCII fast path against the general scanner, from every
 * position of random strings over characters that matter to the pattern.
 */
static void
test_pretok_fast_path(void)
{
	static const char *chars[] = {
		"a", "z", "A", "Z", "0", "9", " ", " ", "\n", "\r", "\t", "\v", "'", "'",
		"s", "t", "S", "l", "L", "d", "/", "!", ".", "-", "\x01", "\x1f", "\x7f",
		"\xc3\xa9", "\xc3\x89", "\xc7\x85", "\xca\xb0", "\xe4\xb8\xad", "\xcc\x81",
		"\xc2\xa0", "\xe2\x80\xa8", "\xc2\xb2", "\xc5\xbf", "\xf0\x9f\x98\x82",
		"\xd9\xa3", "\xe2\x80\xa6", "\xc2\x85", "abcdefghijklm", "NOPQRSTUVWXYZ", "{@[`", "@", "[", "`",
	};
	size_t t, nc = sizeof chars / sizeof chars[0], bad = 0;

	for (t = 0; t < 20000; t++) {
		unsigned char s[200];
		size_t n = 0, i, k = 1 + rng() % 24;

		for (i = 0; i < k; i++) {
			const char *c = chars[rng() % nc];

			memcpy(s + n, c, strlen(c));
			n += strlen(c);
		}
		for (i = 0; i < n; i++) {
			if ((s[i] & 0xC0) == 0x80)
				continue;       /* not a character start */
			if (hm__pretok_next(s, n, i) != hm__pretok_general(s, n, i)) {
				if (bad++ < 5)
					fprintf(stderr, "pretok differs at %zu of \"%.*s\"\n", i, (int)n, s);
			}
		}
	}
	CHECK_MSG(bad == 0, "%zu positions where the fast path differs", bad);
	/* the fast path's ASCII classes agree with the Unicode tables */
	for (t = 0; t < 128; t++) {
		unsigned u = hm__uclass((uint32_t)t);
		int up = t >= 'A' && t <= 'Z', lo = t >= 'a' && t <= 'z', dig = t >= '0' && t <= '9';
		int ws = t == ' ' || (t >= 9 && t <= 13);

		CHECK_MSG(!!(u & HM_UC_LU) == up && !!(u & HM_UC_LL) == lo && !!(u & HM_UC_N) == dig &&
		          !!(u & HM_UC_WS) == ws && !(u & (HM_UC_LT | HM_UC_LM | HM_UC_LO | HM_UC_M)),
		          "ASCII %zu", t);
	}
}

/*
 * ascii_piece takes a word's [A-Z]*[a-z]* from eight bytes at once: every
 * string of nine characters from capitals, small letters and spaces (so
 * words with and without their prefix, ending inside, at and past the
 * eight bytes), each with a tail that ends the word or may go on with it
 * (an apostrophe, a non-ASCII letter or symbol), from its first three
 * positions, against the general scanner.
 */
static void
test_pretok_words(void)
{
	static const char *tails[] = { "", "'s", "!", "1", "\xc3\xa9", "\xe4\xb8\xad", "\xe2\x9a\xa0" };
	static const char abc[3] = { 'A', 'a', ' ' };
	size_t t, w, i, bad = 0, tried = 0;

	for (w = 0; w < 19683; w++) {           /* 3^9 */
		for (t = 0; t < sizeof tails / sizeof tails[0]; t++) {
			unsigned char s[16];
			size_t n = 9, x = w;

			for (i = 0; i < 9; i++, x /= 3)
				s[i] = (unsigned char)abc[x % 3];
			memcpy(s + n, tails[t], strlen(tails[t]));
			n += strlen(tails[t]);
			for (i = 0; i < 3; i++, tried++) {
				if (hm__pretok_next(s, n, i) != hm__pretok_general(s, n, i) && bad++ < 5)
					fprintf(stderr, "pretok differs at %zu of \"%.*s\"\n", i, (int)n, s);
			}
		}
	}
	CHECK_MSG(bad == 0, "%zu of %zu positions where the scanners differ", bad, tried);
}

/*
 * The same comparison over text that is mostly not ASCII, where
 * hm__pretok_next reads each class once (x_piece) instead of asking the
 * general scanner: Arabic, Cyrillic, Devanagari with its vowel signs and
 * virama (marks inside and at the start of words), CJK and kana (Lo, Lm),
 * emoji with ZWJ, VS16 (a mark), skin tones (Sk) and flags, four-byte
 * letters and numbers, Lt and Lm, U+017F after an apostrophe, non-ASCII
 * whitespace and digits.  Runs of one character class are as likely as
 * mixtures, so words, numbers and symbol runs of several characters occur.
 */
static void
test_pretok_unicode(void)
{
	static const char *chars[] = {
		/* Arabic: letters, a haraka (Mn), comma (Po), digit (Nd), tatweel (Lm) */
		"\xd8\xa8", "\xd9\x85", "\xd9\x8e", "\xd8\x8c", "\xd9\xa3", "\xd9\x80",
		/* Cyrillic upper and lower */
		"\xd0\x9f", "\xd1\x80", "\xd0\xb8", "\xd0\x96",
		/* Devanagari: letters, vowel sign (Mc), virama (Mn), danda (Po), digit */
		"\xe0\xa4\x95", "\xe0\xa4\xb8", "\xe0\xa4\xbf", "\xe0\xa5\x8d", "\xe0\xa5\xa4",
		"\xe0\xa5\xa6",
		/* CJK, kana, the prolonged sound mark (Lm), ideographic full stop and space */
		"\xe4\xb8\xad", "\xe3\x82\xab", "\xe3\x83\xbc", "\xe3\x80\x82", "\xe3\x80\x80",
		/* emoji, skin tone (Sk), ZWJ (Cf), VS16 (Mn), warning sign, check, flag letter */
		"\xf0\x9f\x98\x80", "\xf0\x9f\x91\x8d", "\xf0\x9f\x8f\xbd", "\xe2\x80\x8d",
		"\xef\xb8\x8f", "\xe2\x9a\xa0", "\xe2\x9c\x85", "\xf0\x9f\x87\xab",
		/*
		 * four-byte: digit zero full stop (No), bold A (Lu) and a (Ll), Deseret
		 * (Lu, Ll), segmented digit zero (Nd), digit nine comma (No)
		 */
		"\xf0\x9f\x84\x80", "\xf0\x9d\x90\x80", "\xf0\x9d\x90\x9a", "\xf0\x90\x90\x80",
		"\xf0\x90\x90\xa8", "\xf0\x9f\xaf\xb0", "\xf0\x9f\x84\x8c",
		/* Lt, Lm, long s, combining acute, roman numeral four (Nl), superscript two (No) */
		"\xc7\x85", "\xca\xb0", "\xc5\xbf", "\xcc\x81", "\xe2\x85\xa3", "\xc2\xb2",
		/* whitespace: no-break space, NEL, line separator; then ASCII that matters */
		"\xc2\xa0", "\xc2\x85", "\xe2\x80\xa8", " ", " ", " ", "\n", "\r", "\t", "'", "s",
		"t", "ll", "A", "a", "1", "/", "!",
	};
	size_t t, nc = sizeof chars / sizeof chars[0], bad = 0, positions = 0;

	for (t = 0; t < 30000; t++) {
		unsigned char s[400];
		size_t n = 0, i, k = 1 + rng() % 32;
		const char *c = chars[rng() % nc];

		for (i = 0; i < k; i++) {
			/* a run of the last character half the time */
			if (rng() % 2)
				c = chars[rng() % nc];
			memcpy(s + n, c, strlen(c));
			n += strlen(c);
		}
		for (i = 0; i < n; i++) {
			if ((s[i] & 0xC0) == 0x80)
				continue;       /* not a character start */
			positions++;
			if (hm__pretok_next(s, n, i) != hm__pretok_general(s, n, i)) {
				if (bad++ < 5)
					fprintf(stderr, "pretok differs at %zu of \"%.*s\"\n", i, (int)n, s);
			}
		}
	}
	CHECK_MSG(bad == 0 && positions > 200000, "%zu of %zu positions where the scanners differ",
	          bad, positions);
	/*
	 * x_piece's direct path for a space and a word: the run of Lo, Lm and
	 * marks, or of Ll, and each thing after it that sends the piece back
	 * to x_word (an upper- or lower-case letter, a four-byte letter).
	 */
	{
		static const char *const words[] = {
			" \xd8\xa8\xd9\x85\xd9\x8e", " \xd8\xa8\xd9\x85" "A", " \xd8\xa8\xd9\x85" "a",
			" \xd8\xa8\xd9\x85\xd0\x9f\xd1\x80 ", " \xd8\xa8\xd9\x85\xd1\x80\xd0\x9f",
			" \xe0\xa4\x95\xe0\xa4\xbf\xf0\x9d\x90\x9a", " \xe4\xb8\xad\xf0\x9d\x90\x80x",
			" \xd1\x80\xd0\xb8\xd0\x9f", " \xd1\x80\xd0\xb8\xf0\x9d\x90\x9a",
			" \xd1\x80\xd0\xb8\xd9\x85", " \xd1\x80's", " \xd8\xa8'll", " \xe3\x83\xbc\xe3\x82\xab\xc7\x85",
		};
		size_t w;

		for (w = 0, bad = 0; w < sizeof words / sizeof words[0]; w++) {
			const unsigned char *ws = (const unsigned char *)words[w];
			size_t wn = strlen(words[w]);

			if (hm__pretok_next(ws, wn, 0) != hm__pretok_general(ws, wn, 0)) {
				fprintf(stderr, "pretok differs on \"%s\"\n", words[w]);
				bad++;
			}
		}
		CHECK_MSG(bad == 0, "%zu words after a space where the scanners differ", bad);
	}
	/* the classes of U+1F000 .. U+1FFFF that x_piece reads without hm__uclass */
	for (t = 0, bad = 0; t < 0x1000; t++)
		bad += hm__uclass_1f((unsigned)t) != (hm__uclass(0x1F000 + (uint32_t)t) & 0xff);
	CHECK_MSG(bad == 0, "%zu code points of U+1Fxxx with another class", bad);
}

/*
 * space_word takes a word of two- or three-byte letters after a space by
 * the run of letters of its first one's length, and ends it there when a
 * space, punctuation or the end of the text follows: words of 1 to 13
 * letters of each kind (Lo, Mn, Ll; Arabic, Cyrillic, Devanagari, CJK,
 * Latin), each followed by every thing that may end the run or go on with
 * the word (a space, ASCII punctuation, an apostrophe and a contraction,
 * an ASCII letter or digit, a line break, letters of the other length,
 * upper case, marks, a four-byte letter, non-ASCII punctuation, nothing),
 * with and without text after it, from the space, against the general
 * scanner.
 */
static void
test_pretok_script_words(void)
{
	static const char *const letters[][2] = {
		{ "\xd8\xa8", "\xd9\x8e" },                   /* Arabic letter, haraka */
		{ "\xd1\x80", "\xd0\xb8" },                   /* Cyrillic lower case */
		{ "\xe0\xa4\x95", "\xe0\xa4\xbf" },           /* Devanagari letter, vowel sign */
		{ "\xe4\xb8\xad", "\xe3\x83\xbc" },           /* CJK, prolonged sound mark (Lm) */
		{ "\xe1\xba\xa1", "\xe1\xb8\x81" },           /* Latin small a and a with dot below */
	};
	static const char *const ends[] = {
		"", " ", ".", ",", "!", "'", "'s", "'LL", "A", "a", "1", "\n", "\r\n", "\t", "/",
		"\xd8\xa8", "\xd1\x80", "\xd0\x9f", "\xd9\x8e", "\xd8\x8c", "\xd9\xa3", "\xcc\x81",
		"\xc5\xbf", "\xe0\xa4\x95", "\xe0\xa5\xa4", "\xe4\xb8\xad", "\xe1\xba\xa0",
		"\xe2\x80\xa8", "\xc2\xa0", "\xf0\x9d\x90\x9a", "\xf0\x9d\x90\x80", "\xf0\x9f\x98\x80",
	};
	static const char *const after[] = { "", " x", "\xd8\xa8\xd8\xa8 \xd8\xa8", "\xe0\xa4\x95 x y z" };
	size_t l, k, t, a, j, bad = 0, tried = 0;

	for (l = 0; l < sizeof letters / sizeof letters[0]; l++)
		for (k = 1; k <= 13; k++)
			for (t = 0; t < sizeof ends / sizeof ends[0]; t++)
				for (a = 0; a < sizeof after / sizeof after[0]; a++) {
					unsigned char s[128];
					size_t n = 1;

					s[0] = ' ';
					for (j = 0; j < k; j++) {
						const char *c = letters[l][j % 3 == 2];

						memcpy(s + n, c, strlen(c));
						n += strlen(c);
					}
					memcpy(s + n, ends[t], strlen(ends[t]));
					n += strlen(ends[t]);
					memcpy(s + n, after[a], strlen(after[a]));
					n += strlen(after[a]);
					tried++;
					if (hm__pretok_next(s, n, 0) != hm__pretok_general(s, n, 0) && bad++ < 5)
						fprintf(stderr, "pretok differs on \"%.*s\"\n", (int)n, s);
				}
	CHECK_MSG(bad == 0, "%zu of %zu words where the scanners differ", bad, tried);
	/* the classes space_word reads by a character's two bytes, lead first */
	for (t = 0, bad = 0; t < 65536; t++) {
		unsigned lo = (unsigned)t & 0xff, hi = (unsigned)t >> 8;
		unsigned want = lo >= 0xC2 && lo <= 0xDF && hi >= 0x80 && hi <= 0xBF ?
		                hm__uclass((lo & 0x1F) << 6 | (hi & 0x3F)) & 0xff : 0;

		bad += hm__uclass2[t] != want;
	}
	CHECK_MSG(bad == 0 && hm__uclass2[0xD8 | 0xA8 << 8] == HM_UC_LO,
	          "%zu pairs of bytes with another class in hm__uclass2", bad);
}

/*
 * The encoder's own UTF-8 check finds the same first bad byte: on random
 * bytes, and on whole characters (the edges of the two- and three-byte
 * forms, where E0 and ED bound the next byte) mixed with stray bytes.
 */
static void
test_utf8_offsets(void)
{
	static const unsigned char bytes[] = {
		'a', ' ', 0x80, 0xBF, 0xC2, 0xC3, 0xDF, 0xE0, 0xE1, 0xED, 0xEF, 0xF0, 0xF4, 0xF5,
		0x90, 0xA0, 0x9F, 0x8F, 0xC0, 0xFF,
	};
	static const char *const chars[] = {
		"\xc2\x80", "\xdf\xbf", "\xd0\xb6", "\xc1\xbf", "\xe0\xa0\x80", "\xe0\x9f\xbf",
		"\xe4\xb8\xad", "\xed\x9f\xbf", "\xed\xa0\x80", "\xef\xbf\xbf", "\xe1\x80",
		"\xf0\x9f\x98\x80", "\xf4\x90\x80\x80", "abcde",
	};
	hm_encoder *enc = hm_encoder_new();
	hm_ids ids = { 0 };
	size_t t, bad = 0;

	for (t = 0; t < 100000; t++) {
		char s[80];
		size_t n = rng() % 40, i, want;
		hm_status st;
		hm_error err;

		for (i = 0; i < n; i++)
			s[i] = (char)(rng() % 3 ? 'a' + rng() % 3 : bytes[rng() % sizeof bytes]);
		if (t % 2) {
			for (n = 0; n < 40;) {
				const char *c = chars[rng() % (sizeof chars / sizeof chars[0])];

				memcpy(s + n, c, strlen(c));
				n += rng() % 8 ? strlen(c) : 1;
			}
		}
		want = hm_utf8_valid_prefix(s, n);
		ids.len = 0;
		st = hm_encode(enc, s, n, 0, &ids, &err);
		if (want == n ? st != HM_OK : st != HM_EINPUT || err.index != want)
			bad++;
	}
	CHECK_MSG(bad == 0, "%zu strings with another UTF-8 verdict", bad);
	hm_ids_free(&ids);
	hm_encoder_free(enc);
}

/*
 * The encoder's UTF-8 check, all its forms (the plain one, sixteen-byte
 * blocks where SSE2 is, 64-byte blocks where the CPU has AVX2, and the
 * one the encoder picks), against hm_utf8_valid_prefix on texts
 * long enough for several blocks: runs of one script's characters and
 * blanks (the blocks' fast case), the edges of every length, each spoilt
 * now and then by a stray, cut or out-of-range byte at any place, so that
 * a bad byte and a character that runs past a block's end fall at every
 * offset of a block.  Where the CPU lacks AVX2 its form is said to be
 * untested.
 */
static void
test_utf8_blocks(void)
{
	static const char *const chars[] = {
		" ", "a", "\n", "\xd8\xa7", "\xd9\x84", "\xd0\xb6", "\xc2\x80", "\xdf\xbf",
		"\xe0\xa4\x95", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xef\xbf\xbf", "\xe4\xb8\xad",
		"\xf0\x9f\x98\x80", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", "\xf3\xbf\xbf\xbf",
		"\xe2\x80\x8d",
	};
	static const unsigned char strays[] = {
		0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF,
		0xF0, 0xF4, 0xF5, 0xF8, 0xFF, 0x00, 0x7F,
	};
	size_t nc = sizeof chars / sizeof chars[0], t, bad = 0, slow = 0, valid = 0, f;
	int wide = hm__encode_valid_prefix((const unsigned char *)"", 0, 3) != (size_t)-1;

	if (!wide)
		fprintf(stderr, "  no AVX2 here: the 64-byte form is untested\n");

	for (t = 0; t < 200000; t++) {
		unsigned char s[200];
		size_t n = 0, len = rng() % 160, i, want, got[5];
		unsigned spoil = t % 4;

		/* a script or two of the list, so blocks are often all of one kind */
		size_t c0 = rng() % nc, c1 = rng() % nc;

		while (n < len) {
			const char *c = chars[rng() % 3 ? (rng() % 2 ? c0 : c1) : rng() % nc];
			size_t k = strlen(c);

			memcpy(s + n, c, k);
			n += k;
		}
		for (i = 0; spoil && i < 1 + rng() % 2; i++) {
			size_t at = rng() % (n + 1);

			if (spoil == 1 && at < n) /* a byte replaced */
				s[at] = strays[rng() % sizeof strays];
			else if (spoil == 2) /* cut short: the text ends there */
				n = at;
			else if (at < n) /* a byte dropped */
				memmove(s + at, s + at + 1, --n - at);
		}
		want = hm_utf8_valid_prefix((const char *)s, n);
		for (f = 0; f < 5; f++)
			got[f] = hm__encode_valid_prefix(s, n, (int)f);
		if (!wide)
			got[3] = want;
		valid += want == n;
		if (got[0] != want || got[1] != want || got[2] != want || got[3] != want) {
			if (bad++ < 3)
				fprintf(stderr, "  length %zu: %zu; encoder %zu, plain %zu, by 16 %zu, by 64 %zu\n",
				    n, want, got[0], got[1], got[2], got[3]);
		}
		/*
		 * A false fault would cost only time (the 16-byte form decides),
		 * so that the 64-byte blocks alone pass a valid text of 96 bytes
		 * or more (their last block then reaches back 32 bytes) is checked
		 * apart.
		 */
		if (wide && want == n && n >= 96 && got[4] != n && slow++ < 3)
			fprintf(stderr, "  length %zu: valid, the blocks alone stop at %zu\n", n, got[4]);
	}
	CHECK_MSG(bad == 0, "%zu texts with another UTF-8 verdict", bad);
	CHECK_MSG(slow == 0, "%zu valid texts that the 64-byte blocks alone fault", slow);
	/* both kinds were made in number */
	CHECK(valid > 40000 && valid < 160000);

	/*
	 * Every lead, then every second byte, a character placed across the
	 * first blocks' ends of both sizes (the blocks carry the continuations
	 * and the bound of E0, ED, F0 and F4 to the next block), in ASCII and
	 * in Arabic; its further bytes continuations, or its last one a lead
	 * (a two-byte one followed by a stray continuation), or it cut short
	 * by ASCII (which in ASCII makes the next block all ASCII).
	 */
	for (t = 0, bad = 0; t < 2 * 64 * 64 * 4 * 60; t++) {
		unsigned char s[160];
		size_t at = 10 + t % 60, rest = t / 60, lead = 0xC0 + rest % 64;
		size_t next = 0x80 + rest / 64 % 64, cut = rest / (64 * 64) % 4;
		size_t fill = rest / (64 * 64 * 4);
		size_t len = 2 + (lead >= 0xE0) + (lead >= 0xF0), i, want, b16, b64;

		for (i = 0; i < sizeof s; i++)
			s[i] = fill ? (unsigned char)(i % 2 ? 0xA7 : 0xD8) : 'a';
		if (fill && at % 2) /* keep the Arabic around it whole */
			at++;
		s[at] = (unsigned char)lead;
		s[at + 1] = (unsigned char)next;
		for (i = 2; i < len; i++)
			s[at + i] = (unsigned char)(cut ? 0xC0 - i : 0x80 + (next + 5 * i) % 64);
		if (fill && (at + len) % 2)
			s[at + len] = 'a';
		if (cut == 2)
			s[at + len - (len > 2)] = len > 2 ? 0xC3 : 0x80;
		for (i = 1 + next % (len - 1); cut == 3 && i < len; i++)
			s[at + i] = 'b';
		want = hm_utf8_valid_prefix((const char *)s, sizeof s);
		b16 = hm__encode_valid_prefix(s, sizeof s, 2);
		b64 = wide ? hm__encode_valid_prefix(s, sizeof s, 3) : want;
		if ((b16 != want || b64 != want) && bad++ < 3)
			fprintf(stderr, "  %02zX %02zX at %zu: %zu, by 16 %zu, by 64 %zu\n", lead, next, at,
			    want, b16, b64);
	}
	CHECK_MSG(bad == 0, "%zu characters across block ends with another UTF-8 verdict", bad);

	/*
	 * ASCII of every length to 200 with one stray byte or character in
	 * its last 70 bytes: an ASCII text's blocks are passed on one test,
	 * and its end is judged as a block of the last 64 bytes.
	 */
	for (t = 0, bad = 0; t < 200 * 70 * (nc + sizeof strays); t++) {
		unsigned char s[208];
		size_t n = 1 + t % 200, back = t / 200 % 70, k = t / (200 * 70), at, len, want, b64;

		if (back >= n)
			continue;
		at = n - 1 - back;
		memset(s, 'a', n);
		if (k < nc) {
			len = strlen(chars[k]);
			memcpy(s + at, chars[k], len);
			n = at + len > n ? at + len : n;
		} else {
			s[at] = strays[k - nc];
		}
		want = hm_utf8_valid_prefix((const char *)s, n);
		b64 = wide ? hm__encode_valid_prefix(s, n, 3) : want;
		if ((hm__encode_valid_prefix(s, n, 0) != want || b64 != want) && bad++ < 3)
			fprintf(stderr, "  %zu bytes, %02X at %zu: %zu, by 64 %zu\n", n, s[at], at, want, b64);
	}
	CHECK_MSG(bad == 0, "%zu ASCII texts with a stray byte with another UTF-8 verdict", bad);
}

/*
 * Streaming: encoding a text in pieces cut where hm__pretok_cut allows
 * gives the ids of the whole text, in every mode.  The fragments put line
 * breaks before everything the pattern treats specially.
 */
static void
test_chunked_encoding(void)
{
	static const char *frags[] = {
		"\n", "\n", "\n", "\r\n", "\n\n", " ", "  ", "\t", "a", "word", " Word", "WORD",
		"'s", "'t", "'ll", "'S", "'", "\xc5\xbf", "12345", "7", "!", "!!", "/", "//", "-",
		"#", "{", "}", "<|start|>", "<|end|>", "<|", "|>", "\xc3\xa9t\xc3\xa9",
		"\xe4\xb8\xad\xe6\x96\x87", "\xc2\xa0", "\xe2\x80\xa8", "\xc2\x85", "\xcc\x81",
		"\xf0\x9f\x98\x82", "\xff", "\xe2\x82", "\x80",
	};
	static const unsigned modes[] = { 0, HM_ENC_SPECIAL, HM_ENC_LOSSY, HM_ENC_SPECIAL | HM_ENC_LOSSY };
	size_t nf = sizeof frags / sizeof frags[0], t, bad = 0, cuts = 0;
	hm_encoder *enc = hm_encoder_new();
	hm_ids whole = { 0 }, parts = { 0 };

	for (t = 0; t < 20000; t++) {
		char s[400];
		size_t n = 0, i, k = 1 + rng() % 40, p, q, cut[400], nc;
		unsigned mode = modes[t % 4];
		hm_status st;

		for (i = 0; i < k; i++) {
			const char *f = frags[rng() % (mode & HM_ENC_LOSSY ? nf : nf - 3)];

			memcpy(s + n, f, strlen(f));
			n += strlen(f);
		}
		whole.len = parts.len = 0;
		st = hm_encode(enc, s, n, mode, &whole, NULL);
		CHECK(st == HM_OK);
		/* every allowed point, right to left; keep about half */
		nc = 0;
		for (p = n; (p = hm__pretok_cut((const unsigned char *)s, p, 0)) != 0;) {
			if (s[p - 1] != '\n')
				bad++;
			if (rng() % 2)
				cut[nc++] = p;
		}
		cuts += nc;
		/* encode the pieces between them, left to right */
		cut[nc] = 0;
		for (i = nc + 1, p = 0; i-- > 0; p = q) {
			q = i ? cut[i - 1] : n;
			hm_encode(enc, s + p, q - p, mode, &parts, NULL);
		}
		if (parts.len != whole.len || memcmp(parts.v, whole.v, whole.len * 4) != 0) {
			if (bad++ < 3)
				fprintf(stderr, "chunked encoding differs for \"%.*s\"\n", (int)n, s);
		}
	}
	CHECK_MSG(bad == 0, "%zu texts encode differently in pieces", bad);
	CHECK_MSG(cuts > 5000, "only %zu texts were cut", cuts);
	/* the rule is needed: after "\n", another "\n" or a '/' is inside a piece */
	CHECK(hm__pretok_next((const unsigned char *)"a\n\nb", 4, 1) == 3);
	CHECK(hm__pretok_next((const unsigned char *)"!\n/x", 4, 0) == 3);
	CHECK(hm__pretok_cut((const unsigned char *)"a\n b\n/c\n\n", 10, 0) == 0);
	CHECK(hm__pretok_cut((const unsigned char *)"a\nb\n{c", 6, 0) == 4);
	CHECK(hm__pretok_cut((const unsigned char *)"a\nb\n{c", 6, 5) == 0);
	CHECK(hm__pretok_cut((const unsigned char *)"a\nb\n{c", 6, 4) == 4);
	CHECK(hm__pretok_cut((const unsigned char *)"\nb", 2, 1) == 1);
	CHECK(hm__pretok_cut((const unsigned char *)"\nb", 2, 2) == 0);
	/*
	 * The cut search looks eight bytes at a time for the '\n': the same
	 * point as a byte-by-byte search, for every start at every length of
	 * texts with few newlines (runs longer than eight bytes between them).
	 */
	{
		unsigned char t[64];
		unsigned seed = 777;
		size_t k, len, from, q, want, diff = 0;

		for (k = 0; k < 3000; k++) {
			for (q = 0; q < sizeof t; q++) {
				seed = seed * 1103515245 + 12345;
				t[q] = (seed >> 16) % 23 == 0 ? '\n' : (seed >> 16) % 7 == 0 ? 0xD0 :
				       (seed >> 16) % 11 == 0 ? '/' : 'a' + (seed >> 20) % 3;
			}
			len = k % sizeof t;
			for (from = 0; from <= len + 1; from++) {
				want = 0;
				for (q = len; q-- > (from ? from : 1);)
					if (t[q - 1] == '\n' && t[q] > ' ' && t[q] < 0x7f && t[q] != '/') {
						want = q;
						break;
					}
				if (hm__pretok_cut(t, len, from) != want && diff++ < 3)
					fprintf(stderr, "cut of %zu bytes from %zu: %zu, not %zu\n", len,
					    from, hm__pretok_cut(t, len, from), want);
			}
		}
		CHECK_MSG(diff == 0, "%zu cut points differ from a byte-by-byte search", diff);
	}
	hm_ids_free(&whole);
	hm_ids_free(&parts);
	hm_encoder_free(enc);
}

/*
 * The pre-tokenizer's table of two- and three-byte characters' classes is
 * hm__uclass's.
 */
static void
test_uclass16(void)
{
	uint32_t cp;
	size_t bad = 0;

	for (cp = 0; cp < 65536; cp++)
		bad += hm__uclass16[cp] != (hm__uclass(cp) & 0xff);
	CHECK_MSG(bad == 0, "%zu classes of hm__uclass16 differ from hm__uclass", bad);
	CHECK(hm__uclass16[0x416] & HM_UC_LU && hm__uclass16[0x436] & HM_UC_LL); /* Ж ж */
	CHECK(hm__uclass16[0x628] & HM_UC_LO && hm__uclass16[0x64E] & HM_UC_M);  /* ب, fatha */
	CHECK(hm__uclass16[0x4E2D] & HM_UC_LO && hm__uclass16[0x941] & HM_UC_M); /* 中, u sign */
}

static void
test_specials(void)
{
	uint32_t id = 0;
	size_t n;
	const char *b;

	CHECK(hm_special_lookup("<|start|>", 9, &id) && id == 200006);
	CHECK(hm_special_lookup("<|reserved_200018|>", 19, &id) && id == 200018);
	CHECK(hm_special_lookup("<|reserved_201088|>", 19, &id) && id == 201088);
	CHECK(!hm_special_lookup("<|reserved_201089|>", 19, &id));
	CHECK(!hm_special_lookup("<|reserved_200006|>", 19, &id)); /* that id is <|start|> */
	CHECK(!hm_special_lookup("<|endofprompt|>", 15, &id));
	CHECK(!hm_special_lookup("<|Start|>", 9, &id));
	b = hm_token_bytes(200014, &n);
	CHECK(n == 19 && memcmp(b, "<|reserved_200014|>", n) == 0);
	b = hm_token_bytes(199999, &n);
	CHECK(n == 13 && memcmp(b, "<|endoftext|>", n) == 0);
	CHECK(hm_token_bytes(201089, &n) == NULL);
	CHECK(hm_is_special(199998) && hm_is_special(201088) && !hm_is_special(199997));
	b = hm_token_bytes(9552, &n);
	CHECK(n == 3 && memcmp(b, "\x20\xF0\x9F", 3) == 0);
	b = hm_token_bytes(222, &n);
	CHECK(n == 1 && (unsigned char)b[0] == 0x80);
	{
		const uint32_t *v;

		CHECK(hm_stop_tokens(&v) == 3 && v[0] == 200002 && v[1] == 200007 && v[2] == 200012);
		CHECK(hm_stop_tokens_for_actions(&v) == 2 && v[0] == 200002 && v[1] == 200012);
	}
	/* every special id round-trips through its text */
	for (id = HM_N_ORDINARY; id < HM_N_TOKENS; id++) {
		uint32_t back = 0;

		b = hm_token_bytes(id, &n);
		if (!hm_special_lookup(b, n, &back) || back != id)
			break;
	}
	CHECK_MSG(id == HM_N_TOKENS, "special id %u does not round-trip", id);
}

static void
test_vocab(void)
{
	uint32_t r;
	size_t n;

	/* every ordinary token's bytes hash back to its own rank */
	for (r = 0; r < HM_N_ORDINARY; r++) {
		const char *b = hm_token_bytes(r, &n);

		if (hm_vocab_rank(b, n) != (int32_t)r)
			break;
	}
	CHECK_MSG(r == HM_N_ORDINARY, "rank %u does not round-trip", r);
	for (r = 0; r < 256; r++) {
		char c = (char)r;

		CHECK(hm_vocab_rank(&c, 1) >= 0);
	}
	CHECK(hm_vocab_rank("hello", 5) == 24912);
	CHECK(hm_vocab_rank("no such token at all", 20) == -1);
}

static void
test_utf8(void)
{
	hm_encoder *enc = hm_encoder_new();
	hm_ids ids = { 0 };
	hm_error err;

	CHECK(hm_encode(enc, "ab\xff" "cd", 5, 0, &ids, &err) == HM_EINPUT);
	CHECK(err.index == 2 && !strcmp(err.msg, "invalid UTF-8 at byte 2"));
	ids.len = 0;
	CHECK(hm_encode(enc, "\xE2\x82", 2, 0, &ids, &err) == HM_EINPUT && err.index == 0);
	ids.len = 0;
	CHECK(hm_encode(enc, "ab\xff" "cd", 5, HM_ENC_LOSSY, &ids, NULL) == HM_OK);
	{
		hm_ids want = { 0 };

		hm_encode(enc, "ab\xEF\xBF\xBD" "cd", 7, 0, &want, NULL);
		CHECK(want.len == ids.len && memcmp(want.v, ids.v, ids.len * 4) == 0);
		hm_ids_free(&want);
	}
	CHECK(hm_utf8_valid_prefix("\xED\xA0\x80", 3) == 0); /* a surrogate */
	CHECK(hm_utf8_valid_prefix("\xF4\x90\x80\x80", 4) == 0); /* above U+10FFFF */
	CHECK(hm_utf8_valid_prefix("\xC0\xAF", 2) == 0); /* overlong */
	CHECK(hm_utf8_valid_prefix("a\xF0\x9F\x92\x96", 5) == 5);
	hm_ids_free(&ids);
	hm_encoder_free(enc);
}

static void
test_ids_parse(void)
{
	hm_ids ids = { 0 };
	hm_error err;
	char *rest = NULL;

	CHECK(hm_ids_parse("1 2,3 4", 7, 0, &ids, NULL, &err) == HM_OK && ids.len == 4 && ids.v[3] == 4);
	ids.len = 0;
	CHECK(hm_ids_parse(" [1, 2,3 ,4] ", 13, 0, &ids, NULL, &err) == HM_OK && ids.len == 4 && ids.v[3] == 4);
	ids.len = 0;
	/* strict: a bracket among plain ids, unterminated, nested, doubled commas */
	CHECK(hm_ids_parse("1 2,3 [4]", 9, 0, &ids, NULL, &err) == HM_EINPUT && err.col == 7);
	ids.len = 0;
	CHECK(hm_ids_parse("[13225, 2375", 12, 0, &ids, NULL, &err) == HM_EINPUT &&
	      strstr(err.msg, "unterminated") && err.col == 13);
	ids.len = 0;
	CHECK(hm_ids_parse("[[1,2]]", 7, 0, &ids, NULL, &err) == HM_EINPUT && strstr(err.msg, "nested"));
	ids.len = 0;
	CHECK(hm_ids_parse("[1,,2]", 6, 0, &ids, NULL, &err) == HM_EINPUT && err.col == 4 && err.index == (size_t)-1);
	ids.len = 0;
	CHECK(hm_ids_parse("[1,2]]", 6, 0, &ids, NULL, &err) == HM_EINPUT && err.col == 6);
	ids.len = 0;
	CHECK(hm_ids_parse("1 4294967296", 12, HM_IDS_ANY, &ids, NULL, &err) == HM_EINPUT &&
	      err.col == 3 && err.index == 1);
	ids.len = 0;
	CHECK(hm_ids_parse("1 201089", 8, 0, &ids, NULL, &err) == HM_EINPUT && err.col == 3 && err.index == 1);
	ids.len = 0;
	CHECK(hm_ids_parse("1 201089", 8, HM_IDS_ANY, &ids, NULL, &err) == HM_OK && ids.len == 2);
	ids.len = 0;
	CHECK(hm_ids_parse("1 x2", 4, 0, &ids, NULL, &err) == HM_EINPUT && err.col == 3);
	ids.len = 0;
	CHECK(hm_ids_parse("{\"id\":\"a\",\"output_ids\":[5,6]}", 30, 0, &ids, &rest, &err) == HM_OK &&
	      ids.len == 2 && rest && strcmp(rest, "{\"id\":\"a\"}") == 0);
	free(rest);
	ids.len = 0;
	CHECK(hm_ids_parse("{\"tokens\":[1,-2]}", 17, 0, &ids, NULL, &err) == HM_EINPUT && err.index == 1);
	CHECK(hm_ids_detect("1 2 3\n[4, 5]\n", 13));
	CHECK(hm_ids_detect("{\"tokens\":[1]}\n", 15));
	CHECK(!hm_ids_detect("hello 1 2", 9));
	CHECK(!hm_ids_detect("  \n", 3));
	hm_ids_free(&ids);
}

int
main(void)
{
	/* spec §1.3 and §1.7 examples */
	ENC("hello world", 0, 24912, 2375);
	ENC("Hello world's", 0, 13225, 30226);
	ENC("HTML5 parser", 0, 9512, 20, 14216);
	ENC("12345", 0, 7633, 2548);
	ENC("a  b", 0, 64, 220, 287);
	ENC("x\n\n  y", 0, 87, 279, 220, 342);
	ENC("don't!!\n", 0, 91418, 32965);
	ENC(" /path/to\n", 0, 820, 4189, 72231, 198);
	ENC("<|start|>", 0, 27, 91, 5236, 91, 29);
	ENC("<|start|>", HM_ENC_SPECIAL, 200006);
	ENC("x<|end|>y", 0, 87, 27, 91, 419, 91, 29, 88);
	ENC("a<|end|>b", HM_ENC_SPECIAL, 64, 200007, 65);
	ENC("<|<|start|>", HM_ENC_SPECIAL, 27, 91, 200006);
	ENC(" to=functions.get_weather", 0, 316, 28, 44580, 775, 170154);
	ENC("\xF0\x9F\x92\x96", 0, 31446, 244);
	CHECK(enc_eq("", 0, NULL, 0));
	test_uclass16();
	test_specials();
	test_vocab();
	test_utf8();
	test_long_pieces();
	test_short_pieces();
	test_bpe_paths();
	test_char_starts();
	test_space_ascii();
	test_runs();
	test_huge_limit();
	test_vocab_key16();
	test_join_filter();
	test_pretok_fast_path();
	test_pretok_words();
	test_pretok_unicode();
	test_pretok_script_words();
	test_utf8_offsets();
	test_utf8_blocks();
	test_piece_cache();
	test_piece_cache_middle();
	test_chunked_encoding();
	test_ids_parse();
	return UNIT_DONE("tokenizer");
}
