/*
 * test_facts - the facts of facts_int.h, each stated once: the role and
 * channel names (and that the public names agree), the record members of
 * ids and text, Unicode whitespace against the generated White_Space
 * table, the recipient byte class (byte by byte, and what the parser does
 * with it: F16 or not), and UTF-8 well-formedness against the public
 * decoder over every lead byte and its followers.
 */
#include <stdint.h>

#include "facts_int.h"
#include "harmony.h"
#include "unicode_int.h"
#include "unit.h"

/* The F16 warnings of parsing text as an assistant completion. */
static int
f16_count(const char *text)
{
	hm_parser *p = hm_parser_new("assistant", 0);
	hm_event ev;
	int n = 0;

	if (!p)
		return -1;
	hm_parser_feed_text(p, text, strlen(text));
	hm_parser_finish(p);
	while (hm_parser_next(p, &ev))
		if (ev.type == HM_EV_WARNING && ev.code == HM_F_RCPT_NAME)
			n++;
	hm_parser_free(p);
	return n;
}

/* The recipient of the first message of text, parsed as a completion, into buf. */
static const char *
first_rcpt(const char *text, char *buf, size_t cap)
{
	hm_parser *p = hm_parser_new("assistant", 0);
	hm_event ev;

	buf[0] = '\0';
	if (!p)
		return buf;
	hm_parser_feed_text(p, text, strlen(text));
	hm_parser_finish(p);
	while (hm_parser_next(p, &ev))
		if (ev.type == HM_EV_START && !buf[0] && ev.recipient.len < cap)
			snprintf(buf, cap, "%.*s", (int)ev.recipient.len, ev.recipient.p);
	hm_parser_free(p);
	return buf;
}

static void
test_names(void)
{
	int i;

	for (i = 0; i < HM__NROLES; i++) {
		CHECK(!strcmp(hm__role_names[i], hm_role_name((hm_role)i)));
		CHECK(hm__role_index(hm__role_names[i], strlen(hm__role_names[i])) == i);
		CHECK(hm_role_from_name(hm__role_names[i]) == (hm_role)i);
	}
	CHECK(!strcmp(hm__role_names[HM_ROLE_DEVELOPER], "developer"));
	CHECK(hm__role_index("assistan", 8) == -1);
	CHECK(hm__role_index("Assistant", 9) == -1);
	CHECK(hm__role_index("assistant ", 10) == -1);

	CHECK(!strcmp(hm__chan_names[HM__CHAN_ANALYSIS], "analysis"));
	CHECK(!strcmp(hm__chan_names[HM__CHAN_COMMENTARY], "commentary"));
	CHECK(!strcmp(hm__chan_names[HM__CHAN_FINAL], "final"));
	for (i = 0; i < HM__NCHANS; i++)
		CHECK(hm__chan_index(hm__chan_names[i], strlen(hm__chan_names[i])) == i);
	CHECK(hm__chan_index("Final", 5) == -1);
	CHECK(hm__chan_index("finals", 6) == -1);
	CHECK(hm__chan_index("analysis", 7) == -1);

	/* the order is the order of choice */
	CHECK(!strcmp(hm__id_keys[0], "tokens"));
	CHECK(!strcmp(hm__id_keys[1], "token_ids"));
	CHECK(!strcmp(hm__id_keys[2], "output_ids"));
	CHECK(!strcmp(hm__id_keys[3], "input_ids"));
	CHECK(!strcmp(hm__text_keys[0], "text"));
	CHECK(!strcmp(hm__text_keys[4], "content"));
	CHECK(hm__text_keys[5] == NULL);
}

static void
test_whitespace(void)
{
	uint32_t c;
	int n = 0, bad = 0;

	for (c = 0; c <= 0x10FFFF; c++) {
		int ws = hm__is_uws(c), table = !!(hm__uclass(c) & HM_UC_WS);

		n += ws;
		if (ws != table && bad++ < 5)
			CHECK_MSG(ws == table, "U+%04lX: %d, table %d", (unsigned long)c, ws, table);
	}
	CHECK(!bad);
	CHECK(n == 25);
	CHECK(hm__is_uws(0x85) && hm__is_uws(0x3000) && !hm__is_uws(0xFEFF) && !hm__is_uws(0x200B));
}

static void
test_recipient(void)
{
	char buf[128];
	int c;

	for (c = 0; c < 256; c++) {
		int want = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' || c == ':' ||
		    c == '/';

		CHECK_MSG(hm__is_rcpt_byte((unsigned char)c) == want, "byte 0x%02x", c);
	}
	/* a colon and a slash are a plain name's; a blank or a non-ASCII letter is not */
	CHECK(f16_count("<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{}<|call|>") == 0);
	CHECK(f16_count("<|channel|>commentary to=mcp:search/find-v2 <|constrain|>json<|message|>{}<|call|>") == 0);
	CHECK(f16_count("<|channel|>commentary to=functions.Web Search <|constrain|>json<|message|>{}<|call|>") == 1);
	CHECK(f16_count("<|channel|>commentary to=functions.m\xc3\xa9t\xc3\xa9o <|constrain|>json<|message|>{}<|call|>") == 1);
	CHECK(f16_count("<|channel|>commentary to=a+b <|constrain|>json<|message|>{}<|call|>") == 1);
	/* a stripped header: the recipient runs as far as the class goes */
	CHECK(!strcmp(first_rcpt("commentary to=mcp:srv/tool json{\"a\":1}", buf, sizeof buf),
	    "mcp:srv/tool"));
}

static void
test_utf8(void)
{
	static const unsigned char follow[] = { 0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF };
	unsigned a, b, c, d;
	unsigned char s[4];
	size_t nf = sizeof follow, want, bad;
	uint32_t cp;
	int errs = 0;

	for (a = 0x80; a < 0x100; a++)
		for (b = 0; b < nf; b++)
			for (c = 0; c < nf; c++)
				for (d = 0; d < nf; d++) {
					size_t n;

					s[0] = (unsigned char)a;
					s[1] = follow[b];
					s[2] = follow[c];
					s[3] = follow[d];
					for (n = 1; n <= 4; n++) {
						want = hm_utf8_decode(s, n, &cp, &bad);
						if (hm__utf8_len(s, n) != want && errs++ < 5)
							CHECK_MSG(0, "%02x %02x %02x %02x (%zu): %zu, decode %zu",
							    s[0], s[1], s[2], s[3], n, hm__utf8_len(s, n), want);
					}
				}
	CHECK(!errs);
	/* the edges of table 3-7 */
	CHECK(hm__utf8_len((const unsigned char *)"\xc2\x80", 2) == 2);
	CHECK(hm__utf8_len((const unsigned char *)"\xc1\xbf", 2) == 0);  /* overlong */
	CHECK(hm__utf8_len((const unsigned char *)"\xe0\x9f\xbf", 3) == 0);  /* overlong */
	CHECK(hm__utf8_len((const unsigned char *)"\xed\xa0\x80", 3) == 0);  /* surrogate */
	CHECK(hm__utf8_len((const unsigned char *)"\xef\xbf\xbf", 3) == 3);
	CHECK(hm__utf8_len((const unsigned char *)"\xf4\x8f\xbf\xbf", 4) == 4);
	CHECK(hm__utf8_len((const unsigned char *)"\xf4\x90\x80\x80", 4) == 0);  /* past U+10FFFF */
	CHECK(hm__utf8_len((const unsigned char *)"\xf0\x9f\x98", 3) == 0);  /* cut short */
	CHECK(hm_utf8_decode((const unsigned char *)"\xf0\x9f\x98\x80", 4, &cp, &bad) == 4 &&
	    cp == 0x1F600);
	CHECK(hm_utf8_valid_prefix("ab\xc3\xa9\xe2\x82", 6) == 4);
}

int
main(void)
{
	test_names();
	test_whitespace();
	test_recipient();
	test_utf8();
	return UNIT_DONE("test_facts");
}
