/*
 * encode.c - text to token ids: UTF-8 checking, special-token text,
 * pre-tokenizing, a cache of whole pieces, byte-pair merging.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpe_int.h"
#include "buf_int.h"
#include "facts_int.h"
#include "harmony.h"
#include "pretok_int.h"
#include "vocab_int.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/*
 * A cache of pieces that needed merging.  Most pieces are a single token
 * and never get here; the ones that do (rare words, long numbers, runs of
 * punctuation, emoji) repeat a lot in real text, but not closely: the
 * 2 MB Arabic text has 58,898 such pieces, 36,480 of them distinct, and a
 * direct-mapped cache of 4096 slots kept 15,000 of the 22,418 repeats.
 * So it is set-associative, CACHE_WAYS slots a set, least recently used
 * first out, which keeps 20,000 with 16,384 slots (cyrillic 15,300 of
 * 16,800, emoji 57,000 of 63,600, indic 9,900 of 10,300).  A slot is one
 * 64-byte line: its ids, then its key bytes, as many of both as fit (a
 * piece of n bytes and k ids when n + 4k <= CACHE_ROOM); the sets' tags
 * are kept apart, one line for four sets, so a miss reads no slot.  It is
 * asked before the vocabulary table: a piece it holds (most that are no
 * token) then costs no look-up in the 4 MiB table, which misses L2; so it
 * also keeps the pieces of more than HM_VOCAB_INLINE bytes that are one
 * token, which the front cache (below) cannot.
 */
#define CACHE_SETS 4096
#define CACHE_WAYS 4
#define CACHE_ROOM 60
#if CACHE_WAYS != 4
#error "a tag names its slot in two bits"
#endif

struct cache_slot {
	unsigned char klen, nids, pad[2];
	uint32_t w[CACHE_ROOM / 4]; /* the ids, then the key */
};

/*
 * A direct-mapped cache, in front of the vocabulary table, of pieces that
 * are one token, in the table's own slot form: 256 KiB that stay in L2 and
 * answer most pieces (the frequent words) without touching the 4 MiB table.
 */
#define FRONT_SLOTS 16384

/*
 * Both caches start small and take their full size once the encoder has
 * seen GROW_AT bytes: a parser makes an encoder for every text it reads, and
 * half a megabyte of zeroed cache for a ten-byte message cost more than the
 * encoding (the heap grown and given back each time).
 */
#define SMALL_FRONT 512
#define SMALL_SETS 32
#define GROW_AT 65536

struct hm_encoder {
	hm_vocab_slot *front;     /* pieces that are one token, as in the vocab table */
	size_t front_mask;        /* its slots less one; front is NULL until needed */
	unsigned front_shift;     /* 64 less log2 of its slots: see front_slot */
	size_t cache_mask;        /* cache's sets less one */
	size_t seen;              /* bytes encoded, up to GROW_AT */
	hm_bpe_scratch sc;
	hm_buf fixed;             /* the input with invalid UTF-8 replaced */
	size_t err_off;
	struct cache_slot *cache; /* CACHE_WAYS a set, most recently used first */
	uint32_t *tags;           /* cache's tags, in the same allocation */
	/* a stream (hm_encoder_feed) */
	hm_buf held;              /* text fed, not yet encoded */
	size_t searched;          /* no cut point in held below this */
	size_t base;              /* stream offset of held[0] */
	/*
	 * The encoder's one out-of-memory flag, named by the appends to fixed
	 * and held: cleared by each call (a buffer that failed sets it again on
	 * its next append) and checked where the call would use what failed.
	 */
	int nomem;
};

hm_encoder *
hm_encoder_new(void)
{
	return calloc(1, sizeof(hm_encoder));
}

/* The caches, made or grown for n more bytes to encode. */
static hm_status
caches_ready(hm_encoder *enc, size_t n)
{
	size_t fs = SMALL_FRONT, cs = SMALL_SETS, i;
	hm_vocab_slot *front;
	struct cache_slot *cache;

	if (enc->seen < GROW_AT)
		enc->seen = n >= GROW_AT - enc->seen ? GROW_AT : enc->seen + n;
	if (enc->seen >= GROW_AT)
		fs = FRONT_SLOTS, cs = CACHE_SETS;
	if (enc->front && enc->front_mask + 1 >= fs)
		return HM_OK;
	front = calloc(fs, sizeof *front);
	cache = malloc(cs * CACHE_WAYS * (sizeof *cache + sizeof *enc->tags));
	if (!front || !cache) {
		free(front);
		free(cache);
		return HM_ENOMEM;
	}
	free(enc->front);
	free(enc->cache);
	if (fs == FRONT_SLOTS)
		hm__bpe_scratch_grow(&enc->sc);
	enc->front = front, enc->front_mask = fs - 1;
	for (enc->front_shift = 64; fs > 1; fs >>= 1)
		enc->front_shift--;
	enc->cache = cache, enc->cache_mask = cs - 1;
	enc->tags = (uint32_t *)(void *)(cache + cs * CACHE_WAYS);
	for (i = 0; i < cs * CACHE_WAYS; i++) /* empty, each naming its own slot */
		enc->tags[i] = (uint32_t)(i % CACHE_WAYS);
	return HM_OK;
}

void
hm_encoder_free(hm_encoder *enc)
{
	if (!enc)
		return;
	hm__bpe_scratch_free(&enc->sc);
	hm_buf_free(&enc->fixed);
	hm_buf_free(&enc->held);
	free(enc->cache);
	free(enc->front);
	free(enc);
}

void
hm__encoder_bpe_limits(hm_encoder *enc, size_t short_max, size_t huge_min)
{
	enc->sc.short_max = short_max;
	enc->sc.huge_min = huge_min;
}

/* hm_ids_push, inline for the common case: one call per token adds up. */
static inline hm_status
push(hm_ids *out, uint32_t id)
{
	if (out->len < out->cap) {
		out->v[out->len++] = id;
		return HM_OK;
	}
	return hm_ids_append(out, &id, 1);
}

/*
 * Whether slot holds the piece p[0..n) whose key is k, by word loads: the
 * first twelve bytes against the key's (masked to n), then for a longer
 * piece its last eight, then the middle eight at a time (none up to 20
 * bytes).  A short key near the end of its slot is read past it, into the
 * next slot or the tags after the last (same allocation), and masked off.
 */
static inline int
cache_key_eq(const struct cache_slot *slot, const unsigned char *p, size_t n,
             const hm_vocab_key *k)
{
	const unsigned char *q = (const unsigned char *)(slot->w + slot->nids);
	hm_vocab_key qk;
	size_t i;

	if (slot->klen != n)
		return 0;
	hm__vocab_key_bytes(q, n, &qk);
	if (qk.k8 != k->k8 || qk.k4 != k->k4)
		return 0;
	if (n <= HM_VOCAB_INLINE)
		return 1;
	if (hm__ld64(q + n - 8) != hm__ld64(p + n - 8))
		return 0;
	for (i = HM_VOCAB_INLINE; i + 8 < n; i += 8)
		if (hm__ld64(q + i) != hm__ld64(p + i))
			return 0;
	return 1;
}

/*
 * The ways of a set whose tags are t (tag &~3): bit w for way w.  The
 * four compared at once: which way hits is no pattern either.
 */
static inline unsigned
cache_ways(const uint32_t *tag, uint32_t t)
{
#ifdef __SSE2__
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)tag);

	v = _mm_cmpeq_epi32(_mm_and_si128(v, _mm_set1_epi32(~3)), _mm_set1_epi32((int)t));
	return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(v));
#else
	return ((tag[0] & ~3u) == t) | ((tag[1] & ~3u) == t) << 1 | ((tag[2] & ~3u) == t) << 2 |
	       ((tag[3] & ~3u) == t) << 3;
#endif
}

/*
 * Way w's tag moved to the front of its set, the ones before it one back:
 * with SSE2 as the four shifted by one lane, the hit put first, and lanes
 * 0..w taken from that (a mask by w), without a loop or a branch of w.
 */
static inline void
cache_front(uint32_t *tag, unsigned w)
{
#ifdef __SSE2__
	static const int32_t upto[CACHE_WAYS][CACHE_WAYS] = {
		{ -1, 0, 0, 0 }, { -1, -1, 0, 0 }, { -1, -1, -1, 0 }, { -1, -1, -1, -1 },
	};
	__m128i v = _mm_loadu_si128((const __m128i *)(void *)tag);
	__m128i b = _mm_or_si128(_mm_slli_si128(v, 4), _mm_cvtsi32_si128((int)tag[w]));
	__m128i m = _mm_loadu_si128((const __m128i *)(const void *)upto[w]);

	_mm_storeu_si128((__m128i *)(void *)tag,
	                 _mm_or_si128(_mm_and_si128(m, b), _mm_andnot_si128(m, v)));
#else
	uint32_t hit = tag[w];

	for (; w > 0; w--)
		tag[w] = tag[w - 1];
	tag[0] = hit;
#endif
}

/*
 * The piece cache's slot of p[0..n) (n >= 2), whose key is k, its tag
 * moved to the front of its set; or NULL.  A tag is 30 bits of the hash
 * (bit 2 set, so never 0: an empty slot's are 0) and, in its low two
 * bits, the way of the slot it names; the tags move, the slots stay.
 */
#ifdef __GNUC__
__attribute__((always_inline)) /* asked from two places in encode_piece, one of them hot */
#endif
static inline struct cache_slot *
cache_find(const hm_encoder *enc, const unsigned char *p, size_t n, const hm_vocab_key *k)
{
	size_t set = (size_t)(k->h >> 20) & enc->cache_mask;
	struct cache_slot *slots = enc->cache + set * CACHE_WAYS, *slot;
	uint32_t *tag = enc->tags + set * CACHE_WAYS, t = ((uint32_t)(k->h >> 32) | 4) & ~3u;
	unsigned m = cache_ways(tag, t), w;

	for (; m; m &= m - 1) {
		w = hm__low_bit(m);
		slot = slots + (tag[w] & 3);
		if (!cache_key_eq(slot, p, n, k))
			continue;
		cache_front(tag, w);
		return slot;
	}
	return NULL;
}

/* Keep ids[0..k) for p[0..n) in the slot of its set's last tag, which goes first. */
static void
cache_put(hm_encoder *enc, const unsigned char *p, size_t n, uint64_t h, const uint32_t *ids,
          size_t k)
{
	size_t set = (size_t)(h >> 20) & enc->cache_mask, w;
	uint32_t *tag = enc->tags + set * CACHE_WAYS, way = tag[CACHE_WAYS - 1] & 3;
	struct cache_slot *slot = enc->cache + set * CACHE_WAYS + way;

	if (n + 4 * k > CACHE_ROOM)
		return;
	for (w = CACHE_WAYS - 1; w > 0; w--)
		tag[w] = tag[w - 1];
	tag[0] = (((uint32_t)(h >> 32) | 4) & ~3u) | way;
	slot->klen = (unsigned char)n;
	slot->nids = (unsigned char)k;
	memcpy(slot->w, ids, k * sizeof *ids);
	memcpy(slot->w + k, p, n);
}

/*
 * The front cache's slot for the key k (its bytes and length; k->h not
 * needed): one multiply-add, where the table's hash takes three multiplies
 * and two shifts, so a piece found here (most pieces) costs no more.  The
 * top bits of a product depend on every bit of its factors.
 */
static inline hm_vocab_slot *
front_slot(const hm_encoder *enc, const hm_vocab_key *k)
{
	uint64_t x = k->k8 * 0x9E3779B97F4A7C15ull + ((uint64_t)k->n << 32 | k->k4) * 0xC2B2AE3D27D4EB4Full;

	return &enc->front[x >> enc->front_shift];
}

/*
 * Piece p[0..n), with avail >= n bytes readable from p, grown when the
 * encoder has its caches' full size: the front cache
 * (pieces of up to HM_VOCAB_INLINE bytes that are one token), the piece
 * cache and the vocabulary (in that order once the encoder has grown, the
 * other way before), and merging.
 */
static hm_status
encode_piece(hm_encoder *enc, const unsigned char *p, size_t n, size_t avail, int grown,
             hm_ids *out)
{
	struct cache_slot *slot;
	hm_vocab_slot *f = NULL;
	hm_vocab_key k;
	int32_t r;
	size_t before;
	hm_status st;

	if (n == 1)
		return push(out, hm__byte_rank[p[0]]);
	if (n > HM_VOCAB_MAX_LEN)
		return hm__bpe_merge(&enc->sc, p, n, avail, out);
	if (n <= HM_VOCAB_INLINE) {
		/* the key's bytes, the hash only if needed */
		if (avail >= 16)
			hm__vocab_key_bytes(p, n, &k);
		else
			hm__vocab_key(p, n, &k);
		f = front_slot(enc, &k);
		if (f->k8 == k.k8 && f->k4 == k.k4 && f->meta >> HM_VOCAB_RANK_BITS == n)
			return push(out, f->meta & HM_VOCAB_RANK_MASK);
		hm__vocab_key_hash(&k, 0); /* (hm__vocab_key's again: the same) */
	} else {
		if (avail >= 16)
			hm__vocab_key16(p, n, &k);
		else
			hm__vocab_key(p, n, &k);
	}
	/*
	 * The piece cache before the vocabulary once the encoder has grown (a
	 * long text: most pieces that get here are in it); before, the other
	 * way round (a short text: most are tokens seen for the first time).
	 */
	if (grown && (slot = cache_find(enc, p, n, &k)) != NULL)
		goto cached;
	if ((r = hm__vocab_find_key(p, &k)) >= 0) {
		uint32_t id = (uint32_t)r;

		if (n <= HM_VOCAB_INLINE) {
			f->k8 = k.k8;
			f->k4 = k.k4;
			f->meta = (uint32_t)n << HM_VOCAB_RANK_BITS | id;
		} else if (grown) { /* (asked first from now on) */
			cache_put(enc, p, n, k.h, &id, 1);
		}
		return push(out, id);
	}
	if (!grown && (slot = cache_find(enc, p, n, &k)) != NULL)
		goto cached;
	before = out->len;
	if ((st = hm__bpe_merge(&enc->sc, p, n, avail, out)) != HM_OK)
		return st;
	cache_put(enc, p, n, k.h, out->v + before, out->len - before);
	return HM_OK;
cached:
	/* all the room a slot has, copied as one fixed size where it fits */
	if (out->cap - out->len < CACHE_ROOM / 4)
		return hm_ids_append(out, slot->w, slot->nids);
	memcpy(out->v + out->len, slot->w, CACHE_ROOM);
	out->len += slot->nids;
	return HM_OK;
}

/* Ordinary text s[0..n), the part of a text that ends at end. */
static hm_status
encode_ordinary(hm_encoder *enc, const unsigned char *s, size_t n, const unsigned char *end,
                hm_ids *out)
{
	size_t i = 0, e;
	hm_status st;
	int grown;

	if ((!enc->front || enc->seen < GROW_AT) && (st = caches_ready(enc, n)) != HM_OK)
		return st;
	grown = enc->seen >= GROW_AT;
	while (i < n) {
		e = hm__pretok_next(s, n, i);
		if ((st = encode_piece(enc, s + i, e - i, (size_t)(end - s) - i, grown, out)) != HM_OK)
			return st;
		i = e;
	}
	return HM_OK;
}

/*
 * The length of the longest valid UTF-8 prefix of s[0..n), as
 * hm_utf8_valid_prefix, with ASCII taken eight bytes at a time and the
 * two-, three- and four-byte sequences checked inline: this runs over
 * every byte encoded, and hm__utf8_len's general check was an eighth of
 * the instructions of encoding Arabic or Cyrillic text.  E0 and ED bound
 * the byte after them more tightly (no overlong forms, no surrogates), F0
 * and F4 too (no overlong forms, nothing past U+10FFFF).  Each is checked
 * as one 32-bit word (the lead's and continuations' top bits at once)
 * while four bytes remain; the end goes the general way.  The plain form;
 * where SSE2 is, valid_prefix takes sixteen bytes at a time first.
 */
static size_t
valid_prefix_plain(const unsigned char *s, size_t n)
{
	size_t i = 0, k;

	for (;;) {
		while (i + 8 <= n && !(hm__ld64(s + i) & 0x8080808080808080ull))
			i += 8;
		while (i < n && s[i] < 0x80)
			i++;
		/*
		 * A character at a time as one little-endian word (its first byte
		 * in the low byte), ASCII between the words of a script included,
		 * until four ASCII bytes in a row send it back to the loops above.
		 */
		while (i + 4 <= n) {
			uint32_t w = hm__ld32(s + i), c = w & 0xFF, c1 = w >> 8 & 0xFF;

			if (c < 0x80) {
				if (!(w & 0x80808080u))
					break;
				i++;
			} else if ((w & 0xC0E0) == 0x80C0 && c >= 0xC2) {
				i += 2;
			} else if ((w & 0xC0C0F0) == 0x8080E0 &&
			           (c == 0xE0 ? c1 >= 0xA0 : c != 0xED || c1 <= 0x9F)) {
				i += 3;
			} else if ((w & 0xC0C0C0F8u) == 0x808080F0u &&
			           (c == 0xF0 ? c1 >= 0x90 : c < 0xF4 || (c == 0xF4 && c1 <= 0x8F))) {
				i += 4;
			} else {
				break;
			}
		}
		if (i >= n)
			return n;
		if (s[i] < 0x80)
			continue;
		if (!(k = hm__utf8_len(s + i, n - i)))
			return i;
		i += k;
	}
}

#ifdef __SSE2__
#define MASK(v) ((unsigned)_mm_movemask_epi8(v))
#define GT(v, c) _mm_cmpgt_epi8(v, _mm_set1_epi8(c))
#define LT(v, c) _mm_cmpgt_epi8(_mm_set1_epi8(c), v)
#define EQ(v, c) _mm_cmpeq_epi8(v, _mm_set1_epi8((char)(c)))

/*
 * valid_prefix_plain's answer, sixteen bytes at a time, the blocks one
 * after the other whatever characters they cut: a block's start does not
 * wait for the last one's answer (which was a chain of a load, the masks
 * and a count through every block, or a branch on where a character ran
 * on, which in two-, three- and four-byte text follows no pattern).
 *
 * As masks of the block's bytes (bit j for byte j): every byte is ASCII,
 * a continuation (80..BF) or a lead (C2..F4), and the continuations are
 * exactly the bytes that the leads call for: one after each lead of C2 or
 * more, a second after E0 or more, a third after F0 or more, those past
 * the block carried to the next one's first bytes (carry).  E0, ED, F0
 * and F4 bound the continuation after them by its bits 5 and 4 (E0: A0..BF,
 * bit 5 set; ED: 80..9F, clear; F0: 90..BF, either set; F4: 80..8F, both
 * clear), read with the bytes shifted left in 16-bit lanes (a byte's bit 5
 * to its top, where the mask reads it; what crosses from the byte below
 * lands in bits 0 and 1); such a lead last in its block is carried too
 * (pend: bit 0 E0, 1 ED, 2 F0, 3 F4).  As signed bytes 80..BF are
 * -128..-65, C2 is -62, E0 -32, F0 -16 and F5 -11.
 *
 * A block that is not plainly whole characters goes character by
 * character, from the start of the one that ran into it, until past its
 * end, so a bad byte is reported where it was; the last bytes go the
 * plain way, from the start of a character that runs past the blocks.
 */
static size_t
valid_prefix16(const unsigned char *s, size_t n)
{
	size_t i = 0, j, k, end;
	unsigned hi, cont, g2, g3, g4, want, bad, d5, d54, e0, ed, f0, f4;
	unsigned carry = 0, pend = 0, pend2, pg2 = 0;

	while (i + 16 <= n) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));

		hi = MASK(v);
		if (!(hi | carry)) { /* ASCII (and nothing pending: pend goes with carry) */
			i += 16;
			continue;
		}
		cont = MASK(LT(v, -64));
		g2 = hi & MASK(GT(v, -63));
		g3 = hi & MASK(GT(v, -33));
		bad = hi & ~cont & ~g2; /* C0, C1 */
		want = g2 << 1 | g3 << 2 | carry;
		pend2 = 0;
		if (g3 | pend) { /* three- and four-byte characters */
			d5 = MASK(_mm_slli_epi16(v, 2));
			e0 = MASK(EQ(v, 0xE0)) << 1 | (pend & 1);
			ed = MASK(EQ(v, 0xED)) << 1 | (pend >> 1 & 1);
			bad |= (e0 & ~d5) | (ed & d5);
			pend2 = e0 >> 16 | (ed >> 16) << 1;
			if ((g4 = hi & MASK(GT(v, -17))) | (pend >> 2)) {
				d54 = d5 | MASK(_mm_slli_epi16(v, 3));
				f0 = MASK(EQ(v, 0xF0)) << 1 | (pend >> 2 & 1);
				f4 = MASK(EQ(v, 0xF4)) << 1 | (pend >> 3);
				bad |= hi & MASK(GT(v, -12)); /* F5..FF */
				bad |= (f0 & ~d54) | (f4 & d54);
				pend2 |= (f0 >> 16) << 2 | (f4 >> 16) << 3;
				want |= g4 << 3;
			}
			bad &= 0xFFFF; /* a lead's next byte past the block is the next block's */
		}
		if (bad | ((want & 0xFFFF) ^ cont)) {
			/* from the start of the character that ran in, if one did */
			j = carry ? i - 16 + hm__high_bit(pg2) : i;
			for (end = i + 16; j < end;) {
				if (s[j] < 0x80)
					j++;
				else if ((k = hm__utf8_len(s + j, n - j)) != 0)
					j += k;
				else
					return j;
			}
			i = j, carry = 0, pend = 0;
			continue;
		}
		carry = want >> 16, pend = pend2, pg2 = g2;
		i += 16;
	}
	if (carry) /* the character that runs on, from its start */
		i = i - 16 + hm__high_bit(pg2);
	return i + valid_prefix_plain(s + i, n - i);
}

#undef MASK
#undef GT
#undef LT
#undef EQ
#else
static size_t
valid_prefix16(const unsigned char *s, size_t n)
{
	return valid_prefix_plain(s, n);
}
#endif

/*
 * Where AVX2 is, 64 bytes at a time by table look-ups, under one
 * instruction a byte (valid_prefix16 spent 2.6 a byte on the 2 MB Arabic
 * text, 4.7 on CJK, 5.8 on emoji, most of it in the masks of its bounded
 * leads).  The build assumes SSE2 at most, so these functions are
 * compiled for AVX2 on their own and called only when the CPU has it.
 * Whether it has is read, where the C library is glibc 2.33 or later,
 * from the features glibc's loader found before main (to choose its own
 * string functions), through <sys/platform/x86.h>: no state of ours, safe
 * from any thread, and no work at start-up.  (GCC's __builtin_cpu_supports
 * reads the same from libgcc, but links in libgcc's constructor, whose
 * CPUID instructions cost a virtual machine's process about 0.15 ms at
 * start-up: harmony-render of one message went from 0.95 to 1.24 ms.)
 * Elsewhere __builtin_cpu_supports; other compilers and machines keep
 * valid_prefix16.  GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2 turns the AVX2
 * form off.
 */
#if defined(__x86_64__) && defined(__SSE2__) && \
    (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 5))
#define HAVE_AVX2_FORM 1
#include <immintrin.h>
#if defined(__GLIBC__) && defined(__GLIBC_PREREQ)
#if __GLIBC_PREREQ(2, 33)
#include <sys/platform/x86.h>
#define HAVE_GLIBC_FEATURES 1
#endif
#endif

/*
 * Every byte is judged with the byte before it, from three 16-entry
 * tables: one by the earlier byte's high nibble, one by its low nibble,
 * one by the byte's own high nibble.  A bit is a kind of fault; it
 * survives the AND of the three only where all three nibbles have it, so
 * each kind is the product of a set of each nibble:
 */
#define TOO_SHORT 0x01  /* lead (C0..FF), then not a continuation */
#define TOO_LONG 0x02   /* ASCII, then a continuation */
#define OVER3 0x04      /* E0, then 80..9F */
#define SURR 0x08       /* ED, then A0..BF */
#define OVER2 0x10      /* C0 or C1, then a continuation */
#define F_8X 0x20       /* F0 or F5..FF, then 80..8F (overlong; past U+10FFFF) */
#define F_9X 0x40       /* F4..FF, then 90..BF (past U+10FFFF) */
#define TWO_CONT 0x80   /* a continuation after a continuation */
#define ALL_LO (TOO_SHORT | TOO_LONG | TWO_CONT)
#define CONT_HI (TOO_LONG | TWO_CONT | OVER2)
#define BROADCAST(t) \
	_mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(t)))

/* The tables and constants of faults32, in registers for the whole check. */
struct utf8_tabs {
	__m256i hi1, lo1, hi2; /* the three tables, in both lanes */
	__m256i nib, top, third, fourth;
};

/*
 * The faults of the bytes of v, prev the block before.  TWO_CONT is no
 * fault in the third or fourth byte of a character, which is where the
 * byte two before is E0 or more or the one three before F0 or more;
 * there, and only there, it must be set: the top bits of those two tests
 * flip it.
 */
__attribute__((target("avx2"), always_inline)) static inline __m256i
faults32(__m256i v, __m256i prev, const struct utf8_tabs *t)
{
	/* v's bytes with the last block's last sixteen before them, by lane */
	__m256i back = _mm256_permute2x128_si256(prev, v, 0x21);
	__m256i p1 = _mm256_alignr_epi8(v, back, 15), p2 = _mm256_alignr_epi8(v, back, 14);
	__m256i p3 = _mm256_alignr_epi8(v, back, 13), f, must;

	f = _mm256_and_si256(
	    _mm256_shuffle_epi8(t->hi1, _mm256_and_si256(_mm256_srli_epi16(p1, 4), t->nib)),
	    _mm256_shuffle_epi8(t->lo1, _mm256_and_si256(p1, t->nib)));
	f = _mm256_and_si256(f, _mm256_shuffle_epi8(t->hi2,
	    _mm256_and_si256(_mm256_srli_epi16(v, 4), t->nib)));
	must = _mm256_or_si256(_mm256_subs_epu8(p2, t->third), _mm256_subs_epu8(p3, t->fourth));
	return _mm256_xor_si256(f, _mm256_and_si256(must, t->top));
}

/*
 * valid_blocks64's answer, its blocks from the one at i on, those before
 * it ASCII (which the zeros of prev stand for).  Two halves of 32 make a
 * block, so each fault check takes one branch for 64 bytes; an ASCII
 * block is passed on a bit test when the last one ended on a character's
 * end (tail: a lead in its last three bytes that calls for more).
 */
__attribute__((target("avx2"), noinline)) static size_t
valid_mixed64(const unsigned char *s, size_t n, size_t i)
{
	static const unsigned char tabs[3][16] = {
		{ /* by the earlier byte's high nibble */
			TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
			TWO_CONT, TWO_CONT, TWO_CONT, TWO_CONT, TOO_SHORT | OVER2, TOO_SHORT,
			TOO_SHORT | OVER3 | SURR, TOO_SHORT | F_8X | F_9X,
		},
		{ /* by its low nibble */
			ALL_LO | OVER3 | OVER2 | F_8X, ALL_LO | OVER2, ALL_LO, ALL_LO, ALL_LO | F_9X,
			ALL_LO | F_8X | F_9X, ALL_LO | F_8X | F_9X, ALL_LO | F_8X | F_9X,
			ALL_LO | F_8X | F_9X, ALL_LO | F_8X | F_9X, ALL_LO | F_8X | F_9X,
			ALL_LO | F_8X | F_9X, ALL_LO | F_8X | F_9X, ALL_LO | SURR | F_8X | F_9X,
			ALL_LO | F_8X | F_9X, ALL_LO | F_8X | F_9X,
		},
		{ /* by the byte's own high nibble */
			TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
			TOO_SHORT, CONT_HI | OVER3 | F_8X, CONT_HI | OVER3 | F_9X, CONT_HI | SURR | F_9X,
			CONT_HI | SURR | F_9X, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
		},
	};
	/* a byte above these (none before the last three): a lead that calls for more */
	static const unsigned char ends[32] = {
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xEF, 0xDF, 0xBF,
	};
	struct utf8_tabs tb;
	__m256i prev = _mm256_setzero_si256(), tail = prev, a, b, f;
	const __m256i ends_v = _mm256_loadu_si256((const __m256i *)(const void *)ends);

	tb.hi1 = BROADCAST(tabs[0]);
	tb.lo1 = BROADCAST(tabs[1]);
	tb.hi2 = BROADCAST(tabs[2]);
	tb.nib = _mm256_set1_epi8(0x0F);
	tb.top = _mm256_set1_epi8((char)0x80);
	tb.third = _mm256_set1_epi8(0xE0 - 0x80);
	tb.fourth = _mm256_set1_epi8(0xF0 - 0x80);
	for (; i + 64 <= n; i += 64) {
		a = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
		b = _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 32));
		if (_mm256_testz_si256(_mm256_or_si256(a, b), tb.top)) {
			if (!_mm256_testz_si256(tail, tail))
				break;
			prev = b;
			continue;
		}
		f = _mm256_or_si256(faults32(a, prev, &tb), faults32(b, a, &tb));
		if (!_mm256_testz_si256(f, f))
			break;
		tail = _mm256_subs_epu8(b, ends_v);
		prev = b;
	}
	if (i + 64 <= n) /* a fault in the block at i */
		return i;
	if (i == n) /* whole blocks; the last may leave a character unfinished */
		return _mm256_testz_si256(tail, tail) ? n : i - 64;
	if (n >= 96) {
		/*
		 * The last 64 bytes as a block, with the 32 before them: the bytes
		 * they share with the blocks above are judged the same again, and
		 * a text that ends there whole is done.
		 */
		a = _mm256_loadu_si256((const __m256i *)(const void *)(s + n - 64));
		b = _mm256_loadu_si256((const __m256i *)(const void *)(s + n - 32));
		prev = _mm256_loadu_si256((const __m256i *)(const void *)(s + n - 96));
		f = _mm256_or_si256(faults32(a, prev, &tb), faults32(b, a, &tb));
		f = _mm256_or_si256(f, _mm256_subs_epu8(b, ends_v));
		if (_mm256_testz_si256(f, f))
			return n;
	}
	return i;
}

/*
 * n when s[0..n) is valid; otherwise a length i < n, a multiple of 64,
 * such that s[0..i) is valid but for a character that may run on past i
 * (the blocks of 64 bytes that showed no fault).  The first block's
 * earlier bytes are zeros (ASCII).  ASCII blocks are passed here, and a
 * text that ends in 64 of them is valid: the tables are set up (in
 * valid_mixed64) only for a text that needs them, so a short ASCII
 * message costs less than it did in valid_prefix16.
 */
__attribute__((target("avx2"))) static size_t
valid_blocks64(const unsigned char *s, size_t n)
{
	const __m256i top = _mm256_set1_epi8((char)0x80);
	size_t i = 0;

	for (; i + 64 <= n; i += 64) {
		if (!_mm256_testz_si256(_mm256_or_si256(
		        _mm256_loadu_si256((const __m256i *)(const void *)(s + i)),
		        _mm256_loadu_si256((const __m256i *)(const void *)(s + i + 32))), top))
			return valid_mixed64(s, n, i);
	}
	if (i == n || (n >= 64 && _mm256_testz_si256(_mm256_or_si256(
	        _mm256_loadu_si256((const __m256i *)(const void *)(s + n - 64)),
	        _mm256_loadu_si256((const __m256i *)(const void *)(s + n - 32))), top)))
		return n;
	return valid_mixed64(s, n, i);
}

#undef TOO_SHORT
#undef TOO_LONG
#undef OVER3
#undef SURR
#undef OVER2
#undef F_8X
#undef F_9X
#undef TWO_CONT
#undef ALL_LO
#undef CONT_HI
#undef BROADCAST

/*
 * valid_blocks64 on s[0..n), then, unless that was all of it,
 * valid_prefix16 from the start of the character at the blocks' end: the
 * rest of a block that showed a fault (it stops at the fault), or the last
 * bytes.
 */
static size_t
valid_prefix64(const unsigned char *s, size_t n)
{
	size_t i = valid_blocks64(s, n), j = i;

	if (i == n)
		return n;
	while (j > 0 && i - j < 3 && (s[j - 1] & 0xC0) == 0x80)
		j--;
	if (j > 0 && s[j - 1] >= 0xC0)
		j--;
	return j + valid_prefix16(s + j, n - j);
}

/* Whether this CPU runs valid_blocks64. */
static int
have_avx2(void)
{
#if defined(__AVX2__)
	return 1;
#elif defined(HAVE_GLIBC_FEATURES)
	return CPU_FEATURE_ACTIVE(AVX2);
#else
	return __builtin_cpu_supports("avx2");
#endif
}
#endif

/*
 * The encoder's UTF-8 check.  Texts under 64 bytes (a parser makes an
 * encoder per message) go sixteen bytes at a time: they are no block.
 */
static size_t
valid_prefix(const unsigned char *s, size_t n)
{
#ifdef HAVE_AVX2_FORM
	if (n >= 64 && have_avx2())
		return valid_prefix64(s, n);
#endif
	return valid_prefix16(s, n);
}

size_t
hm__encode_valid_prefix(const unsigned char *s, size_t n, int form)
{
	switch (form) {
	case 1:
		return valid_prefix_plain(s, n);
	case 2:
		return valid_prefix16(s, n);
	case 3:
	case 4:
#ifdef HAVE_AVX2_FORM
		if (have_avx2())
			return form == 3 ? valid_prefix64(s, n) : valid_blocks64(s, n);
#endif
		return (size_t)-1;
	default:
		return valid_prefix(s, n);
	}
}

/* Copy s[0..n) into enc->fixed with each maximal invalid subpart as U+FFFD. */
static hm_status
replace_invalid(hm_encoder *enc, const unsigned char *s, size_t n)
{
	size_t i = 0, k, bad;
	uint32_t cp;

	hm_buf_reset(&enc->fixed);
	while (i < n) {
		size_t j = i;

		while (j < n && s[j] < 0x80)
			j++;
		hm__add(&enc->nomem, &enc->fixed, s + i, j - i);
		i = j;
		if (i >= n)
			break;
		k = hm_utf8_decode(s + i, n - i, &cp, &bad);
		if (k) {
			hm__add(&enc->nomem, &enc->fixed, s + i, k);
			i += k;
		} else {
			hm__add(&enc->nomem, &enc->fixed, "\xEF\xBF\xBD", 3);
			i += bad;
		}
	}
	return enc->nomem ? HM_ENOMEM : HM_OK;
}

/* The detail of invalid UTF-8 at byte off of the caller's input. */
static void
utf8_error(hm_error *err, size_t off)
{
	if (!err)
		return;
	snprintf(err->msg, sizeof err->msg, "invalid UTF-8 at byte %zu", off);
	err->line = err->col = 0;
	err->index = off;
	err->hint = HM_HINT_NONE;
}

/* hm_encode; invalid UTF-8 leaves its offset in enc->err_off. */
static hm_status
encode(hm_encoder *enc, const char *buf, size_t len, unsigned flags, hm_ids *out)
{
	const unsigned char *s = (const unsigned char *)buf;
	size_t n = len, i, seg;
	hm_status st;

	i = valid_prefix(s, len);
	if (i < len) {
		if (!(flags & HM_ENC_LOSSY)) {
			enc->err_off = i;
			return HM_EINPUT;
		}
		if ((st = replace_invalid(enc, s, len)) != HM_OK)
			return st;
		s = (const unsigned char *)enc->fixed.p;
		n = enc->fixed.len;
	}
	if (!(flags & HM_ENC_SPECIAL))
		return encode_ordinary(enc, s, n, s + n, out);

	/* Special-token text ends an ordinary segment; encoding restarts after it. */
	seg = 0;
	for (i = 0; i + 1 < n; i++) {
		const unsigned char *lt = memchr(s + i, '<', n - 1 - i);
		size_t j;
		uint32_t id;

		if (!lt)
			break;
		i = (size_t)(lt - s);
		if (s[i + 1] != '|')
			continue;
		for (j = i + 2; j < n && j < i + 40 && s[j] != '|' && s[j] != '<'; j++)
			;
		if (j + 1 >= n || s[j] != '|' || s[j + 1] != '>')
			continue;
		if (!hm_special_lookup((const char *)s + i, j + 2 - i, &id))
			continue;
		if ((st = encode_ordinary(enc, s + seg, i - seg, s + n, out)) != HM_OK)
			return st;
		if ((st = hm_ids_push(out, id)) != HM_OK)
			return st;
		seg = j + 2;
		i = j + 1;
	}
	return encode_ordinary(enc, s + seg, n - seg, s + n, out);
}

hm_status
hm_encode(hm_encoder *enc, const char *buf, size_t len, unsigned flags, hm_ids *out,
    hm_error *err)
{
	hm_status st;

	enc->nomem = 0;
	if ((st = encode(enc, buf, len, flags, out)) == HM_EINPUT)
		utf8_error(err, enc->err_off);
	return st;
}

hm_status
hm_encode_ordinary(const char *buf, size_t len, hm_ids *out, hm_error *err)
{
	hm_encoder *enc = hm_encoder_new();
	hm_status st;

	if (!enc)
		return HM_ENOMEM;
	st = hm_encode(enc, buf, len, 0, out, err);
	hm_encoder_free(enc);
	return st;
}

/* ---------------------------------------------------------------- streams */

#define STREAM_CHUNK (1 << 16) /* look for a cut once this much is held */

static hm_status
stream_encode(hm_encoder *enc, size_t k, unsigned flags, hm_ids *out, hm_error *err)
{
	hm_status st = encode(enc, enc->held.p ? enc->held.p : "", k, flags, out);

	if (st == HM_EINPUT)
		utf8_error(err, enc->base + enc->err_off);
	if (st != HM_OK)
		return st;
	if (enc->held.p) /* NULL when nothing was fed: no offset to it */
		memmove(enc->held.p, enc->held.p + k, enc->held.len - k);
	enc->held.len -= k;
	if (enc->held.p)
		enc->held.p[enc->held.len] = '\0';
	enc->base += k;
	enc->searched = enc->held.len; /* k was the last cut point */
	return HM_OK;
}

hm_status
hm_encoder_feed(hm_encoder *enc, const char *buf, size_t len, unsigned flags, hm_ids *out,
    hm_error *err)
{
	size_t k;

	enc->nomem = 0;
	hm__add(&enc->nomem, &enc->held, buf, len);
	if (enc->nomem)
		return HM_ENOMEM;
	if (enc->held.len < STREAM_CHUNK || enc->held.len - enc->searched < STREAM_CHUNK / 4)
		return HM_OK;
	k = hm__pretok_cut((const unsigned char *)enc->held.p, enc->held.len, enc->searched);
	if (!k) {
		enc->searched = enc->held.len;
		return HM_OK;
	}
	return stream_encode(enc, k, flags, out, err);
}

hm_status
hm_encoder_finish(hm_encoder *enc, unsigned flags, hm_ids *out, hm_error *err)
{
	hm_status st;

	enc->nomem = 0;
	if ((st = stream_encode(enc, enc->held.len, flags, out, err)) == HM_OK)
		hm_encoder_reset(enc);
	return st;
}

const char *
hm_encoder_held(const hm_encoder *enc, size_t *len)
{
	*len = enc->held.len;
	return enc->held.p ? enc->held.p : "";
}

void
hm_encoder_reset(hm_encoder *enc)
{
	hm__buf_clear(&enc->held); /* a failed append forgotten too */
	enc->nomem = 0;
	enc->searched = 0;
	enc->base = 0;
}
