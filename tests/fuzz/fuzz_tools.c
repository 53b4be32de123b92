/*
 * fuzz_tools - harmony-tools' readers and writers: the input read as tool
 * definitions (auto shape, or one shape drawn from its hash), then the
 * namespace rendered as the renderer writes it and written in every shape,
 * each of which must read back to the same rendered namespace (but for a
 * tool without parameters in mcp and anthropic, which give it an empty
 * object schema, as harmony-tools(1) says, and for a schema so deep that
 * the shape's own wrapping takes it past the nesting limit; numbers
 * compared by place only, see mask_numbers); and the input
 * as a JSON Schema turned into TypeScript.
 */
#include "fuzz.h"

static const hm_tool_shape shapes[] = { HM_TOOLS_CHAT, HM_TOOLS_RESPONSES, HM_TOOLS_MCP,
	                                HM_TOOLS_ANTHROPIC, HM_TOOLS_HARMONY };

static void
no_warning(void *ctx, size_t line, const char *msg)
{
	(void)ctx;
	(void)line;
	FUZZ_CHECK(msg && *msg, "an empty warning");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = size ? (const char *)data : "";
	uint64_t h = fuzz_hash(data, size);
	hm_tools_read_opts o;
	hm_namespace ns;
	hm_error err;
	hm_status st;
	size_t n, i;
	char *ts, *text, *masked;
	int bare = 0;

	st = hm_schema_to_ts(s, size, &ts, &n, &err);
	FUZZ_CHECK(st == HM_OK ? ts != NULL : st == HM_EINPUT && err.msg[0],
	    "hm_schema_to_ts: status %d, %s", (int)st, ts ? "a result" : err.msg);
	free(ts);

	o = (hm_tools_read_opts)HM_TOOLS_READ_OPTS_INIT;
	memset(&ns, 0, sizeof ns);
	o.from = h & 1 ? HM_TOOLS_AUTO : shapes[(h >> 1) % 5];
	o.warn = no_warning;
	st = hm_tools_read(s, size, &o, &ns, &err);
	FUZZ_CHECK(st == HM_OK || st == HM_EINPUT, "status %d", (int)st);
	if (st != HM_OK) {
		FUZZ_CHECK(err.msg[0], "an error without a message");
		hm_namespace_free(&ns);
		return 0;
	}
	if (!ns.name.p)
		FUZZ_CHECK(hm_str_set(&ns.name, "functions", 9) == HM_OK, "oom");
	for (i = 0; i < ns.ntools; i++)
		if (!ns.tools[i].parameters)
			bare = 1;
	text = hm_render_namespace(&ns, &n);
	FUZZ_CHECK(text != NULL, "hm_render_namespace");
	masked = fuzz_dup((const uint8_t *)text, n);
	mask_numbers(masked);
	for (i = 0; i < 5; i++) {
		size_t wl, bl;
		char *w = hm_tools_write(&ns, shapes[i], &wl), *again;
		hm_namespace back;
		hm_tools_read_opts ro;

		FUZZ_CHECK(w != NULL, "hm_tools_write");
		memset(&back, 0, sizeof back);
		ro = (hm_tools_read_opts)HM_TOOLS_READ_OPTS_INIT;
		ro.from = shapes[i];
		FUZZ_CHECK(hm_str_set(&back.name, ns.name.p, ns.name.len) == HM_OK, "oom");
		ro.name_given = 1;
		if (hm_tools_read(w, wl, &ro, &back, &err) != HM_OK) {
			/* A shape's wrapping can take a schema near the limit past it. */
			FUZZ_CHECK(strstr(err.msg, "recursion limit exceeded"),
			           "what hm_tools_write wrote as %s does not read: %s\n%s",
			           hm_tool_shape_name(shapes[i]), err.msg, w);
			free(w);
			hm_namespace_free(&back);
			continue;
		}
		if (shapes[i] == HM_TOOLS_HARMONY && !back.description.p && ns.description.p)
			FUZZ_CHECK(0, "the namespace description is lost");
		if (shapes[i] != HM_TOOLS_HARMONY && ns.description.p &&
		    hm_str_set(&back.description, ns.description.p, ns.description.len) != HM_OK)
			FUZZ_CHECK(0, "oom");
		again = hm_render_namespace(&back, &bl);
		FUZZ_CHECK(again != NULL, "hm_render_namespace");
		mask_numbers(again);
		FUZZ_CHECK((bare && (shapes[i] == HM_TOOLS_MCP || shapes[i] == HM_TOOLS_ANTHROPIC)) ||
		           !strcmp(again, masked),
		           "tools written as %s render otherwise:\n%s\n---\n%s",
		           hm_tool_shape_name(shapes[i]), text, again ? again : "(null)");
		free(again);
		free(w);
		hm_namespace_free(&back);
	}
	free(text);
	free(masked);
	hm_namespace_free(&ns);
	return 0;
}
