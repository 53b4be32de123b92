/*
 * names.c - every public enum's names, in one place: hm_X_name(value)
 * gives the name ("?" for a value outside the enum) and
 * hm_X_from_name(name) the value (HM_..._UNKNOWN, -1, for a name it does
 * not know, or NULL).  The names are the ones the tools and the formats
 * use: shapes as --to spells them, roles and stops as Harmony writes
 * them, failure modes as the warnings cite them (F1 ...).
 */
#include <stdio.h>
#include <string.h>

#include "harmony.h"
#include "facts_int.h"

#define NNAMES(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The index of s among names[0..n) (NULL entries never match), or -1. */
static int
index_of(const char *const *names, int n, const char *s)
{
	int i;

	if (!s)
		return -1;
	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], s))
			return i;
	return -1;
}

static const char *
name_at(const char *const *names, int n, int v)
{
	return v >= 0 && v < n && names[v] ? names[v] : "?";
}

/* Each enum's table, indexed by value (NULL: no value there). */
#define NAMES(type, prefix, ...) \
	static const char *const prefix##_names[] = { __VA_ARGS__ }; \
	const char *hm_##prefix##_name(type v) \
	{ \
		return name_at(prefix##_names, NNAMES(prefix##_names), (int)v); \
	} \
	type hm_##prefix##_from_name(const char *name) \
	{ \
		return (type)index_of(prefix##_names, NNAMES(prefix##_names), name); \
	}

NAMES(hm_status, status, "ok", "bad input", NULL, "out of memory")
NAMES(hm_event_type, event_type, NULL, "start", "delta", "end", "warning", "error", "done")
NAMES(hm_stop, stop, "none", "end", "return", "call", "eos")
NAMES(hm_shape, shape, "messages", "events", "chat", "chat-stream", "responses",
    "responses-stream", "text", "stats", "chat-completion", "anthropic",
    "anthropic-stream", "answer", "metrics", "html", "report")
NAMES(hm_place_part, place_part, NULL, "header", "content", "stop", "outside")
NAMES(hm_effort, effort, "none", "low", "medium", "high")
NAMES(hm_content_type, content_type, "text", "system_content", "developer_content")
NAMES(hm_render_mode, render_mode, "conversation", "completion", "training")
NAMES(hm_dialect, dialect, "auto", "harmony", "chat", "responses", "anthropic")
NAMES(hm_tool_shape, tool_shape, "auto", "chat", "responses", "mcp", "anthropic", "harmony")
NAMES(hm_server_item_type, server_item_type, NULL, "begin", "ids", "text", "end", "error", "duplicate")
NAMES(hm_hint, hint, "none", "dialect", "one-per-line", "field", "field-path")

/* The facts of facts_int.h. */
const char *const hm__role_names[HM__NROLES] = {
	"user", "assistant", "system", "developer", "tool",
};
const char *const hm__chan_names[HM__NCHANS] = { "analysis", "commentary", "final" };
const char *const hm__id_keys[HM__NID_KEYS] = {
	"tokens", "token_ids", "output_ids", "input_ids",
};
const char *const hm__text_keys[] = {
	"text", "completion", "output", "output_text", "content", NULL,
};

const char *
hm_role_name(hm_role v)
{
	return name_at(hm__role_names, HM__NROLES, (int)v);
}

hm_role
hm_role_from_name(const char *name)
{
	return (hm_role)index_of(hm__role_names, HM__NROLES, name);
}

/* The failure modes as the warnings cite them (F1 ...; 0 is "other"). */
NAMES(hm_failure, failure, "other", "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9",
    "F10", NULL, "F12", "F13", "F14", "F15", "F16", "F17", "F18",
    "F19", "F20", "F21", "F22", "F23")

int
hm__role_index(const char *s, size_t len)
{
	int i;

	for (i = 0; i < HM__NROLES; i++)
		if (strlen(hm__role_names[i]) == len && !memcmp(hm__role_names[i], s, len))
			return i;
	return -1;
}
