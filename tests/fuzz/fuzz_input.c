/*
 * fuzz_input - what an input is and how it is cut (hm_input_detect,
 * hm_framer, hm_json_array_next) over arbitrary bytes.  Detection gives
 * a kind of the enum for every flag; the frames of the input fed whole
 * and fed in pieces (cut where the input's hash says) are the same, in
 * both framer modes; a frame's lines are in order; an array's members
 * lie inside it.
 */
#include "fuzz.h"

/* The frames of f as one text: type, lines and bytes of each. */
static void
drain(hm_framer *f, char **log, size_t *len, size_t *cap)
{
	hm_frame fr;
	int r;

	while ((r = hm_framer_next(f, &fr)) > 0) {
		size_t need = fr.len + fr.rest_len + 64;

		FUZZ_CHECK(fr.type >= HM_FRAME_LINE && fr.type <= HM_FRAME_OPEN, "type %d", (int)fr.type);
		FUZZ_CHECK(fr.line >= 1, "line %zu", fr.line);
		if (fr.type != HM_FRAME_OPEN)
			FUZZ_CHECK(fr.last >= fr.line, "last %zu before line %zu", fr.last, fr.line);
		if (*len + need > *cap) {
			*cap = (*len + need) * 2;
			*log = realloc(*log, *cap);
			FUZZ_CHECK(*log != NULL, "oom");
		}
		*len += (size_t)sprintf(*log + *len, "%d %zu %zu %zu:", (int)fr.type, fr.line,
		    fr.type == HM_FRAME_OPEN ? 0 : fr.last, fr.len);
		if (fr.type != HM_FRAME_OPEN && fr.len) {
			memcpy(*log + *len, fr.p, fr.len);
			*len += fr.len;
		}
		if (fr.type == HM_FRAME_AFTER && fr.rest_len) {
			memcpy(*log + *len, fr.rest, fr.rest_len);
			*len += fr.rest_len;
		}
		(*log)[(*len)++] = '\n';
		if (fr.type == HM_FRAME_JSON && hm_json_array_is_objects(fr.p, fr.len)) {
			size_t pos = 0, at, n, nl = 0, k = 0;

			while (hm_json_array_next(fr.p, fr.len, &pos, &at, &n, &nl)) {
				FUZZ_CHECK(at + n <= fr.len, "member outside the array");
				FUZZ_CHECK(++k <= fr.len, "no end to the members");
			}
		}
	}
	FUZZ_CHECK(r == 0, "framer out of memory");
}

/* The frames of s[0..n), fed whole (cuts 0) or in pieces. */
static char *
frames(const char *s, size_t n, unsigned flags, uint64_t seed, int cuts, size_t *len)
{
	hm_framer *f = hm_framer_new(flags);
	size_t at = 0, cap = 256;
	char *log = malloc(cap);

	FUZZ_CHECK(f && log, "oom");
	*len = 0;
	while (at < n) {
		size_t k = cuts ? 1 + fuzz_next(&seed) % (n - at < 7 ? n - at : 7) : n - at;

		hm_framer_feed(f, s + at, k);
		drain(f, &log, len, &cap);
		at += k;
	}
	hm_framer_finish(f);
	drain(f, &log, len, &cap);
	hm_framer_free(f);
	return log;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned detect[] = {
		0, HM_DETECT_IDS, HM_DETECT_TEXT, HM_DETECT_LINES, HM_DETECT_IDS | HM_DETECT_LINES,
		HM_DETECT_TEXT | HM_DETECT_LINES,
	};
	const char *s = (const char *)data;
	uint64_t seed = fuzz_hash(data, size);
	size_t i, a, b;
	unsigned fl;

	for (i = 0; i < sizeof detect / sizeof detect[0]; i++) {
		hm_input k = hm_input_detect(s, size, detect[i] | HM_DETECT_END);

		FUZZ_CHECK(k > HM_INPUT_MORE && k <= HM_INPUT_EMPTY, "kind %d at the end", (int)k);
		k = hm_input_detect(s, size, detect[i]);
		FUZZ_CHECK(k >= HM_INPUT_MORE && k <= HM_INPUT_EMPTY, "kind %d", (int)k);
	}
	for (fl = 0; fl <= HM_FRAMER_TEXT; fl++) {
		char *whole = frames(s, size, fl, seed, 0, &a);
		char *cut = frames(s, size, fl, seed, 1, &b);

		FUZZ_CHECK(a == b && !memcmp(whole, cut, a), "frames differ when fed in pieces (flags %u)", fl);
		free(whole);
		free(cut);
	}
	return 0;
}
