#!/usr/bin/env bats
# parse_recover.bats - the recoveries of issue 9 (F15-F18, and F6 keeping a
# junk header's message) and of issue 17 (a doubled or run-together role
# word, text after <|end|>, a tool named after <|constrain|>, a content
# type with parameters): fixtures whole and read in chunks, and every
# output shape agreeing on what is reasoning, what is an answer and which
# tools are called.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C
	unset NO_COLOR
	FX=fixtures/parse
}

NEW="f15-recipient-twice f15b-recipient-both-sides f15c-stripped-recipient-twice
f15d-channel-twice f16-recipient-blank f16b-recipient-odd
f16c-stripped-recipient-blank f17-special-in-header f17b-special-in-content
f17c-stripped-special-in-header f17d-special-in-content-ids
f18-prose-reasoning f18b-prose-channel f18c-stripped-prose f18d-prose-alone"

# The fixture NAME read whole, then in chunks of several sizes: the same
# stdout and stderr each time.
fixture_chunked() {
	local n=$1 st=0 bs
	# shellcheck disable=SC2046
	harmony-parse $(cat "$FX/$n.args") <"$FX/$n.in" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" || st=$?
	[ "$st" -eq 0 ] || { echo "$n: exit status $st"; return 1; }
	diff -u "$FX/$n.out" "$BATS_TEST_TMPDIR/out" || return 1
	diff -u "$FX/$n.err" "$BATS_TEST_TMPDIR/err" || return 1
	for bs in 1 2 3 5 7 64; do
		# shellcheck disable=SC2046
		dd if="$FX/$n.in" bs=$bs 2>/dev/null | harmony-parse $(cat "$FX/$n.args") \
		    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" || return 1
		diff -u "$FX/$n.out" "$BATS_TEST_TMPDIR/out" || { echo "$n, reads of $bs"; return 1; }
		diff -u "$FX/$n.err" "$BATS_TEST_TMPDIR/err" || { echo "$n, reads of $bs"; return 1; }
	done
}

@test "F15 a recipient written twice: one call" {
	fixture_chunked f15-recipient-twice
	grep -q 'written twice, read once: .*(F15)$' "$FX/f15-recipient-twice.err"
	[ "$(grep -c '"recipient":"functions.get_weather"' "$FX/f15-recipient-twice.out")" -eq 1 ]
}
@test "F15 to= before and after <|channel|>: the same is one, different keeps the last" {
	fixture_chunked f15b-recipient-both-sides
	grep -q 'different values, the last kept: .*to=functions.lookup.*(F15)$' "$FX/f15b-recipient-both-sides.err"
	[ "$(grep -c '"recipient":"functions.get_weather"' "$FX/f15b-recipient-both-sides.out")" -eq 2 ]
}
@test "F15 stripped specials: a recipient written twice" { fixture_chunked f15c-stripped-recipient-twice; }
@test "F15 <|channel|> twice: the same is one, analysis against final is analysis" {
	fixture_chunked f15d-channel-twice
	[ "$(sed -n 1p "$FX/f15d-channel-twice.out" | jq -r .channel)" = analysis ]
	[ "$(sed -n 2p "$FX/f15d-channel-twice.out" | jq -r .channel)" = final ]
}
@test "F16 a recipient with a blank is kept whole, up to <|constrain|>" {
	fixture_chunked f16-recipient-blank
	grep -q '"recipient":"functions.Web Search"' "$FX/f16-recipient-blank.out"
	grep -q 'not a plain name.*(F16)$' "$FX/f16-recipient-blank.err"
}
@test "F16 hyphen, colon, non-ASCII, a trailing blank" {
	fixture_chunked f16b-recipient-odd
	[ "$(jq -r .recipient "$FX/f16b-recipient-odd.out" | tr '\n' '|')" = 'functions.get-weather|mcp:search.find|functions.météo|functions.Web Search|' ]
}
@test "F16 stripped specials: a recipient with a blank before json{" { fixture_chunked f16c-stripped-recipient-blank; grep -q '"functions.Web Search"' "$FX/f16c-stripped-recipient-blank.out"; }
@test "F17 a special token ends the part before it" {
	fixture_chunked f17-special-in-header
	[ "$(jq -r .recipient "$FX/f17-special-in-header.out" | tr '\n' '|')" = 'functions.manage_cart|functions.f|functions.g|' ]
	! grep -q '<|' <(jq -r '[.recipient, .channel] | join(" ")' "$FX/f17-special-in-header.out")
	fixture_chunked f17c-stripped-special-in-header
	grep -q '"recipient":"functions.manage_cart"' "$FX/f17c-stripped-special-in-header.out"
}
@test "F17 <|start|>assistant or <|channel|>final inside content ends the message; <|start|>b stays text" {
	fixture_chunked f17b-special-in-content
	fixture_chunked f17d-special-in-content-ids
	diff -u "$FX/f17b-special-in-content.out" "$FX/f17d-special-in-content-ids.out"
	[ "$(wc -l <"$FX/f17b-special-in-content.out")" -eq 4 ]
	grep -q '"content":"Done: a<|start|>b stays text."' "$FX/f17b-special-in-content.out"
}
@test "F18 prose without a header before a channelled message is reasoning" {
	fixture_chunked f18-prose-reasoning
	fixture_chunked f18b-prose-channel
	fixture_chunked f18c-stripped-prose
	grep -q '(F18)$' "$FX/f18-prose-reasoning.err"
}
@test "F18 prose with nothing after it stays F8" {
	fixture_chunked f18d-prose-alone
	grep -q '(F8)$' "$FX/f18d-prose-alone.err"
	! grep -q F18 "$FX/f18d-prose-alone.err"
}

# Issue 17: each shape as text, as ids and with the special tokens stripped.
NEW17="f20-role-doubled f20b-role-doubled-ids f20c-stripped-role-doubled
f20d-role-glued f20e-role-glued-ids f20f-stripped-role-glued
f21-after-end f21b-after-end-ids f21c-stripped-after-end
f21d-after-end-variants f21e-after-end-variants-ids f21f-stripped-after-end-variants
f22-constrain-tool f22b-constrain-tool-ids f22c-stripped-constrain-tool
f22d-constrain-variants f22e-constrain-variants-ids f23-ctype-params f23b-ctype-params-ids"

# The fixture's answer (chat content), reasoning and tool calls in one line.
chat_line() {
	# shellcheck disable=SC2046
	harmony-parse -q $(cat "$FX/$1.args") --to chat "$FX/$1.in" |
	    jq -r '[.message.content // "", .message.reasoning_content // "", (.message.tool_calls // [] | map(.function.name + .function.arguments) | join(","))] | join("|")'
}

@test "a role word written twice (assistantassistant) is the role: the answer is kept" {
	for n in f20-role-doubled f20b-role-doubled-ids f20c-stripped-role-doubled; do
		fixture_chunked "$n" || return 1
		[ "$(chat_line "$n")" = '**42**|It is 42.|' ] || { echo "$n: $(chat_line "$n")"; return 1; }
		grep -q 'role written twice, read once: .*(F15)$' "$FX/$n.err"
		! grep -q '"role":"tool"' "$FX/$n.out"
	done
	diff -u "$FX/f20-role-doubled.out" "$FX/f20b-role-doubled-ids.out"
	diff -u "$FX/f20-role-doubled.out" "$FX/f20c-stripped-role-doubled.out"
	# Strict is the reference: it fails on the unknown role.
	run harmony-parse --strict --from text "$FX/f20-role-doubled.in"
	[ "$status" -eq 1 ]
	[[ "$output" == *'Unknown role: assistantassistant'* ]]
}

@test "a role run together with a channel or to= (assistantfinal, assistantcommentary) is the role and that part" {
	for n in f20d-role-glued f20e-role-glued-ids; do
		fixture_chunked "$n" || return 1
		[ "$(jq -r '[.role, .channel // "-", .recipient // "-"] | join(" ")' "$FX/$n.out" | tr '\n' '|')" = \
		    'assistant analysis -|assistant commentary functions.get_weather|tool commentary assistant|assistant analysis -|assistant commentary functions.log|assistant final -|' ]
		[ "$(grep -c 'role run together with the header part after it: .*(F6)$' "$FX/$n.err")" -eq 4 ]
	done
	diff -u "$FX/f20d-role-glued.out" "$FX/f20e-role-glued-ids.out"
	[ "$(chat_line f20d-role-glued)" = "$(printf 'It is 20 degrees in Paris.|The user wants the weather.\nIt is 20 degrees.|get_weather{"city":"Paris"},log{"msg":"ok"}')" ]
	fixture_chunked f20f-stripped-role-glued
	[ "$(chat_line f20f-stripped-role-glued)" = '|Weather.|get_weather{"city":"Paris"}' ]
}

@test "text after <|end|> is a message of its own: the answer llama-server hands over is kept" {
	for n in f21-after-end f21b-after-end-ids; do
		fixture_chunked "$n" || return 1
		[ "$(chat_line "$n")" = 'Bonjour, le monde !|In French.|' ] || { echo "$n: $(chat_line "$n")"; return 1; }
		grep -q 'text without a header taken as content (F8)$' "$FX/$n.err"
		! grep -q '(F9)$' "$FX/$n.err"
		# Not cut off: servers hand the text without its last stop.
		[ "$(harmony-parse -q $(cat "$FX/$n.args") --to stats "$FX/$n.in" | jq .truncated)" = false ]
	done
	diff -u "$FX/f21-after-end.out" "$FX/f21b-after-end-ids.out"
	# Stripped, <|end|> leaves no trace: `analysis` glued to the text makes
	# it all reasoning (F13), nothing lost, nothing of it shown as the answer.
	fixture_chunked f21c-stripped-after-end
	[ "$(jq -r '[.channel, .content] | join(" ")' "$FX/f21c-stripped-after-end.out")" = \
	    'analysis In French.Bonjour, le monde !' ]
	grep -q '(F13)$' "$FX/f21c-stripped-after-end.err"
	[ "$(chat_line f21c-stripped-after-end)" = '|In French.Bonjour, le monde !|' ]
}

# TEXT parsed whole and in reads of several sizes: the same chat line each
# time (answer|reasoning|calls), printed once.
glued_chat() {
	local bs whole got
	whole=$(printf '%s' "$1" | harmony-parse -q --from text --to chat)
	for bs in 1 2 3 5 7 64; do
		got=$(printf '%s' "$1" | dd bs=$bs 2>/dev/null | harmony-parse -q --from text --to chat)
		[ "$got" = "$whole" ] || { echo "reads of $bs: $got, not $whole" >&2; return 1; }
	done
	jq -r '[.message.content // "", .message.reasoning_content // ""] | join("|")' <<<"$whole"
}

@test "F13: a channel name glued to the text with no later header is reasoning; analysis + blank or punctuation stays the answer" {
	[ "$(glued_chat 'analysisIn French.Bonjour, le monde !')" = '|In French.Bonjour, le monde !' ]
	[ "$(glued_chat 'analysisThe user wants French.')" = '|The user wants French.' ]
	[ "$(glued_chat 'assistantanalysisThe user wants French.')" = '|The user wants French.' ]
	[ "$(glued_chat 'analysisÉtude.')" = '|Étude.' ]
	[ "$(glued_chat 'analysisThe user wants French.assistantfinalBonjour')" = 'Bonjour|The user wants French.' ]
	[ "$(glued_chat 'analysis shows growth.')" = 'analysis shows growth.|' ]
	[ "$(glued_chat 'analysis: the data.')" = 'analysis: the data.|' ]
	[ "$(glued_chat 'analysis, in short.')" = 'analysis, in short.|' ]
	[ "$(glued_chat 'finalBonjour')" = 'Bonjour|' ]
	[ "$(glued_chat 'finally, done.')" = 'finally, done.|' ]
	run sh -c "printf 'analysisThe user wants French.' | harmony-parse --from text"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 'harmony-parse: -:1: byte 0: special tokens appear stripped: splitting the text at channel names (F13)' ]
	[ "${lines[1]}" = '{"role":"assistant","content":"The user wants French.","channel":"analysis"}' ]
	# Strict parsing is unchanged: no header, no messages.
	run sh -c "printf 'analysisThe user wants French.' | harmony-parse --strict --from text --to chat"
	[ "$status" -eq 1 ]
	grep -q 'Unexpected EOS while waiting for message header to complete' <<<"$output"
	! grep -q 'F13' <<<"$output"
}

@test "after <|end|> F8/F18/F2 decide; only text after <|return|> or <|call|> is set aside, with a warning" {
	for n in f21d-after-end-variants f21e-after-end-variants-ids; do
		fixture_chunked "$n" || return 1
		[ "$(jq -r '[.channel // "-", .content] | join(" ")' "$FX/$n.out" | tr '\n' '|')" = \
		    'analysis Think.|analysis More, no header.|final Done.|final No start.|- A last line.|' ]
		grep -q 'taken as reasoning (analysis) (F18)$' "$FX/$n.err"
		grep -q 'header without <|start|> after <|end|>: assistant assumed (F2)$' "$FX/$n.err"
		grep -q 'tokens after a stop skipped up to the next <|start|> (F9)$' "$FX/$n.err"
		! grep -q 'Set aside' "$FX/$n.out"
	done
	fixture_chunked f21f-stripped-after-end-variants
	# Stripped: no answer text in the reasoning's place, nothing lost.
	grep -q 'A last line' "$FX/f21f-stripped-after-end-variants.out"
}

@test "a tool named after <|constrain|> is the recipient: a tool call, not an answer" {
	for n in f22-constrain-tool f22b-constrain-tool-ids f22c-stripped-constrain-tool; do
		fixture_chunked "$n" || return 1
		[ "$(chat_line "$n")" = '|The user asks for a horoscope.|get_horoscope{"sign":"Aquarius"}' ] || { echo "$n: $(chat_line "$n")"; return 1; }
		grep -q 'names a tool.*taken as the recipient (F3)$' "$FX/$n.err"
		[ "$(harmony-tools calls "$FX/$n.out" | jq -r .name)" = get_horoscope ]
	done
	diff -u "$FX/f22-constrain-tool.out" "$FX/f22b-constrain-tool-ids.out"
	# Strict is the reference: the recipient vLLM rejected.
	[ "$(harmony-parse -q --strict --from text "$FX/f22-constrain-tool.in" | sed -n 2p | jq -r .recipient)" = '<|constrain|>functions.get_horoscope' ]
	for n in f22d-constrain-variants f22e-constrain-variants-ids; do
		fixture_chunked "$n" || return 1
		[ "$(jq -r '[.recipient // "-", .content_type // "-"] | join(" ")' "$FX/$n.out" | tr '\n' '|')" = \
		    'python -|browser.search -|functions.f json|container.exec -|functions.g <|constrain|>json|- <|constrain|>application/json|' ]
	done
	diff -u "$FX/f22d-constrain-variants.out" "$FX/f22e-constrain-variants-ids.out"
}

@test "a content type with parameters (text/plain; charset=utf-8) is one content type, and renders back the same" {
	for n in f23-ctype-params f23b-ctype-params-ids; do
		fixture_chunked "$n" || return 1
		[ "$(jq -r '.content_type // "-"' "$FX/$n.out" | tr '\n' '|')" = 'text/plain; charset=utf-8|text/markdown;charset=utf-8|-|-|' ]
		! grep -q '"recipient"' "$FX/$n.out"
	done
	[ "$(harmony-render --from harmony --mode conversation --to text "$FX/f23-ctype-params.out")" = "$(cat "$FX/f23-ctype-params.in")" ]
	# Strict is the reference's reading.
	[ "$(harmony-parse -q --strict --role none --from text "$FX/f23-ctype-params.in" | sed -n 1p)" = \
	    '{"role":"system","recipient":"text/plain;","content":"You are terse.","content_type":"charset=utf-8"}' ]
}

@test "every shape agrees on the recovered fixtures" {
	# chat, responses, their streams, text and stats against the messages:
	# tests/bats/shapes_agree.py says what it checks.
	# shellcheck disable=SC2086
	python3 tests/bats/shapes_agree.py "$FX" $NEW $NEW17 f06b-skip
}

@test "real outputs (one completion a line): every call kept, reasoning never in content" {
	fixture_chunked f19-real-outputs
	[ "$(jq -s 'map(.message.tool_calls // [] | length) | add' "$FX/f19-real-outputs.out")" -eq 11 ]
	[ "$(jq -r 'if .message.reasoning_content then input_line_number else empty end' "$FX/f19-real-outputs.out" | tr '\n' ' ')" = '5 10 11 12 13 16 ' ]
	! jq -r '.message.content // empty' "$FX/f19-real-outputs.out" | grep -Eq 'wants|Need|Maybe|Done|<\|'
	! jq -r '.message.tool_calls[]?.function | .name, .arguments' "$FX/f19-real-outputs.out" | grep -q '<|'
}

@test "a channel name read as a recipient (analysis<|message|> after <|start|>assistant) is no tool call: analysis stays reasoning" {
	ids=$(printf 'analysis<|message|>secret plan<|end|><|start|>assistant<|channel|>final<|message|>ok<|return|>' | harmony-tokens encode)
	# messages: the reference's reading, kept (the conformance vectors pin it), with a warning
	run harmony-parse <<<"$ids"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 'harmony-parse: -:1: token 0: channel name "analysis" without <|channel|>: shown on that channel, not as a tool call (F6)' ]
	[ "${lines[1]}" = '{"role":"assistant","recipient":"analysis","content":"secret plan"}' ]
	# chat: reasoning_content, no tool call, nothing of it in content
	run sh -c "echo '$ids' | harmony-parse -q --to chat | jq -c '.message | [.content, .reasoning_content, .tool_calls]'"
	[ "$output" = '["ok","secret plan",null]' ]
	run sh -c "echo '$ids' | harmony-parse -q --to responses | jq -c '[.output[].type]'"
	[ "$output" = '["reasoning","message"]' ]
	run sh -c "echo '$ids' | harmony-parse -q --to chat-stream | grep -c secret"
	[ "$output" = 1 ]
	run sh -c "echo '$ids' | harmony-parse -q --to chat-stream | grep secret | sed 's/^data: //' | jq -c '.choices[0].delta | keys'"
	[ "$output" = '["reasoning_content"]' ]
}

# The stop rule: a whole call (<|call|>, or arguments that are one JSON
# value) ends a completion as a call in every shape, whatever follows it;
# a call cut inside its arguments ends as cut off.  Each line of
# f24-stop-assumed is one completion; want: c (call) or l (length).
stop_of() { # SHAPE: one letter a record, c or l (or s: stop), as that shape says it
	local shape=$1
	case $shape in
	chat) harmony-parse -q --from text --lines --to chat "$FX/f24-stop-assumed.in" |
		jq -r '.finish_reason' ;;
	anthropic) harmony-parse -q --from text --lines --to anthropic "$FX/f24-stop-assumed.in" |
		jq -r '.stop_reason' ;;
	responses) harmony-parse -q --from text --lines --to responses "$FX/f24-stop-assumed.in" |
		jq -r '.status' ;;
	stats) harmony-parse -q --from text --lines --to stats "$FX/f24-stop-assumed.in" |
		jq -r 'if .truncated then "length" else "tool_calls" end' ;;
	*) # the streams, one completion at a time
		while IFS= read -r line; do
			printf '%s' "$line" | harmony-parse -q --from text --to "$shape" |
				grep -o '"finish_reason":"[a-z_]*"\|"stop_reason":"[a-z_]*"\|event: response\.\(completed\|incomplete\)' |
				tail -n 1
		done <"$FX/f24-stop-assumed.in" ;;
	esac | sed -E 's/.*(tool_calls|tool_use|completed).*/c/; s/.*(length|max_tokens|incomplete).*/l/' | tr -d '\n'
}
@test "F19 a whole call without <|call|> ends as a call; one cut in its arguments as cut off; every shape agrees" {
	fixture_chunked f24-stop-assumed
	[ "$(grep -c '(F19)$' "$FX/f24-stop-assumed.err")" -eq 3 ]
	grep -q "^harmony-parse: -:3: .*inside a tool call's arguments: the call is cut off (F10)$" "$FX/f24-stop-assumed.err"
	for shape in chat anthropic responses stats chat-stream anthropic-stream responses-stream; do
		got=$(stop_of "$shape")
		[ "$got" = cclccl ] || { echo "$shape: $got"; return 1; }
	done
	# the partial call is kept
	[ "$(sed -n 3p "$FX/f24-stop-assumed.out" | jq -r '.message.tool_calls[0].function.arguments')" = '{"city":"To' ]
	# events: the assumed stop is a call, and the record is not cut off
	run bash -c "sed -n 1p $FX/f24-stop-assumed.in | tr -d '\n' | harmony-parse -q --from text --to events"
	[ "$(jq -r 'select(.type == "end") | .stop' <<<"$output" | tail -n 1)" = call ]
	[ "$(jq -r 'select(.type == "done") | .truncated' <<<"$output")" = false ]
	# the same from ids, and --strict stays the reference's (cut off, no F19)
	run bash -c "sed -n 1p $FX/f24-stop-assumed.in | tr -d '\n' | harmony-tokens encode | harmony-parse -q --to chat"
	jq -e '.finish_reason == "tool_calls"' <<<"$output"
	run bash -c "sed -n 1p $FX/f24-stop-assumed.in | tr -d '\n' | harmony-parse --strict --from text --to events"
	! grep -q F19 <<<"$output"
}
@test "F20 <|call|> with no recipient is a call attempt: never the answer, in whole shapes and streams" {
	fixture_chunked f25-call-attempt
	[ "$(grep -c '(F20)$' "$FX/f25-call-attempt.err")" -eq 3 ]
	[ "$(jq -r '.message.content' "$FX/f25-call-attempt.out" | tr '\n' '|')" = 'null|null|Checking the forecast.|null|' ]
	for i in 1 2 4; do
		line=$(sed -n "${i}p" "$FX/f25-call-attempt.in")
		[ -z "$(printf '%s' "$line" | harmony-parse -q --from text --to answer)" ]
		! printf '%s' "$line" | harmony-parse -q --from text --to chat-stream | grep -q '"content":'
		! printf '%s' "$line" | harmony-parse -q --from text --to anthropic | jq -e '.content[] | select(.type == "text")' >/dev/null
		! printf '%s' "$line" | harmony-parse -q --from text --to anthropic-stream | grep -q text_delta
		! printf '%s' "$line" | harmony-parse -q --from text --to responses-stream | grep -q output_text.delta
		printf '%s' "$line" | harmony-parse -q --from text --to chat-stream | grep "reasoning_content" | grep -q city
	done
	# a preamble ended by <|end|> is still a preamble
	[ "$(sed -n 3p "$FX/f25-call-attempt.in" | tr -d '\n' | harmony-parse -q --from text --to answer)" = 'Checking the forecast.' ]
	# an answer of prose ended by <|call|>: reasoning in the whole shapes
	p='<|channel|>final<|message|>Let me check that.<|call|>'
	[ "$(printf '%s' "$p" | harmony-parse -q --from text --to chat | jq -r '.message.reasoning_content // "" + "|" + (.message.content // "null")')" = 'Let me check that.' ]
	printf '%s' "$p" | harmony-parse -q --from text --to chat | jq -e '.message.content == null'
	printf '%s' "$p" | harmony-parse -q --from text --to anthropic | jq -e '[.content[].type] == ["thinking"]'
	printf '%s' "$p" | harmony-parse -q --from text --to responses | jq -e '[.output[].type] == ["reasoning"]'
}
@test "F21 a header glued to reasoning or after a call's arguments starts the next message" {
	fixture_chunked f26-glued-header
	[ "$(grep -c '(F21)$' "$FX/f26-glued-header.err")" -eq 4 ]
	[ "$(jq -r '.message.content' "$FX/f26-glued-header.out" | tr '\n' '|')" = '4|null|null|null|Bonjour|null|' ]
	[ "$(sed -n 4p "$FX/f26-glued-header.out" | jq -r '[.message.tool_calls[].function.name] | join(",")')" = a,b ]
	# a word that only begins like a channel stays in the arguments
	[ "$(sed -n 6p "$FX/f26-glued-header.out" | jq -r '.message.tool_calls[0].function.arguments')" = '{"x":1}finally done' ]
	# the reference's reading is untouched
	run bash -c "sed -n 1p $FX/f26-glued-header.in | tr -d '\n' | harmony-parse --strict --from text"
	[ "$(wc -l <<<"$output")" -eq 1 ]
}
@test "F22 prose after <|constrain|> in a header without <|message|> is reasoning, never the answer; a call's stays its arguments" {
	fixture_chunked f27-header-prose
	[ "$(grep -c '(F22)$' "$FX/f27-header-prose.err")" -eq 3 ]
	[ "$(jq -r '.message.reasoning_content' "$FX/f27-header-prose.out" | sed -n 1p)" = 'The answer is 4.' ]
	[ "$(jq -r '.message.content' "$FX/f27-header-prose.out" | tr '\n' '|')" = 'null|4|null|{"a":1}|Done.|' ]
	# a call's header: the call is kept, every word of the prose its arguments
	[ "$(sed -n 5p "$FX/f27-header-prose.out" | jq -c '.message.tool_calls[0].function | [.name, .arguments]')" = \
	    '["lookup","Let me think about which tool fits here."]' ]
	sed -n 5p "$FX/f27-header-prose.in" | tr -d '\n' | harmony-parse --from text 2>/dev/null |
	    jq -se '.[0] | .recipient == "functions.lookup" and (has("content_type") | not)'
}
@test "--reasoning-field=reasoning names the Chat shapes' reasoning as vLLM does" {
	t='<|channel|>analysis<|message|>Hmm.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>'
	run bash -c "printf '%s' '$t' | harmony-parse --from text --to chat --reasoning-field=reasoning"
	jq -e '.message.reasoning == "Hmm." and (.message | has("reasoning_content") | not) and .message.content == "4"' <<<"$output"
	run bash -c "printf '%s' '$t' | harmony-parse --from text --to chat-completion --reasoning-field=reasoning_content"
	jq -e '.choices[0].message.reasoning_content == "Hmm."' <<<"$output"
	run bash -c "printf '%s' '$t' | harmony-parse --from text --to chat-stream --reasoning-field=reasoning"
	[ "$(grep -c '"delta":{"reasoning":' <<<"$output")" -eq 2 ]
	! grep -q reasoning_content <<<"$output"
	run harmony-parse --reasoning-field=thoughts </dev/null
	[ "$status" -eq 2 ]
	[[ $output == *"invalid --reasoning-field"* ]]
}
