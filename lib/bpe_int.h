/* bpe_int.h - byte-pair merging of one piece. */
#ifndef HM_BPE_INT_H
#define HM_BPE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "harmony.h"

/* Scratch space reused across pieces, so merging allocates only to grow. */
typedef struct hm_bpe_scratch {
	/* per part, indexed by the byte where it starts: */
	uint32_t *rank;    /* the join with the next part (a merge key in short pieces) */
	uint32_t *tok;     /* its own rank */
	uint32_t *next, *prev;
	uint64_t *heap;    /* (rank << 32 | start) */
	uint64_t *pairs;   /* cache of joins: ((l << 18 | r) + 1) << 18 | (rank + 1, 0 for none) */
	unsigned pair_shift; /* 64 less the log2 of its slots; 0: not made yet */
	unsigned pair_bits;  /* the log2 of its slots when next made; 0: small */
	size_t short_max, huge_min; /* the path limits below; 0: the defaults (tests move them) */
	int plain;         /* merge from single bytes, runs too (the tests compare) */
	size_t cap, heap_cap;
	size_t avail;      /* bytes readable from the piece's start */
} hm_bpe_scratch;

/*
 * Append the ranks of piece p[0..n) (n >= 2, not itself a token) to *out:
 * merge the adjacent pair of lowest rank, leftmost on ties, until no pair
 * is a token.  avail >= n bytes are readable from p (lookups read up to 16
 * bytes at once when they may).
 */
/*
 * Pieces of at most short_max bytes (< 256) are merged over plain
 * arrays, longer ones with a heap, and from huge_min bytes on with
 * a compact tree (4.5 bytes of scratch per byte).  All three give the
 * same ids; the tests move the limits to compare them.
 */
#define HM_BPE_SHORT_MAX 24
#define HM_BPE_HUGE_MIN 65536

hm_status hm__bpe_merge(hm_bpe_scratch *sc, const unsigned char *p, size_t n, size_t avail,
                        hm_ids *out);
/* An encoder's limits moved, as sc's above (for the tests). */
struct hm_encoder;
void hm__encoder_bpe_limits(struct hm_encoder *enc, size_t short_max, size_t huge_min);
/*
 * encode.c's UTF-8 check (for the tests): form 1 the plain one, 2 by 16 bytes, 3 by 64
 * where AVX2 is ((size_t)-1 elsewhere), 4 those blocks alone, any other the encoder's.
 */
size_t hm__encode_valid_prefix(const unsigned char *s, size_t n, int form);
/* The join cache made at full size from the next merge on. */
void hm__bpe_scratch_grow(hm_bpe_scratch *sc);
void hm__bpe_scratch_free(hm_bpe_scratch *sc);

#endif
