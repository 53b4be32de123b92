/*
 * test_ids_pack.c - the packed form of a turn's ids (ids_pack_int.h): it
 * round-trips every length and id range, its spelling is fixed (a
 * golden string), and every one-character edit, cut or extension of a
 * packed string is refused.
 */
#include <stdlib.h>

#include "buf_int.h"
#include "ids_pack_int.h"
#include "unit.h"

static int
roundtrip(const uint32_t *ids, size_t n)
{
	hm_buf b = { 0 };
	hm_ids out = { 0 };
	const char *why;
	int nomem = 0, ok;

	hm__ids_pack(&nomem, &b, ids, n);
	ok = !nomem && hm__ids_unpack(b.p, b.len, &out, &why) == HM_OK && out.len == n &&
	    (!n || !memcmp(out.v, ids, n * sizeof *ids));
	hm_buf_free(&b);
	free(out.v);
	return ok;
}

int
main(void)
{
	static const uint32_t call[] = { 200005, 35644, 200008, 23483, 200007, 0, 127, 128,
		16383, 16384, HM_N_TOKENS - 1 };
	uint32_t many[600];
	hm_buf b = { 0 };
	hm_ids out = { 0 };
	const char *why;
	int nomem = 0, refused = 0, tries = 0;
	size_t i, n;
	char *s;

	for (n = 0; n <= sizeof call / sizeof call[0]; n++)
		CHECK_MSG(roundtrip(call, n), "%zu ids", n);
	for (i = 0; i < 600; i++)
		many[i] = (uint32_t)((i * 2654435761u) % HM_N_TOKENS);
	CHECK(roundtrip(many, 600));

	/* the one spelling: a change of the form is a new version prefix */
	hm__ids_pack(&nomem, &b, call, 5);
	CHECK_MSG(!strcmp(b.p, "h1xZoMvJYCyJoMu7cBx5oMGqHz0g"), "%s", b.p);
	CHECK(hm__ids_packed(b.p, b.len));

	/* every character changed to every other of the alphabet: refused */
	s = malloc(b.len + 2);
	for (i = 0; s && i < b.len; i++) {
		const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
		const char *c;

		for (c = abc; *c; c++) {
			if (*c == b.p[i])
				continue;
			memcpy(s, b.p, b.len);
			s[i] = *c;
			tries++;
			refused += hm__ids_unpack(s, b.len, &out, &why) == HM_EINPUT && why;
		}
	}
	CHECK_MSG(tries && refused == tries, "%d of %d edits refused", refused, tries);
	/* cut short or lengthened: refused */
	for (i = 0; i < b.len; i++)
		CHECK_MSG(hm__ids_unpack(b.p, i, &out, &why) == HM_EINPUT, "cut at %zu", i);
	if (s) {
		memcpy(s, b.p, b.len);
		s[b.len] = 'A';
		CHECK(hm__ids_unpack(s, b.len + 1, &out, &why) == HM_EINPUT);
	}
	/* not ours: another prefix (Anthropic's, OpenAI's encrypted content) */
	CHECK(!hm__ids_packed("EqQBCkgIARABGAIiQL", 18));
	CHECK(hm__ids_unpack("gAAAAABo", 8, &out, &why) == HM_EINPUT);
	free(s);
	hm_buf_free(&b);
	free(out.v);
	return UNIT_DONE("ids_pack");
}
