/*
 * test_regex - the regular expressions of `pattern` (json_regex.c) run as
 * a DFA, built as texts need it, must answer as the NFA does: patterns
 * and texts made by a seeded generator (anchors, classes, alternatives,
 * counted and open repeats over a small alphabet, so that they meet),
 * each text matched by both; then the cases the DFA leaves to the NFA
 * (a byte past ASCII, word boundaries, more states than it keeps) and a
 * few answers written out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_schema_int.h"
#include "unit.h"

static unsigned long rng = 37;

static unsigned
rnd(unsigned n)
{
	rng = rng * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned)((rng >> 33) % n);
}

/* A random pattern piece over the alphabet "ab-." into b. */
static void
piece(char *b, size_t cap, int depth)
{
	static const char *const atoms[] = { "a", "b", ".", "[ab]", "[^a]", "\\d", "[a-c0-9_]", "-",
		"\\.", "\\w", "\\s", "[.-]" };
	static const char *const reps[] = { "", "", "", "*", "+", "?", "{2}", "{0,3}", "{1,}", "*?" };
	char sub[200];

	if (depth < 2 && !rnd(4)) {
		size_t i, n = 1 + rnd(3);

		strncat(b, "(", cap - strlen(b) - 1);
		for (i = 0; i < n; i++) {
			sub[0] = '\0';
			piece(sub, sizeof sub, depth + 1);
			if (i)
				strncat(b, "|", cap - strlen(b) - 1);
			strncat(b, sub, cap - strlen(b) - 1);
		}
		strncat(b, ")", cap - strlen(b) - 1);
	} else
		strncat(b, atoms[rnd(sizeof atoms / sizeof *atoms)], cap - strlen(b) - 1);
	strncat(b, reps[rnd(sizeof reps / sizeof *reps)], cap - strlen(b) - 1);
}

static void
pattern(char *b, size_t cap)
{
	size_t i, n = 1 + rnd(4);

	b[0] = '\0';
	if (rnd(2))
		strncat(b, "^", cap - 1);
	for (i = 0; i < n; i++)
		piece(b, cap, 0);
	if (rnd(3) == 0)
		strncat(b, "|b$", cap - strlen(b) - 1);
	if (rnd(2))
		strncat(b, "$", cap - strlen(b) - 1);
}

/* Both matchers on s[0..n); 1 when they agree (a disagreement is reported). */
static int
same(const char *pat, const hm_re *re, const char *s, size_t n)
{
	int nomem = 0, a = hm__re_search(re, s, n, &nomem), b = hm__re_search_nfa(re, s, n, &nomem);

	CHECK(!nomem);
	CHECK_MSG(a == b, "/%s/ on \"%.*s\": DFA %d, NFA %d", pat, (int)n, s, a, b);
	return a == b;
}

static int
search(const char *pat, const char *s)
{
	char err[160];
	hm_re *re;
	int nomem = 0, r;

	if (hm__re_compile(pat, strlen(pat), &re, err, sizeof err) != HM_OK) {
		CHECK_MSG(0, "/%s/: %s", pat, err);
		return -1;
	}
	r = hm__re_search(re, s, strlen(s), &nomem);
	CHECK(!nomem);
	CHECK(same(pat, re, s, strlen(s)));
	hm__re_free(re);
	return r;
}

int
main(void)
{
	static const char alpha[] = "ab-.1_ \n";
	char pat[400], text[40], err[160];
	size_t i, j, k, disagree = 0, runs = 0;

	for (i = 0; i < 3000; i++) {
		hm_re *re;

		pattern(pat, sizeof pat);
		if (hm__re_compile(pat, strlen(pat), &re, err, sizeof err) != HM_OK) {
			CHECK_MSG(0, "/%s/: %s", pat, err);
			continue;
		}
		for (j = 0; j < 40; j++) {
			size_t n = rnd(12);

			for (k = 0; k < n; k++)
				text[k] = alpha[rnd(sizeof alpha - 1)];
			runs++;
			disagree += !same(pat, re, text, n);
		}
		hm__re_free(re);
	}
	CHECK_MSG(disagree == 0, "%zu of %zu searches disagree", disagree, runs);

	/* written out: anchors, the end, the empty text, alternatives */
	CHECK(search("^[a-z][a-z0-9_]{0,31}$", "step_1") == 1);
	CHECK(search("^[a-z][a-z0-9_]{0,31}$", "Step_1") == 0);
	CHECK(search("^[a-z][a-z0-9_]{0,31}$", "") == 0);
	CHECK(search("^[0-9]+\\.[0-9]+\\.[0-9]+$", "1.2.3") == 1);
	CHECK(search("^[0-9]+\\.[0-9]+\\.[0-9]+$", "1.2.3\n") == 0);
	CHECK(search("^[0-9]+(ms|s|m|h)$", "250ms") == 1);
	CHECK(search("^[0-9]+(ms|s|m|h)$", "250x") == 0);
	CHECK(search("^https?://", "https://example.com") == 1);
	CHECK(search("^https?://", "ftp://x") == 0);
	CHECK(search("a$", "ba") == 1);
	CHECK(search("a$", "ab") == 0);
	CHECK(search("$", "") == 1);
	CHECK(search("^$", "") == 1);
	CHECK(search("^$", "a") == 0);
	CHECK(search("x|^$", "") == 1);
	CHECK(search("b", "aaab") == 1);
	CHECK(search("^a*$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") == 1);
	CHECK(search("(a|aa)*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") == 0);
	CHECK(search(".", "\n") == 0);
	CHECK(search("^.$", "\r") == 0);
	/* left to the NFA: a byte past ASCII, word boundaries */
	CHECK(search("^\\p{L}+$", "h\xc3\xa9llo") == 1);
	CHECK(search("^[a-z]+$", "h\xc3\xa9llo") == 0);
	CHECK(search("\\bfoo\\b", "a foo b") == 1);
	CHECK(search("\\bfoo\\b", "afoob") == 0);
	/* more states than the DFA keeps: the NFA answers (the 12th letter from the end is an a) */
	{
		char t[200];

		for (i = 0; i < 150; i++)
			t[i] = "ab"[(i * 7 + i / 3) % 2];
		t[150] = '\0';
		for (i = 0; i < 8; i++) {
			t[150 - 12] = i % 2 ? 'a' : 'b';
			t[150 - 3 - i] = 'a';
			CHECK(search("a[ab]{11}$", t) == (i % 2 ? 1 : 0));
		}
	}
	return UNIT_DONE("test_regex");
}
