/*
 * json_schema_int.h - the JSON Schema validator's parts shared inside the
 * library: the regular expressions of `pattern` (json_regex.c) and checking
 * a parsed value against a parsed schema (json_schema.c, for tools_io.c).
 */
#ifndef HM_JSONSCHEMA_INT_H
#define HM_JSONSCHEMA_INT_H

#include <stddef.h>
#include <stdint.h>

#include "harmony.h"
#include "json_val_int.h"

/*
 * A compiled ECMA-262 regular expression, the subset without lookaround
 * and backreferences (see libharmony(3), "JSON Schema"), matched by a
 * Thompson NFA: time is at most (program size) x (text length) steps and
 * memory the program's size, whatever the pattern and the text, so a
 * hostile pattern or value cannot make it backtrack for ever.
 */
typedef struct hm_re hm_re;

/*
 * Compile pat[0..len) (UTF-8) into *out: HM_EINPUT with err[0..errsz)
 * saying what is wrong or unsupported; HM_ENOMEM.
 */
hm_status hm__re_compile(const char *pat, size_t len, hm_re **out, char *err,
                         size_t errsz);
/*
 * 1 when re matches somewhere in s[0..len) (UTF-8), 0 when not; out of
 * memory sets *nomem (the caller's flag) and is 0.
 */
int hm__re_search(const hm_re *re, const char *s, size_t len, int *nomem);
void hm__re_free(hm_re *re);

/* Whether JSON number text s[0..n) is a whole number, exactly (1.0, 1e400: yes). */
int hm__json_is_integer(const char *s, size_t n);

/*
 * Check value against schema (both parsed trees; schema borrowed).  Returns
 * HM_OK (valid), HM_EINPUT (not valid, or the schema cannot be used:
 * *problems counts the problems, msg gets the first few, "; "-separated,
 * each "PATH: KEYWORD: what"), HM_ENOMEM.
 */
hm_status hm__schema_check_jv(const hm_jv *schema, const hm_jv *value,
                              size_t *problems, hm_buf *msg);

#endif
