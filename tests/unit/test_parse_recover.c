/*
 * test_parse_recover.c - the fixtures of the recoveries F15 and on
 * (fixtures/parse/f15-* ...), ids or text, give the same events, offsets
 * included, however the input is cut: at every pair of points (random
 * pairs for long inputs), and a token or a byte at a time.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf_int.h"
#include "harmony.h"
#include "unit.h"

static void
ser(hm_buf *b, const hm_event *ev)
{
	static const char *const t[] = { "", "S", "D", "E", "W", "X", "Z" };

	hm_buf_addc(b, '|');
	hm_buf_adds(b, t[ev->type]);
	hm_buf_addc(b, '@');
	hm_buf_addu(b, ev->at);
	hm_buf_addc(b, ':');
	if (ev->type == HM_EV_START) {
		hm_buf_adds(b, ev->role);
		if (ev->name.p) { hm_buf_adds(b, " n="); hm_buf_add(b, ev->name.p, ev->name.len); }
		if (ev->recipient.p) { hm_buf_adds(b, " r="); hm_buf_add(b, ev->recipient.p, ev->recipient.len); }
		if (ev->channel.p) { hm_buf_adds(b, " c="); hm_buf_add(b, ev->channel.p, ev->channel.len); }
		if (ev->content_type.p) { hm_buf_adds(b, " t="); hm_buf_add(b, ev->content_type.p, ev->content_type.len); }
	} else if (ev->type == HM_EV_END)
		hm_buf_adds(b, hm_stop_name(ev->stop));
	else if (ev->type == HM_EV_WARNING)
		hm_buf_addu(b, (unsigned)ev->code);
	else if (ev->type == HM_EV_DONE)
		hm_buf_addu(b, (unsigned)ev->truncated);
	else
		hm_buf_add(b, ev->text.p, ev->text.len);
}

/* Parse the input cut at cut[0..nc) (sorted); text or ids. */
static void
run(int text, const char *s, const uint32_t *v, size_t n, const size_t *cut,
    size_t nc, hm_buf *b)
{
	hm_parser *p = hm_parser_new("auto", 0);
	hm_event ev;
	size_t at = 0, i;

	hm_buf_reset(b);
	for (i = 0; i <= nc; i++) {
		size_t end = i < nc ? cut[i] : n;

		if (text)
			hm_parser_feed_text(p, s + at, end - at);
		else
			hm_parser_feed(p, v + at, end - at);
		while (hm_parser_next(p, &ev))
			ser(b, &ev);
		at = end;
	}
	hm_parser_finish(p);
	while (hm_parser_next(p, &ev))
		ser(b, &ev);
	hm_parser_free(p);
}

static int
same_cuts(const char *name, int text, const char *s, const uint32_t *v, size_t n)
{
	hm_buf whole = { 0 }, part = { 0 };
	size_t i, j, cut[2], *one;
	int ok = 1, k;

	run(text, s, v, n, NULL, 0, &whole);
	one = calloc(n + 1, sizeof *one);
	for (i = 0; i < n; i++)
		one[i] = i + 1;
	run(text, s, v, n, one, n ? n - 1 : 0, &part);
	free(one);
	ok = part.len == whole.len && !memcmp(part.p, whole.p, whole.len);
	if (n <= 160) {
		for (i = 0; ok && i <= n; i++)
			for (j = i; ok && j <= n; j++) {
				cut[0] = i;
				cut[1] = j;
				run(text, s, v, n, cut, 2, &part);
				ok = part.len == whole.len && !memcmp(part.p, whole.p, whole.len);
			}
	} else {
		for (k = 0; ok && k < 600; k++) {
			cut[0] = (size_t)rand() % (n + 1);
			cut[1] = (size_t)rand() % (n + 1);
			if (cut[0] > cut[1]) {
				i = cut[0];
				cut[0] = cut[1];
				cut[1] = i;
			}
			run(text, s, v, n, cut, 2, &part);
			ok = part.len == whole.len && !memcmp(part.p, whole.p, whole.len);
		}
	}
	if (!ok)
		fprintf(stderr, "%s: cut reads differ:\n  %.*s\n  %.*s\n", name,
		    (int)whole.len, whole.p, (int)part.len, part.p);
	hm_buf_free(&whole);
	hm_buf_free(&part);
	return ok;
}

int
main(void)
{
	const char *dir = "fixtures/parse";
	DIR *d = opendir(dir);
	struct dirent *de;
	int nfix = 0;

	srand(9);
	CHECK_MSG(d != NULL, "cannot read %s (run from the top directory)", dir);
	if (!d)
		return UNIT_DONE("test_parse_recover");
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		size_t len = strlen(nm), n, an;
		char path[512], *args, *in;
		int text;

		/* f15 and on. */
		if (len < 6 || nm[0] != 'f' || strcmp(nm + len - 5, ".args") ||
		    strncmp(nm + 1, "15", 2) < 0 || nm[1] < '0' || nm[1] > '9')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, nm);
		if (!(args = unit_slurp(path, &an)))
			continue;
		text = strstr(args, "--from text") != NULL;
		/* One completion a line: each line on its own. */
		snprintf(path, sizeof path, "%s/%.*s.in", dir, (int)(len - 5), nm);
		in = unit_slurp(path, &n);
		CHECK_MSG(in != NULL, "cannot read %s", path);
		if (in) {
			char *line = in, *nl;

			do {
				size_t ln;

				nl = strstr(args, "--lines") ? strchr(line, '\n') : NULL;
				ln = nl ? (size_t)(nl - line) : n - (size_t)(line - in);
				if (text) {
					CHECK_MSG(same_cuts(path, 1, line, NULL, ln), "%s", path);
				} else {
					hm_ids ids = { 0 };
					char *e, *q = line;
					unsigned long x;

					while ((x = strtoul(q, &e, 10)), e != q) {
						hm_ids_append(&ids, &(uint32_t){ (uint32_t)x }, 1);
						q = e;
					}
					CHECK_MSG(same_cuts(path, 0, NULL, ids.v, ids.len), "%s", path);
					hm_ids_free(&ids);
				}
				line = nl ? nl + 1 : NULL;
			} while (line && *line);
			nfix++;
		}
		free(in);
		free(args);
	}
	closedir(d);
	CHECK_MSG(nfix >= 15, "only %d fixtures", nfix);
	return UNIT_DONE("test_parse_recover");
}
