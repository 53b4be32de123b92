/*
 * unicode_int.h - code-point classes for the o200k split pattern.
 *
 * The tables behind hm__uclass() are generated from Unicode 16.0 data by
 * tools/gen_unicode.js into lib/unicode_tables.c (committed, so the build
 * needs no generator).
 */
#ifndef HM_UNICODE_INT_H
#define HM_UNICODE_INT_H

#include <stdint.h>

/* Class bits of one code point, as the split pattern sees it. */
enum {
	HM_UC_LU = 1 << 0, /* Lu */
	HM_UC_LT = 1 << 1, /* Lt */
	HM_UC_LM = 1 << 2, /* Lm */
	HM_UC_LO = 1 << 3, /* Lo */
	HM_UC_LL = 1 << 4, /* Ll */
	HM_UC_M = 1 << 5,  /* Mn, Mc, Me */
	HM_UC_N = 1 << 6,  /* Nd, Nl, No */
	HM_UC_WS = 1 << 7, /* White_Space property */
	HM_UC_L = HM_UC_LU | HM_UC_LT | HM_UC_LM | HM_UC_LO | HM_UC_LL,
	/* [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] */
	HM_UC_UPPERISH = HM_UC_LU | HM_UC_LT | HM_UC_LM | HM_UC_LO | HM_UC_M,
	/* [\p{Ll}\p{Lm}\p{Lo}\p{M}] */
	HM_UC_LOWERISH = HM_UC_LL | HM_UC_LM | HM_UC_LO | HM_UC_M,
};

/* The class bits of code point cp (0 for cp > 0x10FFFF). */
unsigned hm__uclass(uint32_t cp);

#endif
