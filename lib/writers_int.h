/*
 * writers_int.h - state shared by the writer modules: writers.c (messages,
 * events, text), writers_stats.c and writers_metrics.c (stats, their
 * summary, Prometheus metrics), writers_oai.c (Chat Completions and
 * Responses, whole or streamed), writers_anthropic.c (Anthropic Messages,
 * whole or streamed) and writers_answer.c (the answer alone).
 */
#ifndef HM_WRITERS_INT_H
#define HM_WRITERS_INT_H

#include <string.h>

#include "buf_int.h"

/* The model named in the API objects (what the request asked for is not known). */
#define HM__W_MODEL "gpt-oss"

/* Histogram buckets (see hm__w_bucket); HM_F_CODES is in harmony.h. */
#define HM__W_BUCKETS (64 + 58 * 32)

/* How a message shows up in Chat Completions / Responses output. */
enum {
	CLS_SKIP,    /* not output (tool results, user messages ...) */
	CLS_TEXT,    /* final, preambles: content / output_text */
	CLS_REASON,  /* analysis: reasoning */
	CLS_FUNC,    /* functions.NAME (or a bare NAME): a function call */
	CLS_WEB,     /* browser.search/open/find: web_search_call */
	CLS_BUILTIN, /* python, container.*, other browser.*: reasoning */
	CLS_MCP,     /* any other recipient: an MCP call */
};

/*
 * One message of the current record.  Only chat, responses and
 * responses-stream keep every message (and its text) until the record
 * ends, since that is what they print last; the other shapes keep the
 * open message alone.
 */
struct hm_witem {
	int cls;
	const char *role;
	hm_buf name, rcpt, chan, ctype, text;
	unsigned char has_name, has_rcpt, has_chan, has_ctype;
	const char *fname; /* CLS_FUNC, CLS_MCP: offset into rcpt */
	size_t fname_off, fname_len;
	hm_stop stop;
	int ended;
	int sent; /* chat-stream: a delta of it has been written */
	uint64_t at0, at1;
	int out;  /* index in the Responses output */
	int call; /* index among the Chat tool calls */
};

/* A small counting map for stats. */
struct hm_count {
	char *key;
	uint64_t n;
};

struct hm_counts {
	struct hm_count *v;
	size_t len, cap;
	int oom; /* sticky: a count could not be added */
};

struct hm_writer {
	hm_shape shape;
	unsigned flags;
	hm_buf out;
	size_t rec_start;
	struct hm_wpretty *pretty; /* HM_WRITER_PRETTY */
	/*
	 * The record's carried members, held once as hm_writer_begin read
	 * them: in the carried form (records_int.h), without the keys the
	 * shape writes itself.  Nothing reads them as JSON text again.
	 */
	hm_buf fields;
	int carried_id;       /* ... among them an "id" (the first) ... */
	size_t id_off, id_len; /* ... its value: fields.p[id_off..+id_len) */
	hm_buf chans; /* NUL-separated channel names */
	int filter;
	uint64_t rng;   /* seed of random ids */
	int64_t created;
	uint64_t rec;
	int in_rec;

	/* the current record */
	struct hm_witem *it;
	size_t nit, capit;
	int cur;      /* index of the open item, -1 none */
	int skip;     /* the open message is filtered out */
	int nwritten; /* messages written in this record */
	int ncalls, nout;
	int seq;
	int began;    /* streams: opening events written */
	int text_any, reason_any; /* chat-stream: something already sent */
	unsigned nwarn;
	int truncated;
	uint64_t ntok;
	uint64_t text_tokens;   /* text input: the tokens it encodes to, from DONE (HM_PARSE_COUNT) */

	/* stats of the current record */
	uint64_t r_msgs, r_reason;
	const char *r_term;
	struct hm_counts r_chan, r_rcpt;

	/* stats summary: sums, counts, min/max and a histogram, so that the
	 * summaries of parts add up to the summary of the whole */
	uint64_t s_records, s_tokens, s_messages, s_warnings, s_truncated,
	    s_reasoning;
	struct hm_counts s_chan, s_rcpt, s_term, s_chantok, s_calls;
	int s_text;                        /* a text record: no token counts */
	int s_hist_any;                    /* s_min, s_max hold a record */
	uint64_t s_answers[3];             /* structured answers: valid, invalid, missing */
	int s_answers_any;                 /* some were counted (a schema was given) */
	uint64_t s_codes[HM_F_CODES];      /* warnings by failure mode F1.. */
	uint64_t s_min, s_max;             /* tokens of a record */
	uint64_t s_hist[HM__W_BUCKETS];     /* ... their histogram */

	/* anthropic, anthropic-stream, answer (writers_anthropic.c, writers_answer.c) */
	int64_t in_tokens;   /* the record's input tokens, -1 when it has none */
	/*
	 * anthropic: the counts among the carried members, met as
	 * hm_writer_begin reads them (the first member of each name):
	 * HM__W_UNSEEN, -1 not a count, else the count.
	 */
	int a_scan;          /* hm_writer_begin passes members to hm_w_anth_member */
	int64_t a_usage_in;  /* usage.input_tokens, else usage.prompt_tokens */
	int64_t a_top_in, a_top_prompt; /* top-level input_tokens, prompt_tokens */
	uint64_t a_reason;   /* anthropic-stream: reasoning tokens so far */
	int a_open;          /* anthropic-stream: a content block is open */
	hm_buf warn;         /* hm_writer_warning: pending text ... */
	int oom;             /* sticky: an allocation failed, output was lost */
	uint64_t warn_at;    /* ... at this position */
	int warn_set;
};


/* JSON helpers. */
void hm__w_key(hm_buf *b, const char *key);
void hm__w_str(hm_buf *b, const char *s, size_t n);
void hm__w_strz(hm_buf *b, const char *s);
void hm__w_id(hm_writer *w, hm_buf *b, const char *prefix, uint64_t n);
int hm__w_reasoning(const struct hm_witem *it);
/*
 * `"id":` and the record's carried id (as JSON), or a made one: prefix
 * and the record number.  A carried id is the id of the whole object in
 * every shape that has one, so that all shapes of one record agree.
 */
void hm__w_object_id(hm_writer *w, hm_buf *b, const char *prefix);
/* Reasoning tokens of the record's items, their stop tokens included. */
uint64_t hm__w_reasoning_tokens(const hm_writer *w);
/* Tokens of one item, its stop token included (none when cut off). */
uint64_t hm__w_item_tokens(const struct hm_witem *it);
/* The Chat function name of a call, as JSON: NAME of functions.NAME, a whole MCP recipient. */
void hm__w_fname(hm_buf *b, const struct hm_witem *it);
/* Classes shown as reasoning (Chat reasoning_content, Anthropic thinking); tool calls. */
static inline int
hm_w_is_thinking(int cls)
{
	return cls == CLS_REASON || cls == CLS_BUILTIN || cls == CLS_WEB;
}

static inline int
hm_w_is_call(int cls)
{
	return cls == CLS_FUNC || cls == CLS_MCP;
}

/*
 * Indent JSON for people, two spaces a level, empty {} and [] kept whole;
 * blanks outside strings are dropped, newlines between top-level values
 * stay.  The state carries over between calls, so output may be fed in
 * any pieces.  Zero-initialise.
 *   struct hm_pretty st = { 0 };
 *   hm__w_pretty(&st, &out, "{\"a\":[1,2]}\n", 12);
 */
struct hm_pretty {
	unsigned depth;
	unsigned char instr, esc, open;
};
void hm__w_pretty(struct hm_pretty *st, hm_buf *b, const char *s, size_t n);

/*
 * HM_WRITER_PRETTY: out is indented into buf as hm_writer_output asks for it
 * (done: the bytes of out taken so far); st and len at the start of the
 * record, for hm_writer_abort to go back to.
 */
struct hm_wpretty {
	hm_buf buf;
	size_t done, rec_len;
	struct hm_pretty st, rec_st;
};

/* writer_core.c: the opening brace and carried fields of an NDJSON record. */
void hm__w_fields_prefix(hm_writer *w);
/*
 * HM_ENOMEM once an append or a count of the writer, or of the message
 * it (may be NULL), has failed: each buffer's flag is sticky until it is
 * emptied, the writer's (oom) for good, so every call says so from then
 * on.  The one place a writer's out of memory is told.
 */
hm_status hm__w_status(hm_writer *w, const struct hm_witem *it);

/* writers_stats.c */
void hm__w_stats_start(hm_writer *w, const struct hm_witem *it);
void hm__w_stats_end(hm_writer *w, const struct hm_witem *it);
void hm__w_stats_done(hm_writer *w);

/* writers_stats.c: the summary line; tokens-per-record histogram buckets */
hm_status hm__w_stats_summary(hm_writer *w);
size_t hm__w_bucket(uint64_t v);
/*
 * The entries of c sorted by key (bytewise), malloc'd; NULL when c has
 * fewer than two (or out of memory): then take c->v as it is.
 */
const struct hm_count **hm__w_sorted(const struct hm_counts *c);
uint64_t hm__w_bucket_lo(size_t b);

/* writers_metrics.c: the summary in Prometheus' text format */
hm_status hm__w_metrics_summary(hm_writer *w);

/* writers_anthropic.c */
#define HM__W_UNSEEN (-2)
/*
 * A token count in the carried form s[0..n): a JSON number that is a
 * whole number from 0 to 2^53 (1.0 and 1e2 are counts), else -1.
 */
int64_t hm__w_count(const char *s, size_t n);
/* usage's input_tokens (else prompt_tokens), u[0..n) an object in the carried form; -1. */
int64_t hm__w_usage_input(const char *u, size_t n);

/*
 * One carried member, key k[0..kn) and value v[0..vn), as hm_writer_begin
 * reads the fields: the counts hm__w_anth_begin looks for (usage's, a
 * top-level input_tokens or prompt_tokens) are noted on the way, so that
 * the members are read once.  Inline: it is called for every member of
 * every record.
 */
static inline void
hm_w_anth_member(hm_writer *w, const char *k, size_t kn, const char *v, size_t vn)
{
	if (kn == 12 && w->a_top_in == HM__W_UNSEEN && !memcmp(k, "input_tokens", 12))
		w->a_top_in = hm__w_count(v, vn);
	else if (kn == 13 && w->a_top_prompt == HM__W_UNSEEN && !memcmp(k, "prompt_tokens", 13))
		w->a_top_prompt = hm__w_count(v, vn);
	else if (kn == 5 && w->a_usage_in == HM__W_UNSEEN && !memcmp(k, "usage", 5))
		w->a_usage_in = vn >= 2 && *v == '{' ? hm__w_usage_input(v, vn) : -1;
}
/* The record's input tokens from the counts noted (in_tokens). */
void hm__w_anth_begin(hm_writer *w);
void hm__w_anth_start(hm_writer *w, struct hm_witem *it);
void hm__w_anth_delta(hm_writer *w, struct hm_witem *it, const char *s, size_t n);
void hm__w_anth_end(hm_writer *w, struct hm_witem *it);
void hm__w_anth_done(hm_writer *w);

/* writers_answer.c */
void hm__w_answer_start(hm_writer *w, struct hm_witem *it);
void hm__w_answer_delta(hm_writer *w, struct hm_witem *it, const char *s, size_t n);
void hm__w_answer_done(hm_writer *w);

/* writers_oai.c */
void hm__w_oai_start(hm_writer *w, struct hm_witem *it);
void hm__w_oai_delta(hm_writer *w, struct hm_witem *it, const char *s, size_t n);
void hm__w_oai_end(hm_writer *w, struct hm_witem *it);
void hm__w_oai_done(hm_writer *w);

#endif
