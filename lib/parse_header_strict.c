/*
 * parse_header_strict.c - the reference's header reading: a header's text
 * split into role, recipient, channel and content type exactly as the
 * reference StreamableParser does (harmony-format.md §4), with its error
 * messages.  Strict mode uses it alone; the default mode tries it first and
 * repairs what it rejects (parse_header_fix.c).
 */
#include <string.h>

#include "parser_int.h"

/* Trim Unicode whitespace: sets *a, *b to the trimmed bounds of s[a..b). */
static void
trim(const char *s, size_t *a, size_t *b)
{
	uint32_t cp;
	size_t k, j;

	while (*a < *b) {
		k = hm__p_char_at(s, *b, *a, &cp);
		if (!hm__is_uws(cp))
			break;
		*a += k;
	}
	while (*b > *a) {
		j = *b - 1;
		while (j > *a && ((unsigned char)s[j] & 0xC0) == 0x80)
			j--;
		hm__p_char_at(s, *b, j, &cp);
		if (!hm__is_uws(cp))
			break;
		*b = j;
	}
}

struct word {
	size_t off, len;
};

/* Rust's Debug for a str, inside Some("..."), into b (its owner's flag nomem). */
static void
rust_debug(int *nomem, hm_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, k;
	uint32_t cp;

	hm__adds(nomem, b, "Some(\"");
	while (i < n) {
		k = hm__p_char_at(s, n, i, &cp);
		switch (cp) {
		case '"': hm__adds(nomem, b, "\\\""); break;
		case '\\': hm__adds(nomem, b, "\\\\"); break;
		case '\n': hm__adds(nomem, b, "\\n"); break;
		case '\r': hm__adds(nomem, b, "\\r"); break;
		case '\t': hm__adds(nomem, b, "\\t"); break;
		case 0: hm__adds(nomem, b, "\\0"); break;
		default:
			if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) {
				hm__adds(nomem, b, "\\u{");
				if (cp >= 16)
					hm__putc(nomem, b, hex[cp >> 4]);
				hm__putc(nomem, b, hex[cp & 15]);
				hm__putc(nomem, b, '}');
			} else
				hm__add(nomem, b, s + i, k);
		}
		i += k;
	}
	hm__adds(nomem, b, "\")");
}

/*
 * The reference's header grammar (harmony-format.md §4.3) over the valid
 * UTF-8 text s[0..n).  role is the given role or R_NONE.  On success fills
 * *h (offsets into hs) and returns HM_OK; with parse_target 0 the leftover
 * words are joined into msg.  HM_EINPUT when the grammar rejects the
 * header, the reference's message in msg; HM_ENOMEM when *nomem is set.
 * The buffers are the caller's scratch (words holds the split words),
 * nomem their owner's flag; nothing else is touched.
 */
hm_status
hm__p_parse_header(int *nomem, hm_buf *hs, hm_buf *words, hm_buf *msg,
    const char *s, size_t n, int role, int parse_target, struct hdr *h)
{
	size_t m, vs, ve, a, b, i, nw, w0, wn, coff = 0, clen = 0;
	struct word *w;
	int has_chan = 0, tool_w0 = 0;
	uint32_t cp;

	memset(h, 0, sizeof *h);
	hm_buf_reset(hs);
	hm_buf_reset(msg);
	m = hm__p_find(s, n, "<|channel|>", 0);
	if (m != (size_t)-1) {
		vs = ve = m + 11;
		while (ve < n) {
			size_t k = hm__p_char_at(s, n, ve, &cp);

			if (hm__is_uws(cp) || cp == '<')
				break;
			ve += k;
		}
		if (ve == vs) {
			hm__adds(nomem, msg, "channel marker present but no channel value found in header");
			return HM_EINPUT;
		}
		/* The channel value goes first in hs, the cut text after it. */
		hm__add(nomem, hs, s + vs, ve - vs);
		coff = 0;
		clen = ve - vs;
		has_chan = 1;
		hm__add(nomem, hs, s, m);
		hm__add(nomem, hs, s + ve, n - ve);
	} else
		hm__add(nomem, hs, s, n);
	if (*nomem)
		return HM_ENOMEM;
	a = clen;
	b = hs->len;
	trim(hs->p, &a, &b);
	if (hm__p_find(hs->p + a, b - a, "<|constrain|>", 0) != (size_t)-1) {
		size_t j = a, at;

		hm_buf_reset(msg);
		while ((at = hm__p_find(hs->p, b, "<|constrain|>", j)) != (size_t)-1) {
			hm__add(nomem, msg, hs->p + j, at - j);
			hm__adds(nomem, msg, " <|constrain|>");
			j = at + 13;
		}
		hm__add(nomem, msg, hs->p + j, b - j);
		hs->len = clen;
		hm__add(nomem, hs, msg->p, msg->len);
		hm_buf_reset(msg);
		if (*nomem)
			return HM_ENOMEM;
		a = clen;
		b = hs->len;
		trim(hs->p, &a, &b);
	}
	/* Split at ASCII whitespace. */
	hm_buf_reset(words);
	nw = 0;
	for (i = a; i < b;) {
		struct word wd;

		while (i < b && hm__p_is_aws((unsigned char)hs->p[i]))
			i++;
		if (i >= b)
			break;
		wd.off = i;
		while (i < b && !hm__p_is_aws((unsigned char)hs->p[i]))
			i++;
		wd.len = i - wd.off;
		hm__add(nomem, words, &wd, sizeof wd);
		nw++;
	}
	if (*nomem)
		return HM_ENOMEM;
	w = (struct word *)(void *)words->p;
	w0 = 0;
	wn = nw;
	if (role == R_NONE) {
		if (!nw) {
			hm__adds(nomem, msg, "message header did not contain a role");
			return HM_EINPUT;
		}
		role = hm__role_index(hs->p + w[0].off, w[0].len);
		if (role < 0) {
			if (nw > 1 || (w[0].len >= 3 && !memcmp(hs->p + w[0].off, "to=", 3))) {
				role = HM_ROLE_TOOL;
				tool_w0 = 1;
				w0 = 1;
			} else {
				hm__adds(nomem, msg, "Unknown role: ");
				hm__add(nomem, msg, hs->p + w[0].off, w[0].len);
				return HM_EINPUT;
			}
		}
		if (role == HM_ROLE_TOOL && !tool_w0) {
			/* The name of a tool is the role word: "tool". */
			h->off[P_NAME] = w[0].off;
			h->len[P_NAME] = w[0].len;
			h->has[P_NAME] = 1;
		} else if (tool_w0) {
			h->off[P_NAME] = w[0].off;
			h->len[P_NAME] = w[0].len;
			h->has[P_NAME] = 1;
		}
	}
	h->role = role;
	if (w0 < wn && w[w0].len == strlen(hm__role_names[role]) &&
	    !memcmp(hs->p + w[w0].off, hm__role_names[role], w[w0].len))
		w0++;
	if (parse_target && w0 < wn) {
		struct word x = w[wn - 1];
		size_t cnt = wn - w0;

		wn--;
		if (x.len >= 3 && !memcmp(hs->p + x.off, "to=", 3)) {
			h->off[P_RCPT] = x.off + 3;
			h->len[P_RCPT] = x.len - 3;
			h->has[P_RCPT] = 1;
		} else if (cnt == 1) {
			h->off[P_RCPT] = x.off;
			h->len[P_RCPT] = x.len;
			h->has[P_RCPT] = 1;
		} else {
			struct word y = w[wn - 1];

			wn--;
			h->off[P_CTYPE] = x.off;
			h->len[P_CTYPE] = x.len;
			h->has[P_CTYPE] = 1;
			if (y.len >= 3 && !memcmp(hs->p + y.off, "to=", 3)) {
				y.off += 3;
				y.len -= 3;
			}
			h->off[P_RCPT] = y.off;
			h->len[P_RCPT] = y.len;
			h->has[P_RCPT] = 1;
		}
	}
	if (w0 < wn) {
		for (i = w0; i < wn; i++) {
			if (i > w0)
				hm__putc(nomem, msg, ' ');
			hm__add(nomem, msg, hs->p + w[i].off, w[i].len);
		}
		if (parse_target) {
			hm_buf lo = *msg;

			memset(msg, 0, sizeof *msg);
			hm__adds(nomem, msg, "unexpected tokens remaining in message header: ");
			rust_debug(nomem, msg, lo.p, lo.len);
			hm_buf_free(&lo);
			return HM_EINPUT;
		}
	}
	if (has_chan) {
		h->off[P_CHAN] = coff;
		h->len[P_CHAN] = clen;
		h->has[P_CHAN] = 1;
	}
	return HM_OK;
}
