/*
 * test_encode_stream.c - hm_encoder_feed/finish give the ids of one
 * hm_encode over the whole text, whatever the pieces: generated texts of
 * lines, long lines, special-token text, invalid UTF-8 (lossy and not),
 * cut in random places.
 */
#include <stdlib.h>

#include "harmony.h"
#include "unit.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static unsigned
rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* A text of n bytes drawn from pieces that stress the cut rule. */
static char *
gen_text(size_t n, int invalid)
{
	static const char *const parts[] = {
		"hello", " world", "\n", "\n\n", "/path", "\n/x", "  ", "\t", "\r\n",
		"123456", "don't", "<|start|>", "<|end|>", "<|message|>", "<|",
		"|>", "é", "日本語", "😀", "\n ", "\nA", "!!", "\xC2\xA0", "x",
		"\n<|call|>", "'s", "\n'",
	};
	char *s = malloc(n + 8);
	size_t len = 0;

	while (len < n) {
		const char *p = parts[rnd(sizeof parts / sizeof *parts)];
		size_t k = strlen(p);

		if (invalid && rnd(200) == 0) {
			p = rnd(2) ? "\xFF" : "\xE2\x82";
			k = strlen(p);
		}
		if (len + k > n)
			break;
		memcpy(s + len, p, k);
		len += k;
	}
	s[len] = '\0';
	return s;
}

static int
same_ids(const hm_ids *a, const hm_ids *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->v, b->v, a->len * sizeof *a->v));
}

/* Feed s in random pieces (up to maxpiece bytes); compare with one call. */
static int
check_stream(hm_encoder *enc, const char *s, size_t n, unsigned flags, size_t maxpiece)
{
	hm_ids whole = {0}, parts = {0};
	hm_error e1, e2;
	hm_status st1 = hm_encode(enc, s, n, flags, &whole, &e1), st2 = HM_OK;
	size_t i = 0;
	int ok;

	while (i < n && st2 == HM_OK) {
		size_t k = 1 + rnd((unsigned)maxpiece);

		if (k > n - i)
			k = n - i;
		st2 = hm_encoder_feed(enc, s + i, k, flags, &parts, &e2);
		i += k;
	}
	if (st2 == HM_OK)
		st2 = hm_encoder_finish(enc, flags, &parts, &e2);
	if (st1 == HM_OK)
		ok = st2 == HM_OK && same_ids(&whole, &parts);
	else	/* the same error at the same stream offset */
		ok = st2 == st1 && e2.index == e1.index;
	hm_encoder_reset(enc);
	hm_ids_free(&whole);
	hm_ids_free(&parts);
	return ok;
}

int
main(void)
{
	hm_encoder *enc = hm_encoder_new();
	hm_ids ids = {0};
	size_t held;
	int i;

	CHECK(enc != NULL);
	/* the header's example */
	CHECK(hm_encoder_feed(enc, "hello wor", 9, 0, &ids, NULL) == HM_OK && ids.len == 0);
	CHECK(hm_encoder_feed(enc, "ld", 2, 0, &ids, NULL) == HM_OK);
	CHECK(hm_encoder_held(enc, &held) && held == 11);
	CHECK(hm_encoder_finish(enc, 0, &ids, NULL) == HM_OK && ids.len == 2 &&
	    ids.v[0] == 24912 && ids.v[1] == 2375);
	CHECK(hm_encoder_held(enc, &held) && held == 0);
	hm_ids_free(&ids);

	for (i = 0; i < 60; i++) {
		/* sizes around the 64 KiB threshold and well past it */
		size_t n = i < 20 ? 1 + rnd(4000) : 60000 + rnd(200000);
		char *s = gen_text(n, i % 3 == 2);
		size_t len = strlen(s);
		unsigned flags = (i & 1 ? HM_ENC_SPECIAL : 0) | (i % 6 == 2 ? HM_ENC_LOSSY : 0);

		CHECK_MSG(check_stream(enc, s, len, flags, 1 + rnd(i < 30 ? 100 : 70000)),
		    "text %d (%zu bytes, flags %u)", i, len, flags);
		free(s);
	}

	/* memory: a stream of many lines is encoded as it goes */
	{
		char *s = gen_text(300000, 0);
		size_t len = strlen(s), fed = 0, most = 0;

		while (fed < len) {
			size_t k = len - fed < 4096 ? len - fed : 4096;

			CHECK(hm_encoder_feed(enc, s + fed, k, 0, &ids, NULL) == HM_OK);
			fed += k;
			hm_encoder_held(enc, &held);
			if (held > most)
				most = held;
		}
		CHECK(hm_encoder_finish(enc, 0, &ids, NULL) == HM_OK);
		CHECK_MSG(most < 100000, "held %zu bytes at most", most);
		hm_ids_free(&ids);
		free(s);
	}
	hm_encoder_free(enc);
	return UNIT_DONE("test_encode_stream");
}
