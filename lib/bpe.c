/*
 * bpe.c - tiktoken's byte-pair merge, without its quadratic loop.
 *
 * Short pieces use the plain algorithm over an array of parts: find the
 * lowest-ranked pair, merge, refresh the two neighbouring pair ranks.
 * Long pieces (a 10k-character run of one letter is a single piece) use a
 * linked list of parts and a binary heap of (rank, start) keys; the key
 * order is exactly "lowest rank, then leftmost", and stale heap entries are
 * recognised because the part's current pair rank no longer matches.
 * Huge pieces (tens of megabytes of one letter, a blob without blanks)
 * would make that 40 bytes of scratch per byte; they use one 32-bit word
 * per byte and a tree of block minima instead (merge_huge below): 4.5
 * bytes per byte, and the same merges in the same order.
 *
 * The first two start from characters where they may: a character of two
 * or three bytes that is one token starts as that token when no merge
 * across its edges could come before its own (hm__char_tok, made by
 * tools/gen_vocab.c, which says why the ids are the same); a run of CJK
 * characters then needs a few merges instead of two a character.  So do
 * a piece's first space and the character after it (hm__space_tok), and
 * emoji, as the one, two or three tokens they merge to alone (hm__char4,
 * hm__space4).  Short pieces that start so merge in slots, a place per
 * part (merge_slots).
 */
#include <stdlib.h>
#include <string.h>

#include "bpe_int.h"
#include "harmony.h"
#include "vocab_int.h"

#define NONE UINT32_MAX
#define PAIR_CACHE_BITS 15
#define PAIR_CACHE_SMALL 9 /* until the encoder grows its caches */
#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* hm_ids_append of a piece's few ids, inline while they fit (once a piece). */
static inline hm_status
append_ids(hm_ids *out, const uint32_t *v, size_t k)
{
	if (out->cap - out->len >= k) {
		size_t j;

		for (j = 0; j < k; j++)
			out->v[out->len + j] = v[j];
		out->len += k;
		return HM_OK;
	}
	return hm_ids_append(out, v, k);
}

/*
 * The merge key of the join of rank r at place i, rank << bits | i.  A
 * join of no token (r = NONE) makes a key of NO_KEY or more, which sorts
 * after every real one (ranks are below 2^18 and bits at most 8, so real
 * keys are below 2^26) and reads as none; so no test of r is needed.
 */
#define NO_KEY (1u << 31)

static inline uint32_t
join_key(uint32_t r, uint32_t i, unsigned bits)
{
	return r << bits | i;
}

/* The rank of the two bytes p[a], p[a + 1] as one token, or NONE. */
static inline uint32_t
pair2(const unsigned char *p, size_t a)
{
	int32_t v = hm__pair2_rank[p[a] << 8 | p[a + 1]];

	return v < 0 ? NONE : (uint32_t)v;
}

/*
 * The rank of the two parts p[a..mid) and p[mid..end), end - a >= 3, whose
 * own ranks are l and r, joined; or NONE.  Two answers are read at once:
 * a small cache keyed by (l, r), for the same pairs keep coming back even
 * when whole pieces do not (new words are made of old syllables, CJK text
 * of a few thousand characters) and it stays in L2 where the vocabulary
 * does not fit; and the join filter, which turns down most pairs that are
 * no token.  Only when the cache has not the pair and the filter lets it
 * through is the vocabulary searched (join_search), and that answer
 * cached.  Whether a pair is cached or turned down changes from join to
 * join as a coin would (a fifth of CJK's joins are tokens): one branch,
 * rarely taken, where a branch on each was mispredicted a third of the
 * time.
 */
static uint32_t
join_search(hm_bpe_scratch *sc, const unsigned char *p, size_t a, size_t end,
            uint64_t *e, uint64_t key)
{
	int32_t v = hm__vocab_find_avail(p + a, end - a, sc->avail - a);

	*e = key << HM_VOCAB_RANK_BITS | (uint32_t)(v + 1); /* rank + 1, 0 for none */
	return v < 0 ? NONE : (uint32_t)v;
}

static inline uint32_t
join_rank(hm_bpe_scratch *sc, const unsigned char *p, size_t a, size_t end,
          uint32_t l, uint32_t r)
{
	uint64_t key = hm__join_key(l, r), h = hm__join_hash(key), *e, ent;
	uint32_t hit, c, need;

	e = &sc->pairs[h >> sc->pair_shift];
	ent = *e;
	hit = ent >> HM_VOCAB_RANK_BITS == key;
	need = (hit ^ 1) & (uint32_t)hm__join_maybe(h);
#if defined(__GNUC__)
	__asm__("" : "+r"(need)); /* one branch on need, not one on each of its parts */
#endif
	if (need)
		return join_search(sc, p, a, end, e, key);
	c = (uint32_t)ent & HM_VOCAB_RANK_MASK & -hit; /* rank + 1; 0 for none, or not cached */
	return c - 1;                                  /* NONE without a branch */
}

static int
grow(hm_bpe_scratch *sc, size_t n)
{
	uint32_t **arr[] = { &sc->rank, &sc->tok, &sc->next, &sc->prev };
	size_t i;
	int ok = 1;

	if (n + 1 <= sc->cap)
		return 0;
	n = n + 1 < 2 * sc->cap ? 2 * sc->cap : n + 1;
	for (i = 0; i < sizeof arr / sizeof arr[0]; i++) {
		uint32_t *q = realloc(*arr[i], n * sizeof *q);

		if (q)
			*arr[i] = q;
		else
			ok = 0;
	}
	if (!ok)
		return -1;
	sc->cap = n;
	return 0;
}

/*
 * The part a merge starts with at byte i of p[0..n), a lead byte of two
 * or three (0xC2 to 0xEF): the byte itself, or the whole character at i
 * where it is one token that hm__char_tok lets start as one beside the
 * bytes around it (the same ids: gen_vocab.c says why).  A CJK character
 * is then no merge instead of two, and its two join look-ups.  Its own
 * rank in *tok; its length.
 */
#define NO_FLAG (1u << 23) /* in no hm__char_tok entry */

static const uint32_t left_need[4] = { /* by the byte before, >> 6 */
	HM_CHAR_LEFT_ASCII, HM_CHAR_LEFT_ASCII, HM_CHAR_LEFT_CONT, NO_FLAG
};
static const uint32_t right_need[4] = { /* by the byte after, >> 6 */
	HM_CHAR_RIGHT_ASCII, HM_CHAR_RIGHT_ASCII, NO_FLAG, HM_CHAR_RIGHT_LEAD
};

/*
 * Whether a unit (a character, or a space and one) whose entry is e, its
 * flags as hm__char_tok's, may start as its tokens between the bytes
 * p[at - 1] (when at > 0) and p[end] (when end < n): beside an ASCII byte
 * by its class flag, beside another by the byte masks lm (continuation
 * bytes before it) and rm (lead bytes after it), which are all ones where
 * the class flag is set; a byte that cannot stand there in UTF-8 refuses.
 * 1 or 0, without a branch on the answer (for CJK, Indic and emoji it is
 * not predictable).  The masks are read only where there is a neighbour.
 */
static inline uint32_t
starts_between(const unsigned char *p, size_t at, size_t end, size_t n, uint32_t e,
               const uint64_t *lm, const uint64_t *rm)
{
	uint32_t ok = (e & HM_CHAR_TOKEN) != 0;

	if (at > 0) {
		unsigned x = p[at - 1];

		ok &= (x < 0x80 && e & HM_CHAR_LEFT_ASCII) | ((x >> 6 == 2) & (uint32_t)(*lm >> (x & 63)));
	}
	if (end < n) {
		unsigned y = p[end];

		ok &= (y < 0x80 && e & HM_CHAR_RIGHT_ASCII) | ((y >> 6 == 3) & (uint32_t)(*rm >> (y & 63)));
	}
	return ok;
}

/*
 * When a class of the bytes beside a two-byte character refused it:
 * whether the bytes that are there allow it (hm__char_mask).  Out of line:
 * most such characters pass the class test.
 */
#ifdef __GNUC__
__attribute__((noinline))
#endif
static int
beside_ok(const unsigned char *p, size_t i, size_t len, size_t n, uint32_t cp, uint32_t e)
{
	const uint64_t *mk = hm__char_mask[hm__char_slot[cp]];

	return (int)starts_between(p, i, i + len, n, e, &mk[0], &mk[1]);
}

#ifdef __GNUC__
__attribute__((always_inline)) /* once per character: the call cost a fifth of CJK's start */
#endif
static inline uint32_t
start_part(const unsigned char *p, size_t i, size_t n, uint32_t *tok)
{
	unsigned b = p[i], c1, c2;
	uint32_t cp, len, e, need = HM_CHAR_TOKEN;

	if (b < 0xE0) {
		if (n - i < 2 || (c1 = p[i + 1] ^ 0x80u) >= 0x40)
			goto byte;
		cp = (b & 0x1Fu) << 6 | c1;
		len = 2;
	} else {
		const uint64_t *mk;
		uint32_t ok;

		if (n - i < 3 || ((c1 = p[i + 1] ^ 0x80u) | (c2 = p[i + 2] ^ 0x80u)) >= 0x40)
			goto byte;
		cp = (b & 0x0Fu) << 12 | c1 << 6 | c2;
		if (cp < 0x800)
			goto byte;
		/*
		 * Three bytes (CJK, Indic): the class flags refuse a quarter of
		 * these characters where the bytes beside them allow them, and
		 * which is not predictable; so the byte masks decide, and the
		 * answer picks without a branch.
		 */
		e = hm__char_tok[cp];
		mk = hm__char_mask[hm__char_slot[cp]];
		ok = starts_between(p, i, i + 3, n, e, &mk[0], &mk[1]);
		*tok = ok ? e & HM_VOCAB_RANK_MASK : hm__byte_rank[b];
		return ok ? 3 : 1;
	}
	if (i > 0)
		need |= left_need[p[i - 1] >> 6];
	if (i + len < n)
		need |= right_need[p[i + len] >> 6];
	e = hm__char_tok[cp];
	if ((e & need) != need && !(e & HM_CHAR_TOKEN && beside_ok(p, i, len, n, cp, e)))
		goto byte;
	*tok = e & HM_VOCAB_RANK_MASK;
	return len;
byte:
	*tok = hm__byte_rank[b];
	return 1;
}

/*
 * Whether to look for characters that may start as their tokens, by the
 * lead byte of the piece's first character past an optional ASCII byte
 * (the pre-tokenizer's pieces keep to one script): 1 for letters of two
 * and three bytes; 2 for symbols and emoji (leads 0xE2, 0xEF, 0xF0), where
 * emoji are looked for too; 0 for ASCII and the rest, where looking would
 * cost more than it saves.  Only the ids' cost depends on this, not the
 * ids.
 */
static inline int
try_chars(const unsigned char *p)
{
	unsigned b = p[0] < 0x80 ? p[1] : p[0];

	return b < 0xC2 || b > 0xF0 ? 0 : b == 0xE2 || b >= 0xEF ? 2 : 1;
}

/*
 * The part a piece p[0..n) that starts with a space and a character of two
 * or three bytes starts with: the two as one token where hm__space_tok
 * lets them (the same ids: gen_vocab.c says why), its rank in *tok and
 * its length; or 0.  Most words of other scripts are such pieces.
 */
static inline uint32_t
space_part(const unsigned char *p, uint32_t n, uint32_t *tok)
{
	unsigned b = p[1], c1, c2;
	uint32_t cp, len, e, need = HM_CHAR_TOKEN;

	if (n < 3 || b - 0xC2u >= 0xF0 - 0xC2u || (c1 = p[2] ^ 0x80u) >= 0x40)
		return 0;
	if (b < 0xE0) {
		cp = (b & 0x1Fu) << 6 | c1;
		len = 3;
	} else {
		if (n < 4 || (c2 = p[3] ^ 0x80u) >= 0x40)
			return 0;
		cp = (b & 0x0Fu) << 12 | c1 << 6 | c2;
		len = 4;
	}
	if (len < n)
		need |= right_need[p[len] >> 6];
	e = hm__space_tok[cp];
	if ((e & need) != need)
		return 0;
	*tok = e & HM_VOCAB_RANK_MASK;
	return len;
}

/*
 * Emoji: the entry of hm__char4 for the character F0 9F .. at p[i] where it
 * may start as its tokens beside the bytes p[i - 1] and p[i + 4] (the
 * class flags, or the byte masks where a class refused it), of hm__space4
 * for the space at p[0] and the character after it (nothing on the left);
 * 0 where not.
 */
#ifdef __GNUC__
__attribute__((always_inline))
#endif
static inline uint32_t
char4_at(const unsigned char *p, uint32_t i, uint32_t n, int space)
{
	uint32_t at = i + space, c, e, ok;

	if (n - at < 4 || p[at + 1] != 0x9F || ((p[at + 2] ^ 0x80u) | (p[at + 3] ^ 0x80u)) >= 0x40)
		return 0;
	c = (p[at + 2] & 0x3Fu) << 6 | (p[at + 3] & 0x3Fu);
	e = space ? hm__space4[c] : hm__char4[c];
	/* a space unit is at the piece's start (i = 0): nothing on its left */
	ok = starts_between(p, i, at + 4, n, e, &hm__char4_mask[c][0],
	                    space ? &hm__space4_mask[c] : &hm__char4_mask[c][1]);
	return e & -ok;
}

/*
 * The two ways a piece's starting parts are kept.  In slots (merge_slots):
 * part k's rank at tok[k] and where it starts at link[k], in order, with
 * link[parts] = n.  By byte (merge_long): the rank of the part that starts
 * at byte i at tok[i], and where the next one starts at link[i].  at() is
 * the index of part k, which starts at byte i.
 */
static inline uint32_t
at(int slots, uint32_t i, uint32_t k)
{
	return slots ? k : i;
}

/* Keep part k, of rank t, from byte i to end. */
static inline void
keep_part(uint32_t *tok, uint32_t *link, int slots, uint32_t i, uint32_t end, uint32_t k,
          uint32_t t)
{
	tok[at(slots, i, k)] = t;
	link[at(slots, i, k)] = slots ? i : end;
}

/*
 * Keep the tokens of entry e (hm__char4's form) of the unit of len bytes
 * at byte i as parts k on; the number of parts then.  In slots, a bit of
 * *inner for each part but the unit's last: its join with the next part
 * is none, for the unit's tokens are what it merges to alone (nothing of
 * them joins), so merge_slots does not ask.
 */
static inline uint32_t
place_unit(uint32_t i, uint32_t e, uint32_t len, uint32_t *tok, uint32_t *link, uint32_t k,
           int slots, uint64_t *inner)
{
	uint32_t t, m;
	const uint32_t *q;

	if (!(e & HM_CHAR_SEQ)) {
		keep_part(tok, link, slots, i, i + len, k, e & HM_VOCAB_RANK_MASK);
		return k + 1;
	}
	q = hm__unit_seq[e & HM_VOCAB_RANK_MASK];
	for (t = 1, m = q[0]; t <= m; t++, k++) {
		len = q[t] >> HM_VOCAB_RANK_BITS;
		keep_part(tok, link, slots, i, i + len, k, q[t] & HM_VOCAB_RANK_MASK);
		i += len;
		if (slots && t < m)
			*inner |= (uint64_t)1 << k;
	}
	return k;
}

/*
 * Cut p[0..n) into its starting parts, kept as slots says (above; in
 * slots, a walk of links by byte to gather them is saved, whose each step
 * waited for the last).  The number of parts, or 0 when there are more
 * than cap (tok[] and link[] have room for cap + 4 in slots).  four: look
 * for emoji too (pieces of symbols).
 */
#ifdef __GNUC__
__attribute__((always_inline))
#endif
static inline uint32_t
start_cut(const unsigned char *p, uint32_t n, uint32_t *tok, uint32_t *link, int four,
          uint32_t cap, int slots, uint64_t *inner)
{
	uint32_t i = 0, j, e, k = 0;

	if (p[0] == ' ' && n > 1) {
		if (p[1] == 0xF0) {
			if ((e = char4_at(p, 0, n, 1)) != 0)
				k = place_unit(0, e, 5, tok, link, 0, slots, inner), i = 5;
		} else if ((j = space_part(p, n, &tok[0])) != 0) {
			link[0] = slots ? 0 : j;
			k = 1;
			i = j;
		}
	}
	for (; i < n; i = j, k++) {
		if (k >= cap)
			return 0;
		if (four && p[i] == 0xF0 && (e = char4_at(p, i, n, 0)) != 0) {
			k = place_unit(i, e, 4, tok, link, k, slots, inner) - 1;
			j = i + 4;
			continue;
		}
		if ((unsigned)(p[i] - 0xC2) < 0xF0 - 0xC2) {
			j = i + start_part(p, i, n, &tok[at(slots, i, k)]);
		} else {
			tok[at(slots, i, k)] = hm__byte_rank[p[i]];
			j = i + 1;
		}
		link[at(slots, i, k)] = slots ? i : j;
	}
	if (slots)
		link[k] = n;
	return k <= cap ? k : 0;
}

/* start_cut by byte, for long pieces (all their parts), out of line. */
static uint32_t
start_parts(const unsigned char *p, uint32_t n, uint32_t *tok, uint32_t *next, int four)
{
	uint64_t inner = 0; /* (slots only) */

	return four ? start_cut(p, n, tok, next, 1, n, 0, &inner) :
	              start_cut(p, n, tok, next, 0, n, 0, &inner);
}

/* The smallest of the eight keys at q. */
static inline uint32_t
min8(const uint32_t *q)
{
	uint32_t x0 = MIN(q[0], q[1]), x1 = MIN(q[2], q[3]);
	uint32_t x2 = MIN(q[4], q[5]), x3 = MIN(q[6], q[7]);

	x0 = MIN(x0, x1);
	x2 = MIN(x2, x3);
	return MIN(x0, x2);
}

/*
 * Pieces that start from characters (cut by start_cut) and have at most
 * SLOTS parts: the parts in slots, in order, in small arrays (a CJK
 * character or a two-byte letter is one slot, where the arrays of
 * merge_short and merge_long have a place per byte): pos[i]
 * where slot i's part starts (pos[k] = n), tok[i] its rank, key[i] = (rank
 * of it joined to the next live part) << 5 | i, or NONE, and a bit per live
 * slot in `live` (slot k, the end, always set).  The smallest key is the
 * pair to merge, lowest rank then leftmost; the part after it leaves
 * `live`, and the two keys beside the merged part are asked again.  A
 * slot's neighbours are the live bits next to its own.  Returns 0 without
 * merging when there are more than SLOTS parts.
 */
#define SLOTS 32

/* The first key of slot i, its part joined to the next one. */
static inline uint32_t
slot_key(hm_bpe_scratch *sc, const unsigned char *p, const uint32_t *pos, const uint32_t *tok,
         uint32_t i)
{
	uint32_t b = pos[i], c = pos[i + 2];

	return join_key(c - b == 2 ? pair2(p, b) : join_rank(sc, p, b, c, tok[i], tok[i + 1]), i, 5);
}

static int
merge_slots(hm_bpe_scratch *sc, const unsigned char *p, uint32_t n, int four, hm_ids *out,
            hm_status *st)
{
	uint32_t key[SLOTS + 8], tok[SLOTS + 4], pos[SLOTS + 4], k, i, a, nk;
	uint64_t live, inner = 0, ask;

	k = four ? start_cut(p, n, tok, pos, 1, SLOTS, 1, &inner) :
	           start_cut(p, n, tok, pos, 0, SLOTS, 1, &inner);
	if (!k)
		return 0;
	nk = k > 1 ? (k - 1 + 7) & ~7u : 8;
	for (i = 0; i < nk; i += 4) /* four at a time: the loop compiled to a call of memset */
		key[i] = key[i + 1] = key[i + 2] = key[i + 3] = NONE;
	if (!inner) { /* (letters: each part its own unit) */
		for (i = 0; i + 1 < k; i++)
			key[i] = slot_key(sc, p, pos, tok, i);
	} else { /* the joins of parts that are not of one unit */
		for (ask = (((uint64_t)1 << (k - 1)) - 1) & ~inner; ask; ask &= ask - 1) {
			i = hm__low_bit(ask);
			key[i] = slot_key(sc, p, pos, tok, i);
		}
	}
	live = ((uint64_t)2 << k) - 1;
	for (;;) {
		uint32_t m = min8(key), b, c, r;
		uint64_t above;

		for (i = 8; i < nk; i += 8)
			m = MIN(m, min8(key + i));
		if (m >= NO_KEY)
			break;
		/* merge slot a with the next live one, b; c follows them */
		a = m & 31;
		r = m >> 5;
		above = live & ~(((uint64_t)2 << a) - 1);
		b = hm__low_bit(above);
		above &= above - 1;
		live &= ~((uint64_t)1 << b);
		c = hm__low_bit(above);
		tok[a] = r;
		key[b] = NONE;
		key[a] = NONE;
		if (c < k) {
			above &= above - 1;
			key[a] = join_key(join_rank(sc, p, pos[a], pos[hm__low_bit(above)], r, tok[c]), a, 5);
		}
		if (a > 0) {
			uint32_t z = hm__high_bit(live & (((uint64_t)1 << a) - 1));

			key[z] = join_key(join_rank(sc, p, pos[z], pos[c], tok[z], r), z, 5);
		}
	}
	live &= ~((uint64_t)1 << k);
	if (out->cap - out->len >= k) { /* straight into out (once a piece) */
		uint32_t *o = out->v + out->len;

		for (i = 0; live; live &= live - 1)
			o[i++] = tok[hm__low_bit(live)];
		out->len += i;
		*st = HM_OK;
		return 1;
	}
	for (i = 0; live; live &= live - 1)
		tok[i++] = tok[hm__low_bit(live)];
	*st = append_ids(out, tok, i);
	return 1;
}

/*
 * The plain algorithm for short pieces, over arrays indexed by the byte
 * where a part starts: tok[a] is the part's rank, next[a] where the next
 * part starts, and key[a] = (rank of the part joined to the next one) << 8
 * | a, or NONE.  The smallest key is the pair to merge (lowest rank, then
 * leftmost); nothing is shifted, the merged-away part just gets key NONE.
 * Merging two parts makes the pair's token, so tok[] needs no lookups.
 * The keys are kept in blocks of eight with each block's smallest in
 * bmin[]: a merge changes the keys of at most three parts, so it rescans
 * at most three blocks and then bmin[], not every key (a 60-byte run of
 * CJK characters is some 40 merges; scanning all keys for each was a
 * third of the instructions of encoding CJK text).  Pieces that start from
 * characters go to merge_slots instead, whose arrays have a place per part.
 */
static hm_status
merge_short(hm_bpe_scratch *sc, const unsigned char *p, size_t n, hm_ids *out)
{
	uint32_t *key = sc->rank, *tok = sc->tok, *next = sc->next, *prev = sc->prev;
	uint32_t i, a, b, c, m = (uint32_t)n, lim = (m - 1 + 7) & ~7u, nb = lim / 8;
	uint32_t bmin[32];
	int four;

	if (!sc->plain && (four = try_chars(p)) != 0) {
		hm_status st;

		if (merge_slots(sc, p, m, four > 1, out, &st))
			return st;
		/* more parts than slots (tests move short_max): from bytes, then */
	}
	for (i = 0; i < m; i++) {
		uint32_t r = i + 1 < m ? pair2(p, i) : NONE;

		tok[i] = hm__byte_rank[p[i]];
		next[i] = i + 1;
		prev[i] = i - 1;
		key[i] = join_key(r, i, 8);
	}
	for (; i < lim; i++)
		key[i] = NONE;
	/* " x y...": from the token " x" where hm__space_ascii lets it (a merge fewer) */
	if (p[0] == ' ' && m > 2 && !sc->plain && hm__space_ascii[p[1]][p[2] >> 6] >> (p[2] & 63) & 1) {
		tok[0] = (uint32_t)hm__pair2_rank[' ' << 8 | p[1]];
		next[0] = 2;
		prev[2] = 0;
		key[1] = NONE;
		key[0] = join_key(join_rank(sc, p, 0, 3, tok[0], tok[2]), 0, 8);
	}
	for (i = 0; i < nb; i++)
		bmin[i] = min8(key + 8 * i);
	for (;;) {
		uint32_t min = NONE;

		for (i = 0; i < nb; i++)
			min = MIN(min, bmin[i]);
		if (min >= NO_KEY)
			break;
		/* merge the part at a with the next one, at b */
		a = min & 0xff;
		b = next[a];
		c = next[b];
		tok[a] = min >> 8;
		next[a] = c;
		key[b] = NONE;
		key[a] = NONE;
		if (c < m) {
			uint32_t r = join_rank(sc, p, a, next[c], tok[a], tok[c]);

			prev[c] = a;
			key[a] = join_key(r, a, 8);
		}
		if (a > 0) {
			uint32_t z = prev[a], r = join_rank(sc, p, z, c, tok[z], tok[a]);

			key[z] = join_key(r, z, 8);
			if (z / 8 != a / 8)
				bmin[z / 8] = min8(key + (z & ~7u));
		}
		bmin[a / 8] = min8(key + (a & ~7u));
		if (b / 8 != a / 8 && b < lim) /* b = lim is the last byte, unscanned */
			bmin[b / 8] = min8(key + (b & ~7u));
	}
	for (a = 0, i = 0; a < m; a = next[a])
		tok[i++] = tok[a];
	return append_ids(out, tok, i);
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

/*
 * Where k, moved down from i in the heap h[0..n) past the children
 * smaller than it, comes to rest (its place is not written).  h[n] must be
 * UINT64_MAX, so the smaller child is picked without a branch (which one it
 * is is not predictable).
 */
static inline size_t
sift_down(uint64_t *h, size_t n, size_t i, uint64_t k)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		c += h[c + 1] < h[c];
		if (k <= h[c])
			break;
		h[i] = h[c];
		i = c;
	}
	return i;
}

/* The smallest key, taken out of the heap. */
static uint64_t
heap_pop(uint64_t *h, size_t *len)
{
	uint64_t top = h[0], k = h[--*len];
	size_t n = *len, i;

	h[n] = UINT64_MAX;
	i = sift_down(h, n, 0, k);
	if (n)
		h[i] = k;
	return top;
}

/*
 * Make h[0..len) a heap (each key below its children), from the bottom
 * up: the first keys of a piece are gathered without a branch on whether
 * each pair joins (for CJK text that was not predictable) and ordered at
 * once, fewer steps than a push each.  h[len] must be writable.
 */
static void
heapify(uint64_t *h, size_t len)
{
	size_t top = len / 2;

	h[len] = UINT64_MAX;
	while (top-- > 0) {
		uint64_t k = h[top];

		h[sift_down(h, len, top, k)] = k;
	}
}

/*
 * Linked parts indexed by their start byte; tok[s] is the part's rank,
 * rank[s] that of (s, next[s]) joined.
 */
static hm_status
merge_long(hm_bpe_scratch *sc, const unsigned char *p, size_t n, hm_ids *out)
{
	uint32_t *next = sc->next, *prev = sc->prev, *rank = sc->rank, *tok = sc->tok;
	size_t hlen = 0, i, a;
	int four;

	/* Each merge pushes at most two keys; n - 1 initial pairs. */
	if (sc->heap_cap < 3 * n) {
		uint64_t *h = realloc(sc->heap, 3 * n * sizeof *h);

		if (!h)
			return HM_ENOMEM;
		sc->heap = h;
		sc->heap_cap = 3 * n;
	}
	if (!sc->plain && (four = try_chars(p)) != 0 &&
	    start_parts(p, (uint32_t)n, tok, next, four > 1) < n) {
		for (i = 0; i < n; i++)
			rank[i] = NONE;
		prev[0] = NONE;
		for (i = 0; next[i] < n; i = next[i]) {
			uint32_t b = next[i], c = next[b];

			prev[b] = (uint32_t)i;
			rank[i] = c - i == 2 ? pair2(p, (uint32_t)i) : join_rank(sc, p, i, c, tok[i], tok[b]);
			sc->heap[hlen] = (uint64_t)rank[i] << 32 | i;
			hlen += rank[i] != NONE;
		}
		heapify(sc->heap, hlen);
	} else {
		for (i = 0; i < n; i++) {
			next[i] = (uint32_t)(i + 1);
			prev[i] = i ? (uint32_t)(i - 1) : NONE;
			tok[i] = hm__byte_rank[p[i]];
		}
		for (i = 0; i + 1 < n; i++) {
			rank[i] = pair2(p, (uint32_t)i);
			sc->heap[hlen] = (uint64_t)rank[i] << 32 | i;
			hlen += rank[i] != NONE;
		}
		rank[n - 1] = NONE;
		heapify(sc->heap, hlen);
	}
	while (hlen) {
		uint64_t k = heap_pop(sc->heap, &hlen);
		uint32_t r = (uint32_t)(k >> 32), a = (uint32_t)k, b, c;

		if (rank[a] != r)
			continue; /* stale: the part or its neighbour changed */
		b = next[a];
		c = next[b];
		/* merge a and b; the merged part keeps start a */
		tok[a] = r;
		next[a] = c;
		if (c < n)
			prev[c] = a;
		rank[b] = NONE;
		rank[a] = c < n ? join_rank(sc, p, a, next[c], r, tok[c]) : NONE;
		if (rank[a] != NONE)
			heap_push(sc->heap, &hlen, (uint64_t)rank[a] << 32 | a);
		if (prev[a] != NONE) {
			uint32_t z = prev[a];

			rank[z] = join_rank(sc, p, z, c, tok[z], r);
			if (rank[z] != NONE)
				heap_push(sc->heap, &hlen, (uint64_t)rank[z] << 32 | z);
		}
	}
	for (a = 0, i = 0; i < n; i = next[i])
		tok[a++] = tok[i]; /* a <= i: gathered in place */
	return append_ids(out, tok, a);
}

/*
 * Huge pieces.  key[i] is one 32-bit word per byte:
 *  - at a part start with a join: (rank of the part joined to the next one)
 *    << 6 | (i & 63), below 1 << 24;
 *  - at a part start without one: NOJOIN;
 *  - on the second byte of a part of two bytes or more: TAG | its length
 *    << 18 | its own rank (a one-byte part's rank is its byte's);
 *  - on the last byte of a part of three bytes or more: TAG | its length
 *    << 18;
 *  - elsewhere: NOJOIN or a stale TAG word.
 * So the next part starts at i + the length read at i + 1, the previous
 * one where the word at i - 1 says, and no other array is needed.  Each
 * block of 32 bytes has a leaf (rank << 40 | start of its smallest key,
 * leftmost on ties) in a tree whose every node is the smaller of its two
 * children (leaves at [nblocks, 2 nblocks), node i above 2i and 2i + 1):
 * the root is the pair the heap would pop, lowest rank then leftmost.  A
 * merge rewrites a few words and rescans their blocks.  Scratch: 4 bytes
 * per byte for the words, 1/2 for the tree.
 */
#define HUGE_BLOCK 32
#define NOJOIN 0x3FFFFFFFu
#define TAG 0x40000000u
#define KEY_LIMIT (1u << 24)
#define POS_BITS 40
#define POS_MASK ((1ull << POS_BITS) - 1)

struct huge {
	uint32_t *key;  /* nblocks * HUGE_BLOCK + 1 words, NOJOIN from n on */
	uint64_t *tree;
	size_t leaves;
};

static inline size_t
part_len(const struct huge *h, size_t a)
{
	uint32_t w = h->key[a + 1];

	return w & TAG ? (w >> 18) & 0xff : 1;
}

/* The start of the part before the one at a > 0. */
static inline size_t
prev_start(const struct huge *h, size_t a)
{
	uint32_t w = h->key[a - 1];

	return w & TAG ? a - ((w >> 18) & 0xff) : a - 1;
}

/* The own rank of the part at a, of length len. */
static inline uint32_t
part_tok(const struct huge *h, const unsigned char *p, size_t a, size_t len)
{
	return len == 1 ? hm__byte_rank[p[a]] : h->key[a + 1] & HM_VOCAB_RANK_MASK;
}

/* Block k's leaf value: its smallest key as rank << 40 | start. */
static inline uint64_t
block_min(const struct huge *h, size_t k)
{
	/* every word is below 1 << 31: compared as signed, which SSE2 does */
	const uint32_t *q = h->key + k * HUGE_BLOCK;
	int32_t m = INT32_MAX;
	size_t i;

	for (i = 0; i < HUGE_BLOCK; i += 8) {
		int32_t x0 = MIN((int32_t)q[i], (int32_t)q[i + 1]);
		int32_t x1 = MIN((int32_t)q[i + 2], (int32_t)q[i + 3]);
		int32_t x2 = MIN((int32_t)q[i + 4], (int32_t)q[i + 5]);
		int32_t x3 = MIN((int32_t)q[i + 6], (int32_t)q[i + 7]);

		x0 = MIN(x0, x1);
		x2 = MIN(x2, x3);
		m = MIN(m, MIN(x0, x2));
	}
	return (uint32_t)m < KEY_LIMIT ?
	    (uint64_t)((uint32_t)m >> 6) << POS_BITS | (k * HUGE_BLOCK + ((uint32_t)m & (HUGE_BLOCK - 1))) :
	    UINT64_MAX;
}

/* Set block k's leaf to v and the nodes above it, while they change. */
static void
set_leaf(struct huge *h, size_t k, uint64_t v)
{
	size_t i = h->leaves + k;

	if (h->tree[i] == v)
		return;
	h->tree[i] = v;
	for (i >>= 1; i; i >>= 1) {
		uint64_t l = h->tree[2 * i], r = h->tree[2 * i + 1];

		v = l < r ? l : r;
		if (h->tree[i] == v)
			break;
		h->tree[i] = v;
	}
}

static inline uint32_t
huge_key(uint32_t rank, size_t a)
{
	return rank == NONE ? NOJOIN : rank << 6 | (uint32_t)(a & 63);
}

static hm_status
merge_huge(hm_bpe_scratch *sc, const unsigned char *p, size_t n, hm_ids *out)
{
	struct huge h = { 0 };
	size_t nblk = (n + HUGE_BLOCK - 1) / HUGE_BLOCK, i, k, cur;
	hm_status st = HM_ENOMEM;

	h.leaves = nblk;
	h.key = malloc((nblk * HUGE_BLOCK + 1) * sizeof *h.key);
	h.tree = malloc(2 * h.leaves * sizeof *h.tree);
	if (!h.key || !h.tree)
		goto done;
	for (i = 0; i + 1 < n; i++)
		h.key[i] = huge_key(pair2(p, i), i);
	for (; i <= nblk * HUGE_BLOCK; i++)
		h.key[i] = NOJOIN;
	for (i = 0; i < 2 * h.leaves; i++)
		h.tree[i] = UINT64_MAX;
	for (k = 0; k < nblk; k++)
		h.tree[h.leaves + k] = block_min(&h, k);
	for (i = h.leaves - 1; i > 0; i--)
		h.tree[i] = MIN(h.tree[2 * i], h.tree[2 * i + 1]);
	/*
	 * The block being worked on, cur, is out of the tree (its leaf is
	 * UINT64_MAX): the root is then the smallest key of the other blocks,
	 * and merges go on inside cur, one scan each, while its smallest key
	 * is below the root.  Runs of one letter are merged block by block.
	 */
	for (cur = SIZE_MAX;;) {
		uint64_t v = cur != SIZE_MAX ? block_min(&h, cur) : UINT64_MAX;
		uint32_t r;
		size_t a, b, c, d, z, kb, kz;

		if (v > h.tree[1]) {
			if (cur != SIZE_MAX)
				set_leaf(&h, cur, v);
			v = h.tree[1];
			cur = (size_t)(v & POS_MASK) / HUGE_BLOCK;
			set_leaf(&h, cur, UINT64_MAX);
		}
		if (v == UINT64_MAX)
			break;
		r = (uint32_t)(v >> POS_BITS);
		a = (size_t)(v & POS_MASK);
		b = a + part_len(&h, a);
		c = b + part_len(&h, b);
		z = a ? prev_start(&h, a) : a;
		/* merge the parts at a and b into a part [a, c) of rank r */
		h.key[b] = NOJOIN;
		h.key[a + 1] = TAG | (uint32_t)(c - a) << 18 | r;
		if (c - a >= 3)
			h.key[c - 1] = TAG | (uint32_t)(c - a) << 18;
		h.key[a] = NOJOIN;
		if (c < n && (d = c + part_len(&h, c)) - a <= HM_VOCAB_MAX_LEN)
			h.key[a] = huge_key(join_rank(sc, p, a, d, r, part_tok(&h, p, c, d - c)), a);
		if (a > 0) {
			h.key[z] = NOJOIN;
			if (c - z <= HM_VOCAB_MAX_LEN)
				h.key[z] = huge_key(join_rank(sc, p, z, c, part_tok(&h, p, z, a - z), r), z);
		}
		kb = b / HUGE_BLOCK;
		kz = z / HUGE_BLOCK;
		if (kb != cur)
			set_leaf(&h, kb, block_min(&h, kb));
		if (kz != cur)
			set_leaf(&h, kz, block_min(&h, kz));
	}
	st = HM_OK;
	for (i = 0; i < n && st == HM_OK; i += k) {
		k = part_len(&h, i);
		st = hm_ids_push(out, part_tok(&h, p, i, k));
	}
done:
	free(h.key);
	free(h.tree);
	return st;
}

/*
 * Runs of one byte.  BPE's result is the one tokenization in which every
 * two adjacent tokens are what merging their bytes alone gives; so if some
 * piece h + b^L + s merges to ... T T ... with T = b^P and the two T's
 * inside the run, then h + b^(L+P) + s merges to the same with one more T
 * there: the only new pair, (T, T), was there already.  A piece of a long
 * run with a few other bytes before and after it (a ruler and its line
 * break, a space and a row of dots, 20 MB of one letter) is then merged as
 * h + b^L + s with L <= RUN_MIN, L = the run's length modulo P, in a small
 * buffer, and copies of T go in: its cost is its scan and its ids, not
 * some 300 instructions a byte of merging.  T is the first token of b^RUN_MIN.
 * (The tests compare it with the plain merge.)  Returns 0 when p[0..n) is
 * no such piece or T T is not found; the ordinary paths merge it then.
 */
#define RUN_MIN 512
#define RUN_EDGE 16 /* at most this many other bytes before the run, and after */

#ifdef __GNUC__
__attribute__((noinline)) /* rare; inlined, it cost the common paths registers */
#endif
static int
merge_run(hm_bpe_scratch *sc, const unsigned char *p, size_t n, hm_ids *out, hm_status *st)
{
	unsigned char buf[2 * RUN_EDGE + RUN_MIN], run[RUN_MIN];
	uint32_t part[2 * RUN_EDGE + RUN_MIN], t = 0, reps[256];
	size_t start = out->len, a, e, m, h, len = 1, l = 0, k = 0, q, i, at, off, avail = sc->avail;
	unsigned char b = p[RUN_EDGE];
	uint64_t w = b * 0x0101010101010101ull;

	/* the run [a, e) around byte RUN_EDGE */
	for (a = RUN_EDGE; a > 0 && p[a - 1] == b; a--)
		;
	for (e = RUN_EDGE + 1; e + 8 <= n && hm__ld64(p + e) == w; e += 8)
		;
	while (e < n && p[e] == b)
		e++;
	if ((m = e - a) <= RUN_MIN || n - e > RUN_EDGE)
		return 0;
	h = a;
	/* T; then h + b^l + s (both plain: not here again) */
	memset(run, b, RUN_MIN);
	sc->plain = 1;
	*st = hm__bpe_merge(sc, run, RUN_MIN, RUN_MIN, out);
	if (*st == HM_OK) {
		t = out->v[start];
		len = hm__vocab_off[t + 1] - hm__vocab_off[t];
		out->len = start;
		l = RUN_MIN - (RUN_MIN - m % len) % len; /* <= RUN_MIN, > RUN_MIN - len */
		memcpy(buf, p, h);
		memset(buf + h, b, l);
		memcpy(buf + h + l, p + e, n - e);
		*st = hm__bpe_merge(sc, buf, h + l + (n - e), h + l + (n - e), out);
	}
	sc->plain = 0;
	sc->avail = avail;
	if (*st != HM_OK)
		return 1;
	/* two adjacent T's inside the run */
	k = out->len - start;
	memcpy(part, out->v + start, k * sizeof *part);
	out->len = start;
	for (i = 0, off = 0, at = SIZE_MAX; i + 1 < k; i++) {
		off += hm__vocab_off[part[i] + 1] - hm__vocab_off[part[i]];
		if (part[i] == t && part[i + 1] == t && off >= h + len && off + len <= h + l) {
			at = i + 1;
			break;
		}
	}
	if (at == SIZE_MAX)
		return 0;
	for (i = 0; i < 256; i++)
		reps[i] = t;
	*st = hm_ids_append(out, part, at);
	for (q = (m - l) / len; q > 0 && *st == HM_OK; q -= i) {
		i = q < 256 ? q : 256;
		*st = hm_ids_append(out, reps, i);
	}
	if (*st == HM_OK)
		*st = hm_ids_append(out, part + at, k - at);
	return 1;
}

hm_status
hm__bpe_merge(hm_bpe_scratch *sc, const unsigned char *p, size_t n, size_t avail, hm_ids *out)
{
	size_t short_max = sc->short_max ? sc->short_max : HM_BPE_SHORT_MAX;
	size_t huge_min = sc->huge_min ? sc->huge_min : HM_BPE_HUGE_MIN;

	sc->avail = avail;
	if (!sc->pairs) {
		unsigned bits = sc->pair_bits ? sc->pair_bits : PAIR_CACHE_SMALL;

		if (!(sc->pairs = calloc((size_t)1 << bits, sizeof *sc->pairs)))
			return HM_ENOMEM;
		sc->pair_shift = 64 - bits;
	}
	if (n < huge_min && n <= short_max && n < 256) {
		if (n + 9 > sc->cap && grow(sc, n + 8) < 0) /* (the test inline: most pieces) */
			return HM_ENOMEM;
		return merge_short(sc, p, n, out);
	}
	if (n > RUN_MIN && !sc->plain && p[RUN_EDGE] == p[n / 2]) {
		hm_status st = HM_OK;

		if (merge_run(sc, p, n, out, &st))
			return st;
	}
	if (n >= huge_min)
		return merge_huge(sc, p, n, out);
	if (grow(sc, n + 8) < 0)
		return HM_ENOMEM;
	return merge_long(sc, p, n, out);
}

void
hm__bpe_scratch_grow(hm_bpe_scratch *sc)
{
	free(sc->pairs);
	sc->pairs = NULL;
	sc->pair_bits = PAIR_CACHE_BITS;
}

void
hm__bpe_scratch_free(hm_bpe_scratch *sc)
{
	free(sc->rank);
	free(sc->tok);
	free(sc->next);
	free(sc->prev);
	free(sc->heap);
	free(sc->pairs);
	memset(sc, 0, sizeof *sc);
}
