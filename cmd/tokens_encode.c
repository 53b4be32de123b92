/*
 * tokens_encode.c - harmony-tokens encode and count of text: text to ids,
 * written as they come (ids, a JSON array or one a line), and invalid
 * UTF-8 reported with its file, line and byte.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tokens.h"

static const char digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Digits x / 10 and x % 10 (x < 100) as a little-endian 16-bit word. */
static inline uint16_t
digit_pair(uint32_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint16_t w;

	memcpy(&w, digits2 + 2 * x, 2);
	return w;
#else
	return (uint16_t)((unsigned char)digits2[2 * x] | (unsigned char)digits2[2 * x + 1] << 8);
#endif
}

/* The low bytes of z that are zero, before its first that is not (z != 0). */
static inline unsigned
lead_zeros(uint64_t z)
{
#ifdef __GNUC__
	return (unsigned)__builtin_ctzll(z) / 8;
#else
	unsigned k = 0;

	while (!(z & 0xFF)) {
		z >>= 8;
		k++;
	}
	return k;
#endif
}

/* Store v at p, lowest byte first, whatever the host's byte order. */
static inline void
store_le64(char *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 8);
#else
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (char)(v >> (8 * i));
#endif
}

/*
 * Ids go out as they come, in parts: a record is begun by its first part
 * (or its end) and ended by write_ids_end.
 */
static void
write_ids_part(struct tokens_ctx *tk, const hm_ids *ids)
{
	char sep = tk->opt.to == F_JSON ? ',' : tk->opt.to == F_LINES ? '\n' : ' ';
	size_t i, n = tk->en.n;

	if (!tk->en.begun) {
		if (tk->opt.to == F_JSON)
			hm_buf_addc(&tk->out, '[');
		tk->en.begun = 1;
	}
	for (i = 0; i < ids->len; i += 4096) {
		size_t k, end = i + 4096 < ids->len ? i + 4096 : ids->len;
		char *p;

		/* ids have at most 10 digits: write straight into reserved room */
		if (hm_buf_reserve(&tk->out, (end - i) * 11 + 10) < 0)
			break;
		p = tk->out.p + tk->out.len;
		for (k = i; k < end; k++) {
			uint32_t v = ids->v[k];

			if (n++)
				*p++ = sep;
			if (v < 1000000) {
				/*
				 * Six digits without branches, as one word with the
				 * first digit in its lowest byte, shifted past the
				 * leading zeros and stored whole.  The leading zeros
				 * are the low bytes that are '0' (the last digit
				 * always counts: a bit of its byte is set in z).
				 */
				uint32_t lo = v % 10000;
				uint64_t u = (uint64_t)digit_pair(v / 10000) |
				             (uint64_t)digit_pair(lo / 100) << 16 |
				             (uint64_t)digit_pair(lo % 100) << 32;
				uint64_t z = (u ^ UINT64_C(0x303030303030)) | UINT64_C(1) << 47;
				unsigned lead = lead_zeros(z);

				store_le64(p, u >> 8 * lead);
				p += 6 - lead;
			} else {
				p += sprintf(p, "%lu", (unsigned long)v);
			}
		}
		tk->out.len = (size_t)(p - tk->out.p);
		tk->out.p[tk->out.len] = '\0';
		out_maybe(tk);
	}
	tk->en.n = n;
}

static void
write_ids_end(struct tokens_ctx *tk)
{
	if (!tk->en.begun && tk->opt.to == F_JSON)
		hm_buf_addc(&tk->out, '[');
	if (tk->opt.to == F_JSON)
		hm_buf_addc(&tk->out, ']');
	if (tk->opt.to != F_LINES || tk->en.n)
		hm_buf_addc(&tk->out, '\n');
	tk->en.begun = 0;
	tk->en.n = 0;
}

void
write_ids(struct tokens_ctx *tk, const hm_ids *ids)
{
	write_ids_part(tk, ids);
	write_ids_end(tk);
}

static unsigned
enc_flags(struct tokens_ctx *tk)
{
	return (tk->opt.special ? HM_ENC_SPECIAL : 0) | (tk->opt.lossy ? HM_ENC_LOSSY : 0);
}

/*
 * Encode one text; on invalid UTF-8, report where.  line is the record's
 * line with --lines, 0 for the whole input (the place found by locate).
 */
int
encode_text(struct tokens_ctx *tk, const char *s, size_t n, hm_ids *ids, const char *file, size_t line)
{
	hm_error e;
	hm_status st = hm_encode(tk->enc, s, n, enc_flags(tk), ids, &e);

	if (st == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK) {
		size_t off = e.index, col = off + 1;

		if (!line)
			locate(tk, s, off, &file, &line, &col);
		cli_error_at(file, line, col, "invalid UTF-8 (use --lossy to replace it)");
		tk->status = CLI_BAD;
		return -1;
	}
	return 0;
}

/*
 * encode and count read their input in blocks through the library's
 * streaming encoder (hm_encoder_feed), so memory stays bounded whatever
 * the input's size while the ids are those of the whole input as one
 * text; text without a cut point (one huge line) is held until one comes
 * or the input ends.  The ids released are written before the next block
 * is read, so invalid UTF-8 late in the input leaves the ids before it
 * written, without the record's end.
 */

static size_t
count_lines(const char *s, size_t n)
{
	const char *e = s + n;
	size_t k = 0;

	while ((s = memchr(s, '\n', (size_t)(e - s))) != NULL) {
		k++;
		s++;
	}
	return k;
}

/* A file of a stream starts: where, and the line breaks fed of it so far. */
static void
fmark_add(struct tokens_enc *en, const char *name)
{
	if (en->nfmarks == en->fmcap) {
		en->fmcap = en->fmcap ? 2 * en->fmcap : 8;
		en->fmarks = cli_realloc(en->fmarks, en->fmcap * sizeof *en->fmarks);
	}
	en->fmarks[en->nfmarks].off = en->fed;
	en->fmarks[en->nfmarks].name = name;
	en->fmarks[en->nfmarks++].breaks = 0;
}

/*
 * Report the encoder's invalid UTF-8 with its file, line and byte.  The
 * bad byte lies in the text the encoder still holds, which starts after a
 * line break (or at the start): its file's line is the breaks fed of that
 * file less those from the byte to the file's end, its column the bytes
 * since the last break.
 */
static void
stream_error(struct tokens_ctx *tk, size_t off)
{
	const struct tokens_fmark *fm = tk->en.fmarks;
	size_t hl, i, end, lo, nfm = tk->en.nfmarks;
	const char *h = hm_encoder_held(tk->enc, &hl), *at, *p;
	size_t hs = tk->en.fed - hl;

	for (i = 0; i + 1 < nfm && fm[i + 1].off <= off; i++)
		;
	end = i + 1 < nfm ? fm[i + 1].off : tk->en.fed;
	lo = fm[i].off > hs ? fm[i].off : hs;
	at = h + (off - hs);
	for (p = at; p > h + (lo - hs) && p[-1] != '\n'; p--)
		;
	cli_error_at(fm[i].name, 1 + fm[i].breaks - count_lines(at, end - off),
	             (size_t)(at - p) + 1, "invalid UTF-8 (use --lossy to replace it)");
	tk->status = CLI_BAD;
}

/*
 * Text the encoder holds past this much (no line break where its split
 * pattern restarts came) is cut here instead, at a point of a block where
 * the pattern restarts too: a space between two ASCII letters.  No piece
 * of the pattern holds a letter followed by a space (a word is letters
 * with one character before them, a contraction ends in a letter), and
 * from the space on it reads the same whatever came before; no special
 * token's text holds a space.  So the ids of the text up to there, then
 * of the rest, are the ids of the whole (the encoder's stream is finished
 * there and begun again), and one huge line of prose takes bounded memory.
 */
#define HOLD_MAX (1 << 20)

static int
ascii_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The last cut point q of s[0..n) (a space, a letter before and after it), or 0. */
static size_t
word_cut(const char *s, size_t n)
{
	size_t q;

	for (q = n - 1; q > 1; q--)
		if (s[q - 1] == ' ' && ascii_letter(s[q]) && ascii_letter(s[q - 2]))
			return q - 1;
	return 0;
}

/*
 * Read in the text of the files left (all of them, or only the next one
 * with one_file) block by block; part() gets the ids as the encoder
 * releases them.  Returns 1 when the text was read and encoded, 0 at the
 * end of the files, -1 on invalid UTF-8 (reading stops there).
 */
static int
stream_text(struct tokens_ctx *tk, cli_input *in, int one_file, void (*part)(struct tokens_ctx *, const hm_ids *))
{
	struct tokens_enc *en = &tk->en;
	hm_ids *ids = &en->ids;
	char block[BLOCK];
	hm_status st = HM_OK;
	hm_error e;
	int any = 0;
	size_t got;

	hm_encoder_reset(tk->enc);
	en->nfmarks = en->fed = en->base = 0;
	while (cli_input_next_file(in)) {
		any = 1;
		fmark_add(en, in->name);
		while ((got = fread(block, 1, sizeof block, in->f)) > 0) {
			size_t hl, q = 0;

			en->fmarks[en->nfmarks - 1].breaks += count_lines(block, got);
			(void)hm_encoder_held(tk->enc, &hl);
			if (hl >= HOLD_MAX && !memchr(block, '\n', got) && (q = word_cut(block, got))) {
				ids->len = 0;
				if ((st = hm_encoder_feed(tk->enc, block, q, enc_flags(tk), ids, &e)) !=
				    HM_OK || (st = hm_encoder_finish(tk->enc, enc_flags(tk), ids, &e)) !=
				    HM_OK)
					break;
				en->base = en->fed + q;
				part(tk, ids);
			}
			en->fed += got;
			ids->len = 0;
			if ((st = hm_encoder_feed(tk->enc, block + q, got - q, enc_flags(tk), ids,
			    &e)) != HM_OK)
				break;
			if (ids->len)
				part(tk, ids);
		}
		if (st == HM_OK && ferror(in->f)) {
			cli_error(in->name, 0, "read error: %s", strerror(errno));
			in->failed = 1;
		}
		if (st != HM_OK || one_file)
			break;
	}
	if (!any)
		return 0;       /* no file could be opened */
	ids->len = 0;
	if (st == HM_OK)
		st = hm_encoder_finish(tk->enc, enc_flags(tk), ids, &e);
	if (st == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK) {
		/* the offset from the encoder's stream, which began at base */
		stream_error(tk, en->base + e.index);
		return -1;
	}
	part(tk, ids);
	return 1;
}

static void
count_part(struct tokens_ctx *tk, const hm_ids *ids)
{
	tk->counted += ids->len;
}

void
run_encode_stream(struct tokens_ctx *tk, cli_input *in)
{
	int r = stream_text(tk, in, 0, write_ids_part);

	/* after a late error, still end what was written as a whole line */
	if (r > 0 || (r < 0 && tk->en.begun))
		write_ids_end(tk);
}

/* count of text: one total, or with several files one line each and a total. */
void
run_count_stream(struct tokens_ctx *tk, cli_input *in)
{
	size_t total = 0;
	int r;

	if (in->npaths < 2) {
		if (stream_text(tk, in, 0, count_part) > 0) {
			hm_buf_addu(&tk->out, tk->counted);
			hm_buf_addc(&tk->out, '\n');
		}
		return;
	}
	for (;;) {
		tk->counted = 0;
		if ((r = stream_text(tk, in, 1, count_part)) == 0)
			break;
		if (r < 0)
			continue;
		total += tk->counted;
		hm_buf_addu(&tk->out, tk->counted);
		hm_buf_addc(&tk->out, ' ');
		hm_buf_adds(&tk->out, in->name);
		hm_buf_addc(&tk->out, '\n');
	}
	hm_buf_addu(&tk->out, total);
	hm_buf_adds(&tk->out, " total\n");
}

void
encode_free(struct tokens_ctx *tk)
{
	free(tk->en.fmarks);
	hm_ids_free(&tk->en.ids);
}
