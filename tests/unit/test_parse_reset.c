/*
 * test_parse_reset.c - hm_parser_reset: a parser reset after any stream
 * parses the next one exactly as a new parser does.  Every Harmony input
 * among the parse fixtures, as text and as ids, strict and default, with
 * each role, counting or not, is parsed by a new parser and by one that
 * first parsed another fixture (to its end, or cut off halfway with events
 * left undrained, or into a strict-mode error), then was reset; the events
 * must be the same, field for field.  So must they after out of memory.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harmony.h"
#include "parser_int.h"
#include "unit.h"

struct input {
	char *name;
	char *text;
	size_t n;
	hm_ids ids;
};

/* Every field of every event, one line each. */
static void
put_span(hm_buf *b, const char *tag, hm_span s)
{
	hm_buf_adds(b, tag);
	if (s.p) {
		hm_buf_addc(b, '=');
		hm_buf_add(b, s.p, s.len);
	}
	hm_buf_addc(b, '\x01');
}

static void
drain(hm_parser *p, hm_buf *out)
{
	hm_event ev;

	while (hm_parser_next(p, &ev)) {
		if (!out)
			continue;
		hm_buf_addu(out, (uint64_t)ev.type);
		hm_buf_addc(out, ' ');
		hm_buf_addu(out, ev.at);
		hm_buf_addc(out, ' ');
		hm_buf_adds(out, ev.role ? ev.role : "-");
		hm_buf_addc(out, ' ');
		put_span(out, "n", ev.name);
		put_span(out, "r", ev.recipient);
		put_span(out, "c", ev.channel);
		put_span(out, "t", ev.content_type);
		put_span(out, "x", ev.text);
		hm_buf_addu(out, (uint64_t)ev.stop);
		hm_buf_addc(out, ' ');
		hm_buf_addu(out, (uint64_t)(ev.code + 1000));
		hm_buf_addc(out, ' ');
		hm_buf_addu(out, (uint64_t)ev.truncated);
		hm_buf_addc(out, ' ');
		hm_buf_addu(out, ev.tokens);
		hm_buf_addc(out, '\n');
	}
}

/*
 * Feed in (its first `part` bytes or ids; all when part is (size_t)-1,
 * and then finish) and drain into out (NULL: drop the events).
 */
static void
parse(hm_parser *p, const struct input *in, int text, size_t part, hm_buf *out)
{
	size_t n = text ? in->n : in->ids.len;

	if (part != (size_t)-1 && part < n)
		n = part;
	if (text)
		CHECK(hm_parser_feed_text(p, in->text, n) == HM_OK);
	else
		CHECK(hm_parser_feed(p, in->ids.v, n) == HM_OK);
	if (part == (size_t)-1)
		hm_parser_finish(p);
	drain(p, out);
}

static hm_parser *
make(const char *role, unsigned flags, const char *marker)
{
	hm_parser *p = hm_parser_new(role, flags);

	if (p && marker)
		CHECK(hm_parser_set_marker(p, marker, strlen(marker)) == HM_OK);
	return p;
}

int
main(void)
{
	static const char *const roles[] = { "auto", "none", "assistant" };
	const char *dir = "fixtures/parse";
	DIR *d = opendir(dir);
	struct dirent *de;
	struct input *in = NULL;
	size_t nin = 0, cap = 0, i, r;
	hm_encoder *enc = hm_encoder_new();

	CHECK_MSG(d != NULL, "cannot read %s (run from the top directory)", dir);
	CHECK(enc != NULL);
	if (!d || !enc)
		return UNIT_DONE("test_parse_reset");
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		size_t len = strlen(nm), n;
		char path[512], *s;

		if (!((len > 3 && !strcmp(nm + len - 3, ".in")) ||
		    (len > 5 && !strcmp(nm + len - 5, ".text")) ||
		    (len > 4 && !strcmp(nm + len - 4, ".txt"))))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, nm);
		if (!(s = unit_slurp(path, &n)))
			continue;
		/* Harmony text or ids: not JSON records or SSE. */
		if (!n || s[0] == '{' || s[0] == '[' || !strncmp(s, "data:", 5)) {
			free(s);
			continue;
		}
		if (nin == cap) {
			cap = cap ? 2 * cap : 64;
			in = realloc(in, cap * sizeof *in);
			if (!in)
				return 1;
		}
		memset(&in[nin], 0, sizeof in[nin]);
		in[nin].name = strdup(nm);
		if (strspn(s, "0123456789 ,\n") == n) {
			/* Ids: parsed as ids only. */
			char *e, *q = s;
			unsigned long x;

			while ((x = strtoul(q, &e, 10)), e != q) {
				CHECK(hm_ids_append(&in[nin].ids, &(uint32_t){ (uint32_t)x }, 1) == HM_OK);
				q = e + strspn(e, " ,\n");
			}
			free(s);
		} else {
			in[nin].text = s;
			in[nin].n = n;
			CHECK(hm_encode(enc, s, n, HM_ENC_SPECIAL | HM_ENC_LOSSY, &in[nin].ids, NULL) == HM_OK);
		}
		nin++;
	}
	closedir(d);
	CHECK_MSG(nin >= 40, "only %zu inputs", nin);

	for (r = 0; r < 3; r++) {
		for (unsigned conf = 0; conf < 8; conf++) {
			int text = conf & 1;
			unsigned flags = (conf & 2 ? HM_PARSE_STRICT : 0) |
			    (conf & 4 ? HM_PARSE_COUNT : 0);
			const char *marker = text && !(flags & HM_PARSE_STRICT) && r == 1 ?
			    "final:" : NULL;
			hm_parser *reused = make(roles[r], flags, marker);

			CHECK(reused != NULL);
			if (!reused)
				continue;
			for (i = 0; i < nin; i++) {
				const struct input *prev = &in[(i * 7 + 3) % nin];
				hm_parser *fresh;
				hm_buf want = { 0 }, got = { 0 };
				size_t half = (text ? prev->n : prev->ids.len) / 2;

				if (text && (!in[i].text || !prev->text))
					continue; /* ids only */
				fresh = make(roles[r], flags, marker);
				CHECK(fresh != NULL);
				if (!fresh)
					continue;
				hm_parser_set_merge(fresh, (int)(i & 1));
				hm_parser_set_merge(reused, (int)(i & 1));
				parse(fresh, &in[i], text, (size_t)-1, &want);
				/* Before: another stream whole, or cut off with its events pending. */
				switch (i % 3) {
				case 0:
					parse(reused, prev, text, (size_t)-1, NULL);
					break;
				case 1:
					if (text)
						CHECK(hm_parser_feed_text(reused, prev->text, half) == HM_OK);
					else
						CHECK(hm_parser_feed(reused, prev->ids.v, half) == HM_OK);
					break;
				default:
					parse(reused, prev, text, half, NULL);
					break;
				}
				hm_parser_reset(reused);
				CHECK_MSG(hm_parser_position(reused) == 0, "%s", in[i].name);
				parse(reused, &in[i], text, (size_t)-1, &got);
				CHECK_MSG(want.len == got.len && !memcmp(want.p, got.p, want.len),
				    "%s after %s (%s, role %s, flags %u): the events differ after a reset",
				    in[i].name, prev->name, text ? "text" : "ids", roles[r], flags);
				hm_buf_free(&want);
				hm_buf_free(&got);
				hm_parser_free(fresh);
			}
			hm_parser_free(reused);
		}
	}

	/* After a strict-mode error the next stream parses. */
	{
		hm_parser *p = make("none", HM_PARSE_STRICT, NULL);
		static const char bad[] = "hello<|start|>assistant<|message|>x<|end|>";
		static const char good[] = "<|start|>assistant<|channel|>final<|message|>ok<|return|>";
		hm_buf a = { 0 }, b = { 0 };
		struct input ib = { 0 }, ig = { 0 };

		ib.text = (char *)bad;
		ib.n = sizeof bad - 1;
		ig.text = (char *)good;
		ig.n = sizeof good - 1;
		CHECK(p != NULL);
		if (p) {
			parse(p, &ib, 1, (size_t)-1, &a);
			CHECK(strstr(a.p ? a.p : "", "Unexpected text") != NULL);
			hm_parser_reset(p);
			parse(p, &ig, 1, (size_t)-1, &b);
			CHECK(strstr(b.p ? b.p : "", "x=ok") != NULL);
			hm_parser_free(p);
		}
		hm_buf_free(&a);
		hm_buf_free(&b);
	}

	/*
	 * Out of memory, then a reset.  A feed too large to hold (refused
	 * before any allocation is tried) fails the parser partway through a
	 * stream: from then on it gives one HM_ENOMEM error and nothing more,
	 * and refuses feeds.  A reset clears that, and the next stream parses
	 * as with a new parser.
	 */
	for (r = 0; r < 2; r++) {
		int text = (int)r;
		const struct input *g = NULL;
		hm_parser *p = make("auto", 0, NULL), *fresh = make("auto", 0, NULL);
		hm_buf want = { 0 }, got = { 0 };
		size_t huge = SIZE_MAX / 2 + 1;
		hm_event ev;

		for (i = 0; i < nin && !g; i++)
			if (in[i].text && in[i].ids.len > 8)
				g = &in[i];
		CHECK(p && fresh && g);
		if (p && fresh && g) {
			parse(p, g, text, (text ? g->n : g->ids.len) / 2, NULL);
			if (text) {
				CHECK(hm_parser_feed_text(p, g->text, huge) == HM_ENOMEM);
				CHECK(hm_parser_feed_text(p, g->text, 1) == HM_ENOMEM);
			} else {
				CHECK(hm_parser_feed(p, g->ids.v, huge) == HM_ENOMEM);
				CHECK(hm_parser_feed(p, g->ids.v, 1) == HM_ENOMEM);
			}
			hm_parser_finish(p);
			CHECK(hm_parser_next(p, &ev) == 1 && ev.type == HM_EV_ERROR &&
			    ev.code == HM_ENOMEM);
			CHECK(hm_parser_next(p, &ev) == 0);
			hm_parser_reset(p);
			parse(p, g, text, (size_t)-1, &got);
			parse(fresh, g, text, (size_t)-1, &want);
			CHECK_MSG(want.len && want.len == got.len && !memcmp(want.p, got.p, want.len),
			    "%s (%s): the events after out of memory and a reset differ",
			    g->name, text ? "text" : "ids");
		}
		hm_buf_free(&want);
		hm_buf_free(&got);
		hm_parser_free(p);
		hm_parser_free(fresh);
	}

	/* A huge stream does not keep its memory past a reset: 1 MiB a buffer at most. */
	{
		hm_parser *p = make("assistant", 0, NULL);
		size_t big = 3u << 20, k;
		char *s = malloc(big);
		uint32_t *v = malloc(big / 4 * sizeof *v);

		CHECK(p && s && v);
		if (p && s && v) {
			memset(s, 'a', big);
			memcpy(s, "<|channel|>final<|message|>", 27);
			CHECK(hm_parser_feed_text(p, s, big) == HM_OK);
			CHECK(p->in.text.cap > HM__KEEP_MAX);
			hm_parser_finish(p);
			drain(p, NULL);
			hm_parser_reset(p);
			CHECK(p->in.text.cap <= HM__KEEP_MAX && p->q.arena.cap <= HM__KEEP_MAX &&
			    p->in.run.cap <= HM__KEEP_MAX && p->c.hold.cap <= HM__KEEP_MAX &&
			    p->h.text.cap <= HM__KEEP_MAX && p->r.junk.cap <= HM__KEEP_MAX);
			for (k = 0; k < big / 4; k++)
				v[k] = 64; /* "a" */
			CHECK(hm_parser_feed(p, v, big / 4) == HM_OK);
			CHECK(p->in.ids.cap * sizeof *v > HM__KEEP_MAX);
			hm_parser_finish(p);
			drain(p, NULL);
			hm_parser_reset(p);
			CHECK(p->in.ids.cap * sizeof *v <= HM__KEEP_MAX);
			CHECK(p->in.run.cap <= HM__KEEP_MAX);
		}
		free(s);
		free(v);
		hm_parser_free(p);
	}

	for (i = 0; i < nin; i++) {
		free(in[i].name);
		free(in[i].text);
		hm_ids_free(&in[i].ids);
	}
	free(in);
	hm_encoder_free(enc);
	return UNIT_DONE("test_parse_reset");
}
