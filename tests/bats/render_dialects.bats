#!/usr/bin/env bats
# render_dialects.bats - harmony-render: shape detection per JSON value,
# efforts, tool schemas under another shape's key, fields that used to be
# dropped, error lines, --date.  Each test is a regression test for one
# finding of the audit.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH"
	F=fixtures/render
}

@test "two Chat requests in one input are an error naming the file and line, not one conversation" {
	run harmony-render $F/two_chat_requests.json
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-render: $F/two_chat_requests.json:2: a second JSON value after a chat request: give one request per input; use --lines (one request a line)" ]
	# With --lines each is its own request, model, tools and all.
	run harmony-render --lines --to json $F/two_chat_requests.json
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[0]} == *'"harmony_model":true,"model":"gpt-oss-20b","dialect":"chat"'* ]]
	[[ ${lines[1]} == *'"selection_text":"second"'* ]]
	# A Harmony conversation followed by a Chat request is an error too.
	run harmony-render <<<'[{"role":"user","content":"a"}]
{"model":"m","messages":[]}'
	[ "$status" -eq 1 ]
	[[ $output == 'harmony-render: -:2: a chat request after Harmony messages: only Harmony messages and conversations are read one after another'* ]]
	# --from chat says the same.
	run harmony-render --from chat $F/two_chat_requests.json
	[ "$status" -eq 1 ]
	[[ $output == *'.json:2: a second JSON value after a chat request'* ]]
}

@test "a Chat request without model or tools is still Chat when it has Chat-only fields" {
	run harmony-render --to json $F/chat_no_model.json
	[ "$status" -eq 0 ]
	[[ $output == *'"dialect":"chat"'* ]]
	# reasoning_content is kept (analysis before the last final is dropped by
	# the reference's rule, so keep it to see it).
	run harmony-render --to text --keep-analysis $F/chat_no_model.json
	[[ $output == *'<|start|>assistant<|channel|>analysis<|message|>Simple sum.<|end|><|start|>assistant<|channel|>final<|message|>4<|end|>'* ]]
	# Each Chat-only field alone decides.
	for f in '"stream":true' '"max_tokens":9' '"temperature":1' '"n":1' '"tool_choice":"auto"'; do
		run harmony-render --to json <<<"{$f,\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}"
		[[ $output == *'"dialect":"chat"'* ]] || { echo "$f: $output"; return 1; }
	done
	run harmony-render --to json <<<'{"messages":[{"role":"user","content":[{"type":"text","text":"q"}]}]}'
	[[ $output == *'"dialect":"chat"'* ]]
	# Harmony's own fields, or nothing Chat-only, stay Harmony.
	run harmony-render --to json <<<'{"messages":[{"role":"user","content":"q"}]}'
	[[ $output == *'"dialect":"harmony"'* ]]
	run harmony-render --to json <<<'{"messages":[{"role":"assistant","channel":"final","content":[{"type":"text","text":"a"}]}]}'
	[[ $output == *'"dialect":"harmony"'* ]]
	# Both at once: ambiguous, so an error that says which fields.
	run harmony-render <<<'{"model":"gpt-oss","messages":[{"role":"assistant","channel":"final","content":"a"}]}'
	[ "$status" -eq 1 ]
	[ "$output" = 'harmony-render: -:1: the request mixes Harmony fields (messages[0].channel) with Chat fields (model); use --from' ]
}

@test "a plain Anthropic request is Anthropic, so temperature sets the effort" {
	run harmony-render --to text $F/anthropic_plain.json
	[ "$status" -eq 0 ]
	[[ $output == *'Reasoning: low'* ]]
	for f in '"stop_sequences":["x"]' '"top_k":5' '"anthropic_version":"2023-06-01"' '"metadata":{"user_id":"u1"}'; do
		run harmony-render --to json <<<"{$f,\"temperature\":0.9,\"messages\":[{\"role\":\"user\",\"content\":\"q\"}]}"
		[[ $output == *'"dialect":"anthropic"'* ]] || { echo "$f: $output"; return 1; }
	done
	run harmony-render --to json <<<'{"messages":[{"role":"user","content":[{"type":"text","text":"q","cache_control":{"type":"ephemeral"}}]}]}'
	[[ $output == *'"dialect":"anthropic"'* ]]
	# A model not named claude with max_tokens is Chat.
	run harmony-render --to json <<<'{"model":"gpt-oss-20b","max_tokens":9,"messages":[]}'
	[[ $output == *'"dialect":"chat"'* ]]
}

@test "an invalid effort is bad input naming the field" {
	run harmony-render <<<'{"model":"m","reasoning_effort":"bogus","messages":[]}'
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-render: -:1: reasoning_effort: 'bogus' is not a reasoning effort (low, medium, high or minimal)" ]
	run harmony-render <<<'{"model":"m","reasoning_effort":"High","messages":[]}'
	[ "$status" -eq 1 ]
	run harmony-render <<<'{"input":"x","reasoning":{"effort":"bogus"}}'
	[ "$status" -eq 1 ]
	[[ $output == *"reasoning.effort: 'bogus' is not a reasoning effort"* ]]
	run harmony-render <<<'{"system":"s","temperature":"hot","messages":[]}'
	[ "$status" -eq 1 ]
	[ "$output" = 'harmony-render: -:1: temperature: must be a number, not a string' ]
	# minimal is low, null is no effort (the default, medium).
	run harmony-render --to text <<<'{"model":"m","reasoning_effort":"minimal","messages":[]}'
	[[ $output == *'Reasoning: low'* ]]
	run harmony-render --to text <<<'{"model":"m","reasoning_effort":null,"messages":[]}'
	[[ $output == *'Reasoning: medium'* ]]
}

@test "a tool schema under another shape's key is read, with a warning" {
	want=$(harmony-render --to text <<<'{"model":"claude-x","max_tokens":1,"system":"s","tools":[{"name":"get_current_weather","description":"Gets the current weather in the provided location.","input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}],"messages":[{"role":"user","content":"weather?"}]}')
	run harmony-render --to text $F/anthropic_mcp_schema.json
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "harmony-render: $F/anthropic_mcp_schema.json:1: tools[0]: tool 'get_current_weather': schema read from \`inputSchema\` (this shape's key is \`input_schema\`)" ]
	[ "$(harmony-render -q --to text $F/anthropic_mcp_schema.json)" = "$want" ]
	[[ $want == *'location: string,'* ]]
	# Responses tools with input_schema, Chat tools with inputSchema.
	run harmony-render -q --to text <<<'{"input":"x","tools":[{"type":"function","name":"f","input_schema":{"type":"object","properties":{"a":{"type":"string"}}}}]}'
	[[ $output == *'type f = (_: {
a?: string,
}) => any;'* ]]
	run harmony-render --to text <<<'{"model":"m","tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"},"inputSchema":{"type":"string"}}}],"messages":[]}'
	[[ ${lines[0]} == *"tools[0]: tool 'f': \`inputSchema\` ignored, its schema is \`parameters\`" ]]
}

@test "legacy functions, function_call and role function map like tools; user name; refusal" {
	run harmony-render --to text --mode conversation $F/chat_legacy_functions.json
	[ "$status" -eq 0 ]
	[ "$output" = "$(harmony-render --to text --mode conversation $F/chat_modern_functions.json)" ]
	[[ $output == *'<|start|>user:alice<|message|>What is the weather in Tokyo?<|end|><|start|>assistant to=functions.get_current_weather<|channel|>commentary <|constrain|>json<|message|>{"location":"Tokyo"}<|call|><|start|>functions.get_current_weather to=assistant<|channel|>commentary<|message|>{"temperature":20}<|end|><|start|>assistant<|channel|>final<|message|>I cannot share that.<|end|>' ]]
	[[ $output == *'type get_current_weather = (_: {'* ]]
	# Reasoning that is not text is an error, not dropped.
	run harmony-render <<<'{"model":"m","messages":[{"role":"assistant","reasoning_content":{"text":"r"},"content":"a"}]}'
	[ "$status" -eq 1 ]
	[ "$output" = 'harmony-render: -:1: messages[0].reasoning_content: must be a string, not an object' ]
	run harmony-render <<<'{"model":"m","messages":[{"role":"assistant","reasoning":"a","thinking":"b"}]}'
	[ "$status" -eq 1 ]
	[[ $output == *'`reasoning` and `thinking` hold different text; give one' ]]
}

@test "Anthropic tool_result is_error keeps its content as it is" {
	run harmony-render --to text --mode conversation <<<'{"system":"s","messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":"boom"}]}]}'
	[ "$status" -eq 0 ]
	[[ $output == *'<|start|>functions.f to=assistant<|channel|>commentary<|message|>boom<|end|>' ]]
}

@test "a Responses reasoning item with nothing readable is left out, with a warning" {
	run harmony-render --to text --mode conversation --keep-analysis $F/responses_encrypted_reasoning.json
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "harmony-render: $F/responses_encrypted_reasoning.json:2: input[1]: reasoning item with no readable text (only encrypted_content) left out" ]
	[[ $output == *'<|start|>user<|message|>hi<|end|><|start|>assistant<|channel|>analysis<|message|>one
two<|end|><|start|>assistant<|channel|>final<|message|>hello<|end|>'* ]]
	[[ $output != *'<|channel|>analysis<|message|><|end|>'* ]]
	run harmony-render --to text <<<'{"input":[{"type":"reasoning","summary":[{"type":"summary_text","text":""}]}]}'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 'harmony-render: -:1: input[0]: reasoning item with no readable text (empty summary) left out' ]
	[[ $output != *'<|channel|>analysis'* ]]
	# -q silences the warning, not the result.
	run harmony-render -q --to text <<<'{"input":[{"type":"reasoning","summary":[]}]}'
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == '<|start|>system<|message|>'* ]]
}

@test "errors carry FILE:LINE of the value at fault; indexes are the same in every dialect" {
	printf '{"model":"m",\n"messages":[\n{"role":"user","content":"a"},\n{"role":"bogus"}]}\n' >$BATS_TEST_TMPDIR/bad.json
	run harmony-render $BATS_TEST_TMPDIR/bad.json
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-render: $BATS_TEST_TMPDIR/bad.json:4: messages[1]: unknown role 'bogus'" ]
	printf '[\n{"role":"user","content":"a"},\n{"role":"User","content":"b"}]\n' >$BATS_TEST_TMPDIR/bad.json
	run harmony-render $BATS_TEST_TMPDIR/bad.json
	[[ $output == "harmony-render: $BATS_TEST_TMPDIR/bad.json:3: messages[1]: unknown variant \`User\`"* ]]
	printf '{"model":"m",\n"messages":[\n{"role":"user" "x"}]}\n' >$BATS_TEST_TMPDIR/bad.json
	run harmony-render $BATS_TEST_TMPDIR/bad.json
	[ "$output" = "harmony-render: $BATS_TEST_TMPDIR/bad.json:3:16: expected \`,\` or \`}\`" ]
	run harmony-render <<<'{"system":"s","messages":[{"role":"user","content":[{"type":"image"}]}]}'
	[ "$output" = "harmony-render: -:1: messages[0].content[0]: unsupported user block type 'image'" ]
	run harmony-render <<<'{"model":"m","messages":[{"role":"user","content":[{"type":"image_url"}]}]}'
	[ "$output" = "harmony-render: -:1: messages[0].content[0]: unsupported content part type 'image_url'" ]
	# With --lines the line is the record's.
	run harmony-render --lines <<<'[]
{"model":"m","messages":[{"role":"bogus"}]}'
	[ "${lines[1]}" = "harmony-render: -:2: messages[0]: unknown role 'bogus'" ]
	# An empty file is line 1.
	run harmony-render </dev/null
	[ "$output" = 'harmony-render: -:1: empty input: no request' ]
}

@test "--date takes a real YYYY-MM-DD date or today, else a usage error" {
	run harmony-render --to text --date 2024-02-29 <<<'[]'
	[ "$status" -eq 0 ]
	[[ $output == *'Current date: 2024-02-29'* ]]
	for d in 2025-02-29 2023-13-01 2023-00-10 2023-04-31 1900-02-29 0000-01-01 2023-1-01 20230101 yesterday '2023-01-01 ' ''; do
		run harmony-render --date "$d" <<<'[]'
		[ "$status" -eq 2 ] || { echo "'$d' accepted"; return 1; }
		[ "${lines[0]}" = "harmony-render: --date must be a date YYYY-MM-DD or 'today', not '$d'" ]
	done
	run harmony-render --to text --date 2000-02-29 <<<'[]'
	[ "$status" -eq 0 ]
	# The knowledge cutoff is free text, written as given.
	run harmony-render --to text --knowledge-cutoff 'early 2025' <<<'[]'
	[[ $output == *'Knowledge cutoff: early 2025'* ]]
}

@test "tool_choice none keeps the tools in the prompt, as vLLM does for gpt-oss (harmony-render(1))" {
	for f in $F/chat_tools.json $F/responses_tools.json $F/anthropic_tools.json; do
		case $f in
		*anthropic*) tc='{"type":"none"}' ;;
		*) tc='"none"' ;;
		esac
		jq -c "del(.tool_choice)" $f >$BATS_TEST_TMPDIR/plain.json
		jq -c ".tool_choice = $tc" $f >$BATS_TEST_TMPDIR/none.json
		plain=$(harmony-render --to text $BATS_TEST_TMPDIR/plain.json)
		[ "$(harmony-render --to text $BATS_TEST_TMPDIR/none.json)" = "$plain" ]
		# the tools are there: the developer message declares them
		[[ "$plain" == *"namespace functions"* ]] || { echo "$f: $plain"; false; }
		[[ "$plain" == *"Calls to these tools must go to the commentary channel"* ]]
	done
}
