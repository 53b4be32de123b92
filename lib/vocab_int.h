/*
 * vocab_int.h - the compiled-in o200k vocabulary.
 *
 * build/vocab_data.c is generated at build time by tools/gen_vocab.c from
 * vocab/o200k_base.tiktoken (after its SHA-256 is checked): the token bytes
 * in rank order and their offsets, a hash table from bytes to rank, a table
 * of all two-byte tokens, and the texts of the special tokens.  The
 * generator and the library share the key and hash functions below, so the
 * tables are usable with no start-up work.
 *
 * The hash table is what every lookup of the tokenizer goes through, so it
 * is laid out for the cache: buckets of four 16-byte slots, one 64-byte
 * line each, and every token lives in one of two buckets chosen by its hash
 * (cuckoo hashing, placed by the generator).  A slot holds the token's first
 * twelve bytes, its length and its rank, so a lookup reads at most two lines
 * and, for the 93 % of tokens of twelve bytes or less, nothing else.
 */
#ifndef HM_VOCAB_INT_H
#define HM_VOCAB_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HM_VOCAB_BUCKET_BITS 16
#define HM_VOCAB_BUCKETS (1u << HM_VOCAB_BUCKET_BITS)
#define HM_VOCAB_WAYS 4
#define HM_VOCAB_MAX_LEN 128      /* the longest o200k token */
#define HM_VOCAB_INLINE 12        /* key bytes held in a slot */

/*
 * meta: rank in the low 18 bits, length in the 8 above; length 0 is an
 * empty slot.  Bit 31 is HM_VOCAB_SPILL (below).
 */
typedef struct hm_vocab_slot {
	uint64_t k8;    /* bytes 0..7, little-endian, zero-padded */
	uint32_t k4;    /* bytes 8..11, the same */
	uint32_t meta;
} hm_vocab_slot;

#define HM_VOCAB_RANK_BITS 18
#define HM_VOCAB_RANK_MASK ((1u << HM_VOCAB_RANK_BITS) - 1)
#define HM_VOCAB_LEN(meta) ((meta) >> HM_VOCAB_RANK_BITS & 0xff)
/* In a bucket's first slot: some token of this first bucket is in its second. */
#define HM_VOCAB_SPILL (1u << 31)

extern const unsigned char hm__vocab_bytes[];
extern const uint32_t hm__vocab_off[];       /* HM_N_ORDINARY + 1 offsets */
extern const hm_vocab_slot hm__vocab_slots[]; /* HM_VOCAB_BUCKETS * HM_VOCAB_WAYS */
extern const char hm__special_text[];        /* all special texts, in id order */
extern const uint32_t hm__special_off[];     /* HM_N_SPECIAL + 1 offsets */
/* Rank of every two-byte string (b0 << 8 | b1), -1 when not a token. */
extern const int32_t hm__pair2_rank[65536];
/*
 * Bit y (of the four words' 256) of row x: a piece that starts with a
 * space, the byte x and the byte y may start merging from the token " x"
 * instead of the two bytes (the same ids; tools/gen_vocab.c says why).
 * Most words of ASCII letters that need merging are such pieces.
 */
extern const uint64_t hm__space_ascii[256][4];
/*
 * hm__uclass(cp) & 0xff for cp < 0x10000, the code points of two- and
 * three-byte UTF-8 (Latin accents, Greek, Cyrillic, Hebrew, Arabic, Indic,
 * CJK, kana, Hangul ...): the pre-tokenizer reads their classes from here,
 * a load where hm__uclass is a call into unicode_tables.c and two loads,
 * once per character.  64 KiB, of which a script's text reads a few lines.
 */
extern const unsigned char hm__uclass16[65536];
/*
 * The same for the two-byte characters, indexed by their two bytes as a
 * little-endian 16-bit load (lead | continuation << 8), and 0 for any two
 * bytes that do not start with a lead of two (C2..DF) and a continuation:
 * one load tells a run of letters from whatever ends it (a space,
 * punctuation, a character of three bytes) without a test of the lead.
 */
extern const unsigned char hm__uclass2[65536];
/* Rank of every single byte. */
extern const uint32_t hm__byte_rank[256];
/*
 * Per code point below 0x10000 whose UTF-8 (two or three bytes) is one
 * token: its rank | HM_CHAR_TOKEN | the neighbours beside which a merge may
 * start from that token rather than from the bytes (the same ids; why, in
 * tools/gen_vocab.c); 0 for the others.  A neighbour is the byte just
 * before or after the character in the piece; at the piece's edge there is
 * none, and that side is always free.
 */
extern const uint32_t hm__char_tok[65536];
#define HM_CHAR_LEFT_ASCII (1u << 18)  /* after a byte below 0x80 */
#define HM_CHAR_LEFT_CONT (1u << 19)   /* after a continuation byte */
#define HM_CHAR_RIGHT_ASCII (1u << 20) /* before a byte below 0x80 */
#define HM_CHAR_RIGHT_LEAD (1u << 21)  /* before a lead byte */
#define HM_CHAR_TOKEN (1u << 22)
/*
 * The same per neighbouring byte, for the characters of hm__char_tok: the
 * entry hm__char_slot[cp] of hm__char_mask holds a left mask (bit j: may
 * start as one token after the byte 0x80 + j) and a right one (before the
 * byte 0xC0 + j).  A class flag above is set when its mask is all ones.
 */
extern const uint16_t hm__char_slot[65536];
extern const uint64_t hm__char_mask[][2];
/*
 * Per code point below 0x10000 whose UTF-8 (two or three bytes) after a
 * space is one token: that token's rank | HM_CHAR_TOKEN | the classes of
 * byte after it (HM_CHAR_RIGHT_ASCII, HM_CHAR_RIGHT_LEAD) beside which a
 * piece that starts with the space and the character may start merging
 * from that token (tools/gen_vocab.c says why the ids are the same); 0 for
 * the others.
 */
extern const uint32_t hm__space_tok[65536];
/*
 * The same for U+1F000..U+1FFFF (emoji; four bytes F0 9F ..), indexed by
 * the code point's low 12 bits: hm__char4 inside a piece (flags as
 * hm__char_tok's; its left mask over the continuation bytes before it and
 * right mask over the lead bytes after it in hm__char4_mask), hm__space4
 * after a space at a piece's start (right flags; right mask in
 * hm__space4_mask).  Such a unit may merge alone to up to three tokens:
 * then HM_CHAR_SEQ is set and the low bits index hm__unit_seq, whose
 * entries are the count and each token as its length <<
 * HM_VOCAB_RANK_BITS | its rank.
 */
#define HM_CHAR_SEQ (1u << 24)
extern const uint32_t hm__char4[4096];
extern const uint32_t hm__space4[4096];
extern const uint64_t hm__char4_mask[4096][2];
extern const uint64_t hm__space4_mask[4096];
extern const uint32_t hm__unit_seq[][4];

/*
 * A Bloom filter of joins: for each token and each cut of its bytes into
 * two tokens a and b, the pair (a, b) is in it.  Merging asks it beside
 * the pair cache: most joins tried while merging are no token, and the
 * filter (512 KiB, one word a question) says so without reading the
 * table.  A key's hash picks one 64-bit word and one of 1024 patterns of
 * four bits (hm__join_pattern), so a question is two loads and no
 * arithmetic beyond the pair cache's own hash.
 */
#define HM_JOIN_WORD_BITS 16
#define HM_JOIN_PATTERN_BITS 10
extern const uint64_t hm__join_bloom[];  /* 1 << HM_JOIN_WORD_BITS words */
extern const uint64_t hm__join_pattern[]; /* 1 << HM_JOIN_PATTERN_BITS masks */

/* The key of the join of tokens a and b (never 0), and its hash: the filter's and the pair cache's. */
static inline uint64_t
hm__join_key(uint32_t a, uint32_t b)
{
	return ((uint64_t)a << HM_VOCAB_RANK_BITS | b) + 1;
}

static inline uint64_t
hm__join_hash(uint64_t key)
{
	return key * 0x9E3779B97F4A7C15ull;
}

/* The word of the filter for hash h, in *w, and the bits to test (from pattern). */
static inline uint64_t
hm__join_bits(const uint64_t *pattern, uint64_t h, uint32_t *w)
{
	*w = (uint32_t)(h >> (64 - HM_JOIN_WORD_BITS));
	return pattern[h >> (64 - HM_JOIN_WORD_BITS - HM_JOIN_PATTERN_BITS) &
	               ((1u << HM_JOIN_PATTERN_BITS) - 1)];
}

/* 0 when the join of hash h is surely no token; 1 when it may be one. */
static inline int
hm__join_maybe(uint64_t h)
{
	uint32_t w;
	uint64_t m = hm__join_bits(hm__join_pattern, h, &w);

	return (hm__join_bloom[w] & m) == m;
}

/* Little-endian loads, so generator and library agree on any host. */
static inline unsigned
hm__ld16(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
#else
	return (unsigned)p[0] | (unsigned)p[1] << 8;
#endif
}

static inline uint32_t
hm__ld32(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
#else
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}

static inline uint64_t
hm__ld64(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
#else
	return (uint64_t)hm__ld32(p) | (uint64_t)hm__ld32(p + 4) << 32;
#endif
}

/* The index of the lowest set bit of x, and of the highest (x not 0). */
static inline unsigned
hm__low_bit(uint64_t x)
{
#if defined(__GNUC__)
	return (unsigned)__builtin_ctzll(x);
#else
	unsigned k = 0;

	while (!(x & 1))
		x >>= 1, k++;
	return k;
#endif
}

static inline unsigned
hm__high_bit(uint64_t x)
{
#if defined(__GNUC__)
	return 63u - (unsigned)__builtin_clzll(x);
#else
	unsigned k = 63;

	while (!(x >> 63))
		x <<= 1, k--;
	return k;
#endif
}

/* The key of a byte string: its first twelve bytes, its length, its hash. */
typedef struct hm_vocab_key {
	uint64_t k8, h;
	uint32_t k4, n;
} hm_vocab_key;

/* The hash of a key from its parts; t is the last eight bytes when n > 12. */
static inline void
hm__vocab_key_hash(hm_vocab_key *k, uint64_t t)
{
	t ^= (uint64_t)k->n << 32 | k->k4;
	k->h = k->k8 * 0x9E3779B97F4A7C15ull + t * 0xC2B2AE3D27D4EB4Full;
	k->h ^= k->h >> 29;
	k->h *= 0xff51afd7ed558ccdull;
	k->h ^= k->h >> 32;
}

/*
 * Build the key of s[0..n), 1 <= n <= HM_VOCAB_MAX_LEN, reading only those
 * bytes: short strings are assembled from overlapping loads.  The hash
 * covers the first twelve bytes, the length and the last eight bytes.
 */
static inline void
hm__vocab_key(const unsigned char *s, size_t n, hm_vocab_key *k)
{
	uint64_t t = 0;

	if (n >= 8) {
		k->k8 = hm__ld64(s);
		if (n >= 12) {
			k->k4 = hm__ld32(s + 8);
			if (n > 12)
				t = hm__ld64(s + n - 8);
		} else if (n > 8) {
			k->k4 = (uint32_t)(hm__ld64(s + n - 8) >> (8 * (16 - n)));
		} else {
			k->k4 = 0;
		}
	} else if (n >= 4) {
		k->k8 = hm__ld32(s) | (uint64_t)hm__ld32(s + n - 4) >> (8 * (8 - n)) << 32;
		k->k4 = 0;
	} else {
		k->k8 = s[0] | (n > 1 ? (uint64_t)s[1] << 8 : 0) | (n > 2 ? (uint64_t)s[2] << 16 : 0);
		k->k4 = 0;
	}
	k->n = (uint32_t)n;
	hm__vocab_key_hash(k, t);
}

/*
 * A key's first twelve bytes and its length, not its hash, when at least
 * twelve bytes are readable from s: two loads, masked to n by tables (a
 * load where a comparison of n was a branch, and piece lengths follow no
 * pattern).  The encoder's front cache needs no more.
 */
static inline void
hm__vocab_key_bytes(const unsigned char *s, size_t n, hm_vocab_key *k)
{
	static const uint64_t m8[HM_VOCAB_INLINE + 1] = {
		0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF, 0xFFFFFFFFFFull, 0xFFFFFFFFFFFFull,
		0xFFFFFFFFFFFFFFull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull,
	};
	static const uint32_t m4[HM_VOCAB_INLINE + 1] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF,
	};
	size_t c = n < HM_VOCAB_INLINE ? n : HM_VOCAB_INLINE;

	k->k8 = hm__ld64(s) & m8[c];
	k->k4 = hm__ld32(s + 8) & m4[c];
	k->n = (uint32_t)n;
}

/*
 * The same key as hm__vocab_key, without branches on n, when at least
 * sixteen bytes are readable from s (the string's own and whatever follows
 * it).  Piece lengths are not predictable, so this is the form the hot
 * paths use.
 */
static inline void
hm__vocab_key16(const unsigned char *s, size_t n, hm_vocab_key *k)
{
	uint64_t t = hm__ld64(s + (n > 12 ? n - 8 : 0));

	hm__vocab_key_bytes(s, n, k);
	hm__vocab_key_hash(k, n > 12 ? t : 0);
}

/* The two buckets of a key. */
static inline uint32_t
hm__vocab_b1(uint64_t h)
{
	return (uint32_t)h & (HM_VOCAB_BUCKETS - 1);
}

static inline uint32_t
hm__vocab_b2(uint64_t h)
{
	return (uint32_t)(h >> 40) & (HM_VOCAB_BUCKETS - 1);
}

/*
 * The rank of the string s whose key is k in the table (tab, with token
 * bytes vb at offsets vo), or -1.  The generator checks its table with this
 * same function; the library uses hm__vocab_find_key.  The second bucket
 * is read only when the first spills.  (This, with early exits, measured
 * faster than reading both buckets without branches.)
 */
static inline int32_t
hm__vocab_lookup(const hm_vocab_slot *tab, const unsigned char *vb, const uint32_t *vo,
                 const unsigned char *s, const hm_vocab_key *k)
{
	const hm_vocab_slot *b = tab + hm__vocab_b1(k->h) * HM_VOCAB_WAYS;
	uint32_t i, pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < HM_VOCAB_WAYS; i++) {
			if (b[i].k8 == k->k8 && b[i].k4 == k->k4 && HM_VOCAB_LEN(b[i].meta) == k->n) {
				uint32_t r = b[i].meta & HM_VOCAB_RANK_MASK;

				if (k->n <= HM_VOCAB_INLINE ||
				    memcmp(vb + vo[r] + HM_VOCAB_INLINE, s + HM_VOCAB_INLINE,
				           k->n - HM_VOCAB_INLINE) == 0)
					return (int32_t)r;
			}
		}
		if (!(b[0].meta & HM_VOCAB_SPILL))
			break;
		b = tab + hm__vocab_b2(k->h) * HM_VOCAB_WAYS;
	}
	return -1;
}

static inline int32_t
hm__vocab_find_key(const unsigned char *s, const hm_vocab_key *k)
{
	return hm__vocab_lookup(hm__vocab_slots, hm__vocab_bytes, hm__vocab_off, s, k);
}

/* The rank of s[0..n), or -1. */
static inline int32_t
hm__vocab_find(const unsigned char *s, size_t n)
{
	hm_vocab_key k;

	if (n == 0 || n > HM_VOCAB_MAX_LEN)
		return -1;
	hm__vocab_key(s, n, &k);
	return hm__vocab_find_key(s, &k);
}

/* The same when avail >= n bytes are readable from s. */
static inline int32_t
hm__vocab_find_avail(const unsigned char *s, size_t n, size_t avail)
{
	hm_vocab_key k;

	if (n == 0 || n > HM_VOCAB_MAX_LEN)
		return -1;
	if (avail >= 16)
		hm__vocab_key16(s, n, &k);
	else
		hm__vocab_key(s, n, &k);
	return hm__vocab_find_key(s, &k);
}

#endif
