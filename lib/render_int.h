/*
 * render_int.h - the renderer's segment list (spec §3.1): the rendering
 * is a sequence of special tokens and text pieces, each piece encoded on
 * its own.  Ids and text are both produced from it.
 */
#ifndef HM_RENDER_INT_H
#define HM_RENDER_INT_H

#include "harmony.h"
#include "buf_int.h"

#define HM_SEG_TEXT UINT32_MAX

typedef struct hm_seg {
	uint32_t id;     /* a special token, or HM_SEG_TEXT */
	size_t off, len; /* text piece in the segment list's buffer */
} hm_seg;

typedef struct hm_segs {
	hm_buf text;
	hm_seg *v;
	size_t n, cap;
	int nomem; /* the one out-of-memory flag: text's appends and v's growth */
} hm_segs;

/* Render c as segments; the caller frees with hm__segs_free. */
hm_status hm__render_segs(const hm_conversation *c, const hm_render_opts *o,
                         hm_segs *out, hm_error *err);
void hm__segs_free(hm_segs *s);
/* Text of a structural special token (`<|start|>`). */
const char *hm__render_special_text(uint32_t id);

#endif
