/*
 * bpe.c - tiktoken's byte-pair merge, without its quadratic loop.
 *
 * Short pieces use the plain algorithm over an array of parts: find the
 * lowest-ranked pair, merge, refresh the two neighbouring pair ranks.
 * Long pieces (a 10k-character run of one letter is a single piece) use a
 * linked list of parts and a binary heap of (rank, start) keys; the key
 * order is exactly "lowest rank, then leftmost", and stale heap entries are
 * recognised because the part's current pair rank no longer matches.
 */
#include <stdlib.h>
#include <string.h>

#include "bpe_int.h"
#include "harmony.h"

#define NONE UINT32_MAX
#define SHORT_PIECE 64

static uint32_t
pair_rank(const unsigned char *p, uint32_t a, uint32_t end)
{
	int32_t r = hm_vocab_rank((const char *)p + a, end - a);

	return r < 0 ? NONE : (uint32_t)r;
}

static int
grow(hm_bpe_scratch *sc, size_t n)
{
	uint32_t *a, *b, *c, *d;

	if (n + 1 <= sc->cap)
		return 0;
	n = n + 1 < 2 * sc->cap ? 2 * sc->cap : n + 1;
	a = realloc(sc->start, n * sizeof *a);
	if (a)
		sc->start = a;
	b = realloc(sc->rank, n * sizeof *b);
	if (b)
		sc->rank = b;
	c = realloc(sc->next, n * sizeof *c);
	if (c)
		sc->next = c;
	d = realloc(sc->prev, n * sizeof *d);
	if (d)
		sc->prev = d;
	if (!a || !b || !c || !d)
		return -1;
	sc->cap = n;
	return 0;
}

/* The plain algorithm: parts i = 0..m-1 start at start[i]; start[m] = n. */
static hm_status
merge_short(hm_bpe_scratch *sc, const unsigned char *p, size_t n, hm_ids *out)
{
	uint32_t *start = sc->start, *rank = sc->rank;
	size_t m = n, i, best;
	hm_status st;

	for (i = 0; i <= n; i++)
		start[i] = (uint32_t)i;
	for (i = 0; i + 1 < m; i++)
		rank[i] = pair_rank(p, start[i], start[i + 2]);
	rank[m - 1] = NONE;
	for (;;) {
		uint32_t min = NONE;

		best = 0;
		for (i = 0; i + 1 < m; i++) {
			if (rank[i] < min) {
				min = rank[i];
				best = i;
			}
		}
		if (min == NONE)
			break;
		/* merge part best with part best+1 */
		memmove(start + best + 1, start + best + 2, (m - best - 1) * sizeof *start);
		memmove(rank + best + 1, rank + best + 2, (m - best - 2) * sizeof *rank);
		m--;
		rank[best] = best + 1 < m ? pair_rank(p, start[best], start[best + 2]) : NONE;
		if (best > 0)
			rank[best - 1] = pair_rank(p, start[best - 1], start[best + 1]);
	}
	for (i = 0; i < m; i++) {
		uint32_t r = (uint32_t)hm_vocab_rank((const char *)p + start[i], start[i + 1] - start[i]);

		if ((st = hm_ids_push(out, r)) != HM_OK)
			return st;
	}
	return HM_OK;
}

static void
heap_push(uint64_t *h, size_t *len, uint64_t k)
{
	size_t i = (*len)++;

	while (i > 0) {
		size_t up = (i - 1) / 2;

		if (h[up] <= k)
			break;
		h[i] = h[up];
		i = up;
	}
	h[i] = k;
}

static uint64_t
heap_pop(uint64_t *h, size_t *len)
{
	uint64_t top = h[0], k = h[--*len];
	size_t i = 0, n = *len;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1] < h[c])
			c++;
		if (k <= h[c])
			break;
		h[i] = h[c];
		i = c;
	}
	if (n)
		h[i] = k;
	return top;
}

/* Linked parts indexed by their start byte; rank[s] = rank of (s, next[s]). */
static hm_status
merge_long(hm_bpe_scratch *sc, const unsigned char *p, size_t n, hm_ids *out)
{
	uint32_t *next = sc->next, *prev = sc->prev, *rank = sc->rank;
	size_t hlen = 0, i;
	hm_status st;

	/* Each merge pushes at most two keys; n - 1 initial pairs. */
	if (sc->heap_cap < 3 * n) {
		uint64_t *h = realloc(sc->heap, 3 * n * sizeof *h);

		if (!h)
			return HM_ENOMEM;
		sc->heap = h;
		sc->heap_cap = 3 * n;
	}
	for (i = 0; i < n; i++) {
		next[i] = (uint32_t)(i + 1);
		prev[i] = i ? (uint32_t)(i - 1) : NONE;
	}
	for (i = 0; i + 1 < n; i++) {
		rank[i] = pair_rank(p, (uint32_t)i, (uint32_t)(i + 2));
		if (rank[i] != NONE)
			heap_push(sc->heap, &hlen, (uint64_t)rank[i] << 32 | i);
	}
	rank[n - 1] = NONE;
	while (hlen) {
		uint64_t k = heap_pop(sc->heap, &hlen);
		uint32_t r = (uint32_t)(k >> 32), a = (uint32_t)k, b, c;

		if (rank[a] != r)
			continue; /* stale: the part or its neighbour changed */
		b = next[a];
		c = next[b];
		/* merge a and b; the merged part keeps start a */
		next[a] = c;
		if (c < n)
			prev[c] = a;
		rank[b] = NONE;
		rank[a] = c < n ? pair_rank(p, a, next[c]) : NONE;
		if (rank[a] != NONE)
			heap_push(sc->heap, &hlen, (uint64_t)rank[a] << 32 | a);
		if (prev[a] != NONE) {
			uint32_t z = prev[a];

			rank[z] = pair_rank(p, z, c);
			if (rank[z] != NONE)
				heap_push(sc->heap, &hlen, (uint64_t)rank[z] << 32 | z);
		}
	}
	for (i = 0; i < n; i = next[i]) {
		uint32_t r = (uint32_t)hm_vocab_rank((const char *)p + i, next[i] - i);

		if ((st = hm_ids_push(out, r)) != HM_OK)
			return st;
	}
	return HM_OK;
}

hm_status
hm__bpe_merge(hm_bpe_scratch *sc, const unsigned char *p, size_t n, hm_ids *out)
{
	if (grow(sc, n + 1) < 0)
		return HM_ENOMEM;
	if (n <= SHORT_PIECE)
		return merge_short(sc, p, n, out);
	return merge_long(sc, p, n, out);
}

void
hm__bpe_scratch_free(hm_bpe_scratch *sc)
{
	free(sc->start);
	free(sc->rank);
	free(sc->next);
	free(sc->prev);
	free(sc->heap);
	memset(sc, 0, sizeof *sc);
}
