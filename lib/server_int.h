/*
 * server_int.h - hm_server's state, shared by the shape readers
 * (server_shapes.c) and the queue of completions with its items
 * (server_queue.c).
 */
#ifndef HM_SERVER_INT_H
#define HM_SERVER_INT_H

#include <stdint.h>

#include "harmony.h"
#include "json_val_int.h"

/* A finish that says "stop" without the token: <|call|> or <|return|> by the header. */
#define STOP_GUESS 1u

enum srv_shape {
	SH_FLAT, SH_OPENAI, SH_OFFLINE, SH_SGLANG, SH_LLAMA, SH_OLLAMA,
	SH_OLLAMA_CHAT, SH_TGI, SH_TRITON, SH_ERROR,
};

/* How a completion comes: not known yet, Harmony text, ids, parsed chat made text. */
enum srv_mode { M_NONE, M_TEXT, M_IDS, M_CHAT };

/* Pieces of a parsed chat message; CHAT_NONE: none yet. */
enum { CHAT_NONE, CHAT_THINK, CHAT_CONTENT, CHAT_CALL };

/* One completion: a whole one waiting for its turn, or a stream's choice. */
struct srv_stream {
	int shape;         /* enum srv_shape */
	hm_buf key;        /* the stream's id member as JSON ("" none) */
	long index;        /* the choice's index, -1 none */
	int mode;          /* enum srv_mode */
	int cum;           /* cumulative chunks: -1 not known yet, 0 no, 1 yes */
	size_t events;     /* chunks with content so far */
	hm_buf fields;     /* carried members, compact, no braces */
	hm_buf rid;        /* the record's "id" as JSON, when has_rid */
	int has_rid;
	size_t line;       /* where its first record began */
	int begun, ended;  /* BEGIN handed out; its finish read */
	int held;          /* ended, END held for a usage chunk that may follow */
	hm_buf late;       /* members of its later chunks (finish, usage), carried form */
	hm_buf pend;       /* content not handed out yet: text ... */
	hm_ids pend_ids;   /* ... or ids */
	hm_buf prev;       /* cumulative: the whole text so far ... */
	hm_ids prev_ids;   /* ... or the ids */
	uint32_t last;     /* the last id (ids) */
	char tail[16];     /* the last bytes of text */
	size_t ntail;
	hm_buf win;        /* text since the last header began, to tell a call */
	int hdr_to;        /* the last header names a recipient (to=) */
	uint32_t stop;     /* the stop token to put back: an id, STOP_GUESS, 0 */
	int chat;          /* parsed chat made text: the last piece's kind (CHAT_*) */
	int is_err;        /* an error record: pend holds its message */
	size_t err_index;
	hm_hint err_hint;
};

/* A step of a --field path: a member name, or (name NULL) an array index. */
struct srv_step {
	char *name;
	long index;
};

struct srv_item {
	hm_server_item it;  /* with pointers (ext) or offsets into the arena */
	int ext;
	size_t off, ioff, idoff;
};

struct hm_server {
	hm_record *rec;            /* log records, in one pass */
	char *field;               /* --field as given */
	struct srv_step *path;
	size_t npath;
	int in_stream;             /* the values come from an SSE stream */
	struct srv_stream **st;    /* open completions, oldest first */
	size_t nst, capst;
	struct srv_item *q;        /* items of the last feed */
	size_t nq, capq, qhead;
	hm_buf arena;              /* their bytes */
	hm_ids arena_ids;          /* their ids */
	hm_ids ids;                /* scratch: a piece's ids */
	int nomem;                 /* an allocation failed: every append to the
	                              buffers above and of its streams names it;
	                              once set, every call says HM_ENOMEM */
};

/*
 * Queue and items (server_queue.c).  The ones that can fail return
 * HM_ENOMEM with sv->nomem set: a public call checks that flag on its
 * way out (hm__srv_status).
 */
void hm__srv_reset_items(hm_server *sv);
/* NULL: none open (an allocation that fails here is in sv->nomem). */
struct srv_stream *hm__srv_find(hm_server *sv, int shape, const hm_jv *key, long index);
hm_status hm__srv_open(hm_server *sv, int shape, const hm_jv *key, long index,
    size_t line, struct srv_stream **out);
hm_status hm__srv_set_id(hm_server *sv, struct srv_stream *st, const hm_jv *id);
hm_status hm__srv_content(hm_server *sv, struct srv_stream *st, const char *t, size_t tn,
    const hm_ids *ids, int prefer_ids, int cum_ok);
hm_status hm__srv_chat_piece(hm_server *sv, struct srv_stream *st, int kind,
    const char *s, size_t n, const char *name, size_t nlen);
hm_status hm__srv_end(hm_server *sv, struct srv_stream *st);
hm_status hm__srv_flush(hm_server *sv);
hm_status hm__srv_error(hm_server *sv, const char *msg, size_t n, const hm_jv *id,
    const char *idjson, size_t line, size_t index, hm_hint hint);
hm_status hm__srv_record(hm_server *sv, size_t line);
hm_status hm__srv_late(hm_server *sv, struct srv_stream *st, const hm_buf *members);
hm_status hm__srv_release(hm_server *sv);
/* v as JSON onto b, a buffer of sv's (or a scratch one of its). */
void hm__srv_jv(hm_server *sv, hm_buf *b, const hm_jv *v);

/* A public call's status on its way out: the one flag. */
static inline hm_status
hm__srv_status(const hm_server *sv)
{
	return sv->nomem ? HM_ENOMEM : HM_OK;
}

#endif
