/*
 * fuzz.h - shared by the libFuzzer targets of tests/fuzz/.
 *
 * Each fuzz_NAME.c defines LLVMFuzzerTestOneInput over one input surface
 * of the library.  Built with clang -fsanitize=fuzzer it is a fuzzer
 * (`make fuzz`); built with replay.c and any C compiler it replays files
 * (fixtures/fuzz/NAME/ in `make check`).  A target checks what must hold
 * besides "no crash" with FUZZ_CHECK, which aborts with a message.
 */
#ifndef HM_FUZZ_H
#define HM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harmony.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                  \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, \
			        __LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

/* A 64-bit FNV-1a hash of the input: the choices a target makes from it. */
static inline uint64_t
fuzz_hash(const uint8_t *d, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ d[i]) * 0x100000001b3ull;
	return h;
}

/* The next number of a small generator seeded from the hash (splitmix64). */
static inline uint64_t
fuzz_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A NUL-terminated copy of d[0..n) (the library takes lengths, not NULs). */
static inline char *
fuzz_dup(const uint8_t *d, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		abort();
	if (n)
		memcpy(s, d, n);
	s[n] = '\0';
	return s;
}

/* The bytes of ids[0..n) decoded (special ids as their text); malloc'd. */
static inline char *
fuzz_decode(const uint32_t *ids, size_t n, size_t *len)
{
	size_t i, cap = 64, m = 0;
	char *s = malloc(cap);

	for (i = 0; s && i < n; i++) {
		size_t k;
		const char *b = hm_token_bytes(ids[i], &k);

		FUZZ_CHECK(b != NULL, "id %u has no bytes", (unsigned)ids[i]);
		while (m + k + 1 > cap) {
			char *t = realloc(s, cap *= 2);

			if (!t) {
				free(s);
				abort();
			}
			s = t;
		}
		memcpy(s + m, b, k);
		m += k;
	}
	if (!s)
		abort();
	s[m] = '\0';
	*len = m;
	return s;
}

/*
 * s with each run of number characters (digits, sign, point, exponent)
 * replaced by #, in place: for texts compared after a round trip through
 * JSON, where the reader reproduces the reference's number parsing, which
 * does not always round to the nearest double (a float written out may
 * read back one step away).  Strings are not told apart: both sides of a
 * comparison are masked alike.
 */
static inline void
mask_numbers(char *s)
{
	char *o = s;

	while (*s) {
		if (*s == '-' || (*s >= '0' && *s <= '9')) {
			while (*s && strchr("-+.eE0123456789", *s))
				s++;
			*o++ = '#';
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
}

#endif
