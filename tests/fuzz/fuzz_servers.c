/*
 * fuzz_servers - what servers and their logs hold (hm_sse, hm_server), as
 * harmony-parse reads a record or SSE stream.  The input's first byte
 * chooses: even, its lines are records; odd, the rest is an SSE stream, fed
 * to hm_sse whole and again in pieces cut where the input's hash says,
 * which must give the same events, each event's data then a value for
 * hm_server.  What comes out must be well formed: completions one after the
 * other (BEGIN, its ids or its text, END), an error only between them, the
 * carried members the members of a JSON object, every completion ended once
 * the stream is done.
 */
#include <cjson/cJSON.h>

#include "fuzz.h"

struct state {
	int open;   /* a completion begun and not ended */
	int text;   /* it comes as text */
	size_t begun, ended;
};

static void
members_ok(const char *s, size_t n)
{
	char *t = malloc(n + 3);
	cJSON *j;

	FUZZ_CHECK(t != NULL, "oom");
	t[0] = '{';
	if (n)
		memcpy(t + 1, s, n);
	t[n + 1] = '}';
	t[n + 2] = 0;
	j = cJSON_Parse(t);
	FUZZ_CHECK(j != NULL && cJSON_IsObject(j), "carried members are no object's: %s", t);
	cJSON_Delete(j);
	free(t);
}

static void
drain(hm_server *sv, struct state *st)
{
	hm_server_item it;

	while (hm_server_next(sv, &it)) {
		switch (it.type) {
		case HM_SRV_BEGIN:
			FUZZ_CHECK(!st->open, "a completion begins inside another");
			st->open = 1, st->text = it.text, st->begun++;
			members_ok(it.s ? it.s : "", it.len);
			break;
		case HM_SRV_IDS:
			FUZZ_CHECK(st->open && !st->text, "ids outside a completion of ids");
			FUZZ_CHECK(it.n == 0 || it.ids != NULL, "no ids pointer");
			break;
		case HM_SRV_TEXT:
			FUZZ_CHECK(st->open && st->text, "text outside a completion of text");
			FUZZ_CHECK(it.len == 0 || it.s != NULL, "no text pointer");
			break;
		case HM_SRV_END:
			FUZZ_CHECK(st->open, "an end with no completion");
			st->open = 0, st->ended++;
			break;
		case HM_SRV_ERROR:
			FUZZ_CHECK(!st->open, "an error inside a completion");
			FUZZ_CHECK(it.s != NULL && it.len > 0 && strlen(it.s) == it.len,
			           "an error without its message");
			break;
		case HM_SRV_DUPLICATE:
			/* a warning, anywhere: a record's carried member given twice, named */
			FUZZ_CHECK(it.s != NULL && it.len > 0, "a duplicate key without its name");
			break;
		default:
			FUZZ_CHECK(0, "item type %d", (int)it.type);
		}
	}
}

static void
done(hm_server *sv, struct state *st)
{
	FUZZ_CHECK(hm_server_done(sv) == HM_OK, "hm_server_done");
	drain(sv, st);
	FUZZ_CHECK(!st->open && st->begun == st->ended, "%zu begun, %zu ended",
	           st->begun, st->ended);
}

/* The events of s[0..n) cut at the points `cuts` chooses; each to sv. */
static size_t
events(const char *s, size_t n, uint64_t cuts, hm_server *sv, struct state *st,
       char ***data, size_t **lens)
{
	hm_sse *e = hm_sse_new();
	size_t at = 0, k, count = 0, calls = 0, len, line;
	const char *d;
	int ev, last = 0;

	FUZZ_CHECK(e != NULL, "hm_sse_new");
	while (!last) {
		size_t piece = n - at;

		if (cuts && piece > 1)
			piece = 1 + (size_t)((cuts >> (calls++ % 48)) % piece);
		if (at < n) {
			FUZZ_CHECK(hm_sse_feed(e, s + at, piece, &k, &ev) == HM_OK, "hm_sse_feed");
			FUZZ_CHECK(k <= piece && (ev || k == piece), "hm_sse_feed took %zu of %zu", k, piece);
			at += k;
		} else {
			/* at most the one event cut off */
			FUZZ_CHECK(hm_sse_finish(e, &ev) == HM_OK, "hm_sse_finish");
			last = 1;
		}
		if (ev) {
			d = hm_sse_data(e, &len, &line);
			FUZZ_CHECK(d != NULL && d[len] == 0, "event data"); /* NUL bytes may be inside */
			*data = realloc(*data, (count + 1) * sizeof **data);
			*lens = realloc(*lens, (count + 1) * sizeof **lens);
			FUZZ_CHECK(*data && *lens, "oom");
			(*data)[count] = malloc(len + 1);
			FUZZ_CHECK((*data)[count] != NULL, "oom");
			memcpy((*data)[count], d, len + 1);
			(*lens)[count] = len;
			count++;
			if (sv) {
				FUZZ_CHECK(hm_server_feed(sv, d, len, line) == HM_OK, "hm_server_feed");
				drain(sv, st);
			}
		}
	}
	hm_sse_free(e);
	return count;
}

static void
sse(const char *s, size_t n, uint64_t h)
{
	hm_server *sv = hm_server_new();
	struct state st = { 0 };
	char **a = NULL, **b = NULL;
	size_t *la = NULL, *lb = NULL, na, nb, i;

	FUZZ_CHECK(sv != NULL, "hm_server_new");
	hm_server_sse(sv, 1);
	na = events(s, n, 0, sv, &st, &a, &la);
	done(sv, &st);
	nb = events(s, n, h | 1, NULL, NULL, &b, &lb);
	FUZZ_CHECK(na == nb, "%zu events whole, %zu in pieces", na, nb);
	for (i = 0; i < na; i++) {
		FUZZ_CHECK(la[i] == lb[i] && !memcmp(a[i], b[i], la[i]),
		           "event %zu differs in pieces: '%s', '%s'", i, a[i], b[i]);
		free(a[i]);
		free(b[i]);
	}
	free(a), free(b), free(la), free(lb);
	hm_server_free(sv);
}

static void
records(const char *s, size_t n, const char *field)
{
	hm_server *sv = hm_server_new();
	struct state st = { 0 };
	size_t at = 0, line = 1;

	FUZZ_CHECK(sv != NULL, "hm_server_new");
	if (field)
		FUZZ_CHECK(hm_server_set_field(sv, field) == HM_OK, "field %s", field);
	while (at < n) {
		const char *nl = memchr(s + at, '\n', n - at);
		size_t end = nl ? (size_t)(nl - s) : n;

		FUZZ_CHECK(hm_server_feed(sv, s + at, end - at, line++) == HM_OK, "hm_server_feed");
		drain(sv, &st);
		at = end + 1;
	}
	done(sv, &st);
	hm_server_free(sv);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *fields[] = { NULL, ".choices[0].text", "response",
	                                ".outputs[0].token_ids", ".a.b[2]" };
	uint64_t h = fuzz_hash(data, size);

	if (size == 0)
		return 0;
	if (data[0] & 1)
		sse((const char *)data + 1, size - 1, h);
	else
		records((const char *)data + 1, size - 1, fields[(data[0] >> 1) % 5]);
	return 0;
}
