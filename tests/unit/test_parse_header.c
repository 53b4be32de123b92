/*
 * test_parse_header.c - a property test of the default mode's header
 * grammar: for generated tool calls and messages, the header parts
 * (`<|channel|>X`, `to=Y`, `<|constrain|>Z`) in any order, with blanks
 * added, a part written twice, or a special token put between parts, give
 * the same channel, recipient and content type, in text and in ids input;
 * no name, recipient or channel ever holds `<|`, and a content type only
 * as its leading `<|constrain|>`.
 */
#include <stdlib.h>
#include <string.h>

#include "buf_int.h"
#include "harmony.h"
#include "unit.h"

static unsigned long rng = 12345;

static unsigned
rnd(unsigned n)
{
	rng = rng * 6364136223846793005UL + 1442695040888963407UL;
	return (unsigned)((rng >> 33) % n);
}

static const char *const chans[] = { "analysis", "commentary", "final" };
static const char *const rcpts[] = {
	NULL, "functions.get_weather", "functions.Web Search", "browser.search",
	"functions.get-weather", "functions.m\xC3\xA9t\xC3\xA9o", "mcp:search.find",
	"functions.lookup_order_status", "python",
};
static const char *const ctypes[] = { NULL, "json", "code" };
static const char *const specials[] = {
	"<|reserved_200013|>", "<|endoftext|>", "<|reserved_200100|>",
};
static const char *const blanks[] = { " ", "  ", "\t", " \n", "\xC2\xA0" };

struct got {
	char rcpt[128], chan[64], ctype[64], name[64];
	int has_r, has_c, has_t, nstart, nmsg_text;
	char text[64];
	int bad; /* a field holds <| */
};

static void
span(char *dst, size_t cap, hm_span s, int *has)
{
	size_t n = s.len < cap - 1 ? s.len : cap - 1;

	*has = s.p != NULL;
	memcpy(dst, s.p ? s.p : "", s.p ? n : 0);
	dst[s.p ? n : 0] = '\0';
}

static int
has_mark(const char *s)
{
	return strstr(s, "<|") != NULL;
}

static void
collect(hm_parser *p, struct got *g)
{
	hm_event ev;
	int dummy;

	while (hm_parser_next(p, &ev)) {
		if (ev.type == HM_EV_START) {
			g->nstart++;
			span(g->rcpt, sizeof g->rcpt, ev.recipient, &g->has_r);
			span(g->chan, sizeof g->chan, ev.channel, &g->has_c);
			span(g->ctype, sizeof g->ctype, ev.content_type, &g->has_t);
			span(g->name, sizeof g->name, ev.name, &dummy);
			if (has_mark(g->rcpt) || has_mark(g->chan) || has_mark(g->name) ||
			    (g->has_t && (strncmp(g->ctype, "<|constrain|>", 13) ?
			    has_mark(g->ctype) : has_mark(g->ctype + 13))))
				g->bad = 1;
		} else if (ev.type == HM_EV_DELTA && ev.text.len < sizeof g->text - strlen(g->text)) {
			strncat(g->text, ev.text.p, ev.text.len);
		}
	}
}

static void
parse_text(const char *s, size_t n, const char *role, struct got *g)
{
	hm_parser *p = hm_parser_new(role, 0);
	size_t cut = n ? rnd((unsigned)n) : 0;

	memset(g, 0, sizeof *g);
	/* Fed in two pieces at a random point. */
	hm_parser_feed_text(p, s, cut);
	collect(p, g);
	hm_parser_feed_text(p, s + cut, n - cut);
	hm_parser_finish(p);
	collect(p, g);
	hm_parser_free(p);
}

static void
parse_ids(hm_encoder *enc, const char *s, size_t n, const char *role, struct got *g)
{
	hm_parser *p = hm_parser_new(role, 0);
	hm_ids ids = { 0 };
	size_t cut;

	memset(g, 0, sizeof *g);
	if (hm_encode(enc, s, n, HM_ENC_SPECIAL, &ids, NULL) != HM_OK) {
		g->bad = 1;
		hm_parser_free(p);
		return;
	}
	cut = ids.len ? rnd((unsigned)ids.len) : 0;
	hm_parser_feed(p, ids.v, cut);
	collect(p, g);
	hm_parser_feed(p, ids.v + cut, ids.len - cut);
	hm_parser_finish(p);
	collect(p, g);
	hm_parser_free(p);
	hm_ids_free(&ids);
}

/* Whether text ends with a character that would glue to a following `to=`. */
static int
ends_word(const hm_buf *b)
{
	return b->len && b->p[b->len - 1] != ' ' && b->p[b->len - 1] != '\t' &&
	    b->p[b->len - 1] != '\n' && b->p[b->len - 1] != '>' &&
	    !(b->len >= 2 && (unsigned char)b->p[b->len - 2] == 0xC2 &&
	    (unsigned char)b->p[b->len - 1] == 0xA0);
}

/* s with blanks other than a space and bytes >= 0x80 escaped, for failures. */
static const char *
esc(const char *s)
{
	static char ob[2][2048];
	static int w;
	char *o = ob[w ^= 1];
	size_t k = 0;

	for (; *s && k < sizeof ob[0] - 8; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == ' ' || (c > 0x20 && c < 0x7F))
			o[k++] = (char)c;
		else
			k += (size_t)snprintf(o + k, 8, "\\x%02X", c);
	}
	o[k] = '\0';
	return o;
}

static void
add_blank(hm_buf *b)
{
	hm_buf_adds(b, blanks[rnd(sizeof blanks / sizeof blanks[0])]);
}

/* The events of a parse, but their places, as one string (DONE left out). */
static void
trace(hm_parser *p, hm_buf *out)
{
	hm_event ev;

	while (hm_parser_next(p, &ev)) {
		if (ev.type == HM_EV_DONE)
			continue;
		hm_buf_addu(out, (unsigned)ev.type);
		hm_buf_addc(out, ':');
		hm_buf_adds(out, ev.role ? ev.role : "-");
		hm_buf_addc(out, ':');
		hm_buf_add(out, ev.name.p ? ev.name.p : "-", ev.name.p ? ev.name.len : 1);
		hm_buf_addc(out, ':');
		hm_buf_add(out, ev.recipient.p ? ev.recipient.p : "-", ev.recipient.p ? ev.recipient.len : 1);
		hm_buf_addc(out, ':');
		hm_buf_add(out, ev.channel.p ? ev.channel.p : "-", ev.channel.p ? ev.channel.len : 1);
		hm_buf_addc(out, ':');
		hm_buf_add(out, ev.content_type.p ? ev.content_type.p : "-", ev.content_type.p ? ev.content_type.len : 1);
		hm_buf_addc(out, ':');
		hm_buf_add(out, ev.text.p ? ev.text.p : "-", ev.text.p ? ev.text.len : 1);
		hm_buf_addc(out, ':');
		hm_buf_addu(out, (unsigned)ev.code);
		hm_buf_addc(out, ':');
		hm_buf_addu(out, (unsigned)ev.stop);
		hm_buf_addc(out, '\n');
	}
}

static void
trace_of(hm_encoder *enc, const char *s, size_t n, int ids, int strict, hm_buf *out)
{
	hm_parser *p = hm_parser_new("auto", strict ? HM_PARSE_STRICT : 0);
	hm_ids v = { 0 };

	if (ids) {
		hm_encode(enc, s, n, HM_ENC_SPECIAL | HM_ENC_LOSSY, &v, NULL);
		hm_parser_feed(p, v.v, v.len);
	} else
		hm_parser_feed_text(p, s, n);
	hm_parser_finish(p);
	trace(p, out);
	hm_parser_free(p);
	hm_ids_free(&v);
}

/*
 * Headers met again are read from the parser's memo: a message after
 * <|start|> reads the same whatever came before it, so a stream of
 * messages drawn from a few headers (repairs and all) gives the events
 * each message gives alone.
 */
static void
test_memo(hm_encoder *enc)
{
	static const char *const pool[] = {
		"<|start|>assistant<|channel|>analysis",
		"<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json",
		"<|start|>functions.get_weather to=assistant<|channel|>commentary",
		"<|start|>assistant<|channel|>final",
		"<|start|>assistant<|channel|> final",
		"<|start|>assistant to=functions.f<|channel|>commentary json",
		"<|start|>assistant<|channel|>commentary to=functions.f to=functions.f",
		"<|start|>assistant<|channel|>final<|reserved_200013|>",
		"<|start|>assistant to=functions.Web Search<|channel|>commentary",
		"<|start|>assistant<|channel|>analysis<|channel|>final",
		"<|start|>assistant<|channel|>commentary<|constrain|>functions.f",
		"<|start|>user",
		"<|start|>tool",
		"<|start|>assistant json",
		"<|start|>assistant to=assistant<|channel|>final",
		"<|start|>assistant<|channel|>\xC2\xA0" "final",
		"<|start|>assistant<|channel|>fin\xFF" "al",
		"<|start|>Assistant<|channel|>final",
		"<|start|>assistant<|channel|>commentary to=python",
		"<|start|>assistantfinal",
		"<|start|>assistant<|channel|>final extra words",
		"<|start|>developer<|channel|>final",
	};
	const size_t np = sizeof pool / sizeof pool[0];
	hm_buf all = { 0 }, one = { 0 }, want = { 0 }, got = { 0 };
	int k, i, ids, strict, bad = 0;

	for (k = 0; k < 300; k++) {
		ids = k % 2;
		strict = k % 7 == 3;
		hm_buf_reset(&all);
		hm_buf_reset(&want);
		for (i = 0; i < 12; i++) {
			const char *h = pool[rnd(k % 3 ? 5 : (unsigned)np)];

			hm_buf_reset(&one);
			hm_buf_adds(&one, h);
			hm_buf_adds(&one, "<|message|>x<|end|>");
			hm_buf_add(&all, one.p, one.len);
			trace_of(enc, one.p, one.len, ids, strict, &want);
		}
		hm_buf_reset(&got);
		trace_of(enc, all.p, all.len, ids, strict, &got);
		/* Strict mode stops at the first error: compare up to it. */
		if (strict && got.len < want.len)
			want.len = got.len;
		if (got.len != want.len || memcmp(got.p, want.p, got.len)) {
			if (bad++ < 3)
				fprintf(stderr, "memo: %s\n  alone:\n%s  together:\n%s\n",
				    esc(all.p), want.p, got.p);
		}
	}
	CHECK_MSG(bad == 0, "%d streams read otherwise than their messages alone", bad);
	hm_buf_free(&all);
	hm_buf_free(&one);
	hm_buf_free(&want);
	hm_buf_free(&got);
}

int
main(void)
{
	hm_encoder *enc = hm_encoder_new();
	hm_buf h = { 0 }, m = { 0 };
	int k, cases = 0, bad = 0;

	for (k = 0; k < 20000; k++) {
		const char *x = chans[rnd(3)];
		const char *y = rcpts[rnd(sizeof rcpts / sizeof rcpts[0])];
		const char *z = ctypes[rnd(3)];
		const char *part[4];
		char pc[64], pr[160], pt[64];
		int np = 0, i, j, rep, sp, with_start = rnd(4) != 0, ids = rnd(2);
		struct got g;

		if (!y && !z && !rnd(2))
			z = NULL;
		snprintf(pc, sizeof pc, "<|channel|>%s%s", rnd(5) ? "" : " ", x);
		part[np++] = pc;
		if (y) {
			snprintf(pr, sizeof pr, "to=%s%s", rnd(6) ? "" : " ", y);
			part[np++] = pr;
		}
		if (z) {
			snprintf(pt, sizeof pt, "<|constrain|>%s%s", rnd(5) ? "" : " ", z);
			part[np++] = pt;
		}
		/* Any order. */
		for (i = np - 1; i > 0; i--) {
			const char *t;

			j = (int)rnd((unsigned)i + 1);
			t = part[i];
			part[i] = part[j];
			part[j] = t;
		}
		/* A part written twice; a special token between two parts. */
		rep = rnd(3) == 0 ? (int)rnd((unsigned)np) : -1;
		sp = rnd(3) == 0 ? (int)rnd((unsigned)np + 1) : -1;
		hm_buf_reset(&h);
		if (with_start)
			hm_buf_adds(&h, "<|start|>assistant");
		for (i = 0; i < np + (rep >= 0); i++) {
			const char *t = i < np ? part[i] : part[rep];

			if (i == sp)
				hm_buf_adds(&h, specials[rnd(sizeof specials / sizeof specials[0])]);
			if (rnd(3) == 0 || (!strncmp(t, "to=", 3) && ends_word(&h)) ||
			    (with_start && h.len == 18 && !strncmp(t, "to=", 3)))
				add_blank(&h);
			/* A recipient with blanks needs a separator before a bare word after it. */
			hm_buf_adds(&h, t);
		}
		if (sp == np + (rep >= 0))
			hm_buf_adds(&h, specials[0]);
		if (rnd(3) == 0)
			add_blank(&h);
		hm_buf_reset(&m);
		hm_buf_add(&m, h.p, h.len);
		hm_buf_adds(&m, "<|message|>{\"k\":1}<|call|>");
		if (ids)
			parse_ids(enc, m.p, m.len, with_start ? "auto" : "assistant", &g);
		else
			parse_text(m.p, m.len, with_start ? "auto" : "assistant", &g);
		cases++;
		if (g.bad || g.nstart != 1 || !g.has_c || strcmp(g.chan, x) ||
		    g.has_r != (y != NULL) || (y && strcmp(g.rcpt, y)) ||
		    g.has_t != (z != NULL) ||
		    (z && (strncmp(g.ctype, "<|constrain|>", 13) || strcmp(g.ctype + 13, z))) ||
		    strcmp(g.text, "{\"k\":1}")) {
			if (bad++ < 10)
				fprintf(stderr, "case %d (%s): %s\n  got channel=%s%s recipient=%s%s "
				    "ctype=%s%s starts=%d text=%s\n", k, ids ? "ids" : "text", m.p,
				    g.has_c ? "" : "-", g.chan, g.has_r ? "" : "-", g.rcpt,
				    g.has_t ? "" : "-", g.ctype, g.nstart, g.text);
			if (bad <= 10)
				fprintf(stderr, "  input %s\n  recipient %s\n", esc(m.p), esc(g.rcpt));
		}
	}
	CHECK_MSG(bad == 0, "%d of %d generated headers read wrong", bad, cases);
	CHECK(cases >= 5000);
	test_memo(enc);
	hm_buf_free(&h);
	hm_buf_free(&m);
	hm_encoder_free(enc);
	return UNIT_DONE("test_parse_header");
}
