/*
 * parse_recover.c - the recovery buffers (struct p_recover, which it
 * owns): text after <|return|> or <|call|> (F9), and the units after a
 * <|start|> or <|channel|> inside content (F17), held until what follows
 * tells what they were.  The machine (parse_step.c) decides and replays;
 * this file keeps and hands over.
 */
#include <stdlib.h>
#include <string.h>

#include "parser_int.h"

/* ---------------------------------------------------------------- F9: text after a stop */

/* Text after a stop begins at `at` with s[0..n) (s NULL: an unknown id). */
void
hm__p_junk_open(hm_parser *p, uint64_t at, const char *s, size_t n)
{
	p->r.junk_on = 1;
	p->r.junk_at = at;
	hm_buf_reset(&p->r.junk);
	hm__p_junk_add(p, s, n);
}

/* More text after a stop (s NULL: an unknown id). */
void
hm__p_junk_add(hm_parser *p, const char *s, size_t n)
{
	if (s)
		hm__add(&p->nomem, &p->r.junk, s, n);
	else
		hm__add(&p->nomem, &p->r.junk, "\xEF\xBF\xBD", 3);
	p->r.junk_end = p->in.text_mode ? p->st.unit_end : p->st.pos + 1;
}

/* The text after a stop is a role word alone (`assistant`): its index, or -1. */
int
hm__p_junk_role(hm_parser *p)
{
	size_t a = 0, b = p->r.junk.len;

	while (a < b && hm__p_is_aws((unsigned char)p->r.junk.p[a]))
		a++;
	while (b > a && hm__p_is_aws((unsigned char)p->r.junk.p[b - 1]))
		b--;
	return hm__role_index(p->r.junk.p + a, b - a);
}

/* The text after a stop is header words (`to=functions.f`), not prose. */
int
hm__p_junk_header(hm_parser *p)
{
	size_t i;

	for (i = 0; i < p->r.junk.len && hm__p_is_aws((unsigned char)p->r.junk.p[i]); i++)
		;
	if (i == p->r.junk.len || p->r.junk.len - i < 3 || memcmp(p->r.junk.p + i, "to=", 3))
		return 0;
	return hm__p_is_prose(p, p->r.junk.p, p->r.junk.len) == 0;
}

/* The text after a stop is done with: kept, or skipped. */
void
hm__p_junk_close(hm_parser *p)
{
	p->r.junk_on = 0;
	hm_buf_reset(&p->r.junk);
}

/* The text after a stop, handed over (the caller frees it): it was a header. */
hm_buf
hm__p_junk_take(hm_parser *p)
{
	hm_buf b = p->r.junk;

	memset(&p->r.junk, 0, sizeof p->r.junk);
	p->r.junk_on = 0;
	return b;
}

/* ---------------------------------------------------------------- F17: units held in content */

/* Hold units from the current one on (hm__p_peek_add adds each). */
void
hm__p_peek_open(hm_parser *p)
{
	p->r.npk = 0;
	hm_buf_reset(&p->r.pkb);
}

/* One more unit held: the current one (s NULL: an unknown id). */
void
hm__p_peek_add(hm_parser *p, uint32_t id, int special, const char *s, size_t n)
{
	struct punit *u;

	if (p->r.npk == p->r.cappk) {
		size_t c = p->r.cappk ? p->r.cappk * 2 : 8;

		if (!(u = hm__p_realloc(p, p->r.pk, c * sizeof *u)))
			return;
		p->r.pk = u;
		p->r.cappk = c;
	}
	u = &p->r.pk[p->r.npk++];
	u->id = id;
	u->special = special;
	u->known = s != NULL;
	u->off = p->r.pkb.len;
	u->len = s ? n : 0;
	u->pos = p->st.pos;
	u->end = p->st.unit_end;
	if (s)
		hm__add(&p->nomem, &p->r.pkb, s, n);
}

/*
 * The units held, handed over to be stepped again (the caller frees *v
 * and *b); none are held after.
 */
void
hm__p_peek_take(hm_parser *p, struct punit **v, size_t *n, hm_buf *b)
{
	*v = p->r.pk;
	*n = p->r.npk;
	*b = p->r.pkb;
	p->r.pk = NULL;
	p->r.npk = p->r.cappk = 0;
	memset(&p->r.pkb, 0, sizeof p->r.pkb);
}

/* A new stream: nothing held. */
void
hm__p_recover_reset(hm_parser *p)
{
	hm__buf_clear(&p->r.junk);
	p->r.junk_at = p->r.junk_end = 0;
	p->r.junk_on = 0;
	p->r.npk = 0;
	hm__buf_clear(&p->r.pkb);
}

void
hm__p_recover_free(hm_parser *p)
{
	hm_buf_free(&p->r.junk);
	free(p->r.pk);
	hm_buf_free(&p->r.pkb);
}
