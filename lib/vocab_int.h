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
/*
 * Hash slots: 0 = empty, else (fingerprint << 18) | (rank + 1), where the
 * fingerprint is the hash's bits above the index bits, so most probes that
 * miss are rejected without comparing bytes.
 */
extern const uint32_t hm__vocab_hash[];
#define HM_VOCAB_RANK_BITS 18
#define HM_VOCAB_FP(h) ((h) >> HM_VOCAB_HASH_BITS)
extern const char hm__special_text[];        /* all special texts, in id order */
extern const uint32_t hm__special_off[];     /* HM_N_SPECIAL + 1 offsets */
/* Rank of every two-byte string (b0 << 8 | b1), -1 when not a token. */
extern const int32_t hm__pair2_rank[65536];

/*
 * Hash of a byte string, eight bytes at a time (assembled little-endian so
 * the generator and the library agree on any host).
 */
static inline uint32_t
hm__vocab_hashfn(const unsigned char *s, size_t n)
{
	uint64_t h = (uint64_t)n * 0x9E3779B97F4A7C15ull, w;
	size_t i;

	while (n >= 8) {
		w = 0;
		for (i = 0; i < 8; i++)
			w |= (uint64_t)s[i] << (8 * i);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		s += 8;
		n -= 8;
	}
	w = 0;
	for (i = 0; i < n; i++)
		w |= (uint64_t)s[i] << (8 * i);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	h *= 0xff51afd7ed558ccdull;
	return (uint32_t)(h >> 32);
}

/* The rank of s[0..n) given its hash h, or -1. */
static inline int32_t
hm__vocab_find(const unsigned char *s, size_t n, uint32_t h)
{
	uint32_t i = h & (HM_VOCAB_HASH_SIZE - 1), e, fp = HM_VOCAB_FP(h);

	while ((e = hm__vocab_hash[i]) != 0) {
		if (e >> HM_VOCAB_RANK_BITS == fp) {
			uint32_t r = (e & ((1u << HM_VOCAB_RANK_BITS) - 1)) - 1;
			uint32_t o = hm__vocab_off[r];

			if (hm__vocab_off[r + 1] - o == n) {
				const unsigned char *t = hm__vocab_bytes + o;
				size_t k = 0;

				while (k < n && t[k] == s[k])
					k++;
				if (k == n)
					return (int32_t)r;
			}
		}
		i = (i + 1) & (HM_VOCAB_HASH_SIZE - 1);
	}
	return -1;
}

#endif
