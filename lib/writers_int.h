/*
 * writers_int.h - what the writer modules share: the row of a shape
 * (struct hm_wshape; the table is in writers.c), the messages of a record
 * (struct hm_witem), the writer, and writers_core.c's helpers.  Each shape
 * is a file (writers_messages.c, writers_events.c, writers_text.c,
 * writers_oai.c, writers_anthropic.c, writers_answer.c, writers_stats.c,
 * writers_metrics.c, writers_html.c) holding its own state; docs/writers.md is the map.
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
	OWN_CACHED,       /* usage's {prompt,input}_tokens_details.cached_tokens,
	                   * cache_read_input_tokens, meta_info.cached_tokens */
	OWN_CACHE_WRITE,  /* usage's input_tokens_details.cache_write_tokens, cache_creation_input_tokens */
	OWN_PROMPT,       /* top-level prompt_tokens (a log's own) */
	OWN_INPUT,        /* top-level input_tokens */
	OWN_COMPLETION,   /* top-level completion_tokens */
	OWN_OUTPUT,       /* top-level output_tokens */
	OWN_EVAL_PROMPT,  /* prompt_eval_count (Ollama), tokens_evaluated (llama.cpp) */
	OWN_EVAL,         /* eval_count (Ollama), tokens_predicted (llama.cpp) */
	OWN_META_PROMPT,  /* meta_info.prompt_tokens (sglang) */
	OWN_META_COMPLETION, /* meta_info.completion_tokens (sglang) */
	OWN_COUNTS
};
struct hm_wown {
	hm_buf text;      /* the texts' JSON, one after another */
	size_t off[OWN_TEXTS], len[OWN_TEXTS]; /* len 0: the record has none */
	unsigned char seen[OWN_TEXTS];         /* a member of the name was met */
	int64_t n[OWN_COUNTS];
	int usage_seen;   /* a usage member has been met (the first one counts) */
	int late;         /* hm_writer_late_fields: a member replaces the one noted */
};

/* A small counting map for stats. */
struct hm_count {
	char *key;
	uint64_t n;
};

/* A count that cannot be added sets the writer's nomem (count() in writers_stats.c). */
struct hm_counts {
	struct hm_count *v;
	size_t len, cap;
};

/*
 * One output shape: a row of the table in writers.c (shapes[], indexed
 * by hm_shape).  writers.c reads the events, keeps the messages
 * (struct hm_witem) and calls the shape's functions; a NULL function is
 * a step the shape does nothing at.  docs/writers.md tells how to add one.
 */
struct hm_wkey {
	unsigned char n;
	const char *s;
};
#define HM__W_KEY(lit) { sizeof lit - 1, lit }

enum {
	HM_WS_KEEP = 1 << 0,   /* keeps every message of a record (and its text) to its end */
	HM_WS_ROUTE = 1 << 1,  /* tells the answer from reasoning and calls: a preamble or
	                        * an answer that may be a call attempt is held (PEND_*) */
	HM_WS_OWN = 1 << 2,    /* writes the record's own model, created, usage (struct hm_wown) */
	HM_WS_EVENTS = 1 << 3, /* writes events as they are (event): no messages are kept */
	HM_WS_WHOLE = 1 << 5,  /* written whole at the record's end: an END can still change
	                        * how a message shows (a call attempt, F20) */
	HM_WS_STATS = 1 << 4,  /* its state is struct hm_wstats: hm_writer_merge_summary
	                        * and hm_writer_add_input apply */
	HM_WS_INPUT = 1 << 6,  /* keeps the record's whole input (hm_writer_record_ids,
	                        * _text) in t_in until its done (html) */
	HM_WS_TURN = 1 << 7,   /* HM_WRITER_TOKENS: writes the turn's ids packed
	                        * (hm__w_tokens_turn), its input kept to its done */
};

struct hm_wshape {
	const char *name;            /* as --to spells it (hm_shape_name) */
	const struct hm_wkey *keys;  /* the keys it writes itself, by length, {0} ends; NULL none */
	unsigned flags;              /* HM_WS_* */
	size_t size;                 /* its state (w->st), zeroed by hm_writer_new */
	/* every event, before the writer reads it (HM_WS_EVENTS) */
	void (*event)(hm_writer *w, const hm_event *ev);
	/* a record begins: the state of the last one is forgotten */
	void (*begin)(hm_writer *w);
	/* a message starts, its text comes, it ends (it: the message) */
	void (*start)(hm_writer *w, struct hm_witem *it);
	void (*delta)(hm_writer *w, struct hm_witem *it, const char *s, size_t n);
	void (*end)(hm_writer *w, struct hm_witem *it);
	/* a warning of the parser's */
	void (*warning)(hm_writer *w, const hm_event *ev);
	/* the record ends (w->truncated, w->ntok ... are set) */
	void (*done)(hm_writer *w);
	/* hm_writer_summary: the summary after the last record */
	hm_status (*summary)(hm_writer *w);
	/* hm_writer_free: what the state holds */
	void (*free)(hm_writer *w);
};

/* The rows, one a shape (each in its file). */
extern const struct hm_wshape hm__w_messages, hm__w_events, hm__w_text, hm__w_chat,
    hm__w_chat_stream, hm__w_responses, hm__w_responses_stream, hm__w_chat_completion,
    hm__w_anthropic, hm__w_anthropic_stream, hm__w_answer, hm__w_stats, hm__w_metrics,
    hm__w_html, hm__w_report;

struct hm_writer {
	const struct hm_wshape *def; /* its row: shapes[shape] */
	void *st;                    /* its state, def->size bytes (after the writer) */
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
	/*
	 * The record's own seed of deterministic ids: a hash of its "id"
	 * member (the first), else of its prompt (prompt, prompt_token_ids,
	 * prompt_ids, input_ids), so that the turns of one conversation,
	 * each a record of its own, never share a call or item id.
	 */
	uint64_t seed;
	int seed_from;  /* 0 none (ids are the plain numbers), 1 a prompt, 2 the id */
	/*
	 * The last ids made of a hash (hm__w_id): a stream names its item in
	 * every event.  Keyed by the prefix's address and n; emptied when a
	 * record begins (its seed changes).
	 */
	struct hm_widc {
		const char *prefix;
		uint64_t n;
		char hex[24];
	} idc[4];
	unsigned idc_next;
	hm_turn_fn *turn_fn; /* hm_writer_set_turn_fn */
	void *turn_ctx;
	hm_flush_fn *flush_fn; /* hm_writer_set_flush_fn */
	void *flush_ctx;
	hm_ids prompt;       /* turn_fn: the record's prompt_token_ids (not carried) ... */
	int prompt_ok;       /* ... it had one */
	int64_t created;
	uint64_t rec;
	int in_rec;

	/* the current record */
	struct hm_witem *it;
	size_t nit, capit;
	int cur;      /* index of the open item, -1 none */
	int skip;     /* the open message is filtered out */
	int stray;    /* the next delta is a stray special token's text (F17) */
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

	/* the record's own model, created, usage ... (writers_core.c) */
	int own_scan;        /* hm_writer_begin passes members to hm_w_own_member */
	struct hm_wown own;

	hm_buf warn;         /* hm_writer_warning: pending text ... */
	uint64_t warn_at;    /* ... at this position */
	int warn_set;

	/*
	 * The writer's one out-of-memory flag (sticky: output was lost):
	 * every append to its buffers, its items' and its shape state's
	 * names it, and every other allocation of theirs sets it where it
	 * fails; the public calls check it on their way out (hm__w_status).
	 * The indenting (struct hm_wpretty) has its own.
	 */
	int nomem;
};

/*
 * The state of stats and metrics (writers_stats.c; writers_metrics.c
 * writes its summary): the current record's counts, and the summary's
 * sums, counts, min/max and a histogram, so that the summaries of parts
 * add up to the summary of the whole.
 */
struct hm_wstats {
	/* the current record */
	uint64_t r_msgs, r_reason;
	const char *r_term;
	struct hm_counts r_chan, r_rcpt;
	unsigned nwarn;

	/* the summary */
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
	uint64_t s_errors;                 /* records not read: error lines in their place */
	uint64_t s_rec_lines;              /* lines records, errors and blanks took */
	int s_rec_lines_known;             /* ... counted (line input), in every part */
	int s_rec_lines_unknown;           /* a part did not count them */
};

static inline struct hm_wstats *
hm_w_stats(const hm_writer *w)
{
	return (struct hm_wstats *)w->st;
}



/* Append the string literal l (its length known: no strlen), inline while there is room. */
#define HM__W_LIT(nomem, b, l) hm__put((nomem), (b), (l), sizeof(l) - 1)

/*
 * JSON helpers.  Each append names its owner's out-of-memory flag
 * (nomem: the writer's, &w->nomem, for its buffers and scratch ones);
 * the writers write a string with hm__json_str (buf_int.h).
 */
void hm__w_key(int *nomem, hm_buf *b, const char *key);
void hm__w_strz(int *nomem, hm_buf *b, const char *s);
/* hm__json_str for a buffer that owns itself (the unit tests'). */
void hm__w_str(hm_buf *b, const char *s, size_t n);
/*
 * A message's text s[0..n) as a JSON string (hm__w_msgtext) or its body
 * (hm__w_msgtext_body), into b: into the output, a long one goes in slices
 * with the caller's flush function (hm_writer_set_flush_fn) called
 * between them, so that it is not held twice.
 */
void hm__w_msgtext(hm_writer *w, hm_buf *b, const char *s, size_t n);
void hm__w_msgtext_body(hm_writer *w, hm_buf *b, const char *s, size_t n);
void hm__w_id(hm_writer *w, hm_buf *b, const char *prefix, uint64_t n);
void hm__w_seed_member(hm_writer *w, const char *k, size_t kn, const char *v, size_t vn);
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
void hm__w_fname(int *nomem, hm_buf *b, const struct hm_witem *it);
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
 *   hm__w_pretty_to(&nomem, &st, &out, "{\"a\":[1,2]}\n", 12);
 * hm__w_pretty is the same for a buffer that owns itself (the unit tests').
 */
struct hm_pretty {
	unsigned depth;
	unsigned char instr, esc, open;
};
void hm__w_pretty_to(int *nomem, struct hm_pretty *st, hm_buf *b, const char *s, size_t n);
void hm__w_pretty(struct hm_pretty *st, hm_buf *b, const char *s, size_t n);

/*
 * HM_WRITER_PRETTY: out is indented into buf as hm_writer_output asks for it
 * (done: the bytes of out taken so far); st and len at the start of the
 * record, for hm_writer_abort to go back to.  Its own out-of-memory flag,
 * nomem (hm_writer_output, which indents, has a const writer): set,
 * hm_writer_output returns NULL from then on.
 */
struct hm_wpretty {
	hm_buf buf;
	size_t done, rec_len;
	struct hm_pretty st, rec_st;
	int nomem;
};

/* writers_core.c: the opening brace and carried fields of an NDJSON record. */
void hm__w_fields_prefix(hm_writer *w);

/* writers_core.c: the record's own members (struct hm_wown) */
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
	case 5: case 7: case 9: case 10: case 12: case 13: case 16: case 17: case 18:
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
/*
 * Append the record's text i (OWN_*) as JSON: 0 when it has none (a
 * failed append is in w->nomem).
 */
int hm__w_own_text(hm_writer *w, hm_buf *b, int i);
/* `"model":` and the record's model, else gpt-oss. */
void hm__w_model(hm_writer *w, hm_buf *b);
/*
 * HM_ENOMEM once an allocation of the writer's has failed (w->nomem,
 * sticky: every call says so from then on).  The one place a writer's
 * out of memory is told.
 */
static inline hm_status
hm__w_status(const hm_writer *w)
{
	return w->nomem ? HM_ENOMEM : HM_OK;
}

/* writers_tokens.c: HM_WRITER_TOKENS */
void hm__w_tokens_end(hm_writer *w, const hm_event *ev);
void hm__w_tokens_member(hm_writer *w);
void hm__w_tokens_turn(hm_writer *w, hm_buf *b);
/* The record's turn to hm_writer_set_turn_fn's function (the API shapes, at DONE). */
void hm__w_tokens_store(hm_writer *w);
/* A carried member that is the record's prompt's ids: 1, kept in w->prompt; else 0. */
int hm__w_prompt_member(hm_writer *w, const char *k, size_t kn, const char *v, size_t vn);
/* The record's input is kept for the ids of its messages or its turn. */
#define HM__W_KEEPS_IDS(w) (((w)->flags & HM_WRITER_TOKENS) || (w)->turn_fn)
void hm__w_tokens_drop(hm_writer *w);
void hm__w_tokens_reset(hm_writer *w);
void hm__w_tokens_free(hm_writer *w);

/* writers_stats.c: what metrics shares with stats; tokens-per-record histogram buckets */
void hm__w_stats_start(hm_writer *w, struct hm_witem *it);
void hm__w_stats_end(hm_writer *w, struct hm_witem *it);
void hm__w_stats_warning(hm_writer *w, const hm_event *ev);
void hm__w_stats_begin(hm_writer *w);
void hm__w_stats_count(hm_writer *w);
void hm__w_stats_free(hm_writer *w);
size_t hm__w_bucket(uint64_t v);
/*
 * The entries of c sorted by key (bytewise), malloc'd, in *v; *v NULL when
 * c has fewer than two: then take c->v as it is.  HM_ENOMEM (*v NULL):
 * the caller sets its flag (unsorted would be other bytes).
 */
hm_status hm__w_sorted(const struct hm_counts *c, const struct hm_count ***v);
uint64_t hm__w_bucket_lo(size_t b);
/* The summary's nearest-rank p-th percentile of tokens per record (writers_report.c). */
uint64_t hm__w_percentile(const hm_writer *w, unsigned p);

#endif
