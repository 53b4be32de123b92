/*
 * gen_vocab - turn o200k_base.tiktoken into a C source file.
 *
 * Usage: gen_vocab o200k_base.tiktoken > vocab_data.c
 *
 * Each input line is "<base64 bytes> <rank>"; ranks must run 0, 1, 2 ... in
 * order.  The output holds the bytes in rank order, their offsets, a hash
 * table from bytes to rank (see lib/vocab_int.h), the ranks of all one- and
 * two-byte strings and the special-token texts, so the binaries need
 * neither the file nor any start-up parsing.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unicode_int.h"
#include "vocab_int.h"

#define N_ORDINARY 199998u
#define FIRST_SPECIAL 199998u
#define N_TOKENS 201089u

static int
b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

static long
b64decode(const char *s, size_t n, unsigned char *out)
{
	size_t i, o = 0;
	unsigned acc = 0;
	int bits = 0, v;

	for (i = 0; i < n; i++) {
		if (s[i] == '=')
			break;
		if ((v = b64val((unsigned char)s[i])) < 0)
			return -1;
		acc = acc << 6 | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(acc >> bits);
		}
	}
	return (long)o;
}

static void
special_name(unsigned id, char *out, size_t cap)
{
	switch (id) {
	case 199998: snprintf(out, cap, "<|startoftext|>"); break;
	case 199999: snprintf(out, cap, "<|endoftext|>"); break;
	case 200002: snprintf(out, cap, "<|return|>"); break;
	case 200003: snprintf(out, cap, "<|constrain|>"); break;
	case 200005: snprintf(out, cap, "<|channel|>"); break;
	case 200006: snprintf(out, cap, "<|start|>"); break;
	case 200007: snprintf(out, cap, "<|end|>"); break;
	case 200008: snprintf(out, cap, "<|message|>"); break;
	case 200012: snprintf(out, cap, "<|call|>"); break;
	default: snprintf(out, cap, "<|reserved_%u|>", id); break;
	}
}

static void
emit_string(const unsigned char *p, size_t n)
{
	size_t i, col = 0;

	fputs("\t\"", stdout);
	for (i = 0; i < n; i++) {
		unsigned c = p[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?') {
			putchar((int)c);
			col++;
		} else {
			printf("\\%03o", c);
			col += 4;
		}
		if (col >= 76 && i + 1 < n) {
			fputs("\"\n\t\"", stdout);
			col = 0;
		}
	}
	fputs("\"", stdout);
}

static void
emit_u32s(const char *decl, const uint32_t *v, size_t n)
{
	size_t i;

	printf("%s = {", decl);
	for (i = 0; i < n; i++)
		printf("%s%u,", i % 12 ? "" : "\n\t", v[i]);
	printf("\n};\n\n");
}


/*
 * Cuckoo placement: each token goes in one of its two buckets.  First every
 * token takes a free slot in its first bucket, in rank order, so the
 * frequent low ranks are found in the first line read.  The tokens left
 * over then go to their second bucket, a resident being pushed to its other
 * bucket when that one is full, and so on.  Last, each bucket that some
 * token had to leave gets HM_VOCAB_SPILL, so a lookup that misses in a
 * bucket without it need not read a second line.  (For o200k: 22053 tokens
 * end up in their second bucket, and 19407 of the 65536 buckets spill.)
 * The walk is driven by a fixed generator, so the output is reproducible.
 */
static hm_vocab_slot *slots;
static const unsigned char *vbytes;
static const uint32_t *voff;

static void
key_of_rank(uint32_t r, hm_vocab_key *k)
{
	hm__vocab_key(vbytes + voff[r], voff[r + 1] - voff[r], k);
}

static void
slot_of_rank(uint32_t r, hm_vocab_slot *e, uint64_t *h)
{
	hm_vocab_key k;

	key_of_rank(r, &k);
	e->k8 = k.k8;
	e->k4 = k.k4;
	e->meta = k.n << HM_VOCAB_RANK_BITS | r;
	*h = k.h;
}

static int
bucket_put(uint32_t b, const hm_vocab_slot *e)
{
	uint32_t i;

	for (i = 0; i < HM_VOCAB_WAYS; i++) {
		if (!HM_VOCAB_LEN(slots[b * HM_VOCAB_WAYS + i].meta)) {
			slots[b * HM_VOCAB_WAYS + i] = *e;
			return 1;
		}
	}
	return 0;
}

/* Put a token whose first bucket is full. */
static int
place_second(uint32_t rank)
{
	static uint64_t seed = 0x2545F4914F6CDD1Dull;
	hm_vocab_slot e;
	uint64_t h;
	uint32_t b, kick;

	slot_of_rank(rank, &e, &h);
	b = hm__vocab_b2(h);
	if (bucket_put(b, &e))
		return 0;
	for (kick = 0; kick < 100000; kick++) {
		hm_vocab_slot *victim, t;
		uint32_t other;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		victim = &slots[b * HM_VOCAB_WAYS + seed % HM_VOCAB_WAYS];
		t = *victim;
		*victim = e;
		e = t;
		slot_of_rank(e.meta & HM_VOCAB_RANK_MASK, &t, &h);
		other = hm__vocab_b1(h) == b ? hm__vocab_b2(h) : hm__vocab_b1(h);
		if (bucket_put(other, &e))
			return 0;
		b = other;
	}
	return -1;
}

static int
place_all(uint32_t ntok)
{
	uint32_t *left = malloc(ntok * sizeof *left), nleft = 0, r, i;

	if (!left)
		return -1;
	for (r = 0; r < ntok; r++) {
		hm_vocab_slot e;
		uint64_t h;

		slot_of_rank(r, &e, &h);
		if (!bucket_put(hm__vocab_b1(h), &e))
			left[nleft++] = r;
	}
	for (i = 0; i < nleft; i++) {
		if (place_second(left[i]) < 0) {
			fprintf(stderr, "gen_vocab: cannot place rank %u in the hash table\n", left[i]);
			return -1;
		}
	}
	for (i = 0; i < HM_VOCAB_BUCKETS * HM_VOCAB_WAYS; i++) {
		hm_vocab_slot *e = &slots[i];
		uint64_t h;
		uint32_t home;

		if (!HM_VOCAB_LEN(e->meta))
			continue;
		{
			hm_vocab_slot t;

			slot_of_rank(e->meta & HM_VOCAB_RANK_MASK, &t, &h);
		}
		home = hm__vocab_b1(h);
		if (home != i / HM_VOCAB_WAYS)
			slots[home * HM_VOCAB_WAYS].meta |= HM_VOCAB_SPILL;
	}
	free(left);
	return 0;
}

/* The rank of s[0..n) in the table being made, or -1. */
static int32_t
rank_of(const unsigned char *s, size_t n)
{
	hm_vocab_key k;

	if (n == 0 || n > HM_VOCAB_MAX_LEN)
		return -1;
	hm__vocab_key(s, n, &k);
	return hm__vocab_lookup(slots, vbytes, voff, s, &k);
}

/* The UTF-8 of cp (0x80 <= cp < 0x10000) in u; its length. */
static size_t
utf8_of(uint32_t cp, unsigned char *u)
{
	if (cp < 0x800) {
		u[0] = (unsigned char)(0xC0 | cp >> 6);
		u[1] = (unsigned char)(0x80 | (cp & 0x3F));
		return 2;
	}
	u[0] = (unsigned char)(0xE0 | cp >> 12);
	u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
	u[2] = (unsigned char)(0x80 | (cp & 0x3F));
	return 3;
}

/* The neighbour classes of hm__char_tok: an ASCII byte, a continuation byte, a lead byte. */
static unsigned
byte_class(unsigned char b)
{
	return b < 0x80 ? 0 : b < 0xC0 ? 1 : 2;
}

/*
 * The byte masks of hm__char_mask: the same condition for each byte that
 * may stand beside the character rather than for its class.  Edges are
 * (fragment, the byte beside it in the token) keys, kept with the lowest
 * rank of a token having them, sorted for bsearch: key = side << 40 |
 * fragment length << 32 | fragment (up to 3 bytes) << 8 | byte.
 */
struct edge {
	uint64_t key;
	uint32_t rank;
};

static int
edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Sort e[0..n) and keep each key once, with its lowest rank; the count kept. */
static size_t
edges_sorted(struct edge *e, size_t n)
{
	size_t i, w;

	qsort(e, n, sizeof *e, edge_cmp);
	for (i = w = 0; i < n; i++) /* the first of each key has its lowest rank */
		if (!w || e[w - 1].key != e[i].key)
			e[w++] = e[i];
	return w;
}

/* The lowest rank with key, or UINT32_MAX. */
static uint32_t
edge_min(const struct edge *e, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && e[lo].key == key ? e[lo].rank : UINT32_MAX;
}

/*
 * Units that may start a merge as the tokens they merge to alone, beside
 * given neighbours: characters of two and three bytes that are one token
 * (hm__char_tok, below), a piece's first space and the character after it
 * (hm__space_tok for two and three bytes, where " c" is one token; most
 * letters of other scripts cannot start as their own token after the
 * space, since the space and a lead byte merge first: " \xE0" is token
 * 333, below every Devanagari letter), and the four-byte characters
 * U+1F000..U+1FFFF (emoji, F0 9F ..), alone (hm__char4, byte masks in
 * hm__char4_mask) or after a space at a piece's start (hm__space4, right
 * masks in hm__space4_mask).  The argument is hm__char_tok's (below), for
 * a unit that merges alone to one, two or three tokens: while it is
 * unfinished its own next merge (rank <= M, the highest of its own) comes
 * before any across its edges when every token such a merge could make
 * ranks above M; once finished, its tokens are what the bytes' merge has
 * there too (they do not join, or merging alone would have joined them).
 * A unit at a piece's start has nothing on its left.  Edges are keyed per
 * class of the byte beside and per byte: a token ending with a prefix of
 * the unit after that byte (left), or starting with a suffix of it before
 * that byte (right), fragments of 1 to 5 bytes.
 */
#define UNIT_MAX 5

static uint64_t
unit_key(unsigned side, unsigned bytewise, unsigned beside, const unsigned char *f, unsigned k)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < k; i++)
		v = v << 8 | f[i];
	return (uint64_t)side << 52 | (uint64_t)bytewise << 51 | (uint64_t)beside << 43 |
	       (uint64_t)k << 40 | v;
}

/* The lowest rank of a token with an edge of u[0..n) (side 0: left) beside b. */
static uint32_t
unit_edge(const struct edge *e, size_t ne, unsigned side, unsigned bytewise, unsigned b,
          const unsigned char *u, unsigned n)
{
	uint32_t lo = UINT32_MAX, r;
	unsigned k;

	for (k = 1; k <= n; k++) {
		r = edge_min(e, ne, unit_key(side, bytewise, b, side ? u + n - k : u, k));
		if (r < lo)
			lo = r;
	}
	return lo;
}

/*
 * The entry of unit u[0..n) (flags as hm__char_tok's; HM_CHAR_SEQ and an
 * index into seq[][4] when it merges alone to more than one token), with
 * left flags when left, and its byte masks in mk when mk is not NULL; 0
 * when it merges alone to more than three tokens, none, or, with !seq,
 * more than one.
 */
static uint32_t
unit_entry(const struct edge *e, size_t ne, const unsigned char *u, unsigned n, int left,
           uint32_t (*seq)[4], uint32_t *nseq, uint64_t *mk)
{
	unsigned start[UNIT_MAX + 1], k = n, i, j;
	int32_t m = -1, r;
	uint32_t flags = HM_CHAR_TOKEN, v;

	for (i = 0; i <= n; i++)
		start[i] = i;
	for (;;) {
		int32_t best = -1;
		unsigned at = 0;

		for (i = 0; i + 1 < k; i++) {
			r = rank_of(u + start[i], start[i + 2] - start[i]);
			if (r >= 0 && (best < 0 || r < best))
				best = r, at = i;
		}
		if (best < 0)
			break;
		if (best > m)
			m = best;
		for (i = at + 1; i < k; i++)
			start[i] = start[i + 1];
		k--;
	}
	if (k > 3 || m < 0 || (k > 1 && !seq))
		return 0;
	if (left) {
		flags |= unit_edge(e, ne, 0, 0, 0, u, n) > (uint32_t)m ? HM_CHAR_LEFT_ASCII : 0;
		flags |= unit_edge(e, ne, 0, 0, 1, u, n) > (uint32_t)m ? HM_CHAR_LEFT_CONT : 0;
	}
	flags |= unit_edge(e, ne, 1, 0, 0, u, n) > (uint32_t)m ? HM_CHAR_RIGHT_ASCII : 0;
	flags |= unit_edge(e, ne, 1, 0, 2, u, n) > (uint32_t)m ? HM_CHAR_RIGHT_LEAD : 0;
	if (mk) {
		mk[0] = mk[1] = 0;
		for (j = 0; j < 64; j++) {
			if (left && unit_edge(e, ne, 0, 1, 0x80 + j, u, n) > (uint32_t)m)
				mk[0] |= (uint64_t)1 << j;
			if (unit_edge(e, ne, 1, 1, 0xC0 + j, u, n) > (uint32_t)m)
				mk[1] |= (uint64_t)1 << j;
		}
		/* a class allowed is every byte of it allowed */
		if ((left && !(flags & HM_CHAR_LEFT_CONT) != (mk[0] != UINT64_MAX)) ||
		    !(flags & HM_CHAR_RIGHT_LEAD) != (mk[1] != UINT64_MAX)) {
			fprintf(stderr, "gen_vocab: a unit's byte masks disagree with its classes\n");
			exit(1);
		}
	}
	if (k == 1)
		return (uint32_t)rank_of(u, n) | flags;
	seq[*nseq][0] = k;
	for (i = 0; i < 3; i++)
		seq[*nseq][1 + i] = i < k ? (uint32_t)rank_of(u + start[i], start[i + 1] - start[i]) |
		                            (start[i + 1] - start[i]) << HM_VOCAB_RANK_BITS : 0;
	v = *nseq | flags | HM_CHAR_SEQ;
	++*nseq;
	return v;
}

/* The edges of every token (see above), sorted, each key once; *ne of them. */
static struct edge *
unit_edges(size_t *ne)
{
	struct edge *e = malloc(4 * UNIT_MAX * (size_t)N_ORDINARY * sizeof *e);
	uint32_t id;

	*ne = 0;
	if (!e)
		return NULL;
	for (id = 0; id < N_ORDINARY; id++) {
		const unsigned char *t = vbytes + voff[id];
		unsigned len = voff[id + 1] - voff[id], k;

		for (k = 1; k <= UNIT_MAX && k < len; k++) {
			unsigned char x = t[len - k - 1], y = t[k];

			e[*ne].key = unit_key(0, 0, byte_class(x), t + len - k, k);
			e[(*ne)++].rank = id;
			e[*ne].key = unit_key(0, 1, x, t + len - k, k);
			e[(*ne)++].rank = id;
			e[*ne].key = unit_key(1, 0, byte_class(y), t, k);
			e[(*ne)++].rank = id;
			e[*ne].key = unit_key(1, 1, y, t, k);
			e[(*ne)++].rank = id;
		}
	}
	*ne = edges_sorted(e, *ne);
	return e;
}

/*
 * hm__char_tok (see vocab_int.h).  A character c of two or three bytes that
 * is one token T may start a merge as T when no token that a merge could
 * make across c's edge, given the class of the byte beside c, ranks below
 * the highest merge of c's own bytes (M): then while c is unfinished its own
 * next merge (rank <= M) always comes before any merge across its edge, and
 * once it is T, the pairs of T with its neighbours (also above M) have never
 * come before a merge the plain loop makes instead.  So the merges outside
 * c happen in the same order either way, and the result is the same.  The
 * tokens across the left edge end with a prefix of c (one byte, two, all of
 * c) after some byte; those across the right edge start with a suffix of c.
 * The argument holds for the byte itself as well as for its class: the
 * flags are per class, and hm__char_mask (indexed by hm__char_slot) holds
 * the finer condition per byte.  Such a character is a unit of one token
 * (unit_entry, above) with neighbours on both sides.
 */
static int
emit_char_tok(const struct edge *e, size_t ne)
{
	uint32_t *out = calloc(65536, sizeof *out), cp, nslot = 1;
	uint16_t *slot = calloc(65536, sizeof *slot);
	uint64_t (*mk)[2] = calloc(65536, sizeof *mk);

	if (!out || !slot || !mk)
		return 3;
	for (cp = 0x80; cp < 0x10000; cp++) {
		unsigned char u[16] = { 0 }; /* (rank_of's loads are wider than the text) */
		unsigned n = (unsigned)utf8_of(cp, u);

		if (rank_of(u, n) < 0)
			continue;
		if (!(out[cp] = unit_entry(e, ne, u, n, 1, NULL, NULL, mk[cp]))) {
			fprintf(stderr, "gen_vocab: U+%04X is a token its bytes cannot make\n",
			        (unsigned)cp);
			return 1;
		}
		slot[cp] = (uint16_t)nslot++;
	}
	printf("const uint32_t hm__char_tok[65536] = {");
	for (cp = 0; cp < 65536; cp++)
		printf("%s0x%x,", cp % 8 ? "" : "\n\t", out[cp]);
	printf("\n};\n\n");
	printf("const uint64_t hm__char_mask[][2] = {\n\t{0,0},");
	for (cp = 0x80, nslot = 1; cp < 0x10000; cp++)
		if (slot[cp])
			printf("%s{0x%llx,0x%llx},", ++nslot % 3 ? "" : "\n\t",
			       (unsigned long long)mk[cp][0], (unsigned long long)mk[cp][1]);
	printf("\n};\n\n");
	printf("const uint16_t hm__char_slot[65536] = {");
	for (cp = 0; cp < 65536; cp++)
		printf("%s%u,", cp % 16 ? "" : "\n\t", slot[cp]);
	printf("\n};\n\n");
	free(out);
	free(slot);
	free(mk);
	return 0;
}

static int
emit_units(const struct edge *e, size_t ne)
{
	uint32_t (*seq)[4] = malloc(2 * 4096 * sizeof *seq), nseq = 0, c4[4096], s4[4096], c;
	uint32_t *sp = calloc(65536, sizeof *sp);
	uint64_t m4[4096][2], ms4[4096][2];

	if (!seq || !sp)
		return 3;
	for (c = 0x80; c < 0x10000; c++) {
		unsigned char u[16] = { ' ' }; /* (rank_of's loads are wider than the text) */

		if (c < 0xD800 || c >= 0xE000)
			sp[c] = unit_entry(e, ne, u, 1 + (unsigned)utf8_of(c, u + 1), 0, NULL, NULL, NULL);
	}
	for (c = 0; c < 4096; c++) {
		unsigned char u[16] = { ' ', 0xF0, 0x9F, (unsigned char)(0x80 | c >> 6),
		                        (unsigned char)(0x80 | (c & 0x3F)) };

		c4[c] = unit_entry(e, ne, u + 1, 4, 1, seq, &nseq, m4[c]);
		s4[c] = unit_entry(e, ne, u, 5, 0, seq, &nseq, ms4[c]);
	}
	printf("const uint32_t hm__space_tok[65536] = {");
	for (c = 0; c < 65536; c++)
		printf("%s0x%x,", c % 8 ? "" : "\n\t", sp[c]);
	printf("\n};\n\nconst uint32_t hm__char4[4096] = {");
	for (c = 0; c < 4096; c++)
		printf("%s0x%x,", c % 8 ? "" : "\n\t", c4[c]);
	printf("\n};\n\nconst uint32_t hm__space4[4096] = {");
	for (c = 0; c < 4096; c++)
		printf("%s0x%x,", c % 8 ? "" : "\n\t", s4[c]);
	printf("\n};\n\nconst uint64_t hm__char4_mask[4096][2] = {");
	for (c = 0; c < 4096; c++)
		printf("%s{0x%llx,0x%llx},", c % 3 ? "" : "\n\t", (unsigned long long)m4[c][0],
		       (unsigned long long)m4[c][1]);
	printf("\n};\n\nconst uint64_t hm__space4_mask[4096] = {");
	for (c = 0; c < 4096; c++)
		printf("%s0x%llx,", c % 4 ? "" : "\n\t", (unsigned long long)ms4[c][1]);
	printf("\n};\n\nconst uint32_t hm__unit_seq[][4] = {");
	for (c = 0; c < nseq; c++)
		printf("%s{%u,%u,%u,%u},", c % 4 ? "" : "\n\t", seq[c][0], seq[c][1], seq[c][2],
		       seq[c][3]);
	printf("%s\n};\n\n", nseq ? "" : "{0,0,0,0}");
	free(seq);
	free(sp);
	return 0;
}

/*
 * hm__space_ascii: bit y of row x when a piece that starts with a space,
 * the byte x and the byte y may start merging from the token " x" (pair
 * holds the two-byte tokens).  The merge of the space and x comes before
 * x joins anything on its right when every token that starts with the
 * bytes x y has a higher rank than " x" (x's right-hand part starts with
 * y); and no join of " x" with that part may come earlier than " x"
 * itself when every token that starts with " x y" ranks above it too.
 * Nothing is on the space's left.  So the merges are the same with " x"
 * made first, and the ids too.
 */
static int
emit_space_ascii(const unsigned char *bytes, const uint32_t *off, const uint32_t *pair)
{
	uint32_t *lead2 = malloc(65536 * sizeof *lead2), *lead3 = malloc(65536 * sizeof *lead3);
	uint32_t id, x, y, set = 0;

	if (!lead2 || !lead3) {
		fprintf(stderr, "gen_vocab: out of memory\n");
		return 1;
	}
	for (id = 0; id < 65536; id++)
		lead2[id] = lead3[id] = UINT32_MAX;
	for (id = 0; id < N_ORDINARY; id++) {
		const unsigned char *t = bytes + off[id];
		uint32_t len = off[id + 1] - off[id];

		if (len >= 2 && id < lead2[t[0] << 8 | t[1]])
			lead2[t[0] << 8 | t[1]] = id;
		if (len >= 3 && t[0] == ' ' && id < lead3[t[1] << 8 | t[2]])
			lead3[t[1] << 8 | t[2]] = id;
	}
	printf("const uint64_t hm__space_ascii[256][4] = {");
	for (x = 0; x < 256; x++) {
		uint64_t w[4] = { 0, 0, 0, 0 };
		uint32_t r = pair[' ' << 8 | x];

		for (y = 0; y < 256; y++)
			if (r != UINT32_MAX && r < lead2[x << 8 | y] && r < lead3[x << 8 | y]) {
				w[y >> 6] |= (uint64_t)1 << (y & 63);
				set++;
			}
		printf("\n\t{0x%llx,0x%llx,0x%llx,0x%llx},", (unsigned long long)w[0],
		       (unsigned long long)w[1], (unsigned long long)w[2], (unsigned long long)w[3]);
	}
	printf("\n};\n\n");
	free(lead2);
	free(lead3);
	if (set < 10000) {
		fprintf(stderr, "gen_vocab: only %u space-and-byte starts\n", set);
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0, total = 0;
	long got;
	unsigned rank = 0, lineno = 0, id;
	unsigned char *bytes;
	uint32_t *off, *soff;
	char name[64], *stext;
	size_t slen = 0;

	if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: gen_vocab o200k_base.tiktoken\n");
		return 2;
	}
	bytes = malloc(4u << 20);
	off = malloc((N_ORDINARY + 1) * sizeof *off);
	slots = calloc((size_t)HM_VOCAB_BUCKETS * HM_VOCAB_WAYS, sizeof *slots);
	stext = malloc(64 * (N_TOKENS - FIRST_SPECIAL));
	soff = malloc((N_TOKENS - FIRST_SPECIAL + 1) * sizeof *soff);
	if (!bytes || !off || !slots || !stext || !soff)
		return 3;
	while ((got = (long)getline(&line, &cap, f)) > 0) {
		char *sp = memchr(line, ' ', (size_t)got), *end;
		unsigned long r;
		long n;

		lineno++;
		if (!sp) {
			fprintf(stderr, "gen_vocab: line %u: no space\n", lineno);
			return 1;
		}
		r = strtoul(sp + 1, &end, 10);
		if (r != rank || (*end != '\n' && *end != '\0')) {
			fprintf(stderr, "gen_vocab: line %u: rank %lu, expected %u\n", lineno, r, rank);
			return 1;
		}
		n = b64decode(line, (size_t)(sp - line), bytes + total);
		if (n <= 0 || total + (size_t)n > (4u << 20) - 64) {
			fprintf(stderr, "gen_vocab: line %u: bad base64\n", lineno);
			return 1;
		}
		if (n > HM_VOCAB_MAX_LEN) {
			fprintf(stderr, "gen_vocab: line %u: token longer than %u bytes\n",
			        lineno, HM_VOCAB_MAX_LEN);
			return 1;
		}
		off[rank] = (uint32_t)total;
		total += (size_t)n;
		rank++;
	}
	if (rank != N_ORDINARY) {
		fprintf(stderr, "gen_vocab: %u tokens, expected %u\n", rank, N_ORDINARY);
		return 1;
	}
	off[rank] = (uint32_t)total;
	vbytes = bytes;
	voff = off;
	if (place_all(N_ORDINARY) < 0)
		return 1;
	/* the library's own lookup must find every token where it was put */
	for (id = 0; id < N_ORDINARY; id++) {
		hm_vocab_key k;

		key_of_rank(id, &k);
		if (hm__vocab_lookup(slots, bytes, off, bytes + off[id], &k) != (int32_t)id) {
			fprintf(stderr, "gen_vocab: rank %u is not found again\n", id);
			return 1;
		}
	}
	for (id = FIRST_SPECIAL; id < N_TOKENS; id++) {
		size_t k;

		special_name(id, name, sizeof name);
		k = strlen(name);
		soff[id - FIRST_SPECIAL] = (uint32_t)slen;
		memcpy(stext + slen, name, k);
		slen += k;
	}
	soff[N_TOKENS - FIRST_SPECIAL] = (uint32_t)slen;

	printf("/* Generated by tools/gen_vocab.c from vocab/o200k_base.tiktoken. Do not edit. */\n");
	printf("#include \"vocab_int.h\"\n\n");
	printf("const unsigned char hm__vocab_bytes[] =\n");
	emit_string(bytes, total);
	printf(";\n\n");
	emit_u32s("const uint32_t hm__vocab_off[]", off, N_ORDINARY + 1);
	printf("_Alignas(64) const hm_vocab_slot hm__vocab_slots[] = {\n");
	for (id = 0; id < HM_VOCAB_BUCKETS * HM_VOCAB_WAYS; id++)
		printf("\t{0x%llx,0x%x,0x%x},\n", (unsigned long long)slots[id].k8,
		       slots[id].k4, slots[id].meta);
	printf("};\n\n");
	printf("const char hm__special_text[] =\n");
	emit_string((unsigned char *)stext, slen);
	printf(";\n\n");
	emit_u32s("const uint32_t hm__special_off[]", soff, N_TOKENS - FIRST_SPECIAL + 1);
	{
		uint32_t *pair = malloc(65536 * sizeof *pair);

		for (id = 0; id < 65536; id++)
			pair[id] = UINT32_MAX;
		for (id = 0; id < N_ORDINARY; id++)
			if (off[id + 1] - off[id] == 2)
				pair[bytes[off[id]] << 8 | bytes[off[id] + 1]] = id;
		printf("const int32_t hm__pair2_rank[65536] = {");
		for (id = 0; id < 65536; id++)
			printf("%s%d,", id % 16 ? "" : "\n\t", pair[id] == UINT32_MAX ? -1 : (int)pair[id]);
		printf("\n};\n\n");
		if (emit_space_ascii(bytes, off, pair) != 0)
			return 1;
	}
	{
		size_t nwords = (size_t)1 << HM_JOIN_WORD_BITS, nkeys = 0, i;
		uint64_t *bloom = calloc(nwords, sizeof *bloom);
		uint64_t pattern[1u << HM_JOIN_PATTERN_BITS], seed = 0x243F6A8885A308D3ull;

		if (!bloom)
			return 3;
		/* Each pattern four distinct bits, from a fixed splitmix64 stream. */
		for (i = 0; i < sizeof pattern / sizeof pattern[0]; i++) {
			uint64_t m = 0;
			int bits = 0;

			while (bits < 4) {
				uint64_t z = (seed += 0x9E3779B97F4A7C15ull), bit;

				z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9ull;
				z = (z ^ z >> 27) * 0x94D049BB133111EBull;
				bit = (uint64_t)1 << ((z ^ z >> 31) & 63);
				bits += !(m & bit);
				m |= bit;
			}
			pattern[i] = m;
		}
		for (id = 0; id < N_ORDINARY; id++) {
			const unsigned char *t = bytes + off[id];
			uint32_t len = off[id + 1] - off[id], k;

			for (k = 1; k < len; k++) {
				hm_vocab_key ka, kb;
				int32_t a, b;

				hm__vocab_key(t, k, &ka);
				hm__vocab_key(t + k, len - k, &kb);
				a = hm__vocab_lookup(slots, bytes, off, t, &ka);
				b = hm__vocab_lookup(slots, bytes, off, t + k, &kb);
				if (a >= 0 && b >= 0) {
					uint32_t w;
					uint64_t m = hm__join_bits(pattern, hm__join_hash(hm__join_key((uint32_t)a, (uint32_t)b)), &w);

					bloom[w] |= m;
					nkeys++;
				}
			}
		}
		if (nkeys < 400000) {
			fprintf(stderr, "gen_vocab: only %zu joins for the filter\n", nkeys);
			return 1;
		}
		printf("_Alignas(64) const uint64_t hm__join_bloom[] = {");
		for (i = 0; i < nwords; i++)
			printf("%s0x%llx,", i % 6 ? "" : "\n\t", (unsigned long long)bloom[i]);
		printf("\n};\n\n");
		printf("const uint64_t hm__join_pattern[] = {");
		for (i = 0; i < sizeof pattern / sizeof pattern[0]; i++)
			printf("%s0x%llx,", i % 6 ? "" : "\n\t", (unsigned long long)pattern[i]);
		printf("\n};\n\n");
		free(bloom);
	}
	printf("const uint32_t hm__byte_rank[256] = {");
	for (id = 0; id < 256; id++) {
		uint32_t r;

		for (r = 0; r < N_ORDINARY; r++)
			if (off[r + 1] - off[r] == 1 && bytes[off[r]] == id)
				break;
		if (r == N_ORDINARY) {
			fprintf(stderr, "gen_vocab: byte %u is not a token\n", id);
			return 1;
		}
		printf("%s%u,", id % 12 ? "" : "\n\t", r);
	}
	printf("\n};\n\n");
	{
		size_t ne;
		struct edge *edges = unit_edges(&ne);
		int e = edges ? emit_char_tok(edges, ne) : 3;

		if (!e)
			e = emit_units(edges, ne);
		free(edges);
		if (e)
			return e;
	}
	printf("const unsigned char hm__uclass16[65536] = {");
	for (id = 0; id < 65536; id++)
		printf("%s%u,", id % 16 ? "" : "\n\t", hm__uclass(id) & 0xff);
	printf("\n};\n");
	/* hm__uclass2: the low byte a lead of two bytes (C2..DF), the high its continuation */
	printf("const unsigned char hm__uclass2[65536] = {");
	for (id = 0; id < 65536; id++) {
		unsigned lo = id & 0xff, hi = id >> 8;

		printf("%s%u,", id % 16 ? "" : "\n\t", lo - 0xC2u < 0x1Eu && hi - 0x80u < 0x40u ?
		       hm__uclass((lo & 0x1Fu) << 6 | (hi & 0x3Fu)) & 0xff : 0u);
	}
	printf("\n};\n");
	return 0;
}
