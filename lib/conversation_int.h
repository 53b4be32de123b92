/*
 * conversation_int.h - internals of the data model shared by the JSON
 * reader, the dialects and the renderer.
 */
#ifndef HM_CONVERSATION_INT_H
#define HM_CONVERSATION_INT_H

#include "facts_int.h"
#include "harmony.h"
#include "json_val_int.h"

/*
 * Take the caller's options src (whose first member is its size) over the
 * defaults in dst (size n): the members the caller's struct has.
 * HM_EINPUT, with err set, for a size of 0; NULL src keeps the defaults.
 */
hm_status hm__opts_take(void *dst, size_t n, const void *src, hm_error *err);
/*
 * The place of a JSON reader's error at buf[off]: err's line and column
 * (bytes, from 1), the numbers its message ends with (" at line L column
 * C", the reference's words).  err may be NULL.
 */
void hm__err_json_at(hm_error *err, const char *buf, size_t len, size_t off);
void hm__seterr(hm_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Read one message object into *m (zeroed first); on error *m is cleared. */
hm_status hm__message_from_jv(const hm_jv *v, hm_message *m, hm_error *err);
/* Read a tools map object ({"key": namespace, ...}) into *t. */
hm_status hm__tools_from_jv(const hm_jv *v, hm_tools *t, hm_error *err);
/* Read one namespace object. */
hm_status hm__namespace_from_jv(const hm_jv *v, hm_namespace *ns, hm_error *err);
/* Release what a message, a tools map or a namespace holds. */
void hm__message_clear(hm_message *m);
void hm__tools_clear(hm_tools *t);
void hm_namespace_free(hm_namespace *ns);
/* Append a tool taking ownership of params (may be NULL). */
hm_status hm__namespace_add_tool_jv(hm_namespace *ns, const char *name,
                                   size_t nlen, const char *desc,
                                   size_t dlen, hm_jv *params);

/* conversation_ids.c: the ids messages were written as, beside them. */
void hm__conv_ids_free(hm_conversation *c);
/* Message i's ids are gone (its reading failed). */
void hm__conv_ids_clear(hm_conversation *c, size_t i);
/* Message at was removed (the others moved down one): so do their ids. */
void hm__conv_ids_remove(hm_conversation *c, size_t at);
/* A message was inserted at index at (the others moved up one). */
hm_status hm__conv_ids_insert(hm_conversation *c, size_t at);
/* Message i's ids from the "tokens" member of its object msg, if it has one. */
hm_status hm__conv_ids_from_jv(hm_conversation *c, size_t i, const hm_jv *msg, hm_error *err);

/* Writers (serde shape) appending to b, whose owner's flag is *nomem. */
void hm__message_write(int *nomem, hm_buf *b, const hm_message *m);
void hm__namespace_write(int *nomem, hm_buf *b, const hm_namespace *ns);
void hm__tool_write(int *nomem, hm_buf *b, const hm_tool *t);

#endif
