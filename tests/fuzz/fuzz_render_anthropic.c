/* fuzz_render_anthropic - harmony-render's anthropic requests (render.h). */
#define FUZZ_DIALECT HM_DIALECT_ANTHROPIC
#include "render.h"
