#!/usr/bin/env bats
# grammar.bats - harmony-tools grammar: a request's tool_choice and
# response format as the grammar of its completion, in four engines'
# forms; checked by XGrammar itself (npm @mlc-ai/web-xgrammar under node,
# tests/grammar/check.sh engine: every grammar compiled, each completion fed
# token by token) and by python3-lark (check.sh lark).  Skipped (never
# passed) only when node, npm, the package or lark cannot be had.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export BIN=${HM_BIN:-bin}
	export PATH="$BIN:$PATH"
	F=fixtures/grammar
}

@test "grammar: XGrammar accepts each compliant completion and rejects the others at their first wrong token" {
	run tests/grammar/check.sh engine
	[ "$status" -ne 77 ] || skip "$output"
	echo "$output" | grep -v '^ok ' || true
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^"cases: "([0-9]+)" engine cases ("([0-9]+)" to reject)" ]]
	[ "${BASH_REMATCH[1]}" -ge 300 ]
	[ "${BASH_REMATCH[2]}" -ge 150 ]
	[ "${lines[-1]}" = "engine: ${BASH_REMATCH[1]} cases, 0 failed" ]
	# every form and every kind of mistake was fed
	for f in ebnf gbnf structural-tag; do
		grep -q "^ok $f .* required final\$" <<<"$output"
		grep -q "^ok $f .* none call-channel-first\$" <<<"$output"
		grep -q "^ok $f .* named fixture-model-output\$" <<<"$output"
		grep -q "^ok $f .* missing-argument\$" <<<"$output"
		grep -q "^ok $f .* final-extra-property\$" <<<"$output"
	done
}

@test "grammar: the engine check fails when a non-compliant completion is expected to pass" {
	run env HM_GRAMMAR_BREAK=1 tests/grammar/check.sh engine
	[ "$status" -ne 77 ] || skip "$output"
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" =~ \(([0-9]+)" to reject)" ]]
	[[ "${lines[-1]}" =~ ", ${BASH_REMATCH[1]} failed"$ ]]
}

@test "grammar --to=lark: python3-lark parses the same completions the same way" {
	run tests/grammar/check.sh lark
	[ "$status" -ne 77 ] || skip "$output"
	echo "$output" | grep -v '^ok ' || true
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" =~ ^"lark: "([0-9]+)" cases, 0 failed"$ ]]
	[ "${BASH_REMATCH[1]}" -ge 80 ]
}

@test "grammar: each form of the Chat fixture, as committed" {
	run harmony-tools grammar fixtures/tools/chat.json
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat $F/chat.ebnf)" ]
	for f in gbnf lark; do
		run harmony-tools grammar --to=$f fixtures/tools/chat.json
		[ "$output" = "$(cat $F/chat.$f)" ]
	done
	run harmony-tools grammar --to=structural-tag fixtures/tools/chat.json
	[ "$output" = "$(cat $F/chat.structural-tag.json)" ]
	# valid JSON, the tools' schemas in it as the request has them
	jq -e '.format.elements[1].elements[3].content.json_schema.required == ["location"]' <<<"$output"
}

@test "grammar: what a schema asks that a grammar cannot hold is named in the header" {
	run harmony-tools grammar $F/limits.json
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat $F/limits.ebnf)" ]
	grep -qx '# not held by the grammar (check the output against the schema after): uniqueItems; multipleOf' <<<"$output"
	grep -qx '# tool_choice: required; 1 of 1 tools callable' <<<"$output"
	# format: named with the option that asserts it after the fact (a schema
	# without $schema is 2020-12, where format is an annotation)
	jq -c '.response_format = {type: "json_schema", json_schema: {name: "d", schema:
	    {type: "object", properties: {d: {type: "string", format: "date"}}}}}' \
	    fixtures/tools/chat.json >$BATS_TEST_TMPDIR/req.json
	run harmony-tools grammar $BATS_TEST_TMPDIR/req.json
	[ "$status" -eq 0 ]
	grep -qx '# not held by the grammar (check the output against the schema after): format (2020-12 only annotates it: have the check assert formats)' <<<"$output"
}

@test "grammar: tool_choice from the request, or --tool-choice over it, in every dialect's shape" {
	run harmony-tools grammar --tool-choice=none fixtures/tools/chat.json
	[ "${lines[1]}" = '# tool_choice: none; 0 of 2 tools callable' ]
	grep -q '^tail ::= "<|channel|>" "final" "<|message|>" t$' <<<"$output"
	run harmony-tools grammar --tool-choice='{"type":"function","function":{"name":"get_location"}}' fixtures/tools/chat.json
	[ "${lines[1]}" = '# tool_choice: one named tool; 1 of 2 tools callable' ]
	! grep -q get_current_weather <<<"$output"
	run harmony-tools grammar --tool-choice='{"type":"any"}' fixtures/render/anthropic_tools.json
	[ "${lines[1]}" = '# tool_choice: required (any); 2 of 2 tools callable' ]
	run harmony-tools grammar --tool-choice='{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"get_weather"}]}' \
		fixtures/render/responses_text_format.json
	[ "${lines[1]}" = '# tool_choice: allowed_tools, required; 1 of 1 tools callable' ]
	jq -c '.tool_choice = {"type":"tool","name":"get_location"}' fixtures/render/anthropic_tools.json >"$BATS_TEST_TMPDIR/a.json"
	run harmony-tools grammar "$BATS_TEST_TMPDIR/a.json"
	[ "${lines[1]}" = '# tool_choice: one named tool; 1 of 2 tools callable' ]
	# reasoning left out where asked
	run harmony-tools grammar --no-analysis --tool-choice=none fixtures/tools/chat.json
	[ "${lines[2]}" = '# analysis: left out; final answer: text' ]
	! grep -q '^lead' <<<"$output"
}

@test "grammar: a tool_choice the request cannot meet is an error" {
	run harmony-tools grammar --tool-choice='{"type":"function","function":{"name":"nope"}}' fixtures/tools/chat.json
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-tools: fixtures/tools/chat.json:1: tool_choice: tool 'nope' is not among the request's tools" ]
	run harmony-tools grammar --tool-choice=required fixtures/render/chat_response_format.json
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-tools: fixtures/render/chat_response_format.json:1: tool_choice: required, but the request declares no tools" ]
	run harmony-tools grammar --tool-choice=sometimes fixtures/tools/chat.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"tool_choice: 'sometimes' is not auto, none or required" ]]
}

@test "grammar: usage errors" {
	run harmony-tools grammar --to=yacc fixtures/tools/chat.json
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "harmony-tools: --to must be ebnf, gbnf, lark or structural-tag, not 'yacc'" ]]
	run harmony-tools grammar --from=mcp fixtures/tools/chat.json
	[ "$status" -eq 2 ]
	run harmony-tools render --tool-choice=none fixtures/tools/tools_chat.json
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "harmony-tools: --builtin, --no-analysis and --tool-choice go with grammar" ]]
	run harmony-tools grammar --builtin=shell fixtures/tools/chat.json
	[ "$status" -eq 2 ]
}

@test "grammar --builtin: browser and python calls, channel or recipient first" {
	run harmony-tools grammar --builtin=browser,python fixtures/tools/chat.json
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = '# tool_choice: auto; 6 of 6 tools callable' ]
	grep -q '" to=browser.search"' <<<"$output"
	grep -q '^r[0-9]* ::= .*" to=python".* "<|message|>" t$' <<<"$output"
}
