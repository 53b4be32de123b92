/*
 * failmalloc.c - an LD_PRELOAD shim that makes one allocation fail, for
 * the fault-injection test (tests/faults/sweep, tests/bats/faults.bats).
 *
 *   HM_FAIL_AT=K       the K-th call of malloc, calloc or realloc (from 1)
 *                      returns NULL with errno ENOMEM
 *   HM_FAIL_AFTER=1    ... and so does every call after it
 *   HM_FAIL_COUNT=FILE at exit, write the number of calls made to FILE
 *
 * Every other call goes to the C library's allocator (glibc's __libc_*
 * entry points, so no lookup that allocates itself).  As SQLite's test
 * harness does with its own allocator, a run for every K from 1 to the
 * count of an undisturbed run reaches every allocation of the program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "allocator.h"

static long calls, fail_at = -1;
static int fail_after, ready;

static int
fails(void)
{
	if (!ready) {
		const char *s = getenv("HM_FAIL_AT");

		ready = 1;
		if (s)
			fail_at = atol(s);
		fail_after = getenv("HM_FAIL_AFTER") != NULL;
	}
	calls++;
	return calls == fail_at || (fail_after && fail_at > 0 && calls > fail_at);
}

__attribute__((destructor)) static void
report(void)
{
	const char *path = getenv("HM_FAIL_COUNT");
	long n = calls; /* fopen allocates */
	FILE *f;

	fail_at = -1;
	if (path && (f = fopen(path, "w"))) {
		fprintf(f, "%ld\n", n);
		fclose(f);
	}
}
