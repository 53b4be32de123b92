/*
 * dialect_int.h - what the request readers share: the state of one
 * conversion and the helpers that add to it.  lib/dialect.c detects the
 * dialect and drives the readers, one file each (dialect_chat.c,
 * dialect_responses.c, dialect_anthropic.c); lib/dialect_util.c holds the
 * helpers; lib/tools_io.c reads and writes tool definitions.
 */
#ifndef HM_DIALECT_INT_H
#define HM_DIALECT_INT_H

#include "conversation_int.h"

#define NNAMES(a) ((int)(sizeof (a) / sizeof (a)[0]))

/* The state of one conversion. */
typedef struct conv {
	hm_conversation *c;
	hm_buf instr;      /* developer instructions gathered so far */
	int has_instr;
	hm_namespace *fns; /* the functions namespace, once a tool is seen */
	hm_tools tools;    /* developer tools */
	struct call { char *id; char *name; } *calls;
	size_t ncalls;
	hm_error *err;
	hm_status st;      /* how it failed: the first failure's status */
	/*
	 * The conversion's one out-of-memory flag: every append to its buffers
	 * (instr, the readers' scratch buffers) names it; a reader that finds
	 * it set fails with hm__dl_bad(k, HM_ENOMEM), and the conversion's
	 * entry points check it on the way out.
	 */
	int nomem;
	const char *buf;   /* the input text, for line numbers */
	size_t len;
	const hm_jv *at;   /* the value being read: an error's line */
	hm_warn_fn *warn;
	void *warn_ctx;
	/* hm_request_opts' store of turns (dialect_turn.c); NULL none */
	hm_status (*lookup)(void *ctx, int kind, const char *key, size_t len, hm_ids *out,
	    hm_buf *calls);
	void *lookup_ctx;
} conv;

#if defined(__GNUC__)
#define HM_DL_PRINTF __attribute__((format(printf, 3, 4)))
#else
#define HM_DL_PRINTF
#endif

/*
 * The readers below that return hm_status return the conversion's status,
 * k->st, when they fail (the first failure's, kept there by hm__dl_bad);
 * those that return a message return NULL then.
 */
/* An input error at value at (NULL: the value being read). */
hm_status hm__dl_fail_at(conv *k, const hm_jv *at, const char *fmt, ...) HM_DL_PRINTF;
/* A warning at value at, when the caller asked for warnings. */
void hm__dl_warn_at(conv *k, const hm_jv *at, const char *fmt, ...) HM_DL_PRINTF;
#define FAIL(k, ...) hm__dl_fail_at((k), NULL, __VA_ARGS__)

int hm__dl_name_index(const char *const *names, int n, const char *s);
hm_status hm__dl_bad(conv *k, hm_status st);
int hm__dl_is_str(const hm_jv *v);
int hm__dl_is_null(const hm_jv *v);
int hm__dl_streq(const hm_jv *v, const char *s);
const char *hm__dl_a_type(const hm_jv *v);
hm_status hm__dl_opt_string(conv *k, const hm_jv *obj, const char *key,
    const char *where, const hm_jv **out);
hm_message *hm__dl_add_msg(conv *k, hm_role role);
hm_status hm__dl_set(conv *k, hm_str *dst, const char *s, size_t n);
hm_status hm__dl_sets(conv *k, hm_str *dst, const char *s);
hm_status hm__dl_add_text(conv *k, hm_message *m, const char *s, size_t n);
hm_status hm__dl_remember_call(conv *k, const hm_jv *id, const hm_jv *name);
const char *hm__dl_call_name(conv *k, const hm_jv *id);
hm_status hm__dl_content_items(conv *k, hm_message *m, const hm_jv *content,
    const char *where);
hm_status hm__dl_add_instructions(conv *k, const hm_jv *content, const char *where);
/*
 * The request's response format (response_format.c): with d NULL, checks it
 * and warns about what cannot be rendered, *has 1 when there is one to
 * render; with d, fills d's format.
 */
hm_status hm__dl_response_format(conv *k, hm_dialect from, const hm_jv *top,
                                 hm_developer_content *d, int *has);
const hm_jv *hm__dl_tool_schema(conv *k, const hm_jv *t, const char *own,
    const char *where);
hm_status hm__dl_add_function(conv *k, const hm_jv *name, const hm_jv *desc,
    const hm_jv *params, const char *where);
hm_status hm__dl_add_call_jv(conv *k, const hm_jv *name, const hm_jv *args,
    const char *none);
hm_message *hm__dl_add_result(conv *k, const char *name);
hm_status hm__dl_add_channel_text(conv *k, const char *channel, const char *s,
    size_t n);
hm_status hm__dl_effort_field(conv *k, const hm_jv *v, const char *field,
    hm_effort *out);
hm_status hm__dl_chat_tools(conv *k, const hm_jv *tools, const char *field);
hm_status hm__dl_chat_messages(conv *k, const hm_jv *msgs);
hm_status hm__dl_responses_input(conv *k, const hm_jv *input);
hm_status hm__dl_anthropic_blocks_text(conv *k, hm_buf *b, const hm_jv *content,
    const char *where);
hm_status hm__dl_anthropic_messages(conv *k, const hm_jv *msgs);
hm_status hm__dl_anthropic_tools(conv *k, const hm_jv *tools);
hm_status hm__dl_temperature_effort(conv *k, const hm_jv *t, hm_effort *out);
/*
 * dialect_turn.c: the assistant turn read into messages [from, c->n) has
 * brought val, its model's ids packed (ids_pack_int.h; anything else is
 * not ours and ignored): when they parse to this very turn, its messages
 * are replaced by theirs, each with its ids; else a warning names the
 * turn (where) and it stays as read.  A turn that came back without
 * its reasoning matches too.  call, its first tool call's id: with a
 * store (k->lookup), a turn without ids (or whose ids fail) is looked
 * up by it.  reread is the dialect's reader of
 * a turn as harmony-parse writes it in the dialect's shape (out: its JSON
 * object), called back (the readers call this file, never the other way).
 * k->st (HM_ENOMEM).
 */
typedef hm_status hm__dl_reread(conv *k, const hm_jv *out);
hm_status hm__dl_turn(conv *k, hm_dialect d, size_t from, const hm_jv *val, const hm_jv *call,
    const char *where, hm__dl_reread *reread);
/*
 * A Responses request's previous_response_id (id: NULL or null, none):
 * the stored response's messages, each as its ids, after the system and
 * developer messages; an unknown id, or no store, is an error.  k->st.
 */
hm_status hm__dl_previous(conv *k, const hm_jv *id);

#endif
