/*
 * fuzz_parse_ids - the streaming parser fed token ids (parse.h says what
 * is checked).  The input is a list of ids (decimal, as harmony-parse
 * reads it), or else Harmony text turned into ids by the encoder with
 * special tokens recognised.
 */
#include "parse.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hm_ids ids = { 0 };
	hm_ids_error err;
	run_opts o = { 0 };

	if (hm_ids_parse((const char *)data, size, HM_IDS_ANY, &ids, NULL, &err) != HM_OK) {
		hm_encoder *e = hm_encoder_new();

		ids.len = 0;
		FUZZ_CHECK(e != NULL, "oom");
		FUZZ_CHECK(hm_encode(e, (const char *)data, size, HM_ENC_SPECIAL | HM_ENC_LOSSY, &ids) == HM_OK,
		           "lossy encoding failed");
		hm_encoder_free(e);
	}
	o.ids = ids.v ? ids.v : (const uint32_t *)"";
	o.n = ids.len;
	parse_all(&o, fuzz_hash(data, size));
	hm_ids_free(&ids);
	return 0;
}
