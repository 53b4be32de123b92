/*
 * render_bench.c - in-process speed of harmony-render's library path:
 * renders per second of one conversation (the request is read once, then
 * rendered to ids again and again), and requests per second when each
 * iteration also parses the request's JSON.  Not a test.
 *
 *   make build/render_bench
 *   build/render_bench [FILE.json [SECONDS]]
 *
 * FILE defaults to bench/render_request.json (run from the repository
 * root), SECONDS to 1 per measure.  Prints one JSON line for bench/run:
 *   {"tokens":N,"renders":N,"seconds":S,"requests":N,"request_seconds":S,
 *    "ids":[...]}
 * (ids: the rendering, for bench/run to check against harmony-render's).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harmony.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *p = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	do {
		if (*len == cap) {
			char *q = realloc(p, cap = cap ? cap * 2 : 1 << 16);

			if (!q) {
				free(p);
				fclose(f);
				return NULL;
			}
			p = q;
		}
		n = fread(p + *len, 1, cap - *len, f);
		*len += n;
	} while (n);
	if (ferror(f)) {
		free(p);
		p = NULL;
	}
	fclose(f);
	return p;
}

static void
die(const char *what, const hm_error *e)
{
	fprintf(stderr, "render_bench: %s: %s\n", what, e ? e->msg : "out of memory");
	exit(1);
}

int
main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "bench/render_request.json";
	double secs = argc > 2 ? strtod(argv[2], NULL) : 1.0, t0, t = 0, rt = 0;
	hm_render_opts o = HM_RENDER_OPTS_INIT;

	o.mode = HM_RENDER_COMPLETION;
	hm_ids ids = {0};
	unsigned long n = 0, nreq = 0;
	size_t len, ntok;
	hm_request r;
	hm_error e;
	char *req;
	hm_encoder *enc;

	if (!(req = slurp(path, &len))) {
		perror(path);
		return 3;
	}
	if (secs <= 0)
		secs = 1.0;
	/* One encoder for all the renders, as a server keeps one a thread. */
	if (!(enc = hm_encoder_new())) {
		fputs("render_bench: out of memory\n", stderr);
		return 3;
	}
	if (hm_request_from_json(req, len, HM_DIALECT_AUTO, NULL, &r, &e) != HM_OK)
		die(path, &e);
	/* Render only: the conversation stays parsed. */
	t0 = now();
	do {
		ids.len = 0;
		if (hm_render_with(enc, r.conv, &o, &ids, &e) != HM_OK)
			die("render", &e);
		n++;
	} while ((n & 255) || (t = now() - t0) < secs);
	ntok = ids.len;
	hm_request_free(&r);
	/* Request JSON to ids, as harmony-render does for each line. */
	t0 = now();
	do {
		if (hm_request_from_json(req, len, HM_DIALECT_AUTO, NULL, &r, &e) != HM_OK)
			die(path, &e);
		ids.len = 0;
		if (hm_render_with(enc, r.conv, &o, &ids, &e) != HM_OK)
			die("render", &e);
		hm_request_free(&r);
		nreq++;
	} while ((nreq & 255) || (rt = now() - t0) < secs);
	if (ids.len != ntok) {
		fprintf(stderr, "render_bench: %zu tokens, then %zu\n", ntok, ids.len);
		return 1;
	}
	printf("{\"tokens\":%zu,\"renders\":%lu,\"seconds\":%.6f,"
	    "\"requests\":%lu,\"request_seconds\":%.6f,\"ids\":[", ntok, n, t, nreq, rt);
	for (len = 0; len < ids.len; len++)
		printf(len ? ",%u" : "%u", (unsigned)ids.v[len]);
	printf("]}\n");
	hm_ids_free(&ids);
	hm_encoder_free(enc);
	free(req);
	return fflush(stdout) ? 3 : 0;
}
