/*
 * tokens_decode.c - harmony-tokens decode: ids to the exact bytes, as raw
 * text or one JSON string, the whole input streamed line by line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tokens.h"

/*
 * A record's members not read are ignored here, but one given twice is
 * said, as harmony-parse says it of the members it carries: the record
 * reader looks again at an object's line (rare beside id lines).
 */
void
record_dup_warn(struct tokens_ctx *tk, const char *s, size_t n, const char *file, size_t line)
{
	const char *d;
	size_t i = 0, dl;

	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
		i++;
	if (tk->opt.quiet || i == n || s[i] != '{')
		return;
	if (!tk->rec && !(tk->rec = hm_record_new()))
		cli_oom();
	switch (hm_record_read(tk->rec, s + i, n - i, 0, NULL)) {
	case HM_OK:
		break;
	case HM_ENOMEM:
		cli_oom();
		return;
	default:
		return;
	}
	if ((d = hm_record_duplicate(tk->rec, &dl)))
		cli_warn(file, line, "duplicate key \"%.*s\" (each value carried as given: which "
		    "is meant cannot be told)", (int)(dl > 64 ? 64 : dl), d);
}

int
parse_ids(struct tokens_ctx *tk, const char *s, size_t n, hm_ids *ids, const char *file, size_t line)
{
	hm_error err;
	hm_status st = hm_ids_parse(s, n, 0, ids, NULL, &err);

	if (st == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK) {
		cli_ids_error(file, line, 0, 0, &err);
		tk->status = CLI_BAD;
		return -1;
	}
	record_dup_warn(tk, s, n, file, line);
	return 0;
}

void
write_decoded(struct tokens_ctx *tk, const hm_ids *ids)
{
	size_t i, n;
	const char *b;

	if (tk->opt.to == F_JSON) {
		hm_buf tmp = { 0 };

		for (i = 0; i < ids->len; i++) {
			b = hm_token_bytes(ids->v[i], &n);
			hm_buf_add(&tmp, b, n);
		}
		hm_buf_json_str(&tk->out, tmp.p ? tmp.p : "", tmp.len);
		hm_buf_free(&tmp);
		return;
	}
	for (i = 0; i < ids->len; i++) {
		b = hm_token_bytes(ids->v[i], &n);
		hm_buf_add(&tk->out, b, n);
		out_maybe(tk);
	}
}

/*
 * decode reads its lines through a pending buffer: blocks of the input
 * appended to the unfinished part of the current line.
 */
#define CHUNK (1 << 20)

/* Append a block of in->f; 0 at its end (a read error is reported). */
static size_t
pend_read(struct tokens_dec *de, cli_input *in)
{
	size_t got;

	if (de->pend.cap - de->pend.len < BLOCK + 1) {
		de->pend.cap = de->pend.cap ? 2 * de->pend.cap : CHUNK + 2 * BLOCK;
		de->pend.p = cli_realloc(de->pend.p, de->pend.cap);
	}
	got = fread(de->pend.p + de->pend.len, 1, BLOCK, in->f);
	de->pend.len += got;
	if (got == 0 && ferror(in->f)) {
		cli_error(in->name, 0, "read error: %s", strerror(errno));
		in->failed = 1;
	}
	return got;
}

static void
pend_reset(struct tokens_dec *de)
{
	de->pend.len = 0;
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

/* Append ids' bytes to the one JSON string; last: close it. */
static void
json_text_part(struct tokens_ctx *tk, const hm_ids *ids, int last)
{
	struct tokens_dec *de = &tk->de;
	hm_buf *tmp = &de->js.tmp;
	size_t i, n, keep = 0, at;

	hm_buf_reset(tmp);
	hm_buf_add(tmp, de->js.tail, de->js.ntail);
	for (i = 0; ids && i < ids->len; i++) {
		const char *b = hm_token_bytes(ids->v[i], &n);

		hm_buf_add(tmp, b, n);
	}
	if (tmp->oom)
		cli_oom();
	/* hold back a sequence the next ids may finish */
	if (!last) {
		for (i = tmp->len; i > 0 && i + 4 > tmp->len; i--) {
			unsigned c = (unsigned char)tmp->p[i - 1], need;

			if ((c & 0xC0) == 0x80)
				continue;
			need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
			if (tmp->len - (i - 1) < need)
				keep = tmp->len - (i - 1);
			break;
		}
	}
	de->js.ntail = keep;
	memcpy(de->js.tail, tmp->p + tmp->len - keep, keep);
	if (!de->js.begun)
		hm_buf_addc(&tk->out, '"');
	de->js.begun = 1;
	/* the escaped text without the quotes hm_buf_json_str puts around it */
	at = tk->out.len;
	hm_buf_json_str(&tk->out, tmp->p ? tmp->p : "", tmp->len - keep);
	memmove(tk->out.p + at, tk->out.p + at + 1, tk->out.len - at - 2);
	tk->out.len -= 2;
	if (last) {
		hm_buf_adds(&tk->out, "\"\n");
		de->js.begun = 0;
	}
	out_maybe(tk);
}

/*
 * Parse and write s[0..n), a part of the current line at de->dl.col (last:
 * its end).  The parts of a line cut in parts go through one id reader,
 * which knows what brackets are open.
 */
static void
decode_segment(struct tokens_ctx *tk, const char *s, size_t n, const char *file,
               int last)
{
	struct tokens_dec *de = &tk->de;
	hm_ids *ids = &de->ids;
	hm_error err;
	hm_status st;
	size_t used;

	ids->len = 0;
	if (!de->dl.col && last) {
		st = hm_ids_parse(s, n, 0, ids, NULL, &err);
		if (st == HM_OK)
			record_dup_warn(tk, s, n, file, de->dl.line);
	} else {
		if (!de->sc && !(de->sc = hm_idscan_new(HM_IDS_ARRAY)))
			cli_oom();
		if (!de->dl.col)
			hm_idscan_reset(de->sc);
		st = hm_idscan_feed(de->sc, s, n, ids, &used, &err);
		if (st == HM_OK && last)
			st = hm_idscan_end(de->sc, ids, &err);
		/* its place counts from the line's start */
		if (st == HM_EINPUT) {
			err.col -= de->dl.col;
			if (err.index != (size_t)-1)
				err.index -= de->dl.index;
		}
	}
	if (st == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK) {
		cli_ids_error(file, de->dl.line, de->dl.col, de->dl.index, &err);
		tk->status = CLI_BAD;
		de->dl.bad = 1;
		de->nbad++;
		return;
	}
	de->dl.index += ids->len;
	de->dl.col += n;
	if (tk->opt.cmd == C_COUNT) {
		de->seen += ids->len;
	} else if (tk->opt.cmd == C_INSPECT) {
		size_t i;

		for (i = 0; i < ids->len; i++) {
			inspect_row(tk, (size_t)de->seen++, ids->v[i], 0);
			out_maybe(tk);
		}
	} else if (tk->opt.to == F_JSON) {
		json_text_part(tk, ids, 0);
	} else {
		write_decoded(tk, ids);
		out_maybe(tk);
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

/*
 * The ids of the file in->f, line by line, to decode_segment; pre: its
 * first block is in de->pend already (read to tell what the input is).
 */
static void
stream_file(struct tokens_ctx *tk, cli_input *in, int pre)
{
	struct tokens_dec *de = &tk->de;

	{
		/*
		 * The pending text is the unfinished part of the current line:
		 * it has no '\n', and no cut point from 1 up to nocut (but a
		 * block read before, looked at from its start).
		 */
		size_t got, nocut = 0;

		if (!pre)
			pend_reset(de);
		memset(&de->dl, 0, sizeof de->dl);
		de->dl.line = 1;
		do {
			size_t pos = 0, from = pre ? 0 : de->pend.len;

			pre = 0;

			got = pend_read(de, in);
			for (;;) {
				const char *nl = memchr(de->pend.p + from, '\n', de->pend.len - from), *t;
				size_t e = nl ? (size_t)(nl - de->pend.p) : de->pend.len, q;

				if (nl || (!got && pos < de->pend.len)) {
					/* a whole line (or the rest of one) */
					if (!de->dl.bad)
						decode_segment(tk, de->pend.p + pos, e - pos, in->name, 1);
					de->dl.col = de->dl.index = 0;
					de->dl.bad = 0;
					de->dl.line++;
					pos = from = nl ? e + 1 : e;
					nocut = 0;
					continue;
				}
				if (de->pend.len - pos < DSEG || !got)
					break;
				if (de->dl.bad) {
					de->dl.col += de->pend.len - pos;
					pos = de->pend.len;
					break;
				}
				for (t = de->pend.p + pos; t < de->pend.p + de->pend.len && is_idsep(*t) && *t != ',' &&
				     *t != '[' && *t != ']'; t++)
					;
				if (t == de->pend.p + de->pend.len || *t == '{')
					break;  /* blank so far, or a JSON object: read on */
				q = decode_cut(de->pend.p + pos, de->pend.len - pos, nocut);
				nocut = de->pend.len - pos - q;
				if (q) {
					decode_segment(tk, de->pend.p + pos, q, in->name, 0);
					pos += q;
				}
				break;
			}
			memmove(de->pend.p, de->pend.p + pos, de->pend.len - pos);
			de->pend.len -= pos;
		} while (got);
	}
}

void
run_decode_stream(struct tokens_ctx *tk, cli_input *in)
{
	while (cli_input_next_file(in))
		stream_file(tk, in, 0);
	pend_reset(&tk->de);
	if (tk->opt.to == F_JSON)
		json_text_part(tk, NULL, 1);
}

/*
 * count --from ids: one total when every line was read (as when the input
 * was read whole), or with several files a line each for the files read
 * whole and their total; inspect --from ids: the rows as they come.
 */
/* run_ids_stream; pre: the first file is open, its first block in de->pend. */
static void
ids_stream(struct tokens_ctx *tk, cli_input *in, int pre)
{
	struct tokens_dec *de = &tk->de;
	uint64_t total = 0;
	int many = in->npaths > 1;

	while (pre || cli_input_next_file(in)) {
		uint64_t seen = de->seen;
		size_t nbad = de->nbad;

		stream_file(tk, in, pre);
		pre = 0;
		if (tk->opt.cmd != C_COUNT || !many)
			continue;
		if (de->nbad == nbad) {
			total += de->seen - seen;
			hm_buf_addu(&tk->out, de->seen - seen);
			hm_buf_addc(&tk->out, ' ');
			hm_buf_adds(&tk->out, in->name);
			hm_buf_addc(&tk->out, '\n');
		}
	}
	pend_reset(de);
	if (tk->opt.cmd != C_COUNT)
		return;
	if (many) {
		hm_buf_addu(&tk->out, total);
		hm_buf_adds(&tk->out, " total\n");
	} else if (!de->nbad && !in->failed) {
		hm_buf_addu(&tk->out, de->seen);
		hm_buf_addc(&tk->out, '\n');
	}
}

void
run_ids_stream(struct tokens_ctx *tk, cli_input *in)
{
	ids_stream(tk, in, 0);
}

int
run_auto_stream(struct tokens_ctx *tk, cli_input *in, char **buf, size_t *len, size_t *cap)
{
	struct tokens_dec *de = &tk->de;
	size_t got, n;

	*len = 0;
	if (!cli_input_next_file(in))
		return -1;
	pend_reset(de);
	got = pend_read(de, in);
	/*
	 * A block (all of the input but when it is larger) tells: its whole
	 * lines, or the start of its one line.  Ids stream as --from ids
	 * does; what fits in a block, or is text, is read whole as before.
	 */
	for (n = de->pend.len; n && de->pend.p[n - 1] != '\n'; n--)
		;
	if (n)
		n--; /* up to the last line end */
	else
		n = de->pend.len;
	if (got == BLOCK && !in->failed && hm_ids_detect(de->pend.p, n)) {
		ids_stream(tk, in, 1);
		return 1;
	}
	if (*cap < de->pend.len + 1) {
		*cap = de->pend.len + 1;
		*buf = cli_realloc(*buf, *cap);
	}
	memcpy(*buf, de->pend.p, de->pend.len);
	*len = de->pend.len;
	pend_reset(de);
	return 0;
}

void
decode_free(struct tokens_ctx *tk)
{
	free(tk->de.pend.p);
	hm_buf_free(&tk->de.js.tmp);
	hm_ids_free(&tk->de.ids);
	hm_idscan_free(tk->de.sc);
	hm_record_free(tk->rec);
	tk->rec = NULL;
}
