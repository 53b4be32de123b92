/* pretok_int.h - the o200k split pattern as a hand-written scanner. */
#ifndef HM_PRETOK_INT_H
#define HM_PRETOK_INT_H

#include <stddef.h>

#include "unicode_int.h"

/*
 * hm__uclass(0x1F000 + low) & 0xff, for low < 0x1000: the plane of emoji,
 * where a text of emoji spends its four-byte characters.  Every one is a
 * symbol, a modifier, a format character or unassigned (class 0) but for
 * two ranges of numbers (DIGIT ZERO FULL STOP .. DIGIT NINE COMMA, and the
 * segmented digits).  test_tokenizer holds this to hm__uclass for all 4096,
 * so a new Unicode version that assigns letters or marks here is caught.
 */
static inline unsigned
hm__uclass_1f(unsigned low)
{
	return low - 0x100u < 0xDu || low - 0xBF0u < 0xAu ? HM_UC_N : 0;
}

/*
 * The end of the piece that starts at s[i] (i < n), as the o200k
 * pre-tokenizer pattern (spec §1.3) would match it.  s[0..n) must be valid
 * UTF-8.  Pieces are found by calling this with i = the previous end.
 */
size_t hm__pretok_next(const unsigned char *s, size_t n, size_t i);
/* The same without the fast path for ASCII, so tests can compare the two. */
size_t hm__pretok_general(const unsigned char *s, size_t n, size_t i);

/*
 * The last point p, from <= p < n and p > 0, where the text s[0..n) can be
 * cut so that encoding s[0..p) and s[p..) apart gives the ids of the whole;
 * 0 when there is none.  Such a point follows a '\n' and starts with a
 * printable ASCII character other than '/': no piece of the pattern
 * contains a '\n' followed by such a character, no alternative takes a
 * '\n' as the character before a word, and none looks further than the
 * end of its match except over whitespace or [\r\n/], which the character
 * at p is not; so the pieces before p end where they would at the end of
 * the text.  The point is also outside any special-token text (which has
 * no '\n') and any UTF-8 sequence.
 */
size_t hm__pretok_cut(const unsigned char *s, size_t n, size_t from);

#endif
