/* bpe_int.h - byte-pair merging of one piece. */
#ifndef HM_BPE_INT_H
#define HM_BPE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "harmony.h"

/* Scratch space reused across pieces, so merging allocates only to grow. */
typedef struct hm_bpe_scratch {
	uint32_t *start;   /* per part: byte offset of its start */
	uint32_t *rank;    /* per part: rank of (part, next part), or NONE */
	uint32_t *next, *prev;
	uint64_t *heap;    /* (rank << 32 | start) */
	size_t cap, heap_cap;
} hm_bpe_scratch;

/*
 * Append the ranks of piece p[0..n) (n >= 2, not itself a token) to *out:
 * merge the adjacent pair of lowest rank, leftmost on ties, until no pair
 * is a token.
 */
hm_status hm__bpe_merge(hm_bpe_scratch *sc, const unsigned char *p, size_t n, hm_ids *out);
void hm__bpe_scratch_free(hm_bpe_scratch *sc);

#endif
