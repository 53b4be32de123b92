/* fuzz_render_responses - harmony-render's responses requests (render.h). */
#define FUZZ_DIALECT HM_DIALECT_RESPONSES
#include "render.h"
