/*
 * json_val.c - the JSON value tree: building, copying, comparing and writing
 * it the way serde_json does (numbers, strings); string sets; indenting.
 * Reading JSON text into the tree is json_parse.c.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_val_int.h"

hm_jv *
hm__jv_new(hm_jv_type t)
{
	hm_jv *v = calloc(1, sizeof *v);

	if (v)
		v->type = t;
	return v;
}

char *
hm__memdup(const char *s, size_t len)
{
	char *p = malloc(len + 1);

	if (p) {
		if (len)
			memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

hm_jv *
hm__jv_str(const char *s, size_t len)
{
	hm_jv *v = hm__jv_new(HM_JV_STRING);

	if (!v)
		return NULL;
	if (!(v->s = hm__memdup(s, len))) {
		free(v);
		return NULL;
	}
	v->len = len;
	return v;
}

hm_jv *
hm__jv_number(double d)
{
	hm_buf b = {0};
	hm_jv *v;
	int nomem = 0;

	hm__jv_fmt_double(&nomem, &b, d);
	if (nomem || !(v = hm__jv_new(HM_JV_NUMBER))) {
		hm_buf_free(&b);
		return NULL;
	}
	v->num = d;
	v->s = b.p;
	v->len = b.len;
	return v;
}

void
hm__jv_free(hm_jv *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++) {
		hm__jv_free(v->v[i]);
		if (v->k)
			free(v->k[i]);
	}
	free(v->v);
	free(v->k);
	free(v->klen);
	free(v->s);
	free(v);
}

static hm_status
grow(hm_jv *c)
{
	size_t cap;
	void *p;

	if (c->n < c->cap)
		return HM_OK;
	cap = c->cap ? c->cap * 2 : 4;
	if (!(p = realloc(c->v, cap * sizeof *c->v)))
		return HM_ENOMEM;
	c->v = p;
	if (c->type == HM_JV_OBJECT) {
		if (!(p = realloc(c->k, cap * sizeof *c->k)))
			return HM_ENOMEM;
		c->k = p;
		if (!(p = realloc(c->klen, cap * sizeof *c->klen)))
			return HM_ENOMEM;
		c->klen = p;
	}
	c->cap = cap;
	return HM_OK;
}

hm_status
hm__jv_push(hm_jv *arr, hm_jv *item)
{
	if (!item || grow(arr) != HM_OK) {
		hm__jv_free(item);
		return HM_ENOMEM;
	}
	arr->v[arr->n++] = item;
	return HM_OK;
}

hm_status
hm__jv_set_owned(hm_jv *obj, char *key, size_t klen, hm_jv *val)
{
	if (!key || !val || grow(obj) != HM_OK) {
		free(key);
		hm__jv_free(val);
		return HM_ENOMEM;
	}
	obj->k[obj->n] = key;
	obj->klen[obj->n] = klen;
	obj->v[obj->n++] = val;
	return HM_OK;
}

hm_status
hm__jv_set(hm_jv *obj, const char *key, hm_jv *val)
{
	size_t i, n = strlen(key);

	for (i = 0; i < obj->n; i++)
		if (obj->klen[i] == n && !memcmp(obj->k[i], key, n)) {
			hm__jv_free(obj->v[i]);
			obj->v[i] = val;
			return val ? HM_OK : HM_ENOMEM;
		}
	return hm__jv_set_owned(obj, hm__memdup(key, n), n, val);
}

hm_jv *
hm__jv_copy(const hm_jv *v)
{
	hm_jv *c;
	size_t i;

	if (!v || !(c = hm__jv_new(v->type)))
		return NULL;
	c->num = v->num;
	c->pos = v->pos;
	if (v->s && !(c->s = hm__memdup(v->s, v->len)))
		goto fail;
	c->len = v->len;
	for (i = 0; i < v->n; i++) {
		if (v->type == HM_JV_OBJECT) {
			if (hm__jv_set_owned(c, hm__memdup(v->k[i], v->klen[i]), v->klen[i],
			    hm__jv_copy(v->v[i])) != HM_OK)
				goto fail;
		} else if (hm__jv_push(c, hm__jv_copy(v->v[i])) != HM_OK)
			goto fail;
	}
	return c;
fail:
	hm__jv_free(c);
	return NULL;
}

hm_jv *
hm__jv_get(const hm_jv *obj, const char *key)
{
	return hm__jv_member(obj, key, strlen(key));
}

hm_jv *
hm__jv_member(const hm_jv *obj, const char *key, size_t n)
{
	size_t i;

	if (!obj || obj->type != HM_JV_OBJECT)
		return NULL;
	for (i = obj->n; i-- > 0;)
		if (obj->klen[i] == n && !memcmp(obj->k[i], key, n))
			return obj->v[i];
	return NULL;
}

size_t
hm__jv_count(const hm_jv *obj, const char *key)
{
	size_t i, k = 0, n = strlen(key);

	if (!obj || obj->type != HM_JV_OBJECT)
		return 0;
	for (i = 0; i < obj->n; i++)
		if (obj->klen[i] == n && !memcmp(obj->k[i], key, n))
			k++;
	return k;
}

hm_jv *
hm__jv_first(const hm_jv *obj, const char *key)
{
	size_t i, n;

	if (!obj || obj->type != HM_JV_OBJECT)
		return NULL;
	n = strlen(key);
	for (i = 0; i < obj->n; i++)
		if (obj->klen[i] == n && !memcmp(obj->k[i], key, n))
			return obj->v[i];
	return NULL;
}

const char *
hm__jv_getstr(const hm_jv *obj, const char *key, size_t *len)
{
	hm_jv *v = hm__jv_get(obj, key);

	if (!v || v->type != HM_JV_STRING)
		return NULL;
	if (len)
		*len = v->len;
	return v->s;
}

int
hm__jv_is(const hm_jv *v, hm_jv_type t)
{
	return v && v->type == t;
}

int
hm__jv_equal(const hm_jv *a, const hm_jv *b)
{
	size_t i;

	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case HM_JV_NUMBER:
		return hm__num_cmp(a->s, a->len, b->s, b->len) == 0;
	case HM_JV_STRING:
		return a->len == b->len && !memcmp(a->s, b->s, a->len);
	case HM_JV_ARRAY:
		if (a->n != b->n)
			return 0;
		for (i = 0; i < a->n; i++)
			if (!hm__jv_equal(a->v[i], b->v[i]))
				return 0;
		return 1;
	case HM_JV_OBJECT:
		if (a->n != b->n)
			return 0;
		for (i = 0; i < a->n; i++) {
			const hm_jv *o = hm__jv_member(b, a->k[i], a->klen[i]);

			if (!o || !hm__jv_equal(a->v[i], o))
				return 0;
		}
		return 1;
	default:
		return 1;
	}
}

/* ---------------------------------------------------------------- numbers */

void
hm__jv_fmt_double(int *nomem, hm_buf *b, double d)
{
	char tmp[40], dig[20];
	int prec, nd = 0, exp10, kk, i;
	const char *p;

	if (d == 0) {
		hm__adds(nomem, b, signbit(d) ? "-0.0" : "0.0");
		return;
	}
	if (!isfinite(d)) {
		hm__adds(nomem, b, "null");
		return;
	}
	/* Shortest digits that read back as d (what ryu computes). */
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	p = tmp;
	if (*p == '-') {
		hm__putc(nomem, b, '-');
		p++;
	}
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			dig[nd++] = *p;
	exp10 = atoi(p + 1);
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	kk = exp10 + 1; /* position of the decimal point */
	if (nd <= kk && kk <= 16) {
		hm__add(nomem, b, dig, (size_t)nd);
		for (i = nd; i < kk; i++)
			hm__putc(nomem, b, '0');
		hm__adds(nomem, b, ".0");
	} else if (0 < kk && kk <= 16) {
		hm__add(nomem, b, dig, (size_t)kk);
		hm__putc(nomem, b, '.');
		hm__add(nomem, b, dig + kk, (size_t)(nd - kk));
	} else if (-5 < kk && kk <= 0) {
		hm__adds(nomem, b, "0.");
		for (i = kk; i < 0; i++)
			hm__putc(nomem, b, '0');
		hm__add(nomem, b, dig, (size_t)nd);
	} else {
		hm__putc(nomem, b, dig[0]);
		if (nd > 1) {
			hm__putc(nomem, b, '.');
			hm__add(nomem, b, dig + 1, (size_t)(nd - 1));
		}
		hm__putc(nomem, b, 'e');
		if (kk - 1 < 0) {
			hm__putc(nomem, b, '-');
			hm__addu(nomem, b, (unsigned long long)(1 - kk));
		} else
			hm__addu(nomem, b, (unsigned long long)(kk - 1));
	}
}

/* ---------------------------------------------------------------- string sets */

struct hm_strset_ent {
	const char *s; /* NULL: empty slot */
	size_t len, idx;
};

static size_t
str_hash(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return (size_t)(h ^ (h >> 29));
}

static hm_status
strset_grow(hm_strset *set)
{
	size_t cap = set->cap ? set->cap * 2 : 16, i, j;
	struct hm_strset_ent *e = calloc(cap, sizeof *e);

	if (!e)
		return HM_ENOMEM;
	for (i = 0; i < set->cap; i++) {
		if (!set->e[i].s)
			continue;
		for (j = str_hash(set->e[i].s, set->e[i].len) & (cap - 1); e[j].s; j = (j + 1) & (cap - 1))
			;
		e[j] = set->e[i];
	}
	free(set->e);
	set->e = e;
	set->cap = cap;
	return HM_OK;
}

hm_status
hm__strset_add(hm_strset *set, const char *s, size_t len, size_t idx)
{
	size_t j;

	if ((set->n + 1) * 2 > set->cap && strset_grow(set) != HM_OK)
		return HM_ENOMEM;
	for (j = str_hash(s, len) & (set->cap - 1); set->e[j].s; j = (j + 1) & (set->cap - 1))
		if (set->e[j].len == len && !memcmp(set->e[j].s, s, len)) {
			set->e[j].idx = idx;
			return HM_OK;
		}
	set->e[j].s = s;
	set->e[j].len = len;
	set->e[j].idx = idx;
	set->n++;
	return HM_OK;
}

size_t
hm__strset_find(const hm_strset *set, const char *s, size_t len)
{
	size_t j;

	if (!set->cap)
		return (size_t)-1;
	for (j = str_hash(s, len) & (set->cap - 1); set->e[j].s; j = (j + 1) & (set->cap - 1))
		if (set->e[j].len == len && !memcmp(set->e[j].s, s, len))
			return set->e[j].idx;
	return (size_t)-1;
}

void
hm__strset_free(hm_strset *set)
{
	free(set->e);
	memset(set, 0, sizeof *set);
}

hm_status
hm__strset_keys(hm_strset *set, const hm_jv *obj)
{
	size_t i;

	for (i = 0; obj && obj->type == HM_JV_OBJECT && i < obj->n; i++)
		if (hm__strset_add(set, obj->k[i], obj->klen[i], i) != HM_OK)
			return HM_ENOMEM;
	return HM_OK;
}

/* ---------------------------------------------------------------- writer */

void
hm__jv_write_to(int *nomem, hm_buf *b, const hm_jv *v)
{
	size_t i;

	switch (v->type) {
	case HM_JV_NULL:
		hm__adds(nomem, b, "null");
		break;
	case HM_JV_FALSE:
		hm__adds(nomem, b, "false");
		break;
	case HM_JV_TRUE:
		hm__adds(nomem, b, "true");
		break;
	case HM_JV_NUMBER:
		hm__add(nomem, b, v->s, v->len);
		break;
	case HM_JV_STRING:
		hm__json_str(nomem, b, v->s, v->len);
		break;
	case HM_JV_ARRAY:
		hm__putc(nomem, b, '[');
		for (i = 0; i < v->n; i++) {
			if (i)
				hm__putc(nomem, b, ',');
			hm__jv_write_to(nomem, b, v->v[i]);
		}
		hm__putc(nomem, b, ']');
		break;
	case HM_JV_OBJECT:
		hm__putc(nomem, b, '{');
		for (i = 0; i < v->n; i++) {
			if (i)
				hm__putc(nomem, b, ',');
			hm__json_str(nomem, b, v->k[i], v->klen[i]);
			hm__putc(nomem, b, ':');
			hm__jv_write_to(nomem, b, v->v[i]);
		}
		hm__putc(nomem, b, '}');
		break;
	}
}

/* For the files not yet converted: the buffer owns itself. */
void
hm__jv_write(hm_buf *b, const hm_jv *v)
{
	hm__jv_write_to(&b->oom, b, v);
}

/* ---------------------------------------------------------------- pretty */

static int
json_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void
newline_indent(int *nomem, hm_buf *b, size_t depth)
{
	size_t i;

	hm__putc(nomem, b, '\n');
	for (i = 0; i < depth; i++)
		hm__adds(nomem, b, "  ");
}

/*
 * The end of the array whose items start at s[i] when they are all
 * numbers, else 0.  A scan stops at the first byte no number has, so
 * nested arrays are not scanned over and over.
 */
static size_t
number_array_end(const char *s, size_t n, size_t i)
{
	for (; i < n; i++) {
		if (s[i] == ']')
			return i;
		if (!s[i] || !strchr("0123456789-+.eE, \t\r\n", s[i]))
			return 0;
	}
	return 0;
}

void
hm_json_pretty(hm_buf *b, const char *s, size_t n)
{
	size_t i = 0, j, depth = 0;
	/* The caller's buffer, passed in alone: it owns itself (its oom). */
	int *nomem = &b->oom;

	while (i < n) {
		char c = s[i];

		if (c == '"') {
			for (j = i + 1; j < n && s[j] != '"'; j++)
				if (s[j] == '\\')
					j++;
			j = j < n ? j + 1 : n;
			hm__add(nomem, b, s + i, j - i);
			i = j;
			continue;
		}
		if (json_space(c)) {
			if (!depth)
				hm__putc(nomem, b, c);
			i++;
			continue;
		}
		if (c == '{' || c == '[') {
			for (j = i + 1; j < n && json_space(s[j]); j++)
				;
			if (j < n && (s[j] == '}' || s[j] == ']')) {
				hm__putc(nomem, b, c);
				hm__putc(nomem, b, s[j]);
				i = j + 1;
				continue;
			}
			if (c == '[' && (j = number_array_end(s, n, i + 1))) {
				hm__putc(nomem, b, '[');
				for (i++; i < j; i++) {
					if (s[i] == ',')
						hm__adds(nomem, b, ", ");
					else if (!json_space(s[i]))
						hm__putc(nomem, b, s[i]);
				}
				hm__putc(nomem, b, ']');
				i = j + 1;
				continue;
			}
			hm__putc(nomem, b, c);
			newline_indent(nomem, b, ++depth);
			i++;
			continue;
		}
		if (c == '}' || c == ']') {
			newline_indent(nomem, b, depth ? --depth : 0);
			hm__putc(nomem, b, c);
		} else if (c == ',' && depth) {
			hm__putc(nomem, b, ',');
			newline_indent(nomem, b, depth);
		} else if (c == ':' && depth) {
			hm__adds(nomem, b, ": ");
		} else
			hm__putc(nomem, b, c);
		i++;
	}
}
