/*
 * ids_scan.c - the one reader of id lists (hm_idscan): decimal numbers
 * separated by blanks or single commas, in pieces of any size, or (with
 * HM_IDS_ARRAY) one JSON array holding them.  Every tool reads ids
 * through it, so a list is bad for all of them alike: a doubled comma,
 * a nested, stray or unterminated bracket, an id above 2^32-1 (or the
 * vocabulary, without HM_IDS_ANY).  Numbers of 1 to 7 digits are read a
 * word (8 bytes) at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "records_int.h"

/*
 * Byte classes: a separator (blank or newline), a digit; what may end an
 * id outside an array (a separator or a comma).
 */
enum { C_SEP = 1, C_NL = 2, C_DIGIT = 4, C_END = 8 };

/* The word-at-a-time loop is made once for each kind of list. */
#ifdef __GNUC__
#define HM_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define HM_ALWAYS_INLINE inline
#endif

/* Read-only, shared by every thread. */
static const unsigned char cls[256] = {
	['0'] = C_DIGIT, ['1'] = C_DIGIT, ['2'] = C_DIGIT, ['3'] = C_DIGIT, ['4'] = C_DIGIT,
	['5'] = C_DIGIT, ['6'] = C_DIGIT, ['7'] = C_DIGIT, ['8'] = C_DIGIT, ['9'] = C_DIGIT,
	[' '] = C_SEP | C_END, ['\t'] = C_SEP | C_END, ['\r'] = C_SEP | C_END,
	['\f'] = C_SEP | C_END, ['\v'] = C_SEP | C_END, ['\n'] = C_SEP | C_NL | C_END,
	[','] = C_END,
};

/* What the reader expects next. */
enum { X_START, X_ID, X_AFTER_ID, X_AFTER_COMMA, X_CLOSED };

struct hm_idscan {
	unsigned flags;
	uint64_t max;      /* the largest id taken */
	int state;         /* X_* */
	int in_array;      /* inside the array's brackets */
	int indigit;       /* a number is being read (val) */
	uint64_t val;
	int bad;           /* a bad word is being read (word) */
	char word[28];     /* the bad word's first bytes, for the message */
	size_t wlen;
	const char *why;   /* what is wrong with it; NULL: not a token id */
	size_t words;      /* words (ids, good or bad) so far */
	size_t line;       /* line of the next byte, from 1 */
	uint64_t pos;      /* bytes read */
	uint64_t linepos;  /* ... before the current line */
	uint64_t wpos;     /* where the current word began */
	size_t wline;
	uint64_t wlinepos;
};

hm_idscan *
hm_idscan_new(unsigned flags)
{
	hm_idscan *s = calloc(1, sizeof *s);

	if (s) {
		s->flags = flags;
		s->max = flags & HM_IDS_ANY ? UINT32_MAX : HM_N_TOKENS - 1;
		hm_idscan_reset(s);
	}
	return s;
}

void
hm_idscan_free(hm_idscan *s)
{
	free(s);
}

void
hm_idscan_reset(hm_idscan *s)
{
	unsigned flags = s->flags;
	uint64_t max = s->max;

	memset(s, 0, sizeof *s);
	s->flags = flags;
	s->max = max;
	s->line = 1;
}

size_t
hm_idscan_count(const hm_idscan *s)
{
	return s->words;
}

/* index: the id the fault is about, or (size_t)-1 (the list's punctuation) */
static hm_status
fail(hm_error *err, size_t index, uint64_t at, size_t line, uint64_t linepos,
    const char *msg)
{
	if (err) {
		err->col = (size_t)(at - linepos + 1);
		err->index = index;
		err->line = line;
		snprintf(err->msg, sizeof err->msg, "%s", msg);
	}
	return HM_EINPUT;
}

/* An error about the single byte at s->pos (not yet counted). */
static hm_status
fail_here(hm_idscan *s, hm_error *err, const char *msg)
{
	return fail(err, (size_t)-1, s->pos, s->line, s->linepos, msg);
}

static hm_status
push(hm_ids *out, uint32_t v)
{
	if (out->len < out->cap) {
		out->v[out->len++] = v;
		return HM_OK;
	}
	return hm_ids_push(out, v);
}

/* The number or bad word being read has ended: take it or say why not. */
static hm_status
word_end(hm_idscan *s, hm_ids *out, hm_error *err)
{
	char msg[96];
	hm_status st = HM_OK;

	if (s->bad) {
		if (s->why)
			snprintf(msg, sizeof msg, "%s: '%.*s'", s->why, (int)s->wlen, s->word);
		else
			snprintf(msg, sizeof msg, "not a token id: '%.*s'", (int)s->wlen, s->word);
		st = fail(err, s->why ? (size_t)-1 : s->words, s->wpos, s->wline, s->wlinepos, msg);
	} else if (s->val > s->max) {
		snprintf(msg, sizeof msg, "id %.*s out of range (max %llu)", (int)s->wlen,
		    s->word, (unsigned long long)s->max);
		st = fail(err, s->words, s->wpos, s->wline, s->wlinepos, msg);
	} else
		st = push(out, (uint32_t)s->val);
	s->words++;
	s->indigit = s->bad = 0;
	s->why = NULL;
	s->val = 0;
	s->wlen = 0;
	s->state = X_AFTER_ID;
	return st;
}

static void
word_start(hm_idscan *s)
{
	s->wpos = s->pos;
	s->wline = s->line;
	s->wlinepos = s->linepos;
	s->wlen = 0;
}

static void
word_add(hm_idscan *s, char c)
{
	if (s->wlen < 24)
		s->word[s->wlen++] = c;
}

/* One byte the fast path did not take. */
static hm_status
byte(hm_idscan *s, unsigned char c, hm_error *err)
{
	int array = s->flags & HM_IDS_ARRAY;

	if ((cls[c] & C_DIGIT) && !s->bad) {
		if (!s->indigit) {
			if (s->state == X_CLOSED) {
				s->bad = 1;
				s->why = "text after the JSON array";
				word_start(s);
				return HM_OK;
			}
			if (array && s->in_array && s->state == X_AFTER_ID)
				return fail_here(s, err, "expected ',' or ']' between ids");
			word_start(s);
			s->indigit = 1;
		} else if (s->wlen == 1 && s->word[0] == '0') {
			/* A leading zero: no id (one spelling in every reader). */
			s->indigit = 0;
			s->bad = 1;
			word_add(s, (char)c);
			return HM_OK;
		}
		word_add(s, (char)c);
		s->val = s->val * 10 + (c - '0');
		if (s->val > UINT32_MAX)
			s->val = (uint64_t)UINT32_MAX + 1;
		return HM_OK;
	}
	if (cls[c] & C_SEP || c == ',' || c == '[' || c == ']') {
		/* hm_idscan_feed has ended the word before this byte */
		if (cls[c] & C_SEP)
			return HM_OK;
		if (c == ',') {
			if (s->state == X_AFTER_COMMA)
				return fail_here(s, err, "doubled comma: no id between two commas");
			if (s->state == X_CLOSED)
				return fail_here(s, err, "text after the JSON array: ','");
			if (array && s->in_array && s->state != X_AFTER_ID)
				return fail_here(s, err, "comma before the first id of the array");
			s->state = X_AFTER_COMMA;
			return HM_OK;
		}
		if (!array)
			return fail_here(s, err, c == '[' ? "stray '[': ids here are not in an array" :
			    "stray ']': ids here are not in an array");
		if (c == '[') {
			if (s->in_array)
				return fail_here(s, err, "nested array: ids are one flat list");
			if (s->state != X_START)
				return fail_here(s, err, s->state == X_CLOSED ?
				    "text after the JSON array: '['" : "stray '[' after ids");
			s->in_array = 1;
			s->state = X_ID;
			return HM_OK;
		}
		if (!s->in_array)
			return fail_here(s, err, "stray ']' with no '[' open");
		if (s->state == X_AFTER_COMMA)
			return fail_here(s, err, "comma before ']'");
		s->in_array = 0;
		s->state = X_CLOSED;
		return HM_OK;
	}
	/* anything else: a bad word, up to the next separator */
	if (!s->bad) {
		if (!s->indigit)
			word_start(s);
		s->bad = 1;
		if (s->state == X_CLOSED)
			s->why = "text after the JSON array";
	}
	s->indigit = 0;
	word_add(s, (char)c);
	return HM_OK;
}

/*
 * The common case at full speed: between words, ids of 1 to 7 digits
 * (read a word at a time) each followed by a separator, blanks, newlines
 * and single commas.  The state lives in locals here (the stores into
 * out cannot touch it); at the first byte that needs more (a bracket, a
 * longer or bad word, the last 7 bytes of buf) the loop stops and
 * hm_idscan_feed goes on byte by byte.  arr: inside the JSON array (a
 * constant in each caller).  Returns the bytes taken; *nomem set when an id
 * could not be stored (it is not taken).
 */
static HM_ALWAYS_INLINE size_t
fast_loop(hm_idscan *s, const unsigned char *u, size_t len, hm_ids *out, int *nomem,
    const int arr)
{
	const unsigned char *p = u, *end = u + len;
	/* Before lim, a word can be read. */
	const unsigned char *lim = len >= 8 ? end - 7 : u, *nl = NULL;
	uint32_t *v = out->v, max = (uint32_t)s->max;
	size_t olen = out->len, cap = out->cap, olen0 = olen, line = s->line;
	int state = s->state;

	while (p < end) {
		unsigned c, k;
		uint64_t a, nz;
		uint32_t id;

		/*
		 * A run of ids, each followed by a blank, most often one space,
		 * while a word can be read; a digit past lim is the slow path's.
		 */
		while (p < lim) {
			/* hm_lead_digits and hm_digits_value, sharing x - '0'. */
			a = hm_le64(p) - HM_ONES * '0';
			if (!(nz = hm_nondigits(a)))
				goto out;
			if (!(k = hm_low_byte(nz)))
				break;
			if (arr && state == X_AFTER_ID)
				goto out;
			/* A leading zero (a's low byte 0, rare): the slow path's error. */
			if (!(a & 0xFF) && k > 1)
				goto out;
			c = p[k];
			if (c != ' ' && !(cls[c] & C_END) && !(arr && c == ']'))
				goto out;
			if ((id = hm_digits_less0(a, k)) > max)
				goto out;
			if (olen == cap) {
				out->len = olen;
				if (hm_ids_push(out, id) != HM_OK) {
					*nomem = 1;
					goto out;
				}
				v = out->v;
				olen = out->len;
				cap = out->cap;
			} else
				v[olen++] = id;
			state = X_AFTER_ID;
			/* A space after it needs nothing more. */
			p += k;
			if (c != ' ')
				break;
			p++;
		}
		if (p >= end)
			break;
		c = *p;
		if (c == '\n') {
			line++;
			nl = ++p;
			continue;
		}
		if (cls[c] & C_SEP) {
			p++;
			continue;
		}
		if (c == ',' && state == X_AFTER_ID) {
			state = X_AFTER_COMMA;
			p++;
			continue;
		}
		break;
	}
out:
	out->len = olen;
	s->words += olen - olen0; /* every id taken went in */
	s->state = state;
	if (nl) {
		s->line = line;
		s->linepos = s->pos + (size_t)(nl - u);
	}
	s->pos += (size_t)(p - u);
	return (size_t)(p - u);
}

static size_t
feed_fast(hm_idscan *s, const unsigned char *u, size_t len, hm_ids *out, int *nomem)
{
	if ((s->flags & HM_IDS_ARRAY) && s->in_array)
		return fast_loop(s, u, len, out, nomem, 1);
	return fast_loop(s, u, len, out, nomem, 0);
}

hm_status
hm_idscan_feed(hm_idscan *s, const char *buf, size_t len, hm_ids *out, size_t *used,
    hm_error *err)
{
	const unsigned char *u = (const unsigned char *)buf;
	size_t i = 0;
	hm_status st = HM_OK;
	int nomem = 0; /* an id could not be stored */
	unsigned char c;

	while (i < len) {
		if (!s->indigit && !s->bad && s->state != X_CLOSED) {
			i += feed_fast(s, u + i, len - i, out, &nomem);
			if (nomem) {
				st = HM_ENOMEM;
				break;
			}
			if (i == len)
				break;
		}
		c = u[i];
		if ((s->indigit || s->bad) && (cls[c] & C_SEP || c == ',' || c == '[' || c == ']') &&
		    (st = word_end(s, out, err)) != HM_OK)
			break; /* the byte after the word is read on the next call */
		st = byte(s, c, err);
		i++;
		s->pos++;
		if (cls[c] & C_NL) {
			s->line++;
			s->linepos = s->pos;
		}
		if (st != HM_OK)
			break;
	}
	*used = i;
	return st;
}

hm_status
hm_idscan_end(hm_idscan *s, hm_ids *out, hm_error *err)
{
	hm_status st = HM_OK;

	if (s->indigit || s->bad)
		st = word_end(s, out, err);
	if (st == HM_OK && s->in_array) {
		s->in_array = 0;
		st = fail_here(s, err, "unterminated JSON array: no ']'");
	}
	return st;
}
