/*
 * writers_tokens.c - HM_WRITER_TOKENS: each message of the messages shape
 * with the ids it was written as ("tokens"), so that a completion read
 * back into the next prompt is exactly the tokens the model generated
 * (hm_conversation_message_ids renders them).
 *
 * The caller hands the writer the record's input as it feeds the parser
 * (hm_writer_record_ids, or hm_writer_record_text: then the text is encoded,
 * special tokens included).  Messages cut the input in turn: a message's
 * tokens run from where the one before it ended to its own stop token,
 * that included, so text the parser recovered between messages (F9, F17)
 * stays with the message after it.  Only input not yet given to a message
 * is kept.  The input is the current record's from the end of the last
 * one (DONE, or hm_writer_abort), whether hm_writer_begin came first or not.
 */
#include <stdlib.h>
#include <string.h>

#include "harmony.h"
#include "ids_pack_int.h"
#include "writers_int.h"

static hm_status
input(hm_writer *w, const void *p, size_t n, int text)
{
	if (!HM__W_KEEPS_IDS(w) && !(w->def->flags & HM_WS_INPUT))
		return HM_OK;
	w->t_text = text;
	hm__add(&w->nomem, &w->t_in, p, n);
	return hm__w_status(w);
}

hm_status
hm_writer_record_ids(hm_writer *w, const uint32_t *ids, size_t n)
{
	return input(w, ids, n * sizeof *ids, 0);
}

hm_status
hm_writer_record_text(hm_writer *w, const char *s, size_t n)
{
	return input(w, s, n, 1);
}

/* Units (ids or bytes) of input held. */
static uint64_t
held(const hm_writer *w)
{
	return w->t_text ? w->t_in.len : w->t_in.len / sizeof(uint32_t);
}

/* Whether a stop token's id or text is at position at of the input. */
static uint64_t
stop_len(const hm_writer *w, uint64_t at)
{
	static const char *const stops[] = { "<|end|>", "<|return|>", "<|call|>" };
	uint64_t i = at - w->t_base;
	size_t k, m;

	if (at < w->t_base || i >= held(w))
		return 0;
	if (!w->t_text) {
		uint32_t id;

		memcpy(&id, w->t_in.p + i * sizeof id, sizeof id);
		return id == HM_TOK_END || id == HM_TOK_RETURN || id == HM_TOK_CALL;
	}
	for (k = 0; k < 3; k++) {
		m = strlen(stops[k]);
		if (w->t_in.len - i >= m && !memcmp(w->t_in.p + i, stops[k], m))
			return m;
	}
	return 0;
}

void
hm__w_tokens_end(hm_writer *w, const hm_event *ev)
{
	uint64_t to = ev->at;

	if (ev->stop == HM_STOP_END || ev->stop == HM_STOP_RETURN || ev->stop == HM_STOP_CALL)
		to += stop_len(w, ev->at);
	if (to < w->t_from)
		to = w->t_from;
	if (to > w->t_base + held(w))
		to = w->t_base + held(w);
	w->t_msg0 = w->t_from;
	w->t_msg1 = to;
	w->t_from = to;
}

/*
 * The ids of input positions [from, to): *v, *n (text is encoded as the
 * model's ids would most likely have been, special-token text as its ids,
 * into w->t_ids; ids are copied there too, so that v is aligned).
 */
static void
span_ids(hm_writer *w, uint64_t from, uint64_t to, const uint32_t **v, size_t *n)
{
	const char *s = w->t_in.p + (w->t_text ? from - w->t_base :
	    (from - w->t_base) * sizeof(uint32_t));
	size_t k = (size_t)(to - from);

	w->t_ids.len = 0;
	*v = NULL;
	*n = 0;
	if (w->t_text) {
		if (!w->t_enc && !(w->t_enc = hm_encoder_new())) {
			w->nomem = 1;
			return;
		}
		if (k && hm_encode(w->t_enc, s, k, HM_ENC_SPECIAL | HM_ENC_LOSSY, &w->t_ids,
		    NULL) == HM_ENOMEM)
			w->nomem = 1;
	} else if (k) {
		size_t i;
		uint32_t id;

		for (i = 0; i < k; i++) {
			memcpy(&id, s + i * sizeof id, sizeof id);
			if (hm_ids_push(&w->t_ids, id) != HM_OK) {
				w->nomem = 1;
				return;
			}
		}
	}
	*v = w->t_ids.v;
	*n = w->t_ids.len;
}

void
hm__w_tokens_member(hm_writer *w)
{
	hm_buf *b = &w->out;
	const uint32_t *v;
	size_t n, i;

	hm__adds(&w->nomem, b, ",\"tokens\":[");
	span_ids(w, w->t_msg0, w->t_msg1, &v, &n);
	for (i = 0; i < n; i++) {
		if (i)
			hm__putc(&w->nomem, b, ',');
		hm__addu(&w->nomem, b, v[i]);
	}
	hm__putc(&w->nomem, b, ']');
}

/*
 * The turn: the record's ids from its start to the end of its last
 * message, packed (ids_pack_int.h), as a JSON string.  The API shapes
 * (HM_WS_TURN) keep their input to the record's end for it.
 */
void
hm__w_tokens_turn(hm_writer *w, hm_buf *b)
{
	const uint32_t *v;
	size_t n;

	span_ids(w, w->t_base, w->t_from, &v, &n);
	hm__putc(&w->nomem, b, '"');
	hm__ids_pack(&w->nomem, b, v, n);
	hm__putc(&w->nomem, b, '"');
}

int
hm__w_prompt_member(hm_writer *w, const char *k, size_t kn, const char *v, size_t vn)
{
	static const struct hm_wkey keys[] = {
		HM__W_KEY("prompt_token_ids"), HM__W_KEY("prompt_ids"), HM__W_KEY("input_ids"),
	};
	size_t i, j;

	for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (kn == keys[i].n && !memcmp(k, keys[i].s, kn))
			break;
	if (i == sizeof keys / sizeof keys[0] || vn < 2 || v[0] != '[')
		return 0;
	if (w->prompt_ok)
		return 1; /* the first one is the prompt */
	w->prompt.len = 0;
	/* the carried form is compact: digits and commas */
	for (j = 1; j + 1 < vn;) {
		uint64_t id = 0;
		size_t d = 0;

		while (j + 1 < vn && v[j] >= '0' && v[j] <= '9' && d < 10)
			id = id * 10 + (uint64_t)(v[j++] - '0'), d++;
		if (!d || id >= HM_N_TOKENS || (j + 1 < vn && v[j] != ',')) {
			w->prompt.len = 0;
			return 0; /* not a list of ids: carried as it is */
		}
		if (hm_ids_push(&w->prompt, (uint32_t)id) != HM_OK) {
			w->nomem = 1;
			return 1;
		}
		j += j + 1 < vn;
	}
	w->prompt_ok = 1;
	return 1;
}

void
hm__w_tokens_store(hm_writer *w)
{
	/* by the row's name: the rows' files call this one, not the other way */
	int anth = !strncmp(w->def->name, "anthropic", 9);
	const char *prefix = anth ? "msg_" : !strncmp(w->def->name, "responses", 9) ? "resp_" :
	    "chatcmpl-";
	hm_buf id = { 0 }, calls = { 0 };
	hm_turn t = { 0 };
	const uint32_t *v;
	size_t i, n;

	/* the object's id as the shape writes it: "id":VALUE */
	hm__w_object_id(w, &id, prefix);
	t.id = id.p ? id.p + 5 : "";
	t.id_len = id.len > 5 ? id.len - 5 : 0;
	if (t.id_len >= 2 && t.id[0] == '"') {
		t.id++;
		t.id_len -= 2;
	}
	for (i = 0; i < w->nit; i++)
		if (hm_w_is_call(w->it[i].cls) && w->it[i].call >= 0) {
			hm__w_id(w, &calls, anth ? "toolu_" : "call_", (uint64_t)w->it[i].call);
			hm__putc(&w->nomem, &calls, '\0');
			t.ncalls++;
		}
	t.call_ids = calls.p ? calls.p : "";
	span_ids(w, w->t_base, w->t_from, &v, &n);
	t.ids = v;
	t.nids = n;
	if (w->prompt_ok) {
		t.prompt = w->prompt.v ? w->prompt.v : v;
		t.nprompt = w->prompt.len;
	}
	if (!w->nomem)
		w->turn_fn(w->turn_ctx, &t);
	hm_buf_free(&id);
	hm_buf_free(&calls);
}

/* What the messages so far took is no longer needed. */
void
hm__w_tokens_drop(hm_writer *w)
{
	size_t k = (size_t)(w->t_from - w->t_base);

	if (!k)
		return;
	if (!w->t_text)
		k *= sizeof(uint32_t);
	if (k > w->t_in.len)
		k = w->t_in.len;
	memmove(w->t_in.p, w->t_in.p + k, w->t_in.len - k);
	w->t_in.len -= k;
	w->t_base = w->t_from;
}

void
hm__w_tokens_reset(hm_writer *w)
{
	hm_buf_reset(&w->t_in);
	w->t_base = w->t_from = w->t_msg0 = w->t_msg1 = 0;
}

void
hm__w_tokens_free(hm_writer *w)
{
	hm_buf_free(&w->t_in);
	hm_encoder_free(w->t_enc);
	free(w->t_ids.v);
}
