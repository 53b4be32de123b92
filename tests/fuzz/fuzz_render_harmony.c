/* fuzz_render_harmony - harmony-render's harmony requests (render.h). */
#define FUZZ_DIALECT HM_DIALECT_HARMONY
#include "render.h"
