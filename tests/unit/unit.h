/*
 * unit.h - the smallest test harness: CHECK(cond) counts, prints failures,
 * and UNIT_DONE() prints "NAME: N passed, N failed" and sets the status.
 */
#ifndef HM_UNIT_H
#define HM_UNIT_H

#include <stdio.h>
#include <stdlib.h>
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

/*
 * The whole file at path, NUL-terminated (malloc'd; *n its length), or
 * NULL when it cannot be read.
 */
static inline char *
unit_slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, *t;
	size_t len = 0, cap = 0, k;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 8192;
			if (!(t = realloc(buf, cap))) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = t;
		}
		k = fread(buf + len, 1, cap - len - 1, f);
		len += k;
	} while (k);
	fclose(f);
	buf[len] = '\0';
	*n = len;
	return buf;
}

#endif
