/*
 * test_records.c - the one-pass record reader and the general one against
 * an oracle: on random records built from the spellings logs hold,
 * whatever hm__rec_scan takes must have the id array and completion text
 * cJSON reads (the general reader's view), and its carried members must be
 * what the in-house tree writes (hm__jv_write, numbers as written: the
 * carried form of records_int.h), "id" included; json_carry.c must write
 * the same from the text, and valid JSON from text only a lenient reader
 * takes.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json_val_int.h"
#include "records_int.h"
#include "unit.h"

static const char *const values[] = {
	"1", "0", "-12", "1732400000", "1732400000123", "9007199254740993",
	"1.0", "1e3", "-0", "0.7", "0.25", "1e-07", "123456.789", "2147483648",
	"1.5E+2", "0.1000", "\"gpt-oss-120b\"", "\"caf\xc3\xa9\"", "\"\\u00e9\"",
	"\"a\\/b\"", "\"q\\\"\\\\\\n\\t\"", "\"\\u0001\"", "\"\\u001F\"",
	"\"\\u0000\"", "\"\\b\\f\\r\"", "\"\\u0008\"", "true", "false", "null",
	"[]", "{}", "[1,2,{\"b\":null}]", "{\"a\":[1, 2],\"c\":{}}",
	"[ 1 , 2 ]", "{ \"x\" : 1 }", "\"\xff\xfe raw\"",
};

static const char *const id_arrays[] = {
	"[200005,17196,200008,12194,200002]", "[1, 2, 3]", "[ 7 ]", "[]",
	"[4294967295]", "[4294967296]", "[1,2.5]", "[01,2]", "[1,\"x\"]",
	"\"1 2\"", "[1,2,]", "[12345678901]", "[0,0,0]",
};

static const char *const texts[] = {
	"\"<|channel|>final<|message|>hi<|return|>\"", "\"plain \\u00e9 \\ud83d\\ude00\"",
	"\"a\\/b\\n\"", "7",
};

static const char *const keys[] = {
	"id", "model", "created", "usage", "tokens", "token_ids", "output_ids",
	"input_ids", "text", "content", "messages", "x\\ny", "id",
};

static unsigned long rng = 12345;

static unsigned
pick(unsigned n)
{
	rng = rng * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned)((rng >> 33) % n);
}

#define N(a) (sizeof (a) / sizeof (a)[0])

/*
 * The oracle of the carried form: rec's members but the first named drop,
 * "{...}", written from the in-house tree; *id the first "id" member's
 * value.  NULL when rec is not strict JSON.
 */
static char *
carried(const char *rec, const char *drop, char **id)
{
	hm_jv *o = hm__jv_parse_ex(rec, strlen(rec), NULL, 1, HM_JV_NUMTEXT, NULL, 0, NULL);
	hm_buf b = { 0 };
	size_t i;

	*id = NULL;
	if (!hm__jv_is(o, HM_JV_OBJECT)) {
		hm__jv_free(o);
		return NULL;
	}
	hm_buf_addc(&b, '{');
	for (i = 0; i < o->n; i++) {
		if (drop && o->klen[i] == strlen(drop) && !memcmp(o->k[i], drop, o->klen[i])) {
			drop = NULL;
			continue;
		}
		if (!*id && o->klen[i] == 2 && !memcmp(o->k[i], "id", 2)) {
			hm_buf t = { 0 };

			hm__jv_write(&t, o->v[i]);
			*id = t.p;
		}
		if (b.len > 1)
			hm_buf_addc(&b, ',');
		hm_buf_json_str(&b, o->k[i], o->klen[i]);
		hm_buf_addc(&b, ':');
		hm__jv_write(&b, o->v[i]);
	}
	hm_buf_addc(&b, '}');
	hm__jv_free(o);
	return b.p;
}

/*
 * The general reader's view: the id array cJSON reads, the key read
 * (*key, -1: none), and the carried members but that one (carried()), or
 * NULL (no ids, or not strict JSON).
 */
static char *
reference(const char *rec, hm_ids *ids, char **id, int *key)
{
	static const char *const idk[] = { "tokens", "token_ids", "output_ids", "input_ids" };
	cJSON *o = cJSON_Parse(rec), *a = NULL, *e;
	size_t k;

	*id = NULL;
	*key = -1;
	ids->len = 0;
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return NULL;
	}
	for (k = 0; k < 4 && !a; k++)
		if ((a = cJSON_GetObjectItemCaseSensitive(o, idk[k])))
			*key = (int)k;
	if (!cJSON_IsArray(a)) {
		cJSON_Delete(o);
		return NULL;
	}
	cJSON_ArrayForEach(e, a) {
		double d = e->valuedouble;

		if (!cJSON_IsNumber(e) || d < 0 || d != (double)(uint64_t)d || d > 4294967295.0) {
			cJSON_Delete(o);
			return NULL;
		}
		hm_ids_push(ids, (uint32_t)d);
	}
	cJSON_Delete(o);
	return carried(rec, idk[*key], id);
}

/*
 * json_carry.c on the same record: the oracle's text when it is strict
 * JSON, else (a form only a lenient reader takes) text the strict reader
 * takes.  The first id key is left out, as the general reader does.
 */
static void
general(const char *rec)
{
	static const char *const idk[] = { "tokens", "token_ids", "output_ids", "input_ids" };
	cJSON *o = cJSON_Parse(rec);
	const char *drop = NULL;
	char *want, *wid;
	hm_buf b = { 0 }, id = { 0 };
	int has_id = 0;
	size_t k;

	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return;
	}
	for (k = 0; k < 4 && !drop; k++)
		if (cJSON_GetObjectItemCaseSensitive(o, idk[k]))
			drop = idk[k];
	cJSON_Delete(o);
	want = carried(rec, drop, &wid);
	hm_buf_addc(&b, '{');
	CHECK_MSG(hm__carry_object(&b, rec, strlen(rec), drop, &id, &has_id), "%s", rec);
	hm_buf_addc(&b, '}');
	if (want) {
		CHECK_MSG(!strcmp(b.p, want), "%s\n  got  %s\n  want %s", rec, b.p, want);
		CHECK_MSG(has_id == (wid != NULL) && (!wid || !strcmp(id.p, wid)), "%s", rec);
	} else {
		hm_jv *v = hm__jv_parse_ex(b.p, b.len, NULL, 1, HM_JV_NUMTEXT, NULL, 0, NULL);

		CHECK_MSG(v != NULL, "%s\n  carried as %s, not JSON", rec, b.p);
		hm__jv_free(v);
	}
	free(want);
	free(wid);
	hm_buf_free(&b);
	hm_buf_free(&id);
}

static void
build(char *b, size_t cap)
{
	static const char *const seps[] = { ",", ", ", " , ", ",\t" };
	static const char *const cols[] = { ":", ": ", " : " };
	unsigned n = 1 + pick(6), i;
	size_t len;

	strcpy(b, pick(4) ? "{" : "{ ");
	for (i = 0; i < n; i++) {
		const char *k = keys[pick(N(keys))];
		const char *v;

		if (!strcmp(k, "tokens") || !strcmp(k, "token_ids") ||
		    !strcmp(k, "output_ids") || !strcmp(k, "input_ids"))
			v = id_arrays[pick(N(id_arrays))];
		else if (!strcmp(k, "text") || !strcmp(k, "content"))
			v = texts[pick(N(texts))];
		else
			v = values[pick(N(values))];
		len = strlen(b);
		snprintf(b + len, cap - len, "%s\"%s\"%s%s", i ? seps[pick(N(seps))] : "",
		    k, cols[pick(N(cols))], v);
	}
	len = strlen(b);
	snprintf(b + len, cap - len, "%s}", pick(4) ? "" : " ");
}

int
main(void)
{
	struct hm_rec r = { 0 };
	hm_ids ref = { 0 };
	char rec[4096];
	int fast_ids = 0, fast_text = 0, slow = 0, t;

	for (t = 0; t < 20000; t++) {
		char *fields, *id;
		int key, st;

		build(rec, sizeof rec);
		st = hm__rec_scan(&r, rec, strlen(rec), hm__text_keys);
		fields = reference(rec, &ref, &id, &key);
		if (st != HM_REC_OK) {
			slow++;
		} else if (!r.is_text) {
			fast_ids++;
			CHECK_MSG(fields != NULL, "taken, but not JSON: %s", rec);
			if (fields) {
				size_t m = strlen(fields);

				CHECK_MSG(r.key == key, "%s", rec);
				CHECK_MSG(r.ids->len == ref.len &&
				    !memcmp(r.ids->v, ref.v, ref.len * sizeof *ref.v), "%s", rec);
				CHECK_MSG(r.fields.len == m - 2 && !memcmp(r.fields.p, fields + 1, m - 2),
				    "%s\n  got  %s\n  want %s", rec, r.fields.p, fields);
				CHECK_MSG(r.has_id == (id != NULL) &&
				    (!id || !strcmp(r.id.p, id)), "%s", rec);
			}
			CHECK(r.end == strlen(rec));
		} else {
			/* text: the string cJSON decodes, the rest in the carried form */
			cJSON *o = cJSON_Parse(rec), *tv = NULL;
			const char *const *tk;
			char *want = NULL, *wid = NULL;

			fast_text++;
			CHECK_MSG(key < 0, "%s", rec);
			for (tk = hm__text_keys; *tk && !tv; tk++)
				if (!cJSON_IsString(tv = cJSON_GetObjectItemCaseSensitive(o, *tk)))
					tv = NULL;
			CHECK_MSG(tv && r.text.len == strlen(tv->valuestring) &&
			    !memcmp(r.text.p, tv->valuestring, r.text.len), "%s", rec);
			if (tv)
				want = carried(rec, tk[-1], &wid);
			CHECK_MSG(want && strlen(want) - 2 == r.fields.len &&
			    !memcmp(want + 1, r.fields.p, r.fields.len), "%s\n  got  %s\n  want %s",
			    rec, r.fields.p, want ? want : "(not JSON)");
			CHECK_MSG(r.has_id == (wid != NULL) && (!wid || !strcmp(r.id.p, wid)), "%s", rec);
			free(want);
			free(wid);
			cJSON_Delete(o);
		}
		general(rec);
		/* The carried form is what hm__rec_members takes, or sends on. */
		if (fields)
			CHECK_MSG(hm__rec_members(fields + 1, strlen(fields) - 2, NULL, NULL),
			    "the carried form not taken: %s", fields);
		free(fields);
		free(id);
	}
	/* Without both ways taken often, the checks above prove little. */
	CHECK_MSG(fast_ids > 1000 && fast_text > 300 && slow > 1000,
	    "fast ids %d, fast text %d, general %d", fast_ids, fast_text, slow);
	hm__rec_free(&r);
	hm_ids_free(&ref);
	return UNIT_DONE("records");
}
