/*
 * conversation_ids.c - the ids a message was written as.
 *
 * A completion's messages, read back into the next prompt's history,
 * must be the very tokens the model generated (a writer with
 * HM_WRITER_TOKENS writes them as a message's "tokens"), or a server's
 * prefix cache misses and the model reads a history it never wrote: the
 * reference re-renders a tool call recipient first where models write the
 * channel first, and the encoder may cut text otherwise than the model
 * sampled it.  The ids live beside the messages, one slot a message
 * (hm_message's layout is part of the ABI), and the renderer puts them in
 * place of the message it would render.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversation_int.h"

struct hm_mids {
	uint32_t *v;
	size_t n;
	int set; /* the message has ids (an empty list is some) */
};

struct hm_conv_ids {
	size_t cap;         /* slots allocated */
	struct hm_mids *at; /* one a message, by index */
	int cont;           /* the request continues its last message */
};

int
hm_conversation_continues(const hm_conversation *c)
{
	return c && c->ids && c->ids->cont;
}

hm_status
hm_conversation_set_continues(hm_conversation *c, int on)
{
	if (!c->ids && !on)
		return HM_OK;
	if (!c->ids && !(c->ids = calloc(1, sizeof *c->ids)))
		return HM_ENOMEM;
	c->ids->cont = on != 0;
	return HM_OK;
}

/* Slot i, made when missing; NULL when out of memory. */
static struct hm_mids *
slot(hm_conversation *c, size_t i)
{
	struct hm_conv_ids *t = c->ids;

	if (!t) {
		if (!(t = calloc(1, sizeof *t)))
			return NULL;
		c->ids = t;
	}
	if (i >= t->cap) {
		size_t cap = t->cap ? t->cap : 8;
		struct hm_mids *p;

		while (cap <= i)
			cap *= 2;
		if (!(p = realloc(t->at, cap * sizeof *p)))
			return NULL;
		memset(p + t->cap, 0, (cap - t->cap) * sizeof *p);
		t->at = p;
		t->cap = cap;
	}
	return &t->at[i];
}

hm_status
hm_conversation_set_message_ids(hm_conversation *c, size_t i, const uint32_t *ids, size_t n)
{
	struct hm_mids *m;
	uint32_t *v = NULL;

	if (i >= c->n)
		return HM_EINPUT;
	if (!(m = slot(c, i)))
		return HM_ENOMEM;
	if (n && !(v = malloc(n * sizeof *v)))
		return HM_ENOMEM;
	if (n)
		memcpy(v, ids, n * sizeof *v);
	free(m->v);
	m->v = v;
	m->n = n;
	m->set = 1;
	return HM_OK;
}

const uint32_t *
hm_conversation_message_ids(const hm_conversation *c, size_t i, size_t *n)
{
	static const uint32_t none[1] = { 0 };
	const struct hm_conv_ids *t = c->ids;

	*n = 0;
	if (!t || i >= c->n || i >= t->cap || !t->at[i].set)
		return NULL;
	*n = t->at[i].n;
	return t->at[i].v ? t->at[i].v : none;
}

void
hm__conv_ids_free(hm_conversation *c)
{
	size_t i;

	if (!c->ids)
		return;
	for (i = 0; i < c->ids->cap; i++)
		free(c->ids->at[i].v);
	free(c->ids->at);
	free(c->ids);
	c->ids = NULL;
}

void
hm__conv_ids_clear(hm_conversation *c, size_t i)
{
	if (c->ids && i < c->ids->cap) {
		free(c->ids->at[i].v);
		memset(&c->ids->at[i], 0, sizeof c->ids->at[i]);
	}
}

hm_status
hm__conv_ids_insert(hm_conversation *c, size_t at)
{
	struct hm_conv_ids *t = c->ids;
	size_t last;

	if (!t)
		return HM_OK;
	/* the slots after at move up one; the last message's slot must exist */
	last = c->n - 1;
	if (!slot(c, last))
		return HM_ENOMEM;
	t = c->ids;
	if (last > at) {
		free(t->at[last].v);
		memmove(t->at + at + 1, t->at + at, (last - at) * sizeof *t->at);
	}
	memset(&t->at[at], 0, sizeof t->at[at]);
	return HM_OK;
}

void
hm__conv_ids_remove(hm_conversation *c, size_t at)
{
	struct hm_conv_ids *t = c->ids;

	if (!t || at >= t->cap)
		return;
	/* the slots after at move down one; the last one is left empty */
	free(t->at[at].v);
	memmove(t->at + at, t->at + at + 1, (t->cap - at - 1) * sizeof *t->at);
	memset(&t->at[t->cap - 1], 0, sizeof t->at[0]);
}

hm_status
hm__conv_ids_from_jv(hm_conversation *c, size_t i, const hm_jv *msg, hm_error *err)
{
	const hm_jv *t = hm__jv_get(msg, "tokens");
	uint32_t *v;
	size_t k;
	hm_status st;

	if (!t || t->type == HM_JV_NULL)
		return HM_OK;
	if (t->type != HM_JV_ARRAY) {
		if (err)
			snprintf(err->msg, sizeof err->msg, "tokens: expected a list of token ids");
		return HM_EINPUT;
	}
	if (!(v = malloc((t->n ? t->n : 1) * sizeof *v)))
		return HM_ENOMEM;
	for (k = 0; k < t->n; k++) {
		const hm_jv *e = t->v[k];

		if (e->type != HM_JV_NUMBER || !(e->num >= 0) || e->num >= HM_N_TOKENS ||
		    e->num != (double)(uint32_t)e->num) {
			free(v);
			if (err)
				snprintf(err->msg, sizeof err->msg, "tokens[%zu]: not a token id (0 to %u)",
				    k, HM_N_TOKENS - 1);
			return HM_EINPUT;
		}
		v[k] = (uint32_t)e->num;
	}
	st = hm_conversation_set_message_ids(c, i, v, t->n);
	free(v);
	return st;
}
