/*
 * tokens_inspect.c - harmony-tokens inspect: a row per token (index, id,
 * kind, its bytes escaped where not printable) as a table or JSON, the
 * compact `id:"bytes"` line of --lines, and the page of --to html (the
 * library's hm_html: a section a record).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tokens.h"

#define COL_SPECIAL "\033[1;35m"
#define COL_ESC "\033[2m"
#define COL_BAD "\033[33m"
#define COL_DIM "\033[2m"

void
add_escaped(struct tokens_ctx *tk, const char *b, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)b;
	size_t i = 0, k, bad;
	uint32_t cp;

	hm_buf_addc(&tk->out, '"');
	while (i < n) {
		unsigned c = s[i];
		const char *esc = NULL;
		char x[5];

		if (c >= 0x80) {
			k = hm_utf8_decode(s + i, n - i, &cp, &bad);
			if (k) {
				hm_buf_add(&tk->out, s + i, k);
				i += k;
				continue;
			}
		}
		switch (c) {
		case '\n': esc = "\\n"; break;
		case '\t': esc = "\\t"; break;
		case '\r': esc = "\\r"; break;
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		}
		if (!esc && c >= 0x20 && c < 0x7f) {
			hm_buf_addc(&tk->out, (char)c);
			i++;
			continue;
		}
		if (!esc) {
			x[0] = '\\', x[1] = 'x', x[2] = hex[c >> 4], x[3] = hex[c & 15], x[4] = 0;
			esc = x;
		}
		if (tk->use_color)
			hm_buf_adds(&tk->out, c >= 0x80 ? COL_BAD : COL_ESC);
		hm_buf_adds(&tk->out, esc);
		if (tk->use_color)
			hm_buf_adds(&tk->out, COL_OFF);
		i++;
	}
	hm_buf_addc(&tk->out, '"');
}

/* A special token's text as it stands (colored), an ordinary token's bytes escaped. */
static void
add_token_bytes(struct tokens_ctx *tk, const char *b, size_t n, int special)
{
	if (special) {
		if (tk->use_color)
			hm_buf_adds(&tk->out, COL_SPECIAL);
		hm_buf_add(&tk->out, b, n);
		if (tk->use_color)
			hm_buf_adds(&tk->out, COL_OFF);
	} else {
		add_escaped(tk, b, n);
	}
}

void
inspect_row(struct tokens_ctx *tk, size_t index, uint32_t id, size_t lineno)
{
	size_t n;
	const char *b = hm_token_bytes(id, &n);
	int special = hm_is_special(id);
	int valid = hm_utf8_valid_prefix(b, n) == n;

	if (tk->opt.to == F_JSON) {
		hm_buf_adds(&tk->out, "{");
		if (lineno) {
			hm_buf_adds(&tk->out, "\"line\":");
			hm_buf_addu(&tk->out, lineno);
			hm_buf_addc(&tk->out, ',');
		}
		hm_buf_adds(&tk->out, "\"index\":");
		hm_buf_addu(&tk->out, index);
		hm_buf_adds(&tk->out, ",\"id\":");
		hm_buf_addu(&tk->out, id);
		hm_buf_adds(&tk->out, special ? ",\"kind\":\"special\"" : ",\"kind\":\"ordinary\"");
		hm_buf_adds(&tk->out, ",\"text\":");
		hm_buf_json_str(&tk->out, b, n);
		hm_buf_adds(&tk->out, ",\"hex\":\"");
		for (size_t i = 0; i < n; i++) {
			static const char hex[] = "0123456789abcdef";
			unsigned char c = (unsigned char)b[i];

			hm_buf_addc(&tk->out, hex[c >> 4]);
			hm_buf_addc(&tk->out, hex[c & 15]);
		}
		hm_buf_adds(&tk->out, valid ? "\",\"utf8\":true}\n" : "\",\"utf8\":false}\n");
		return;
	}
	{
		char head[64];

		snprintf(head, sizeof head, "%6zu %7u %-9s", index, id, special ? "special" : "ordinary");
		hm_buf_adds(&tk->out, head);
	}
	add_token_bytes(tk, b, n, special);
	if (!valid)
		hm_buf_adds(&tk->out, tk->use_color ? " " COL_BAD "(not UTF-8 alone)" COL_OFF : " (not UTF-8 alone)");
	hm_buf_addc(&tk->out, '\n');
}

/* --lines form: `id "bytes"` pairs on one line. */
void
inspect_compact(struct tokens_ctx *tk, const hm_ids *ids)
{
	size_t i, n;

	for (i = 0; i < ids->len; i++) {
		const char *b = hm_token_bytes(ids->v[i], &n);

		if (i)
			hm_buf_addc(&tk->out, ' ');
		hm_buf_addu(&tk->out, ids->v[i]);
		hm_buf_addc(&tk->out, ':');
		add_token_bytes(tk, b, n, hm_is_special(ids->v[i]));
	}
	hm_buf_addc(&tk->out, '\n');
}

/* The page's text so far into the output. */
static void
html_out(struct tokens_ctx *tk, hm_status st)
{
	size_t n;
	const char *p;

	if (st != HM_OK)
		cli_oom();
	p = hm_html_output(tk->page, &n);
	hm_buf_add(&tk->out, p, n);
	hm_html_consume(tk->page);
	out_maybe(tk);
}

void
inspect_html(struct tokens_ctx *tk, const char *file, const char *label, const hm_ids *ids)
{
	if (!tk->page) {
		hm_buf title = { 0 };

		hm_buf_adds(&title, "harmony-tokens inspect ");
		hm_buf_adds(&title, file);
		if (title.oom || !(tk->page = hm_html_new(title.p, 0)))
			cli_oom();
		hm_buf_free(&title);
	}
	html_out(tk, hm_html_add_ids(tk->page, label, ids ? ids->v : NULL, ids ? ids->len : 0));
}

void
inspect_html_end(struct tokens_ctx *tk)
{
	if (!tk->page)
		inspect_html(tk, tk->nparts ? tk->parts[0].name : "-", NULL, NULL);
	html_out(tk, hm_html_finish(tk->page));
	hm_html_free(tk->page);
	tk->page = NULL;
}
