/*
 * buf_int.h - UTF-8 helpers shared by every module that produces text (the
 * buffer itself, hm_buf, is public in harmony.h).
 */
#ifndef HM_BUF_INT_H
#define HM_BUF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "harmony.h"

/* hm_buf and its appenders are public: see harmony.h. */

/* Append a UTF-8 encoded code point. */
void hm__buf_add_cp(hm_buf *b, uint32_t cp);

/* hm_utf8_decode is public: see harmony.h. */

#endif
