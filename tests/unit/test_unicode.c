/*
 * test_unicode.c - hm__uclass() against known Unicode 16.0 facts: one or more
 * code points per class, recent additions (15.0, 15.1, 16.0) so stale data
 * fails, the 25 White_Space code points and their near misses, and the
 * points that must have no class at all.
 */
#include <stdint.h>

#include "unicode_int.h"
#include "unit.h"

struct want {
	uint32_t cp;
	unsigned cls;
};

#define LU HM_UC_LU
#define LT HM_UC_LT
#define LM HM_UC_LM
#define LO HM_UC_LO
#define LL HM_UC_LL
#define M HM_UC_M
#define N HM_UC_N
#define WS HM_UC_WS

static const struct want known[] = {
	/* ASCII */
	{ 0x0000, 0 }, { 0x001F, 0 }, { 0x0021, 0 }, { 0x0027, 0 },
	{ 0x002F, 0 }, { 0x0030, N }, { 0x0039, N }, { 0x0040, 0 },
	{ 0x0041, LU }, { 0x005A, LU }, { 0x005F, 0 }, { 0x0060, 0 },
	{ 0x0061, LL }, { 0x007A, LL }, { 0x007E, 0 }, { 0x007F, 0 },
	/* Latin-1 and other old assignments, one per category */
	{ 0x00AA, LO }, { 0x00B2, N }, { 0x00B5, LL }, { 0x00BA, LO },
	{ 0x00BC, N }, { 0x00C0, LU }, { 0x00D7, 0 }, { 0x00DF, LL },
	{ 0x00F7, 0 }, { 0x00FF, LL }, { 0x01C5, LT }, { 0x01C8, LT },
	{ 0x01F2, LT }, { 0x1F88, LT }, { 0x1FFC, LT }, { 0x02B0, LM },
	{ 0x02C6, LM }, { 0x3005, LM }, { 0xFF70, LM }, { 0x02C2, 0 },
	{ 0x01BB, LO }, { 0x05D0, LO }, { 0x0627, LO }, { 0x4E00, LO },
	{ 0xAC00, LO }, { 0xD7A3, LO }, { 0x9FFF, LO }, { 0x20000, LO },
	{ 0x0300, M }, { 0x036F, M }, { 0x0488, M }, { 0x20DD, M },
	{ 0x0903, M }, { 0x093E, M }, { 0xFE0F, M }, { 0xE0100, M },
	{ 0xE01EF, M }, { 0xE01F0, 0 }, { 0x0660, N }, { 0x0966, N },
	{ 0xFF10, N }, { 0x16EE, N }, { 0x2160, N }, { 0x3007, N },
	{ 0x2460, N }, { 0x1D7CE, N }, { 0x10107, N }, { 0x0391, LU },
	{ 0x03B1, LL }, { 0x0410, LU }, { 0x0430, LL }, { 0x10400, LU },
	{ 0x10428, LL }, { 0x1E900, LU }, { 0x1E922, LL }, { 0x2C00, LU },
	{ 0x2C30, LL },
	/* symbols, punctuation, controls, format: no class */
	{ 0x00A7, 0 }, { 0x00AD, 0 }, { 0x2014, 0 }, { 0x20AC, 0 },
	{ 0x2200, 0 }, { 0x1F600, 0 }, { 0x3001, 0 }, { 0x200D, 0 },
	{ 0x2060, 0 }, { 0x0080, 0 }, { 0x009F, 0 }, { 0xE0001, 0 },
	{ 0xFFFD, 0 },
	/* Unicode 15.0 */
	{ 0x0CF3, M },			/* Kannada sign combining anusvara */
	{ 0x11F00, M }, { 0x11F03, M },	/* Kawi signs */
	{ 0x11F04, LO }, { 0x11F50, N },	/* Kawi letter, digit */
	{ 0x1E4D0, LO }, { 0x1E4EB, LM },	/* Nag Mundari */
	{ 0x1E4EC, M }, { 0x1E4F0, N }, { 0x1E4F9, N },
	{ 0x1D2C0, N }, { 0x1D2D3, N },	/* Kaktovik numerals */
	{ 0x1DF25, LL }, { 0x1DF2A, LL },	/* Latin small letters */
	{ 0x1E030, LM }, { 0x1E06D, LM },	/* Cyrillic modifier letters */
	{ 0x1E08F, M },
	{ 0x31350, LO }, { 0x323AF, LO },	/* CJK extension H */
	/* Unicode 15.1 */
	{ 0x2EBF0, LO }, { 0x2EE5D, LO },	/* CJK extension I */
	{ 0x2FFC, 0 }, { 0x31EF, 0 },		/* new symbols */
	/* Unicode 16.0 */
	{ 0x10D40, N }, { 0x10D49, N },	/* Garay digits */
	{ 0x10D4A, LO }, { 0x10D4E, LM }, { 0x10D50, LU }, { 0x10D65, LU },
	{ 0x10D69, M }, { 0x10D6E, 0 }, { 0x10D70, LL }, { 0x10D85, LL },
	{ 0x16D40, LM }, { 0x16D43, LO },	/* Kirat Rai */
	{ 0x16D6A, LO }, { 0x16D70, N }, { 0x16D79, N },
	{ 0x11BC0, LO }, { 0x11BE0, LO },	/* Sunuwar */
	{ 0x11BE1, 0 }, { 0x11BF0, N }, { 0x11BF9, N },
	{ 0x105C0, LO }, { 0x105F3, LO },	/* Todhri */
	{ 0x11380, LO }, { 0x113B8, M },	/* Tulu-Tigalari */
	{ 0x16130, N }, { 0x116D0, N },	/* Gurung Khema, Myanmar ext-C */
	{ 0x1E5F1, N },			/* Ol Onal digit */
	{ 0x1CCF0, N }, { 0x1CCF9, N },	/* outlined digits */
	{ 0x13460, LO }, { 0x143FA, LO },	/* Egyptian hieroglyphs ext-A */
	{ 0xA7CB, LU }, { 0xA7CC, LU }, { 0xA7DC, LU },	/* Latin */
	{ 0x1C89, LU }, { 0x1C8A, LL },	/* Cyrillic TJE */
	/* unassigned in 16.0 (some are assigned in 17.0) */
	{ 0x0378, 0 }, { 0x1C8B, 0 }, { 0xA7CE, 0 }, { 0xA7CF, 0 },
	{ 0x10940, 0 }, { 0x11DB0, 0 }, { 0x16EA0, 0 }, { 0x1E6C0, 0 },
	{ 0x323B0, 0 }, { 0x1FBFA, 0 }, { 0xFFFE, 0 }, { 0xFFFF, 0 },
	{ 0x2FFFF, 0 }, { 0x40000, 0 }, { 0xDFFFF, 0 },
	/* private use, surrogates, the end of the range */
	{ 0xE000, 0 }, { 0xF8FF, 0 }, { 0xF0000, 0 }, { 0xFFFFD, 0 },
	{ 0x100000, 0 }, { 0x10FFFD, 0 }, { 0xD800, 0 }, { 0xDBFF, 0 },
	{ 0xDC00, 0 }, { 0xDFFF, 0 }, { 0x10FFFF, 0 }, { 0x110000, 0 },
	{ 0x110041, 0 }, { 0x1FFFFF, 0 }, { 0x7FFFFFFF, 0 }, { 0xFFFFFFFF, 0 },
};

/* Every White_Space code point; none has an L, M or N class as well. */
static const uint32_t white_space[] = {
	0x0009, 0x000A, 0x000B, 0x000C, 0x000D, 0x0020, 0x0085, 0x00A0,
	0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
	0x2007, 0x2008, 0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F,
	0x3000,
};

/* Look like space, or once were, but are not White_Space. */
static const uint32_t not_white_space[] = {
	0x0008, 0x000E, 0x001C, 0x001D, 0x001E, 0x001F, 0x0021, 0x0084,
	0x0086, 0x00AD, 0x167F, 0x1681, 0x180E, 0x200B, 0x200C, 0x200D,
	0x2027, 0x202A, 0x202E, 0x2060, 0x2800, 0x3164, 0xFEFF, 0xFFA0,
};

int
main(void)
{
	size_t i;
	uint32_t cp;
	unsigned n;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		CHECK_MSG(hm__uclass(known[i].cp) == known[i].cls,
		    "U+%04lX: got 0x%02x, want 0x%02x", (unsigned long)known[i].cp,
		    hm__uclass(known[i].cp), known[i].cls);

	CHECK(sizeof(white_space) / sizeof(white_space[0]) == 25);
	for (i = 0; i < sizeof(white_space) / sizeof(white_space[0]); i++)
		CHECK_MSG(hm__uclass(white_space[i]) == HM_UC_WS,
		    "U+%04lX: got 0x%02x, want only WS", (unsigned long)white_space[i],
		    hm__uclass(white_space[i]));
	for (i = 0; i < sizeof(not_white_space) / sizeof(not_white_space[0]); i++)
		CHECK_MSG(!(hm__uclass(not_white_space[i]) & HM_UC_WS),
		    "U+%04lX is not White_Space", (unsigned long)not_white_space[i]);

	/* Exactly 25 WS points overall, and WS never shares a point with L/M/N. */
	n = 0;
	for (cp = 0; cp <= 0x10FFFF; cp++)
		if (hm__uclass(cp) & HM_UC_WS) {
			n++;
			CHECK_MSG(hm__uclass(cp) == HM_UC_WS, "U+%04lX", (unsigned long)cp);
		}
	CHECK_MSG(n == 25, "%u White_Space code points", n);

	/*
	 * The classes are General_Category values, so at most one bit besides
	 * WS is set anywhere; and no surrogate or private-use point has one.
	 */
	n = 0;
	for (cp = 0; cp <= 0x10FFFF; cp++) {
		unsigned c = hm__uclass(cp) & ~(unsigned)HM_UC_WS;
		if (c & (c - 1))
			n++;
	}
	CHECK_MSG(n == 0, "%u code points with two categories", n);
	n = 0;
	for (cp = 0xD800; cp <= 0xF8FF; cp++)
		n += hm__uclass(cp) != 0;
	for (cp = 0xF0000; cp <= 0x10FFFF; cp++)
		n += hm__uclass(cp) != 0;
	CHECK_MSG(n == 0, "%u surrogate/private-use points with a class", n);

	/* Whole ranges of one class. */
	n = 0;
	for (cp = 0x4E00; cp <= 0x9FFF; cp++)	/* CJK unified ideographs */
		n += hm__uclass(cp) == HM_UC_LO;
	CHECK_MSG(n == 0x9FFF - 0x4E00 + 1, "%u of CJK are Lo", n);
	n = 0;
	for (cp = 0xAC00; cp <= 0xD7A3; cp++)	/* Hangul syllables */
		n += hm__uclass(cp) == HM_UC_LO;
	CHECK_MSG(n == 0xD7A3 - 0xAC00 + 1, "%u of Hangul are Lo", n);
	n = 0;
	for (cp = 0x10D50; cp <= 0x10D65; cp++)	/* Garay capitals (16.0) */
		n += hm__uclass(cp) == HM_UC_LU && hm__uclass(cp + 0x20) == HM_UC_LL;
	CHECK_MSG(n == 0x16, "%u Garay case pairs", n);

	/* The combined masks the split pattern uses. */
	CHECK(hm__uclass('A') & HM_UC_UPPERISH);
	CHECK(!(hm__uclass('A') & HM_UC_LOWERISH));
	CHECK(hm__uclass('a') & HM_UC_LOWERISH);
	CHECK(!(hm__uclass('a') & HM_UC_UPPERISH));
	CHECK(hm__uclass(0x0300) & HM_UC_UPPERISH && hm__uclass(0x0300) & HM_UC_LOWERISH);
	CHECK(hm__uclass(0x4E00) & HM_UC_UPPERISH && hm__uclass(0x4E00) & HM_UC_LOWERISH);
	CHECK(hm__uclass(0x01C5) & HM_UC_L && !(hm__uclass(0x01C5) & HM_UC_LOWERISH));
	CHECK(!(hm__uclass('5') & HM_UC_L));

	return UNIT_DONE("unicode");
}
