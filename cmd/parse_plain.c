/*
 * parse_plain.c - harmony-parse's reader of plain ids: whitespace or comma
 * separated numbers, one stream however long, handed to the parser in
 * batches.  Apart from the rest of the input because it is the hot path:
 * most numbers are read a word (8 bytes) at a time, as lib/record_scan.c
 * reads id arrays (its helpers are internal; cmd/ sees only harmony.h).
 */
#include <string.h>

#include "parse.h"

/*
 * Whitespace or comma separated numbers, streamed in chunks.  Numbers that
 * lie whole inside a chunk take a tight loop; one cut by the chunk's end or
 * holding a bad character goes byte by byte through the state in pl.
 */
#define BATCH 65536

static struct {
	uint64_t val;
	int indigit, bad;
	size_t ntok;
	uint32_t ids[BATCH];
	size_t nids;
	hm_buf badtok;
} pl;

/* 1: separator, 2: newline (also a separator), 4: digit */
static unsigned char cls[256];

void
plain_init(void)
{
	int c;

	for (c = '0'; c <= '9'; c++)
		cls[c] = 4;
	cls[' '] = cls['\t'] = cls['\r'] = cls['\f'] = cls['\v'] = cls[','] = 1;
	cls['\n'] = 3;
}

void
plain_flush(void)
{
	if (pl.nids)
		feed_ids(pl.ids, pl.nids);
	pl.nids = 0;
}

static void
plain_push(uint32_t id)
{
	if (pl.nids == BATCH)
		plain_flush();
	pl.ids[pl.nids++] = id;
}

/*
 * A word that is not an id: an error, after what the ids before it have
 * given, and an error event in its place; it keeps its token index.
 */
static void
bad_word(const char *file, size_t line, const char *msg, size_t n)
{
	hm_event ev;

	plain_flush();
	cli_error(file, line, "token %zu: %.*s", pl.ntok, (int)n, msg);
	status = CLI_BAD;
	memset(&ev, 0, sizeof ev);
	ev.type = HM_EV_ERROR;
	ev.at = pl.ntok;
	ev.text.p = msg;
	ev.text.len = n;
	if (hm_writer_event(wr, &ev) != HM_OK)
		cli_oom();
	hm_parser_skip(rec.p);
	if (streaming_shape() && !holds_record())
		write_out(1);
}

static void
plain_number_end(const char *file, size_t line)
{
	if (pl.bad) {
		hm_buf m = { 0 };

		hm_buf_adds(&m, "not a token id: '");
		hm_buf_add(&m, pl.badtok.p, pl.badtok.len);
		hm_buf_addc(&m, '\'');
		bad_word(file, line, m.p ? m.p : "", m.len);
		hm_buf_free(&m);
	} else if (pl.val > 4294967295ull)
		bad_word(file, line, "id out of range", 15);
	else
		plain_push((uint32_t)pl.val);
	pl.ntok++;
	pl.indigit = pl.bad = 0;
	pl.val = 0;
	hm_buf_clear(&pl.badtok);
}

/* One byte through the slow state machine. */
static void
plain_byte(unsigned char c, const char *file, size_t *line)
{
	if ((cls[c] & 4) && !pl.bad) {
		pl.val = pl.val * 10 + (c - '0');
		if (pl.val > 4294967295ull)
			pl.val = 4294967296ull;
		pl.indigit = 1;
		return;
	}
	if (cls[c] & 1) {
		if (pl.indigit || pl.bad)
			plain_number_end(file, *line);
		if (c == '\n')
			mark_add(pl.ntok, file, ++*line);
		return;
	}
	if (!pl.bad && pl.indigit) {
		/* Show the digits read so far with the bad character. */
		hm_buf_clear(&pl.badtok);
		if (pl.val <= 4294967295ull)
			hm_buf_addu(&pl.badtok, pl.val);
	}
	pl.bad = 1;
	if (pl.badtok.len < 32)
		hm_buf_addc(&pl.badtok, (char)c);
}

#define ONES UINT64_C(0x0101010101010101)

/* s[0..8) as a little-endian word: byte 0 in the low bits on any host. */
static uint64_t
le64(const unsigned char *s)
{
	return (uint64_t)s[0] | (uint64_t)s[1] << 8 | (uint64_t)s[2] << 16 |
	    (uint64_t)s[3] << 24 | (uint64_t)s[4] << 32 | (uint64_t)s[5] << 40 |
	    (uint64_t)s[6] << 48 | (uint64_t)s[7] << 56;
}

/* How many of the bytes of x (low byte first) lead with ASCII digits. */
static unsigned
lead_digits(uint64_t x)
{
	/* A digit is 0x3_ with a low nibble that survives +6 without carry. */
	uint64_t hi = (x & ONES * 0xF0) ^ ONES * 0x30;
	uint64_t lo = ((x + ONES * 6) & ONES * 0xF0) ^ ONES * 0x30;
	uint64_t nz = hi | lo;
	unsigned k = 0;

	/* High bit of each byte: that byte is not a digit. */
	nz = (((nz & ONES * 0x7F) + ONES * 0x7F) | nz) & ONES * 0x80;
	if (!nz)
		return 8;
#ifdef __GNUC__
	k = (unsigned)__builtin_ctzll(nz) / 8;
#else
	while (!(nz & 0x80)) {
		nz >>= 8;
		k++;
	}
#endif
	return k;
}

/* The value of the k (1..7) digits at the low end of x. */
static uint32_t
digits_value(uint64_t x, unsigned k)
{
	/* Move them to the high end, most significant first, zeros below. */
	uint64_t d = (x - ONES * '0') << (8 * (8 - k));

	d = (d * 10 + (d >> 8)) & UINT64_C(0x00FF00FF00FF00FF);
	d = (d * 100 + (d >> 16)) & UINT64_C(0x0000FFFF0000FFFF);
	d = (d * 10000 + (d >> 32)) & UINT64_C(0xFFFFFFFF);
	return (uint32_t)d;
}

void
plain_chunk(const char *buf, size_t n, const char *file, size_t *line)
{
	const unsigned char *s = (const unsigned char *)buf;
	size_t i = 0, j;
	uint64_t v;
	unsigned k;

	while (i < n) {
		if (pl.indigit || pl.bad) {
			plain_byte(s[i++], file, line);
			continue;
		}
		if (cls[s[i]] & 1) {
			if (s[i++] == '\n')
				mark_add(pl.ntok, file, ++*line);
			continue;
		}
		/* A number of 1 to 7 digits then a separator, a word at a time. */
		if (i + 8 <= n) {
			v = le64(s + i);
			k = lead_digits(v);
			if (k && k < 8 && (cls[s[i + k]] & 1)) {
				if (pl.nids == BATCH)
					plain_flush();
				pl.ids[pl.nids++] = digits_value(v, k);
				pl.ntok++;
				i += k;
				continue;
			}
		}
		/* Near the chunk's end: up to 10 digits, then a separator. */
		for (j = i, v = 0; j < n && j - i < 11 && (cls[s[j]] & 4); j++)
			v = v * 10 + (s[j] - '0');
		if (j > i && j < n && (cls[s[j]] & 1) && v <= 4294967295ull) {
			if (pl.nids == BATCH)
				plain_flush();
			pl.ids[pl.nids++] = (uint32_t)v;
			pl.ntok++;
			i = j;
			continue;
		}
		plain_byte(s[i++], file, line);
	}
	plain_flush();
}

void
plain_file_end(const char *file, size_t line)
{
	if (pl.indigit || pl.bad)
		plain_number_end(file, line);
}

size_t
plain_tokens(void)
{
	return pl.ntok;
}

void
plain_free(void)
{
	hm_buf_free(&pl.badtok);
}
