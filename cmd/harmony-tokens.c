/* harmony-tokens - o200k_harmony encode, decode, inspect, count, specials. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "tokens.h"

static const char usage_text[] =
"Usage: harmony-tokens [OPTION]... COMMAND [FILE]...\n"
"   or: harmony-tokens [OPTION]... diff FILE1 FILE2\n"
"o200k_harmony tokens: text to ids and back, and a look inside.\n"
"\n"
"Commands:\n"
"  encode      text to token ids (the whole input is one text)\n"
"  decode      token ids to the exact bytes\n"
"  inspect     one row per token: index, id, kind, bytes\n"
"  count       number of tokens (per file, and a total, like wc)\n"
"  specials    every special token with its id\n"
"  diff        compare two token files record by record (a line each);\n"
"              report each record's first difference\n"
"\n"
"Options:\n"
"      --color=WHEN    color: auto (default), always, never\n"
"      --context=N     diff: ids shown before and after a difference (default 4)\n"
"      --from=FORMAT   inspect, count: text, ids or auto\n"
"                      (inspect default auto, count default text)\n"
"  -h, --help          show this help and exit\n"
"      --key=FIELD     diff: pair NDJSON records by this field, not by line\n"
"      --lines         each input line is its own record; one output line each\n"
"      --lossy         replace invalid UTF-8 with U+FFFD instead of failing\n"
"      --no-special    encode special-token text as plain text\n"
"  -q, --quiet         no warnings; diff: no report, the exit status only\n"
"      --stop          specials: only the stop tokens\n"
"      --stop-actions  specials: only the stop tokens of assistant actions\n"
"      --to=FORMAT     encode: ids (default), json, lines;\n"
"                      decode: text (default), json; inspect: table (default), json;\n"
"                      diff: text (default), json (one NDJSON report a record)\n"
"  -V, --version       print the version and exit\n"
"\n"
"Ids are read as whitespace or comma separated numbers, JSON arrays, or NDJSON\n"
"records with a tokens, token_ids, output_ids or input_ids array.\n"
"Exit status: 0 ok, 1 bad input, 2 usage error, 3 I/O error;\n"
"diff: 0 equal, 1 different or bad input (errors on stderr), 2 usage, 3 I/O.\n";

struct tokens_opt opt = { .special = 1, .color = -1, .context = 4 };

static hm_encoder *enc;
int status = CLI_OK;
hm_buf out;

static void
out_maybe(void)
{
	if (out.len >= 1 << 16)
		cli_write_buf(&out, 0);
}

/* ------------------------------------------------------------ encode */

/*
 * Ids go out as they come, in parts: a record is begun by its first part
 * (or its end) and ended by write_ids_end.
 */
static struct {
	int begun;
	size_t n;       /* ids written in this record */
} idw;

static const char digits2[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Digits x / 10 and x % 10 (x < 100) as a little-endian 16-bit word. */
static inline uint16_t
digit_pair(uint32_t x)
{
	return (uint16_t)((unsigned char)digits2[2 * x] | (unsigned char)digits2[2 * x + 1] << 8);
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

static void
write_ids_part(const hm_ids *ids)
{
	char sep = opt.to == F_JSON ? ',' : opt.to == F_LINES ? '\n' : ' ';
	size_t i, n = idw.n;

	if (!idw.begun) {
		if (opt.to == F_JSON)
			hm_buf_addc(&out, '[');
		idw.begun = 1;
	}
	for (i = 0; i < ids->len; i += 4096) {
		size_t k, end = i + 4096 < ids->len ? i + 4096 : ids->len;
		char *p;

		/* ids have at most 10 digits: write straight into reserved room */
		if (hm_buf_reserve(&out, (end - i) * 11 + 10) < 0)
			break;
		p = out.p + out.len;
		for (k = i; k < end; k++) {
			uint32_t v = ids->v[k];

			if (n++)
				*p++ = sep;
			if (v < 1000000) {
				/*
				 * Six digits without branches, as one word with the
				 * first digit in its lowest byte, shifted past the
				 * leading zeros and stored whole.
				 */
				uint32_t lo = v % 10000;
				int nd = 1 + (v >= 10) + (v >= 100) + (v >= 1000) + (v >= 10000) + (v >= 100000);
				uint64_t u = (uint64_t)digit_pair(v / 10000) |
				             (uint64_t)digit_pair(lo / 100) << 16 |
				             (uint64_t)digit_pair(lo % 100) << 32;

				u >>= 8 * (6 - nd);
				store_le64(p, u);
				p += nd;
			} else {
				p += sprintf(p, "%lu", (unsigned long)v);
			}
		}
		out.len = (size_t)(p - out.p);
		out.p[out.len] = '\0';
		out_maybe();
	}
	idw.n = n;
}

static void
write_ids_end(void)
{
	if (!idw.begun && opt.to == F_JSON)
		hm_buf_addc(&out, '[');
	if (opt.to == F_JSON)
		hm_buf_addc(&out, ']');
	if (opt.to != F_LINES || idw.n)
		hm_buf_addc(&out, '\n');
	idw.begun = 0;
	idw.n = 0;
}

static void
write_ids(const hm_ids *ids)
{
	write_ids_part(ids);
	write_ids_end();
}

static unsigned
enc_flags(void)
{
	return (opt.special ? HM_ENC_SPECIAL : 0) | (opt.lossy ? HM_ENC_LOSSY : 0);
}

/*
 * The whole input (all files, in order) as one text, read into memory.
 * Where each file starts is kept so an error can name its file and line.
 */
static struct { size_t off; const char *name; } *parts;
static size_t nparts;

static int
read_whole(cli_input *in, char **buf, size_t *len, size_t *cap)
{
	*len = 0;
	parts = calloc((size_t)in->npaths, sizeof *parts);
	while (parts && cli_input_next_file(in)) {
		parts[nparts].off = *len;
		parts[nparts++].name = in->name;
		if (cli_read_all(in, buf, len, cap) < 0)
			return -1;
	}
	return in->failed || !parts ? -1 : 0;
}

/* File, line and column (from 1) of byte off of the whole input s. */
static void
locate(const char *s, size_t off, const char **file, size_t *line, size_t *col)
{
	size_t i, start = 0;

	*file = "-";
	for (i = 0; i < nparts; i++) {
		if (parts[i].off <= off) {
			start = parts[i].off;
			*file = parts[i].name;
		}
	}
	*line = 1;
	*col = 1;
	for (i = start; i < off; i++, (*col)++)
		if (s[i] == '\n')
			(*line)++, *col = 0;
}

/*
 * Encode one text; on invalid UTF-8, report where.  line is the record's
 * line with --lines, 0 for the whole input (located through parts).
 */
static int
encode_text(const char *s, size_t n, hm_ids *ids, const char *file, size_t line)
{
	hm_status st = hm_encode(enc, s, n, enc_flags(), ids);

	if (st == HM_ENOMEM) {
		cli_error(file, line, "out of memory");
		exit(CLI_IO);
	}
	if (st != HM_OK) {
		size_t off = hm_encoder_error_offset(enc), col = off + 1;

		if (!line)
			locate(s, off, &file, &line, &col);
		cli_error(file, line, "byte %zu: invalid UTF-8 (use --lossy to replace it)", col);
		status = CLI_BAD;
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ streaming */

/*
 * encode and count read their input in blocks through the library's
 * streaming encoder (hm_encoder_feed), so memory stays bounded whatever
 * the input's size while the ids are those of the whole input as one
 * text; text without a cut point (one huge line) is held until one comes
 * or the input ends.  The ids released are written before the next block
 * is read, so invalid UTF-8 late in the input leaves the ids before it
 * written, without the record's end.  decode reads its lines through the
 * pending buffer below.
 */
#define BLOCK (1 << 16)
#define CHUNK (1 << 20)

static struct {
	char *p;
	size_t len, cap;
} pend;

void *
xrealloc(void *p, size_t n)
{
	if (!(p = realloc(p, n)))
		cli_oom();
	return p;
}

/* Append a block of in->f; 0 at its end (a read error is reported). */
static size_t
pend_read(cli_input *in)
{
	size_t got;

	if (pend.cap - pend.len < BLOCK + 1) {
		pend.cap = pend.cap ? 2 * pend.cap : CHUNK + 2 * BLOCK;
		pend.p = xrealloc(pend.p, pend.cap);
	}
	got = fread(pend.p + pend.len, 1, BLOCK, in->f);
	pend.len += got;
	if (got == 0 && ferror(in->f)) {
		cli_error(in->name, 0, "read error: %s", strerror(errno));
		in->failed = 1;
	}
	return got;
}

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

static void
pend_reset(void)
{
	pend.len = 0;
}

/* Where each file of a stream starts, and the line breaks fed of it. */
static struct fmark {
	size_t off;
	const char *name;
	size_t breaks;
} *fmarks;
static size_t nfmarks, fmcap, fed;

static void
fmark_add(const char *name)
{
	if (nfmarks == fmcap) {
		fmcap = fmcap ? 2 * fmcap : 8;
		fmarks = xrealloc(fmarks, fmcap * sizeof *fmarks);
	}
	fmarks[nfmarks].off = fed;
	fmarks[nfmarks].name = name;
	fmarks[nfmarks++].breaks = 0;
}

/*
 * Report the encoder's invalid UTF-8 with its file, line and byte.  The
 * bad byte lies in the text the encoder still holds, which starts after a
 * line break (or at the start): its file's line is the breaks fed of that
 * file less those from the byte to the file's end, its column the bytes
 * since the last break.
 */
static void
stream_error(void)
{
	size_t hl, off = hm_encoder_error_offset(enc), i, end, lo;
	const char *h = hm_encoder_held(enc, &hl), *at, *p;
	size_t hs = fed - hl;

	for (i = 0; i + 1 < nfmarks && fmarks[i + 1].off <= off; i++)
		;
	end = i + 1 < nfmarks ? fmarks[i + 1].off : fed;
	lo = fmarks[i].off > hs ? fmarks[i].off : hs;
	at = h + (off - hs);
	for (p = at; p > h + (lo - hs) && p[-1] != '\n'; p--)
		;
	cli_error(fmarks[i].name, 1 + fmarks[i].breaks - count_lines(at, end - off),
	          "byte %zu: invalid UTF-8 (use --lossy to replace it)", (size_t)(at - p) + 1);
	status = CLI_BAD;
}

/*
 * Read in the text of the files left (all of them, or only the next one
 * with one_file) block by block; part() gets the ids as the encoder
 * releases them.  Returns 1 when the text was read and encoded, 0 at the
 * end of the files, -1 on invalid UTF-8 (reading stops there).
 */
static int
stream_text(cli_input *in, int one_file, void (*part)(const hm_ids *))
{
	static hm_ids ids;
	static char block[BLOCK];
	hm_status st = HM_OK;
	int any = 0;
	size_t got;

	hm_encoder_reset(enc);
	nfmarks = fed = 0;
	while (cli_input_next_file(in)) {
		any = 1;
		fmark_add(in->name);
		while ((got = fread(block, 1, sizeof block, in->f)) > 0) {
			fmarks[nfmarks - 1].breaks += count_lines(block, got);
			fed += got;
			ids.len = 0;
			if ((st = hm_encoder_feed(enc, block, got, enc_flags(), &ids)) != HM_OK)
				break;
			if (ids.len)
				part(&ids);
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
	ids.len = 0;
	if (st == HM_OK)
		st = hm_encoder_finish(enc, enc_flags(), &ids);
	if (st == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK) {
		stream_error();
		return -1;
	}
	part(&ids);
	return 1;
}

static size_t counted;

static void
count_part(const hm_ids *ids)
{
	counted += ids->len;
}

static void
run_encode_stream(cli_input *in)
{
	int r = stream_text(in, 0, write_ids_part);

	/* after a late error, still end what was written as a whole line */
	if (r > 0 || (r < 0 && idw.begun))
		write_ids_end();
}

/* count of text: one total, or with several files one line each and a total. */
static void
run_count_stream(cli_input *in)
{
	size_t total = 0;
	int r;

	if (in->npaths < 2) {
		if (stream_text(in, 0, count_part) > 0) {
			hm_buf_addu(&out, counted);
			hm_buf_addc(&out, '\n');
		}
		return;
	}
	for (;;) {
		counted = 0;
		if ((r = stream_text(in, 1, count_part)) == 0)
			break;
		if (r < 0)
			continue;
		total += counted;
		hm_buf_addu(&out, counted);
		hm_buf_addc(&out, ' ');
		hm_buf_adds(&out, in->name);
		hm_buf_addc(&out, '\n');
	}
	hm_buf_addu(&out, total);
	hm_buf_adds(&out, " total\n");
}

/* ------------------------------------------------------------ decode */

static int
parse_ids(const char *s, size_t n, hm_ids *ids, const char *file, size_t line)
{
	hm_ids_error err;
	hm_status st = hm_ids_parse(s, n, 0, ids, NULL, &err);

	if (st == HM_ENOMEM) {
		cli_error(file, line, "out of memory");
		exit(CLI_IO);
	}
	if (st != HM_OK) {
		cli_error(file, line, "byte %zu: token %zu: %s", err.col, err.index, err.msg);
		status = CLI_BAD;
		return -1;
	}
	return 0;
}

static void
write_decoded(const hm_ids *ids)
{
	size_t i, n;
	const char *b;

	if (opt.to == F_JSON) {
		hm_buf tmp = { 0 };

		for (i = 0; i < ids->len; i++) {
			b = hm_token_bytes(ids->v[i], &n);
			hm_buf_add(&tmp, b, n);
		}
		hm_buf_json_str(&out, tmp.p ? tmp.p : "", tmp.len);
		hm_buf_free(&tmp);
		return;
	}
	for (i = 0; i < ids->len; i++) {
		b = hm_token_bytes(ids->v[i], &n);
		hm_buf_add(&out, b, n);
		out_maybe();
	}
}

/*
 * decode of the whole input, streamed.  Ids never span lines, and a line
 * shorter than DSEG is parsed whole (a bad id drops the line's output).  A
 * longer line of plain numbers is parsed in segments cut between a
 * separator and a digit, written as they come; a bad id then ends the
 * line's output there.  A line holding a JSON object is read whole.  With
 * --to json the bytes of all lines make one JSON string, also written as
 * it comes.
 */
#define DSEG (1 << 16)

static struct {
	char tail[4];           /* an unfinished UTF-8 sequence */
	size_t ntail;
	int begun;
} js;

/* Append ids' bytes to the one JSON string; last: close it. */
static void
json_text_part(const hm_ids *ids, int last)
{
	static hm_buf tmp;
	size_t i, n, keep = 0, at;

	hm_buf_clear(&tmp);
	hm_buf_add(&tmp, js.tail, js.ntail);
	for (i = 0; ids && i < ids->len; i++) {
		const char *b = hm_token_bytes(ids->v[i], &n);

		hm_buf_add(&tmp, b, n);
	}
	if (tmp.oom)
		cli_oom();
	/* hold back a sequence the next ids may finish */
	if (!last) {
		for (i = tmp.len; i > 0 && i + 4 > tmp.len; i--) {
			unsigned c = (unsigned char)tmp.p[i - 1], need;

			if ((c & 0xC0) == 0x80)
				continue;
			need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
			if (tmp.len - (i - 1) < need)
				keep = tmp.len - (i - 1);
			break;
		}
	}
	js.ntail = keep;
	memcpy(js.tail, tmp.p + tmp.len - keep, keep);
	if (!js.begun)
		hm_buf_addc(&out, '"');
	js.begun = 1;
	/* the escaped text without the quotes hm_buf_json_str puts around it */
	at = out.len;
	hm_buf_json_str(&out, tmp.p ? tmp.p : "", tmp.len - keep);
	memmove(out.p + at, out.p + at + 1, out.len - at - 2);
	out.len -= 2;
	if (last) {
		hm_buf_adds(&out, "\"\n");
		js.begun = 0;
	}
	out_maybe();
}

static struct {
	size_t line;            /* line number */
	size_t col;             /* bytes of the line before the pending part */
	size_t index;           /* ids of the line so far */
	int bad;                /* the line had a bad id: skip the rest */
} dl;

/* Parse and write s[0..n), a part of the current line at dl.col. */
static void
decode_segment(const char *s, size_t n, const char *file)
{
	static hm_ids ids;
	hm_ids_error err;
	hm_status st;

	ids.len = 0;
	st = hm_ids_parse(s, n, 0, &ids, NULL, &err);
	if (st == HM_ENOMEM) {
		cli_error(file, dl.line, "out of memory");
		exit(CLI_IO);
	}
	if (st != HM_OK) {
		cli_error(file, dl.line, "byte %zu: token %zu: %s", dl.col + err.col,
		          dl.index + err.index, err.msg);
		status = CLI_BAD;
		dl.bad = 1;
		return;
	}
	dl.index += ids.len;
	dl.col += n;
	if (opt.to == F_JSON) {
		json_text_part(&ids, 0);
	} else {
		write_decoded(&ids);
		out_maybe();
	}
}

static int
is_idsep(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == ',' ||
	       c == '[' || c == ']';
}

/*
 * The last point q, from <= q < n and q > 0, where a long line of numbers
 * s[0..n) may be cut: after a separator, before a digit; 0 if none.
 */
static size_t
decode_cut(const char *s, size_t n, size_t from)
{
	size_t q;

	for (q = n; q-- > (from ? from : 1);)
		if (s[q] >= '0' && s[q] <= '9' && is_idsep(s[q - 1]))
			return q;
	return 0;
}

static void
run_decode_stream(cli_input *in)
{
	while (cli_input_next_file(in)) {
		/*
		 * The pending text is the unfinished part of the current line:
		 * it has no '\n', and no cut point from 1 up to nocut.
		 */
		size_t got, nocut = 0;

		pend_reset();
		memset(&dl, 0, sizeof dl);
		dl.line = 1;
		do {
			size_t pos = 0, from = pend.len;

			got = pend_read(in);
			for (;;) {
				const char *nl = memchr(pend.p + from, '\n', pend.len - from), *t;
				size_t e = nl ? (size_t)(nl - pend.p) : pend.len, q;

				if (nl || (!got && pos < pend.len)) {
					/* a whole line (or the rest of one) */
					if (!dl.bad)
						decode_segment(pend.p + pos, e - pos, in->name);
					dl.col = dl.index = 0;
					dl.bad = 0;
					dl.line++;
					pos = from = nl ? e + 1 : e;
					nocut = 0;
					continue;
				}
				if (pend.len - pos < DSEG || !got)
					break;
				if (dl.bad) {
					dl.col += pend.len - pos;
					pos = pend.len;
					break;
				}
				for (t = pend.p + pos; t < pend.p + pend.len && is_idsep(*t) && *t != ',' &&
				     *t != '[' && *t != ']'; t++)
					;
				if (t == pend.p + pend.len || *t == '{')
					break;  /* blank so far, or a JSON object: read on */
				q = decode_cut(pend.p + pos, pend.len - pos, nocut);
				nocut = pend.len - pos - q;
				if (q) {
					decode_segment(pend.p + pos, q, in->name);
					pos += q;
				}
				break;
			}
			memmove(pend.p, pend.p + pos, pend.len - pos);
			pend.len -= pos;
		} while (got);
	}
	pend_reset();
	if (opt.to == F_JSON)
		json_text_part(NULL, 1);
}

/* ------------------------------------------------------------ inspect */

#define COL_SPECIAL "\033[1;35m"
#define COL_ESC "\033[2m"
#define COL_BAD "\033[33m"
#define COL_DIM "\033[2m"

int use_color;

void
add_escaped(const char *b, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)b;
	size_t i = 0, k, bad;
	uint32_t cp;

	hm_buf_addc(&out, '"');
	while (i < n) {
		unsigned c = s[i];
		const char *esc = NULL;
		char x[5];

		if (c >= 0x80) {
			k = hm_utf8_decode(s + i, n - i, &cp, &bad);
			if (k) {
				hm_buf_add(&out, s + i, k);
				i += k;
				continue;
			}
		}
		switch (c) {
		case '\n': esc = "\\n"; break;
		case '\t': esc = "\\t"; break;
		case '\r': esc = "\\r"; break;
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		}
		if (!esc && c >= 0x20 && c < 0x7f) {
			hm_buf_addc(&out, (char)c);
			i++;
			continue;
		}
		if (!esc) {
			x[0] = '\\', x[1] = 'x', x[2] = hex[c >> 4], x[3] = hex[c & 15], x[4] = 0;
			esc = x;
		}
		if (use_color)
			hm_buf_adds(&out, c >= 0x80 ? COL_BAD : COL_ESC);
		hm_buf_adds(&out, esc);
		if (use_color)
			hm_buf_adds(&out, COL_OFF);
		i++;
	}
	hm_buf_addc(&out, '"');
}

static void
inspect_row(size_t index, uint32_t id, size_t lineno)
{
	size_t n;
	const char *b = hm_token_bytes(id, &n);
	int special = hm_is_special(id);
	int valid = hm_utf8_valid_prefix(b, n) == n;

	if (opt.to == F_JSON) {
		hm_buf_adds(&out, "{");
		if (lineno) {
			hm_buf_adds(&out, "\"line\":");
			hm_buf_addu(&out, lineno);
			hm_buf_addc(&out, ',');
		}
		hm_buf_adds(&out, "\"index\":");
		hm_buf_addu(&out, index);
		hm_buf_adds(&out, ",\"id\":");
		hm_buf_addu(&out, id);
		hm_buf_adds(&out, special ? ",\"kind\":\"special\"" : ",\"kind\":\"ordinary\"");
		hm_buf_adds(&out, ",\"text\":");
		hm_buf_json_str(&out, b, n);
		hm_buf_adds(&out, ",\"hex\":\"");
		for (size_t i = 0; i < n; i++) {
			static const char hex[] = "0123456789abcdef";
			unsigned char c = (unsigned char)b[i];

			hm_buf_addc(&out, hex[c >> 4]);
			hm_buf_addc(&out, hex[c & 15]);
		}
		hm_buf_adds(&out, valid ? "\",\"utf8\":true}\n" : "\",\"utf8\":false}\n");
		return;
	}
	{
		char head[64];

		snprintf(head, sizeof head, "%6zu %7u %-9s", index, id, special ? "special" : "ordinary");
		hm_buf_adds(&out, head);
	}
	if (special) {
		if (use_color)
			hm_buf_adds(&out, COL_SPECIAL);
		hm_buf_add(&out, b, n);
		if (use_color)
			hm_buf_adds(&out, COL_OFF);
	} else {
		add_escaped(b, n);
	}
	if (!valid)
		hm_buf_adds(&out, use_color ? " " COL_BAD "(not UTF-8 alone)" COL_OFF : " (not UTF-8 alone)");
	hm_buf_addc(&out, '\n');
}

/* --lines form: `id "bytes"` pairs on one line. */
static void
inspect_compact(const hm_ids *ids)
{
	size_t i, n;

	for (i = 0; i < ids->len; i++) {
		const char *b = hm_token_bytes(ids->v[i], &n);

		if (i)
			hm_buf_addc(&out, ' ');
		hm_buf_addu(&out, ids->v[i]);
		hm_buf_addc(&out, ':');
		if (hm_is_special(ids->v[i])) {
			if (use_color)
				hm_buf_adds(&out, COL_SPECIAL);
			hm_buf_add(&out, b, n);
			if (use_color)
				hm_buf_adds(&out, COL_OFF);
		} else {
			add_escaped(b, n);
		}
	}
	hm_buf_addc(&out, '\n');
}

/* Ids of a whole input, line by line so errors name their file and line. */
static int
parse_ids_lines(const char *s, size_t n, hm_ids *ids)
{
	size_t i = 0, line, col;
	const char *file;
	int rc = 0;

	while (i < n) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - s) : n;

		locate(s, i, &file, &line, &col);
		if (parse_ids(s + i, e - i, ids, file, line) < 0)
			rc = -1;
		i = e + 1;
	}
	return rc;
}

/*
 * Text or ids, by --from (auto: by shape).  On failure *what says which
 * kind of input was bad, for the --lines error record.
 */
static int
to_ids(const char *s, size_t n, hm_ids *ids, const char *file, size_t line, const char **what)
{
	enum fmt from = opt.from;

	if (from == F_DEFAULT)
		from = opt.cmd == C_INSPECT ? F_AUTO : F_TEXT;
	if (from == F_AUTO)
		from = hm_ids_detect(s, n) ? F_IDS : F_TEXT;
	if (from == F_IDS) {
		*what = "bad token id";
		return line ? parse_ids(s, n, ids, file, line) : parse_ids_lines(s, n, ids);
	}
	*what = "invalid UTF-8";
	return encode_text(s, n, ids, file, line);
}

/* The --lines stand-in for a bad record: a JSON error object, or an empty line. */
static void
bad_record(const char *what, size_t line)
{
	if (opt.to == F_JSON) {
		hm_buf_adds(&out, "{\"error\":\"");
		hm_buf_adds(&out, what);
		hm_buf_adds(&out, "\",\"line\":");
		hm_buf_addu(&out, line);
		hm_buf_addc(&out, '}');
	}
	hm_buf_addc(&out, '\n');
}

/* ------------------------------------------------------------ per record */

static void
do_record(const char *s, size_t n, const char *file, size_t line)
{
	static hm_ids ids;
	const char *what;

	ids.len = 0;
	switch (opt.cmd) {
	case C_ENCODE:
		if (encode_text(s, n, &ids, file, line) < 0) {
			bad_record("invalid UTF-8", line);
			return;
		}
		write_ids(&ids);
		return;
	case C_DECODE:
		if (parse_ids(s, n, &ids, file, line) < 0) {
			bad_record("bad token id", line);
			return;
		}
		write_decoded(&ids);
		hm_buf_addc(&out, '\n');
		return;
	case C_COUNT:
		if (to_ids(s, n, &ids, file, line, &what) < 0) {
			bad_record(what, line);
			return;
		}
		hm_buf_addu(&out, ids.len);
		hm_buf_addc(&out, '\n');
		return;
	case C_INSPECT:
		if (to_ids(s, n, &ids, file, line, &what) < 0) {
			bad_record(what, line);
			return;
		}
		if (opt.to == F_JSON) {
			hm_buf_addc(&out, '[');
			for (size_t i = 0; i < ids.len; i++) {
				inspect_row(i, ids.v[i], 0);
				out.len--; /* drop the row's newline */
				if (i + 1 < ids.len)
					hm_buf_addc(&out, ',');
			}
			hm_buf_adds(&out, "]\n");
		} else {
			inspect_compact(&ids);
		}
		return;
	case C_SPECIALS:
	case C_DIFF:
		return;
	}
}

static void
run_lines(cli_input *in)
{
	char *line = NULL;
	size_t cap = 0, len;

	while (cli_input_line(in, &line, &cap, &len)) {
		do_record(line, len, in->name, in->line);
		cli_write_buf(&out, 1);
	}
	free(line);
}

/* One text / id list from all of the input. */
static void
run_whole(cli_input *in)
{
	char *buf = NULL;
	size_t len = 0, cap = 0, i;
	hm_ids ids = { 0 };
	const char *what;

	if (opt.cmd == C_DECODE) {
		run_decode_stream(in);
		return;
	}
	if (opt.cmd == C_ENCODE) {
		run_encode_stream(in);
		return;
	}
	if (opt.cmd == C_COUNT && (opt.from == F_DEFAULT || opt.from == F_TEXT)) {
		run_count_stream(in);
		return;
	}
	if (opt.cmd == C_COUNT && in->npaths > 1) {
		size_t total = 0;

		/* one file at a time: errors are located in that file alone */
		if (!(parts = calloc(1, sizeof *parts)))
			cli_oom();
		nparts = 1;
		while (cli_input_next_file(in)) {
			const char *name = in->name;

			parts[0].name = name;
			len = 0;
			if (cli_read_all(in, &buf, &len, &cap) < 0)
				continue;
			ids.len = 0;
			if (to_ids(buf, len, &ids, name, 0, &what) < 0)
				continue;
			total += ids.len;
			hm_buf_addu(&out, ids.len);
			hm_buf_addc(&out, ' ');
			hm_buf_adds(&out, name);
			hm_buf_addc(&out, '\n');
		}
		hm_buf_addu(&out, total);
		hm_buf_adds(&out, " total\n");
		free(buf);
		hm_ids_free(&ids);
		return;
	}

	if (read_whole(in, &buf, &len, &cap) < 0 && !buf) {
		free(buf);
		return;
	}
	{
		const char *name = nparts ? parts[0].name : "-";

		if (opt.cmd == C_ENCODE) {
			if (encode_text(buf ? buf : "", len, &ids, name, 0) == 0)
				write_ids(&ids);
		} else if (to_ids(buf ? buf : "", len, &ids, name, 0, &what) == 0) {
			if (opt.cmd == C_COUNT) {
				hm_buf_addu(&out, ids.len);
				hm_buf_addc(&out, '\n');
			} else {
				for (i = 0; i < ids.len; i++) {
					inspect_row(i, ids.v[i], 0);
					out_maybe();
				}
			}
		}
	}
	free(buf);
	hm_ids_free(&ids);
}

static void
run_specials(void)
{
	const uint32_t *v;
	size_t n, i, k;
	uint32_t id;

	if (opt.stop || opt.stop_actions) {
		n = opt.stop_actions ? hm_stop_tokens_for_actions(&v) : hm_stop_tokens(&v);
		for (i = 0; i < n; i++) {
			const char *b = hm_token_bytes(v[i], &k);

			hm_buf_addu(&out, v[i]);
			hm_buf_addc(&out, ' ');
			hm_buf_add(&out, b, k);
			hm_buf_addc(&out, '\n');
		}
		return;
	}
	for (id = HM_N_ORDINARY; id < HM_N_TOKENS; id++) {
		const char *b = hm_token_bytes(id, &k);

		hm_buf_addu(&out, id);
		hm_buf_addc(&out, ' ');
		hm_buf_add(&out, b, k);
		hm_buf_addc(&out, '\n');
	}
}

static enum fmt
parse_fmt(const char *s, const char *what)
{
	static const struct { const char *name; enum fmt f; } names[] = {
		{ "ids", F_IDS }, { "json", F_JSON }, { "lines", F_LINES },
		{ "text", F_TEXT }, { "table", F_TABLE }, { "auto", F_AUTO },
	};
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(s, names[i].name))
			return names[i].f;
	cli_usage_error("unknown %s format '%s'", what, s);
}

int
main(int argc, char **argv)
{
	enum { O_COLOR = 256, O_CONTEXT, O_FROM, O_KEY, O_LINES, O_LOSSY, O_NO_SPECIAL, O_STOP,
	       O_STOP_ACTIONS, O_TO };
	static const struct option longopts[] = {
		{ "color", required_argument, NULL, O_COLOR },
		{ "context", required_argument, NULL, O_CONTEXT },
		{ "from", required_argument, NULL, O_FROM },
		{ "help", no_argument, NULL, 'h' },
		{ "key", required_argument, NULL, O_KEY },
		{ "lines", no_argument, NULL, O_LINES },
		{ "lossy", no_argument, NULL, O_LOSSY },
		{ "no-special", no_argument, NULL, O_NO_SPECIAL },
		{ "quiet", no_argument, NULL, 'q' },
		{ "stop", no_argument, NULL, O_STOP },
		{ "stop-actions", no_argument, NULL, O_STOP_ACTIONS },
		{ "to", required_argument, NULL, O_TO },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const cmds[] = { "encode", "decode", "inspect", "count", "specials", "diff" };
	cli_input in;
	int c, i, text_cmd, ctx_given = 0;
	char *end;
	long v;

	cli_init("harmony-tokens");
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hqV", longopts, NULL)) != -1) {
		switch (c) {
		case O_COLOR:
			if (cli_parse_color(optarg, &opt.color) < 0)
				cli_usage_error("--color must be auto, always or never, not '%s'", optarg);
			break;
		case O_CONTEXT:
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (!*optarg || *end || errno || v < 0 || v > 1000)
				cli_usage_error("--context must be a number from 0 to 1000, not '%s'", optarg);
			opt.context = (size_t)v;
			ctx_given = 1;
			break;
		case O_FROM:
			opt.from = parse_fmt(optarg, "--from");
			if (opt.from != F_TEXT && opt.from != F_IDS && opt.from != F_AUTO)
				cli_usage_error("--from must be text, ids or auto");
			break;
		case 'h':
			fputs(usage_text, stdout);
			return cli_finish(CLI_OK);
		case O_KEY:
			if (!*optarg)
				cli_usage_error("--key needs a field name");
			opt.key = optarg;
			break;
		case O_LINES: opt.lines = 1; break;
		case O_LOSSY: opt.lossy = 1; break;
		case O_NO_SPECIAL: opt.special = 0; break;
		case 'q': cli_quiet = opt.quiet = 1; break;
		case O_STOP: opt.stop = 1; break;
		case O_STOP_ACTIONS: opt.stop_actions = 1; break;
		case O_TO: opt.to = parse_fmt(optarg, "--to"); break;
		case 'V':
			printf("harmony-tokens %s\n", HM_VERSION);
			return cli_finish(CLI_OK);
		default:
			cli_bad_option(argv, c);
		}
	}
	if (optind >= argc)
		cli_usage_error("missing command (encode, decode, inspect, count, specials, diff)");
	for (i = 0; i < 6 && strcmp(argv[optind], cmds[i]); i++)
		;
	if (i == 6)
		cli_usage_error("unknown command '%s'", argv[optind]);
	opt.cmd = (enum cmd)i;
	optind++;

	switch (opt.cmd) {
	case C_ENCODE:
		if (opt.to == F_DEFAULT)
			opt.to = F_IDS;
		if (opt.to != F_IDS && opt.to != F_JSON && opt.to != F_LINES)
			cli_usage_error("encode --to must be ids, json or lines");
		if (opt.lines && opt.to == F_LINES)
			cli_usage_error("--to lines cannot keep one output line per input line (--lines)");
		break;
	case C_DECODE:
		if (opt.to == F_DEFAULT)
			opt.to = F_TEXT;
		if (opt.to != F_TEXT && opt.to != F_JSON)
			cli_usage_error("decode --to must be text or json");
		break;
	case C_INSPECT:
		if (opt.to == F_DEFAULT)
			opt.to = F_TABLE;
		if (opt.to != F_TABLE && opt.to != F_JSON)
			cli_usage_error("inspect --to must be table or json");
		break;
	case C_DIFF:
		if (opt.to == F_DEFAULT)
			opt.to = F_TEXT;
		if (opt.to != F_TEXT && opt.to != F_JSON)
			cli_usage_error("diff --to must be text or json");
		if (opt.lines)
			cli_usage_error("--lines does not go with diff (it always reads one record a line)");
		break;
	case C_COUNT:
	case C_SPECIALS:
		if (opt.to != F_DEFAULT)
			cli_usage_error("--to does not apply to %s", cmds[opt.cmd]);
		break;
	}
	text_cmd = opt.cmd == C_ENCODE || opt.cmd == C_INSPECT || opt.cmd == C_COUNT;
	if (!opt.special && !text_cmd)
		cli_usage_error("--no-special goes with encode, inspect and count");
	if (opt.lossy && !text_cmd)
		cli_usage_error("--lossy goes with encode, inspect and count");
	if (opt.lines && opt.cmd == C_SPECIALS)
		cli_usage_error("--lines does not go with specials");
	if ((opt.stop || opt.stop_actions) && opt.cmd != C_SPECIALS)
		cli_usage_error("--stop and --stop-actions go with specials");
	if (opt.from != F_DEFAULT && opt.cmd != C_INSPECT && opt.cmd != C_COUNT)
		cli_usage_error("--from goes with inspect and count");
	if ((opt.key || ctx_given) && opt.cmd != C_DIFF)
		cli_usage_error("--key and --context go with diff");
	use_color = cli_use_color(opt.color, stdout);

	if (opt.cmd == C_DIFF) {
		if (argc - optind != 2)
			cli_usage_error("diff needs two files, not %d", argc - optind);
		if (!strcmp(argv[optind], "-") && !strcmp(argv[optind + 1], "-"))
			cli_usage_error("diff can read standard input for one file only");
		return cli_finish(run_diff(argv + optind));
	}

	if (opt.cmd == C_SPECIALS) {
		if (optind < argc)
			cli_usage_error("specials takes no file");
		run_specials();
		cli_write_buf(&out, 0);
		return cli_finish(CLI_OK);
	}
	if (!(enc = hm_encoder_new())) {
		cli_error(NULL, 0, "out of memory");
		return CLI_IO;
	}
	cli_input_init(&in, argv + optind, argc - optind);
	if (opt.lines)
		run_lines(&in);
	else
		run_whole(&in);
	cli_write_buf(&out, 0);
	cli_input_close(&in);
	hm_encoder_free(enc);
	hm_buf_free(&out);
	if (in.failed)
		status = CLI_IO;
	return cli_finish(status);
}
