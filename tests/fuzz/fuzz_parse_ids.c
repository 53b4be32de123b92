/*
 * fuzz_parse_ids - the streaming parser fed token ids (parse.h says what
 * is checked).  The input is a list of ids (decimal, as harmony-parse
 * reads it), or else Harmony text turned into ids by the encoder with
 * special tokens recognised.  hm_ids_place (harmony-tokens' and
 * harmony-parse's "where is token N") must place its first, middle and
 * last token.
 */
#include "parse.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hm_ids ids = { 0 };
	hm_error err;
	run_opts o = { 0 };

	if (hm_ids_parse((const char *)data, size, HM_IDS_ANY, &ids, NULL, &err) != HM_OK) {
		hm_encoder *e = hm_encoder_new();

		ids.len = 0;
		FUZZ_CHECK(e != NULL, "oom");
		FUZZ_CHECK(hm_encode(e, (const char *)data, size, HM_ENC_SPECIAL | HM_ENC_LOSSY, &ids, NULL) == HM_OK,
		           "lossy encoding failed");
		hm_encoder_free(e);
	}
	o.ids = ids.v ? ids.v : (const uint32_t *)"";
	o.n = ids.len;
	parse_all(&o, fuzz_hash(data, size));
	if (ids.len) {
		size_t at[3], i;

		at[0] = 0;
		at[1] = ids.len / 2;
		at[2] = ids.len - 1;
		for (i = 0; i < 3; i++) {
			hm_place pl = { 0 };

			FUZZ_CHECK(hm_ids_place(ids.v, ids.len, at[i], &pl) == HM_OK, "hm_ids_place");
			FUZZ_CHECK((!pl.role.p || !pl.role.p[pl.role.len]) &&
			           (!pl.channel.p || !pl.channel.p[pl.channel.len]) &&
			           (!pl.recipient.p || !pl.recipient.p[pl.recipient.len]),
			           "a field not terminated");
			hm_place_free(&pl);
		}
	}
	hm_ids_free(&ids);
	return 0;
}
