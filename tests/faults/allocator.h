/*
 * allocator.h - malloc, calloc and realloc that fail when the including
 * file's fails() says so (it counts the call), and otherwise are the C
 * library's (glibc's __libc_* entry points: no lookup that allocates).
 * Included once by the fault-injection shim (failmalloc.c) and by the
 * in-process fault test (tests/unit/test_faults.c).
 */
#ifndef HM_FAULTS_ALLOCATOR_H
#define HM_FAULTS_ALLOCATOR_H

#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static int fails(void);

void *
malloc(size_t n)
{
	if (fails()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(n);
}

void *
calloc(size_t k, size_t n)
{
	if (fails()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(k, n);
}

void *
realloc(void *p, size_t n)
{
	if (fails()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, n);
}

#endif
