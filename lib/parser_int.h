/*
 * parser_int.h - internals shared by the parser's files (parse.c,
 * parse_*.c) and the writers: UTF-8 checking, the tolerant header
 * grammar, and the parser's state and layers.
 */
#ifndef HM_PARSER_INT_H
#define HM_PARSER_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Examine buf[0..n) as UTF-8.  Returns the length of the valid prefix and
 * sets *err to 0 (all valid), the length of the first invalid sequence (the
 * maximal subpart U+FFFD replaces), or -1 when the bytes end inside a
 * sequence that more bytes could complete.
 */
size_t hm__utf8_check(const char *buf, size_t n, int *err);

/* ---------------------------------------------------------------- the tolerant header grammar (parse_header.c) */

#include "buf_int.h"
#include "facts_int.h"
#include "json_check_int.h"

/*
 * The parts of a header, one index for every place that holds them (the
 * tolerant grammar's hm_hdr_parts, the parser's struct hdr, an event's
 * fields, which add the text after them).
 */
enum hm__part { P_NAME, P_RCPT, P_CHAN, P_CTYPE, P_N };

/* What hm__hdr_loose repaired. */
enum {
	HM_HP_REPEAT = 1 << 0,   /* a part written twice */
	HM_HP_DIFFER = 1 << 1,   /* ... with different values: the last kept */
	HM_HP_ANALYSIS = 1 << 2, /* channels differ, one is analysis: analysis */
	HM_HP_SPECIAL = 1 << 4,  /* another special token between the parts */
	HM_HP_EMPTY = 1 << 5,    /* <|channel|>, to= or <|constrain|> with no value */
	HM_HP_BLANK = 1 << 6,    /* blanks between a marker and its value */
	HM_HP_JUNK = 1 << 7,     /* words that are no part: junk_off, junk_len */
	HM_HP_NO_ROLE = 1 << 8,  /* no role where one was needed: assistant */
	HM_HP_LONE = 1 << 9,     /* a lone word taken for the recipient */
	HM_HP_BARE_CHAN = 1 << 10, /* a channel name without <|channel|> */
	HM_HP_ROLE_TWICE = 1 << 11, /* the role word doubled: `assistantassistant` */
	HM_HP_ROLE_GLUED = 1 << 12, /* a role run together: `assistantfinal`, `assistantto=f` */
	HM_HP_CONSTRAIN_RCPT = 1 << 13, /* a tool name after <|constrain|>: the recipient */
	HM_HP_CTYPE_PARAMS = 1 << 14, /* a MIME type's `; name=value` words: the content type's */
};

/*
 * A header's parts, the one type for them: the role (an hm_role, or R_NONE)
 * and each part P_* as off[], len[] into a text the holder names, when
 * has[].
 */
struct hdr {
	int role;
	size_t off[P_N], len[P_N];
	unsigned char has[P_N];
};

/* A header read part by part: its parts are in buf. */
struct hm_hdr_parts {
	struct hdr h;
	unsigned flags;
	size_t junk_off, junk_len; /* into the header text */
	hm_buf buf;                /* the caller frees it */
	int nomem;                 /* an append to buf failed */
};

/*
 * Read the header s[0..n) (valid UTF-8) with the tolerant grammar: the
 * parts in any order, blanks anywhere, a part repeated (the last value
 * kept), a special token ending whatever part it follows.  role: the role
 * already known (0..4), or -1 to read it from the header.  HM_OK, or
 * HM_ENOMEM (out->nomem set).  No name, recipient or channel holds `<|`;
 * a content type does only as its leading `<|constrain|>`.
 */
hm_status hm__hdr_loose(const char *s, size_t n, int role, struct hm_hdr_parts *out);

/* Length of the special-token text (`<|x|>`, or a bare `<|`) at s[i], or 0. */
size_t hm__hdr_mark_len(const char *s, size_t n, size_t i);

/*
 * Whether the text s[0..n) (valid UTF-8) that opens an assistant message
 * before its first special token is prose rather than header words: a
 * word that is no part of a header (`I think.`), not `to=f json`.  Out of
 * memory: 0, and *nomem set.
 */
int hm__hdr_is_prose(int *nomem, const char *s, size_t n);

/* Whether s[0..n) is a content type written bare (json, code, ...). */
int hm__ctype_word(const char *s, size_t n);

/*
 * Whether s[0..n) names a tool (`functions.f`, `browser.search`,
 * `container.exec`, `python`): after <|constrain|> in a message with no
 * recipient it is the recipient, not a content type.
 */
int hm__tool_name(const char *s, size_t n);

/* What hm__hdr_glued found in a word. */
enum {
	HM_GLUE_TWICE = 1, /* the role word more than once */
	HM_GLUE_CHAN = 2,  /* ... then a channel name (assistant only) */
	HM_GLUE_TO = 4,    /* ... then `to=NAME` (assistant only) */
};

/*
 * Whether the word s[0..n) is a role run together with more header:
 * the role twice (`assistantassistant`, any role), or the assistant role
 * followed by a channel name (`assistantfinal`) or by `to=NAME`.  Returns
 * HM_GLUE_* flags (0: none) and sets *role and *rest, where what follows
 * the role words begins.
 */
int hm__hdr_glued(const char *s, size_t n, int *role, size_t *rest);

/* ---------------------------------------------------------------- the parser's state (parse.c, parse_*.c) */

/*
 * The parser is one state machine spread over layers, each calling only
 * the ones below it, each owning one or two parts of the state (struct
 * hm_parser below):
 *
 *   parse.c              the public API: creating, feeding, events out;
 *                         owns the configuration (p_conf)
 *   parse_step.c          the machine (p_machine, p_input): input read one
 *                         unit (token or text run) at a time, the fast path
 *                         for plain content, the end of the stream; F17 and
 *                         F9's kept text, stepped again at their positions.
 *                         The only file that moves the state: the layers
 *                         below return where to go.
 *   parse_header_fix.c    the header (p_header): gathered, read at
 *                         <|message|> (strict, or repaired), or made a
 *                         message when it ends without one
 *   parse_recover.c       the recovery buffers (p_recover): text after a
 *                         stop (F9), units held in content (F17)
 *   parse_content.c       the current message (p_content): started, its
 *                         content, plain text split at stripped specials
 *                         (F13) or a --marker, finished
 *   parse_header_strict.c the reference's header reading (pure)
 *   parse_header.c        the tolerant header grammar (pure)
 *   parse_events.c        the event queue (p_queue): warnings, deltas, held
 *                         events, out of memory; text input's content cut
 *                         as tokens (p_textcut); UTF-8 helpers
 *
 * What they share is below: the parser's state and the functions one layer
 * calls in another (hm__p_ prefix; none is exported from the shared library).
 */

/* Where the parser is. */
enum hm__state { S_START, S_HEADER, S_CONTENT, S_SKIP, S_DONE, S_PEEK };
/* A role as the parser keeps it: hm_role's values, or no role given, or decide. */
enum { R_NONE = -1, R_AUTO = -2 };
/* An event's fields: the header parts, then its text. */
enum { F_TEXT = P_N, F_N };

/* Text input is taken at most this many bytes at a time. */
#define TEXT_UNIT_MAX 8192

/* Default mode: a header longer than this is taken for text. */
#define HDR_MAX_BYTES 65536
/* ... and so is one with this many words (the reference accepts at most 4). */
#define HDR_MAX_WORDS 7

/* Headers remembered with their reading (struct p_header's memo). */
#define HDR_MEMO 8
#define HDR_MEMO_BYTES 256

/* An event queued: its texts are offsets into the queue's arena. */
struct qev {
	hm_event_type type;
	uint64_t at;
	int role;
	size_t off[F_N], len[F_N];
	unsigned char has[F_N];
	hm_stop stop;
	int code, truncated;
	uint64_t tokens; /* DONE */
};

/*
 * The parser's state, by concern.  Each part is written by one file, its
 * owner (named beside it in struct hm_parser); the other files read it and
 * change it through the owner's functions below.  tests/lib/parser-owners
 * checks this.
 */

/* What the parser was created with (parse.c). */
struct p_conf {
	unsigned flags;
	int strict;
	int role0;        /* the role given at creation (R_AUTO, R_NONE, 0..4) */
	int merge;        /* join runs of content tokens into one delta */
	hm_buf marker;    /* hm_parser_set_marker's text, or empty */
	int cont;         /* hm_parser_set_continue: the stream continues a message ... */
	int cont_chan;    /* ... on a channel ... */
	hm_buf cont_name; /* ... named so */
	uint32_t wide;    /* ids below it: 16 bytes can be read at their start */
};

/* Where the machine is (parse_step.c). */
struct p_machine {
	enum hm__state state;
	int first;        /* no unit seen yet */
	int next_role;    /* role for the first header, R_NONE once used */
	int first_msg;    /* the header is the stream's first */
	int started;      /* a header has begun */
	int after_end;    /* the last stop was an <|end|> that ended a message */
	int no_start;     /* the header is text after <|end|>, without <|start|> */
	int saw_special;  /* a special token has come */
	uint64_t skip_warned; /* last skip warning, +1 */
	uint64_t pos;     /* index of the current unit (text: its byte offset) */
	uint64_t unit_end; /* text: offset just past the current unit */
};

/* The input fed and how far it is read (parse_step.c). */
struct p_input {
	int text_mode;
	hm_ids ids;       /* ids fed; read up to ipos */
	size_t ipos;
	hm_buf text;      /* text fed; read up to tpos */
	size_t tpos;
	int fin, done;    /* no more input; the end has been stepped */
	hm_buf run;       /* the fast path's joined run of content tokens */
	/* HM_PARSE_COUNT: the text fed, encoded as a stream to be counted */
	hm_encoder *cnt_enc;
	hm_ids cnt_ids;
	uint64_t cnt;
};

/* The header being gathered and read (parse_header_fix.c). */
struct p_header {
	hm_buf text;      /* the header as gathered */
	uint64_t at;      /* where it began */
	uint64_t off;     /* text: offset of its first byte */
	int bad;          /* strict: an unknown id in it */
	size_t nwords;    /* ASCII-whitespace separated words so far */
	size_t wmax;      /* taken for text at this many words */
	size_t wofs[24];  /* where word HDR_MAX_WORDS << k began */
	int inword;
	hm_buf hs, wbuf, tmp, norm; /* scratch for reading it */
	/*
	 * Default mode: headers read before without a warning, and what they
	 * read as.  The reading is a function of the header's text and the
	 * role given, so a header met again (models write a few, over and
	 * over) skips the grammar.  Up to HDR_MEMO of them, each at most
	 * HDR_MEMO_BYTES long, replaced in turn; the array is allocated with
	 * the first one (a parser per short record stays small).
	 */
	struct hdr_memo {
		hm_buf text;  /* the header as gathered */
		int role;     /* the role given for it (R_NONE: none) */
		struct hdr h; /* its reading: offsets into hs */
		hm_buf hs;    /* the fields' text */
	} *memo;
	unsigned memo_n, memo_next; /* entries in use; the next one replaced */
};

/* An F12 warning due where the content gets to off. */
struct tmark {
	uint64_t off, at;
	unsigned shift;
	const char *msg;
};

/* The current message and its content (parse_content.c). */
struct p_content {
	hm_buf m;         /* name, recipient, channel, content type */
	struct hdr mh;
	int in_msg;
	hm_buf pend;      /* undecoded content bytes */
	int poisoned;     /* strict: an unknown id in this content */
	int plain;        /* the message is text without any structure */
	int special;      /* the text now given is a special token's */
	/* splitting plain text into channels (F13, --marker) */
	int split;        /* SPLIT_*: how content is watched as it goes out */
	size_t strip_scan; /* F13: no header glue before this in the header */
	hm_buf hold;      /* held-back text that may begin a pattern */
	struct tmark *hmk; /* F12 warnings due in hold, off into it */
	size_t nhmk, caphmk;
	hm_buf tmp, hs;   /* scratch */
	/* default mode: a tool call's arguments (F19, F21) */
	int jcall;        /* the message is a call whose arguments may be JSON */
	struct hm_jcheck jc; /* ... whether they are one JSON value so far */
	/*
	 * ids: the arguments kept, checked only if the call ends without its
	 * stop (cheaper than checking each token); past ARGS_KEPT they are
	 * checked as they come (jfed).
	 */
	hm_buf args;
	int jfed;
	uint64_t after_at; /* ids, SPLIT_AFTER: the token the text after the value begins in */
};

/* Bytes of a call's arguments kept before they are checked as they come. */
#define ARGS_KEPT 65536

/* struct p_content's split: how content is watched as it goes out. */
enum {
	SPLIT_OFF,       /* content goes out as it comes */
	SPLIT_STRIPPED,  /* F13: split at stripped headers anywhere */
	SPLIT_MARKER,    /* --marker: split once at the marker */
	SPLIT_CALL,      /* a call's arguments: text after a whole value may be a header (F21) */
	SPLIT_AFTER,     /* ... text after the whole value held: is it a header? */
	SPLIT_REASON,    /* reasoning: `assistantfinal` glued into it starts a message (F21) */
};

/* Text input: content cut into tokens (parse_events.c, tc_add). */
struct p_textcut {
	hm_buf buf;       /* content text not yet final */
	uint64_t at;      /* byte offset of the message's content */
	uint64_t len;     /* content bytes taken so far */
	uint64_t shift;   /* bytes U+FFFD added over what it replaced */
	struct tmark *mk; /* F12 warnings due, from mk_head */
	size_t mk_head, nmk, capmk;
	hm_encoder *enc;
	hm_ids tids;
};

/* The event queue (parse_events.c); out of memory is the parser's (hm_parser.nomem). */
struct p_queue {
	struct qev *v;
	size_t head, len, cap;
	hm_buf arena;     /* the events' texts */
	/*
	 * F18: the events of a first message without a header wait in the
	 * queue from hq (its texts from arena[ha]) until the next message
	 * starts, which tells whether it was reasoning; hstart is its START.
	 * holding: 1 F18, 2 text after a stop (F9), whose events end at jend.
	 * hprose: the message held (holding 1) is prose from a header that
	 * never reached <|message|> on a channel of the answer (F22).
	 */
	int holding, hprose;
	size_t hq, ha, hstart, jend;
	int alone;        /* the last delta is a special token's: no text joins it */
	int trunc;        /* ended inside a header or message */
	int failed;       /* the out-of-memory error was delivered: no more events */
};

/* Recovery buffers (parse_recover.c). */
struct p_recover {
	/*
	 * F9: text after <|return|> or <|call|> waits here (after <|end|>
	 * text is read as a header instead): kept as a message when another
	 * message follows, skipped when the stream ends.
	 */
	hm_buf junk;
	uint64_t junk_at, junk_end;
	int junk_on;
	/*
	 * F17: <|start|> or <|channel|> inside content waits here with the
	 * units after it until they tell a new header (`assistant`, `final`)
	 * from text (the reference keeps such tokens as text).
	 */
	struct punit {
		uint32_t id;
		int special, known;
		size_t off, len;
		uint64_t pos, end;
	} *pk;
	size_t npk, cappk;
	hm_buf pkb;
};

/*
 * nomem is the parser's one out-of-memory flag, the one member every file
 * writes: each append to one of the parser's buffers (its parts' and the
 * scratch buffers of its functions) names it (hm__add(&p->nomem, ...)),
 * and every other allocation sets it where it fails (hm__p_realloc).
 * hm__p_run stops stepping once it is set, and the public calls check it
 * on their way out: hm_parser_next reports HM_ENOMEM as an error event,
 * the feeds return it.  hm_parser_reset clears it.  A step that meets it
 * set may stop early: its events are dropped.
 */
struct hm_parser {
	int nomem;             /* every file: an allocation failed */
	struct p_conf cf;      /* parse.c */
	struct p_machine st;   /* parse_step.c */
	struct p_input in;     /* parse_step.c */
	struct p_header h;     /* parse_header_fix.c */
	struct p_content c;    /* parse_content.c */
	struct p_textcut t;    /* parse_events.c */
	struct p_queue q;      /* parse_events.c */
	struct p_recover r;    /* parse_recover.c */
};


/* ASCII whitespace as Rust's u8::is_ascii_whitespace (Unicode's: hm__is_uws). */
static inline int
hm__p_is_aws(unsigned char c)
{
	/* ' ', '\t', '\n', '\f', '\r' as bits of one word. */
	return c <= ' ' && (UINT64_C(0x100003600) >> c & 1);
}

/* How a message starts (hm__p_emit_start). */
enum {
	HM__MSG_PLAIN = 1 << 0,    /* text without any structure */
	HM__MSG_STRIPPED = 1 << 1, /* its text split at stripped headers (F13) */
	HM__MSG_MARKER = 1 << 2,   /* ... at the --marker text */
};

/* Whether the queue has nothing to deliver (held events wait). */
static inline int
hm__p_queue_drained(const hm_parser *p)
{
	return p->q.head == (p->q.holding ? p->q.hq : p->q.len);
}

/* Whether the next unit may take the fast path (hm__p_fast). */
static inline int
hm__p_fast_ok(const hm_parser *p)
{
	return p->q.head == p->q.len && p->st.state == S_CONTENT &&
	    !p->in.text_mode && p->in.ipos < p->in.ids.len && !p->c.pend.len &&
	    !p->c.poisoned && !p->c.split && !p->q.holding;
}

/*
 * One layer calls another through these (each file's comments tell what
 * a function does).  A function that ends what a state was for returns
 * the state to go to; only parse_step.c moves there.
 */

/* realloc for the parser: NULL (out of memory) sets p->nomem. */
static inline void *
hm__p_realloc(hm_parser *p, void *v, size_t n)
{
	void *q = realloc(v, n);

	if (!q)
		p->nomem = 1;
	return q;
}

/* parse_events.c: the queue (struct p_queue), text cut into tokens (struct p_textcut) */
int hm__p_add_lossy(int *nomem, hm_buf *b, const char *s, size_t n);
int hm__p_is_prose(hm_parser *p, const char *s, size_t n);
void hm__p_truncated(hm_parser *p, uint64_t at, const char *msg);
void hm__p_push_start(hm_parser *p, uint64_t at, const struct hdr *h,
    const char *base);
void hm__p_push_end(hm_parser *p, uint64_t at, hm_stop stop);
void hm__p_push_done(hm_parser *p, uint64_t at, uint64_t tokens);
void hm__p_warn(hm_parser *p, uint64_t at, int code, const char *fmt,
    const char *arg, size_t arglen);
void hm__p_fail(hm_parser *p, uint64_t at, const char *msg, size_t n);
void hm__p_fails(hm_parser *p, uint64_t at, const char *msg);
void hm__p_delta(hm_parser *p, const char *s, size_t n);
void hm__p_tc_release(hm_parser *p, int all);
void hm__p_out_text(hm_parser *p, const char *s, size_t n);
void hm__p_content_begin(hm_parser *p, uint64_t at);
void hm__p_mark_push(hm_parser *p, struct tmark **v, size_t *n, size_t *cap,
    const struct tmark *m);
void hm__p_tc_mark(hm_parser *p, const struct tmark *m);
size_t hm__p_find(const char *s, size_t n, const char *pat, size_t from);
size_t hm__p_char_at(const char *s, size_t n, size_t i, uint32_t *cp);
void hm__p_hold_release(hm_parser *p, int reasoning);
void hm__p_hold_mark(hm_parser *p);
void hm__p_hold_on(hm_parser *p, int kind);
void hm__p_hold_end(hm_parser *p);
void hm__p_hold_drop(hm_parser *p);
void hm__p_hold_skip(hm_parser *p);
void hm__p_queue_mark(const hm_parser *p, size_t *len, size_t *alen);
void hm__p_queue_rewind(hm_parser *p, size_t len, size_t alen);
void hm__p_queue_recycle(hm_parser *p);
const struct qev *hm__p_queue_pop(hm_parser *p);
int hm__p_queue_fail(hm_parser *p, hm_event *ev);
void hm__p_events_reset(hm_parser *p);
void hm__p_events_free(hm_parser *p);

/* parse_header_strict.c: pure functions (their buffers' owner's flag passed in) */
hm_status hm__p_parse_header(int *nomem, hm_buf *hs, hm_buf *words, hm_buf *msg,
    const char *s, size_t n, int role, int parse_target, struct hdr *h);

/* parse_content.c: the current message (struct p_content) */
void hm__p_emit_start(hm_parser *p, const struct hdr *h, const char *base,
    uint64_t at, uint64_t content_at, unsigned how);
int hm__p_mh_is(const hm_parser *p, int f, const char *s);
void hm__p_finish_msg(hm_parser *p, hm_stop stop);
void hm__p_content_bytes_to(hm_parser *p, const char *s, size_t n, uint64_t end);
void hm__p_content_bytes(hm_parser *p, const char *s, size_t n);
void hm__p_content_special(hm_parser *p, const char *s, size_t n);
/* ... with its warning at `at`, and (text) end the offset just past its bytes. */
void hm__p_content_special_to(hm_parser *p, const char *s, size_t n, uint64_t at, uint64_t end);
/*
 * Content s[0..n) that was a header's text (F7, F8: a header that never
 * reached <|message|>), its first byte at text offset off: the
 * special-token text in it goes out as a special token's in content
 * does (hm__p_content_special), each warning at its byte (text) or at
 * the current unit (ids, where the deltas are); the rest as content bytes.
 */
void hm__p_content_body(hm_parser *p, const char *s, size_t n, uint64_t off);
void hm__p_content_unknown(hm_parser *p, uint32_t id);
int hm__p_stripped_start(hm_parser *p, int at_end);
/* Content s[0..n) of a call that went out by the fast path: its arguments checked (F19). */
void hm__p_call_args(hm_parser *p, const char *s, size_t n);
/*
 * Ids: the delta s[0..n) of a call's arguments, made by the fast path.
 * n when it all goes out as it is (checked, and what follows a whole
 * value then held: F21); else the byte where a whole value ended with
 * more after it in the delta: then nothing of it is checked yet, and
 * the units from the one that byte lies in are for the step to read
 * again (SPLIT_CALL), the ones before them out with hm__p_call_args.
 */
size_t hm__p_call_run(hm_parser *p, const char *s, size_t n);
void hm__p_content_reset(hm_parser *p);
void hm__p_content_free(hm_parser *p);

/* parse_header_fix.c: the header (struct p_header) */
void hm__p_header_begin(hm_parser *p, uint64_t at);
void hm__p_header_add(hm_parser *p, const char *s, size_t n);
void hm__p_header_cut(hm_parser *p, size_t n);
void hm__p_header_unknown(hm_parser *p, uint32_t id);
size_t hm__p_header_split(hm_parser *p, int role, struct hdr *h, int *consumed);
int hm__p_header_bare(hm_parser *p);
int hm__p_header_prose(hm_parser *p);
int hm__p_header_too_long(hm_parser *p);
enum hm__state hm__p_header_done(hm_parser *p, int role);
enum hm__state hm__p_header_recover(hm_parser *p, int role, hm_stop stop,
    int go_on);
void hm__p_header_reset(hm_parser *p);
void hm__p_header_free(hm_parser *p);

/* parse_recover.c: the recovery buffers (struct p_recover) */
void hm__p_junk_open(hm_parser *p, uint64_t at, const char *s, size_t n);
void hm__p_junk_add(hm_parser *p, const char *s, size_t n);
int hm__p_junk_role(hm_parser *p);
int hm__p_junk_header(hm_parser *p);
void hm__p_junk_close(hm_parser *p);
hm_buf hm__p_junk_take(hm_parser *p);
void hm__p_peek_open(hm_parser *p);
void hm__p_peek_add(hm_parser *p, uint32_t id, int special, const char *s,
    size_t n);
void hm__p_peek_take(hm_parser *p, struct punit **v, size_t *n, hm_buf *b);
void hm__p_recover_reset(hm_parser *p);
void hm__p_recover_free(hm_parser *p);

/* parse_step.c: the machine and its input (struct p_machine, struct p_input) */
void hm__p_machine_init(hm_parser *p);
void hm__p_step(hm_parser *p, uint32_t id, int special, const char *s, size_t n);
void hm__p_eos(hm_parser *p);
hm_status hm__p_input_ids(hm_parser *p, const uint32_t *ids, size_t n);
hm_status hm__p_input_text(hm_parser *p, const char *buf, size_t len);
void hm__p_input_end(hm_parser *p);
void hm__p_input_skip(hm_parser *p);
void hm__p_input_reset(hm_parser *p);
void hm__p_input_free(hm_parser *p);
int hm__p_fast(hm_parser *p, hm_event *ev);
void hm__p_run(hm_parser *p);

#endif
