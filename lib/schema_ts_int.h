/*
 * schema_ts_int.h - JSON Schema to the TypeScript-like tool text, and the
 * `# Tools` section built from it (spec §3.7, §3.9).
 */
#ifndef HM_SCHEMA_TS_INT_H
#define HM_SCHEMA_TS_INT_H

#include "harmony.h"
#include "json_val_int.h"

/*
 * The writers append to b, a buffer of an object whose out-of-memory flag
 * is *nomem.
 */
/* Append TS(schema, indent spaces). */
void hm__ts_write(int *nomem, hm_buf *b, const hm_jv *schema, size_t indent);
/* Append one namespace block ("## name\n\n..."). */
void hm__namespace_block_write(int *nomem, hm_buf *b, const hm_namespace *ns);
/* Append "# Tools" and every namespace block (t non-empty). */
void hm__tools_section_write(int *nomem, hm_buf *b, const hm_tools *t);

#endif
