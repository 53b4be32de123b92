/*
 * encode_bench.c - in-process encode speed of one text, ours or, built
 * with -DWITH_QUICKTOK against quicktok's C ABI, quicktok's: the same
 * file, the same timing, so bench/run's per-script rows compare the two
 * encoders and nothing else (no process start, no reading or writing).
 * Not a test.
 *
 *   make build/encode_bench
 *   build/encode_bench FILE [RUNS]
 *   bench/cache/qt_bench QUICKTOK_DATA_DIR FILE [RUNS]   (bench/run builds it)
 *
 * Each run encodes the whole file as ordinary text (no special tokens)
 * with a new encoder (ours) or the loaded tokenizer (quicktok's, loaded
 * once, its loading not timed).  Prints one JSON line:
 *   {"bytes":N,"tokens":N,"best":S,"ids_hash":"H"}
 * best: the shortest run in seconds; H: FNV-1a of the ids, so bench/run
 * can check the two encoders agree.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef WITH_QUICKTOK
#include "quicktok.h"
#else
#include "harmony.h"
#endif

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
	long n;

	*len = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (p = malloc((size_t)n + 1)) && fread(p, 1, (size_t)n, f) == (size_t)n) {
		*len = (size_t)n;
		fclose(f);
		return p;
	}
	free(p);
	fclose(f);
	return NULL;
}

static uint64_t
fnv(const uint32_t *v, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= v[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static void
die(const char *what)
{
	fprintf(stderr, "encode_bench: %s\n", what);
	exit(1);
}

int
main(int argc, char **argv)
{
	size_t len, ntok = 0;
	double best = 1e30, t0, t;
	uint64_t h = 0;
	char *text;
	int runs, i;
#ifdef WITH_QUICKTOK
	char errbuf[256];
	qt_tokenizer *qt;

	if (argc < 3)
		die("usage: qt_bench DATA_DIR FILE [RUNS]");
	if (!(qt = qt_load_dir(argv[1], "o200k_harmony", errbuf, sizeof errbuf)))
		die(errbuf);
	argv++, argc--;
#else
	if (argc < 2)
		die("usage: encode_bench FILE [RUNS]");
#endif
	runs = argc > 2 ? atoi(argv[2]) : 5;
	if (!(text = slurp(argv[1], &len)))
		die("cannot read the file");
	for (i = 0; i < runs; i++) {
#ifdef WITH_QUICKTOK
		uint32_t *ids;
		size_t n;

		t0 = now();
		if (qt_encode(qt, text, len, &ids, &n) != 0)
			die("qt_encode failed");
		t = now() - t0;
		h = fnv(ids, n);
		ntok = n;
		qt_ids_free(ids);
#else
		hm_ids ids = { 0 };
		hm_error err;
		hm_encoder *enc;

		t0 = now();
		if (!(enc = hm_encoder_new()) || hm_encode(enc, text, len, 0, &ids, &err) != HM_OK)
			die("hm_encode failed");
		hm_encoder_free(enc);
		t = now() - t0;
		h = fnv(ids.v, ids.len);
		ntok = ids.len;
		hm_ids_free(&ids);
#endif
		if (t < best)
			best = t;
	}
	printf("{\"bytes\":%zu,\"tokens\":%zu,\"best\":%.6f,\"ids_hash\":\"%016llx\"}\n", len, ntok,
	    best, (unsigned long long)h);
	free(text);
	return 0;
}
