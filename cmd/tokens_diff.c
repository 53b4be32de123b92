/* tokens_diff.c - harmony-tokens diff: where two recorded token files first differ. */
#include <stdlib.h>
#include <string.h>

#include "tokens.h"

/*
 * diff A B: each line of a file is one record (an id list, a JSON array or
 * an NDJSON record), compared with the record of the other file on the
 * same line, or with --key with the record holding the same value of that
 * field.  Each differing record gives one report of its first difference.
 * With --prefix, a record of B that starts with its record of A (or equals
 * it) is no difference, and a closing line counts what a prefix cache would
 * reuse.
 */
#define COL_A "\033[31m"
#define COL_B "\033[32m"
#define COL_HEAD "\033[1m"

struct drec {
	size_t line;
	char *key;      /* --key: the field's value as compact JSON */
	hm_ids ids;
	int matched;    /* --key: paired; -1 a repeated key, not compared */
};

struct dside {
	cli_input in;
	char *line;     /* the line being read */
	size_t linecap;
	char *path[1];
	const char *name;
	struct drec *r;
	size_t n, cap;
};

/* diff's state, in the tool's context while it runs (tk->diff). */
struct tokens_diff {
	struct dside a, b;
	int differ;
	size_t reports;  /* --to html: the records the page shows */
	/*
	 * --prefix: the records compared, those of B that extend A, and the
	 * tokens of B that a prefix cache could reuse (the common prefixes)
	 * against those it recomputes (the rest of B).
	 */
	struct {
		size_t records, extend, reused, recomputed;
		size_t retok, text; /* of those not extending: the same text, or not */
	} pfx;
};

/* An error record under --to=json, in the place of a report. */
static void
diff_error_json(struct tokens_ctx *tk, const char *file, size_t line, const char *msg)
{
	if (tk->opt.to != F_JSON)
		return;
	hm_buf_adds(&tk->out, "{\"type\":\"error\",\"error\":");
	hm_buf_json_str(&tk->out, msg, strlen(msg));
	hm_buf_adds(&tk->out, ",\"file\":");
	hm_buf_json_str(&tk->out, file, strlen(file));
	hm_buf_adds(&tk->out, ",\"line\":");
	hm_buf_addu(&tk->out, line);
	hm_buf_adds(&tk->out, "}\n");
	cli_write_buf(&tk->out, 1);
}

/* A bad record: on stderr (and as an error record); it is not compared. */
static void
diff_bad(struct tokens_ctx *tk, const char *file, size_t line, size_t col, const char *msg)
{
	cli_error_at(file, line, col, "%s", msg);
	diff_error_json(tk, file, line, msg);
	tk->status = CLI_BAD;
}

/*
 * The next record of side s into *r: 1 with a good record, 0 at the end,
 * -1 for a bad record (reported; r->line is set).
 */
static int
diff_read(struct tokens_ctx *tk, struct dside *s, struct drec *r)
{
	size_t len;
	hm_error err;
	hm_status st;
	char msg[400];

	r->ids.len = 0;
	free(r->key);
	r->key = NULL;
	r->matched = 0;
	if (!cli_input_line(&s->in, &s->line, &s->linecap, &len))
		return 0;
	r->line = s->in.line;
	st = hm_ids_parse(s->line, len, 0, &r->ids, NULL, &err);
	if (st == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK) {
		cli_ids_msg(msg, sizeof msg, 0, &err);
		diff_bad(tk, s->name, r->line, err.col, msg);
		return -1;
	}
	record_dup_warn(tk, s->line, len, s->name, r->line);
	if (tk->opt.key) {
		st = hm_record_field(s->line, len, tk->opt.key, &r->key, &err);
		if (st == HM_ENOMEM)
			cli_oom();
		if (st != HM_OK) {
			snprintf(msg, sizeof msg, "--key=%.64s: %s", tk->opt.key, err.msg);
			diff_bad(tk, s->name, r->line, err.col, msg);
			return -1;
		}
	}
	return 1;
}

/* One record as the library's diff functions take it. */
static hm_diff_side
side_of(const struct dside *s, const struct drec *r)
{
	hm_diff_side d = { s->name, r->line, r->key, r->ids.v, r->ids.len };

	return d;
}

/* The head of a report (hm_diff_head), colored, ending its line. */
static void
diff_head(struct tokens_ctx *tk, const struct drec *a, const struct drec *b)
{
	hm_diff_side sa, sb;

	if (a)
		sa = side_of(&tk->diff->a, a);
	if (b)
		sb = side_of(&tk->diff->b, b);
	if (tk->use_color)
		hm_buf_adds(&tk->out, COL_HEAD);
	hm_diff_head(&tk->out, a ? &sa : NULL, b ? &sb : NULL, tk->opt.key,
	    tk->opt.prefix ? HM_DIFF_PREFIX : 0);
	if (tk->use_color)
		hm_buf_adds(&tk->out, COL_OFF);
	hm_buf_addc(&tk->out, '\n');
}

/* --to html: one record's part of the page (a or b NULL: only in the other file). */
static void
diff_page(struct tokens_ctx *tk, const struct drec *a, const struct drec *b)
{
	hm_diff_side sa, sb;

	if (a)
		sa = side_of(&tk->diff->a, a);
	if (b)
		sb = side_of(&tk->diff->b, b);
	if (hm_diff_page_record(&tk->out, a ? &sa : NULL, b ? &sb : NULL, tk->opt.key,
	    tk->opt.context, tk->opt.prefix ? HM_DIFF_PREFIX : 0) != HM_OK)
		cli_oom();
	tk->diff->reports++;
	cli_write_buf(&tk->out, 1);
}

/* A header part given and not empty (an empty one shows as none). */
static int
has(const hm_str *s)
{
	return s->p && s->len;
}

static void
add_place_json(struct tokens_ctx *tk, const hm_place *pl)
{
	hm_buf_adds(&tk->out, "{\"part\":\"");
	hm_buf_adds(&tk->out, hm_place_part_name(pl->part));
	hm_buf_adds(&tk->out, "\",\"message\":");
	hm_buf_addu(&tk->out, pl->message);
	hm_buf_adds(&tk->out, ",\"role\":");
	if (has(&pl->role))
		hm_buf_json_str(&tk->out, pl->role.p, pl->role.len);
	else
		hm_buf_adds(&tk->out, "null");
	hm_buf_adds(&tk->out, ",\"recipient\":");
	if (has(&pl->recipient))
		hm_buf_json_str(&tk->out, pl->recipient.p, pl->recipient.len);
	else
		hm_buf_adds(&tk->out, "null");
	hm_buf_adds(&tk->out, ",\"channel\":");
	if (has(&pl->channel))
		hm_buf_json_str(&tk->out, pl->channel.p, pl->channel.len);
	else
		hm_buf_adds(&tk->out, "null");
	hm_buf_adds(&tk->out, pl->unfinished ? ",\"unfinished\":true}" : ",\"unfinished\":false}");
}

/*
 * The bytes of v[from..to) appended to b, a scratch buffer: when it cannot
 * grow, tk's output says so (cli_write_buf then tk->diff->reports it).
 */
static void
bytes_of(struct tokens_ctx *tk, hm_buf *b, const uint32_t *v, size_t from, size_t to)
{
	size_t k;

	for (; from < to; from++) {
		const char *t = hm_token_bytes(v[from], &k);

		hm_buf_add(b, t, k);
	}
	if (b->oom)
		tk->out.oom = 1;
}

static void
ids_json(struct tokens_ctx *tk, const uint32_t *v, size_t from, size_t to)
{
	hm_buf_addc(&tk->out, '[');
	for (size_t i = from; i < to; i++) {
		if (i > from)
			hm_buf_addc(&tk->out, ',');
		hm_buf_addu(&tk->out, v[i]);
	}
	hm_buf_addc(&tk->out, ']');
}

/*
 * One line of a report for one side: its ids ("- ids:") or their text
 * ("- text:") from lo to the context's end, the token at i bracketed.
 */
static void
diff_side_text(struct tokens_ctx *tk, char sign, int text, const hm_ids *ids, size_t i, size_t lo)
{
	const char *col = sign == '-' ? COL_A : COL_B;
	size_t hi = i + 1 + tk->opt.context < ids->len ? i + 1 + tk->opt.context : ids->len, k;
	hm_buf t = { 0 };

	hm_buf_addc(&tk->out, sign);
	if (!text) {
		hm_buf_adds(&tk->out, " ids: ");
		if (lo)
			hm_buf_adds(&tk->out, " ...");
		for (k = lo; k < hi || (k == i && i == ids->len); k++) {
			hm_buf_addc(&tk->out, ' ');
			if (k == i && tk->use_color)
				hm_buf_adds(&tk->out, col);
			if (k == i && k == ids->len) {
				hm_buf_adds(&tk->out, "[end]");
			} else if (k == i) {
				hm_buf_addc(&tk->out, '[');
				hm_buf_addu(&tk->out, ids->v[k]);
				hm_buf_addc(&tk->out, ']');
			} else {
				hm_buf_addu(&tk->out, ids->v[k]);
			}
			if (k == i && tk->use_color)
				hm_buf_adds(&tk->out, COL_OFF);
		}
		if (hi < ids->len)
			hm_buf_adds(&tk->out, " ...");
		hm_buf_addc(&tk->out, '\n');
		return;
	}
	hm_buf_adds(&tk->out, " text:");
	if (i > lo) {
		bytes_of(tk, &t, ids->v, lo, i);
		hm_buf_addc(&tk->out, ' ');
		add_escaped(tk, t.p, t.len);
	}
	hm_buf_addc(&tk->out, ' ');
	if (tk->use_color)
		hm_buf_adds(&tk->out, col);
	if (i == ids->len) {
		hm_buf_adds(&tk->out, "[end]");
	} else {
		hm_buf_reset(&t);
		bytes_of(tk, &t, ids->v, i, i + 1);
		hm_buf_addc(&tk->out, '[');
		add_escaped(tk, t.p, t.len);
		hm_buf_addc(&tk->out, ']');
	}
	if (tk->use_color)
		hm_buf_adds(&tk->out, COL_OFF);
	if (i + 1 < hi) {
		hm_buf_reset(&t);
		bytes_of(tk, &t, ids->v, i + 1, hi);
		hm_buf_addc(&tk->out, ' ');
		add_escaped(tk, t.p, t.len);
	}
	hm_buf_addc(&tk->out, '\n');
	hm_buf_free(&t);
}

static void
diff_side_json(struct tokens_ctx *tk, const char *name, const struct drec *r, size_t i, size_t lo,
               const hm_place *pl)
{
	const hm_ids *ids = &r->ids;
	size_t hi = i + 1 + tk->opt.context < ids->len ? i + 1 + tk->opt.context : ids->len;
	hm_buf t = { 0 };

	hm_buf_adds(&tk->out, "{\"file\":");
	hm_buf_json_str(&tk->out, name, strlen(name));
	hm_buf_adds(&tk->out, ",\"line\":");
	hm_buf_addu(&tk->out, r->line);
	hm_buf_adds(&tk->out, ",\"tokens\":");
	hm_buf_addu(&tk->out, ids->len);
	hm_buf_adds(&tk->out, ",\"before\":");
	ids_json(tk, ids->v, lo, i < ids->len ? i : ids->len);
	hm_buf_adds(&tk->out, ",\"id\":");
	if (i < ids->len)
		hm_buf_addu(&tk->out, ids->v[i]);
	else
		hm_buf_adds(&tk->out, "null");
	hm_buf_adds(&tk->out, ",\"after\":");
	ids_json(tk, ids->v, i < ids->len ? i + 1 : ids->len, i < ids->len ? hi : ids->len);
	bytes_of(tk, &t, ids->v, lo, i < ids->len ? i : ids->len);
	hm_buf_adds(&tk->out, ",\"text_before\":");
	hm_buf_json_str(&tk->out, t.p ? t.p : "", t.len);
	hm_buf_adds(&tk->out, ",\"text\":");
	if (i < ids->len) {
		hm_buf_reset(&t);
		bytes_of(tk, &t, ids->v, i, i + 1);
		hm_buf_json_str(&tk->out, t.p ? t.p : "", t.len);
	} else {
		hm_buf_adds(&tk->out, "null");
	}
	hm_buf_reset(&t);
	if (i < ids->len)
		bytes_of(tk, &t, ids->v, i + 1, hi);
	hm_buf_adds(&tk->out, ",\"text_after\":");
	hm_buf_json_str(&tk->out, t.p ? t.p : "", t.len);
	hm_buf_adds(&tk->out, ",\"place\":");
	if (pl)
		add_place_json(tk, pl);
	else
		hm_buf_adds(&tk->out, "null");
	hm_buf_addc(&tk->out, '}');
	hm_buf_free(&t);
}

static void
locate_token(const hm_ids *ids, size_t i, hm_place *pl)
{
	if (hm_ids_place(ids->v, ids->len, i, pl) != HM_OK)
		cli_oom();
}

/* Compare two good records; report the first difference. */
static void
diff_pair(struct tokens_ctx *tk, const struct drec *a, const struct drec *b)
{
	size_t n = a->ids.len < b->ids.len ? a->ids.len : b->ids.len, i, lo;
	hm_place pa = { 0 }, pb = { 0 };
	hm_diff_side sa = side_of(&tk->diff->a, a), sb = side_of(&tk->diff->b, b);
	hm_diff_text td;
	int ina, inb;

	for (i = 0; i < n && a->ids.v[i] == b->ids.v[i]; i++)
		;
	if (tk->opt.prefix) {
		tk->diff->pfx.records++;
		tk->diff->pfx.reused += i;
		tk->diff->pfx.recomputed += b->ids.len - i;
		if (i == a->ids.len) {
			tk->diff->pfx.extend++;
			return;
		}
	} else if (i == n && a->ids.len == b->ids.len) {
		return;
	}
	tk->diff->differ = 1;
	/* the drift named: the same text under other ids, or another text */
	hm_diff_text_of(&sa, &sb, tk->opt.prefix ? HM_DIFF_PREFIX : 0, &td);
	if (tk->opt.prefix) {
		if (td.same)
			tk->diff->pfx.retok++;
		else
			tk->diff->pfx.text++;
	}
	if (tk->opt.quiet)
		return;
	if (tk->opt.to == F_HTML) {
		diff_page(tk, a, b);
		return;
	}
	lo = i > tk->opt.context ? i - tk->opt.context : 0;
	ina = i < a->ids.len;
	inb = i < b->ids.len;
	if (ina)
		locate_token(&a->ids, i, &pa);
	if (inb)
		locate_token(&b->ids, i, &pb);
	if (tk->opt.to == F_JSON) {
		hm_buf_adds(&tk->out, "{\"type\":\"");
		hm_buf_adds(&tk->out, ina && inb ? "differ" : "length");
		hm_buf_adds(&tk->out, "\",\"key\":");
		hm_buf_adds(&tk->out, tk->opt.key ? a->key : "null");
		hm_buf_adds(&tk->out, ",\"token\":");
		hm_buf_addu(&tk->out, i);
		if (tk->opt.prefix) {
			hm_buf_adds(&tk->out, ",\"reused\":");
			hm_buf_addu(&tk->out, i);
			hm_buf_adds(&tk->out, ",\"recomputed\":");
			hm_buf_addu(&tk->out, b->ids.len - i);
		}
		if (td.same) {
			hm_buf_adds(&tk->out, ",\"drift\":\"retokenization\"");
		} else {
			hm_buf_adds(&tk->out, ",\"drift\":\"text\",\"text_byte\":");
			hm_buf_addu(&tk->out, td.byte);
			hm_buf_adds(&tk->out, ",\"text_token_a\":");
			if (td.token_a < a->ids.len)
				hm_buf_addu(&tk->out, td.token_a);
			else
				hm_buf_adds(&tk->out, "null");
			hm_buf_adds(&tk->out, ",\"text_token_b\":");
			if (td.token_b < b->ids.len)
				hm_buf_addu(&tk->out, td.token_b);
			else
				hm_buf_adds(&tk->out, "null");
		}
		hm_buf_adds(&tk->out, ",\"a\":");
		diff_side_json(tk, tk->diff->a.name, a, i, lo, ina ? &pa : NULL);
		hm_buf_adds(&tk->out, ",\"b\":");
		diff_side_json(tk, tk->diff->b.name, b, i, lo, inb ? &pb : NULL);
		hm_buf_adds(&tk->out, "}\n");
		cli_write_buf(&tk->out, 1);
		hm_place_free(&pa);
		hm_place_free(&pb);
		return;
	}
	diff_head(tk, a, b);
	diff_side_text(tk, '-', 0, &a->ids, i, lo);
	diff_side_text(tk, '+', 0, &b->ids, i, lo);
	diff_side_text(tk, '-', 1, &a->ids, i, lo);
	diff_side_text(tk, '+', 1, &b->ids, i, lo);
	if (ina && inb && hm_place_same(&pa, &pb)) {
		hm_buf_adds(&tk->out, "  in:   ");
		hm_place_describe(&tk->out, &pa);
		hm_buf_addc(&tk->out, '\n');
	} else {
		if (ina) {
			hm_buf_adds(&tk->out, "- in:   ");
			hm_place_describe(&tk->out, &pa);
			hm_buf_addc(&tk->out, '\n');
		}
		if (inb) {
			hm_buf_adds(&tk->out, "+ in:   ");
			hm_place_describe(&tk->out, &pb);
			hm_buf_addc(&tk->out, '\n');
		}
	}
	hm_buf_adds(&tk->out, "  drift: ");
	hm_diff_text_describe(&tk->out, &td, &sa, &sb, tk->opt.prefix ? HM_DIFF_PREFIX : 0);
	hm_buf_addc(&tk->out, '\n');
	cli_write_buf(&tk->out, 1);
	hm_place_free(&pa);
	hm_place_free(&pb);
}

/* A record that has no partner on the other side. */
static void
diff_only(struct tokens_ctx *tk, const char *name, const struct drec *r, int in_a)
{
	tk->diff->differ = 1;
	if (tk->opt.prefix) {
		/* nothing of a record only in B is reused; one only in A is not extended */
		tk->diff->pfx.records++;
		if (!in_a)
			tk->diff->pfx.recomputed += r->ids.len;
	}
	if (tk->opt.quiet)
		return;
	if (tk->opt.to == F_JSON) {
		hm_buf_adds(&tk->out, in_a ? "{\"type\":\"only_a\",\"key\":" : "{\"type\":\"only_b\",\"key\":");
		hm_buf_adds(&tk->out, tk->opt.key ? r->key : "null");
		hm_buf_adds(&tk->out, in_a ? ",\"a\":{\"file\":" : ",\"b\":{\"file\":");
		hm_buf_json_str(&tk->out, name, strlen(name));
		hm_buf_adds(&tk->out, ",\"line\":");
		hm_buf_addu(&tk->out, r->line);
		hm_buf_adds(&tk->out, ",\"tokens\":");
		hm_buf_addu(&tk->out, r->ids.len);
		hm_buf_adds(&tk->out, "}}\n");
	} else if (tk->opt.to == F_HTML) {
		diff_page(tk, in_a ? r : NULL, in_a ? NULL : r);
		return;
	} else {
		diff_head(tk, in_a ? r : NULL, in_a ? NULL : r);
	}
	cli_write_buf(&tk->out, 1);
}

/* Records paired by order: read both files in step. */
static void
diff_by_order(struct tokens_ctx *tk)
{
	struct drec a = { 0 }, b = { 0 };

	for (;;) {
		int ra = diff_read(tk, &tk->diff->a, &a), rb = diff_read(tk, &tk->diff->b, &b);

		if (!ra && !rb)
			break;
		if (ra > 0 && rb > 0)
			diff_pair(tk, &a, &b);
		else if (ra > 0 && !rb)
			diff_only(tk, tk->diff->a.name, &a, 1);
		else if (rb > 0 && !ra)
			diff_only(tk, tk->diff->b.name, &b, 0);
	}
	hm_ids_free(&a.ids);
	hm_ids_free(&b.ids);
	free(a.key);
	free(b.key);
}

static int
cmp_key_line(const void *x, const void *y)
{
	const struct drec *a = *(const struct drec *const *)x, *b = *(const struct drec *const *)y;
	int c = strcmp(a->key, b->key);

	return c ? c : (a->line > b->line) - (a->line < b->line);
}

static int
cmp_key(const void *k, const void *y)
{
	return strcmp(k, (*(const struct drec *const *)y)->key);
}

/*
 * All good records of s, and pointers to them sorted by key to look keys
 * up in; a repeated key is a bad record (the first one is kept).
 */
static struct drec **
diff_load(struct tokens_ctx *tk, struct dside *s, size_t *nsorted)
{
	struct drec r = { 0 }, **sorted;
	size_t i, k = 0;
	int rc;

	while ((rc = diff_read(tk, s, &r)) != 0) {
		if (rc < 0)
			continue;
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 64;
			s->r = cli_realloc(s->r, s->cap * sizeof *s->r);
		}
		s->r[s->n++] = r;
		memset(&r, 0, sizeof r);
	}
	hm_ids_free(&r.ids);
	sorted = cli_realloc(NULL, (s->n ? s->n : 1) * sizeof *sorted);
	for (i = 0; i < s->n; i++)
		sorted[i] = &s->r[i];
	qsort(sorted, s->n, sizeof *sorted, cmp_key_line);
	for (i = 0; i < s->n; i++) {
		if (k && !strcmp(sorted[k - 1]->key, sorted[i]->key)) {
			char msg[400];

			snprintf(msg, sizeof msg, "%.64s %.160s repeated (first on line %zu): not compared",
			         tk->opt.key, sorted[i]->key, sorted[k - 1]->line);
			diff_bad(tk, s->name, sorted[i]->line, 0, msg);
			sorted[i]->matched = -1;
			continue;
		}
		sorted[k++] = sorted[i];
	}
	*nsorted = k;
	return sorted;
}

/*
 * Records paired by --key: tk->diff->reports in the order of A's records, then the
 * records only in B in their order.
 */
static void
diff_by_key(struct tokens_ctx *tk)
{
	size_t na, nb, i;
	struct drec **sa = diff_load(tk, &tk->diff->a, &na), **sb = diff_load(tk, &tk->diff->b, &nb), **hit;

	for (i = 0; i < tk->diff->a.n; i++) {
		struct drec *a = &tk->diff->a.r[i];

		if (a->matched < 0)
			continue;
		hit = bsearch(a->key, sb, nb, sizeof *sb, cmp_key);
		if (hit) {
			(*hit)->matched = 1;
			diff_pair(tk, a, *hit);
		} else {
			diff_only(tk, tk->diff->a.name, a, 1);
		}
	}
	for (i = 0; i < tk->diff->b.n; i++)
		if (!tk->diff->b.r[i].matched)
			diff_only(tk, tk->diff->b.name, &tk->diff->b.r[i], 0);
	for (i = 0; i < tk->diff->a.n; i++) {
		hm_ids_free(&tk->diff->a.r[i].ids);
		free(tk->diff->a.r[i].key);
	}
	for (i = 0; i < tk->diff->b.n; i++) {
		hm_ids_free(&tk->diff->b.r[i].ids);
		free(tk->diff->b.r[i].key);
	}
	free(tk->diff->a.r);
	free(tk->diff->b.r);
	free(sa);
	free(sb);
}

/* --prefix: the closing line's text, appended to b. */
static void
prefix_line(const struct tokens_diff *df, hm_buf *b)
{
	hm_buf_adds(b, "prefix: ");
	hm_buf_addu(b, df->pfx.extend);
	hm_buf_adds(b, " of ");
	hm_buf_addu(b, df->pfx.records);
	hm_buf_adds(b, df->pfx.records == 1 ? " record extends, " : " records extend, ");
	hm_buf_addu(b, df->pfx.records - df->pfx.extend);
	hm_buf_adds(b, df->pfx.records - df->pfx.extend == 1 ? " does not" : " do not");
	if (df->pfx.retok || df->pfx.text) {
		/* of those, the ones whose text B still starts with: the tokenizer's doing */
		hm_buf_adds(b, " (");
		hm_buf_addu(b, df->pfx.retok);
		hm_buf_adds(b, " retokenized, ");
		hm_buf_addu(b, df->pfx.text);
		hm_buf_adds(b, df->pfx.text == 1 ? " with its text changed)" : " with their text changed)");
	}
	hm_buf_adds(b, "; ");
	hm_buf_addu(b, df->pfx.reused);
	hm_buf_adds(b, " tokens reused, ");
	hm_buf_addu(b, df->pfx.recomputed);
	hm_buf_adds(b, " recomputed");
}

/* --to html: the page's end, with the --prefix line. */
static void
page_end(struct tokens_ctx *tk)
{
	hm_buf note = { 0 };

	if (tk->opt.prefix)
		prefix_line(tk->diff, &note);
	if (note.oom || hm_diff_page_end(&tk->out, tk->diff->reports, note.p) != HM_OK)
		cli_oom();
	hm_buf_free(&note);
}

/* --prefix: the closing line, or record, of counts. */
static void
prefix_summary(struct tokens_ctx *tk)
{
	if (tk->opt.quiet)
		return;
	if (tk->opt.to == F_JSON) {
		hm_buf_adds(&tk->out, "{\"type\":\"summary\",\"records\":");
		hm_buf_addu(&tk->out, tk->diff->pfx.records);
		hm_buf_adds(&tk->out, ",\"extend\":");
		hm_buf_addu(&tk->out, tk->diff->pfx.extend);
		hm_buf_adds(&tk->out, ",\"not_extend\":");
		hm_buf_addu(&tk->out, tk->diff->pfx.records - tk->diff->pfx.extend);
		hm_buf_adds(&tk->out, ",\"reused\":");
		hm_buf_addu(&tk->out, tk->diff->pfx.reused);
		hm_buf_adds(&tk->out, ",\"recomputed\":");
		hm_buf_addu(&tk->out, tk->diff->pfx.recomputed);
		hm_buf_adds(&tk->out, ",\"retokenized\":");
		hm_buf_addu(&tk->out, tk->diff->pfx.retok);
		hm_buf_adds(&tk->out, ",\"text_changed\":");
		hm_buf_addu(&tk->out, tk->diff->pfx.text);
		hm_buf_adds(&tk->out, "}\n");
		return;
	}
	prefix_line(tk->diff, &tk->out);
	hm_buf_addc(&tk->out, '\n');
}

/* diff A B: exit 0 equal (--prefix: B extends A), 1 different or bad input, 3 I/O. */
int
run_diff(struct tokens_ctx *tk, char **paths)
{
	struct tokens_diff df;
	struct dside *s[2] = { &df.a, &df.b };
	int i;

	memset(&df, 0, sizeof df);
	tk->diff = &df;

	for (i = 0; i < 2; i++) {
		s[i]->path[0] = paths[i];
		if (cli_input_init(&s[i]->in, s[i]->path, 1) ||
		    !cli_input_next_file(&s[i]->in)) {
			tk->diff = NULL;
			return CLI_IO;
		}
		s[i]->name = s[i]->in.name;
	}
	if (tk->opt.to == F_HTML && !tk->opt.quiet) {
		hm_diff_page_begin(&tk->out, tk->diff->a.name, tk->diff->b.name, tk->opt.key,
		    tk->opt.prefix ? HM_DIFF_PREFIX : 0);
		cli_write_buf(&tk->out, 1);
	}
	if (tk->opt.key)
		diff_by_key(tk);
	else
		diff_by_order(tk);
	if (tk->opt.to == F_HTML && !tk->opt.quiet)
		page_end(tk);
	else if (tk->opt.prefix)
		prefix_summary(tk);
	cli_write_buf(&tk->out, 0);
	for (i = 0; i < 2; i++) {
		if (s[i]->in.failed)
			tk->status = CLI_IO;
		cli_input_close(&s[i]->in);
		free(s[i]->line);
	}
	if (df.differ && tk->status == CLI_OK)
		tk->status = CLI_BAD;
	tk->diff = NULL;
	/* the reader record_dup_warn keeps (decode_free lets it go for the others) */
	hm_record_free(tk->rec);
	tk->rec = NULL;
	return tk->status;
}
