/*
 * fuzz_encode - the encoder over arbitrary bytes: ordinary, with special
 * tokens recognised, and lossy.  On valid UTF-8 decode(encode(x)) == x in
 * every mode and lossy changes nothing; on invalid UTF-8 the error offset
 * is the end of the valid prefix.  An encoder kept from input to input
 * (its cache warm) must agree with a new one.  Streaming (hm_encoder_feed
 * in chunks drawn from the hash, then hm_encoder_finish) gives what one
 * hm_encode gives, status and error offset included; one input in 32
 * is repeated past 64 KiB first, so that the stream looks for cuts.
 */
#include "fuzz.h"

static hm_encoder *warm;

static void
encode(hm_encoder *e, const char *s, size_t n, unsigned flags, hm_ids *out, hm_status *st,
    hm_error *err)
{
	out->len = 0;
	*st = hm_encode(e, s, n, flags, out, err);
	FUZZ_CHECK(*st == HM_OK || *st == HM_EINPUT, "status %d", (int)*st);
}

static int
same(const hm_ids *a, const hm_ids *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->v, b->v, a->len * sizeof *a->v));
}

static void
stream(hm_encoder *e, const char *s, size_t n, unsigned flags, uint64_t seed)
{
	hm_ids whole = { 0 }, part = { 0 };
	hm_status sw, sp = HM_OK;
	hm_error ew, ep;
	size_t at = 0;

	ew.index = ep.index = 0;
	sw = hm_encode(e, s, n, flags, &whole, &ew);
	hm_encoder_reset(e);
	while (sp == HM_OK && at < n) {
		size_t k = 1 + fuzz_next(&seed) % (fuzz_next(&seed) & 1 ? 16 : n - at);

		if (k > n - at)
			k = n - at;
		sp = hm_encoder_feed(e, s + at, k, flags, &part, &ep);
		at += k;
	}
	if (sp == HM_OK)
		sp = hm_encoder_finish(e, flags, &part, &ep);
	FUZZ_CHECK(sp == sw, "streaming says %d, one hm_encode %d", (int)sp, (int)sw);
	if (sw == HM_OK)
		FUZZ_CHECK(same(&whole, &part), "streaming gives other ids (%zu, %zu)", part.len, whole.len);
	else
		FUZZ_CHECK(ep.index == ew.index, "streaming error offset %zu, not %zu",
		           ep.index, ew.index);
	hm_encoder_reset(e);
	hm_ids_free(&whole);
	hm_ids_free(&part);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned modes[] = { 0, HM_ENC_SPECIAL, HM_ENC_LOSSY, HM_ENC_SPECIAL | HM_ENC_LOSSY };
	const char *s = (const char *)data;
	size_t valid = hm_utf8_valid_prefix(s, size), i, m;
	hm_encoder *fresh = hm_encoder_new();
	hm_ids a = { 0 }, b = { 0 }, plain = { 0 };
	hm_status sa, sb;
	hm_error ea;

	if (!warm)
		warm = hm_encoder_new();
	FUZZ_CHECK(fresh && warm, "hm_encoder_new");
	for (m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		unsigned f = modes[m];

		encode(fresh, s, size, f, &a, &sa, &ea);
		encode(warm, s, size, f, &b, &sb, NULL);
		FUZZ_CHECK(sa == sb, "mode %u: a warm encoder says %d, a new one %d", f, (int)sb, (int)sa);
		if (sa != HM_OK) {
			FUZZ_CHECK(!(f & HM_ENC_LOSSY), "lossy encoding failed");
			FUZZ_CHECK(valid < size, "valid UTF-8 refused");
			FUZZ_CHECK(ea.index == valid,
			           "error offset %zu, valid prefix %zu", ea.index, valid);
			continue;
		}
		FUZZ_CHECK(same(&a, &b), "mode %u: a warm encoder gives other ids", f);
		FUZZ_CHECK(valid == size || (f & HM_ENC_LOSSY), "invalid UTF-8 at %zu accepted", valid);
		for (i = 0; i < a.len; i++) {
			FUZZ_CHECK(hm_is_valid(a.v[i]), "id %u", (unsigned)a.v[i]);
			FUZZ_CHECK((f & HM_ENC_SPECIAL) || !hm_is_special(a.v[i]),
			           "special id %u without HM_ENC_SPECIAL", (unsigned)a.v[i]);
		}
		if (valid == size) {
			size_t n;
			char *back = fuzz_decode(a.v, a.len, &n);

			FUZZ_CHECK(n == size && !memcmp(back, s, size), "mode %u: decode(encode(x)) != x", f);
			free(back);
			if (f == 0) {
				plain.len = 0;
				FUZZ_CHECK(hm_ids_append(&plain, a.v, a.len) == HM_OK, "oom");
			} else if (f == HM_ENC_LOSSY) {
				FUZZ_CHECK(same(&a, &plain), "lossy changes valid UTF-8");
			}
		}
	}
	if (valid == size) {
		hm_ids c = { 0 };

		FUZZ_CHECK(hm_encode_ordinary(s, size, &c, NULL) == HM_OK, "hm_encode_ordinary");
		FUZZ_CHECK(same(&c, &plain), "hm_encode_ordinary differs from hm_encode");
		hm_ids_free(&c);
	}
	{
		uint64_t h = fuzz_hash(data, size);
		unsigned f = modes[h % 4];

		if ((h >> 8) % 32 == 0 && size) {
			size_t reps = (66 * 1024 + size - 1) / size, r;
			char *big = malloc(reps * size);

			FUZZ_CHECK(big != NULL, "oom");
			for (r = 0; r < reps; r++)
				memcpy(big + r * size, s, size);
			stream(fresh, big, reps * size, f, h);
			free(big);
		} else {
			stream(fresh, s, size, f, h);
		}
	}
	hm_ids_free(&a);
	hm_ids_free(&b);
	hm_ids_free(&plain);
	hm_encoder_free(fresh);
	return 0;
}
