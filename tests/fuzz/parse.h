/*
 * parse.h - the parser driver of fuzz_parse_ids and fuzz_parse_text: the
 * same input fed whole, one token (byte) at a time and in chunks of sizes
 * drawn from the input's hash, in strict and default mode, with delta
 * merging off and on.  The events must not depend on the chunking: equal
 * in ids mode; in text mode and with merging, equal once adjacent deltas
 * are joined (with merging, where a joined delta is placed follows the
 * reads, as hm_parser_set_merge says, so its position is not compared,
 * and in text mode merged runs warn about bad UTF-8 as they read it, so
 * there the warnings are compared as a sorted list, apart).  The chunked
 * run's parser first parses another stream and is reset (hm_parser_reset).
 * The events must also be well formed: deltas inside a
 * message and valid UTF-8, no ERROR in default mode, no WARNING in strict
 * mode, nothing after an ERROR, else DONE last.
 */
#include "buf_int.h"
#include "fuzz.h"
#include "parser_int.h"

typedef struct run_opts {
	const uint32_t *ids; /* ids mode; NULL: text mode */
	const char *text;
	size_t n;            /* ids or bytes */
	unsigned flags;      /* HM_PARSE_STRICT */
	const char *role;
	const char *marker;  /* default mode: hm_parser_set_marker */
	int merge;
} run_opts;

enum { CHUNK_WHOLE, CHUNK_ONE, CHUNK_RANDOM };

static void
span(hm_buf *b, const char *k, hm_span s)
{
	hm_buf_adds(b, k);
	if (!s.p) {
		hm_buf_adds(b, "-");
		return;
	}
	hm_buf_json_str(b, s.p, s.len);
}

/* Append ev in a canonical form; a delta is held in *delta, to be joined. */
static void
record(hm_buf *b, hm_buf *delta, hm_buf *warns, const hm_event *ev, int join, int merge)
{
	if (ev->type == HM_EV_DELTA && join) {
		if (!delta->len) {
			hm_buf_adds(delta, "delta at=");
			if (merge)
				hm_buf_adds(delta, "?");
			else
				hm_buf_addu(delta, ev->at);
			hm_buf_adds(delta, " ");
		}
		hm_buf_add(delta, ev->text.p, ev->text.len);
		return;
	}
	if (ev->type == HM_EV_WARNING && warns) {
		b = warns;
	} else if (delta->len) {
		hm_buf_add(b, delta->p, delta->len);
		hm_buf_addc(b, '\n');
		hm_buf_reset(delta);
	}
	hm_buf_adds(b, "ev ");
	hm_buf_addu(b, (unsigned long long)ev->type);
	hm_buf_adds(b, " at=");
	hm_buf_addu(b, ev->at);
	switch (ev->type) {
	case HM_EV_START:
		hm_buf_adds(b, " role=");
		hm_buf_adds(b, ev->role ? ev->role : "(null)");
		span(b, " name=", ev->name);
		span(b, " recipient=", ev->recipient);
		span(b, " channel=", ev->channel);
		span(b, " ctype=", ev->content_type);
		break;
	case HM_EV_END:
		hm_buf_adds(b, " stop=");
		hm_buf_adds(b, hm_stop_name(ev->stop));
		break;
	case HM_EV_WARNING:
		hm_buf_adds(b, " code=");
		hm_buf_addu(b, (unsigned long long)ev->code);
		/* fall through */
	case HM_EV_DELTA:
	case HM_EV_ERROR:
		span(b, " text=", ev->text);
		break;
	case HM_EV_DONE:
		hm_buf_adds(b, ev->truncated ? " truncated" : " complete");
		hm_buf_adds(b, " tokens=");
		hm_buf_addu(b, (unsigned long long)ev->tokens);
		break;
	case HM_EV_UNKNOWN:
		break;
	}
	hm_buf_addc(b, '\n');
}

static int
line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append the lines of w (each ending in \n) to b, sorted. */
static void
sorted_lines(hm_buf *b, hm_buf *w)
{
	size_t n = 0, i, k = 0;
	char **v;

	for (i = 0; i < w->len; i++)
		n += w->p[i] == '\n';
	v = malloc((n ? n : 1) * sizeof *v);
	FUZZ_CHECK(v != NULL, "oom");
	for (i = 0; i < w->len; i++) {
		if (i == 0 || w->p[i - 1] == '\0')
			v[k++] = w->p + i;
		if (w->p[i] == '\n')
			w->p[i] = '\0';
	}
	qsort(v, k, sizeof *v, line_cmp);
	for (i = 0; i < k; i++) {
		hm_buf_adds(b, v[i]);
		hm_buf_addc(b, '\n');
	}
	free(v);
}

typedef struct check_state {
	int open, errored, done;
} check_state;

static void
check_event(check_state *c, const run_opts *o, const hm_event *ev)
{
	FUZZ_CHECK(!c->done, "an event after DONE");
	FUZZ_CHECK(!c->errored, "event %d after an ERROR", (int)ev->type);
	switch (ev->type) {
	case HM_EV_START:
		FUZZ_CHECK(ev->role != NULL, "START without a role");
		c->open = 1;
		break;
	case HM_EV_DELTA:
		FUZZ_CHECK(c->open, "DELTA outside a message");
		FUZZ_CHECK(hm_utf8_valid_prefix(ev->text.p, ev->text.len) == ev->text.len,
		           "DELTA text is not valid UTF-8");
		break;
	case HM_EV_END:
		FUZZ_CHECK(c->open, "END outside a message");
		c->open = 0;
		break;
	case HM_EV_WARNING:
		FUZZ_CHECK(!(o->flags & HM_PARSE_STRICT), "WARNING in strict mode");
		break;
	case HM_EV_ERROR:
		FUZZ_CHECK(o->flags & HM_PARSE_STRICT, "ERROR in default mode");
		c->errored = 1;
		break;
	case HM_EV_DONE:
		c->done = 1;
		if (o->ids) {
			FUZZ_CHECK(ev->tokens == o->n, "DONE says %llu tokens, %zu fed",
			           (unsigned long long)ev->tokens, o->n);
		} else if (o->flags & HM_PARSE_COUNT) {
			/* the count is the tokens the whole text encodes to */
			hm_encoder *enc = hm_encoder_new();
			hm_ids ids = { 0 };

			FUZZ_CHECK(enc && hm_encode(enc, o->text, o->n, HM_ENC_SPECIAL | HM_ENC_LOSSY,
			           &ids, NULL) == HM_OK, "encode");
			FUZZ_CHECK(ev->tokens == ids.len, "DONE counts %llu tokens, the text encodes to %zu",
			           (unsigned long long)ev->tokens, ids.len);
			hm_ids_free(&ids);
			hm_encoder_free(enc);
		} else {
			FUZZ_CHECK(ev->tokens == 0, "text not counted, yet %llu tokens",
			           (unsigned long long)ev->tokens);
		}
		break;
	default:
		FUZZ_CHECK(0, "event type %d", (int)ev->type);
	}
}

static void
run(const run_opts *o, int chunking, uint64_t seed, int join, hm_buf *out)
{
	hm_parser *p = hm_parser_new(o->role, o->flags);
	hm_buf delta = { 0 }, warns = { 0 };
	check_state c = { 0, 0, 0 };
	int loose = o->merge && !o->ids;
	hm_event ev;
	size_t at = 0;

	FUZZ_CHECK(p != NULL, "hm_parser_new(%s)", o->role ? o->role : "NULL");
	hm_parser_set_merge(p, o->merge);
	if (o->marker)
		FUZZ_CHECK(hm_parser_set_marker(p, o->marker, strlen(o->marker)) == HM_OK, "marker");
	if (chunking == CHUNK_RANDOM && o->n) {
		/*
		 * A stream before this one (the input's tail), finished or cut
		 * off, its events partly pulled: hm_parser_reset forgets it.
		 */
		size_t k = 1 + fuzz_next(&seed) % o->n, j;

		if (o->ids)
			FUZZ_CHECK(hm_parser_feed(p, o->ids + o->n - k, k) == HM_OK, "feed");
		else
			FUZZ_CHECK(hm_parser_feed_text(p, o->text + o->n - k, k) == HM_OK, "feed_text");
		if (fuzz_next(&seed) & 1)
			hm_parser_finish(p);
		for (j = fuzz_next(&seed) % 8; j > 0 && hm_parser_next(p, &ev); j--)
			;
		hm_parser_reset(p);
	}
	while (at < o->n) {
		size_t k = o->n - at;

		if (chunking == CHUNK_ONE)
			k = 1;
		else if (chunking == CHUNK_RANDOM && k > 1)
			k = 1 + fuzz_next(&seed) % (fuzz_next(&seed) & 1 && k > 4 ? 4 : k);
		if (o->ids)
			FUZZ_CHECK(hm_parser_feed(p, o->ids + at, k) == HM_OK, "feed");
		else
			FUZZ_CHECK(hm_parser_feed_text(p, o->text + at, k) == HM_OK, "feed_text");
		at += k;
		while (hm_parser_next(p, &ev)) {
			check_event(&c, o, &ev);
			record(out, &delta, loose ? &warns : NULL, &ev, join, o->merge);
		}
	}
	hm_parser_finish(p);
	while (hm_parser_next(p, &ev)) {
		check_event(&c, o, &ev);
		record(out, &delta, loose ? &warns : NULL, &ev, join, o->merge);
	}
	if (warns.len) {
		hm_buf_adds(out, "warnings, sorted:\n");
		sorted_lines(out, &warns);
	}
	FUZZ_CHECK(c.done || c.errored, "neither DONE nor ERROR at the end");
	FUZZ_CHECK(c.errored || hm_parser_position(p) == o->n, "position %llu after %zu (role %s, flags %u, merge %d, chunking %d)",
	           (unsigned long long)hm_parser_position(p), o->n, o->role ? o->role : "NULL", o->flags, o->merge, chunking);
	FUZZ_CHECK(!out->oom && !delta.oom, "oom");
	hm_buf_free(&delta);
	hm_buf_free(&warns);
	hm_parser_free(p);
}

/* Every chunking of o gives the same events as the whole input. */
static void
same_events(const run_opts *o, uint64_t seed)
{
	int join = !o->ids || o->merge, ch;
	hm_buf whole = { 0 }, other = { 0 };

	run(o, CHUNK_WHOLE, seed, join, &whole);
	for (ch = CHUNK_ONE; ch <= CHUNK_RANDOM; ch++) {
		hm_buf_reset(&other);
		run(o, ch, seed, join, &other);
		FUZZ_CHECK(whole.len == other.len && !memcmp(whole.p, other.p, whole.len),
		           "chunking %d (%s, %s mode, merge %d) changes the events:\n--- whole\n%s--- chunked\n%s",
		           ch, o->ids ? "ids" : "text", o->flags & HM_PARSE_STRICT ? "strict" : "default",
		           o->merge, whole.p, other.p ? other.p : "");
	}
	hm_buf_free(&whole);
	hm_buf_free(&other);
}

/* Both modes, merging off and on, a role and perhaps a marker from the hash. */
static void
parse_all(run_opts *o, uint64_t h)
{
	static const char *const roles[] = { "assistant", NULL, "none", "auto", "user", "system", "developer", "tool" };

	o->role = roles[h % 8];
	o->marker = (h >> 3) % 4 == 0 ? "</think>" : NULL;
	for (o->merge = 0; o->merge <= 1; o->merge++) {
		o->flags = HM_PARSE_STRICT;
		same_events(o, h);
		/* default mode, counting the tokens of text or not */
		o->flags = o->ids || (h >> 5) % 2 ? 0 : HM_PARSE_COUNT;
		same_events(o, h);
	}
}
