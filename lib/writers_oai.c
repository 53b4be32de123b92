/*
 * writers_oai.c - Chat Completions and Responses output, whole or as
 * Server-Sent Events, following output-shapes.md (the field names the
 * openai clients read).
 */
#include <string.h>

#include "harmony.h"
#include "json_val_int.h"
#include "writers_int.h"

/* The state of the five shapes: one record's. */
struct oai {
	int nout, ncalls;         /* output items (Responses), tool calls so far */
	int seq;                  /* responses-stream: the next sequence_number */
	int began;                /* streams: the opening events are written */
	int text_any, reason_any; /* chat-stream: some content, reasoning sent */
	uint64_t reason;          /* chat-stream: reasoning tokens so far */
	int carrier;              /* responses, HM_WRITER_TOKENS: the output index of the
	                           * reasoning item with the turn's ids (encrypted_content) */
};

static struct oai *
oai(const hm_writer *w)
{
	return w->st;
}

/* ---------------------------------------------------------------- chat */

/*
 * A chunk up to its choices: id, created and model (the record's own, else
 * ours), and the record's service_tier and system_fingerprint when it has
 * them, as the API's chunks carry them.
 */
static void
chunk_head(hm_writer *w)
{
	hm_buf *b = &w->chead;

	/* the same for every chunk of a record: made once, then copied */
	if (w->chead_ok) {
		hm__add(&w->nomem, &w->out, b->p, b->len);
		return;
	}
	hm_buf_reset(b);
	hm__adds(&w->nomem, b, "data: {");
	hm__w_object_id(w, b, "chatcmpl-");
	hm__adds(&w->nomem, b, ",\"object\":\"chat.completion.chunk\",\"created\":");
	hm__addu(&w->nomem, b, (unsigned long long)hm__w_own_created(w, 0));
	hm__putc(&w->nomem, b, ',');
	hm__w_model(w, b);
	if (w->own.len[OWN_TIER]) {
		hm__adds(&w->nomem, b, ",\"service_tier\":");
		hm__w_own_text(w, b, OWN_TIER);
	}
	if (w->own.len[OWN_FINGERPRINT]) {
		hm__adds(&w->nomem, b, ",\"system_fingerprint\":");
		hm__w_own_text(w, b, OWN_FINGERPRINT);
	}
	if (!w->nomem) /* a failed append leaves a head to make again */
		w->chead_ok = 1;
	hm__add(&w->nomem, &w->out, b->p, b->len);
}

static void
chunk_open(hm_writer *w)
{
	chunk_head(w);
	HM__W_LIT(&w->nomem, &w->out, ",\"choices\":[{\"index\":0,\"delta\":{");
}

static void
chunk_close(hm_writer *w, const char *finish)
{
	hm_buf *b = &w->out;

	HM__W_LIT(&w->nomem, b, "},\"logprobs\":null,\"finish_reason\":");
	if (finish)
		hm__w_strz(&w->nomem, b, finish);
	else
		HM__W_LIT(&w->nomem, b, "null");
	HM__W_LIT(&w->nomem, b, "}]}\n\n");
}

static void
call_id(hm_writer *w, hm_buf *b, const struct hm_witem *it)
{
	hm__putc(&w->nomem, b, '"');
	hm__w_id(w, b, "call_", (uint64_t)it->call);
	hm__putc(&w->nomem, b, '"');
}

/*
 * A whole call (<|call|>, or arguments that are one JSON value) ends the
 * completion as tool_calls whatever follows; otherwise a stream cut off is
 * "length", even inside a call.
 */
static const char *
finish_reason(const hm_writer *w)
{
	if (w->whole_call)
		return "tool_calls";
	if (w->truncated)
		return "length";
	return oai(w)->ncalls ? "tool_calls" : "stop";
}

/*
 * The choice: the openai SDK's ChatCompletion.Choice has no room for
 * carried record fields, so they are not written here (the whole
 * chat.completion object carries them).
 */
static void
choice(hm_writer *w, hm_buf *b)
{
	size_t i;
	int n;

	hm__adds(&w->nomem, b, "{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":");
	/* Empty messages are left out, as the stream sends no delta for them. */
	for (i = 0, n = 0; i < w->nit; i++) {
		if (w->it[i].cls != CLS_TEXT || !w->it[i].text.len)
			continue;
		if (!n++)
			hm__putc(&w->nomem, b, '"');
		else
			hm__add(&w->nomem, b, "\\n", 2);
		hm__w_msgtext_body(w, b, w->it[i].text.p, w->it[i].text.len);
	}
	hm__adds(&w->nomem, b, n ? "\"" : "null");
	hm__adds(&w->nomem, b, w->flags & HM_WRITER_REASONING ? ",\"refusal\":null,\"reasoning\":" :
	    ",\"refusal\":null,\"reasoning_content\":");
	for (i = 0, n = 0; i < w->nit; i++) {
		if (!hm_w_is_thinking(w->it[i].cls) || !w->it[i].text.len)
			continue;
		if (!n++)
			hm__putc(&w->nomem, b, '"');
		else
			hm__add(&w->nomem, b, "\\n", 2);
		hm__w_msgtext_body(w, b, w->it[i].text.p, w->it[i].text.len);
	}
	hm__adds(&w->nomem, b, n ? "\"" : "null");
	for (i = 0, n = 0; i < w->nit; i++) {
		const struct hm_witem *it = &w->it[i];

		if (!hm_w_is_call(it->cls))
			continue;
		hm__adds(&w->nomem, b, n++ ? "," : ",\"tool_calls\":[");
		hm__adds(&w->nomem, b, "{\"id\":");
		call_id(w, b, it);
		hm__adds(&w->nomem, b, ",\"type\":\"function\",\"function\":{\"name\":");
		hm__w_fname(&w->nomem, b, it);
		hm__adds(&w->nomem, b, ",\"arguments\":");
		hm__w_msgtext(w, b, it->text.p, it->text.len);
		hm__adds(&w->nomem, b, "}}");
	}
	if (n)
		hm__putc(&w->nomem, b, ']');
	/* The turn's ids, where the openai SDKs send the message back as it came. */
	if (w->flags & HM_WRITER_TOKENS) {
		hm__adds(&w->nomem, b, ",\"harmony_tokens\":");
		hm__w_tokens_turn(w, b);
	}
	hm__adds(&w->nomem, b, "},\"logprobs\":null,\"finish_reason\":");
	hm__w_strz(&w->nomem, b, finish_reason(w));
	hm__putc(&w->nomem, b, '}');
}

/*
 * Chat usage: the record's prompt (and cached) tokens, else 0; completion
 * tokens as counted (for text input, the tokens the text encodes to), the
 * reasoning ones beside them (ids only); the record's own completion
 * count, where it differs, kept as record_completion_tokens.
 */
static void
chat_usage(hm_writer *w, hm_buf *b)
{
	int tok = !(w->flags & HM_WRITER_TEXT_INPUT);
	uint64_t out = tok ? w->ntok : w->text_tokens;
	int64_t in = hm__w_own_input(w), own = hm__w_own_output(w);
	uint64_t prompt = in > 0 ? (uint64_t)in : 0;

	hm__adds(&w->nomem, b, "{\"prompt_tokens\":");
	hm__addu(&w->nomem, b, prompt);
	hm__adds(&w->nomem, b, ",\"completion_tokens\":");
	hm__addu(&w->nomem, b, out);
	hm__adds(&w->nomem, b, ",\"total_tokens\":");
	hm__addu(&w->nomem, b, prompt + out);
	if (tok) {
		hm__adds(&w->nomem, b, ",\"completion_tokens_details\":{\"reasoning_tokens\":");
		/* the stream keeps no messages: it counted them as they ended */
		hm__addu(&w->nomem, b, w->def == &hm__w_chat_stream ? oai(w)->reason :
		    hm__w_reasoning_tokens(w));
		hm__putc(&w->nomem, b, '}');
	}
	if (hm_w_own(w, OWN_CACHED) >= 0) {
		hm__adds(&w->nomem, b, ",\"prompt_tokens_details\":{\"cached_tokens\":");
		hm__addu(&w->nomem, b, (uint64_t)hm_w_own(w, OWN_CACHED));
		hm__putc(&w->nomem, b, '}');
	}
	if (own >= 0 && (uint64_t)own != out) {
		hm__adds(&w->nomem, b, ",\"record_completion_tokens\":");
		hm__addu(&w->nomem, b, (uint64_t)own);
	}
	hm__putc(&w->nomem, b, '}');
}

/*
 * A whole chat.completion: the carried fields first (as a Response has
 * them: the record's service_tier, system_fingerprint among them), its id
 * the carried one or chatcmpl-N as in the chunks, created and model the
 * record's own, the choice, and usage.
 */
static void
chat_completion(hm_writer *w, hm_buf *b)
{
	hm__putc(&w->nomem, b, '{');
	if (w->fields.len) {
		hm__add(&w->nomem, b, w->fields.p, w->fields.len);
		hm__putc(&w->nomem, b, ',');
	}
	if (!w->carried_id) {
		hm__w_object_id(w, b, "chatcmpl-");
		hm__putc(&w->nomem, b, ',');
	}
	hm__adds(&w->nomem, b, "\"object\":\"chat.completion\",\"created\":");
	hm__addu(&w->nomem, b, (unsigned long long)hm__w_own_created(w, 0));
	hm__putc(&w->nomem, b, ',');
	hm__w_model(w, b);
	hm__adds(&w->nomem, b, ",\"choices\":[");
	choice(w, b);
	hm__adds(&w->nomem, b, "],\"usage\":");
	chat_usage(w, b);
	hm__putc(&w->nomem, b, '}');
}

/* ---------------------------------------------------------------- responses */

static const char *
item_prefix(int cls)
{
	switch (cls) {
	case CLS_FUNC: return "fc_";
	case CLS_WEB: return "ws_";
	case CLS_MCP: return "mcp_";
	case CLS_TEXT: return "msg_";
	default: return "rs_";
	}
}

static void
item_id(hm_writer *w, hm_buf *b, const struct hm_witem *it)
{
	hm__putc(&w->nomem, b, '"');
	hm__w_id(w, b, item_prefix(it->cls), (uint64_t)it->out);
	hm__putc(&w->nomem, b, '"');
}

/*
 * The first member named key of the object j, when it is a string (its
 * length in *n), or NULL.
 */
static const char *
json_string(const hm_jv *j, const char *key, size_t *n)
{
	size_t i;

	for (i = 0; hm__jv_is(j, HM_JV_OBJECT) && i < j->n; i++)
		if (strlen(key) == j->klen[i] && !strcmp(j->k[i], key)) {
			if (!hm__jv_is(j->v[i], HM_JV_STRING))
				return NULL;
			*n = j->v[i]->len;
			return j->v[i]->s;
		}
	return NULL;
}

/*
 * The web_search_call action, from the call's JSON arguments.  The SDK
 * types make find's pattern and url strings: "" when not known (browser.find
 * works on the page last opened, whose url the arguments do not name).
 */
static void
web_action(int *nomem, hm_buf *b, const struct hm_witem *it)
{
	/*
	 * The arguments are the model's text: read as JSON (numbers as
	 * text, so 1e400 is no error), whatever follows the value ignored.
	 */
	char err[8] = "";
	hm_jv *j = NULL;
	const char *what = it->rcpt.p + 8, *s;
	size_t n;

	/* out of memory is the writer's; text that is no JSON is no value */
	if (it->ended && hm__jv_read(it->text.p ? it->text.p : "", it->text.len, NULL, 0,
	    HM_JV_NUMTEXT, &j, err, sizeof err, NULL) == HM_ENOMEM)
		*nomem = 1;

	hm__adds(nomem, b, "{\"type\":");
	if (!strcmp(what, "search")) {
		hm__adds(nomem, b, "\"search\"");
		if ((s = json_string(j, "query", &n))) {
			hm__adds(nomem, b, ",\"query\":");
			hm__json_str(nomem, b, s, n);
		}
	} else if (!strcmp(what, "open")) {
		hm__adds(nomem, b, "\"open_page\",\"url\":");
		if ((s = json_string(j, "id", &n)) || (s = json_string(j, "url", &n)))
			hm__json_str(nomem, b, s, n);
		else
			hm__adds(nomem, b, "null");
	} else {
		hm__adds(nomem, b, "\"find_in_page\",\"pattern\":");
		if (!(s = json_string(j, "pattern", &n)))
			s = "", n = 0;
		hm__json_str(nomem, b, s, n);
		hm__adds(nomem, b, ",\"url\":");
		if (!(s = json_string(j, "url", &n)))
			s = "", n = 0;
		hm__json_str(nomem, b, s, n);
	}
	hm__putc(nomem, b, '}');
	hm__jv_free(j);
}

static const char *
item_status(const struct hm_witem *it)
{
	if (it->ended && it->stop != HM_STOP_EOS)
		return "completed";
	if (!it->ended)
		return "in_progress";
	return it->cls == CLS_FUNC || it->cls == CLS_MCP || it->cls == CLS_WEB ?
	    "in_progress" : "incomplete";
}

/* One output item; full: with its text (else as first announced). */
static void
write_item(hm_writer *w, hm_buf *b, const struct hm_witem *it, int full)
{
	const char *txt = full ? it->text.p : "";
	size_t n = full ? it->text.len : 0;

	switch (it->cls) {
	case CLS_FUNC:
		hm__adds(&w->nomem, b, "{\"type\":\"function_call\",\"id\":");
		item_id(w, b, it);
		hm__adds(&w->nomem, b, ",\"call_id\":");
		call_id(w, b, it);
		hm__adds(&w->nomem, b, ",\"name\":");
		hm__json_str(&w->nomem, b, it->rcpt.p + it->fname_off, it->fname_len);
		hm__adds(&w->nomem, b, ",\"arguments\":");
		hm__w_msgtext(w, b, txt, n);
		hm__adds(&w->nomem, b, ",\"status\":");
		hm__w_strz(&w->nomem, b, full ? item_status(it) : "in_progress");
		hm__putc(&w->nomem, b, '}');
		return;
	case CLS_WEB:
		hm__adds(&w->nomem, b, "{\"type\":\"web_search_call\",\"id\":");
		item_id(w, b, it);
		hm__adds(&w->nomem, b, ",\"status\":");
		hm__w_strz(&w->nomem, b, full ? item_status(it) : "in_progress");
		hm__adds(&w->nomem, b, ",\"action\":");
		web_action(&w->nomem, b, it);
		hm__putc(&w->nomem, b, '}');
		return;
	case CLS_MCP:
		hm__adds(&w->nomem, b, "{\"type\":\"mcp_call\",\"id\":");
		item_id(w, b, it);
		hm__adds(&w->nomem, b, ",\"name\":");
		hm__json_str(&w->nomem, b, it->rcpt.p + it->fname_off, it->fname_len);
		hm__adds(&w->nomem, b, ",\"server_label\":");
		hm__json_str(&w->nomem, b, it->rcpt.p, it->fname_off ? it->fname_off - 1 : 0);
		hm__adds(&w->nomem, b, ",\"arguments\":");
		hm__w_msgtext(w, b, txt, n);
		hm__adds(&w->nomem, b, ",\"status\":");
		hm__w_strz(&w->nomem, b, full ? item_status(it) : "in_progress");
		hm__putc(&w->nomem, b, '}');
		return;
	case CLS_TEXT:
		hm__adds(&w->nomem, b, "{\"type\":\"message\",\"id\":");
		item_id(w, b, it);
		hm__adds(&w->nomem, b, ",\"role\":\"assistant\",\"status\":");
		hm__w_strz(&w->nomem, b, full ? item_status(it) : "in_progress");
		hm__adds(&w->nomem, b, ",\"content\":[");
		if (full) {
			hm__adds(&w->nomem, b, "{\"type\":\"output_text\",\"text\":");
			hm__w_msgtext(w, b, txt, n);
			hm__adds(&w->nomem, b, ",\"annotations\":[],\"logprobs\":[]}");
		}
		hm__adds(&w->nomem, b, "]}");
		return;
	default:
		hm__adds(&w->nomem, b, "{\"type\":\"reasoning\",\"id\":");
		item_id(w, b, it);
		hm__adds(&w->nomem, b, ",\"summary\":[],\"content\":[");
		if (full) {
			hm__adds(&w->nomem, b, "{\"type\":\"reasoning_text\",\"text\":");
			hm__w_msgtext(w, b, txt, n);
			hm__putc(&w->nomem, b, '}');
		}
		hm__putc(&w->nomem, b, ']');
		if (full && it->out == oai(w)->carrier) {
			hm__adds(&w->nomem, b, ",\"encrypted_content\":");
			hm__w_tokens_turn(w, b);
		}
		if (full && it->stop == HM_STOP_EOS)
			hm__adds(&w->nomem, b, ",\"status\":\"incomplete\"");
		hm__putc(&w->nomem, b, '}');
		return;
	}
}

/*
 * Responses usage: as Chat's (chat_usage), in the Responses names; the
 * record's own output count, where it differs, kept as
 * record_output_tokens.
 */
static void
usage(hm_writer *w, hm_buf *b)
{
	int tok = !(w->flags & HM_WRITER_TEXT_INPUT);
	uint64_t out = tok ? w->ntok : w->text_tokens;
	int64_t in = hm__w_own_input(w), own = hm__w_own_output(w);
	int64_t cw = hm_w_own(w, OWN_CACHE_WRITE), cr = hm_w_own(w, OWN_CACHED);
	uint64_t input = in > 0 ? (uint64_t)in : 0;

	hm__adds(&w->nomem, b, "{\"input_tokens\":");
	hm__addu(&w->nomem, b, input);
	hm__adds(&w->nomem, b, ",\"input_tokens_details\":{\"cache_write_tokens\":");
	hm__addu(&w->nomem, b, cw > 0 ? (uint64_t)cw : 0);
	hm__adds(&w->nomem, b, ",\"cached_tokens\":");
	hm__addu(&w->nomem, b, cr > 0 ? (uint64_t)cr : 0);
	hm__adds(&w->nomem, b, "},\"output_tokens\":");
	hm__addu(&w->nomem, b, out);
	hm__adds(&w->nomem, b, ",\"output_tokens_details\":");
	if (tok) {
		hm__adds(&w->nomem, b, "{\"reasoning_tokens\":");
		hm__addu(&w->nomem, b, hm__w_reasoning_tokens(w));
		hm__putc(&w->nomem, b, '}');
	} else
		hm__adds(&w->nomem, b, "null");
	hm__adds(&w->nomem, b, ",\"total_tokens\":");
	hm__addu(&w->nomem, b, input + out);
	if (own >= 0 && (uint64_t)own != out) {
		hm__adds(&w->nomem, b, ",\"record_output_tokens\":");
		hm__addu(&w->nomem, b, (uint64_t)own);
	}
	hm__putc(&w->nomem, b, '}');
}

/*
 * A reasoning item of no text that holds the turn's ids: where the turn
 * has no reasoning, or (a stream) where its reasoning went out before the
 * turn's ids were known.  Its output index is the one after the items.
 */
static void
carrier_item(hm_writer *w, hm_buf *b)
{
	hm__adds(&w->nomem, b, "{\"type\":\"reasoning\",\"id\":\"");
	hm__w_id(w, b, "rs_", (uint64_t)oai(w)->nout);
	hm__adds(&w->nomem, b, "\",\"summary\":[],\"encrypted_content\":");
	hm__w_tokens_turn(w, b);
	hm__putc(&w->nomem, b, '}');
}

/* The response object; final: with its output, status and usage. */
static void
response(hm_writer *w, hm_buf *b, int final)
{
	size_t i;
	int n = 0, carried_id = w->carried_id, whole = w->def == &hm__w_responses;

	hm__putc(&w->nomem, b, '{');
	if (w->fields.len && whole) {
		hm__add(&w->nomem, b, w->fields.p, w->fields.len);
		hm__putc(&w->nomem, b, ',');
	}
	/* the carried id is among the fields, or (streams) written here */
	if (!(carried_id && whole)) {
		hm__w_object_id(w, b, "resp_");
		hm__putc(&w->nomem, b, ',');
	}
	hm__adds(&w->nomem, b, "\"object\":\"response\",\"created_at\":");
	hm__addu(&w->nomem, b, (unsigned long long)hm__w_own_created(w, 1));
	hm__adds(&w->nomem, b, ",\"status\":");
	hm__w_strz(&w->nomem, b, !final ? "in_progress" : hm_w_cut(w) ? "incomplete" : "completed");
	hm__adds(&w->nomem, b, ",\"error\":null,\"incomplete_details\":");
	hm__adds(&w->nomem, b,
	    final && hm_w_cut(w) ? "{\"reason\":\"max_output_tokens\"}" : "null");
	hm__adds(&w->nomem, b, ",\"instructions\":null,");
	hm__w_model(w, b);
	hm__adds(&w->nomem, b, ",\"output\":[");
	/* the turn's ids with the first reasoning item, else one of their own */
	if (final && (w->flags & HM_WRITER_TOKENS) && whole) {
		oai(w)->carrier = -1;
		for (i = 0; i < w->nit && oai(w)->carrier < 0; i++)
			if (w->it[i].out >= 0 && (w->it[i].cls == CLS_REASON ||
			    w->it[i].cls == CLS_BUILTIN))
				oai(w)->carrier = w->it[i].out;
		if (oai(w)->carrier < 0) {
			carrier_item(w, b);
			n++;
		}
	}
	for (i = 0; final && i < w->nit; i++) {
		if (w->it[i].out < 0)
			continue;
		if (n++)
			hm__putc(&w->nomem, b, ',');
		write_item(w, b, &w->it[i], 1);
	}
	/* a stream's: the last item (carrier_event) */
	if (final && (w->flags & HM_WRITER_TOKENS) && !whole) {
		if (n++)
			hm__putc(&w->nomem, b, ',');
		carrier_item(w, b);
	}
	/*
	 * What the request asked for is not known here: the API's defaults,
	 * present because clients may read them.
	 */
	hm__adds(&w->nomem, b, "],\"parallel_tool_calls\":true,\"temperature\":null,"
	    "\"tool_choice\":\"auto\",\"tools\":[],\"top_p\":null,\"metadata\":{}");
	/* the stream's object has no carried fields: the record's tier here */
	if (!whole && w->own.len[OWN_TIER]) {
		hm__adds(&w->nomem, b, ",\"service_tier\":");
		hm__w_own_text(w, b, OWN_TIER);
	}
	/*
	 * Usage at the end: counted tokens, or for text input (no ids
	 * counted) when the record has counts of its own.
	 */
	if (final && (!(w->flags & HM_WRITER_TEXT_INPUT) || hm__w_own_counts(w))) {
		hm__adds(&w->nomem, b, ",\"usage\":");
		usage(w, b);
	}
	hm__putc(&w->nomem, b, '}');
}

/* Responses-stream: `event: TYPE` and `data: {"type":TYPE,"sequence_number":N,` */
static void
sse_open(hm_writer *w, const char *type)
{
	hm_buf *b = &w->out;

	HM__W_LIT(&w->nomem, b, "event: ");
	hm__adds(&w->nomem, b, type);
	HM__W_LIT(&w->nomem, b, "\ndata: {\"type\":\"");
	hm__adds(&w->nomem, b, type);
	HM__W_LIT(&w->nomem, b, "\",\"sequence_number\":");
	hm__addu(&w->nomem, b, (unsigned)oai(w)->seq++);
}

static void
sse_close(hm_writer *w)
{
	HM__W_LIT(&w->nomem, &w->out, "}\n\n");
}

static void
sse_where(hm_writer *w, const struct hm_witem *it, int content)
{
	hm_buf *b = &w->out;

	HM__W_LIT(&w->nomem, b, ",\"item_id\":");
	item_id(w, b, it);
	HM__W_LIT(&w->nomem, b, ",\"output_index\":");
	hm__addu(&w->nomem, b, (unsigned)it->out);
	if (content)
		HM__W_LIT(&w->nomem, b, ",\"content_index\":0");
}

static void
sse_part(hm_writer *w, const struct hm_witem *it, int full)
{
	hm_buf *b = &w->out;

	hm__adds(&w->nomem, b, ",\"part\":");
	if (it->cls == CLS_TEXT)
		hm__adds(&w->nomem, b, "{\"type\":\"output_text\",\"text\":");
	else
		hm__adds(&w->nomem, b, "{\"type\":\"reasoning_text\",\"text\":");
	hm__w_msgtext(w, b, full ? it->text.p : "", full ? it->text.len : 0);
	if (it->cls == CLS_TEXT)
		hm__adds(&w->nomem, b, ",\"annotations\":[],\"logprobs\":[]");
	hm__putc(&w->nomem, b, '}');
}

/*
 * Carried record fields go in an SSE comment: clients skip it, and the
 * chunks and events keep exactly the shape clients read.
 */
static int
stream_begin(hm_writer *w)
{
	if (oai(w)->began)
		return 0;
	oai(w)->began = 1;
	if (w->fields.len) {
		hm__adds(&w->nomem, &w->out, ": {");
		hm__add(&w->nomem, &w->out, w->fields.p, w->fields.len);
		hm__adds(&w->nomem, &w->out, "}\n\n");
	}
	return 1;
}

static void
chat_stream_begin(hm_writer *w)
{
	if (!stream_begin(w))
		return;
	chunk_open(w);
	hm__adds(&w->nomem, &w->out, "\"role\":\"assistant\"");
	chunk_close(w, NULL);
}

static void
resp_stream_begin(hm_writer *w)
{
	if (!stream_begin(w))
		return;
	sse_open(w, "response.created");
	hm__adds(&w->nomem, &w->out, ",\"response\":");
	response(w, &w->out, 0);
	sse_close(w);
	sse_open(w, "response.in_progress");
	hm__adds(&w->nomem, &w->out, ",\"response\":");
	response(w, &w->out, 0);
	sse_close(w);
}

/* ---------------------------------------------------------------- hooks */

static void
item_added(hm_writer *w, const struct hm_witem *it)
{
	hm_buf *b = &w->out;

	sse_open(w, "response.output_item.added");
	hm__adds(&w->nomem, b, ",\"output_index\":");
	hm__addu(&w->nomem, b, (unsigned)it->out);
	hm__adds(&w->nomem, b, ",\"item\":");
	write_item(w, b, it, 0);
	sse_close(w);
}

/*
 * A web search call, once its message has ended: added (with its action),
 * then in_progress, searching and completed as the reference server sends
 * them around running the search; a call cut off stops at in_progress.
 */
static void
web_events(hm_writer *w, const struct hm_witem *it)
{
	static const char *const ev[] = {
		"response.web_search_call.in_progress",
		"response.web_search_call.searching",
		"response.web_search_call.completed",
	};
	int i, n = it->stop == HM_STOP_EOS ? 1 : 3;

	item_added(w, it);
	for (i = 0; i < n; i++) {
		sse_open(w, ev[i]);
		sse_where(w, it, 0);
		sse_close(w);
	}
}

static void
oai_begin(hm_writer *w)
{
	memset(oai(w), 0, sizeof(struct oai));
	oai(w)->carrier = -1;
}

/* All five: a message to show is an output item, a call a tool call among them (0: not shown). */
static int
count_item(hm_writer *w, struct hm_witem *it)
{
	if (it->cls == CLS_SKIP)
		return 0;
	it->out = oai(w)->nout++;
	if (hm_w_is_call(it->cls))
		it->call = oai(w)->ncalls++;
	return 1;
}

static void
whole_start(hm_writer *w, struct hm_witem *it)
{
	count_item(w, it);
}

/* The whole shapes (and responses-stream, for its done events): every text kept. */
static void
keep_delta(hm_writer *w, struct hm_witem *it, const char *s, size_t n)
{
	(void)w;
	hm__add(&w->nomem, &it->text, s, n);
}

static void
chat_stream_start(hm_writer *w, struct hm_witem *it)
{
	hm_buf *b = &w->out;

	if (!count_item(w, it))
		return;
	chat_stream_begin(w);
	if (hm_w_is_call(it->cls)) {
		chunk_open(w);
		hm__adds(&w->nomem, b, "\"tool_calls\":[{\"index\":");
		hm__addu(&w->nomem, b, (unsigned)it->call);
		hm__adds(&w->nomem, b, ",\"id\":");
		call_id(w, b, it);
		hm__adds(&w->nomem, b, ",\"type\":\"function\",\"function\":{\"name\":");
		hm__w_fname(&w->nomem, b, it);
		hm__adds(&w->nomem, b, ",\"arguments\":\"\"}}]");
		chunk_close(w, NULL);
	}
}

static void chat_stream_delta_out(hm_writer *w, struct hm_witem *it, const char *s, size_t n);

static void
chat_stream_delta(hm_writer *w, struct hm_witem *it, const char *s, size_t n)
{
	if (it->cls == CLS_SKIP || !n)
		return;
	/*
	 * HM_WRITER_TOKENS: reasoning goes in one delta at its message's end
	 * (chat_stream_end).  openai-node's stream helper keeps only the last
	 * delta of a member it does not know, and the turn's ids are used
	 * only when the message comes back as they say.
	 */
	if ((w->flags & HM_WRITER_TOKENS) && hm_w_is_thinking(it->cls)) {
		hm__add(&w->nomem, &it->text, s, n);
		return;
	}
	chat_stream_delta_out(w, it, s, n);
}

static void
chat_stream_delta_out(hm_writer *w, struct hm_witem *it, const char *s, size_t n)
{
	hm_buf *b = &w->out;

	chunk_open(w);
	if (hm_w_is_call(it->cls)) {
		HM__W_LIT(&w->nomem, b, "\"tool_calls\":[{\"index\":");
		hm__addu(&w->nomem, b, (unsigned)it->call);
		HM__W_LIT(&w->nomem, b, ",\"function\":{\"arguments\":");
		hm__json_str(&w->nomem, b, s, n);
		HM__W_LIT(&w->nomem, b, "}}]");
	} else {
		int reason = hm_w_is_thinking(it->cls);
		int *any = reason ? &oai(w)->reason_any : &oai(w)->text_any;

		hm__adds(&w->nomem, b, !reason ? "\"content\":\"" : w->flags & HM_WRITER_REASONING ?
		    "\"reasoning\":\"" : "\"reasoning_content\":\"");
		/* Messages are joined with a newline, as in the whole choice. */
		if (*any && !it->sent)
			hm__add(&w->nomem, b, "\\n", 2);
		*any = it->sent = 1;
		hm__json_body(&w->nomem, b, s, n);
		hm__putc(&w->nomem, b, '"');
	}
	chunk_close(w, NULL);
}

static void
chat_stream_end(hm_writer *w, struct hm_witem *it)
{
	if ((w->flags & HM_WRITER_TOKENS) && it->cls != CLS_SKIP && hm_w_is_thinking(it->cls) &&
	    it->text.len) {
		hm_buf t = it->text;

		/* the reasoning held (chat_stream_delta): written whole, once */
		it->text = (hm_buf){ 0 };
		chat_stream_delta_out(w, it, t.p, t.len);
		hm_buf_free(&t);
	}
	if (hm__w_reasoning(it))
		oai(w)->reason += hm__w_item_tokens(it);
}

static void
chat_stream_done(hm_writer *w)
{
	hm_buf *b = &w->out;

	chat_stream_begin(w);
	chunk_open(w);
	/*
	 * The turn's ids whole in the last delta: a stream helper that merges
	 * members it does not know (openai-node's Object.assign) keeps the
	 * last delta's value, and this is the only one.
	 */
	if (w->flags & HM_WRITER_TOKENS) {
		HM__W_LIT(&w->nomem, b, "\"harmony_tokens\":");
		hm__w_tokens_turn(w, b);
	}
	chunk_close(w, finish_reason(w));
	/* The record's usage: as the API's last chunk (stream_options.include_usage) */
	if (hm__w_own_counts(w)) {
		chunk_head(w);
		hm__adds(&w->nomem, b, ",\"choices\":[],\"usage\":");
		chat_usage(w, b);
		hm__adds(&w->nomem, b, "}\n\n");
	}
	hm__adds(&w->nomem, b, "data: [DONE]\n\n");
}

static void
resp_stream_start(hm_writer *w, struct hm_witem *it)
{
	if (!count_item(w, it))
		return;
	resp_stream_begin(w);
	/* A web search is announced once its arguments, the action, are known. */
	if (it->cls == CLS_WEB)
		return;
	item_added(w, it);
	if (it->cls == CLS_TEXT || it->cls == CLS_REASON || it->cls == CLS_BUILTIN) {
		sse_open(w, "response.content_part.added");
		sse_where(w, it, 1);
		sse_part(w, it, 0);
		sse_close(w);
	}
}

static void
resp_stream_delta(hm_writer *w, struct hm_witem *it, const char *s, size_t n)
{
	hm_buf *b = &w->out;

	hm__add(&w->nomem, &it->text, s, n);
	if (it->cls == CLS_SKIP || !n)
		return;
	if (it->cls == CLS_FUNC) {
		sse_open(w, "response.function_call_arguments.delta");
		sse_where(w, it, 0);
	} else if (it->cls == CLS_TEXT) {
		sse_open(w, "response.output_text.delta");
		sse_where(w, it, 1);
	} else if (it->cls == CLS_REASON || it->cls == CLS_BUILTIN) {
		sse_open(w, "response.reasoning_text.delta");
		sse_where(w, it, 1);
	} else
		return;
	HM__W_LIT(&w->nomem, b, ",\"delta\":");
	hm__json_str(&w->nomem, b, s, n);
	if (it->cls == CLS_TEXT)
		HM__W_LIT(&w->nomem, b, ",\"logprobs\":[]");
	sse_close(w);
}

static void
resp_stream_end(hm_writer *w, struct hm_witem *it)
{
	hm_buf *b = &w->out;

	if (it->cls == CLS_SKIP)
		return;
	if (it->cls == CLS_WEB)
		web_events(w, it);
	else if (it->cls == CLS_FUNC) {
		sse_open(w, "response.function_call_arguments.done");
		sse_where(w, it, 0);
		hm__adds(&w->nomem, b, ",\"name\":");
		hm__json_str(&w->nomem, b, it->rcpt.p + it->fname_off, it->fname_len);
		hm__adds(&w->nomem, b, ",\"arguments\":");
		hm__w_msgtext(w, b, it->text.p, it->text.len);
		sse_close(w);
	} else if (it->cls == CLS_TEXT || it->cls == CLS_REASON || it->cls == CLS_BUILTIN) {
		sse_open(w, it->cls == CLS_TEXT ? "response.output_text.done" :
		    "response.reasoning_text.done");
		sse_where(w, it, 1);
		hm__adds(&w->nomem, b, ",\"text\":");
		hm__w_msgtext(w, b, it->text.p, it->text.len);
		if (it->cls == CLS_TEXT)
			hm__adds(&w->nomem, b, ",\"logprobs\":[]");
		sse_close(w);
		sse_open(w, "response.content_part.done");
		sse_where(w, it, 1);
		sse_part(w, it, 1);
		sse_close(w);
	}
	sse_open(w, "response.output_item.done");
	hm__adds(&w->nomem, b, ",\"output_index\":");
	hm__addu(&w->nomem, b, (unsigned)it->out);
	hm__adds(&w->nomem, b, ",\"item\":");
	write_item(w, b, it, 1);
	sse_close(w);
}

static void
resp_stream_done(hm_writer *w)
{
	resp_stream_begin(w);
	/*
	 * The turn's ids: a reasoning item of their own, last, as its
	 * reasoning went out before they were known.
	 */
	if (w->flags & HM_WRITER_TOKENS) {
		static const char *const ev[] = { "response.output_item.added",
			"response.output_item.done" };
		int k;

		oai(w)->carrier = -1;
		for (k = 0; k < 2; k++) {
			sse_open(w, ev[k]);
			hm__adds(&w->nomem, &w->out, ",\"output_index\":");
			hm__addu(&w->nomem, &w->out, (unsigned)oai(w)->nout);
			hm__adds(&w->nomem, &w->out, ",\"item\":");
			carrier_item(w, &w->out);
			sse_close(w);
		}
	}
	sse_open(w, hm_w_cut(w) ? "response.incomplete" : "response.completed");
	hm__adds(&w->nomem, &w->out, ",\"response\":");
	response(w, &w->out, 1);
	sse_close(w);
}

static void
chat_done(hm_writer *w)
{
	choice(w, &w->out);
	hm__putc(&w->nomem, &w->out, '\n');
}

static void
completion_done(hm_writer *w)
{
	chat_completion(w, &w->out);
	hm__putc(&w->nomem, &w->out, '\n');
}

static void
resp_done(hm_writer *w)
{
	response(w, &w->out, 1);
	hm__putc(&w->nomem, &w->out, '\n');
}

/* ---------------------------------------------------------------- the rows */

static const struct hm_wkey chat_keys[] = {
	HM__W_KEY("index"), HM__W_KEY("message"), HM__W_KEY("logprobs"),
	HM__W_KEY("finish_reason"), { 0, NULL },
};

static const struct hm_wkey completion_keys[] = {
	HM__W_KEY("model"), HM__W_KEY("usage"), HM__W_KEY("object"), HM__W_KEY("choices"),
	HM__W_KEY("created"), { 0, NULL },
};

static const struct hm_wkey resp_keys[] = {
	HM__W_KEY("error"), HM__W_KEY("model"), HM__W_KEY("tools"), HM__W_KEY("top_p"),
	HM__W_KEY("usage"), HM__W_KEY("object"), HM__W_KEY("output"), HM__W_KEY("status"),
	HM__W_KEY("metadata"), HM__W_KEY("created_at"), HM__W_KEY("temperature"),
	HM__W_KEY("tool_choice"), HM__W_KEY("instructions"),
	HM__W_KEY("incomplete_details"), HM__W_KEY("parallel_tool_calls"), { 0, NULL },
};

const struct hm_wshape hm__w_chat = {
	.name = "chat",
	.keys = chat_keys,
	.flags = HM_WS_KEEP | HM_WS_ROUTE | HM_WS_WHOLE | HM_WS_TURN,
	.size = sizeof(struct oai),
	.begin = oai_begin,
	.start = whole_start,
	.delta = keep_delta,
	.done = chat_done,
};

const struct hm_wshape hm__w_chat_completion = {
	.name = "chat-completion",
	.keys = completion_keys,
	.flags = HM_WS_KEEP | HM_WS_ROUTE | HM_WS_OWN | HM_WS_WHOLE | HM_WS_TURN,
	.size = sizeof(struct oai),
	.begin = oai_begin,
	.start = whole_start,
	.delta = keep_delta,
	.done = completion_done,
};

const struct hm_wshape hm__w_chat_stream = {
	.name = "chat-stream",
	.flags = HM_WS_ROUTE | HM_WS_OWN | HM_WS_TURN,
	.size = sizeof(struct oai),
	.begin = oai_begin,
	.start = chat_stream_start,
	.delta = chat_stream_delta,
	.end = chat_stream_end,
	.done = chat_stream_done,
};

const struct hm_wshape hm__w_responses = {
	.name = "responses",
	.keys = resp_keys,
	.flags = HM_WS_KEEP | HM_WS_ROUTE | HM_WS_OWN | HM_WS_WHOLE | HM_WS_TURN,
	.size = sizeof(struct oai),
	.begin = oai_begin,
	.start = whole_start,
	.delta = keep_delta,
	.done = resp_done,
};

const struct hm_wshape hm__w_responses_stream = {
	.name = "responses-stream",
	.flags = HM_WS_KEEP | HM_WS_ROUTE | HM_WS_OWN | HM_WS_TURN,
	.size = sizeof(struct oai),
	.begin = oai_begin,
	.start = resp_stream_start,
	.delta = resp_stream_delta,
	.end = resp_stream_end,
	.done = resp_stream_done,
};
