/*
 * json_check.c - is a stream of bytes one complete JSON value?  A
 * push-down machine over any chunking, no allocation (json_check_int.h).
 */
#include <string.h>

#include "json_check_int.h"

enum {
	J_VALUE,     /* a value is due */
	J_ARR_FIRST, /* after [: a value or ] */
	J_OBJ_FIRST, /* after {: a key or } */
	J_KEY,       /* after , in an object: a key */
	J_COLON,     /* after a key */
	J_AFTER,     /* after a value in a container: , or its close */
	J_STR,       /* in a string (lit: 1 a key) */
	J_ESC,       /* after \ in a string */
	J_HEX,       /* \u: which hex digits are left */
	J_MINUS,     /* -: a digit is due */
	J_ZERO,      /* a leading 0 */
	J_INT,       /* integer digits */
	J_DOT,       /* .: a digit is due */
	J_FRAC,      /* fraction digits */
	J_E,         /* e: a sign or digit is due */
	J_ESIGN,     /* e+: a digit is due */
	J_EXP,       /* exponent digits */
	J_LIT,       /* true, false, null: lit bytes of literal `which` read */
	J_DONE,      /* the top-level value is complete: blanks only */
	J_BAD,       /* not one JSON value */
};

static const char *const lits[3] = { "true", "false", "null" };

/* json_check_int.h tests the string state inline. */
typedef char j_str_is_6[J_STR == HM__JCHECK_STR ? 1 : -1];

void
hm__jcheck_init(struct hm_jcheck *j)
{
	memset(j, 0, sizeof *j);
	j->st = J_VALUE;
}

static int
blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int
hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* A value ended just before byte `at` of the stream. */
static void
value_done(struct hm_jcheck *j, size_t at)
{
	if (j->depth) {
		j->st = J_AFTER;
		return;
	}
	j->st = J_DONE;
	j->end = at;
}

static int
push(struct hm_jcheck *j, int obj)
{
	if (j->depth >= HM_JCHECK_DEPTH)
		return 0;
	if (obj)
		j->stack[j->depth / 8] |= (uint8_t)(1u << (j->depth % 8));
	else
		j->stack[j->depth / 8] &= (uint8_t)~(1u << (j->depth % 8));
	j->depth++;
	return 1;
}

/* The innermost container is an object. */
static int
in_object(const struct hm_jcheck *j)
{
	unsigned d = j->depth - 1u;

	return (j->stack[d / 8] >> (d % 8)) & 1;
}

/* A value starts with c: 1, or 0 when c starts none. */
static int
value_start(struct hm_jcheck *j, unsigned char c)
{
	switch (c) {
	case '{':
		if (!push(j, 1))
			return 0;
		j->st = J_OBJ_FIRST;
		return 1;
	case '[':
		if (!push(j, 0))
			return 0;
		j->st = J_ARR_FIRST;
		return 1;
	case '"':
		j->st = J_STR;
		j->lit = 0;
		return 1;
	case '-':
		j->st = J_MINUS;
		return 1;
	case '0':
		j->st = J_ZERO;
		return 1;
	case 't':
	case 'f':
	case 'n':
		j->st = J_LIT;
		j->which = c == 't' ? 0 : c == 'f' ? 1 : 2;
		j->lit = 1;
		return 1;
	default:
		if (c >= '1' && c <= '9') {
			j->st = J_INT;
			return 1;
		}
		return 0;
	}
}

/* A container closes with c (} or ]). */
static int
close_with(struct hm_jcheck *j, unsigned char c, size_t at)
{
	if (!j->depth || in_object(j) != (c == '}'))
		return 0;
	j->depth--;
	value_done(j, at);
	return 1;
}

size_t
hm__jcheck_feed(struct hm_jcheck *j, const char *s, size_t n)
{
	size_t i;

	if (j->st == J_BAD)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t at = j->fed + i;

	again:
		switch (j->st) {
		case J_VALUE:
			if (blank(c))
				continue;
			if (value_start(j, c))
				continue;
			goto bad;
		case J_ARR_FIRST:
			if (blank(c))
				continue;
			if (c == ']') {
				if (close_with(j, c, at + 1))
					continue;
				goto bad;
			}
			if (value_start(j, c))
				continue;
			goto bad;
		case J_OBJ_FIRST:
		case J_KEY:
			if (blank(c))
				continue;
			if (c == '"') {
				j->st = J_STR;
				j->lit = 1;
				continue;
			}
			if (c == '}' && j->st == J_OBJ_FIRST && close_with(j, c, at + 1))
				continue;
			goto bad;
		case J_COLON:
			if (blank(c))
				continue;
			if (c != ':')
				goto bad;
			j->st = J_VALUE;
			continue;
		case J_AFTER:
			if (blank(c))
				continue;
			if (c == ',') {
				j->st = in_object(j) ? J_KEY : J_VALUE;
				continue;
			}
			if ((c == '}' || c == ']') && close_with(j, c, at + 1))
				continue;
			goto bad;
		case J_STR:
			/* most of the arguments: plain string bytes */
			while (c != '"' && c != '\\' && c >= 0x20 && i + 1 < n)
				c = (unsigned char)s[++i];
			at = j->fed + i;
			if (c == '"') {
				if (j->lit)
					j->st = J_COLON;
				else
					value_done(j, at + 1);
			} else if (c == '\\')
				j->st = J_ESC;
			else if (c < 0x20)
				goto bad;
			continue;
		case J_ESC:
			if (c == 'u') {
				j->st = J_HEX;
				j->which = 4;
			} else if (memchr("\"\\/bfnrt", c, 8) && c)
				j->st = J_STR;
			else
				goto bad;
			continue;
		case J_HEX:
			if (!hex(c))
				goto bad;
			if (!--j->which)
				j->st = J_STR;
			continue;
		case J_MINUS:
			if (c == '0')
				j->st = J_ZERO;
			else if (c >= '1' && c <= '9')
				j->st = J_INT;
			else
				goto bad;
			continue;
		case J_ZERO:
		case J_INT:
			if (j->st == J_INT && c >= '0' && c <= '9')
				continue;
			if (c == '.') {
				j->st = J_DOT;
				continue;
			}
			if ((c | 0x20) == 'e') {
				j->st = J_E;
				continue;
			}
			goto number_end;
		case J_DOT:
			if (c >= '0' && c <= '9') {
				j->st = J_FRAC;
				continue;
			}
			goto bad;
		case J_FRAC:
			if (c >= '0' && c <= '9')
				continue;
			if ((c | 0x20) == 'e') {
				j->st = J_E;
				continue;
			}
			goto number_end;
		case J_E:
			if (c == '+' || c == '-') {
				j->st = J_ESIGN;
				continue;
			}
			/* fall through */
		case J_ESIGN:
			if (c >= '0' && c <= '9') {
				j->st = J_EXP;
				continue;
			}
			goto bad;
		case J_EXP:
			if (c >= '0' && c <= '9')
				continue;
			goto number_end;
		case J_LIT:
			if (c != (unsigned char)lits[j->which][j->lit])
				goto bad;
			if (!lits[j->which][++j->lit])
				value_done(j, at + 1);
			continue;
		case J_DONE:
			if (blank(c))
				continue;
			goto bad;
		default:
			goto bad;
		}
	number_end:
		/* The number ended before c, which comes after the value. */
		value_done(j, at);
		goto again;
	}
	j->fed += n;
	return n;
bad:
	j->st = J_BAD;
	j->fed += i;
	return i;
}

int
hm__jcheck_done(const struct hm_jcheck *j)
{
	return j->st == J_DONE;
}

int
hm__jcheck_whole(const struct hm_jcheck *j)
{
	if (j->st == J_DONE)
		return 1;
	/* A number at the top level ends with the stream. */
	return !j->depth && (j->st == J_ZERO || j->st == J_INT || j->st == J_FRAC ||
	    j->st == J_EXP);
}

int
hm__jcheck_bad(const struct hm_jcheck *j)
{
	return j->st == J_BAD;
}

int
hm__jcheck_unfeed_tail(struct hm_jcheck *j)
{
	if (j->st != J_BAD || !j->end || j->depth)
		return 0;
	j->st = J_DONE;
	return 1;
}

int
hm__ctype_is_json(const char *ct, size_t n)
{
	static const char pre[] = "<|constrain|>";
	size_t i;

	/* as nearly every call writes it */
	if (n == 17 && !memcmp(ct, "<|constrain|>json", 17))
		return 1;
	if (n >= sizeof pre - 1 && ct[0] == '<' && !memcmp(ct, pre, sizeof pre - 1)) {
		ct += sizeof pre - 1;
		n -= sizeof pre - 1;
	}
	while (n && blank((unsigned char)*ct)) {
		ct++;
		n--;
	}
	if (n >= 12 && ct[0] == 'a' && !strncmp(ct, "application/", 12)) {
		ct += 12;
		n -= 12;
	}
	if (n < 4)
		return 0;
	for (i = 0; i < 4; i++)
		if (((unsigned char)ct[i] | 0x20) != (unsigned char)"json"[i])
			return 0;
	/* `json`, `json; charset=…`, `json schema`: not `jsonl` */
	return n == 4 || !((((unsigned char)ct[4] | 0x20) >= 'a' &&
	    ((unsigned char)ct[4] | 0x20) <= 'z'));
}
