/*
 * parser.c - the streaming Harmony parser: ids or text in, events out.
 *
 * One state machine serves both modes.  Strict mode follows the reference
 * StreamableParser step by step (harmony-format.md §4); the default mode
 * shares its header grammar, so a well-formed stream parses identically,
 * and adds the recoveries documented in harmony-parse(1).
 *
 * Input is processed lazily: hm_parser_next steps one unit (a token, or in
 * text mode a run of ordinary bytes or one special token) at a time until an
 * event is queued.  Event texts live in an arena that is emptied when the
 * queue has been drained, so memory is bounded by one unit's events plus the
 * current header and UTF-8 tail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf_int.h"
#include "parser_int.h"
#include "pretok_int.h"
#include "vocab_int.h"

enum { S_START, S_HEADER, S_CONTENT, S_SKIP, S_DONE, S_PEEK };
enum { R_NONE = -1, R_AUTO = -2 };
enum { F_NAME, F_RCPT, F_CHAN, F_CTYPE, F_TEXT, F_N };

/* Text input is taken at most this many bytes at a time. */
#define TEXT_UNIT_MAX 8192

/* Default mode: a header longer than this is taken for text. */
#define HDR_MAX_BYTES 65536
/* ... and so is one with this many words (the reference accepts at most 4). */
#define HDR_MAX_WORDS 7

static const char *const role_names[] = {
	"user", "assistant", "system", "developer", "tool",
};
#define ROLE_ASSISTANT 1
#define ROLE_TOOL 4

struct qev {
	hm_event_type type;
	uint64_t at;
	int role;
	size_t off[F_N], len[F_N];
	unsigned char has[F_N];
	hm_stop stop;
	int code, truncated;
};

/* A parsed header: offsets into hp->hs. */
struct hdr {
	int role;
	size_t off[4], len[4];
	unsigned char has[4];
};

struct hm_parser {
	unsigned flags;
	int strict;
	int role0;     /* the role given at creation (R_AUTO, R_NONE, 0..4) */
	int next_role; /* role for the first header, R_NONE once used */
	int state;
	int first;     /* no unit seen yet */
	uint64_t pos;  /* index of the current unit */

	/* header */
	hm_buf hdr;
	uint64_t hdr_at;
	int hdr_bad;      /* strict: an unknown id in the header */
	size_t hdr_words; /* ASCII-whitespace separated words so far */
	size_t hdr_wmax;  /* taken for text at this many words */
	size_t hdr_wofs[24]; /* where word HDR_MAX_WORDS << k began */
	int hdr_inword;
	int first_msg;    /* the header is the stream's first */
	int started;      /* a header has begun */

	/* the current message */
	hm_buf m;         /* name, recipient, channel, content type */
	struct hdr mh;
	int in_msg;
	hm_buf pend;      /* undecoded content bytes */
	int poisoned;     /* strict: an unknown id in this content */
	int trunc;        /* ended inside a header or message */
	int plain;        /* the message is text without any structure */

	/* text input: content cut into tokens (see tc_add) */
	hm_buf tc;        /* content text not yet final */
	uint64_t c_at;    /* byte offset of the message's content */
	uint64_t c_len;   /* content bytes taken so far */
	uint64_t c_shift; /* bytes U+FFFD added over what it replaced */
	int tc_special;   /* the text is a special token's */
	struct tmark {    /* an F12 warning due where the content gets to off */
		uint64_t off, at;
		unsigned shift;
		const char *msg;
	} *mk;
	size_t mk_head, nmk, capmk;
	struct tmark *hmk; /* the same for text in hold, off into it */
	size_t nhmk, caphmk;
	hm_encoder *enc;
	hm_ids tids;

	/* splitting plain text into channels (F13, --marker) */
	int split;        /* 0 off, 1 stripped specials, 2 marker */
	size_t strip_scan; /* F13: no header glue before this in hdr */
	hm_buf hold;      /* held-back text that may begin a pattern */
	hm_buf marker;

	/* scratch for header parsing */
	hm_buf hs, words, tmp, norm;

	/* input */
	int text_mode;
	int saw_special;
	uint64_t unit_end; /* text: offset just past the current unit */
	uint64_t hdr_off;  /* text: offset of the header's first byte */
	hm_ids in;
	size_t ipos;
	hm_buf tin;
	size_t tpos;
	int fin, done;
	uint64_t skip_warned; /* last skip warning, +1 */
	/*
	 * F9: text after a stop waits here: kept as a message when another
	 * message follows, skipped when the stream ends.
	 */
	hm_buf junk;
	uint64_t junk_at, junk_end;
	int junk_on;

	/*
	 * F18: the events of a first message without a header wait in the
	 * queue from q[hq] (its texts from arena[ha]) until the next message
	 * starts, which tells whether it was reasoning.
	 */
	int holding, held; /* holding: 1 F18, 2 text after a stop (F9) */
	size_t hq, ha, hstart, jend;

	/*
	 * F17: <|start|> or <|channel|> inside content waits here with the
	 * units after it until they tell a new header (`assistant`, `final`)
	 * from text (the reference keeps such tokens as text).
	 */
	struct punit {
		uint32_t id;
		int special, known;
		size_t off, len;
		uint64_t pos, end;
	} *pk;
	size_t npk, cappk;
	hm_buf pkb;

	/* output */
	int merge;        /* join runs of content tokens into one delta */
	hm_buf run;       /* the joined run */
	struct qev *q;
	size_t qhead, qlen, qcap;
	hm_buf arena;
	int oom;
};

/* ---------------------------------------------------------------- utf-8 */

static int
is_uws(uint32_t c)
{
	return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 ||
	    c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
	    c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
	    c == 0x3000;
}

static int
is_aws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/*
 * Examine s[0..n) at its first problem.  Returns the length of the valid
 * prefix; *err is 0 when everything is valid, the length of the invalid
 * sequence, or -1 when the bytes end inside a sequence that could still
 * become valid.
 */
size_t
hm_utf8_check(const char *buf, size_t n, int *err)
{
	const unsigned char *s = (const unsigned char *)buf;
	size_t i = 0, k, bad;
	uint32_t cp;

	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		k = hm_utf8_decode(s + i, n - i, &cp, &bad);
		if (k) {
			i += k;
			continue;
		}
		if (s[i] >= 0xC2 && s[i] <= 0xF4 && i + bad == n)
			*err = -1;
		else
			*err = (int)bad;
		return i;
	}
	*err = 0;
	return n;
}

/* Append s[0..n) to b with each maximal invalid subpart as U+FFFD. */
static int
add_lossy(hm_buf *b, const char *s, size_t n)
{
	int err, bad = 0;
	size_t v;

	while (n) {
		v = hm_utf8_check(s, n, &err);
		hm_buf_add(b, s, v);
		s += v;
		n -= v;
		if (!n)
			break;
		hm_buf_add(b, "\xEF\xBF\xBD", 3);
		bad = 1;
		if (err < 0)
			break;
		s += err;
		n -= (size_t)err;
	}
	return bad;
}

/* ---------------------------------------------------------------- events */

static struct qev *
push(hm_parser *p, hm_event_type type, uint64_t at)
{
	struct qev *e;

	if (p->qlen == p->qcap) {
		size_t cap = p->qcap ? p->qcap * 2 : 16;
		struct qev *q = realloc(p->q, cap * sizeof *q);

		if (!q) {
			p->oom = 1;
			return NULL;
		}
		p->q = q;
		p->qcap = cap;
	}
	e = &p->q[p->qlen++];
	memset(e, 0, sizeof *e);
	e->type = type;
	e->at = at;
	e->role = -1;
	return e;
}

static void
setf(hm_parser *p, struct qev *e, int f, const char *s, size_t n)
{
	if (!e)
		return;
	e->off[f] = p->arena.len;
	e->len[f] = n;
	e->has[f] = 1;
	hm_buf_add(&p->arena, s, n);
	hm_buf_addc(&p->arena, '\0');
}

static void
warn(hm_parser *p, uint64_t at, int code, const char *fmt, const char *arg,
    size_t arglen)
{
	struct qev *e;
	const char *pct;

	if (p->strict)
		return;
	e = push(p, HM_EV_WARNING, at);
	if (!e)
		return;
	e->code = code;
	/* Straight into the arena: callers may be using p->tmp. */
	e->off[F_TEXT] = p->arena.len;
	e->has[F_TEXT] = 1;
	pct = strstr(fmt, "%s");
	if (pct) {
		hm_buf_add(&p->arena, fmt, (size_t)(pct - fmt));
		hm_buf_add(&p->arena, arg, arglen);
		hm_buf_adds(&p->arena, pct + 2);
	} else
		hm_buf_adds(&p->arena, fmt);
	e->len[F_TEXT] = p->arena.len - e->off[F_TEXT];
	hm_buf_addc(&p->arena, '\0');
}

static void
fail(hm_parser *p, uint64_t at, const char *msg, size_t n)
{
	struct qev *e = push(p, HM_EV_ERROR, at);

	setf(p, e, F_TEXT, msg, n);
	p->state = S_DONE;
}

static void
fails(hm_parser *p, uint64_t at, const char *msg)
{
	fail(p, at, msg, strlen(msg));
}

static void
delta_at(hm_parser *p, const char *s, size_t n, uint64_t at)
{
	struct qev *e;

	if (!n)
		return;
	/* Join with a delta queued at the same place. */
	if (p->qlen && p->q[p->qlen - 1].type == HM_EV_DELTA &&
	    p->q[p->qlen - 1].at == at &&
	    p->q[p->qlen - 1].off[F_TEXT] + p->q[p->qlen - 1].len[F_TEXT] + 1 ==
	    p->arena.len) {
		p->arena.len--;
		hm_buf_add(&p->arena, s, n);
		hm_buf_addc(&p->arena, '\0');
		p->q[p->qlen - 1].len[F_TEXT] += n;
		return;
	}
	e = push(p, HM_EV_DELTA, at);
	setf(p, e, F_TEXT, s, n);
}

static void
delta(hm_parser *p, const char *s, size_t n)
{
	delta_at(p, s, n, p->pos);
}

/* ---------------------------------------------------------------- text deltas */

/*
 * Text input has no tokens, and its reads may end anywhere.  So that the
 * deltas do not follow the reads, content text is cut as the o200k encoder
 * would cut it: one delta per token (tokens joined up to whole
 * characters), at the byte offset of the message's content plus the
 * delta's offset in it.  A piece of the pre-tokenizer is final once no
 * text after it can change it: three characters past it (`'ll`), and not
 * inside a trailing run of blanks, whose split depends on what ends it.
 * At most TC_MAX bytes wait; a longer run is cut there.
 */
#define TC_MAX 4096

static size_t char_at(const char *s, size_t n, size_t i, uint32_t *cp);

/*
 * A delta of content bytes [coff, coff + n): the F12 warnings due inside
 * it come first, and its offset counts what a U+FFFD replaced.
 */
static void
tc_delta(hm_parser *p, const char *s, size_t n, uint64_t coff)
{
	uint64_t at = p->c_at + coff - p->c_shift;
	struct tmark *m;

	while (p->mk_head < p->nmk && p->mk[p->mk_head].off < coff + n) {
		m = &p->mk[p->mk_head++];
		warn(p, m->at, HM_W_UTF8, m->msg, NULL, 0);
		p->c_shift += m->shift;
	}
	if (p->mk_head == p->nmk)
		p->mk_head = p->nmk = 0;
	delta_at(p, s, n, at);
}

static void
tc_piece(hm_parser *p, const char *s, size_t n, uint64_t coff)
{
	size_t i, a = 0, off = 0, len;

	if (!p->enc && !(p->enc = hm_encoder_new())) {
		p->oom = 1;
		return;
	}
	p->tids.len = 0;
	if (hm_encode(p->enc, s, n, HM_ENC_LOSSY, &p->tids) != HM_OK) {
		p->oom = 1;
		return;
	}
	for (i = 0; i < p->tids.len; i++) {
		hm_token_bytes(p->tids.v[i], &len);
		off += len;
		if (off < n && ((unsigned char)s[off] & 0xC0) == 0x80)
			continue;
		if (off > n)
			off = n;
		tc_delta(p, s + a, off - a, coff + a);
		a = off;
	}
	if (a < n)
		tc_delta(p, s + a, n - a, coff + a);
}

/* Cut the final pieces of p->tc into deltas; all: every piece. */
static void
tc_release(hm_parser *p, int all)
{
	const unsigned char *s = (const unsigned char *)p->tc.p;
	size_t n = p->tc.len, safe = n, i = 0, e, k;
	uint64_t base = p->c_len - n;
	uint32_t cp;
	int c;

	if (!n)
		return;
	if (!all) {
		while (safe > 0) {
			k = safe - 1;
			while (k > 0 && (s[k] & 0xC0) == 0x80)
				k--;
			char_at((const char *)s, n, k, &cp);
			if (!is_uws(cp))
				break;
			safe = k;
		}
		for (c = 0; c < 3 && safe > 0; c++) {
			safe--;
			while (safe > 0 && (s[safe] & 0xC0) == 0x80)
				safe--;
		}
	}
	while (i < n) {
		e = hm__pretok_next(s, n, i);
		if (!all && e > safe)
			break;
		tc_piece(p, (const char *)s + i, e - i, base + i);
		i = e;
	}
	memmove(p->tc.p, p->tc.p + i, n - i);
	p->tc.len = n - i;
}

/*
 * Take whole characters of content.  They go in by slices that keep
 * p->tc within TC_MAX, releasing after each, which cuts the text where
 * feeding it a character at a time would.
 */
static void
tc_add(hm_parser *p, const char *s, size_t n)
{
	size_t k;

	while (n) {
		k = p->tc.len < TC_MAX ? TC_MAX - p->tc.len : 0;
		if (k > n)
			k = n;
		while (k > 0 && k < n && ((unsigned char)s[k] & 0xC0) == 0x80)
			k--;
		if (!k) {
			tc_release(p, 1);
			continue;
		}
		hm_buf_add(&p->tc, s, k);
		if (p->tc.oom) {
			p->oom = 1;
			return;
		}
		p->c_len += k;
		s += k;
		n -= k;
		tc_release(p, 0);
	}
}

/* Content text out: cut into tokens for text input, else as it came. */
static void
out_text(hm_parser *p, const char *s, size_t n)
{
	if (!p->text_mode || p->merge) {
		delta(p, s, n);
		p->c_len += n;
		return;
	}
	if (p->tc_special) {
		/* A special token's text is one delta, as its id would be. */
		tc_release(p, 1);
		p->c_len += n;
		tc_delta(p, s, n, p->c_len - n);
		return;
	}
	tc_add(p, s, n);
}

/* The content of a message starts at byte offset at (text input). */
static void
content_begin(hm_parser *p, uint64_t at)
{
	p->c_at = at;
	p->c_len = p->c_shift = 0;
	p->tc.len = 0;
	p->mk_head = p->nmk = 0;
}

/*
 * An invalid UTF-8 sequence of len bytes at byte offset at became U+FFFD,
 * which goes out at offset tmp_off of the text next given to
 * content_text.  When content is cut into tokens the warning waits for it
 * there, so that it comes in the same place whatever the reads.
 */
static struct tmark *
mark_new(hm_parser *p, struct tmark **v, size_t *n, size_t *cap)
{
	struct tmark *m;

	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 8;

		if (!(m = realloc(*v, c * sizeof *m))) {
			p->oom = 1;
			return NULL;
		}
		*v = m;
		*cap = c;
	}
	return &(*v)[(*n)++];
}

static void
bad_utf8(hm_parser *p, uint64_t at, size_t len, size_t tmp_off, const char *msg)
{
	struct tmark *m;

	if (!p->text_mode || p->merge || p->strict) {
		warn(p, at, HM_W_UTF8, msg, NULL, 0);
		return;
	}
	/* Split text waits in hold first: the mark is into it till it goes out. */
	if (p->split)
		m = mark_new(p, &p->hmk, &p->nhmk, &p->caphmk);
	else
		m = mark_new(p, &p->mk, &p->nmk, &p->capmk);
	if (!m)
		return;
	m->off = (p->split ? p->hold.len : p->c_len) + tmp_off;
	m->at = at;
	m->shift = len < 3 ? (unsigned)(3 - len) : 0;
	m->msg = msg;
}

/* ---------------------------------------------------------------- header grammar */

static size_t
find(const char *s, size_t n, const char *pat, size_t from)
{
	size_t m = strlen(pat), i;

	if (m > n)
		return (size_t)-1;
	for (i = from; i + m <= n; i++)
		if (s[i] == pat[0] && !memcmp(s + i, pat, m))
			return i;
	return (size_t)-1;
}

/* Decode one character of valid UTF-8 at s[i..n). */
static size_t
char_at(const char *s, size_t n, size_t i, uint32_t *cp)
{
	size_t bad, k;

	k = hm_utf8_decode((const unsigned char *)s + i, n - i, cp, &bad);
	if (!k) {
		*cp = 0xFFFD;
		k = bad ? bad : 1;
	}
	return k;
}

/* Trim Unicode whitespace: sets *a, *b to the trimmed bounds of s[a..b). */
static void
trim(const char *s, size_t *a, size_t *b)
{
	uint32_t cp;
	size_t k, j;

	while (*a < *b) {
		k = char_at(s, *b, *a, &cp);
		if (!is_uws(cp))
			break;
		*a += k;
	}
	while (*b > *a) {
		j = *b - 1;
		while (j > *a && ((unsigned char)s[j] & 0xC0) == 0x80)
			j--;
		char_at(s, *b, j, &cp);
		if (!is_uws(cp))
			break;
		*b = j;
	}
}

struct word {
	size_t off, len;
};

static int
role_index(const char *s, size_t n)
{
	int i;

	for (i = 0; i < 5; i++)
		if (strlen(role_names[i]) == n && !memcmp(role_names[i], s, n))
			return i;
	return -1;
}

/* Rust's Debug for a str, inside Some("..."). */
static void
rust_debug(hm_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, k;
	uint32_t cp;

	hm_buf_adds(b, "Some(\"");
	while (i < n) {
		k = char_at(s, n, i, &cp);
		switch (cp) {
		case '"': hm_buf_adds(b, "\\\""); break;
		case '\\': hm_buf_adds(b, "\\\\"); break;
		case '\n': hm_buf_adds(b, "\\n"); break;
		case '\r': hm_buf_adds(b, "\\r"); break;
		case '\t': hm_buf_adds(b, "\\t"); break;
		case 0: hm_buf_adds(b, "\\0"); break;
		default:
			if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) {
				hm_buf_adds(b, "\\u{");
				if (cp >= 16)
					hm_buf_addc(b, hex[cp >> 4]);
				hm_buf_addc(b, hex[cp & 15]);
				hm_buf_addc(b, '}');
			} else
				hm_buf_add(b, s + i, k);
		}
		i += k;
	}
	hm_buf_adds(b, "\")");
}

/*
 * The reference's header grammar (harmony-format.md §4.3) over the valid
 * UTF-8 text s[0..n).  role is the given role or R_NONE.  On success fills
 * *h (offsets into p->hs) and returns 0; with parse_target 0 the leftover
 * words are joined into p->tmp.  On failure returns -1 with the reference's
 * message in p->tmp.
 */
static int
parse_header(hm_parser *p, const char *s, size_t n, int role, int parse_target,
    struct hdr *h)
{
	size_t m, vs, ve, a, b, i, nw, w0, wn, coff = 0, clen = 0;
	struct word *w;
	int has_chan = 0, tool_w0 = 0;
	uint32_t cp;
	hm_buf *hs = &p->hs;

	memset(h, 0, sizeof *h);
	hm_buf_clear(hs);
	hm_buf_clear(&p->tmp);
	m = find(s, n, "<|channel|>", 0);
	if (m != (size_t)-1) {
		vs = ve = m + 11;
		while (ve < n) {
			size_t k = char_at(s, n, ve, &cp);

			if (is_uws(cp) || cp == '<')
				break;
			ve += k;
		}
		if (ve == vs) {
			hm_buf_adds(&p->tmp, "channel marker present but no channel value found in header");
			return -1;
		}
		/* The channel value goes first in hs, the cut text after it. */
		hm_buf_add(hs, s + vs, ve - vs);
		coff = 0;
		clen = ve - vs;
		has_chan = 1;
		hm_buf_add(hs, s, m);
		hm_buf_add(hs, s + ve, n - ve);
	} else
		hm_buf_add(hs, s, n);
	if (hs->oom)
		return p->oom = 1, -1;
	a = clen;
	b = hs->len;
	trim(hs->p, &a, &b);
	if (find(hs->p + a, b - a, "<|constrain|>", 0) != (size_t)-1) {
		size_t j = a, at;

		hm_buf_clear(&p->tmp);
		while ((at = find(hs->p, b, "<|constrain|>", j)) != (size_t)-1) {
			hm_buf_add(&p->tmp, hs->p + j, at - j);
			hm_buf_adds(&p->tmp, " <|constrain|>");
			j = at + 13;
		}
		hm_buf_add(&p->tmp, hs->p + j, b - j);
		hs->len = clen;
		hm_buf_add(hs, p->tmp.p, p->tmp.len);
		hm_buf_clear(&p->tmp);
		if (hs->oom)
			return p->oom = 1, -1;
		a = clen;
		b = hs->len;
		trim(hs->p, &a, &b);
	}
	/* Split at ASCII whitespace. */
	hm_buf_clear(&p->words);
	nw = 0;
	for (i = a; i < b;) {
		struct word wd;

		while (i < b && is_aws((unsigned char)hs->p[i]))
			i++;
		if (i >= b)
			break;
		wd.off = i;
		while (i < b && !is_aws((unsigned char)hs->p[i]))
			i++;
		wd.len = i - wd.off;
		hm_buf_add(&p->words, &wd, sizeof wd);
		nw++;
	}
	if (p->words.oom)
		return p->oom = 1, -1;
	w = (struct word *)(void *)p->words.p;
	w0 = 0;
	wn = nw;
	if (role == R_NONE) {
		if (!nw) {
			hm_buf_adds(&p->tmp, "message header did not contain a role");
			return -1;
		}
		role = role_index(hs->p + w[0].off, w[0].len);
		if (role < 0) {
			if (nw > 1 || (w[0].len >= 3 && !memcmp(hs->p + w[0].off, "to=", 3))) {
				role = ROLE_TOOL;
				tool_w0 = 1;
				w0 = 1;
			} else {
				hm_buf_adds(&p->tmp, "Unknown role: ");
				hm_buf_add(&p->tmp, hs->p + w[0].off, w[0].len);
				return -1;
			}
		}
		if (role == ROLE_TOOL && !tool_w0) {
			/* The name of a tool is the role word: "tool". */
			h->off[F_NAME] = w[0].off;
			h->len[F_NAME] = w[0].len;
			h->has[F_NAME] = 1;
		} else if (tool_w0) {
			h->off[F_NAME] = w[0].off;
			h->len[F_NAME] = w[0].len;
			h->has[F_NAME] = 1;
		}
	}
	h->role = role;
	if (w0 < wn && w[w0].len == strlen(role_names[role]) &&
	    !memcmp(hs->p + w[w0].off, role_names[role], w[w0].len))
		w0++;
	if (parse_target && w0 < wn) {
		struct word x = w[wn - 1];
		size_t cnt = wn - w0;

		wn--;
		if (x.len >= 3 && !memcmp(hs->p + x.off, "to=", 3)) {
			h->off[F_RCPT] = x.off + 3;
			h->len[F_RCPT] = x.len - 3;
			h->has[F_RCPT] = 1;
		} else if (cnt == 1) {
			h->off[F_RCPT] = x.off;
			h->len[F_RCPT] = x.len;
			h->has[F_RCPT] = 1;
		} else {
			struct word y = w[wn - 1];

			wn--;
			h->off[F_CTYPE] = x.off;
			h->len[F_CTYPE] = x.len;
			h->has[F_CTYPE] = 1;
			if (y.len >= 3 && !memcmp(hs->p + y.off, "to=", 3)) {
				y.off += 3;
				y.len -= 3;
			}
			h->off[F_RCPT] = y.off;
			h->len[F_RCPT] = y.len;
			h->has[F_RCPT] = 1;
		}
	}
	if (w0 < wn) {
		for (i = w0; i < wn; i++) {
			if (i > w0)
				hm_buf_addc(&p->tmp, ' ');
			hm_buf_add(&p->tmp, hs->p + w[i].off, w[i].len);
		}
		if (parse_target) {
			hm_buf lo = p->tmp;

			memset(&p->tmp, 0, sizeof p->tmp);
			hm_buf_adds(&p->tmp, "unexpected tokens remaining in message header: ");
			rust_debug(&p->tmp, lo.p, lo.len);
			hm_buf_free(&lo);
			return -1;
		}
	}
	if (has_chan) {
		h->off[F_CHAN] = coff;
		h->len[F_CHAN] = clen;
		h->has[F_CHAN] = 1;
	}
	return 0;
}

/* ---------------------------------------------------------------- messages */

/*
 * The held first message goes out: as reasoning (a message with a channel
 * follows it) with its F8 warning made an F18 one, or as it is.
 */
static void
hold_release(hm_parser *p, int reasoning)
{
	static const char msg[] = "text without a channel before a message with a channel or a tool call taken as reasoning (analysis)";
	struct qev *e;

	p->holding = 0;
	if (!reasoning || p->hstart >= p->qlen)
		return;
	e = &p->q[p->hstart];
	if (e->type == HM_EV_START && !e->has[F_CHAN])
		setf(p, e, F_CHAN, "analysis", 8);
	e = &p->q[p->hq];
	if (e->type == HM_EV_WARNING &&
	    (e->code == HM_W_NO_HEADER || e->code == HM_W_NO_MESSAGE)) {
		e->code = HM_W_REASONING;
		setf(p, e, F_TEXT, msg, sizeof msg - 1);
	}
}

static void hold_release(hm_parser *p, int reasoning);

static void
emit_start(hm_parser *p, const struct hdr *h, const char *base, uint64_t at)
{
	struct qev *e;
	int f;

	if (p->holding == 1)
		hold_release(p, h->has[F_CHAN] || h->has[F_RCPT]);
	e = push(p, HM_EV_START, at);

	p->in_msg = 1;
	content_begin(p, p->unit_end);
	p->mh = *h;
	hm_buf_clear(&p->m);
	for (f = 0; f < 4; f++) {
		p->mh.off[f] = p->m.len;
		if (h->has[f])
			hm_buf_add(&p->m, base + h->off[f], h->len[f]);
	}
	if (!e)
		return;
	e->role = h->role;
	for (f = 0; f < 4; f++)
		if (h->has[f])
			setf(p, e, f, base + h->off[f], h->len[f]);
}

static int
mh_is(const hm_parser *p, int f, const char *s)
{
	return p->mh.has[f] && p->mh.len[f] == strlen(s) &&
	    !memcmp(p->m.p + p->mh.off[f], s, p->mh.len[f]);
}

static void split_flush(hm_parser *p, int all);
static void content_text(hm_parser *p, const char *s, size_t n);

/* End the current message (reference §4.6 in strict mode). */
static void
finish_msg(hm_parser *p, hm_stop stop)
{
	struct qev *e;

	if (p->strict && !p->text_mode) {
		hm_buf_clear(&p->tmp);
		if (p->poisoned)
			hm_buf_add(&p->tmp, "\xEF\xBF\xBD", 3);
		add_lossy(&p->tmp, p->pend.p, p->pend.len);
		delta(p, p->tmp.p, p->tmp.len);
	} else if (p->pend.len) {
		bad_utf8(p, p->text_mode ? p->pos - p->pend.len : p->pos, p->pend.len, 0,
		    "incomplete UTF-8 sequence at the end of a message replaced by U+FFFD");
		hm_buf_clear(&p->pend);
		content_text(p, "\xEF\xBF\xBD", 3);
	}
	if (p->split)
		split_flush(p, 1);
	if (p->split == 2)
		warn(p, p->pos, HM_W_NO_HEADER, "the --marker text never appeared: all the text is reasoning", NULL, 0);
	tc_release(p, 1);
	hm_buf_clear(&p->pend);
	p->poisoned = 0;
	if (!p->strict && stop == HM_STOP_RETURN && p->mh.has[F_RCPT] &&
	    p->mh.role == ROLE_ASSISTANT && !mh_is(p, F_RCPT, "assistant"))
		warn(p, p->pos, HM_W_AFTER_STOP, "tool call ended by <|return|>, taken as <|call|>", NULL, 0);
	if (stop == HM_STOP_EOS && !p->plain) {
		p->trunc = 1;
		warn(p, p->pos, HM_W_TRUNCATED, "stream ended inside a message", NULL, 0);
	}
	p->plain = 0;
	e = push(p, HM_EV_END, p->pos);
	if (e)
		e->stop = stop;
	p->in_msg = 0;
	p->split = 0;
	p->state = S_START;
}

/* ---------------------------------------------------------------- splitting */

/*
 * Plain text split into messages: at the remains of stripped special
 * tokens (F13) or at a --marker.  Text that may be the start of a header
 * is held back until it is decided.
 *
 * A header stripped of its special tokens,
 * `<|start|>assistant<|channel|>C to=R <|constrain|>T<|message|>`, reads
 * `assistantC to=R T` with T glued to the content; the renderer's order
 * `assistant to=R<|channel|>C` reads `assistant to=RC`.
 */
struct shdr {
	const char *chan;
	size_t roff, rlen, toff, tlen;
	int has_r, has_t;
	int repeat, differ, odd; /* F15, F16 */
};

static const char *const strip_chans[] = { "analysis", "commentary", "final" };

/* Longest recipient looked for; a recipient is made of these bytes. */
#define STRIP_RCPT_MAX 256
/* F13 is decided within the first bytes of a stream. */
#define STRIP_MAX HDR_MAX_BYTES

static int
rcpt_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' || c == ':' ||
	    c == '/';
}

/*
 * A content type glued to the content (`json{`) at s[0..n): its length,
 * or 0; -1 when more text is needed to tell.
 */
static int
strip_ctype(const char *s, size_t n, int all)
{
	static const char *const known[] = {
		"json", "code", "text", "markdown", "md", "yaml", "xml", "html",
		"csv", "toml",
	};
	size_t i, j, m;
	int more = 0;

	for (i = 0; i < sizeof known / sizeof known[0]; i++) {
		m = strlen(known[i]);
		for (j = 0; j < m && j < n; j++)
			if ((s[j] | 0x20) != known[i][j])
				break;
		if (j < m && j < n)
			continue;
		if (j < m || n == m) {
			if (n == m && all)
				return (int)m;
			more = 1;
			continue;
		}
		if (!(((s[m] | 0x20) >= 'a' && (s[m] | 0x20) <= 'z')))
			return (int)m;
	}
	return more && !all ? -1 : 0;
}

/*
 * A stripped header at s[0..n) (implied: without its leading
 * `assistant`).  1 with *h and *len set, 0 when there is none, -1 when
 * more text is needed to tell (never with all).
 */
static int
strip_header(const char *s, size_t n, int all, int implied, struct shdr *h,
    size_t *len)
{
	size_t i = 0, j, k, m = 0;
	int c, more = 0, t;

	memset(h, 0, sizeof *h);
	if (!implied) {
		m = n < 9 ? n : 9;
		if (memcmp(s, "assistant", m))
			return 0;
		if (n < 9)
			return all ? 0 : -1;
		i = 9;
	}
	for (c = 0; c < 3; c++) {
		m = strlen(strip_chans[c]);
		if (n - i >= m && !memcmp(s + i, strip_chans[c], m))
			break;
		if (n - i < m && !memcmp(s + i, strip_chans[c], n - i))
			more = 1;
	}
	if (c < 3) {
		h->chan = strip_chans[c];
		j = i + m;
	} else if (!implied && n - i >= 4 && !memcmp(s + i, " to=", 4)) {
		/* `assistant to=functions.fcommentary`: the recipient runs into the channel. */
		for (k = i + 4; k < n && rcpt_byte((unsigned char)s[k]) &&
		    k - i < STRIP_RCPT_MAX; k++)
			;
		if (k == n && !all && k - i < STRIP_RCPT_MAX)
			return -1;
		for (c = 0; c < 3; c++) {
			m = strlen(strip_chans[c]);
			if (k - (i + 4) > m && !memcmp(s + k - m, strip_chans[c], m))
				break;
		}
		if (c == 3)
			return 0;
		h->chan = strip_chans[c];
		h->roff = i + 4;
		h->rlen = k - m - (i + 4);
		h->has_r = 1;
		j = k;
	} else {
		if (!implied && n - i < 4 && !memcmp(s + i, " to=", n - i))
			more = 1;
		return more && !all ? -1 : 0;
	}
	if (!h->has_r) {
		if (n - j >= 4 && !memcmp(s + j, " to=", 4)) {
			for (k = j + 4; k < n && rcpt_byte((unsigned char)s[k]) &&
			    k - j < STRIP_RCPT_MAX; k++)
				;
			if (k == n && !all && k - j < STRIP_RCPT_MAX)
				return -1;
			if (k > j + 4) {
				h->roff = j + 4;
				h->rlen = k - j - 4;
				h->has_r = 1;
				j = k;
			}
		} else if (n - j < 4 && !memcmp(s + j, " to=", n - j) && !all)
			return -1;
	}
	while (h->has_r) {
		/* F15: ` to=R` again, the last kept. */
		size_t q = j, e;

		if (n - q >= 4 && !memcmp(s + q, " to=", 4)) {
			for (e = q + 4; e < n && rcpt_byte((unsigned char)s[e]) &&
			    e - q < STRIP_RCPT_MAX; e++)
				;
			if (e == n && !all && e - q < STRIP_RCPT_MAX)
				return -1;
			if (e == q + 4)
				break;
			h->repeat = 1;
			if (e - q - 4 != h->rlen || memcmp(s + q + 4, s + h->roff, h->rlen))
				h->differ = 1;
			h->roff = q + 4;
			h->rlen = e - q - 4;
			j = e;
			continue;
		}
		if (n - q < 4 && !all && !memcmp(s + q, " to=", n - q))
			return -1;
		/* F16: words up to a content type are the recipient's (`to=functions.Web Search json{`). */
		for (e = q; e < n && s[e] == ' ' && e - h->roff < STRIP_RCPT_MAX;) {
			t = strip_ctype(s + e + 1, n - e - 1, all);
			if (t < 0)
				return -1;
			if (t > 0)
				break;
			for (k = e + 1; k < n && rcpt_byte((unsigned char)s[k]); k++)
				;
			if (k == n && !all)
				return -1;
			if (k == e + 1)
				break;
			e = k;
		}
		if (e > q && e < n && s[e] == ' ' && strip_ctype(s + e + 1, n - e - 1, all) > 0) {
			h->rlen = e - h->roff;
			h->odd = 1;
			j = e;
		}
		break;
	}
	if (h->has_r && n - j >= 1 && s[j] == ' ') {
		t = strip_ctype(s + j + 1, n - j - 1, all);
		if (t < 0)
			return -1;
		if (t > 0) {
			h->toff = j + 1;
			h->tlen = (size_t)t;
			h->has_t = 1;
			j += 1 + (size_t)t;
		}
	} else if (h->has_r && j == n && !all)
		return -1;
	*len = j;
	return 1;
}

/* The marker at s[0..n): 1, 0, or -1 when s is a prefix of it. */
static int
marker_match(hm_parser *p, const char *s, size_t n)
{
	size_t m = p->marker.len;

	if (n >= m)
		return !memcmp(s, p->marker.p, m);
	return !memcmp(s, p->marker.p, n) ? -1 : 0;
}

/* Start the message of stripped header *sh, whose offsets are into base. */
static void
strip_start(hm_parser *p, const struct shdr *sh, const char *base, uint64_t at,
    uint64_t content_at)
{
	struct hdr h;
	hm_buf *b = &p->norm;

	memset(&h, 0, sizeof h);
	hm_buf_clear(b);
	h.role = ROLE_ASSISTANT;
	h.off[F_CHAN] = 0;
	h.len[F_CHAN] = strlen(sh->chan);
	h.has[F_CHAN] = 1;
	hm_buf_adds(b, sh->chan);
	if (sh->has_r) {
		h.off[F_RCPT] = b->len;
		h.len[F_RCPT] = sh->rlen;
		h.has[F_RCPT] = 1;
		hm_buf_add(b, base + sh->roff, sh->rlen);
	}
	if (sh->has_t) {
		h.off[F_CTYPE] = b->len;
		h.len[F_CTYPE] = sh->tlen;
		h.has[F_CTYPE] = 1;
		hm_buf_add(b, base + sh->toff, sh->tlen);
	}
	if (b->oom) {
		p->oom = 1;
		return;
	}
	if (sh->repeat)
		warn(p, at, HM_W_REPEAT, sh->differ ?
		    "recipient written twice with different values, the last kept: %s" :
		    "recipient written twice, read once: %s", base + sh->roff, sh->rlen);
	if (sh->odd)
		warn(p, at, HM_W_RCPT_NAME, "recipient \"%s\" is not a plain name: kept as written",
		    base + sh->roff, sh->rlen);
	emit_start(p, &h, b->p, at);
	content_begin(p, content_at);
	p->state = S_CONTENT;
	p->plain = 1;
}

/* A split: the text before it has gone out, and `dropped` bytes of header or marker go. */
static void
split_restart(hm_parser *p, const struct shdr *sh, const char *base, size_t dropped)
{
	int mode = p->split;
	uint64_t at, pos = p->pos, shift = p->c_shift;
	hm_buf pend = p->pend;
	size_t i;

	p->split = 0;
	/*
	 * Text: the split is where the text before it ends, whatever the
	 * reads, less what the U+FFFDs not yet out added over the bytes they
	 * replaced.
	 */
	for (i = p->mk_head; i < p->nmk; i++)
		shift += p->mk[i].shift;
	at = p->c_at + p->c_len - shift;
	if (p->text_mode)
		p->pos = at;
	/*
	 * Undecoded bytes come after all the held text: they belong to the
	 * message that starts here, not to the one that ends.
	 */
	memset(&p->pend, 0, sizeof p->pend);
	finish_msg(p, HM_STOP_NONE);
	strip_start(p, sh, base, p->pos, at + dropped);
	hm_buf_free(&p->pend);
	p->pend = pend;
	p->pos = pos;
	p->split = mode == 2 ? 0 : mode; /* the marker splits once */
}

/* Held text hold[start, start + n) goes out, with the marks due in it. */
static void
hold_out(hm_parser *p, size_t start, size_t n)
{
	struct tmark *m;
	size_t i = 0, k;

	while (i < p->nhmk && p->hmk[i].off < start + n) {
		if (p->hmk[i].off >= start &&
		    (m = mark_new(p, &p->mk, &p->nmk, &p->capmk))) {
			*m = p->hmk[i];
			m->off = p->c_len + (p->hmk[i].off - start);
		}
		i++;
	}
	for (k = i; k < p->nhmk; k++)
		p->hmk[k - i] = p->hmk[k];
	p->nhmk -= i;
	out_text(p, p->hold.p + start, n);
}

/*
 * The first n bytes of hold are gone: the marks follow the rest (a mark
 * in dropped header or marker text, which is ASCII, cannot be).
 */
static void
hold_shift(hm_parser *p, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < p->nhmk; i++) {
		if (p->hmk[i].off < n) {
			warn(p, p->hmk[i].at, HM_W_UTF8, p->hmk[i].msg, NULL, 0);
			continue;
		}
		p->hmk[k] = p->hmk[i];
		p->hmk[k++].off -= n;
	}
	p->nhmk = k;
}

/* Emit held text up to where a pattern could still begin. */
static void
split_flush(hm_parser *p, int all)
{
	size_t i = 0, start = 0, mlen = 0;
	struct shdr sh;
	int r;

	while (i < p->hold.len) {
		if (p->split == 2) {
			r = marker_match(p, p->hold.p + i, p->hold.len - i);
			mlen = p->marker.len;
			memset(&sh, 0, sizeof sh);
			sh.chan = "final";
		} else
			r = strip_header(p->hold.p + i, p->hold.len - i, all, 0, &sh, &mlen);
		if (r == 0 || (r < 0 && all)) {
			i++;
			continue;
		}
		if (r < 0)
			break;
		{
			/* Copy what follows: restart clears nothing in hold. */
			hm_buf rest = { 0 }, hd = { 0 };
			size_t e = i, f = i + mlen;

			if (p->split == 2) {
				/* The marker takes the blanks around it. */
				while (e > start && is_aws((unsigned char)p->hold.p[e - 1]))
					e--;
				while (f < p->hold.len && is_aws((unsigned char)p->hold.p[f]))
					f++;
			}
			hold_out(p, start, e - start);
			hold_shift(p, f);
			hm_buf_add(&hd, p->hold.p + i, mlen);
			hm_buf_add(&rest, p->hold.p + f, p->hold.len - f);
			hm_buf_clear(&p->hold);
			split_restart(p, &sh, hd.p, f - e);
			hm_buf_add(&p->hold, rest.p, rest.len);
			hm_buf_free(&rest);
			hm_buf_free(&hd);
			i = start = 0;
			if (!p->split) {
				hold_out(p, 0, p->hold.len);
				hm_buf_clear(&p->hold);
				return;
			}
		}
	}
	hold_out(p, start, i - start);
	hold_shift(p, i);
	memmove(p->hold.p, p->hold.p + i, p->hold.len - i);
	p->hold.len -= i;
}

/* Content text that is whole characters. */
static void
content_text(hm_parser *p, const char *s, size_t n)
{
	if (!p->split) {
		out_text(p, s, n);
		return;
	}
	hm_buf_add(&p->hold, s, n);
	split_flush(p, 0);
}

/* ---------------------------------------------------------------- content */

/*
 * Content bytes s[0..n); end: in text mode, the byte offset just past
 * them (what the F12 warnings count from).
 */
static void
content_bytes_to(hm_parser *p, const char *s, size_t n, uint64_t end)
{
	int err;
	size_t v;

	if (p->strict && !p->text_mode) {
		/* §4.5: at most one invalid sequence is resolved per token. */
		if (p->poisoned)
			return;
		hm_buf_add(&p->pend, s, n);
		v = hm_utf8_check(p->pend.p, p->pend.len, &err);
		hm_buf_clear(&p->tmp);
		hm_buf_add(&p->tmp, p->pend.p, v);
		if (err > 0) {
			hm_buf_add(&p->tmp, "\xEF\xBF\xBD", 3);
			v += (size_t)err;
		}
		memmove(p->pend.p, p->pend.p + v, p->pend.len - v);
		p->pend.len -= v;
		delta(p, p->tmp.p, p->tmp.len);
		return;
	}
	if (!p->pend.len) {
		v = hm_utf8_check(s, n, &err);
		if (!err) {
			content_text(p, s, n);
			return;
		}
	}
	hm_buf_add(&p->pend, s, n);
	hm_buf_clear(&p->tmp);
	s = p->pend.p;
	n = p->pend.len;
	for (;;) {
		v = hm_utf8_check(s, n, &err);
		hm_buf_add(&p->tmp, s, v);
		s += v;
		n -= v;
		if (err <= 0)
			break;
		/* Text: s[0..n) ends at end; name the bad byte. */
		bad_utf8(p, p->text_mode ? end - n : p->pos, (size_t)err,
		    p->tmp.len, "invalid UTF-8 in content replaced by U+FFFD");
		hm_buf_add(&p->tmp, "\xEF\xBF\xBD", 3);
		s += err;
		n -= (size_t)err;
	}
	memmove(p->pend.p, s, n);
	p->pend.len = n;
	content_text(p, p->tmp.p, p->tmp.len);
}

/* Content bytes that end where the current unit does. */
static void
content_bytes(hm_parser *p, const char *s, size_t n)
{
	content_bytes_to(p, s, n, p->unit_end);
}

static void
content_unknown(hm_parser *p, uint32_t id)
{
	char num[16];
	int k = 0;
	uint32_t x = id;
	char rev[16];

	if (p->strict) {
		p->poisoned = 1;
		return;
	}
	do
		rev[k++] = (char)('0' + x % 10);
	while ((x /= 10));
	for (int i = 0; i < k; i++)
		num[i] = rev[k - 1 - i];
	warn(p, p->pos, HM_W_UTF8, "unknown token id %s replaced by U+FFFD", num, (size_t)k);
	if (p->pend.len) {
		hm_buf_clear(&p->pend);
		content_text(p, "\xEF\xBF\xBD", 3);
	}
	content_text(p, "\xEF\xBF\xBD", 3);
}

/* ---------------------------------------------------------------- header */

static void
header_begin(hm_parser *p, uint64_t at)
{
	hm_buf_clear(&p->hdr);
	p->started = 1;
	p->hdr_at = at;
	p->hdr_bad = 0;
	p->hdr_words = 0;
	p->hdr_wmax = HDR_MAX_WORDS;
	p->hdr_inword = 0;
	p->state = S_HEADER;
}

static void
header_add(hm_parser *p, const char *s, size_t n)
{
	size_t i;

	if (!p->hdr.len)
		p->hdr_off = p->pos;
	hm_buf_add(&p->hdr, s, n);
	for (i = 0; i < n; i++) {
		int ws = is_aws((unsigned char)s[i]);

		if (!ws && !p->hdr_inword) {
			size_t q = ++p->hdr_words, k = 0;

			if (q % HDR_MAX_WORDS == 0) {
				for (q /= HDR_MAX_WORDS; !(q & 1); q >>= 1)
					k++;
				if (q == 1 && k < 24)
					p->hdr_wofs[k] = p->hdr.len - n + i;
			}
		}
		p->hdr_inword = !ws;
	}
}

static int
is_ctype_word(const char *s, size_t n)
{
	static const char *const known[] = {
		"json", "code", "text", "markdown", "md", "yaml", "xml", "html",
		"csv", "toml",
	};
	size_t i, j;

	if (n >= 13 && !memcmp(s, "<|constrain|>", 13))
		return 1;
	for (i = 0; i < sizeof known / sizeof known[0]; i++) {
		if (strlen(known[i]) != n)
			continue;
		for (j = 0; j < n; j++)
			if ((s[j] | 0x20) != known[i][j])
				break;
		if (j == n)
			return 1;
	}
	return 0;
}

static int
known_channel(const char *s, size_t n)
{
	return (n == 8 && !memcmp(s, "analysis", 8)) ||
	    (n == 10 && !memcmp(s, "commentary", 10)) ||
	    (n == 5 && !memcmp(s, "final", 5));
}

/* The built-in tools (python, browser, container): not functions. */
static int
builtin_tool(const char *r, size_t n)
{
	return (n >= 6 && !memcmp(r, "python", 6)) ||
	    (n >= 7 && !memcmp(r, "browser", 7)) ||
	    (n >= 9 && !memcmp(r, "container", 9));
}

/*
 * F16: a recipient other than letters, digits and `_.-:/` (a blank,
 * non-ASCII letters), kept as written but worth a word.
 */
static int
odd_name(const char *r, size_t n)
{
	size_t i;

	if (find(r, n, "\xEF\xBF\xBD", 0) != (size_t)-1)
		return 0; /* F12's */
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)r[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
		    c == ':' || c == '/'))
			return 1;
	}
	return 0;
}

/* Default-mode fixes of a header the grammar accepted. */
static void
header_fix(hm_parser *p, struct hdr *h, uint64_t at)
{
	const char *hs = p->hs.p;

	if (h->has[F_RCPT] && !h->has[F_CTYPE] &&
	    is_ctype_word(hs + h->off[F_RCPT], h->len[F_RCPT])) {
		warn(p, at, HM_W_CONTENT_TYPE, "\"%s\" is a content type, not a recipient",
		    hs + h->off[F_RCPT], h->len[F_RCPT]);
		h->off[F_CTYPE] = h->off[F_RCPT];
		h->len[F_CTYPE] = h->len[F_RCPT];
		h->has[F_CTYPE] = 1;
		h->has[F_RCPT] = 0;
	}
	if (h->has[F_CHAN] && !known_channel(hs + h->off[F_CHAN], h->len[F_CHAN])) {
		size_t a = h->off[F_CHAN], b = a + h->len[F_CHAN];

		while (a < b && !((hs[a] | 0x20) >= 'a' && (hs[a] | 0x20) <= 'z'))
			a++;
		while (b > a && !((hs[b - 1] | 0x20) >= 'a' && (hs[b - 1] | 0x20) <= 'z'))
			b--;
		if (known_channel(hs + a, b - a)) {
			warn(p, at, HM_W_HEADER, "junk around channel \"%s\" ignored", hs + a, b - a);
			h->off[F_CHAN] = a;
			h->len[F_CHAN] = b - a;
		}
	}
	if (h->has[F_RCPT] && odd_name(hs + h->off[F_RCPT], h->len[F_RCPT]))
		warn(p, at, HM_W_RCPT_NAME, "recipient \"%s\" is not a plain name: kept as written",
		    hs + h->off[F_RCPT], h->len[F_RCPT]);
	if (h->has[F_RCPT] && h->role == ROLE_ASSISTANT) {
		const char *r = hs + h->off[F_RCPT];
		size_t n = h->len[F_RCPT];

		if (n == 9 && !memcmp(r, "assistant", 9))
			warn(p, at, HM_W_SELF, "recipient assistant on an assistant message: not a tool call", NULL, 0);
		else if (find(r, n, "\xEF\xBF\xBD", 0) != (size_t)-1)
			warn(p, at, HM_W_UTF8, "recipient \"%s\" is not readable: not a tool call", r, n);
		else if (!h->has[F_CHAN] && known_channel(r, n))
			warn(p, at, HM_W_HEADER, "channel name \"%s\" without <|channel|>: shown on that channel, not as a tool call", r, n);
		else if (n == 10 && !memcmp(r, "functions.", 10))
			warn(p, at, HM_W_BARE_NAME, "recipient functions. names no function: a call to \"\"", NULL, 0);
		else if (n && !memchr(r, '.', n) && !builtin_tool(r, n))
			warn(p, at, HM_W_BARE_NAME, "recipient \"%s\" has no namespace: taken as a function", r, n);
		if (n > 10 && !memcmp(r, "functions.", 10) && !(h->has[F_CHAN] &&
		    h->len[F_CHAN] == 10 && !memcmp(hs + h->off[F_CHAN], "commentary", 10)))
			warn(p, at, HM_W_CHANNEL, "tool call outside the commentary channel: classified by recipient", NULL, 0);
	}
}

/*
 * Default mode: models put blanks after <|channel|>, `to=` and
 * <|constrain|> (`<|channel|> final`, `to= functions.f`, the
 * `<|constrain|> json` of the format's own docs), which the grammar would
 * read as a lost channel or a word of its own.  Glue the next word to its
 * marker, warning once per kind, and return the header so fixed (in
 * p->norm, or s itself when nothing changed).
 */
static const char *
header_norm(hm_parser *p, const char *s, size_t *n, uint64_t at)
{
	static const struct {
		const char *mark;
		int code;
		const char *msg;
	} kinds[] = {
		{ "<|channel|>", HM_W_HEADER, "blank after <|channel|> ignored" },
		{ "to=", HM_W_RECIPIENT, "blank after to= ignored: the next word is the recipient" },
		{ "<|constrain|>", HM_W_CONTENT_TYPE, "blank after <|constrain|> ignored" },
	};
	hm_buf *t = &p->norm;
	size_t i = 0, j, k, m = 0, len = *n, last = 0;
	unsigned warned = 0, kind;
	uint32_t cp;

	hm_buf_clear(t);
	while (i < len) {
		for (kind = 0; kind < 3; kind++) {
			m = strlen(kinds[kind].mark);
			if (len - i >= m && !memcmp(s + i, kinds[kind].mark, m) &&
			    (kind != 1 || i == 0 || is_aws((unsigned char)s[i - 1])))
				break;
		}
		if (kind == 3) {
			i++;
			continue;
		}
		j = k = i + m;
		while (k < len) {
			size_t w = char_at(s, len, k, &cp);

			if (!is_uws(cp))
				break;
			k += w;
		}
		if (k > j && k < len && s[k] != '<') {
			hm_buf_add(t, s + last, j - last);
			last = k;
			if (!(warned & 1u << kind))
				warn(p, at, kinds[kind].code, kinds[kind].msg, NULL, 0);
			warned |= 1u << kind;
		}
		i = k;
	}
	if (!warned)
		return s;
	hm_buf_add(t, s + last, len - last);
	if (t->oom) {
		p->oom = 1;
		return s;
	}
	*n = t->len;
	return t->p;
}

/* Repair a header the grammar rejected; returns 0 and fills *h, or -1. */
static int
header_repair(hm_parser *p, const char *s, size_t n, int role, struct hdr *h,
    uint64_t at)
{
	hm_buf t = { 0 };
	size_t i, m;
	int r = -1;

	/* Drop an empty channel marker; lowercase a role. */
	hm_buf_add(&t, s, n);
	if ((m = find(t.p, t.len, "<|channel|>", 0)) != (size_t)-1) {
		size_t e = m + 11;

		if (e == t.len || t.p[e] == '<' || is_aws((unsigned char)t.p[e])) {
			memmove(t.p + m, t.p + e, t.len - e);
			t.len -= 11;
		}
	}
	if (role == R_NONE) {
		for (i = 0; i < t.len && !is_aws((unsigned char)t.p[i]) && t.p[i] != '<'; i++)
			;
		if (i && t.p[0] >= 'A' && t.p[0] <= 'Z') {
			char w[16];

			if (i < sizeof w) {
				for (m = 0; m < i; m++)
					w[m] = (char)(t.p[m] | 0x20);
				if (role_index(w, i) >= 0)
					memcpy(t.p, w, i);
			}
		}
	}
	if (t.oom)
		goto out;
	if (parse_header(p, t.p, t.len, role, 1, h) == 0) {
		warn(p, at, HM_W_HEADER, "malformed header repaired: %s", s, n);
		r = 0;
	}
out:
	hm_buf_free(&t);
	return r;
}

/* header_split: drop blanks at hs[j..) when a word follows (`to= x`). */
static void
glue_blanks(hm_buf *hs, size_t j)
{
	size_t k = j;

	while (k < hs->len && is_aws((unsigned char)hs->p[k]))
		k++;
	if (k > j && k < hs->len && hs->p[k] != '<') {
		memmove(hs->p + j, hs->p + k, hs->len - k);
		hs->len -= k - j;
	}
}

static int
ctype_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '_' || c == '-' || c == '.' || c == '+' || c == '/';
}

/*
 * Split a header that never reached <|message|> into its header part and
 * the content that follows (F7, F8).  Fills *h with offsets into p->hs and
 * returns the content's offset in p->hs, or -1 when no role is known.
 */
static size_t
header_split(hm_parser *p, int role, struct hdr *h, int *consumed)
{
	const char *s;
	size_t n, i = 0, e;
	hm_buf *hs = &p->hs;

	memset(h, 0, sizeof *h);
	h->role = role;
	*consumed = 0;
	hm_buf_clear(hs);
	add_lossy(hs, p->hdr.p, p->hdr.len);
	s = hs->p ? hs->p : "";
	n = hs->len;
	for (;;) {
		while (i < n && is_aws((unsigned char)s[i]))
			i++;
		if (i >= n)
			break;
		/* As in header_norm: a marker takes the word after its blanks. */
		if (n - i >= 11 && !memcmp(s + i, "<|channel|>", 11))
			glue_blanks(hs, i + 11);
		else if (n - i >= 13 && !memcmp(s + i, "<|constrain|>", 13))
			glue_blanks(hs, i + 13);
		else if (n - i >= 3 && !memcmp(s + i, "to=", 3)) {
			size_t k = i + 3;

			/* Not `to= {...}`: that brace is content, not a recipient. */
			while (k < n && is_aws((unsigned char)s[k]))
				k++;
			if (k == n || (s[k] != '{' && s[k] != '['))
				glue_blanks(hs, i + 3);
		}
		n = hs->len;
		if (!strncmp(s + i, "<|channel|>", n - i < 11 ? n - i : 11) && n - i >= 11) {
			for (e = i + 11; e < n && !is_aws((unsigned char)s[e]) && s[e] != '<'; e++)
				;
			{
				/* `<|channel|>finalThe answer`: a channel name glued to the content. */
				static const char *const ch[] = { "analysis", "commentary", "final" };
				size_t k, m;

				for (k = 0; k < 3; k++) {
					m = strlen(ch[k]);
					if (e - i - 11 > m && !memcmp(s + i + 11, ch[k], m)) {
						e = i + 11 + m;
						break;
					}
				}
			}
			if (e > i + 11) {
				h->off[F_CHAN] = i + 11;
				h->len[F_CHAN] = e - i - 11;
				h->has[F_CHAN] = 1;
			}
			i = e;
			*consumed = 1;
			continue;
		}
		if (n - i >= 13 && !memcmp(s + i, "<|constrain|>", 13)) {
			/* A content type is a name: `<|constrain|>json{...}` has content after it. */
			for (e = i + 13; e < n && !is_aws((unsigned char)s[e]) && s[e] != '<' &&
			    (e == i + 13 || ctype_char((unsigned char)s[e])); e++)
				;
			h->off[F_CTYPE] = i;
			h->len[F_CTYPE] = e - i;
			h->has[F_CTYPE] = 1;
			i = e;
			*consumed = 1;
			continue;
		}
		for (e = i; e < n && !is_aws((unsigned char)s[e]) && s[e] != '<' &&
		    !(e >= i + 3 && !memcmp(s + i, "to=", 3) && (s[e] == '{' || s[e] == '[')); e++)
			;
		if (*consumed && !h->has[F_CTYPE]) {
			/* `to=f json{...}`: a content type glued to the content. */
			size_t k = i;

			while (k < e && (((unsigned char)s[k] | 0x20) >= 'a' && ((unsigned char)s[k] | 0x20) <= 'z'))
				k++;
			if (k > i && is_ctype_word(s + i, k - i) && (k == e || s[k] == '{' || s[k] == '[')) {
				h->off[F_CTYPE] = i;
				h->len[F_CTYPE] = k - i;
				h->has[F_CTYPE] = 1;
				i = k;
				continue;
			}
		}
		if (e - i > 3 && !memcmp(s + i, "to=", 3)) {
			h->off[F_RCPT] = i + 3;
			h->len[F_RCPT] = e - i - 3;
			h->has[F_RCPT] = 1;
			i = e;
			*consumed = 1;
			continue;
		}
		if (!*consumed && (e - i) && role_index(s + i, e - i) >= 0 &&
		    (h->role < 0 || h->role == role_index(s + i, e - i))) {
			h->role = role_index(s + i, e - i);
			i = e;
			*consumed = 1;
			continue;
		}
		break;
	}
	if (h->role < 0)
		return (size_t)-1;
	return i;
}

/*
 * Whether the header holds header words alone (`assistant<|channel|>final`):
 * cut off by <|start|>, it is restarted, not an empty message.
 */
static int
header_bare(hm_parser *p)
{
	struct hdr h;
	int consumed;
	size_t c = header_split(p, p->first_msg ? p->next_role : R_NONE, &h, &consumed);

	return c != (size_t)-1 && c >= p->hs.len;
}

/*
 * The offset in p->hdr of the text at offset c of p->hs (header_split):
 * hs is hdr with each invalid sequence as U+FFFD and, before c only, some
 * blanks dropped, so the text from c on is that of the same bytes of hdr.
 */
static size_t
hdr_raw_off(const hm_parser *p, size_t c)
{
	const char *s = p->hdr.p;
	size_t n = p->hdr.len, i = 0, v, o = 0, want;
	int err;

	/* The lossy length of hdr, less that of the text from c. */
	for (;;) {
		v = hm_utf8_check(s + i, n - i, &err);
		o += v;
		i += v;
		if (i >= n)
			break;
		o += 3;
		i = err < 0 ? n : i + (size_t)err;
	}
	want = o - (p->hs.len - c);
	for (i = o = 0;;) {
		v = hm_utf8_check(s + i, n - i, &err);
		if (o + v >= want)
			return i + (want - o);
		o += v;
		i += v;
		if (i >= n)
			return n;
		o += 3;
		i = err < 0 ? n : i + (size_t)err;
	}
}

/*
 * The header ended without <|message|> (a stop token, <|start|>, EOS, or it
 * grew too long).  Default mode: make a message of it when it holds text.
 * go_on: switch to content instead of ending the message.
 */
static void
header_recover(hm_parser *p, hm_stop stop, int go_on)
{
	struct hdr h;
	size_t c, r, tail = 0;
	int consumed, err, plain, hold, role = p->first_msg ? p->next_role : R_NONE;
	uint64_t hat = p->hdr_at;
	hm_buf body = { 0 };

	p->next_role = R_NONE;
	if (go_on) {
		/* Keep an incomplete character for the content. */
		hm_utf8_check(p->hdr.p, p->hdr.len, &err);
		if (err < 0) {
			size_t v = p->hdr.len;

			while (v > 0 && ((unsigned char)p->hdr.p[v - 1] & 0xC0) == 0x80)
				v--;
			if (v > 0)
				v--;
			tail = p->hdr.len - v;
		}
		p->hdr.len -= tail;
	}
	c = header_split(p, role, &h, &consumed);
	if (c == (size_t)-1 && !p->strict) {
		size_t i;

		/* No role, yet text: the model's, so the assistant's (F2). */
		for (i = 0; i < p->hdr.len && is_aws((unsigned char)p->hdr.p[i]); i++)
			;
		if (i < p->hdr.len) {
			warn(p, hat, HM_W_NO_START, "header without a role: assistant assumed", NULL, 0);
			c = header_split(p, ROLE_ASSISTANT, &h, &consumed);
		}
	}
	if (c == (size_t)-1) {
		if (stop == HM_STOP_EOS) {
			p->trunc = 1;
			warn(p, hat, HM_W_TRUNCATED, "stream ended inside a header", NULL, 0);
		} else
			warn(p, hat, HM_W_HEADER, "header without a role skipped", NULL, 0);
		p->state = go_on ? S_SKIP : S_START;
		return;
	}
	if (c >= p->hs.len && !go_on) {
		/* Nothing but a header. */
		if (stop == HM_STOP_EOS) {
			if (p->hdr.len || !p->first_msg || p->role0 == R_NONE) {
				p->trunc = 1;
				warn(p, hat, HM_W_TRUNCATED, "stream ended inside a header", NULL, 0);
			}
			p->state = S_START;
			return;
		}
		if (!consumed) {
			if (p->hdr.len)
				warn(p, hat, HM_W_NO_MESSAGE, "empty header skipped", NULL, 0);
			p->state = S_START;
			return;
		}
	}
	/* The content is the header's bytes from r on, checked as content. */
	r = hdr_raw_off(p, c);
	if (hm_utf8_check(p->hdr.p, r, &err) < r)
		warn(p, hat, HM_W_UTF8, "invalid UTF-8 in header replaced by U+FFFD", NULL, 0);
	plain = !consumed && p->first_msg && !p->saw_special;
	/*
	 * F18: text with no channel (no header, or a role alone) waits until
	 * the next message tells whether it was reasoning.
	 */
	hold = !h.has[F_CHAN] && !h.has[F_RCPT] && !p->holding && !p->strict &&
	    !(plain && p->marker.len) && h.role == ROLE_ASSISTANT;
	if (hold) {
		/* F18: held until the next message tells what it is. */
		p->held = 1;
		p->hq = p->qlen;
		p->ha = p->arena.len;
	}
	if (consumed)
		warn(p, hat, HM_W_NO_MESSAGE, "no <|message|> after the header: the rest is content", NULL, 0);
	else if (!(plain && p->marker.len))
		warn(p, hat, HM_W_NO_HEADER, "text without a header taken as content", NULL, 0);
	hm_buf_add(&body, p->hdr.p + r, p->hdr.len + tail - r);
	if (plain && p->marker.len) {
		/* --marker: plain text starts as reasoning. */
		h.off[F_CHAN] = p->hs.len;
		h.len[F_CHAN] = 8;
		h.has[F_CHAN] = 1;
		hm_buf_adds(&p->hs, "analysis");
	}
	emit_start(p, &h, p->hs.p, hat);
	if (hold) {
		p->holding = 1;
		p->hstart = p->qlen - 1;
	}
	content_begin(p, p->hdr_off + r);
	p->state = S_CONTENT;
	p->plain = plain;
	if (plain && p->marker.len)
		p->split = 2;
	else if (plain && hold && p->text_mode)
		p->split = 1; /* F18 with stripped specials: `I think.assistantfinal4` */
	if (body.len)
		content_bytes_to(p, body.p, body.len, p->hdr_off + r + body.len);
	hm_buf_free(&body);
	if (!go_on)
		finish_msg(p, stop);
}

/*
 * F13: text whose special tokens a server stripped
 * (`analysisUser asks…assistantfinal4`).  Only a stream that starts with a
 * stripped header counts: a channel name glued to the text and, later in
 * the first STRIP_MAX bytes, another stripped header (`assistantfinal`),
 * or a recipient right away (`commentary to=functions.f json{…}`).  Plain
 * text that happens to start with a channel name (`analysis: the data`)
 * stays plain.  Returns 1 once the messages have started, 0 when the
 * header is not one, -1 while it cannot be told yet.
 */
static int
stripped_start(hm_parser *p, int at_end)
{
	const char *s = p->hdr.p;
	size_t n = p->hdr.len, lim, len, l2, q;
	struct shdr sh, s2;
	int r, all;
	uint32_t cp;

	if (!p->text_mode || p->saw_special || !p->first_msg || p->strict ||
	    p->next_role != ROLE_ASSISTANT || !n)
		return 0;
	lim = n < STRIP_MAX ? n : STRIP_MAX;
	all = at_end || n >= STRIP_MAX;
	/* `analysisHi…` or `assistantanalysisHi…` */
	r = strip_header(s, lim, all, 1, &sh, &len);
	if (r == 0)
		r = strip_header(s, lim, all, 0, &sh, &len);
	if (r <= 0)
		return r;
	if (!sh.has_r) {
		/* Glued to the text, and another header later. */
		if (len == lim)
			return all ? 0 : -1;
		char_at(s, lim, len, &cp);
		if (is_uws(cp))
			return 0;
		if (p->strip_scan < len)
			p->strip_scan = len;
		for (q = p->strip_scan; q < lim; q++) {
			if (s[q] != 'a')
				continue;
			r = strip_header(s + q, lim - q, all, 0, &s2, &l2);
			if (r > 0)
				break;
			if (r < 0)
				return -1;
		}
		p->strip_scan = q;
		if (q == lim)
			return all ? 0 : -1;
	}
	warn(p, p->hdr_at, HM_W_STRIPPED, "special tokens appear stripped: splitting the text at channel names", NULL, 0);
	p->next_role = R_NONE;
	{
		hm_buf body = { 0 }, hd = { 0 };

		hm_buf_add(&hd, s, len);
		hm_buf_add(&body, s + len, n - len);
		strip_start(p, &sh, hd.p, p->hdr_at, p->hdr_off + len);
		p->split = 1;
		content_bytes(p, body.p, body.len);
		hm_buf_free(&body);
		hm_buf_free(&hd);
	}
	return 1;
}

/* Whether s[0..n) holds a blank the grammar did not split at (U+00A0). */
static int
has_uws(const char *s, size_t n)
{
	size_t i = 0;
	uint32_t cp;

	while (i < n) {
		i += char_at(s, n, i, &cp);
		if (is_uws(cp))
			return 1;
	}
	return 0;
}

/*
 * Whether a field s[0..n) of the reference's reading holds special-token
 * text, a blank or starts with to=.
 */
static int
field_bad(const char *s, size_t n)
{
	return find(s, n, "<|", 0) != (size_t)-1 || (n >= 3 && !memcmp(s, "to=", 3)) ||
	    has_uws(s, n);
}

/*
 * Whether the reference grammar's reading *h of the header s[0..n) can be
 * trusted: no field holds special-token text, no content type that is
 * none, and no part of the header was written twice (which the grammar
 * would read as another part).
 */
static int
header_clean(hm_parser *p, const char *s, size_t n, const struct hdr *h)
{
	const char *hs = p->hs.p;
	size_t i, m, nto = 0, nch = 0;
	int j;

	if (h->has[F_NAME] && (find(hs + h->off[F_NAME], h->len[F_NAME], "<|", 0) != (size_t)-1 ||
	    has_uws(hs + h->off[F_NAME], h->len[F_NAME])))
		return 0;
	if (h->has[F_CHAN] && field_bad(hs + h->off[F_CHAN], h->len[F_CHAN]))
		return 0;
	for (j = 0; j < 2; j++) {
		int f = j ? F_CTYPE : F_RCPT;
		const char *t = hs + h->off[f];
		size_t k = h->len[f];

		if (!h->has[f])
			continue;
		if (k >= 13 && !memcmp(t, "<|constrain|>", 13)) {
			/* A lone <|constrain|>JSON is F3's (header_fix). */
			if (k == 13 || field_bad(t + 13, k - 13) ||
			    (f == F_RCPT && h->has[F_CTYPE]))
				return 0;
		} else if (field_bad(t, k) || (f == F_RCPT && !k && h->has[F_CTYPE]))
			return 0;
	}
	/*
	 * `to=functions.Web Search`: the grammar reads a content type
	 * "Search".  Content types are lowercase names; a word with a capital
	 * is more of the recipient.
	 */
	if (h->has[F_CTYPE] && h->has[F_RCPT] && hs[h->off[F_CTYPE]] >= 'A' &&
	    hs[h->off[F_CTYPE]] <= 'Z' && !hm__ctype_word(hs + h->off[F_CTYPE], h->len[F_CTYPE]))
		return 0;
	/*
	 * `<|channel|>final extra words`: two words, neither `to=` nor a
	 * content type, are no recipient and content type but junk.
	 */
	if (h->has[F_CTYPE] && h->has[F_RCPT] && !(h->off[F_RCPT] >= 3 &&
	    !memcmp(hs + h->off[F_RCPT] - 3, "to=", 3)) &&
	    !hm__ctype_word(hs + h->off[F_CTYPE], h->len[F_CTYPE]) &&
	    !(h->len[F_CTYPE] >= 13 && !memcmp(hs + h->off[F_CTYPE], "<|constrain|>", 13)))
		return 0;
	for (i = 0; i < n; i++) {
		if ((m = hm__hdr_mark_len(s, n, i))) {
			if (m == 11 && !memcmp(s + i, "<|channel|>", 11))
				nch++;
			else if (!(m == 13 && !memcmp(s + i, "<|constrain|>", 13)))
				return 0;
			i += m - 1;
			continue;
		}
		if (n - i >= 3 && !memcmp(s + i, "to=", 3) && (i == 0 ||
		    is_aws((unsigned char)s[i - 1]) || s[i - 1] == '>'))
			nto++;
	}
	return nto <= 1 && nch <= 1;
}

/*
 * The tolerant grammar (parse_header.c) reads the header s[0..n): fills
 * *h with offsets into p->hs and warns for what it repaired.  -1 when out
 * of memory.
 */
static int
header_loose(hm_parser *p, const char *s, size_t n, int role, struct hdr *h)
{
	struct hm_hdr_parts hp;
	uint64_t at = p->hdr_at;
	unsigned fl;
	int f;

	memset(&hp, 0, sizeof hp);
	if (hm__hdr_loose(s, n, role, &hp) < 0) {
		hm_buf_free(&hp.buf);
		p->oom = 1;
		return -1;
	}
	fl = hp.flags;
	memset(h, 0, sizeof *h);
	hm_buf_clear(&p->hs);
	hm_buf_add(&p->hs, hp.buf.p, hp.buf.len);
	h->role = hp.role;
	for (f = 0; f < 4; f++) {
		h->off[f] = hp.off[f];
		h->len[f] = hp.len[f];
		h->has[f] = hp.has[f];
	}
	if (fl & HM_HP_NO_ROLE)
		warn(p, at, HM_W_NO_START, "header without a role: assistant assumed", NULL, 0);
	if (fl & HM_HP_ANALYSIS)
		warn(p, at, HM_W_REPEAT, "header names two channels, one of them analysis: taken as analysis: %s", s, n);
	else if (fl & HM_HP_DIFFER)
		warn(p, at, HM_W_REPEAT, "header part written twice with different values, the last kept: %s", s, n);
	else if (fl & HM_HP_REPEAT)
		warn(p, at, HM_W_REPEAT, "header part written twice, read once: %s", s, n);
	if (fl & HM_HP_SPECIAL)
		warn(p, at, HM_W_SPECIAL, "special token inside a header ends the part before it: %s", s, n);
	if (fl & HM_HP_BARE_CHAN)
		warn(p, at, HM_W_HEADER, "channel name without <|channel|>: %s", s, n);
	if (fl & (HM_HP_EMPTY | HM_HP_BLANK))
		warn(p, at, HM_W_HEADER, "header marker without a value or with blanks after it: %s", s, n);
	if (fl & HM_HP_JUNK) {
		if (!h->has[F_CHAN] && h->role == ROLE_ASSISTANT) {
			/* When in doubt between reasoning and answer: reasoning. */
			h->off[F_CHAN] = p->hs.len;
			h->len[F_CHAN] = 8;
			h->has[F_CHAN] = 1;
			hm_buf_adds(&p->hs, "analysis");
			warn(p, at, HM_W_HEADER, "junk in header left out, the message kept as analysis: %s",
			    s + hp.junk_off, hp.junk_len);
		} else
			warn(p, at, HM_W_HEADER, "junk in header left out: %s", s + hp.junk_off, hp.junk_len);
	}
	if (!(fl & (HM_HP_NO_ROLE | HM_HP_REPEAT | HM_HP_SPECIAL | HM_HP_EMPTY |
	    HM_HP_BLANK | HM_HP_JUNK | HM_HP_BARE_CHAN)) && !(h->has[F_RCPT] &&
	    odd_name(p->hs.p + h->off[F_RCPT], h->len[F_RCPT])))
		warn(p, at, HM_W_HEADER, "malformed header repaired: %s", s, n);
	hm_buf_free(&hp.buf);
	if (p->hs.oom) {
		p->oom = 1;
		return -1;
	}
	return 0;
}

/*
 * The text so far of the stream's first header (no <|start|>), or of one
 * after `<|start|>assistant `, is prose (`I think.` before a
 * <|channel|>), not header words.
 */
static int
header_prose(hm_parser *p)
{
	hm_buf t = { 0 };
	int r;

	if (p->strict || !p->hdr.len || (!(p->first_msg && p->next_role == ROLE_ASSISTANT) &&
	    !(!p->first_msg && p->hdr.len > 9 && !memcmp(p->hdr.p, "assistant", 9) &&
	    is_aws((unsigned char)p->hdr.p[9]))))
		return 0;
	add_lossy(&t, p->hdr.p, p->hdr.len);
	r = !t.oom && hm__hdr_is_prose(t.p, t.len);
	hm_buf_free(&t);
	return r;
}

/*
 * A header of many words may still be one: parts written twice, a
 * recipient with blanks.  Whether its words before word hdr_wmax (so
 * that the reads do not matter) are all header parts.
 */
static int
header_parts_only(hm_parser *p)
{
	hm_buf t = { 0 };
	size_t n, k = 0, q;
	int r;

	if (p->strict)
		return 0;
	/* The words before word hdr_wmax, whatever the reads brought. */
	for (q = p->hdr_wmax / HDR_MAX_WORDS; q > 1; q >>= 1)
		k++;
	if (k >= 24)
		return 0;
	n = p->hdr_wofs[k];
	add_lossy(&t, p->hdr.p, n);
	r = !t.oom && !hm__hdr_is_prose(t.p ? t.p : "", t.len);
	hm_buf_free(&t);
	return r;
}

/* <|message|>: parse the header and enter the content. */
static void
header_done(hm_parser *p)
{
	struct hdr h;
	int role = p->first_msg ? p->next_role : R_NONE, err;
	const char *s = p->hdr.p ? p->hdr.p : "";
	size_t n = p->hdr.len;

	if (p->strict) {
		hm_utf8_check(s, n, &err);
		if (p->hdr_bad || err) {
			fails(p, p->pos, "could not decode header");
			return;
		}
		if (parse_header(p, s, n, role, 1, &h) < 0) {
			fail(p, p->pos, p->tmp.p, p->tmp.len);
			return;
		}
		p->next_role = R_NONE;
		emit_start(p, &h, p->hs.p, p->hdr_at);
		p->state = S_CONTENT;
		return;
	}
	hm_utf8_check(s, n, &err);
	if (err) {
		hm_buf t = { 0 };

		warn(p, p->hdr_at, HM_W_UTF8, "invalid UTF-8 in header replaced by U+FFFD", NULL, 0);
		add_lossy(&t, s, n);
		hm_buf_clear(&p->hdr);
		hm_buf_add(&p->hdr, t.p, t.len);
		hm_buf_free(&t);
		s = p->hdr.p;
		n = p->hdr.len;
	}
	p->next_role = R_NONE;
	{
		/* The reference's reading, unless it fails or is not clean. */
		size_t q0 = p->qlen, a0 = p->arena.len, n0 = n;
		const char *s0 = s;

		s = header_norm(p, s, &n, p->hdr_at);
		if ((parse_header(p, s, n, role, 1, &h) < 0 &&
		    header_repair(p, s, n, role, &h, p->hdr_at) < 0) ||
		    !header_clean(p, s0, n0, &h)) {
			p->qlen = q0;
			p->arena.len = a0;
			if (header_loose(p, s0, n0, role, &h) < 0)
				return;
		}
	}
	header_fix(p, &h, p->hdr_at);
	emit_start(p, &h, p->hs.p, p->hdr_at);
	p->state = S_CONTENT;
}

/* ---------------------------------------------------------------- the machine */

static int
is_stop(uint32_t id)
{
	return id == HM_TOK_RETURN || id == HM_TOK_END || id == HM_TOK_CALL;
}

static hm_stop
stop_of(uint32_t id)
{
	return id == HM_TOK_RETURN ? HM_STOP_RETURN : id == HM_TOK_CALL ?
	    HM_STOP_CALL : HM_STOP_END;
}

static void
first_unit(hm_parser *p, int is_start)
{
	p->first = 0;
	if (p->role0 == R_AUTO)
		p->next_role = is_start ? R_NONE : ROLE_ASSISTANT;
	if (p->next_role != R_NONE) {
		header_begin(p, p->pos);
		p->first_msg = 1;
	}
}

static void
junk_add(hm_parser *p, const char *s, size_t n)
{
	if (s)
		hm_buf_add(&p->junk, s, n);
	else
		hm_buf_add(&p->junk, "\xEF\xBF\xBD", 3);
	p->junk_end = p->text_mode ? p->unit_end : p->pos + 1;
	if (p->junk.oom)
		p->oom = 1;
}

/* The text after a stop is a role word alone (`assistant`): its index, or -1. */
static int
junk_role(hm_parser *p)
{
	size_t a = 0, b = p->junk.len;

	while (a < b && is_aws((unsigned char)p->junk.p[a]))
		a++;
	while (b > a && is_aws((unsigned char)p->junk.p[b - 1]))
		b--;
	return role_index(p->junk.p + a, b - a);
}

/* The text after a stop is header words (`to=functions.f`), not prose. */
static int
junk_header(hm_parser *p)
{
	hm_buf t = { 0 };
	size_t i;
	int r;

	for (i = 0; i < p->junk.len && is_aws((unsigned char)p->junk.p[i]); i++)
		;
	if (i == p->junk.len || p->junk.len - i < 3 || memcmp(p->junk.p + i, "to=", 3))
		return 0;
	add_lossy(&t, p->junk.p, p->junk.len);
	r = !t.oom && !hm__hdr_is_prose(t.p, t.len);
	hm_buf_free(&t);
	return r;
}

/*
 * Text after a stop, and another message after it: not what follows a
 * completion's last stop (F9's to skip) but model output, kept.  Reasoning
 * or answer?  In doubt: reasoning.
 */
static void
junk_keep(hm_parser *p, hm_stop stop)
{
	struct hdr h;
	uint64_t pos = p->pos, end = p->unit_end;

	p->junk_on = 0;
	memset(&h, 0, sizeof h);
	h.role = ROLE_ASSISTANT;
	h.has[F_CHAN] = 1;
	h.len[F_CHAN] = 8;
	if (p->holding == 1)
		hold_release(p, 1);
	if (stop == HM_STOP_NONE && !p->holding) {
		/* Kept only if a stop follows: else it was after the last one. */
		p->holding = 2;
		p->hq = p->qlen;
		p->ha = p->arena.len;
	}
	warn(p, p->junk_at, HM_W_AFTER_STOP, stop == HM_STOP_NONE ?
	    "text after a stop, before another message, kept as reasoning (analysis)" :
	    "text after a stop, ended by another stop, kept as reasoning (analysis)", NULL, 0);
	p->pos = p->junk_at;
	p->unit_end = p->junk_at;
	emit_start(p, &h, "analysis", p->junk_at);
	p->state = S_CONTENT;
	content_bytes_to(p, p->junk.p, p->junk.len, p->junk_at + p->junk.len);
	p->pos = stop == HM_STOP_NONE ? p->junk_end : pos;
	finish_msg(p, stop);
	p->jend = p->qlen;
	p->pos = pos;
	p->unit_end = end;
	hm_buf_clear(&p->junk);
}

static void
skip_warn(hm_parser *p, uint64_t at, const char *what)
{
	if (p->skip_warned)
		return;
	p->skip_warned = at + 1;
	warn(p, at, HM_W_AFTER_STOP, what, NULL, 0);
}

static void step(hm_parser *p, uint32_t id, int special, const char *s, size_t n);

static void
peek_add(hm_parser *p, uint32_t id, int special, const char *s, size_t n)
{
	struct punit *u;

	if (p->npk == p->cappk) {
		size_t c = p->cappk ? p->cappk * 2 : 8;

		if (!(u = realloc(p->pk, c * sizeof *u))) {
			p->oom = 1;
			return;
		}
		p->pk = u;
		p->cappk = c;
	}
	u = &p->pk[p->npk++];
	u->id = id;
	u->special = special;
	u->known = s != NULL;
	u->off = p->pkb.len;
	u->len = s ? n : 0;
	u->pos = p->pos;
	u->end = p->unit_end;
	if (s)
		hm_buf_add(&p->pkb, s, n);
}

/*
 * After <|start|> or <|channel|> in content: 1 when the text t[0..n)
 * after it begins a header (a role, a channel name), 0 when it does not,
 * -1 when more is needed (never with closed: nothing more comes).
 */
static int
peek_header(uint32_t id, const char *t, size_t n, int closed)
{
	static const char *const chans[] = { "analysis", "commentary", "final" };
	size_t i = 0, k, m;
	int more = 0;

	if (id == HM_TOK_CHANNEL)
		while (i < n && (t[i] == ' ' || t[i] == '\t'))
			i++;
	for (k = 0; k < (id == HM_TOK_START ? 5u : 3u); k++) {
		const char *w = id == HM_TOK_START ? role_names[k] : chans[k];

		m = strlen(w);
		if (n - i < m) {
			if (!memcmp(t + i, w, n - i))
				more = 1;
			continue;
		}
		if (memcmp(t + i, w, m))
			continue;
		if (n - i == m)
			return closed ? 1 : -1;
		if (!((t[i + m] | 0x20) >= 'a' && (t[i + m] | 0x20) <= 'z') &&
		    !(t[i + m] >= '0' && t[i + m] <= '9') && t[i + m] != '_')
			return 1;
	}
	return more && !closed ? -1 : 0;
}

/* S_PEEK: decide when the units held tell; then run them again. */
static void
peek_decide(hm_parser *p, int closed)
{
	struct punit *v = p->pk, *u;
	hm_buf b = p->pkb;
	size_t n = p->npk, i, tl = 0;
	uint64_t pos = p->pos, end = p->unit_end;
	int r;

	/* The ordinary text after the token, up to the next special. */
	for (i = 1; i < n && p->pk[i].known && !p->pk[i].special; i++)
		tl = p->pk[i].off + p->pk[i].len - p->pk[1].off;
	if (i < n)
		closed = 1;
	r = peek_header(v[0].id, n > 1 ? b.p + v[1].off : "", tl, closed);
	if (r < 0)
		return;
	/* The units go again through the machine, which may peek anew. */
	p->pk = NULL;
	p->npk = p->cappk = 0;
	memset(&p->pkb, 0, sizeof p->pkb);
	p->pos = v[0].pos;
	p->unit_end = v[0].end;
	if (r > 0) {
		finish_msg(p, HM_STOP_NONE);
		warn(p, p->pos, HM_W_SPECIAL, v[0].id == HM_TOK_START ?
		    "<|start|> inside a message ends it" :
		    "<|channel|> inside a message ends it: assistant assumed", NULL, 0);
		header_begin(p, p->pos);
		if (v[0].id == HM_TOK_CHANNEL) {
			p->first_msg = 1;
			p->next_role = ROLE_ASSISTANT;
			header_add(p, b.p + v[0].off, v[0].len);
		} else {
			p->first_msg = 0;
			p->next_role = R_NONE;
		}
	} else {
		/* Text after all, as the reference has it. */
		p->state = S_CONTENT;
		p->tc_special = 1;
		content_bytes(p, b.p + v[0].off, v[0].len);
		p->tc_special = 0;
	}
	for (i = 1; i < n; i++) {
		u = &v[i];
		p->pos = u->pos;
		p->unit_end = u->end;
		step(p, u->id, u->special, u->known ? b.p + u->off : NULL, u->len);
	}
	p->pos = pos;
	p->unit_end = end;
	free(v);
	hm_buf_free(&b);
}

/* One token (or text unit).  s/n: its bytes (NULL for an unknown id). */
static void
step(hm_parser *p, uint32_t id, int special, const char *s, size_t n)
{
	if (special)
		p->saw_special = 1;
	if (special && is_stop(id) && p->holding == 2)
		p->holding = 0; /* the text held was not after the last stop */
	if (p->first)
		first_unit(p, special && id == HM_TOK_START);
	switch (p->state) {
	case S_START:
		p->first_msg = 0;
		if (special && id == HM_TOK_START) {
			p->skip_warned = 0;
			header_begin(p, p->pos);
			return;
		}
		if (p->strict) {
			if (s && !special && p->text_mode) {
				fails(p, p->pos, "Unexpected text while expecting start token 200006");
			} else {
				char b[80];
				int k = snprintf(b, sizeof b, "Unexpected token %lu while expecting start token 200006", (unsigned long)id);

				fail(p, p->pos, b, (size_t)k);
			}
			return;
		}
		if (special && is_stop(id)) {
			warn(p, p->pos, HM_W_AFTER_STOP, "stray stop token ignored", NULL, 0);
			return;
		}
		if (special && id == HM_TOK_CHANNEL) {
			warn(p, p->pos, HM_W_NO_START, "<|channel|> without <|start|>: assistant assumed", NULL, 0);
			header_begin(p, p->pos);
			p->first_msg = 1;
			p->next_role = ROLE_ASSISTANT;
			header_add(p, s, n);
			return;
		}
		{
			/* Whitespace between messages is not worth a word. */
			size_t i = 0;

			while (!special && s && i < n && is_aws((unsigned char)s[i]))
				i++;
			if (!special && s && i == n)
				return;
			if (!p->started) {
				/* --role none, yet no <|start|>: the model's own text. */
				warn(p, p->pos, HM_W_NO_START, "stream does not start with <|start|>: assistant assumed", NULL, 0);
				header_begin(p, p->pos);
				p->first_msg = 1;
				p->next_role = ROLE_ASSISTANT;
				step(p, id, special, s, n);
				return;
			}
			if (!p->skip_warned && !p->junk_on) {
				p->junk_on = 1;
				p->junk_at = p->pos + (p->text_mode ? i : 0);
				hm_buf_clear(&p->junk);
				junk_add(p, s ? s + i : NULL, n - i);
				p->state = S_SKIP;
				return;
			}
			skip_warn(p, p->pos + (p->text_mode ? i : 0),
			    "tokens after a stop skipped up to the next <|start|>");
		}
		p->state = S_SKIP;
		return;
	case S_SKIP:
		if (special && (id == HM_TOK_START || id == HM_TOK_CHANNEL)) {
			int role = ROLE_ASSISTANT;

			if (p->junk_on && id == HM_TOK_CHANNEL && (role = junk_role(p)) >= 0) {
				/* `<|end|>assistant<|channel|>`: <|start|> left out. */
				p->junk_on = 0;
				warn(p, p->junk_at, HM_W_NO_START, "header without <|start|>", NULL, 0);
			} else if (p->junk_on && id == HM_TOK_CHANNEL && junk_header(p)) {
				/* `<|call|>to=functions.f<|channel|>`: the header's start. */
				hm_buf jt = p->junk;
				uint64_t jat = p->junk_at;

				memset(&p->junk, 0, sizeof p->junk);
				p->junk_on = 0;
				warn(p, jat, HM_W_NO_START, "header without <|start|>: assistant assumed", NULL, 0);
				p->skip_warned = 0;
				header_begin(p, jat);
				p->first_msg = 1;
				p->next_role = ROLE_ASSISTANT;
				header_add(p, jt.p, jt.len);
				header_add(p, s, n);
				hm_buf_free(&jt);
				return;
			} else {
				role = ROLE_ASSISTANT;
				if (p->junk_on)
					junk_keep(p, HM_STOP_NONE);
				if (id == HM_TOK_CHANNEL)
					warn(p, p->pos, HM_W_NO_START, "<|channel|> without <|start|>: assistant assumed", NULL, 0);
			}
			p->skip_warned = 0;
			p->first_msg = 0;
			header_begin(p, p->pos);
			if (id == HM_TOK_CHANNEL) {
				/* A message without <|start|> after skipped text: not lost. */
				p->first_msg = 1;
				p->next_role = role;
				header_add(p, s, n);
			}
		} else if (p->junk_on && special && id == HM_TOK_MESSAGE) {
			/* `<|call|>commentary to=f json<|message|>`: the text was a header. */
			hm_buf jt = p->junk;
			uint64_t jat = p->junk_at;

			memset(&p->junk, 0, sizeof p->junk);
			p->junk_on = 0;
			warn(p, jat, HM_W_NO_START, "header without <|start|>: assistant assumed", NULL, 0);
			p->skip_warned = 0;
			header_begin(p, jat);
			p->first_msg = 1;
			p->next_role = ROLE_ASSISTANT;
			header_add(p, jt.p, jt.len);
			hm_buf_free(&jt);
			header_done(p);
		} else if (p->junk_on && special && is_stop(id)) {
			/* Text and a stop: a message without a header, not the last. */
			junk_keep(p, stop_of(id));
			p->state = S_START;
		} else if (p->junk_on)
			junk_add(p, s, n);
		return;
	case S_HEADER:
		if (special && id == HM_TOK_MESSAGE) {
			header_done(p);
			return;
		}
		if (!p->strict && special && is_stop(id)) {
			header_recover(p, stop_of(id), 0);
			return;
		}
		if (!p->strict && special && id == HM_TOK_START) {
			if (p->hdr.len && !header_bare(p)) {
				header_recover(p, HM_STOP_NONE, 0);
				if (p->state == S_SKIP)
					p->state = S_START;
			} else {
				warn(p, p->pos, HM_W_HEADER, "<|start|> inside a header: header restarted", NULL, 0);
			}
			p->next_role = R_NONE;
			p->first_msg = 0;
			header_begin(p, p->pos);
			return;
		}
		if (!p->strict && special && id == HM_TOK_CHANNEL && header_prose(p)) {
			/* `I think.<|channel|>final`: the text is a message, the header starts here. */
			header_recover(p, HM_STOP_NONE, 0);
			if (p->state == S_SKIP)
				p->state = S_START;
			header_begin(p, p->pos);
			p->first_msg = 1;
			p->next_role = ROLE_ASSISTANT;
			header_add(p, s, n);
			return;
		}
		if (!s) {
			if (p->strict) {
				p->hdr_bad = 1;
			} else {
				warn(p, p->pos, HM_W_UTF8, "unknown token id in header replaced by U+FFFD", NULL, 0);
				header_add(p, "\xEF\xBF\xBD", 3);
			}
			return;
		}
		header_add(p, s, n);
		if (!p->strict) {
			int r = stripped_start(p, 0);

			if (r > 0)
				return;
			while (r == 0 && p->hdr_words >= p->hdr_wmax && p->hdr.len <= HDR_MAX_BYTES &&
			    header_parts_only(p))
				p->hdr_wmax *= 2;
			if (r == 0 && (p->hdr_words >= p->hdr_wmax || p->hdr.len > HDR_MAX_BYTES))
				header_recover(p, HM_STOP_NONE, 1);
		}
		return;
	case S_PEEK:
		peek_add(p, id, special, s, n);
		peek_decide(p, special || !s);
		return;
	case S_CONTENT:
		if (special && is_stop(id)) {
			finish_msg(p, stop_of(id));
			return;
		}
		if (!p->strict && special && (id == HM_TOK_START || id == HM_TOK_CHANNEL)) {
			/* Did the model leave out <|end|>?  The next units tell. */
			p->state = S_PEEK;
			p->npk = 0;
			hm_buf_clear(&p->pkb);
			peek_add(p, id, special, s, n);
			return;
		}
		if (!s) {
			content_unknown(p, id);
			return;
		}
		p->tc_special = special;
		content_bytes(p, s, n);
		p->tc_special = 0;
		return;
	default:
		return;
	}
}

static void
eos(hm_parser *p)
{
	struct qev *e;

	if (p->first) {
		p->first = 0;
		if (p->role0 == R_AUTO)
			p->next_role = R_NONE;
		if (p->next_role != R_NONE) {
			header_begin(p, 0);
			p->first_msg = 1;
		}
	}
	if (p->state == S_PEEK)
		peek_decide(p, 1);
	if (p->holding == 2) {
		/* The text kept was after the last stop after all: skipped. */
		static const char msg[] = "tokens after a stop skipped up to the next <|start|>";
		struct qev *e = &p->q[p->hq];

		if (p->hq < p->jend && p->jend <= p->qlen) {
			memmove(p->q + p->hq + 1, p->q + p->jend, (p->qlen - p->jend) * sizeof *p->q);
			p->qlen -= p->jend - p->hq - 1;
			e->type = HM_EV_WARNING;
			e->code = HM_W_AFTER_STOP;
			memset(e->has, 0, sizeof e->has);
			setf(p, e, F_TEXT, msg, sizeof msg - 1);
		}
		p->holding = 0;
	}
	if (p->junk_on) {
		/* After the last stop: skipped. */
		p->junk_on = 0;
		skip_warn(p, p->junk_at, "tokens after a stop skipped up to the next <|start|>");
	}
	switch (p->state) {
	case S_HEADER:
		if (p->strict) {
			fails(p, p->pos, "Unexpected EOS while waiting for message header to complete");
			return;
		}
		if (stripped_start(p, 1) > 0) {
			finish_msg(p, HM_STOP_EOS);
			break;
		}
		header_recover(p, HM_STOP_EOS, 0);
		break;
	case S_CONTENT:
		finish_msg(p, HM_STOP_EOS);
		break;
	case S_DONE:
		return;
	default:
		break;
	}
	p->holding = 0;
	e = push(p, HM_EV_DONE, p->pos);
	if (e)
		e->truncated = p->trunc;
	p->state = S_DONE;
}

/* ---------------------------------------------------------------- text input */

/*
 * The next text unit at p->tin[tpos..): a special token or a run of other
 * bytes.  Returns 0 when more input is needed to decide.
 */
static int
text_unit(hm_parser *p)
{
	const char *s = p->tin.p + p->tpos;
	size_t n = p->tin.len - p->tpos, i, j;
	uint32_t id;

	if (!n)
		return 0;
	if (s[0] == '<') {
		if (n < 2 && !p->fin)
			return 0;
		if (n >= 2 && s[1] == '|') {
			for (j = 2; j < n && j < 32; j++)
				if (s[j] == '>' && s[j - 1] == '|')
					break;
			if (j >= n && !p->fin)
				return 0;
			if (j < n && s[j] == '>' && hm_special_lookup(s, j + 1, &id)) {
				p->saw_special = 1;
				p->unit_end = p->pos + j + 1;
				step(p, id, 1, s, j + 1);
				p->tpos += j + 1;
				p->pos += j + 1;
				return 1;
			}
		}
		i = 1;
	} else
		i = 0;
	/* A long run goes in pieces: the events of one unit are queued at once. */
	while (i < n && s[i] != '<' && i < TEXT_UNIT_MAX)
		i++;
	p->unit_end = p->pos + i;
	step(p, 0, 0, s, i);
	p->tpos += i;
	p->pos += i;
	return 1;
}

/* ---------------------------------------------------------------- fast path */

/*
 * Whether a token's bytes are whole UTF-8 characters.  Nearly every token
 * is ASCII, which a word-at-a-time test settles; the check is done per use,
 * so there is no shared table to fill or guard.
 */
static int
whole_chars(const char *s, size_t n)
{
	unsigned acc = 0;
	size_t i;
	int err;

	for (i = 0; i < n; i++)
		acc |= (unsigned char)s[i];
	if (acc < 0x80)
		return 1;
	return hm_utf8_check(s, n, &err) == n && !err;
}

/* Longest merged delta: bounds the run buffer whatever one feed holds. */
#define RUN_MAX (1u << 20)

#define HIGH8 UINT64_C(0x8080808080808080)

/* The low n (0..8) bytes of a word. */
static uint64_t
low_bytes(size_t n)
{
	return n >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * n)) - 1;
}

/*
 * Start a run with the token s[0..n) (already consumed) and take every
 * following token that also has whole characters; the caller has checked
 * that the parser is in plain content.  Tokens of up to 16 bytes are moved
 * and checked for ASCII as two words: the buffer keeps 16 bytes of room,
 * and the vocabulary is read past a token only when that stays inside it.
 * 0 when out of memory.
 */
static int
merge_run(hm_parser *p, const char *s, size_t n)
{
	const uint32_t *v = p->in.v, *off = hm__vocab_off;
	const unsigned char *vb = hm__vocab_bytes;
	size_t i = p->ipos, end = p->in.len, a;
	size_t total = off[HM_N_ORDINARY];
	hm_buf *r = &p->run;
	uint64_t x0, x1;

	hm_buf_clear(r);
	if (hm_buf_reserve(r, n + 16) < 0) {
		r->oom = 0;
		return 0;
	}
	memcpy(r->p, s, n);
	r->len = n;
	for (; i < end && r->len < RUN_MAX; i++) {
		uint32_t id = v[i];

		if (id >= HM_N_ORDINARY)
			break;
		a = off[id];
		n = off[id + 1] - a;
		if (r->cap - r->len <= n + 16 && hm_buf_reserve(r, n + 16) < 0)
			break;
		if (n <= 16 && a + 16 <= total) {
			memcpy(&x0, vb + a, 8);
			memcpy(&x1, vb + a + 8, 8);
			/* Any byte >= 0x80 in the token: the slow check. */
			if (((x0 & low_bytes(n)) | (x1 & low_bytes(n > 8 ? n - 8 : 0))) &
			    HIGH8 && !whole_chars((const char *)vb + a, n))
				break;
			memcpy(r->p + r->len, &x0, 8);
			memcpy(r->p + r->len + 8, &x1, 8);
		} else {
			if (!whole_chars((const char *)vb + a, n))
				break;
			memcpy(r->p + r->len, vb + a, n);
		}
		r->len += n;
	}
	r->p[r->len] = '\0';
	r->oom = 0;
	p->pos += i - p->ipos;
	p->ipos = i;
	return 1;
}

/* ---------------------------------------------------------------- API */

hm_parser *
hm_parser_new(const char *role, unsigned flags)
{
	hm_parser *p;
	int r;

	if (!role || !strcmp(role, "none"))
		r = R_NONE;
	else if (!strcmp(role, "auto"))
		r = R_AUTO;
	else if ((r = role_index(role, strlen(role))) < 0)
		return NULL;
	p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->flags = flags;
	p->strict = (flags & HM_PARSE_STRICT) != 0;
	p->role0 = r;
	p->next_role = r == R_AUTO ? R_NONE : r;
	p->state = S_START;
	p->first = 1;
	return p;
}

void
hm_parser_free(hm_parser *p)
{
	if (!p)
		return;
	hm_buf_free(&p->hdr);
	hm_buf_free(&p->junk);
	free(p->pk);
	hm_buf_free(&p->pkb);
	hm_buf_free(&p->m);
	hm_buf_free(&p->pend);
	hm_buf_free(&p->hold);
	hm_buf_free(&p->marker);
	hm_buf_free(&p->hs);
	hm_buf_free(&p->words);
	hm_buf_free(&p->tmp);
	hm_buf_free(&p->norm);
	hm_buf_free(&p->tc);
	free(p->mk);
	free(p->hmk);
	hm_ids_free(&p->tids);
	hm_encoder_free(p->enc);
	hm_ids_free(&p->in);
	hm_buf_free(&p->tin);
	hm_buf_free(&p->arena);
	hm_buf_free(&p->run);
	free(p->q);
	free(p);
}

void
hm_parser_set_merge(hm_parser *p, int on)
{
	p->merge = on != 0;
}

hm_status
hm_parser_set_marker(hm_parser *p, const char *marker, size_t len)
{
	hm_buf_clear(&p->marker);
	hm_buf_add(&p->marker, marker, len);
	return p->marker.oom ? HM_ENOMEM : HM_OK;
}

hm_status
hm_parser_feed(hm_parser *p, const uint32_t *ids, size_t n)
{
	if (p->ipos == p->in.len)
		p->in.len = p->ipos = 0;
	return hm_ids_append(&p->in, ids, n);
}

hm_status
hm_parser_feed_text(hm_parser *p, const char *buf, size_t len)
{
	p->text_mode = 1;
	if (p->tpos) {
		memmove(p->tin.p, p->tin.p + p->tpos, p->tin.len - p->tpos);
		p->tin.len -= p->tpos;
		p->tpos = 0;
	}
	hm_buf_add(&p->tin, buf, len);
	return p->tin.oom ? HM_ENOMEM : HM_OK;
}

void
hm_parser_finish(hm_parser *p)
{
	p->fin = 1;
}

/* What was pulled goes: the held events move to the front of the queue. */
static void
hold_compact(hm_parser *p)
{
	size_t i, k = p->qlen - p->hq;
	int f;

	memmove(p->q, p->q + p->hq, k * sizeof *p->q);
	for (i = 0; i < k; i++)
		for (f = 0; f < F_N; f++)
			if (p->q[i].has[f])
				p->q[i].off[f] -= p->ha;
	memmove(p->arena.p, p->arena.p + p->ha, p->arena.len - p->ha);
	p->arena.len -= p->ha;
	p->hstart -= p->hq;
	p->jend -= p->hq;
	p->qhead = p->hq = p->ha = 0;
	p->qlen = k;
}

int
hm_parser_next(hm_parser *p, hm_event *ev)
{
	struct qev *e;
	int f;

	/*
	 * The hot path: an ordinary token of whole characters inside content
	 * is a delta of the vocabulary's own bytes; nothing is queued.  With
	 * merging, a run of such tokens is one delta.
	 */
	if (p->qhead == p->qlen && p->state == S_CONTENT && !p->text_mode &&
	    p->ipos < p->in.len && !p->pend.len && !p->poisoned && !p->split &&
	    !p->holding) {
		uint32_t id = p->in.v[p->ipos];
		size_t n;
		const char *s;

		if (id < HM_N_ORDINARY && (s = hm_token_bytes(id, &n)) &&
		    whole_chars(s, n)) {
			memset(ev, 0, sizeof *ev);
			ev->type = HM_EV_DELTA;
			ev->at = p->pos++;
			p->ipos++;
			if (p->merge && merge_run(p, s, n)) {
				ev->text.p = p->run.p;
				ev->text.len = p->run.len;
			} else {
				ev->text.p = s;
				ev->text.len = n;
			}
			return 1;
		}
	}
	if (p->qhead == (p->holding ? p->hq : p->qlen)) {
		if (p->holding)
			hold_compact(p);
		else {
			p->qhead = p->qlen = 0;
			hm_buf_clear(&p->arena);
		}
		while (p->qhead == (p->holding ? p->hq : p->qlen) && !p->done) {
			if (p->text_mode) {
				if (!text_unit(p)) {
					if (!p->fin)
						break;
					eos(p);
					p->done = 1;
				}
			} else if (p->ipos < p->in.len) {
				uint32_t id = p->in.v[p->ipos++];
				size_t n = 0;
				const char *s = hm_token_bytes(id, &n);

				step(p, id, s && hm_is_special(id), s, n);
				p->pos++;
			} else if (p->fin) {
				eos(p);
				p->done = 1;
			} else
				break;
			if (p->state == S_DONE && !p->done) {
				p->done = 1;
			}
		}
	}
	if (p->qhead == (p->holding ? p->hq : p->qlen))
		return 0;
	e = &p->q[p->qhead++];
	memset(ev, 0, sizeof *ev);
	ev->type = e->type;
	ev->at = e->at;
	ev->role = e->role >= 0 ? role_names[e->role] : NULL;
	for (f = 0; f < F_N; f++) {
		hm_span *sp = f == F_NAME ? &ev->name : f == F_RCPT ? &ev->recipient :
		    f == F_CHAN ? &ev->channel : f == F_CTYPE ? &ev->content_type : &ev->text;

		if (e->has[f]) {
			sp->p = p->arena.p + e->off[f];
			sp->len = e->len[f];
		}
	}
	ev->stop = e->stop;
	ev->code = e->code;
	ev->truncated = e->truncated;
	return 1;
}

uint64_t
hm_parser_position(const hm_parser *p)
{
	return p->pos;
}

void
hm_parser_skip(hm_parser *p)
{
	p->pos++;
}

uint64_t
hm_parser_oldest(const hm_parser *p)
{
	uint64_t at = p->pos;

	if (p->state == S_HEADER && p->hdr_at < at)
		at = p->hdr_at;
	if (p->state == S_PEEK && p->npk && p->pk[0].pos < at)
		at = p->pk[0].pos;
	if (p->junk_on && p->junk_at < at)
		at = p->junk_at;
	if (p->text_mode && p->pend.len && p->pos - p->pend.len < at)
		at = p->pos - p->pend.len;
	if (p->mk_head < p->nmk && p->mk[p->mk_head].at < at)
		at = p->mk[p->mk_head].at;
	if (p->nhmk && p->hmk[0].at < at)
		at = p->hmk[0].at;
	if (p->holding && p->hq < p->qlen && p->q[p->hq].at < at)
		at = p->q[p->hq].at;
	return at;
}

const char *
hm_stop_name(hm_stop stop)
{
	switch (stop) {
	case HM_STOP_END: return "end";
	case HM_STOP_RETURN: return "return";
	case HM_STOP_CALL: return "call";
	case HM_STOP_EOS: return "eos";
	default: return "none";
	}
}
