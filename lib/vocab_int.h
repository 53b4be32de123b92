/*
 * vocab_int.h - the compiled-in o200k vocabulary.
 *
 * build/vocab_data.c is generated at build time by tools/gen_vocab.c from
 * vocab/o200k_base.tiktoken (after its SHA-256 is checked): the token bytes
 * in rank order, their offsets, an open-addressing hash from bytes to rank,
 * and the texts of the special tokens.  The generator and the library share
 * hm__vocab_hashfn() below, so the table is usable with no start-up work.
 */
#ifndef HM_VOCAB_INT_H
#define HM_VOCAB_INT_H

#include <stddef.h>
#include <stdint.h>

#define HM_VOCAB_HASH_BITS 19
#define HM_VOCAB_HASH_SIZE (1u << HM_VOCAB_HASH_BITS)

extern const unsigned char hm__vocab_bytes[];
extern const uint32_t hm__vocab_off[];       /* HM_N_ORDINARY + 1 offsets */
extern const uint32_t hm__vocab_hash[];      /* rank + 1, 0 = empty slot */
extern const char hm__special_text[];        /* all special texts, in id order */
extern const uint32_t hm__special_off[];     /* HM_N_SPECIAL + 1 offsets */

/* FNV-1a over the bytes, finished with a multiply so short keys spread. */
static inline uint32_t
hm__vocab_hashfn(const unsigned char *s, size_t n)
{
	uint32_t h = 2166136261u ^ (uint32_t)n;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ s[i]) * 16777619u;
	h ^= h >> 15;
	h *= 0x2c1b3c6dU;
	h ^= h >> 12;
	return h;
}

#endif
