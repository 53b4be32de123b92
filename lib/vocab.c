/* vocab.c - token id <-> bytes lookups over the compiled-in vocabulary. */
#include <stdlib.h>
#include <string.h>

#include "harmony.h"
#include "vocab_int.h"

const char *
hm_token_bytes(uint32_t id, size_t *len)
{
	if (id < HM_N_ORDINARY) {
		*len = hm__vocab_off[id + 1] - hm__vocab_off[id];
		return (const char *)hm__vocab_bytes + hm__vocab_off[id];
	}
	if (id < HM_N_TOKENS) {
		id -= HM_N_ORDINARY;
		*len = hm__special_off[id + 1] - hm__special_off[id];
		return hm__special_text + hm__special_off[id];
	}
	*len = 0;
	return NULL;
}

int
hm_is_special(uint32_t id)
{
	return id >= HM_N_ORDINARY && id < HM_N_TOKENS;
}

int
hm_is_valid(uint32_t id)
{
	return id < HM_N_TOKENS;
}

int32_t
hm_vocab_rank(const char *buf, size_t len)
{
	return hm__vocab_find((const unsigned char *)buf, len);
}

/*
 * Special texts are `<|name|>`; the named ones are few, the rest are
 * `<|reserved_N|>` with N the id itself, so the lookup parses rather than
 * searches.
 */
int
hm_special_lookup(const char *buf, size_t len, uint32_t *id)
{
	static const struct { const char *name; uint32_t id; } named[] = {
		{ "startoftext", 199998 }, { "endoftext", 199999 },
		{ "return", 200002 }, { "constrain", 200003 },
		{ "channel", 200005 }, { "start", 200006 }, { "end", 200007 },
		{ "message", 200008 }, { "call", 200012 },
	};
	const char *name;
	size_t n, i;

	if (len < 5 || buf[0] != '<' || buf[1] != '|' || buf[len - 2] != '|' || buf[len - 1] != '>')
		return 0;
	name = buf + 2;
	n = len - 4;
	if (n > 9 && memcmp(name, "reserved_", 9) == 0) {
		uint32_t v = 0;
		size_t tb;

		if (n != 15 || name[9] == '0')
			return 0;
		for (i = 9; i < n; i++) {
			if (name[i] < '0' || name[i] > '9')
				return 0;
			v = v * 10 + (uint32_t)(name[i] - '0');
		}
		if (!hm_is_special(v))
			return 0;
		/* the id must be one whose text is the reserved form */
		hm_token_bytes(v, &tb);
		if (tb != len)
			return 0;
		if (memcmp(hm_token_bytes(v, &tb), buf, len) != 0)
			return 0;
		*id = v;
		return 1;
	}
	for (i = 0; i < sizeof named / sizeof named[0]; i++) {
		if (strlen(named[i].name) == n && memcmp(named[i].name, name, n) == 0) {
			*id = named[i].id;
			return 1;
		}
	}
	return 0;
}

static const uint32_t stops[] = { HM_TOK_RETURN, HM_TOK_END, HM_TOK_CALL };
static const uint32_t stops_actions[] = { HM_TOK_RETURN, HM_TOK_CALL };

size_t
hm_stop_tokens(const uint32_t **ids)
{
	*ids = stops;
	return sizeof stops / sizeof stops[0];
}

size_t
hm_stop_tokens_for_actions(const uint32_t **ids)
{
	*ids = stops_actions;
	return sizeof stops_actions / sizeof stops_actions[0];
}

hm_status
hm_ids_append(hm_ids *ids, const uint32_t *v, size_t n)
{
	if (ids->len + n > ids->cap) {
		size_t cap = ids->cap ? ids->cap : 64;
		uint32_t *p;

		while (cap < ids->len + n) {
			if (cap > SIZE_MAX / 2 / sizeof *p)
				return HM_ENOMEM;
			cap *= 2;
		}
		if (!(p = realloc(ids->v, cap * sizeof *p)))
			return HM_ENOMEM;
		ids->v = p;
		ids->cap = cap;
	}
	if (n)
		memcpy(ids->v + ids->len, v, n * sizeof *v);
	ids->len += n;
	return HM_OK;
}

hm_status
hm_ids_push(hm_ids *ids, uint32_t id)
{
	if (ids->len < ids->cap) {
		ids->v[ids->len++] = id;
		return HM_OK;
	}
	return hm_ids_append(ids, &id, 1);
}

void
hm_ids_free(hm_ids *ids)
{
	free(ids->v);
	ids->v = NULL;
	ids->len = ids->cap = 0;
}
