#!/usr/bin/env bats
# render_formats.bats - structured output: a request's response format
# rendered as the `# Response Formats` section of the developer message.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH"
	F=fixtures/render
}

@test "Chat response_format: the section after the instructions, description as // lines" {
	run harmony-render --to text $F/chat_response_format.json
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat $F/chat_response_format.txt)" ]
	[[ $output == *'You are a helpful shopping assistant

# Response Formats

## shopping_list

// The items to buy.
// One entry an item.
{"properties":{"items":{"type":"array","description":"entries on the shopping list","items":{"type":"string"}}},"type":"object"}<|end|><|start|>user<|message|>'* ]]
	# the ids are the text's
	[ "$(harmony-render $F/chat_response_format.json)" = "$(printf %s "$(cat $F/chat_response_format.txt)" | harmony-tokens encode)" ]
}

@test "Responses text.format: after # Tools; strict is a warning, never dropped in silence" {
	harmony-render --to text $F/responses_text_format.json 2>$BATS_TEST_TMPDIR/err >/dev/null
	[ "$(cat $BATS_TEST_TMPDIR/err)" = "harmony-render: $F/responses_text_format.json:11: text.format: strict is not enforced by a prompt: the schema is rendered for the model to follow, the answer is not constrained" ]
	harmony-render --to text -q $F/responses_text_format.json >$BATS_TEST_TMPDIR/out
	[ "$(cat $BATS_TEST_TMPDIR/out)" = "$(cat $F/responses_text_format.txt)" ]
	grep -q '^} // namespace functions$' $BATS_TEST_TMPDIR/out
	[ "$(grep -A4 '^} // namespace functions$' $BATS_TEST_TMPDIR/out | sed -n 2,5p)" = '
# Response Formats

## forecast' ]
}

@test "Harmony input: developer_content's response_format, written back by --to harmony" {
	harmony-render --to harmony $F/chat_response_format.json >$BATS_TEST_TMPDIR/conv.json
	[ "$(jq -c '.messages[1].content[0].response_format' $BATS_TEST_TMPDIR/conv.json)" = '{"name":"shopping_list","description":"The items to buy.\nOne entry an item.","schema":{"properties":{"items":{"type":"array","description":"entries on the shopping list","items":{"type":"string"}}},"type":"object"}}' ]
	[ "$(harmony-render --to text $BATS_TEST_TMPDIR/conv.json)" = "$(cat $F/chat_response_format.txt)" ]
	[ "$(harmony-render --to harmony $BATS_TEST_TMPDIR/conv.json)" = "$(cat $BATS_TEST_TMPDIR/conv.json)" ]
	# a response format alone makes a developer message
	echo '{"messages":[{"role":"developer","content":[{"type":"developer_content","response_format":{"name":"n","schema":{"type":"object"}}}]},{"role":"user","content":"hi"}]}' |
	    harmony-render --to text >$BATS_TEST_TMPDIR/out
	[[ $(cat $BATS_TEST_TMPDIR/out) == *'<|start|>developer<|message|># Response Formats

## n

{"type":"object"}<|end|>'* ]]
	run harmony-render --to text <<<'{"messages":[{"role":"developer","content":[{"type":"developer_content","response_format":{"schema":{}}}]}]}'
	[ "$status" -eq 1 ]
	[[ $output == *'response_format: missing field `name`'* ]]
}

@test "json_object is a warning and renders nothing; text and no format render as before" {
	jq 'del(.response_format)' $F/chat_response_format.json >$BATS_TEST_TMPDIR/none.json
	jq '.response_format = {"type":"json_object"}' $F/chat_response_format.json >$BATS_TEST_TMPDIR/obj.json
	jq '.response_format = {"type":"text"}' $F/chat_response_format.json >$BATS_TEST_TMPDIR/text.json
	want=$(harmony-render $BATS_TEST_TMPDIR/none.json)
	[[ $(harmony-render --to text $BATS_TEST_TMPDIR/none.json) != *'Response Formats'* ]]
	harmony-render $BATS_TEST_TMPDIR/obj.json >$BATS_TEST_TMPDIR/out 2>$BATS_TEST_TMPDIR/err
	[ "$(cat $BATS_TEST_TMPDIR/out)" = "$want" ]
	[ "$(cat $BATS_TEST_TMPDIR/err)" = "harmony-render: $BATS_TEST_TMPDIR/obj.json:13: response_format: json_object is not rendered: Harmony has no JSON mode (ask for JSON in the instructions, or give a json_schema)" ]
	[ "$(harmony-render $BATS_TEST_TMPDIR/text.json 2>&1)" = "$want" ]
}

@test "a json_schema format without a name or a schema is an error" {
	run harmony-render <<<'{"messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"schema":{}}}}'
	[ "$status" -eq 1 ]
	[[ $output == *'response_format: json_schema needs a `name`'* ]]
	run harmony-render <<<'{"messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"x"}}}'
	[ "$status" -eq 1 ]
	[[ $output == *'response_format: json_schema needs a `schema` object'* ]]
	run harmony-render <<<'{"messages":[{"role":"user","content":"x"}],"response_format":{"type":"grammar"}}'
	[ "$status" -eq 1 ]
	[[ $output == *"response_format: unknown type 'grammar' (text, json_object or json_schema)"* ]]
}
