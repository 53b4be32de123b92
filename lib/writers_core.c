/*
 * writers_core.c - what every output shape builds on: JSON keys and
 * strings, indenting, made ids, the reasoning test, a record's carried
 * fields.  The shapes (writers_messages.c, writers_oai.c ... one file
 * each, docs/writers.md) sit above it; writers.c's table of shapes calls
 * them.
 */
#include <stdint.h>
#include <string.h>

#include "harmony.h"
#include "json_val_int.h"
#include "records_int.h"
#include "writers_int.h"

void
hm__w_key(int *nomem, hm_buf *b, const char *key)
{
	hm__putc(nomem, b, '"');
	hm__adds(nomem, b, key);
	hm__add(nomem, b, "\":", 2);
}

void
hm__w_str(hm_buf *b, const char *s, size_t n)
{
	hm__json_str(&b->oom, b, s, n); /* a buffer standing alone owns itself */
}

void
hm__w_strz(int *nomem, hm_buf *b, const char *s)
{
	hm__json_str(nomem, b, s, strlen(s));
}

/* A message's text goes into the output this much at a time, when the caller takes it so. */
#define TEXT_SLICE (1 << 16)

void
hm__w_msgtext_body(hm_writer *w, hm_buf *b, const char *s, size_t n)
{
	while (n > TEXT_SLICE && b == &w->out && w->flush_fn && !w->nomem) {
		size_t k = TEXT_SLICE;

		/* A slice ends before a character's first byte: escaping reads whole characters. */
		while (k > TEXT_SLICE - 4 && ((unsigned char)s[k] & 0xC0) == 0x80)
			k--;
		hm__json_body(&w->nomem, b, s, k);
		s += k;
		n -= k;
		w->flush_fn(w->flush_ctx, w);
	}
	if (s)
		hm__json_body(&w->nomem, b, s, n);
}

void
hm__w_msgtext(hm_writer *w, hm_buf *b, const char *s, size_t n)
{
	hm__putc(&w->nomem, b, '"');
	hm__w_msgtext_body(w, b, s, n);
	hm__putc(&w->nomem, b, '"');
}

static void
newline_indent(int *nomem, hm_buf *b, unsigned depth)
{
	hm__putc(nomem, b, '\n');
	while (depth--)
		hm__add(nomem, b, "  ", 2);
}

void
hm__w_pretty_to(int *nomem, struct hm_pretty *st, hm_buf *b, const char *s, size_t n)
{
	size_t i, run;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (st->instr) {
			/* Copy the rest of the string up to its closing quote. */
			for (run = i; run < n && (st->esc || s[run] != '"'); run++)
				st->esc = !st->esc && s[run] == '\\';
			hm__add(nomem, b, s + i, run - i);
			if (run == n)
				return;
			hm__putc(nomem, b, '"');
			st->instr = 0;
			i = run;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || (c == '\n' && st->depth)) {
			/* Carried record fields may hold blanks: ours replace them. */
			continue;
		}
		if (st->open) {
			st->open = 0;
			if (c == '}' || c == ']') {
				st->depth--;
				hm__putc(nomem, b, c);
				continue;
			}
			newline_indent(nomem, b, st->depth);
		}
		switch (c) {
		case '"':
			st->instr = 1;
			hm__putc(nomem, b, c);
			break;
		case '{':
		case '[':
			hm__putc(nomem, b, c);
			st->depth++;
			st->open = 1;
			break;
		case '}':
		case ']':
			if (st->depth)
				st->depth--;
			newline_indent(nomem, b, st->depth);
			hm__putc(nomem, b, c);
			break;
		case ',':
			hm__putc(nomem, b, c);
			newline_indent(nomem, b, st->depth);
			break;
		case ':':
			hm__add(nomem, b, ": ", 2);
			break;
		default:
			hm__putc(nomem, b, c);
		}
	}
}

void
hm__w_pretty(struct hm_pretty *st, hm_buf *b, const char *s, size_t n)
{
	hm__w_pretty_to(&b->oom, st, b, s, n); /* a buffer standing alone owns itself */
}

/*
 * splitmix64's finaliser: ids only need to look random, not be secret.  An
 * id is a function of the seed, the record, its prefix and its number, so
 * every event that names one response, item or call names it alike.
 */
static uint64_t
mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/*
 * A carried member that may seed the record's ids: its "id", or else its
 * prompt.  The value is hashed as carried (compact), so the same record
 * gives the same seed however it was spelled.
 */
void
hm__w_seed_member(hm_writer *w, const char *k, size_t kn, const char *v, size_t vn)
{
	static const struct hm_wkey prompts[] = {
		HM__W_KEY("prompt"), HM__W_KEY("input_ids"), HM__W_KEY("prompt_ids"),
		HM__W_KEY("prompt_token_ids"),
	};
	uint64_t h = 0xCBF29CE484222325ull; /* FNV-1a */
	int from = 0;
	size_t i;

	if (kn == 2 && k[0] == 'i' && k[1] == 'd')
		from = 2;
	else if (!w->seed_from)
		for (i = 0; i < sizeof prompts / sizeof prompts[0]; i++)
			if (kn == prompts[i].n && !memcmp(k, prompts[i].s, kn))
				from = 1;
	if (!from || (vn == 4 && !memcmp(v, "null", 4)))
		return;
	for (i = 0; i < vn; i++)
		h = (h ^ (unsigned char)v[i]) * 0x100000001B3ull;
	w->seed = mix(h);
	w->seed_from = from;
}

/*
 * An id: the prefix and n alone when deterministic and the record has no
 * seed; else 24 hex digits of a hash of the seed (random, or the
 * record's own), the record, the prefix and n.
 */
void
hm__w_id(hm_writer *w, hm_buf *b, const char *prefix, uint64_t n)
{
	static const char hex[] = "0123456789abcdef";
	struct hm_widc *e;
	uint64_t h, a, c;
	const char *s;
	unsigned k;
	int i;

	hm__adds(&w->nomem, b, prefix);
	if (w->flags & HM_WRITER_RANDOM_IDS)
		h = mix(w->rng ^ mix(w->rec));
	else if (w->seed_from)
		h = w->seed;
	else {
		hm__addu(&w->nomem, b, n);
		return;
	}
	for (k = 0; k < 4; k++)
		if (w->idc[k].prefix == prefix && w->idc[k].n == n) {
			hm__add(&w->nomem, b, w->idc[k].hex, 24);
			return;
		}
	for (s = prefix; *s; s++)
		h = mix(h ^ (unsigned char)*s);
	a = mix(h ^ n);
	c = mix(a);
	e = &w->idc[w->idc_next++ & 3];
	for (i = 0; i < 16; i++)
		e->hex[i] = hex[(a >> (i * 4)) & 15];
	for (i = 0; i < 8; i++)
		e->hex[16 + i] = hex[(c >> (i * 4)) & 15];
	e->prefix = prefix;
	e->n = n;
	hm__add(&w->nomem, b, e->hex, 24);
}

/* Commentary without a functions. recipient counts as reasoning, too. */
int
hm__w_reasoning(const struct hm_witem *it)
{
	if (!it->has_chan || it->cls == CLS_SKIP)
		return 0;
	if (it->chan.len == 8 && !memcmp(it->chan.p, "analysis", 8))
		return 1;
	return it->chan.len == 10 && !memcmp(it->chan.p, "commentary", 10) &&
	    it->cls != CLS_FUNC;
}

/* A record's opening brace and its carried fields, for the NDJSON shapes. */
void
hm__w_fields_prefix(hm_writer *w)
{
	hm__putc(&w->nomem, &w->out, '{');
	if (w->fields.len) {
		hm__add(&w->nomem, &w->out, w->fields.p, w->fields.len);
		hm__putc(&w->nomem, &w->out, ',');
	}
}

void
hm__w_object_id(hm_writer *w, hm_buf *b, const char *prefix)
{
	hm__adds(&w->nomem, b, "\"id\":");
	if (w->carried_id) {
		/* held as hm_writer_begin read it */
		hm__add(&w->nomem, b, w->fields.p + w->id_off, w->id_len);
		return;
	}
	hm__putc(&w->nomem, b, '"');
	hm__w_id(w, b, prefix, w->rec);
	hm__putc(&w->nomem, b, '"');
}

uint64_t
hm__w_item_tokens(const struct hm_witem *it)
{
	return it->at1 >= it->at0 ? it->at1 - it->at0 + (it->stop != HM_STOP_EOS) : 0;
}

uint64_t
hm__w_reasoning_tokens(const hm_writer *w)
{
	uint64_t reason = 0;
	size_t i;

	for (i = 0; i < w->nit; i++)
		if (hm__w_reasoning(&w->it[i]))
			reason += hm__w_item_tokens(&w->it[i]);
	return reason;
}

void
hm__w_fname(int *nomem, hm_buf *b, const struct hm_witem *it)
{
	if (it->cls == CLS_FUNC)
		hm__json_str(nomem, b, it->rcpt.p + it->fname_off, it->fname_len);
	else
		hm__json_str(nomem, b, it->rcpt.p, it->rcpt.len);
}


/* ---------------------------------------------------------------- the record's own */

int64_t
hm__w_count(const char *s, size_t n)
{
	int64_t v = 0;
	size_t i;
	double d;

	/* Most counts are plain digits: no conversion. */
	for (i = 0; i < n && i < 16 && s[i] >= '0' && s[i] <= '9'; i++)
		v = v * 10 + (s[i] - '0');
	if (i == n && n && n < 16)
		return v;
	if (!n || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) || hm__json_f64(s, n, &d) ||
	    d < 0 || d > 9007199254740992.0 || d != (double)(int64_t)d)
		return -1;
	return (int64_t)d;
}

void
hm__w_own_reset(hm_writer *w)
{
	size_t i;

	hm_buf_reset(&w->own.text);
	w->own.usage_seen = 0;
	for (i = 0; i < OWN_TEXTS; i++)
		w->own.len[i] = w->own.seen[i] = 0;
	for (i = 0; i < OWN_COUNTS; i++)
		w->own.n[i] = HM__W_UNSEEN;
}

static int
is_key(const char *k, size_t kn, const char *name)
{
	return strlen(name) == kn && !memcmp(k, name, kn);
}

/* The first count i met. */
static void
note_count(hm_writer *w, int i, const char *v, size_t vn)
{
	if (w->own.n[i] == HM__W_UNSEEN)
		w->own.n[i] = hm__w_count(v, vn);
}

/* The first text i met, when it is a string (or null, where nulls is set). */
static void
note_text(hm_writer *w, int i, const char *v, size_t vn, int nulls)
{
	if (w->own.seen[i])
		return;
	w->own.seen[i] = 1;
	if (!vn || (v[0] != '"' && !(nulls && vn == 4 && !memcmp(v, "null", 4))))
		return;
	/* a failed append is in w->nomem, and leaves nothing to read */
	if (hm__reserve(&w->nomem, &w->own.text, vn) != HM_OK)
		return;
	w->own.off[i] = w->own.text.len;
	hm__put(&w->nomem, &w->own.text, v, vn);
	w->own.len[i] = vn;
}

/* The members of an object value v[0..vn) in the carried form, through each. */
static void
members(const char *v, size_t vn, int (*each)(void *, const char *, size_t, const char *, size_t),
    hm_writer *w)
{
	if (vn >= 2 && v[0] == '{')
		(void)hm__rec_members(v + 1, vn - 2, each, w);
}

/* prompt_tokens_details, input_tokens_details */
static int
details_member(void *arg, const char *k, size_t kn, const char *v, size_t vn)
{
	hm_writer *w = arg;

	if (is_key(k, kn, "cached_tokens"))
		note_count(w, OWN_CACHED, v, vn);
	else if (is_key(k, kn, "cache_write_tokens"))
		note_count(w, OWN_CACHE_WRITE, v, vn);
	return 1;
}

static int
usage_member(void *arg, const char *k, size_t kn, const char *v, size_t vn)
{
	hm_writer *w = arg;

	if (is_key(k, kn, "prompt_tokens"))
		note_count(w, OWN_U_PROMPT, v, vn);
	else if (is_key(k, kn, "input_tokens"))
		note_count(w, OWN_U_INPUT, v, vn);
	else if (is_key(k, kn, "completion_tokens"))
		note_count(w, OWN_U_COMPLETION, v, vn);
	else if (is_key(k, kn, "output_tokens"))
		note_count(w, OWN_U_OUTPUT, v, vn);
	else if (is_key(k, kn, "cache_read_input_tokens"))
		note_count(w, OWN_CACHED, v, vn);
	else if (is_key(k, kn, "cache_creation_input_tokens"))
		note_count(w, OWN_CACHE_WRITE, v, vn);
	else if (is_key(k, kn, "prompt_tokens_details") || is_key(k, kn, "input_tokens_details"))
		members(v, vn, details_member, w);
	else if (is_key(k, kn, "service_tier"))
		note_text(w, OWN_USAGE_TIER, v, vn, 1);
	return 1;
}

/* sglang's meta_info */
static int
meta_member(void *arg, const char *k, size_t kn, const char *v, size_t vn)
{
	hm_writer *w = arg;

	if (is_key(k, kn, "prompt_tokens"))
		note_count(w, OWN_META_PROMPT, v, vn);
	else if (is_key(k, kn, "completion_tokens"))
		note_count(w, OWN_META_COMPLETION, v, vn);
	else if (is_key(k, kn, "cached_tokens"))
		note_count(w, OWN_CACHED, v, vn);
	return 1;
}

/*
 * A top-level count or text of the record: the first of a name, or, for
 * a member met late (hm_writer_late_fields), this one in place of what
 * was noted.
 */
static void
own_count(hm_writer *w, int i, const char *v, size_t vn)
{
	if (w->own.late)
		w->own.n[i] = HM__W_UNSEEN;
	note_count(w, i, v, vn);
}

static void
own_text(hm_writer *w, int i, const char *v, size_t vn, int nulls)
{
	if (w->own.late)
		w->own.seen[i] = 0, w->own.len[i] = 0;
	note_text(w, i, v, vn, nulls);
}

void
hm__w_own_note(hm_writer *w, const char *k, size_t kn, const char *v, size_t vn)
{
	static const int usage[] = {
		OWN_U_PROMPT, OWN_U_INPUT, OWN_U_COMPLETION, OWN_U_OUTPUT, OWN_CACHED,
		OWN_CACHE_WRITE,
	};
	size_t i;

	if (is_key(k, kn, "model"))
		own_text(w, OWN_MODEL, v, vn, 0);
	else if (is_key(k, kn, "usage")) {
		if (w->own.late) { /* a late usage replaces the whole of the one before */
			w->own.usage_seen = 0;
			for (i = 0; i < sizeof usage / sizeof usage[0]; i++)
				w->own.n[usage[i]] = HM__W_UNSEEN;
			w->own.seen[OWN_USAGE_TIER] = 0;
			w->own.len[OWN_USAGE_TIER] = 0;
		}
		if (!w->own.usage_seen) /* the first usage alone */
			members(v, vn, usage_member, w);
		w->own.usage_seen = 1;
	} else if (is_key(k, kn, "created"))
		own_count(w, OWN_CREATED, v, vn);
	else if (is_key(k, kn, "created_at"))
		own_count(w, OWN_CREATED_AT, v, vn);
	else if (is_key(k, kn, "service_tier"))
		own_text(w, OWN_TIER, v, vn, 1);
	else if (is_key(k, kn, "system_fingerprint"))
		own_text(w, OWN_FINGERPRINT, v, vn, 1);
	else if (is_key(k, kn, "input_tokens"))
		own_count(w, OWN_INPUT, v, vn);
	else if (is_key(k, kn, "prompt_tokens"))
		own_count(w, OWN_PROMPT, v, vn);
	else if (is_key(k, kn, "output_tokens"))
		own_count(w, OWN_OUTPUT, v, vn);
	else if (is_key(k, kn, "completion_tokens"))
		own_count(w, OWN_COMPLETION, v, vn);
	else if (is_key(k, kn, "prompt_eval_count") || is_key(k, kn, "tokens_evaluated"))
		own_count(w, OWN_EVAL_PROMPT, v, vn);
	else if (is_key(k, kn, "eval_count") || is_key(k, kn, "tokens_predicted"))
		own_count(w, OWN_EVAL, v, vn);
	else if (is_key(k, kn, "meta_info")) {
		if (w->own.late)
			w->own.n[OWN_META_PROMPT] = w->own.n[OWN_META_COMPLETION] = HM__W_UNSEEN;
		members(v, vn, meta_member, w);
	}
}

/* The first of the counts i, j ... that the record has; -1. */
static int64_t
first_count(const hm_writer *w, const int *i, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (w->own.n[i[k]] >= 0)
			return w->own.n[i[k]];
	return -1;
}

int64_t
hm__w_own_input(const hm_writer *w)
{
	static const int order[] = {
		OWN_U_INPUT, OWN_U_PROMPT, OWN_INPUT, OWN_PROMPT, OWN_EVAL_PROMPT,
		OWN_META_PROMPT,
	};

	return first_count(w, order, sizeof order / sizeof order[0]);
}

int64_t
hm__w_own_output(const hm_writer *w)
{
	static const int order[] = {
		OWN_U_OUTPUT, OWN_U_COMPLETION, OWN_OUTPUT, OWN_COMPLETION, OWN_EVAL,
		OWN_META_COMPLETION,
	};

	return first_count(w, order, sizeof order / sizeof order[0]);
}

int
hm__w_own_counts(const hm_writer *w)
{
	return hm__w_own_input(w) >= 0 || hm__w_own_output(w) >= 0 ||
	    w->own.n[OWN_CACHED] >= 0 || w->own.n[OWN_CACHE_WRITE] >= 0;
}

int64_t
hm__w_own_created(const hm_writer *w, int responses)
{
	int64_t a = w->own.n[responses ? OWN_CREATED_AT : OWN_CREATED];
	int64_t b = w->own.n[responses ? OWN_CREATED : OWN_CREATED_AT];

	return a >= 0 ? a : b >= 0 ? b : w->created;
}

int
hm__w_own_text(hm_writer *w, hm_buf *b, int i)
{
	if (!w->own.len[i] || !w->own.text.p)
		return 0;
	hm__add(&w->nomem, b, w->own.text.p + w->own.off[i], w->own.len[i]);
	return 1;
}

void
hm__w_model(hm_writer *w, hm_buf *b)
{
	hm__adds(&w->nomem, b, "\"model\":");
	if (!hm__w_own_text(w, b, OWN_MODEL))
		hm__adds(&w->nomem, b, "\"" HM__W_MODEL "\"");
}
