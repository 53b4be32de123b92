/*
 * input.c - what an input is and where its records begin and end, as
 * harmony-parse reads it when not told: hm_input_detect tells ids, records,
 * text, an SSE stream or nothing from the first bytes; an hm_framer cuts
 * a byte stream into lines, and in records into one record a line or a
 * JSON value over several lines; hm_json_array_next splits an array of
 * objects (a batch of responses) into its objects.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf_int.h"
#include "harmony.h"

/* Blanks as C's isspace in the "C" locale: the library sets no locale. */
static int
blank(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* ---------------------------------------------------------------- detection */

/* Bytes enough to tell: past this much, what has come is taken as all. */
enum { DETECT_MAX = 1 << 20 };

/*
 * Whether the line s[0..n) (n: what has come of it) starts as an SSE
 * line: a field (data:, event:, id:, retry:) or a comment.  -1: too
 * short to tell yet.
 */
static int
sse_start(const char *s, size_t n)
{
	static const char *const fields[] = { "data:", "event:", "id:", "retry:" };
	size_t k, m;

	if (n && s[0] == ':')
		return 1;
	for (k = 0; k < sizeof fields / sizeof fields[0]; k++) {
		m = strlen(fields[k]);
		if (!memcmp(s, fields[k], n < m ? n : m))
			return n < m ? -1 : 1;
	}
	return 0;
}

hm_input
hm_input_detect(const char *s, size_t n, unsigned flags)
{
	int all = (flags & HM_DETECT_END) || n >= DETECT_MAX, digit = 0, sse;
	hm_input ids = flags & HM_DETECT_LINES ? HM_INPUT_RECORDS : HM_INPUT_IDS;
	size_t i = 0, e, k;

	while (i < n && blank((unsigned char)s[i]))
		i++;
	if (flags & HM_DETECT_TEXT)
		return i == n && all ? HM_INPUT_EMPTY : HM_INPUT_TEXT;
	if (i == n)
		return all ? HM_INPUT_EMPTY : HM_INPUT_MORE;
	if (s[i] == '{')
		return HM_INPUT_RECORDS;
	if (flags & HM_DETECT_IDS)
		return s[i] == '[' ? HM_INPUT_RECORDS : ids;
	for (e = i; e < n && s[e] != '\n'; e++)
		;
	if ((sse = sse_start(s + i, e - i)) != 0) {
		if (sse > 0)
			return HM_INPUT_SSE;
		if (!all && e == n)
			return HM_INPUT_MORE;
	}
	for (k = i; k < e; k++) {
		unsigned char ch = (unsigned char)s[k];

		/*
		 * A control byte says nothing of the kind (a NUL in a damaged
		 * id line): a part of a log that begins with such a line is
		 * read as the whole log is.
		 */
		if (ch >= '0' && ch <= '9')
			digit = 1;
		else if (!blank(ch) && ch != ',' && ch != '[' && ch != ']' && ch >= 0x20)
			return HM_INPUT_TEXT;
	}
	if (e == n && !all)
		return HM_INPUT_MORE;
	if (!digit && s[i] != '[')
		return HM_INPUT_TEXT;
	return s[i] == '[' ? HM_INPUT_RECORDS : ids;
}

/* ---------------------------------------------------------------- JSON arrays */

int
hm_json_array_is_objects(const char *s, size_t n)
{
	size_t i = 1;

	while (i < n && blank((unsigned char)s[i]))
		i++;
	return n && s[0] == '[' && i < n && s[i] == '{';
}

int
hm_json_array_next(const char *s, size_t n, size_t *pos, size_t *start, size_t *len,
                   size_t *nl)
{
	size_t i = *pos ? *pos : 1, st = 0;
	int depth = 0, instr = 0, esc = 0;

	for (; i < n; i++) {
		char ch = s[i];

		if (ch == '\n')
			++*nl;
		if (instr) {
			if (esc)
				esc = 0;
			else if (ch == '\\')
				esc = 1;
			else if (ch == '"')
				instr = 0;
		} else if (ch == '"')
			instr = 1;
		else if (ch == '{' || ch == '[') {
			if (!depth++)
				st = i;
		} else if ((ch == '}' || ch == ']') && depth && !--depth) {
			*start = st;
			*len = i + 1 - st;
			*pos = i + 1;
			return 1;
		}
	}
	*pos = n;
	return 0;
}

/* ---------------------------------------------------------------- framing */

struct hm_framer {
	unsigned flags;    /* HM_FRAMER_* */
	const char *in;    /* the bytes fed, not yet cut into lines */
	size_t inlen, off; /* ... their length, and how far they are cut */
	hm_buf part;       /* a line begun in an earlier feed */
	size_t line;       /* the number of the next line, from 1 */
	int end;           /* hm_framer_finish: the last line and an open value come out */
	int ended;         /* ... the last line has come out */
	/* a JSON value over several lines */
	hm_buf val;        /* its text so far */
	int open, depth, instr, esc;
	char top;          /* its first byte: '[' or '{' */
	char first;        /* an array's: the first byte of its first element (0: none yet) */
	size_t vline;      /* the line it begins on */
	size_t lastline;   /* the number of the last line read */
	int redo;          /* the line in part is read again (a value was cut before it) */
	uint64_t blank;    /* blank lines skipped outside a value, from the start */
	/*
	 * The framer's one out-of-memory flag, named by the appends to part
	 * and val: cleared by each hm_framer_next (a buffer that failed sets it
	 * again on its next append), which is -1 when it is set.
	 */
	int nomem;
};

hm_framer *
hm_framer_new(unsigned flags)
{
	hm_framer *f = calloc(1, sizeof *f);

	if (f) {
		f->flags = flags;
		f->line = 1;
	}
	return f;
}

void
hm_framer_free(hm_framer *f)
{
	if (!f)
		return;
	hm_buf_free(&f->part);
	hm_buf_free(&f->val);
	free(f);
}

void
hm_framer_feed(hm_framer *f, const char *buf, size_t len)
{
	f->in = buf;
	f->inlen = len;
	f->off = 0;
}

void
hm_framer_finish(hm_framer *f)
{
	f->end = 1;
}

/* The last character of s[0..n) that is not blank, or 0. */
static char
last_char(const char *s, size_t n)
{
	while (n && blank((unsigned char)s[n - 1]))
		n--;
	return n ? s[n - 1] : 0;
}

/*
 * A line of records, s[0..n) numbered line: 1 with *out when a record
 * ends on it, 0 when none does (a blank line; a JSON value goes on), -1
 * out of memory.  A JSON array or object may run over several lines: it
 * ends where its brackets close (strings skipped), and anything but
 * blanks after it on that line is HM_FRAME_AFTER.
 */
/*
 * An array whole on its line with nothing nested and no string in it
 * (an id array, the common record of a log): found by memchr, which
 * reads many bytes a step, where the bracket scan below takes one.
 */
static int
flat_array(const char *s, size_t n)
{
	size_t m;

	if (s[0] != '[')
		return 0;
	while (n && blank((unsigned char)s[n - 1]))
		n--;
	if (n < 2 || s[n - 1] != ']')
		return 0;
	m = n - 2;
	return !memchr(s + 1, '[', m) && !memchr(s + 1, ']', m) && !memchr(s + 1, '{', m) &&
	    !memchr(s + 1, '"', m);
}

/*
 * Whether the line s[0..n), met while a value is open, begins a new
 * record, so that the open value was cut (a writer killed mid-line, the
 * commonest damage of a log) and is an error of its own.  Two signs:
 *   - the value is inside a string at a line break, which JSON does not
 *     allow: whatever the line is, it is read afresh;
 *   - the line begins, in its first column, with '{' or '['.  A value
 *     spread over lines (jq ., json.dumps with an indent) indents what it
 *     nests, so only a record begins there; the one exception is an
 *     object as the next element of an array of objects at its first
 *     level (a batch of responses written an object a line).
 */
static int
cuts_open(const hm_framer *f, const char *s, size_t n)
{
	if (f->instr)
		return 1;
	if (!n || (s[0] != '{' && s[0] != '['))
		return 0;
	return !(f->top == '[' && f->depth == 1 && s[0] == '{' &&
	    (!f->first || f->first == '{'));
}

/*
 * Line s[0..n) (line number line): 1 with a frame in out, 0 when it makes
 * none yet, -1 out of memory (f->nomem set), 2 with the open value in
 * out as HM_FRAME_OPEN when this line begins a new record (the line is
 * not read: the caller gives it again).
 */
static int
record_line(hm_framer *f, const char *s, size_t n, size_t line, hm_frame *out)
{
	size_t i = 0, k, end = 0;

	memset(out, 0, sizeof *out);
	out->line = out->last = line;
	f->lastline = line;
	if (f->flags & HM_FRAMER_TEXT) {
		out->type = HM_FRAME_LINE;
		out->p = s;
		out->len = n;
		return 1;
	}
	if (f->open && cuts_open(f, s, n)) {
		f->open = 0;
		out->type = HM_FRAME_OPEN;
		out->line = f->vline;
		out->last = line - 1;
		out->p = f->val.p;
		out->len = f->val.len;
		out->rest = s;
		out->rest_len = n;
		return 2;
	}
	if (!f->open) {
		while (i < n && blank((unsigned char)s[i]))
			i++;
		if (i == n) {
			f->blank++;
			return 0;
		}
		if (s[i] != '[' && s[i] != '{') {
			out->type = HM_FRAME_LINE;
			out->p = s;
			out->len = n;
			return 1;
		}
		/* One object on its line ends there (jq . spreads one over lines). */
		if ((s[i] == '{' && last_char(s + i, n - i) == '}') ||
		    (hm_json_array_is_objects(s + i, n - i) && last_char(s + i, n - i) == ']') ||
		    flat_array(s + i, n - i)) {
			out->type = HM_FRAME_JSON;
			out->p = s + i;
			out->len = n - i;
			return 1;
		}
		f->open = 1;
		f->depth = f->instr = f->esc = 0;
		f->top = s[i];
		f->first = 0;
		f->vline = line;
		hm_buf_reset(&f->val);
	}
	for (k = i; k < n && !end; k++) {
		char ch = s[k];

		if (f->instr) {
			if (f->esc)
				f->esc = 0;
			else if (ch == '\\')
				f->esc = 1;
			else if (ch == '"')
				f->instr = 0;
		} else {
			if (f->depth == 1 && !f->first && !blank((unsigned char)ch))
				f->first = ch;
			if (ch == '"')
				f->instr = 1;
			else if (ch == '[' || ch == '{')
				f->depth++;
			else if ((ch == ']' || ch == '}') && !--f->depth)
				end = k + 1;
		}
	}
	if (!end) {
		hm__add(&f->nomem, &f->val, s + i, n - i);
		hm__putc(&f->nomem, &f->val, '\n');
		return f->nomem ? -1 : 0;
	}
	f->open = 0;
	out->line = f->vline;
	/* A value whole on its line is read in place. */
	if (!f->val.len && i < end) {
		out->p = s + i;
		out->len = end - i;
	} else {
		hm__add(&f->nomem, &f->val, s + i, end - i);
		if (f->nomem)
			return -1;
		out->p = f->val.p;
		out->len = f->val.len;
	}
	for (k = end; k < n && blank((unsigned char)s[k]); k++)
		;
	out->type = k < n ? HM_FRAME_AFTER : HM_FRAME_JSON;
	out->rest = s + k;
	out->rest_len = n - k;
	return 1;
}

int
hm_framer_next(hm_framer *f, hm_frame *out)
{
	f->nomem = 0;
	for (;;) {
		const char *nl;
		size_t line;
		int r;

		/* A line a cut value stood before, held whole in part. */
		if (f->redo) {
			f->redo = 0;
			line = f->line++;
			r = record_line(f, f->part.p, f->part.len, line, out);
			f->part.len = 0;
			if (r)
				return r;
			continue;
		}
		if (f->off < f->inlen) {
			nl = memchr(f->in + f->off, '\n', f->inlen - f->off);
			if (!nl) {
				hm__add(&f->nomem, &f->part, f->in + f->off, f->inlen - f->off);
				f->off = f->inlen;
				if (f->nomem)
					return -1;
				continue;
			}
			line = f->line++;
			/* A line whole in this feed is read in place. */
			if (!f->part.len) {
				r = record_line(f, f->in + f->off, (size_t)(nl - f->in) - f->off, line, out);
				if (r == 2) {
					/* the line is read again, in place, on the next call */
					f->line--;
					return 1;
				}
			} else {
				hm__add(&f->nomem, &f->part, f->in + f->off, (size_t)(nl - f->in) - f->off);
				if (f->nomem)
					return -1;
				r = record_line(f, f->part.p, f->part.len, line, out);
				if (r == 2) {
					f->line--;
					f->redo = 1;
					f->off = (size_t)(nl - f->in) + 1;
					return 1;
				}
				/* out may point into part: emptied on the next call */
				f->part.len = 0;
			}
			f->off = (size_t)(nl - f->in) + 1;
			if (r)
				return r;
			continue;
		}
		if (!f->end)
			return 0;
		if (!f->ended) {
			f->ended = 1;
			if (f->part.len) {
				r = record_line(f, f->part.p, f->part.len, f->line, out);
				if (r == 2) {
					f->ended = 0; /* the last line, read again */
					return 1;
				}
				f->part.len = 0;
				if (r)
					return r;
			}
		}
		f->end = f->ended = 0;
		f->line = 1;
		hm_buf_reset(&f->part);
		if (f->open) {
			f->open = 0;
			memset(out, 0, sizeof *out);
			out->type = HM_FRAME_OPEN;
			out->line = f->vline;
			out->last = f->lastline;
			out->p = f->val.p;
			out->len = f->val.len;
			return 1;
		}
		return 0;
	}
}

uint64_t
hm_framer_blank_lines(const hm_framer *f)
{
	return f->blank;
}
