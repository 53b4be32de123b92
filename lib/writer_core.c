/*
 * writer_core.c - what every output shape builds on: JSON keys and
 * strings, indenting, made ids, the reasoning test, a record's carried
 * fields.  The shapes (writers_stats.c, writers_oai.c, and messages,
 * events and text in writers.c) sit above it; writers.c's writer object
 * dispatches to them.
 */
#include <stdint.h>
#include <string.h>

#include "harmony.h"
#include "writers_int.h"

void
hm__w_key(hm_buf *b, const char *key)
{
	hm_buf_addc(b, '"');
	hm_buf_adds(b, key);
	hm_buf_add(b, "\":", 2);
}

void
hm__w_str(hm_buf *b, const char *s, size_t n)
{
	hm_buf_json_str(b, s, n);
}

void
hm__w_strz(hm_buf *b, const char *s)
{
	hm__w_str(b, s, strlen(s));
}

static void
newline_indent(hm_buf *b, unsigned depth)
{
	hm_buf_addc(b, '\n');
	while (depth--)
		hm_buf_add(b, "  ", 2);
}

void
hm__w_pretty(struct hm_pretty *st, hm_buf *b, const char *s, size_t n)
{
	size_t i, run;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (st->instr) {
			/* Copy the rest of the string up to its closing quote. */
			for (run = i; run < n && (st->esc || s[run] != '"'); run++)
				st->esc = !st->esc && s[run] == '\\';
			hm_buf_add(b, s + i, run - i);
			if (run == n)
				return;
			hm_buf_addc(b, '"');
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
				hm_buf_addc(b, c);
				continue;
			}
			newline_indent(b, st->depth);
		}
		switch (c) {
		case '"':
			st->instr = 1;
			hm_buf_addc(b, c);
			break;
		case '{':
		case '[':
			hm_buf_addc(b, c);
			st->depth++;
			st->open = 1;
			break;
		case '}':
		case ']':
			if (st->depth)
				st->depth--;
			newline_indent(b, st->depth);
			hm_buf_addc(b, c);
			break;
		case ',':
			hm_buf_addc(b, c);
			newline_indent(b, st->depth);
			break;
		case ':':
			hm_buf_add(b, ": ", 2);
			break;
		default:
			hm_buf_addc(b, c);
		}
	}
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

void
hm__w_id(hm_writer *w, hm_buf *b, const char *prefix, uint64_t n)
{
	static const char hex[] = "0123456789abcdef";

	hm_buf_adds(b, prefix);
	if (w->flags & HM_WRITER_RANDOM_IDS) {
		uint64_t h = mix(w->rng ^ mix(w->rec)), a, c;
		const char *s;
		int i;

		for (s = prefix; *s; s++)
			h = mix(h ^ (unsigned char)*s);
		a = mix(h ^ n);
		c = mix(a);
		for (i = 0; i < 16; i++)
			hm_buf_addc(b, hex[(a >> (i * 4)) & 15]);
		for (i = 0; i < 8; i++)
			hm_buf_addc(b, hex[(c >> (i * 4)) & 15]);
	} else
		hm_buf_addu(b, n);
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
hm_status
hm__w_status(hm_writer *w, const struct hm_witem *it)
{
	w->oom |= w->out.oom | w->fields.oom | w->warn.oom | w->r_chan.oom | w->r_rcpt.oom |
	    w->s_chan.oom | w->s_rcpt.oom | w->s_term.oom | w->s_chantok.oom | w->s_calls.oom;
	if (it)
		w->oom |= it->name.oom | it->rcpt.oom | it->chan.oom | it->ctype.oom | it->text.oom;
	return w->oom ? HM_ENOMEM : HM_OK;
}

void
hm__w_fields_prefix(hm_writer *w)
{
	hm_buf_addc(&w->out, '{');
	if (w->fields.len) {
		hm_buf_add(&w->out, w->fields.p, w->fields.len);
		hm_buf_addc(&w->out, ',');
	}
}

void
hm__w_object_id(hm_writer *w, hm_buf *b, const char *prefix)
{
	hm_buf_adds(b, "\"id\":");
	if (w->carried_id) {
		/* held as hm_writer_begin read it */
		hm_buf_add(b, w->fields.p + w->id_off, w->id_len);
		return;
	}
	hm_buf_addc(b, '"');
	hm__w_id(w, b, prefix, w->rec);
	hm_buf_addc(b, '"');
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
hm__w_fname(hm_buf *b, const struct hm_witem *it)
{
	if (it->cls == CLS_FUNC)
		hm__w_str(b, it->rcpt.p + it->fname_off, it->fname_len);
	else
		hm__w_str(b, it->rcpt.p, it->rcpt.len);
}

