/* fuzz_render_chat - harmony-render's chat requests (render.h). */
#define FUZZ_DIALECT HM_DIALECT_CHAT
#include "render.h"
