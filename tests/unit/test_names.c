/*
 * test_names - every public enum's name pair (names.c): each value's name
 * reads back to the value, a name nobody knows and NULL give the
 * enum's UNKNOWN (-1), a value outside the enum the name "?", and the
 * names are the ones the formats and the tools use.
 */
#include "harmony.h"
#include "unit.h"

/* name(v) read back by from_name for every v in [lo, hi], skipping gaps. */
#define ROUND_TRIP(X, type, lo, hi, unknown, gap) do { \
	int v_; \
	for (v_ = (lo); v_ <= (hi); v_++) { \
		if (v_ == (gap)) \
			continue; \
		CHECK_MSG(strcmp(hm_##X##_name((type)v_), "?") != 0, #X " %d has no name", v_); \
		CHECK_MSG(hm_##X##_from_name(hm_##X##_name((type)v_)) == (type)v_, \
		    #X " %d: %s reads back as %d", v_, hm_##X##_name((type)v_), \
		    (int)hm_##X##_from_name(hm_##X##_name((type)v_))); \
	} \
	CHECK(hm_##X##_from_name("no such name") == (unknown)); \
	CHECK(hm_##X##_from_name(NULL) == (unknown)); \
	CHECK(hm_##X##_from_name("") == (unknown)); \
	CHECK(!strcmp(hm_##X##_name((type)((hi) + 1)), "?")); \
	CHECK(!strcmp(hm_##X##_name((unknown)), "?")); \
} while (0)

int
main(void)
{
	ROUND_TRIP(status, hm_status, HM_OK, HM_ENOMEM, HM_STATUS_UNKNOWN, 2);
	ROUND_TRIP(event_type, hm_event_type, HM_EV_START, HM_EV_DONE, HM_EV_UNKNOWN, -2);
	ROUND_TRIP(stop, hm_stop, HM_STOP_NONE, HM_STOP_EOS, HM_STOP_UNKNOWN, -2);
	ROUND_TRIP(failure, hm_failure, HM_F_OTHER, HM_F_TOOL_CHOICE, HM_F_UNKNOWN, 11);
	ROUND_TRIP(shape, hm_shape, HM_TO_MESSAGES, HM_TO_REPORT, HM_TO_UNKNOWN, -2);
	ROUND_TRIP(place_part, hm_place_part, HM_PLACE_HEADER, HM_PLACE_OUTSIDE,
	    HM_PLACE_UNKNOWN, -2);
	ROUND_TRIP(role, hm_role, HM_ROLE_USER, HM_ROLE_TOOL, HM_ROLE_UNKNOWN, -2);
	ROUND_TRIP(effort, hm_effort, HM_EFFORT_NONE, HM_EFFORT_HIGH, HM_EFFORT_UNKNOWN, -2);
	ROUND_TRIP(content_type, hm_content_type, HM_CONTENT_TEXT, HM_CONTENT_DEVELOPER,
	    HM_CONTENT_UNKNOWN, -2);
	ROUND_TRIP(render_mode, hm_render_mode, HM_RENDER_CONVERSATION, HM_RENDER_TRAINING,
	    HM_RENDER_UNKNOWN, -2);
	ROUND_TRIP(dialect, hm_dialect, HM_DIALECT_AUTO, HM_DIALECT_ANTHROPIC,
	    HM_DIALECT_UNKNOWN, -2);
	ROUND_TRIP(tool_shape, hm_tool_shape, HM_TOOLS_AUTO, HM_TOOLS_HARMONY, HM_TOOLS_UNKNOWN, -2);
	ROUND_TRIP(server_item_type, hm_server_item_type, HM_SRV_BEGIN, HM_SRV_DUPLICATE,
	    HM_SRV_UNKNOWN, -2);
	ROUND_TRIP(hint, hm_hint, HM_HINT_NONE, HM_HINT_FIELD_PATH, HM_HINT_UNKNOWN, -2);
	ROUND_TRIP(grammar_form, hm_grammar_form, HM_GRAMMAR_STRUCTURAL_TAG, HM_GRAMMAR_LARK,
	    HM_GRAMMAR_UNKNOWN, -2);

	/* the names the formats and the tools use */
	CHECK(!strcmp(hm_shape_name(HM_TO_CHAT_STREAM), "chat-stream"));
	CHECK(hm_shape_from_name("anthropic-stream") == HM_TO_ANTHROPIC_STREAM);
	CHECK(!strcmp(hm_role_name(HM_ROLE_ASSISTANT), "assistant"));
	CHECK(!strcmp(hm_stop_name(HM_STOP_CALL), "call"));
	CHECK(!strcmp(hm_failure_name(HM_F_RECIPIENT), "F1"));
	CHECK(!strcmp(hm_failure_name(HM_F_REASONING), "F18"));
	CHECK(!strcmp(hm_failure_name(HM_F_HEADER_PROSE), "F22"));
	CHECK(!strcmp(hm_failure_name(HM_F_TOOL_CHOICE), "F23"));
	CHECK(hm_failure_from_name("F19") == HM_F_STOP_ASSUMED);
	CHECK(!strcmp(hm_failure_name((hm_failure)11), "?")); /* no F11 */
	CHECK(hm_failure_from_name("F11") == HM_F_UNKNOWN);
	CHECK(!strcmp(hm_status_name(HM_ENOMEM), "out of memory"));
	CHECK(!strcmp(hm_event_type_name(HM_EV_WARNING), "warning"));
	CHECK(!strcmp(hm_place_part_name(HM_PLACE_STOP), "stop"));
	CHECK(!strcmp(hm_dialect_name(HM_DIALECT_RESPONSES), "responses"));
	CHECK(!strcmp(hm_tool_shape_name(HM_TOOLS_MCP), "mcp"));
	CHECK(!strcmp(hm_content_type_name(HM_CONTENT_SYSTEM), "system_content"));
	CHECK(!strcmp(hm_server_item_type_name(HM_SRV_IDS), "ids"));
	return UNIT_DONE("test_names");
}
