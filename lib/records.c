/*
 * records.c - the public log-record reader (hm_record): the one-pass
 * scanner (records_scan.c) where it can, the general reader where it
 * cannot (the value tree's lenient grammar reads the record, json_carry.c
 * writes its members), both giving the carried form of records_int.h.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_val_int.h"
#include "records_int.h"

static int
is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

enum { REC_NONE, REC_IDS, REC_TEXT };

struct hm_record {
	struct hm_rec scan;        /* the one-pass reader */
	const char *const *keys;   /* text field names */
	char *field;               /* ... one of the caller's */
	const char *field_keys[2];
	int kind;
	int plain;                 /* read in one pass, no server member */
	size_t end;
	/* what the accessors give: into scan, or the general reader's below */
	const hm_ids *ids;
	const hm_buf *fields, *id, *text;
	int has_id;
	hm_ids gids;
	hm_buf gfields, gid, gtext;
	int nomem;                 /* an allocation of this read failed */
	const char *dup;           /* a carried member given twice: its name, or NULL */
	size_t dup_len;
	hm_buf gdup;               /* ... the general reader's copy of it */
};

static const uint32_t no_ids[1];

hm_record *
hm_record_new(void)
{
	hm_record *r = calloc(1, sizeof *r);

	if (r)
		r->keys = hm__text_keys;
	return r;
}

void
hm_record_free(hm_record *r)
{
	if (!r)
		return;
	hm__rec_free(&r->scan);
	free(r->field);
	hm_ids_free(&r->gids);
	hm_buf_free(&r->gfields);
	hm_buf_free(&r->gid);
	hm_buf_free(&r->gtext);
	hm_buf_free(&r->gdup);
	free(r);
}

hm_status
hm_record_set_text_field(hm_record *r, const char *name)
{
	char *f = NULL;

	if (name) {
		size_t n = strlen(name);

		if (!(f = malloc(n + 1)))
			return HM_ENOMEM;
		memcpy(f, name, n + 1);
	}
	free(r->field);
	r->field = f;
	r->field_keys[0] = f;
	r->field_keys[1] = NULL;
	r->keys = f ? r->field_keys : hm__text_keys;
	return HM_OK;
}

const char *const *
hm_record_text_fields(const hm_record *r)
{
	return r->keys;
}

static hm_status
rec_fail(hm_error *err, size_t col, size_t index, const char *msg)
{
	if (err) {
		err->col = col;
		err->index = index;
		snprintf(err->msg, sizeof err->msg, "%s", msg);
	}
	return HM_EINPUT;
}

/* The one-pass scanner's results, of a record from byte i, are what the accessors give. */
static void
use_scan(hm_record *r, size_t i)
{
	r->kind = r->scan.is_text ? REC_TEXT : REC_IDS;
	r->ids = r->scan.ids;
	r->fields = &r->scan.fields;
	r->text = &r->scan.text;
	r->id = &r->scan.id;
	r->has_id = r->scan.has_id;
	r->end = i + r->scan.end;
	r->plain = !r->scan.server;
	r->dup = r->scan.dup_len ? r->scan.tmp.p + r->scan.dup_off : NULL;
	r->dup_len = r->scan.dup_len;
}

/* The general reader's results are what the accessors give. */
static void
use_general(hm_record *r, int kind)
{
	r->kind = kind;
	r->ids = kind == REC_IDS ? &r->gids : NULL;
	r->fields = &r->gfields;
	r->text = &r->gtext;
	r->id = &r->gid;
}

/*
 * A JSON array of ids, `[1, 2, ...]`, maybe over several lines, that the
 * one-pass reader did not take: read by the one strict id reader
 * (hm_idscan), so a bad list gets the words it gets everywhere.
 */
static hm_status
array_read(hm_record *r, const char *s, size_t n, size_t off, hm_error *err)
{
	const char *close = memchr(s, ']', n);
	size_t len = close ? (size_t)(close - s) + 1 : n, used, i, line;
	hm_idscan *sc = hm_idscan_new(HM_IDS_ARRAY | HM_IDS_ANY);
	hm_error e;
	hm_status st;

	if (!sc)
		return HM_ENOMEM;
	r->gids.len = 0;
	st = hm_idscan_feed(sc, s, len, &r->gids, &used, &e);
	if (st == HM_OK)
		st = hm_idscan_end(sc, &r->gids, &e);
	hm_idscan_free(sc);
	if (st == HM_EINPUT) {
		/* its place: a byte of the record, from 1 */
		for (i = 0, line = 1; i < len && line < e.line; i++)
			if (s[i] == '\n')
				line++;
		return rec_fail(err, off + i + e.col, e.index, e.msg);
	}
	if (st != HM_OK)
		return st;
	r->end = off + len;
	use_general(r, REC_IDS);
	return HM_OK;
}

/*
 * The general reader for an object (s[0] is '{', at byte off of the
 * caller's buffer): the lenient grammar (HM_JV_LAX) takes the record or
 * says where it is bad, the way records were always read, with
 * hm_ids_parse's messages; the other
 * members are carried from the text as read (json_carry.c), the member
 * read left out.
 */
/*
 * The first member of o but the one read (drop, given once) whose name
 * came before: into r->dup (a copy), as the one-pass reader notes it.
 * Linear: the names go into a set as they come.
 */
static void
dup_find(hm_record *r, const hm_jv *o)
{
	hm_strset set = {0};
	size_t i;

	for (i = 0; i < o->n; i++) {
		if (hm__strset_find(&set, o->k[i], o->klen[i]) != (size_t)-1) {
			hm_buf_reset(&r->gdup);
			/* as JSON spells it: the one-pass reader's names are */
			hm__json_str(&r->nomem, &r->gdup, o->k[i], o->klen[i]);
			hm__put(&r->nomem, &r->gdup, "", 0);
			if (!r->nomem && r->gdup.len >= 2) {
				r->dup = r->gdup.p + 1;
				r->dup_len = r->gdup.len - 2;
			}
			break;
		}
		if (hm__strset_add(&set, o->k[i], o->klen[i], i) != HM_OK) {
			r->nomem = 1;
			break;
		}
	}
	hm__strset_free(&set);
}

static hm_status
object_read(hm_record *r, const char *s, size_t n, size_t off, unsigned flags,
    hm_error *err)
{
	size_t endp = 0;
	char msg[8];
	hm_jv *o = NULL, *t = NULL;
	hm_error e = { "not a text record", 0, 0, (size_t)-1, HM_HINT_NONE };
	const char *drop = NULL;
	hm_status st = HM_EINPUT;
	size_t k;

	if (hm__jv_read(s, n, &endp, 0, HM_JV_LAX, &o, msg, sizeof msg, NULL) == HM_ENOMEM)
		return HM_ENOMEM;
	r->id = &r->gid;
	if (hm__jv_is(o, HM_JV_OBJECT)) {
		/* The member read: the first id key there, else the text. */
		for (k = 0; k < HM_REC_NKEYS && !drop; k++)
			if (hm__jv_first(o, hm__id_keys[k]))
				drop = hm__id_keys[k];
		if (!drop) {
			const char *const *tk;

			for (tk = r->keys; *tk && !t; tk++)
				if (hm__jv_is(t = hm__jv_first(o, *tk), HM_JV_STRING))
					drop = *tk;
				else
					t = NULL;
		}
		/*
		 * The member read, given twice, is an error: which of them is
		 * meant cannot be told (serde_json's "duplicate field", the
		 * reference's rule).  A member not read is carried as it is,
		 * as often as it comes: nothing was chosen.
		 */
		if (!drop) /* a text key given twice, the first no string */
			for (k = 0; r->keys[k] && !drop; k++)
				if (hm__jv_count(o, r->keys[k]) > 1)
					drop = r->keys[k];
		if (drop && hm__jv_count(o, drop) > 1) {
			char m[96];

			snprintf(m, sizeof m, "duplicate member \"%s\" (the one read: "
			    "which of them is meant cannot be told)", drop);
			hm__jv_free(o);
			(void)hm__carry_object_to(&r->nomem, &r->gfields, s, n, drop, &r->gid,
			    &r->has_id);
			return r->nomem ? HM_ENOMEM : rec_fail(err, 1, (size_t)-1, m);
		}
		st = hm__carry_object_to(&r->nomem, &r->gfields, s, n, drop, &r->gid, &r->has_id);
		if (st != HM_OK) {
			hm__jv_free(o);
			if (st == HM_ENOMEM)
				return st;
			r->has_id = 0;
			return rec_fail(err, 1, (size_t)-1, "not a JSON object");
		}
		dup_find(r, o);
	}
	if (!(flags & HM_RECORD_TEXT_ONLY)) {
		r->gids.len = 0;
		st = hm_ids_parse(s, n, HM_IDS_ANY, &r->gids, NULL, &e);
		if (st == HM_OK) {
			r->end = off + (o ? endp : n);
			hm__jv_free(o);
			use_general(r, REC_IDS);
			return HM_OK;
		}
		e.col += off;
		if (st == HM_ENOMEM) {
			hm__jv_free(o);
			return st;
		}
	}
	/* No id array: the completion as text. */
	if (!t) {
		hm__jv_free(o);
		return rec_fail(err, e.col, e.index, e.msg);
	}
	hm__add(&r->nomem, &r->gtext, t->s, t->len);
	hm__reserve(&r->nomem, &r->gtext, 0);
	hm__jv_free(o);
	r->end = off + endp;
	use_general(r, REC_TEXT);
	return HM_OK; /* hm_record_read checks the flag */
}

static hm_status record_read(hm_record *r, const char *buf, size_t len, unsigned flags,
    hm_error *err);

/*
 * Each read starts clean (a failed allocation of the last one forgotten,
 * as SQLite clears its flag on the next call) and checks the reader's one
 * flag on its way out.
 */
hm_status
hm_record_read(hm_record *r, const char *buf, size_t len, unsigned flags,
    hm_error *err)
{
	hm_status st;

	r->kind = REC_NONE;
	r->plain = 0;
	r->end = 0;
	r->has_id = 0;
	r->ids = NULL;
	r->fields = r->id = r->text = &r->gfields;
	r->nomem = 0;
	r->dup = NULL;
	r->dup_len = 0;
	hm__buf_clear(&r->gfields);
	hm__buf_clear(&r->gid);
	hm__buf_clear(&r->gtext);
	st = record_read(r, buf, len, flags, err);
	if (r->nomem && st != HM_ENOMEM) {
		r->kind = REC_NONE;
		return HM_ENOMEM;
	}
	return st;
}

static hm_status
record_read(hm_record *r, const char *buf, size_t len, unsigned flags, hm_error *err)
{
	size_t i = 0, k;

	while (i < len && (is_ws((unsigned char)buf[i]) || buf[i] == '\v' || buf[i] == '\f'))
		i++;
	if (i < len && buf[i] == '{') {
		if (hm__rec_scan(&r->scan, buf + i, len - i, r->keys) == HM_REC_OK &&
		    (r->scan.is_text || !(flags & HM_RECORD_TEXT_ONLY))) {
			use_scan(r, i);
			return HM_OK;
		}
		if (hm__rec_oom(&r->scan))
			return HM_ENOMEM;
		return object_read(r, buf + i, len - i, i, flags, err);
	}
	if (i < len && buf[i] == '[' && !(flags & HM_RECORD_TEXT_ONLY)) {
		if (hm__rec_id_array_to(&r->nomem, buf + i, len - i, &k, &r->gids)) {
			r->end = i + k;
			use_general(r, REC_IDS);
			return HM_OK;
		}
		if (r->nomem)
			return HM_ENOMEM;
		return array_read(r, buf + i, len - i, i, err);
	}
	return rec_fail(err, i + 1, (size_t)-1, flags & HM_RECORD_TEXT_ONLY ? "not a text record" :
	    "not a JSON record (an object or an array of ids)");
}

const uint32_t *
hm_record_tokens(const hm_record *r, size_t *n)
{
	if (r->kind != REC_IDS) {
		*n = 0;
		return NULL;
	}
	*n = r->ids->len;
	return r->ids->len ? r->ids->v : no_ids;
}

const char *
hm_record_text(const hm_record *r, size_t *len)
{
	if (r->kind != REC_TEXT) {
		*len = 0;
		return NULL;
	}
	*len = r->text->len;
	return r->text->p ? r->text->p : "";
}

const char *
hm_record_fields(const hm_record *r, size_t *len)
{
	if (r->kind == REC_NONE) {
		*len = 0;
		return "";
	}
	*len = r->fields->len;
	return r->fields->p ? r->fields->p : "";
}

const char *
hm_record_id(const hm_record *r)
{
	return r->has_id && r->id->p ? r->id->p : NULL;
}

size_t
hm_record_end(const hm_record *r)
{
	return r->end;
}

int
hm__record_plain(const hm_record *r)
{
	return r->plain;
}

hm_status
hm__record_read_plain(hm_record *r, const char *buf, size_t len)
{
	size_t i = 0;

	r->kind = REC_NONE;
	r->plain = 0;
	r->has_id = 0;
	r->dup = NULL;
	r->dup_len = 0;
	r->ids = NULL;
	r->fields = r->id = r->text = &r->gfields;
	while (i < len && is_ws((unsigned char)buf[i]))
		i++;
	if (i == len || buf[i] != '{' ||
	    hm__rec_scan(&r->scan, buf + i, len - i, r->keys) != HM_REC_OK || r->scan.server)
		return hm__rec_oom(&r->scan) ? HM_ENOMEM : HM_EINPUT;
	use_scan(r, i);
	return HM_OK;
}

const char *
hm__record_dup(const hm_record *r, size_t *len)
{
	*len = r->dup_len;
	return r->dup;
}

const char *
hm_record_duplicate(const hm_record *r, size_t *len)
{
	return hm__record_dup(r, len);
}
