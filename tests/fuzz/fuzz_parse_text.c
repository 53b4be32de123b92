/*
 * fuzz_parse_text - the streaming parser fed Harmony text, arbitrary bytes
 * (parse.h says what is checked).
 */
#include "parse.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	run_opts o = { 0 };

	o.text = size ? (const char *)data : "";
	o.n = size;
	parse_all(&o, fuzz_hash(data, size));
	return 0;
}
