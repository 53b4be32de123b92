/* ids_io.c - reading token id lists in the shapes logs hold them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harmony.h"
#include "json_val_int.h"
#include "records_int.h"

#define id_keys hm__id_keys /* facts_int.h */

static int
is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f' || c == ',' || c == '[' || c == ']';
}

static hm_status
fail(hm_error *err, size_t col, size_t index, const char *msg)
{
	if (err) {
		err->col = col;
		err->index = index;
		snprintf(err->msg, sizeof err->msg, "%s", msg);
	}
	return HM_EINPUT;
}

/*
 * The one-pass reader: the record's ids and its other members in the
 * carried form (records_int.h), without a tree.  1 when it took the record; 0 sends it to
 * the general reader below (other forms, errors: their messages are there).
 */
static int
fast_record(const char *buf, size_t len, uint64_t max, hm_ids *out, char **rest,
            hm_status *st)
{
	struct hm_rec r = { 0 };
	size_t i, e = 0;
	int ok = 0;

	while (e < len && buf[e] != '{')
		e++;
	if (hm__rec_scan(&r, buf + e, len - e, NULL) != HM_REC_OK) {
		/* out of memory is said, not read again by the general reader */
		if (hm__rec_oom(&r)) {
			*st = HM_ENOMEM;
			ok = 1;
		}
		goto out;
	}
	for (i = e + r.end; i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' ||
	     buf[i] == '\r'); i++)
		;
	if (i < len)
		goto out;
	for (i = 0; i < r.ids->len; i++)
		if (r.ids->v[i] > max)
			goto out;
	ok = 1;
	*st = hm_ids_append(out, r.ids->v, r.ids->len);
	if (*st == HM_OK && rest) {
		if (!(*rest = malloc(r.fields.len + 3)))
			*st = HM_ENOMEM;
		else {
			(*rest)[0] = '{';
			memcpy(*rest + 1, r.fields.p, r.fields.len);
			(*rest)[r.fields.len + 1] = '}';
			(*rest)[r.fields.len + 2] = '\0';
		}
	}
out:
	hm__rec_free(&r);
	return ok;
}

static hm_status
parse_record(const char *buf, size_t len, unsigned flags, hm_ids *out, char **rest,
             hm_error *err)
{
	uint64_t max = flags & HM_IDS_ANY ? UINT32_MAX : HM_N_TOKENS - 1;
	hm_jv *root, *arr = NULL;
	size_t i, k = 0, at = 0;
	char msg[160];
	hm_status st = HM_OK;

	if (fast_record(buf, len, max, out, rest, &st))
		return st;
	if ((i = hm__json_too_deep(buf, len)))
		return fail(err, i, (size_t)-1, HM_JSON_TOO_DEEP);
	/* buf[0] is '{' after whitespace: an object or an error */
	/* (the numbers' text kept: an id has one spelling in every reader) */
	if (hm__jv_read(buf, len, NULL, 0, HM_JV_LAX | HM_JV_NUMTEXT, &root, msg, sizeof msg,
	    &at) == HM_ENOMEM)
		return HM_ENOMEM;
	if (!hm__jv_is(root, HM_JV_OBJECT)) {
		size_t col = root ? 1 : at + 1;

		hm__jv_free(root);
		/* bytes that are no JSON are named (a raw NUL, a lone surrogate) */
		if (!root && hm__json_flaw(buf, len, 0, msg + 10, sizeof msg - 10, &at)) {
			memcpy(msg, "not JSON: ", 10);
			return fail(err, at + 1, (size_t)-1, msg);
		}
		return fail(err, col, (size_t)-1, "not a JSON object");
	}
	for (i = 0; i < sizeof id_keys / sizeof id_keys[0] && !arr; i++) {
		arr = hm__jv_first(root, id_keys[i]);
		if (arr)
			k = i;
	}
	/* the array read, given twice: an error, as in the record reader */
	if (arr && hm__jv_count(root, id_keys[k]) > 1) {
		snprintf(msg, sizeof msg, "duplicate member \"%s\" (the one read: which of "
		    "them is meant cannot be told)", id_keys[k]);
		hm__jv_free(root);
		return fail(err, 1, (size_t)-1, msg);
	}
	if (!hm__jv_is(arr, HM_JV_ARRAY)) {
		hm__jv_free(root);
		return fail(err, 1, (size_t)-1, arr ? "the id field is not an array"
		                           : "no tokens, token_ids, output_ids or input_ids array");
	}
	for (i = 0; i < arr->n; i++) {
		hm_jv *el = arr->v[i];
		double d = el->num;

		/* 2^64 and above do not convert to uint64_t (undefined). */
		if (el->type != HM_JV_NUMBER || !(d >= 0 && d < 18446744073709551616.0) ||
		    d != (double)(uint64_t)d) {
			snprintf(msg, sizeof msg, "not a token id at index %zu", i);
			st = fail(err, 1, i, msg);
			break;
		}
		/* a whole number spelled otherwise (`-0`, `2.9e2`, `0290`): no id either */
		if (!hm__id_spelled(el->s, el->len)) {
			snprintf(msg, sizeof msg, "not a token id at index %zu: '%.*s' "
			    HM_ID_SPELLING, i,
			    el->len > 24 ? 24 : (int)el->len, el->s ? el->s : "");
			st = fail(err, 1, i, msg);
			break;
		}
		if ((uint64_t)d > max) {
			snprintf(msg, sizeof msg, "id %.0f out of range (max %llu)", d,
			         (unsigned long long)max);
			st = fail(err, 1, i, msg);
			break;
		}
		if ((st = hm_ids_push(out, (uint32_t)d)) != HM_OK)
			break;
	}
	hm__jv_free(root);
	if (st == HM_OK && rest) {
		/* The other members in the carried form (records_int.h). */
		hm_buf b = { 0 };
		int nomem = 0;

		hm__putc(&nomem, &b, '{');
		st = hm__carry_object_to(&nomem, &b, buf, len, id_keys[k], NULL, NULL);
		if (st == HM_EINPUT)
			st = fail(err, 1, (size_t)-1, "not a JSON object");
		hm__putc(&nomem, &b, '}');
		if (nomem)
			st = HM_ENOMEM;
		if (st == HM_OK)
			*rest = b.p;
		else
			hm_buf_free(&b);
	}
	return st;
}

hm_status
hm_ids_parse(const char *buf, size_t len, unsigned flags, hm_ids *out, char **rest,
             hm_error *err)
{
	size_t i = 0, used;
	hm_idscan *sc;
	hm_status st;

	if (rest)
		*rest = NULL;
	while (i < len && is_sep(buf[i]) && buf[i] != '[' && buf[i] != ']' && buf[i] != ',')
		i++;
	if (i < len && buf[i] == '{')
		return parse_record(buf, len, flags, out, rest, err);
	if (!(sc = hm_idscan_new((flags & HM_IDS_ANY) | HM_IDS_ARRAY)))
		return HM_ENOMEM;
	st = hm_idscan_feed(sc, buf, len, out, &used, err);
	if (st == HM_OK)
		st = hm_idscan_end(sc, out, err);
	hm_idscan_free(sc);
	return st;
}

int
hm_ids_detect(const char *buf, size_t len)
{
	size_t i = 0, j;
	int digits = 0;

	while (i < len) {
		/* one line at a time: an object line must name an id array */
		for (j = i; j < len && buf[j] != '\n'; j++)
			;
		{
			size_t k = i;

			while (k < j && (buf[k] == ' ' || buf[k] == '\t' || buf[k] == '\r'))
				k++;
			if (k < j && buf[k] == '{') {
				size_t q;
				int found = 0;

				for (q = 0; q < sizeof id_keys / sizeof id_keys[0]; q++) {
					char key[32];
					size_t kl = (size_t)snprintf(key, sizeof key, "\"%s\"", id_keys[q]);
					size_t p;

					for (p = k; p + kl <= j && !found; p++)
						found = memcmp(buf + p, key, kl) == 0;
				}
				if (!found)
					return 0;
				digits = 1;
			} else {
				for (; k < j; k++) {
					if (buf[k] >= '0' && buf[k] <= '9')
						digits = 1;
					else if (!is_sep(buf[k]))
						return 0;
				}
			}
		}
		i = j + 1;
	}
	return digits;
}
