/*
 * records_scan.c - NDJSON log records in one pass over their usual forms
 * (records_int.h): an id array straight into ids, the other members kept
 * as compact bytes.  The ids reader (ids_io.c) and the public record
 * reader (records.c) build on it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "records_int.h"

/*
 * Members that name a server's response or stream chunk: a record with
 * one of them is looked at whole (server_shapes.c), not taken as a log
 * record on its first id or text member.
 */
static const struct {
	unsigned char n; /* strlen(s) */
	const char *s;
} server_keys[] = {
#define K(lit) { sizeof lit - 1, lit }
	K("choices"), K("outputs"), K("meta_info"), K("stop"), K("message"),
	K("response"), K("token"), K("generated_text"), K("details"),
	K("text_output"), K("error"), K("done"), { 0, NULL },
#undef K
};

static int
server_key(const char *k, size_t n)
{
	size_t i;

	for (i = 0; server_keys[i].s; i++)
		if (server_keys[i].n == n && !memcmp(k, server_keys[i].s, n))
			return 1;
	return 0;
}

/* Text key slots follow the id key slots; at most this many text names. */
enum { MAX_TEXT_KEYS = 16, MAX_DEPTH = 64 };

static int
is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t
skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && is_ws((unsigned char)s[i]))
		i++;
	return i;
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * The number at s[i..n): the index past it when it is a JSON number (the
 * carried form keeps it as written), else 0.
 */
static size_t
number(const char *s, size_t n, size_t i)
{
	size_t j = i;

	if (j < n && s[j] == '-')
		j++;
	if (j >= n || !is_digit(s[j]))
		return 0;
	if (s[j] == '0')
		j++;
	else
		while (j < n && is_digit(s[j]))
			j++;
	if (j < n && s[j] == '.') {
		if (++j >= n || !is_digit(s[j]))
			return 0;
		while (j < n && is_digit(s[j]))
			j++;
	}
	if (j < n && (s[j] == 'e' || s[j] == 'E')) {
		j++;
		if (j < n && (s[j] == '+' || s[j] == '-'))
			j++;
		if (j >= n || !is_digit(s[j]))
			return 0;
		while (j < n && is_digit(s[j]))
			j++;
	}
	return j;
}

/*
 * Past the bytes from s[j] that a string holds as they are and need no
 * look (all but '"', '\\', control characters and bytes >= 0x80, which
 * string() checks one by one), a word at a time while one can be read.
 * (x - ONES * c) & ~x flags the bytes below c; equality is "below 1"
 * after an xor; a borrow can flag a byte only after one flagged rightly,
 * so the lowest flag is the first byte that needs a look.
 */
static size_t
plain_bytes(const unsigned char *u, size_t j, size_t n)
{
	for (; j + 8 <= n; j += 8) {
		uint64_t x = hm_le64(u + j), q = x ^ HM_ONES * '"', e = x ^ HM_ONES * '\\';
		uint64_t m = (((x - HM_ONES * 0x20) & ~x) | ((q - HM_ONES) & ~q) |
		    ((e - HM_ONES) & ~e) | x) & HM_ONES * 0x80;

		if (m)
			return j + hm_low_byte(m);
	}
	return j;
}

/*
 * The string at s[i] == '"': the index past its closing quote when it is
 * in the carried form (hm_buf_json_str's escapes: \" \\ \b \f \n \r \t,
 * \u00xx in lowercase for the other control characters, all else valid
 * UTF-8 as it is), else 0.
 */
/* 1: a string byte that needs a look ('"', '\\', control, non-ASCII). */
static const unsigned char look[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

static size_t
string(const char *s, size_t n, size_t i)
{
	size_t j, k;

	for (j = i + 1; j < n; j++) {
		unsigned char c;
		int v;

		if ((j = plain_bytes((const unsigned char *)s, j, n)) >= n)
			return 0;
		c = (unsigned char)s[j];
		if (!look[c])
			continue;
		if (c == '"')
			return j + 1;
		if (c < 0x20)
			return 0;
		if (c >= 0x80) {
			if (!(k = hm__utf8_len((const unsigned char *)s + j, n - j)))
				return 0;
			j += k - 1;
			continue;
		}
		if (++j >= n)
			return 0;
		switch (s[j]) {
		case '"': case '\\': case 'b': case 'f': case 'n': case 'r': case 't':
			continue;
		case 'u':
			if (j + 4 >= n || s[j + 1] != '0' || s[j + 2] != '0' ||
			    (s[j + 3] != '0' && s[j + 3] != '1') ||
			    hm__hexval(s[j + 4]) < 0 || (s[j + 4] >= 'A' && s[j + 4] <= 'F'))
				return 0;
			v = (s[j + 3] - '0') * 16 + hm__hexval(s[j + 4]);
			if (v == 8 || v == 9 || v == 10 || v == 12 || v == 13)
				return 0;
			j += 4;
			continue;
		default:
			return 0;
		}
	}
	return 0;
}

/*
 * A value at s[*pi], copied to out (when not NULL; its owner's flag nm)
 * without blanks.  Blanks are allowed between tokens only with ws.  0:
 * not in the carried form (a failed append is in *nm).
 */
static int
value(const char *s, size_t n, size_t *pi, int *nm, hm_buf *out, int ws, int depth)
{
	size_t i = *pi, e;
	char close;

	if (i >= n)
		return 0;
	switch (s[i]) {
	case '"':
		if (!(e = string(s, n, i)))
			return 0;
		break;
	case 't':
		if (n - i < 4 || memcmp(s + i, "true", 4))
			return 0;
		e = i + 4;
		break;
	case 'f':
		if (n - i < 5 || memcmp(s + i, "false", 5))
			return 0;
		e = i + 5;
		break;
	case 'n':
		if (n - i < 4 || memcmp(s + i, "null", 4))
			return 0;
		e = i + 4;
		break;
	case '[':
	case '{':
		if (depth >= MAX_DEPTH)
			return 0;
		close = s[i] == '[' ? ']' : '}';
		if (out)
			hm__putc(nm, out, s[i]);
		i++;
		if (ws)
			i = skip_ws(s, n, i);
		if (i < n && s[i] == close) {
			if (out)
				hm__putc(nm, out, close);
			*pi = i + 1;
			return 1;
		}
		for (;;) {
			if (close == '}') {
				if (i >= n || s[i] != '"' || !(e = string(s, n, i)))
					return 0;
				if (out)
					hm__put(nm, out, s + i, e - i);
				i = ws ? skip_ws(s, n, e) : e;
				if (i >= n || s[i] != ':')
					return 0;
				if (out)
					hm__putc(nm, out, ':');
				i++;
				if (ws)
					i = skip_ws(s, n, i);
			}
			if (!value(s, n, &i, nm, out, ws, depth + 1))
				return 0;
			if (ws)
				i = skip_ws(s, n, i);
			if (i < n && s[i] == ',') {
				if (out)
					hm__putc(nm, out, ',');
				i++;
				if (ws)
					i = skip_ws(s, n, i);
				continue;
			}
			if (i < n && s[i] == close) {
				if (out)
					hm__putc(nm, out, close);
				*pi = i + 1;
				return 1;
			}
			return 0;
		}
	default:
		if (!(e = number(s, n, i)))
			return 0;
		break;
	}
	if (out)
		hm__put(nm, out, s + i, e - i);
	*pi = e;
	return 1;
}

/* v onto ids, its owner's flag nm: 0 when it fails. */
static int
push(int *nm, hm_ids *ids, uint32_t v)
{
	if (ids->len < ids->cap) {
		ids->v[ids->len++] = v;
		return 1;
	}
	if (hm_ids_push(ids, v) == HM_OK)
		return 1;
	*nm = 1;
	return 0;
}

/*
 * An id array at s[*pi] == '[' into *ids (its owner's flag nm): plain
 * decimal numbers up to 2^32-1 (the carried form of each), a word at a
 * time.  0: anything else, for the general reader to judge, or out of
 * memory (in *nm).
 */
static int
id_array(const char *s, size_t n, size_t *pi, int *nm, hm_ids *ids)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = *pi + 1;
	uint64_t v;
	unsigned k;

	ids->len = 0;
	i = skip_ws(s, n, i);
	if (i < n && s[i] == ']') {
		*pi = i + 1;
		return 1;
	}
	for (;;) {
		/*
		 * The common case: ids of 1 to 7 digits, each followed by a
		 * comma (blanks after it skipped where they are met), while a
		 * word can be read; the ids go in through locals.
		 */
		{
			uint32_t *ov = ids->v;
			size_t olen = ids->len, ocap = ids->cap;
			int stop = 0;

			while (i + 8 <= n) {
				uint64_t a = hm_le64(u + i) - HM_ONES * '0', nz = hm_nondigits(a);
				uint32_t id;

				if (!nz)
					break;
				if (!(k = hm_low_byte(nz))) {
					if (!is_ws(u[i]))
						break;
					i = skip_ws(s, n, i);
					continue;
				}
				/*
				 * A leading zero (the low byte of a is 0): the
				 * general reader's (HM_JV_LAX reads 01 as 1).
				 */
				if (!(a & 0xFF) && k > 1)
					return 0;
				id = hm_digits_less0(a, k);
				if (olen == ocap) {
					ids->len = olen;
					if (!push(nm, ids, id))
						return 0;
					ov = ids->v;
					olen = ids->len;
					ocap = ids->cap;
				} else
					ov[olen++] = id;
				i += k;
				if (u[i] != ',') {
					stop = 1;
					break;
				}
				i++;
			}
			ids->len = olen;
			if (stop)
				goto sep;
			/* Blanks after a comma, where no word could be read. */
			if (i < n && is_ws(u[i]))
				i = skip_ws(s, n, i);
		}
		if (i + 8 <= n && (k = hm_lead_digits(v = hm_le64(u + i))) - 1 < 7) {
			if (k > 1 && s[i] == '0')
				return 0;
			if (!push(nm, ids, hm_digits_value(v, k)))
				return 0;
			i += k;
		} else {
			size_t st = i;

			for (v = 0; i < n && is_digit(s[i]) && i - st < 11; i++)
				v = v * 10 + (uint64_t)(s[i] - '0');
			if (i == st || (i - st > 1 && s[st] == '0') || v > UINT32_MAX ||
			    (i < n && is_digit(s[i])))
				return 0;
			if (!push(nm, ids, (uint32_t)v))
				return 0;
		}
sep:
		if (i < n && s[i] == ',') {
			i++;
			if (i < n && s[i] == ' ')
				i++;
			if (i < n && is_ws((unsigned char)s[i]))
				i = skip_ws(s, n, i);
			continue;
		}
		if (i < n && is_ws((unsigned char)s[i]))
			i = skip_ws(s, n, i);
		if (i < n && s[i] == ',') {
			i = skip_ws(s, n, i + 1);
			continue;
		}
		if (i < n && s[i] == ']') {
			*pi = i + 1;
			return 1;
		}
		return 0;
	}
}

int
hm__rec_id_array_to(int *nomem, const char *s, size_t n, size_t *end, hm_ids *ids)
{
	size_t i = 0;

	if (!n || s[0] != '[' || !id_array(s, n, &i, nomem, ids))
		return 0;
	*end = i;
	return 1;
}

/*
 * Decode the JSON string at s[0] == '"' (any valid escapes) into out (its
 * owner's flag nm): 0 when it is not one string (a failed append is in *nm).
 */
static int
decode_string(const char *s, size_t n, int *nm, hm_buf *out)
{
	size_t i, run;
	int e;

	hm_buf_reset(out);
	(void)hm__reserve(nm, out, n);
	for (i = 1; i < n;) {
		for (run = i; run < n && s[run] != '"' && s[run] != '\\' &&
		    (unsigned char)s[run] >= 0x20; run++)
			;
		hm__put(nm, out, s + i, run - i);
		i = run;
		if (i >= n || (unsigned char)s[i] < 0x20)
			return 0;
		if (s[i] == '"')
			return i + 1 == n;
		if (++i >= n)
			return 0;
		if ((e = hm__json_escape(s[i])) >= 0) {
			hm__putc(nm, out, (char)e);
			i++;
			continue;
		}
		if (s[i++] == 'u') {
			uint32_t cp;
			size_t k = hm__json_uescape(s + i, n - i, &cp);

			if (!k)
				return 0;
			hm__add_cp(nm, out, cp);
			i += k;
			continue;
		}
		return 0;
	}
	return 0;
}

/* The end of the JSON string at s[i] == '"', any valid escapes; 0: none. */
static size_t
string_end(const char *s, size_t n, size_t i)
{
	for (i++; i < n; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return 0;
}

/* 0: out of memory (r->nomem set). */
static int
member_add(struct hm_rec *r, size_t off, int slot)
{
	if (r->nm == r->capm) {
		size_t cap = r->capm ? r->capm * 2 : 16;
		struct hm_rec_member *m = realloc(r->m, cap * sizeof *m);

		if (!m) {
			r->nomem = 1;
			return 0;
		}
		r->m = m;
		r->capm = cap;
	}
	r->m[r->nm].off = off;
	r->m[r->nm].len = r->tmp.len - off;
	r->m[r->nm++].slot = slot;
	return 1;
}

/*
 * Carried members are kept as often as they come; a name given twice is
 * noted (dup_off, dup_len) for the caller's warning.  A bit of 64 per
 * name (*sig, the record's: its length and some bytes) finds most names
 * new at once; the name s[0..n) (quotes included) is compared with the
 * earlier members only when its bit is set.
 */
static void
dup_note(struct hm_rec *r, uint64_t *sig, const char *s, size_t n)
{
	unsigned h = (unsigned)n * 7u ^ (unsigned char)s[1] ^ ((unsigned)(unsigned char)s[n - 2] << 1);
	uint64_t bit = (uint64_t)1 << (h & 63);
	size_t k;

	if ((*sig & bit) && !r->dup_len)
		for (k = 0; k < r->nm; k++) {
			const char *t = r->tmp.p + r->m[k].off;

			if (r->m[k].len > n && t[n] == ':' && !memcmp(t, s, n)) {
				r->dup_off = r->m[k].off + 1;
				r->dup_len = n - 2;
				break;
			}
		}
	*sig |= bit;
}

/* Whether the key k[0..n) is name (the first byte rules out most names). */
static int
key_is(const char *k, size_t n, const char *name)
{
	return name[0] == (n ? k[0] : '\0') && strlen(name) == n && !memcmp(k, name, n);
}

/*
 * A member's slot: 0..3 the first of an id key, then the first of each
 * text key (which is the text if a string: seen 1, else seen 2: the first
 * of a name alone is looked at); -1 any other member; -2 an id key whose value is not
 * an array, or an id or text key given twice (an error, or not, depending
 * on the other keys: the general reader judges).
 */
static int
key_slot(const struct hm_rec *r, const char *k, size_t n,
    const char *const *text_keys, char next)
{
	size_t i;

	/* a key that may be the one read, given twice: the general reader judges */
	for (i = 0; i < HM_REC_NKEYS; i++)
		if (key_is(k, n, hm__id_keys[i]))
			return r->seen[i] || next != '[' ? -2 : (int)i;
	for (i = 0; text_keys && text_keys[i] && i < MAX_TEXT_KEYS; i++)
		if (key_is(k, n, text_keys[i]))
			return r->seen[HM_REC_NKEYS + i] ? -2 : HM_REC_NKEYS + (int)i;
	return -1;
}

int
hm__rec_scan(struct hm_rec *r, const char *s, size_t n,
    const char *const *text_keys)
{
	size_t i, k, id_off = 0, id_len = 0, tstart[MAX_TEXT_KEYS], tend[MAX_TEXT_KEYS];
	unsigned char tcanon[MAX_TEXT_KEYS];
	int slot, best, *nm = &r->nomem;
	uint64_t sig = 0;

	hm_buf_reset(&r->tmp);
	r->dup_len = 0;
	hm_buf_reset(&r->fields);
	hm_buf_reset(&r->id);
	r->nm = 0;
	r->has_id = r->is_text = r->server = 0;
	r->key = -1;
	r->ids = NULL;
	memset(r->seen, 0, sizeof r->seen);
	if (!n || s[0] != '{')
		return HM_REC_SLOW;
	i = skip_ws(s, n, 1);
	if (i < n && s[i] == '}') {
		r->end = i + 1;
		return HM_REC_SLOW; /* no ids: the general reader says so */
	}
	for (;;) {
		size_t ks = i, ke, off = r->tmp.len, vs;

		if (i >= n || s[i] != '"' || !(ke = string(s, n, i)))
			return HM_REC_SLOW;
		i = skip_ws(s, n, ke);
		if (i >= n || s[i] != ':')
			return HM_REC_SLOW;
		i = skip_ws(s, n, i + 1);
		if (i >= n)
			return HM_REC_SLOW;
		if ((slot = key_slot(r, s + ks + 1, ke - ks - 2, text_keys, s[i])) == -2)
			return HM_REC_SLOW;
		if (slot == -1 && !r->server && server_key(s + ks + 1, ke - ks - 2))
			r->server = 1;
		/*
		 * past 64 members each name would be compared with all before
		 * it: the general reader looks for names given twice in
		 * linear time
		 */
		if (r->nm >= 64)
			return HM_REC_SLOW;
		dup_note(r, &sig, s + ks, ke - ks);
		if (slot >= HM_REC_NKEYS && s[i] != '"') {
			r->seen[slot] = 2;
			slot = -1;
		}
		hm__put(nm, &r->tmp, s + ks, ke - ks);
		hm__putc(nm, &r->tmp, ':');
		vs = r->tmp.len;
		if (slot >= 0 && slot < HM_REC_NKEYS) {
			if (!id_array(s, n, &i, nm, &r->slot[slot]))
				return HM_REC_SLOW;
			r->seen[slot] = 1;
		} else if (slot >= HM_REC_NKEYS) {
			size_t t = (size_t)slot - HM_REC_NKEYS, e = string(s, n, i);

			tcanon[t] = e != 0;
			if (!e && !(e = string_end(s, n, i)))
				return HM_REC_SLOW;
			tstart[t] = i;
			tend[t] = e;
			if (tcanon[t])
				hm__put(nm, &r->tmp, s + i, e - i);
			i = e;
			r->seen[slot] = 1;
		} else if (!value(s, n, &i, nm, &r->tmp, 1, 0))
			return HM_REC_SLOW;
		if (!r->has_id && ke - ks == 4 && !memcmp(s + ks, "\"id\"", 4)) {
			r->has_id = 1;
			id_off = vs;
			id_len = r->tmp.len - vs;
		}
		if (!member_add(r, off, slot))
			return HM_REC_SLOW;
		i = skip_ws(s, n, i);
		if (i < n && s[i] == ',') {
			i = skip_ws(s, n, i + 1);
			continue;
		}
		if (i < n && s[i] == '}')
			break;
		return HM_REC_SLOW;
	}
	r->end = i + 1;
	for (best = 0; best < HM_REC_NKEYS && !r->seen[best]; best++)
		;
	if (best == HM_REC_NKEYS) {
		for (; best < HM_REC_NKEYS + MAX_TEXT_KEYS && r->seen[best] != 1; best++)
			;
		if (best == HM_REC_NKEYS + MAX_TEXT_KEYS)
			return HM_REC_SLOW;
		r->is_text = 1;
	} else {
		r->key = best;
		r->ids = &r->slot[best];
	}
	/* The members but the one read, in order, in the carried form. */
	for (k = 0; k < r->nm; k++) {
		const struct hm_rec_member *m = &r->m[k];

		if (m->slot == best)
			continue;
		if (r->fields.len)
			hm__putc(nm, &r->fields, ',');
		hm__put(nm, &r->fields, r->tmp.p + m->off, m->len);
		if (m->slot >= 0 && m->slot < HM_REC_NKEYS) {
			const hm_ids *o = &r->slot[m->slot];
			size_t j;

			hm__putc(nm, &r->fields, '[');
			for (j = 0; j < o->len; j++) {
				if (j)
					hm__putc(nm, &r->fields, ',');
				hm__addu(nm, &r->fields, o->v[j]);
			}
			hm__putc(nm, &r->fields, ']');
		} else if (m->slot >= HM_REC_NKEYS && !tcanon[m->slot - HM_REC_NKEYS])
			return HM_REC_SLOW;
	}
	if (r->has_id)
		hm__put(nm, &r->id, r->tmp.p + id_off, id_len);
	/* allocated and NUL-terminated even when empty: read as strings */
	hm__put(nm, &r->fields, "", 0);
	hm__put(nm, &r->id, "", 0);
	if (r->is_text) {
		size_t t = (size_t)best - HM_REC_NKEYS;

		if (!decode_string(s + tstart[t], tend[t] - tstart[t], nm, &r->text))
			return HM_REC_SLOW;
	}
	return r->nomem ? HM_REC_SLOW : HM_REC_OK;
}

int
hm__rec_oom(const struct hm_rec *r)
{
	return r->nomem;
}

void
hm__rec_free(struct hm_rec *r)
{
	size_t i;

	for (i = 0; i < HM_REC_NKEYS; i++)
		hm_ids_free(&r->slot[i]);
	hm_buf_free(&r->fields);
	hm_buf_free(&r->id);
	hm_buf_free(&r->text);
	hm_buf_free(&r->tmp);
	free(r->m);
	memset(r, 0, sizeof *r);
}

int
hm__rec_members(const char *s, size_t n,
    int (*each)(void *, const char *, size_t, const char *, size_t), void *arg)
{
	size_t i = 0, ks, ke;

	if (!n)
		return 1;
	for (;;) {
		if (s[i] != '"' || !(ke = string(s, n, i)))
			return 0;
		ks = i;
		if (ke >= n || s[ke] != ':')
			return 0;
		i = ke + 1;
		if (!value(s, n, &i, NULL, NULL, 0, 0))
			return 0;
		if (each)
			(void)each(arg, s + ks + 1, ke - ks - 2, s + ke + 1, i - ke - 1);
		if (i == n)
			return 1;
		if (s[i] != ',' || ++i == n)
			return 0;
	}
}
