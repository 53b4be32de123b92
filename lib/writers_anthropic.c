/*
 * writers_anthropic.c - Anthropic Messages API output: the whole Message
 * (--to anthropic) or its Server-Sent Events (--to anthropic-stream), with
 * the members the @anthropic-ai/sdk Message type requires.  Messages map
 * as in the Chat shape: analysis and builtin tools are thinking blocks,
 * final and preambles text blocks, function and MCP calls tool_use blocks.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "harmony.h"
#include "json_val_int.h"
#include "records_int.h"
#include "writers_int.h"


/* The state of both shapes: one record's. */
struct anth {
	int began;       /* stream: message_start is written */
	int nout, ncalls; /* blocks, tool_use blocks so far */
	uint64_t reason; /* stream: thinking tokens so far */
	int first_think; /* stream: the first thinking block's index; -1 */
	int carrier;     /* whole, HM_WRITER_TOKENS: the thinking block signed with the
	                  * turn's ids; -1 */
};

static struct anth *
anth(const hm_writer *w)
{
	return w->st;
}

/* The whole Message (anthropic), not its stream. */
static int
whole(const hm_writer *w)
{
	return w->def == &hm__w_anthropic;
}

/* ---------------------------------------------------------------- pieces */

/*
 * The end of the JSON value at s, when it is written as hm_json_compact
 * would write it (no blanks, strings without escapes, control characters
 * or non-ASCII bytes, at most 127 levels): then the text is its own
 * compact form and is copied as it is.  NULL otherwise (the general
 * reader decides).  Most arguments are such text: no tree for them.
 */
static const char *
plain_value(const char *s, const char *e, int depth)
{
	if (s == e || depth > 127)
		return NULL;
	switch (*s) {
	case '{':
	case '[': {
		char close = *s == '{' ? '}' : ']';

		if (++s < e && *s == close)
			return s + 1;
		for (;;) {
			if (close == '}') {
				if (s == e || *s != '"' || !(s = plain_value(s, e, depth)) ||
				    s == e || *s++ != ':')
					return NULL;
			}
			if (!(s = plain_value(s, e, depth + 1)) || s == e)
				return NULL;
			if (*s == close)
				return s + 1;
			if (*s++ != ',')
				return NULL;
		}
	}
	case '"':
		for (s++; s < e && *s != '"'; s++)
			if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x80 || *s == '\\')
				return NULL;
		return s < e ? s + 1 : NULL;
	case 't':
		return e - s >= 4 && !memcmp(s, "true", 4) ? s + 4 : NULL;
	case 'f':
		return e - s >= 5 && !memcmp(s, "false", 5) ? s + 5 : NULL;
	case 'n':
		return e - s >= 4 && !memcmp(s, "null", 4) ? s + 4 : NULL;
	default:
		break;
	}
	/* a number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
	if (*s == '-')
		s++;
	if (s == e || *s < '0' || *s > '9')
		return NULL;
	if (*s++ != '0')
		while (s < e && *s >= '0' && *s <= '9')
			s++;
	if (s < e && *s == '.') {
		if (++s == e || *s < '0' || *s > '9')
			return NULL;
		while (s < e && *s >= '0' && *s <= '9')
			s++;
	}
	if (s < e && (*s == 'e' || *s == 'E')) {
		if (++s < e && (*s == '+' || *s == '-'))
			s++;
		if (s == e || *s < '0' || *s > '9')
			return NULL;
		while (s < e && *s >= '0' && *s <= '9')
			s++;
	}
	return s;
}

/*
 * A tool_use block's input, onto b: the arguments when they are a JSON
 * object (written compactly, numbers as written), {} when they are
 * empty or blank, else {"_raw":"the arguments as written"}: never
 * dropped.  Returns 0 in that last case (the caller warns); out of
 * memory is in *nomem.
 */
static int
call_input(int *nomem, hm_buf *b, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	if (i == n) {
		HM__W_LIT(nomem, b, "{}");
		return 1;
	}
	if (s[0] == '{' && plain_value(s, s + n, 1) == s + n) {
		hm__put(nomem, b, s, n);
		return 1;
	}
	/* hm_json_compact appends nothing when the text is not JSON. */
	if (s[i] == '{') {
		hm_status st = hm_json_compact(b, s, n);

		if (st == HM_ENOMEM) /* json_parse.c: out of memory, not text that is no JSON */
			*nomem = 1;
		if (st != HM_EINPUT)
			return 1;
	}
	HM__W_LIT(nomem, b, "{\"_raw\":");
	hm__json_str(nomem, b, s, n);
	hm__putc(nomem, b, '}');
	return 0;
}

/* A call whose input wraps its arguments: warn (hm_writer_warning). */
static void
warn_call(hm_writer *w, const struct hm_witem *it)
{
	hm_buf_reset(&w->warn);
	HM__W_LIT(&w->nomem, &w->warn, "arguments of the call to ");
	hm__add(&w->nomem, &w->warn, it->rcpt.p, it->rcpt.len);
	hm__adds(&w->nomem, &w->warn, it->stop == HM_STOP_EOS ? " (cut off)" : "");
	HM__W_LIT(&w->nomem, &w->warn,
	    " are not a JSON object: its tool_use input is {\"_raw\": the text}");
	w->warn_at = it->at0;
	w->warn_set = !w->nomem; /* a failed append is in w->nomem: no warning to read */
}

static void
tool_id(hm_writer *w, hm_buf *b, const struct hm_witem *it)
{
	hm__putc(&w->nomem, b, '"');
	hm__w_id(w, b, "toolu_", (uint64_t)it->call);
	hm__putc(&w->nomem, b, '"');
}

/* A whole call ends as tool_use; else a cut-off output in max_tokens, even inside a call. */
static const char *
stop_reason(const hm_writer *w)
{
	if (w->whole_call)
		return "tool_use";
	if (w->truncated)
		return "max_tokens";
	return anth(w)->ncalls ? "tool_use" : "end_turn";
}

/*
 * One content block; full: with its text (else as content_block_start
 * announces it, empty).
 */
static void
block(hm_writer *w, hm_buf *b, const struct hm_witem *it, int full)
{
	const char *s = full ? it->text.p : "";
	size_t n = full ? it->text.len : 0;

	if (hm_w_is_call(it->cls)) {
		HM__W_LIT(&w->nomem, b, "{\"type\":\"tool_use\",\"id\":");
		tool_id(w, b, it);
		HM__W_LIT(&w->nomem, b, ",\"name\":");
		hm__w_fname(&w->nomem, b, it);
		/* at its end, a call's text became its input (call_end) */
		HM__W_LIT(&w->nomem, b, ",\"input\":");
		if (full && it->sent)
			hm__put(&w->nomem, b, s, n);
		else if (full)
			call_input(&w->nomem, b, s, n);
		else
			HM__W_LIT(&w->nomem, b, "{}");
		HM__W_LIT(&w->nomem, b, ",\"caller\":{\"type\":\"direct\"}}");
	} else if (hm_w_is_thinking(it->cls)) {
		HM__W_LIT(&w->nomem, b, "{\"type\":\"thinking\",\"thinking\":");
		hm__w_msgtext(w, b, s, n);
		if (full && it->out == anth(w)->carrier) {
			HM__W_LIT(&w->nomem, b, ",\"signature\":");
			hm__w_tokens_turn(w, b);
			hm__putc(&w->nomem, b, '}');
		} else
			HM__W_LIT(&w->nomem, b, ",\"signature\":\"\"}");
	} else {
		HM__W_LIT(&w->nomem, b, "{\"type\":\"text\",\"text\":");
		hm__w_msgtext(w, b, s, n);
		HM__W_LIT(&w->nomem, b, ",\"citations\":null}");
	}
}

/* A count of the record's, else 0. */
static void
own_count(int *nomem, hm_buf *b, int64_t n)
{
	hm__addu(nomem, b, n > 0 ? (uint64_t)n : 0);
}

/*
 * The members of usage that the Message and message_delta share.  Input
 * and cache tokens: the record's, else 0.  Output tokens are counted from
 * the ids, thinking tokens beside them; for text input, the tokens the
 * text encodes to (the parser counts them: HM_PARSE_COUNT), with no
 * thinking count.  The record's own output count, where it differs, is
 * kept beside as record_output_tokens.
 */
static void
usage_common(hm_writer *w, hm_buf *b, int final)
{
	int tok = final && !(w->flags & HM_WRITER_TEXT_INPUT);
	uint64_t out = tok ? w->ntok : final ? w->text_tokens : 0;
	int64_t own = hm__w_own_output(w);

	HM__W_LIT(&w->nomem, b, "\"input_tokens\":");
	own_count(&w->nomem, b, hm__w_own_input(w));
	HM__W_LIT(&w->nomem, b, ",\"cache_creation_input_tokens\":");
	own_count(&w->nomem, b, hm_w_own(w, OWN_CACHE_WRITE));
	HM__W_LIT(&w->nomem, b, ",\"cache_read_input_tokens\":");
	own_count(&w->nomem, b, hm_w_own(w, OWN_CACHED));
	HM__W_LIT(&w->nomem, b, ",\"output_tokens\":");
	hm__addu(&w->nomem, b, out);
	HM__W_LIT(&w->nomem, b, ",\"output_tokens_details\":");
	if (tok) {
		HM__W_LIT(&w->nomem, b, "{\"thinking_tokens\":");
		hm__addu(&w->nomem, b, whole(w) ? hm__w_reasoning_tokens(w) : anth(w)->reason);
		hm__putc(&w->nomem, b, '}');
	} else
		HM__W_LIT(&w->nomem, b, "null");
	HM__W_LIT(&w->nomem, b, ",\"server_tool_use\":null");
	if (final && own >= 0 && (uint64_t)own != out) {
		HM__W_LIT(&w->nomem, b, ",\"record_output_tokens\":");
		hm__addu(&w->nomem, b, (uint64_t)own);
	}
}

/* The output index of the record's first thinking block; -1. */
static int
first_thinking(const hm_writer *w)
{
	size_t i;

	for (i = 0; i < w->nit; i++)
		if (w->it[i].out >= 0 && hm_w_is_thinking(w->it[i].cls))
			return w->it[i].out;
	return -1;
}

/* A redacted_thinking block holding the turn's ids. */
static void
redacted(hm_writer *w, hm_buf *b)
{
	HM__W_LIT(&w->nomem, b, "{\"type\":\"redacted_thinking\",\"data\":");
	hm__w_tokens_turn(w, b);
	hm__putc(&w->nomem, b, '}');
}

/* The Message; final: with its content, stop reason and output usage. */
static void
message(hm_writer *w, hm_buf *b, int final)
{
	size_t i;
	int n = 0, full = whole(w);

	hm__putc(&w->nomem, b, '{');
	/* The whole Message carries the record's fields (its id among them). */
	if (full && w->fields.len) {
		hm__put(&w->nomem, b, w->fields.p, w->fields.len);
		hm__putc(&w->nomem, b, ',');
	}
	if (!(full && w->carried_id)) {
		hm__w_object_id(w, b, "msg_");
		hm__putc(&w->nomem, b, ',');
	}
	HM__W_LIT(&w->nomem, b, "\"type\":\"message\",\"role\":\"assistant\",");
	hm__w_model(w, b);
	HM__W_LIT(&w->nomem, b, ",\"content\":[");
	/*
	 * The turn's ids: the signature of its first thinking block (clients
	 * send it back, as the API requires), else a redacted_thinking
	 * block's data, first, as the API places them.
	 */
	if (final && (w->flags & HM_WRITER_TOKENS)) {
		anth(w)->carrier = first_thinking(w);
		if (anth(w)->carrier < 0) {
			redacted(w, b);
			n++;
		}
	}
	for (i = 0; final && i < w->nit; i++) {
		if (w->it[i].out < 0)
			continue;
		if (n++)
			hm__putc(&w->nomem, b, ',');
		block(w, b, &w->it[i], 1);
	}
	HM__W_LIT(&w->nomem, b, "],\"stop_reason\":");
	if (final)
		hm__w_strz(&w->nomem, b, stop_reason(w));
	else
		HM__W_LIT(&w->nomem, b, "null");
	HM__W_LIT(&w->nomem, b, ",\"stop_sequence\":null,\"stop_details\":null,\"container\":null,"
	    "\"diagnostics\":null,\"usage\":{");
	usage_common(w, b, final);
	HM__W_LIT(&w->nomem, b, ",\"cache_creation\":null,\"service_tier\":");
	/* Anthropic's place for it is usage: the record's usage's, else its top-level one */
	if (!hm__w_own_text(w, b, OWN_USAGE_TIER) && !hm__w_own_text(w, b, OWN_TIER))
		HM__W_LIT(&w->nomem, b, "null");
	HM__W_LIT(&w->nomem, b, ",\"inference_geo\":null,\"speed\":null}}");
}

/* ---------------------------------------------------------------- stream */

/* `event: TYPE` and `data: {"type":TYPE` */
static void
ev_open(hm_writer *w, const char *type)
{
	hm_buf *b = &w->out;

	HM__W_LIT(&w->nomem, b, "event: ");
	hm__adds(&w->nomem, b, type);
	HM__W_LIT(&w->nomem, b, "\ndata: {\"type\":\"");
	hm__adds(&w->nomem, b, type);
	hm__putc(&w->nomem, b, '"');
}

static void
ev_close(hm_writer *w)
{
	HM__W_LIT(&w->nomem, &w->out, "}\n\n");
}

static void
ev_index(hm_writer *w, const struct hm_witem *it)
{
	HM__W_LIT(&w->nomem, &w->out, ",\"index\":");
	hm__addu(&w->nomem, &w->out, (unsigned)it->out);
}

static void
stream_begin(hm_writer *w)
{
	if (anth(w)->began)
		return;
	anth(w)->began = 1;
	/* Carried record fields: an SSE comment, which clients skip. */
	if (w->fields.len) {
		HM__W_LIT(&w->nomem, &w->out, ": {");
		hm__put(&w->nomem, &w->out, w->fields.p, w->fields.len);
		HM__W_LIT(&w->nomem, &w->out, "}\n\n");
	}
	ev_open(w, "message_start");
	HM__W_LIT(&w->nomem, &w->out, ",\"message\":");
	message(w, &w->out, 0);
	ev_close(w);
}

/*
 * A block's delta: kind thinking_delta, text_delta, signature_delta or
 * input_json_delta, its text s[0..n) as the string under key (a call's
 * input, JSON text, goes as a string holding it).  The hot path of the
 * stream: one a token.
 */
static void
delta_at(hm_writer *w, const struct hm_witem *it, const char *mid, size_t midlen,
         const char *s, size_t n)
{
	hm_buf *b = &w->out;

	HM__W_LIT(&w->nomem, b,
	    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":");
	hm__putu(&w->nomem, b, (unsigned)it->out);
	hm__put(&w->nomem, b, mid, midlen);
	hm__json_body(&w->nomem, b, s, n);
	HM__W_LIT(&w->nomem, b, "\"}}\n\n");
}

/* The delta's type and member, one literal: ",\"delta\":{\"type\":\"KIND\",\"KEY\":\"". */
#define delta(w, it, kind, key, s, n) \
	delta_lit((w), (it), ",\"delta\":{\"type\":\"" kind "\",\"" key "\":\"", (s), (n))
#define delta_lit(w, it, mid, s, n) delta_at((w), (it), (mid), sizeof(mid) - 1, (s), (n))

/* ---------------------------------------------------------------- hooks */

static void
anth_begin(hm_writer *w)
{
	memset(anth(w), 0, sizeof(struct anth));
	anth(w)->first_think = anth(w)->carrier = -1;
}

/* Both shapes: a message to show is a block, a call a tool_use block among them. */
static void
count_block(hm_writer *w, struct hm_witem *it)
{
	it->out = anth(w)->nout++;
	if (hm_w_is_call(it->cls))
		it->call = anth(w)->ncalls++;
}

static void
whole_start(hm_writer *w, struct hm_witem *it)
{
	if (it->cls != CLS_SKIP)
		count_block(w, it);
}

static void
stream_start(hm_writer *w, struct hm_witem *it)
{
	if (it->cls == CLS_SKIP)
		return;
	count_block(w, it);
	if (hm_w_is_thinking(it->cls) && anth(w)->first_think < 0)
		anth(w)->first_think = it->out;
	stream_begin(w);
	ev_open(w, "content_block_start");
	ev_index(w, it);
	HM__W_LIT(&w->nomem, &w->out, ",\"content_block\":");
	block(w, &w->out, it, 0);
	ev_close(w);
}

/* The whole Message: every text kept for the end. */
static void
whole_delta(hm_writer *w, struct hm_witem *it, const char *s, size_t n)
{
	(void)w;
	if (it->cls == CLS_SKIP || !n)
		return;
	hm__put(&w->nomem, &it->text, s, n);
}

static void
stream_delta(hm_writer *w, struct hm_witem *it, const char *s, size_t n)
{
	if (it->cls == CLS_SKIP || !n)
		return;
	/*
	 * A call's arguments are known to be a JSON object only once they
	 * are whole: they go out in one input_json_delta at its end.
	 */
	if (hm_w_is_call(it->cls)) {
		hm__put(&w->nomem, &it->text, s, n);
		return;
	}
	if (hm_w_is_thinking(it->cls))
		delta(w, it, "thinking_delta", "thinking", s, n);
	else
		delta(w, it, "text_delta", "text", s, n);
}

/* Both shapes: a call's input once, in place of the arguments' text (it->sent). */
static void
call_end(hm_writer *w, struct hm_witem *it)
{
	hm_buf in = { 0 };

	if (!call_input(&w->nomem, &in, it->text.p, it->text.len))
		warn_call(w, it);
	hm_buf_free(&it->text);
	it->text = in;
	(void)hm__reserve(&w->nomem, &it->text, 0); /* non-NULL p (failure: in w->nomem) */
	it->sent = 1;
}

static void
whole_end(hm_writer *w, struct hm_witem *it)
{
	if (it->cls != CLS_SKIP && hm_w_is_call(it->cls))
		call_end(w, it);
}

static void
stream_end(hm_writer *w, struct hm_witem *it)
{
	if (it->cls == CLS_SKIP)
		return;
	if (hm_w_is_call(it->cls))
		call_end(w, it);
	if (hm__w_reasoning(it))
		anth(w)->reason += hm__w_item_tokens(it);
	if (hm_w_is_call(it->cls))
		delta(w, it, "input_json_delta", "partial_json", it->text.p, it->text.len);
	else if (hm_w_is_thinking(it->cls))
		delta(w, it, "signature_delta", "signature", "", 0);
	ev_open(w, "content_block_stop");
	ev_index(w, it);
	ev_close(w);
}

static void
whole_done(hm_writer *w)
{
	message(w, &w->out, 1);
	hm__putc(&w->nomem, &w->out, '\n');
}

static void
stream_done(hm_writer *w)
{
	hm_buf *b = &w->out;

	stream_begin(w);
	/*
	 * The turn's ids, known only now: the signature of its first thinking
	 * block (a signature_delta replaces the empty one its end sent; the
	 * SDKs' accumulators set it), else a redacted_thinking block, last.
	 */
	if (w->flags & HM_WRITER_TOKENS) {
		int at = anth(w)->first_think;

		if (at >= 0) {
			HM__W_LIT(&w->nomem, b,
			    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":");
			hm__putu(&w->nomem, b, (unsigned)at);
			HM__W_LIT(&w->nomem, b, ",\"delta\":{\"type\":\"signature_delta\",\"signature\":");
			hm__w_tokens_turn(w, b);
			HM__W_LIT(&w->nomem, b, "}}\n\n");
		} else {
			ev_open(w, "content_block_start");
			HM__W_LIT(&w->nomem, b, ",\"index\":");
			hm__addu(&w->nomem, b, (unsigned)anth(w)->nout);
			HM__W_LIT(&w->nomem, b, ",\"content_block\":");
			redacted(w, b);
			ev_close(w);
			ev_open(w, "content_block_stop");
			HM__W_LIT(&w->nomem, b, ",\"index\":");
			hm__addu(&w->nomem, b, (unsigned)anth(w)->nout);
			ev_close(w);
		}
	}
	ev_open(w, "message_delta");
	HM__W_LIT(&w->nomem, b, ",\"delta\":{\"stop_reason\":");
	hm__w_strz(&w->nomem, b, stop_reason(w));
	HM__W_LIT(&w->nomem, b, ",\"stop_sequence\":null,\"stop_details\":null,\"container\":null},"
	    "\"usage\":{");
	usage_common(w, b, 1);
	hm__putc(&w->nomem, b, '}');
	ev_close(w);
	ev_open(w, "message_stop");
	ev_close(w);
}

static const struct hm_wkey anth_keys[] = {
	HM__W_KEY("role"), HM__W_KEY("type"), HM__W_KEY("model"), HM__W_KEY("usage"),
	HM__W_KEY("content"), HM__W_KEY("container"), HM__W_KEY("diagnostics"),
	HM__W_KEY("stop_reason"), HM__W_KEY("stop_details"), HM__W_KEY("stop_sequence"),
	{ 0, NULL },
};

const struct hm_wshape hm__w_anthropic = {
	.name = "anthropic",
	.keys = anth_keys,
	.flags = HM_WS_KEEP | HM_WS_ROUTE | HM_WS_OWN | HM_WS_WHOLE | HM_WS_TURN,
	.size = sizeof(struct anth),
	.begin = anth_begin,
	.start = whole_start,
	.delta = whole_delta,
	.end = whole_end,
	.done = whole_done,
};

const struct hm_wshape hm__w_anthropic_stream = {
	.name = "anthropic-stream",
	.flags = HM_WS_ROUTE | HM_WS_OWN | HM_WS_TURN,
	.size = sizeof(struct anth),
	.begin = anth_begin,
	.start = stream_start,
	.delta = stream_delta,
	.end = stream_end,
	.done = stream_done,
};
