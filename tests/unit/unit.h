/*
 * unit.h - the smallest test harness: CHECK(cond) counts, prints failures,
 * and UNIT_DONE() prints "NAME: N passed, N failed" and sets the status.
 */
#ifndef HM_UNIT_H
#define HM_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_pass, unit_fail;

#define CHECK(cond) do { \
	if (cond) \
		unit_pass++; \
	else { \
		unit_fail++; \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_MSG(cond, ...) do { \
	if (cond) \
		unit_pass++; \
	else { \
		unit_fail++; \
		fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
	} \
} while (0)

#define UNIT_DONE(name) \
	(printf("%s: %d passed, %d failed\n", (name), unit_pass, unit_fail), unit_fail != 0)

#endif
