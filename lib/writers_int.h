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
#include "json_check_int.h"

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
	/*
	 * A message that may be a call attempt (<|call|> with no recipient,
	 * F20): its start and text wait in the writer's held until the
	 * stop tells what it is (PEND_*).
	 */
	unsigned char pend;
	unsigned char jwatch;  /* a call whose arguments may be JSON: jc checks them */
	struct hm_jcheck jc;
};

/* struct hm_witem's pend. */
enum {
	PEND_NONE,
	PEND_LOOK, /* an answer: held until its first non-blank shows it begins as JSON */
	PEND_STOP, /* a preamble, or an answer begun as JSON: held until its stop */
};

/*
 * What a record says of itself that an API shape writes in its own
 * place (model, created, service tier, usage counts), met as
 * hm_writer_begin reads the carried members: the first member of each
 * name wins.  Texts are JSON values (carried form) in text; counts are
 * HM__W_UNSEEN, -1 (not a count) or the count.
 */
enum {
	OWN_MODEL,        /* model, a string */
	OWN_FINGERPRINT,  /* system_fingerprint, a string or null */
	OWN_TIER,         /* service_tier, a string or null */
	OWN_USAGE_TIER,   /* usage.service_tier (Anthropic's place) */
	OWN_TEXTS
};
enum {
	OWN_CREATED,      /* created (Chat Completions) */
	OWN_CREATED_AT,   /* created_at (Responses) */
	OWN_U_PROMPT,     /* usage.prompt_tokens */
	OWN_U_INPUT,      /* usage.input_tokens */
	OWN_U_COMPLETION, /* usage.completion_tokens */
	OWN_U_OUTPUT,     /* usage.output_tokens */
	OWN_CACHED,       /* usage's {prompt,input}_tokens_details.cached_tokens, cache_read_input_tokens */
	OWN_CACHE_WRITE,  /* usage's input_tokens_details.cache_write_tokens, cache_creation_input_tokens */
	OWN_PROMPT,       /* top-level prompt_tokens (a log's own) */
	OWN_INPUT,        /* top-level input_tokens */
	OWN_COMPLETION,   /* top-level completion_tokens */
	OWN_OUTPUT,       /* top-level output_tokens */
	OWN_EVAL_PROMPT,  /* prompt_eval_count (Ollama), tokens_evaluated (llama.cpp) */
	OWN_EVAL,         /* eval_count (Ollama), tokens_predicted (llama.cpp) */
	OWN_COUNTS
};
struct hm_wown {
	hm_buf text;      /* the texts' JSON, one after another */
	size_t off[OWN_TEXTS], len[OWN_TEXTS]; /* len 0: the record has none */
	unsigned char seen[OWN_TEXTS];         /* a member of the name was met */
	int64_t n[OWN_COUNTS];
	int usage_seen;   /* a usage member has been met (the first one counts) */
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
	int whole_call; /* a call of the record is whole: it ends as a call (F19) */
	hm_buf held;    /* the text of the pending message (struct hm_witem's pend) */
	hm_buf chead;   /* chat-stream: the record's chunk head, the same in each chunk ... */
	int chead_ok;   /* ... made for this record */
	/* HM_WRITER_TOKENS (writers_tokens.c): the record's input not yet given to a message */
	hm_buf t_in;        /* ids (uint32_t) or text bytes */
	int t_text;         /* ... text */
	uint64_t t_base;    /* the position of t_in's first unit */
	uint64_t t_from;    /* where the next message's tokens begin */
	uint64_t t_msg0, t_msg1; /* the ending message's tokens */
	hm_encoder *t_enc;  /* text: made when first needed */
	hm_ids t_ids;
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
	uint64_t s_in_lines, s_in_bytes;   /* input the run (or the parts) read */
	int s_in_unknown;                  /* a part merged did not say how much */

	/* the record's own model, created, usage ... (writer_core.c) */
	int own_scan;        /* hm_writer_begin passes members to hm_w_own_member */
	struct hm_wown own;

	/* anthropic, anthropic-stream (writers_anthropic.c) */
	uint64_t a_reason;   /* anthropic-stream, chat-stream: reasoning tokens so far */
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
 * The record ends cut off (length, max_tokens, incomplete): the stream
 * ended inside a message or header, and no call of it is whole.  A whole
 * call ends the completion as a call whatever follows it.
 */
static inline int
hm_w_cut(const hm_writer *w)
{
	return w->truncated && !w->whole_call;
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

/* writer_core.c: the record's own members (struct hm_wown) */
#define HM__W_UNSEEN (-2)
/*
 * A token count in the carried form s[0..n): a JSON number that is a
 * whole number from 0 to 2^53 (1.0 and 1e2 are counts), else -1.
 */
int64_t hm__w_count(const char *s, size_t n);
/* Forget the last record's own members. */
void hm__w_own_reset(hm_writer *w);
/* One carried member, the key one of those struct hm_wown notes (the filter: below). */
void hm__w_own_note(hm_writer *w, const char *k, size_t kn, const char *v, size_t vn);
/*
 * One carried member, key k[0..kn) and value v[0..vn), as hm_writer_begin
 * reads the fields: the record's own members are noted on the way, so
 * that the members are read once.  Inline: it is called for every member
 * of every record, and most are none of ours.
 */
static inline void
hm_w_own_member(hm_writer *w, const char *k, size_t kn, const char *v, size_t vn)
{
	switch (kn) {
	case 5: case 7: case 10: case 12: case 13: case 16: case 17: case 18:
		hm__w_own_note(w, k, kn, v, vn);
		break;
	default:
		break;
	}
}
/* The record's count i (OWN_*), -1 when it has none. */
static inline int64_t
hm_w_own(const hm_writer *w, int i)
{
	return w->own.n[i] >= 0 ? w->own.n[i] : -1;
}
/* The record's input tokens: usage's input_tokens, prompt_tokens, a top-level one; -1. */
int64_t hm__w_own_input(const hm_writer *w);
/* The record's output tokens as it says them (usage's, else top-level); -1. */
int64_t hm__w_own_output(const hm_writer *w);
/* Whether the record has any usage count. */
int hm__w_own_counts(const hm_writer *w);
/* created (responses: created_at) as the record says it, else the writer's. */
int64_t hm__w_own_created(const hm_writer *w, int responses);
/* Append the record's text i (OWN_*) as JSON: 0 when it has none. */
int hm__w_own_text(const hm_writer *w, hm_buf *b, int i);
/* `"model":` and the record's model, else gpt-oss. */
void hm__w_model(const hm_writer *w, hm_buf *b);
/*
 * HM_ENOMEM once an append or a count of the writer, or of the message
 * it (may be NULL), has failed: each buffer's flag is sticky until it is
 * emptied, the writer's (oom) for good, so every call says so from then
 * on.  The one place a writer's out of memory is told.
 */
hm_status hm__w_status(hm_writer *w, const struct hm_witem *it);

/* writers_tokens.c: HM_WRITER_TOKENS */
void hm__w_tokens_end(hm_writer *w, const hm_event *ev);
void hm__w_tokens_member(hm_writer *w);
void hm__w_tokens_drop(hm_writer *w);
void hm__w_tokens_reset(hm_writer *w);
void hm__w_tokens_free(hm_writer *w);

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
