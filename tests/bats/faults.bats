#!/usr/bin/env bats
# faults.bats - fault injection in the style of SQLite's: every allocation
# of a run of each tool, on representative inputs, is made to fail in turn
# (tests/faults/failmalloc.c, an LD_PRELOAD shim; tests/faults/sweep
# drives it).  Each run must give the undisturbed output or end with
# "out of memory" and exit status 3: never a crash, a hang or output lost
# in silence.  harmony-parse's inputs are in faults_parse.bats.

load faults_helpers

@test "faults: harmony-render, every dialect, text and ids, --lines" {
	sweep harmony-render --from chat fixtures/render/chat_tools.json
	sweep harmony-render --from chat --to text fixtures/demo/chat.json
	sweep harmony-render --from responses fixtures/render/responses_tools.json
	sweep harmony-render --from anthropic fixtures/render/anthropic_tools.json
	sweep harmony-render --to text fixtures/render/anthropic_prefill.json
	sweep harmony-render --from chat --to harmony fixtures/tools/turn1.json
	sweep harmony-render --from harmony fixtures/tools/namespace.json
	sweep harmony-render --lines --from chat fixtures/render/two_chat_requests.json
	sweep --stdin fixtures/render/chat_tools.json harmony-render --from chat
}

@test "faults: harmony-tokens encode, decode, inspect, count, diff" {
	sweep harmony-tokens encode fixtures/demo/prompt.txt
	sweep harmony-tokens decode fixtures/demo/completion.ids
	sweep harmony-tokens inspect fixtures/demo/completion.ids
	sweep harmony-tokens inspect --from text fixtures/demo/prompt.txt
	sweep harmony-tokens count fixtures/demo/prompt.txt
	sweep harmony-tokens count --lines fixtures/demo/prompt.txt
	sweep harmony-tokens specials
	sweep harmony-tokens diff fixtures/diff/places-a.ids fixtures/diff/places-b.ids
	sweep harmony-tokens diff --to=json fixtures/diff/places-a.ids fixtures/diff/places-b.ids
	sweep harmony-tokens diff --key id fixtures/diff/log-a.ndjson fixtures/diff/log-b.ndjson
	sweep harmony-tokens diff --prefix fixtures/diff/turns-prev.ids fixtures/diff/turns-next.ids
	sweep harmony-tokens diff --prefix --to=json --key turn fixtures/diff/turns.ndjson fixtures/diff/turns.ndjson
}

@test "faults: harmony-tools render, convert, calls, result" {
	sweep harmony-tools render fixtures/tools/tools_chat.json
	sweep harmony-tools render fixtures/tools/tools_mcp.json
	sweep harmony-tools render fixtures/tools/tools_nested.json
	sweep harmony-tools render fixtures/tools/namespace.json
	sweep harmony-tools convert --to responses fixtures/tools/tools_chat.json
	sweep harmony-tools convert --to anthropic fixtures/tools/tools_responses.json
	sweep harmony-tools calls fixtures/parse/f11-several-calls.in
	sweep harmony-tools calls --check fixtures/tools/tools_chat.json fixtures/parse/f11-several-calls.in
	sweep --stdin fixtures/tools/tools_params.json harmony-tools result --name get_weather --call-id call_0
}

@test "faults: --after: every allocation from the K-th on fails" {
	sweep --after harmony-render --from chat fixtures/render/chat_tools.json
	sweep --after harmony-tokens diff fixtures/diff/places-a.ids fixtures/diff/places-b.ids
	sweep --after harmony-tools convert --to anthropic fixtures/tools/tools_responses.json
	sweep --after harmony-parse --to chat fixtures/demo/completion.ids
	sweep --after harmony-parse --to anthropic fixtures/parse/records/log.ndjson
}
