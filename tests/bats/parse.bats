#!/usr/bin/env bats
# parse.bats - harmony-parse against fixtures/parse: one fixture per
# recovery (F1-F14) with its warnings, every output shape, records,
# streaming and the CLI conventions.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C
	unset NO_COLOR
	FX=fixtures/parse
}

# Run the fixture NAME: NAME.args on NAME.in, stdout vs NAME.out, stderr vs NAME.err.
fixture() {
	local n=$1 st=0
	# shellcheck disable=SC2046
	harmony-parse $(cat "$FX/$n.args") <"$FX/$n.in" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" || st=$?
	[ "$st" -eq 0 ] || { echo "$n: exit status $st"; return 1; }
	diff -u "$FX/$n.out" "$BATS_TEST_TMPDIR/out" || return 1
	diff -u "$FX/$n.err" "$BATS_TEST_TMPDIR/err" || return 1
}

@test "F1 recipient after the channel" { fixture f01-recipient-after-channel; }
@test "F1 'to= name' glued" { fixture f01b-to-space; grep -q '(F1)$' "$FX/f01b-to-space.err"; }
@test "F1 'to= name' before and after the channel" { fixture f01c-to-blank; [ "$(grep -c 'recipient (F1)$' "$FX/f01c-to-blank.err")" -eq 2 ]; }
@test "F6 blanks after <|channel|> are dropped" { fixture f06c-channel-blank; ! grep -q '(F5)' "$FX/f06c-channel-blank.err"; }
@test "F6 a header cut by <|start|> is restarted, not an empty message" { fixture f06d-restarted-header; [ "$(wc -l <"$FX/f06d-restarted-header.out")" -eq 2 ]; [ "$(grep -c 'restarted (F6)$' "$FX/f06d-restarted-header.err")" -eq 2 ]; }
@test "F3 '<|constrain|> json' with a blank is a content type" { fixture f03c-constrain-blank; }
@test "blanks after the markers, no <|message|>: the same header words" {
	run bash -c "printf '<|channel|> final The answer<|return|><|start|>assistant<|channel|>commentary to= functions.f <|constrain|> json {}<|call|>' | harmony-parse -q --from text"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"role":"assistant","content":"The answer","channel":"final"}' ]
	[ "${lines[1]}" = '{"role":"assistant","recipient":"functions.f","content":"{}","channel":"commentary","content_type":"<|constrain|>json"}' ]
}
@test "F7 prose where the channel's name goes is text, whole (issue 35, shape c)" {
	fixture f07b-channel-prose
	# with a real final it is reasoning; alone it is the answer, its first word kept
	grep -q '"content":"NOTE: the user wants 2+2, which is 4.","channel":"analysis"' "$FX/f07b-channel-prose.out"
	run bash -c "printf '<|channel|>Answer: 5, since 2+3=5.<|end|>' | harmony-parse -q --from text --to chat"
	[ "$status" -eq 0 ]
	[ "$(jq -r .message.content <<<"$output")" = 'Answer: 5, since 2+3=5.' ]
	# a channel name is still a channel, prose after it still content
	run bash -c "printf '<|channel|>final The answer<|return|>' | harmony-parse -q --from text"
	[ "$output" = '{"role":"assistant","content":"The answer","channel":"final"}' ]
}
@test "F22 prose in a header before a real final is reasoning on any channel (issue 35, shape a)" {
	fixture f07c-prose-before-final
	fixture f07d-prose-before-final-ids
	[ "$(grep -c '"channel":"analysis"' "$FX/f07c-prose-before-final.out")" -eq 2 ]
	run bash -c "harmony-parse -q --from text --to chat <$FX/f07c-prose-before-final.in"
	[ "$(jq -r .message.content <<<"$output")" = 'It is sunny.' ]
	[ "$(jq -r .message.reasoning_content <<<"$output")" = $'I should check the weather first.\nI will answer now.' ]
	run bash -c "harmony-parse -q --from text --to answer <$FX/f07c-prose-before-final.in"
	[ "$output" = 'It is sunny.' ]
	# alone it is still the answer, before a call still the preamble (F7)
	run bash -c "printf '<|channel|>commentary I will look.<|end|><|start|>assistant<|channel|>commentary to=functions.f<|message|>{}<|call|>' | harmony-parse -q --from text --to chat"
	[ "$(jq -r .message.content <<<"$output")" = 'I will look.' ]
	# --strict reads it as the reference does: no recovery
	run bash -c "harmony-parse --strict --from text <$FX/f07c-prose-before-final.in"
	[ "$status" -ne 0 ]
}
@test "F17 a special token left in the answer is no text for the user, text in messages (issue 35, shape b)" {
	fixture f17e-special-in-answer
	[ "$(jq -r .message.content "$FX/f17e-special-in-answer.out")" = 'The answer is 4.' ]
	# reasoning keeps it as text, as messages do everywhere (the reference's reading)
	[ "$(jq -r .message.reasoning_content "$FX/f17e-special-in-answer.out")" = 'Check<|message|> the sum.' ]
	run bash -c "harmony-parse -q --from text <$FX/f17e-special-in-answer.in"
	[ "${lines[1]}" = '{"role":"assistant","content":"The answer<|message|> is 4.","channel":"final"}' ]
	for to in answer chat-stream responses responses-stream anthropic anthropic-stream; do
		run bash -c "harmony-parse -q --from text --to $to <$FX/f17e-special-in-answer.in"
		[ "$status" -eq 0 ]
		[[ "$output" != *'answer<|message|>'* ]] || { echo "$to: $output"; return 1; }
	done
	run bash -c "harmony-parse -q --from text --to answer <$FX/f17e-special-in-answer.in"
	[ "$output" = 'The answer is 4.' ]
	# ids alike; a call's arguments keep it
	run bash -c "harmony-tokens encode <$FX/f17e-special-in-answer.in | harmony-parse -q --to answer"
	[ "$output" = 'The answer is 4.' ]
	run bash -c "printf '<|channel|>commentary to=functions.f<|message|>{\"a\":\"x<|message|>\"}<|call|>' | harmony-parse -q --from text --to chat"
	[ "$(jq -r '.message.tool_calls[0].function.arguments' <<<"$output")" = '{"a":"x<|message|>"}' ]
}
@test "F17 a special token left in the answer is no text for the user in split text and in a header's text made content too (issue 35, shape b)" {
	fixture f17f-special-in-stripped
	fixture f17g-special-in-header-text
	fixture f17h-special-in-header-text-ids
	[ "$(jq -r .message.content "$FX/f17f-special-in-stripped.out")" = 'The answer is 4.' ]
	[ "$(jq -r .message.reasoning_content "$FX/f17f-special-in-stripped.out")" = 'Think hard.' ]
	for n in f17g-special-in-header-text f17h-special-in-header-text-ids; do
		[ "$(jq -r .message.content "$FX/$n.out")" = 'The answer is 4.' ]
	done
	for n in f17f-special-in-stripped f17g-special-in-header-text f17h-special-in-header-text-ids; do
		args=$(sed 's/ --to chat//' "$FX/$n.args")
		for to in answer chat-stream responses responses-stream anthropic anthropic-stream; do
			run bash -c "harmony-parse -q $args --to $to <$FX/$n.in"
			[ "$status" -eq 0 ]
			[[ "$output" != *'answer<|'* ]] || { echo "$n $to: $output"; return 1; }
			# nothing else is lost: the text after the token is there
			[[ "$output" == *'is'* ]] || { echo "$n $to: $output"; return 1; }
		done
		run bash -c "harmony-parse -q $args --to answer <$FX/$n.in"
		[ "$(printf '%s' "$output" | tr -d '\n')" = 'The answer is 4.' ]
		# messages keep it as text, as the reference does
		run bash -c "harmony-parse -q $args <$FX/$n.in"
		[[ "$output" == *'"content":"The answer<|'* ]]
	done
}
@test "F21 role and channel words glued after a call's arguments in a header without <|message|> end the call (issue 35, shape d)" {
	fixture f21g-glued-after-call-header
	fixture f21h-glued-after-call-header-ids
	for n in f21g-glued-after-call-header f21h-glued-after-call-header-ids; do
		run bash -c "harmony-parse -q $(cat "$FX/$n.args") --to chat <$FX/$n.in"
		[ "$(jq -r .message.content <<<"$output")" = 'It is sunny in Paris.' ]
		[ "$(jq -r '.message.tool_calls[0].function.name' <<<"$output")" = get_weather ]
		[ "$(jq -r '.message.tool_calls[0].function.arguments' <<<"$output")" = '{"city":"Paris"}' ]
	done
	# words that are no header after the value stay in the header, as before
	run bash -c "printf '<|channel|>commentary to=functions.f json{\"a\":1}assistant said<|channel|>final<|message|>x<|return|>' | harmony-parse -q --from text"
	[[ "$output" != *'"content":"{\"a\":1}"'* ]]
}
@test "F21 role and channel words glued after a call's arguments after a real <|message|> end the call from ids as from text (issue 35, shape d)" {
	fixture f21i-glued-after-call-message
	fixture f21j-glued-after-call-message-ids
	# the same messages from text and from ids
	diff "$FX/f21i-glued-after-call-message.out" "$FX/f21j-glued-after-call-message-ids.out"
	grep -q '^harmony-parse: -:1: token 24: .*(F21)$' "$FX/f21j-glued-after-call-message-ids.err"
	for to in chat chat-completion; do
		run bash -c "harmony-parse -q --from ids --to $to <$FX/f21j-glued-after-call-message-ids.in | jq -c '.message // .choices[0].message'"
		[ "$(jq -r .content <<<"$output")" = 'It is sunny in Paris.' ]
		[ "$(jq -r '.tool_calls[0].function.arguments' <<<"$output")" = '{"city":"Paris"}' ]
	done
	run bash -c "harmony-parse -q --from ids --to answer <$FX/f21j-glued-after-call-message-ids.in"
	[ "$output" = 'It is sunny in Paris.' ]
	# the header's tokens are the next message's (--with-tokens)
	run bash -c "harmony-parse -q --from ids --with-tokens <$FX/f21j-glued-after-call-message-ids.in | jq -c .tokens"
	[ "${lines[2]}" = '[173781,17196,3206,382,46726,306,12650,13,200002]' ]
	# words after the value that are no header stay in the arguments, from ids too
	run bash -c "printf '<|channel|>commentary to=functions.f<|message|>{\"a\":1} and more<|call|>' | harmony-tokens encode | harmony-parse -q"
	[ "$output" = '{"role":"assistant","recipient":"functions.f","content":"{\"a\":1} and more","channel":"commentary"}' ]
	# --strict reads them as the reference does: one call, the words in it
	run bash -c "harmony-parse --strict --from ids <$FX/f21j-glued-after-call-message-ids.in"
	[[ "$output" == *'Paris\"}assistantfinalIt is sunny'* ]]
}
@test "F2 completion starting with <|channel|>, later without <|start|>" { fixture f02-channel-first; grep -q '(F2)$' "$FX/f02-channel-first.err"; }
@test "F2 --role none on a stream without <|start|>: nothing lost" { fixture f02b-role-none-no-start; grep -q 'assistant assumed (F2)$' "$FX/f02b-role-none-no-start.err"; ! grep -q F9 "$FX/f02b-role-none-no-start.err"; }
@test "F3 <|constrain|>JSON on final" { fixture f03-constrain; grep -q '(F3)$' "$FX/f03-constrain.err"; }
@test "F3 lone json is a content type" { fixture f03b-lone-json; }
@test "F4 tool call on analysis" { fixture f04-call-on-analysis; grep -q '(F4)$' "$FX/f04-call-on-analysis.err"; }
@test "F5 bare function name" { fixture f05-bare-name; grep -q '(F5)$' "$FX/f05-bare-name.err"; }
@test "F6 junk in headers repaired or skipped" { fixture f06-junk-header; fixture f06b-skip; grep -q 'kept as analysis.*(F6)$' "$FX/f06b-skip.err"; }
@test "F7 missing <|message|>" { fixture f07-no-message; grep -q '(F7)$' "$FX/f07-no-message.err"; }
@test "F8 plain text without a header" { fixture f08-plain-text; grep -q '(F8)$' "$FX/f08-plain-text.err"; }
@test "F9 stray stop, text after a stop, call ended by <|return|>" { fixture f09-after-stop; [ "$(grep -c '(F9)$' "$FX/f09-after-stop.err")" -eq 3 ]; }
@test "F10 truncated in content and in a header" { fixture f10-truncated-content; fixture f10b-truncated-header; }
@test "F11 several tool calls" { fixture f11-several-calls; }
@test "F12 an incomplete character at the end of stripped text belongs to the last message" {
	fixture f12b-stripped-incomplete-end
	grep -q '"content":"xyz�"' "$FX/f12b-stripped-incomplete-end.out"
	grep -q 'byte 28: incomplete UTF-8 .*(F12)$' "$FX/f12b-stripped-incomplete-end.err"
	for n in 1 2 3 5 7; do
		run bash -c "dd if=$FX/f12b-stripped-incomplete-end.in bs=$n 2>/dev/null | harmony-parse -q --from text"
		[ "$output" = "$(cat "$FX/f12b-stripped-incomplete-end.out")" ]
	done
}
@test "F12 invalid UTF-8 in --marker text: a warning each, at its byte, whatever the reads" {
	fixture f12c-marker-invalid
	[ "$(grep -c '"code":"F12"' "$FX/f12c-marker-invalid.out")" -eq 2 ]
	grep -q 'byte 16: invalid UTF-8 in content .*(F12)$' "$FX/f12c-marker-invalid.err"
	grep -q 'byte 32: incomplete UTF-8 .*(F12)$' "$FX/f12c-marker-invalid.err"
	grep -q '"type":"end","at":18,' "$FX/f12c-marker-invalid.out"
	for n in 1 2 3 5 7; do
		run bash -c "dd if=$FX/f12c-marker-invalid.in bs=$n 2>/dev/null | harmony-parse -q $(cat "$FX/f12c-marker-invalid.args")"
		[ "$output" = "$(cat "$FX/f12c-marker-invalid.out")" ]
	done
}
@test "F12 invalid UTF-8 and unknown ids" { fixture f12-invalid-utf8; [ "$(grep -c '(F12)$' "$FX/f12-invalid-utf8.err")" -eq 3 ]; }
@test "F13 stripped special tokens" { fixture f13-stripped; }
@test "F13 a stripped tool call: recipient and content type" { fixture f13b-stripped-call; fixture f13d-stripped-renderer-order; }
@test "F13 a stripped preamble, then final" { fixture f13c-stripped-preamble; }
@test "F13 plain text starting with a channel name stays plain" { fixture f13e-not-stripped; ! grep -q F13 "$FX/f13e-not-stripped.err"; }
@test "F14 recipient assistant" { fixture f14-recipient-assistant; }
@test "--marker splits plain text" { fixture marker; }

@test "F10 gives finish_reason length and status incomplete" {
	run bash -c "harmony-parse -q --to chat $FX/f10-truncated-content.in"
	[ "$status" -eq 0 ]
	[ "$(jq -r .finish_reason <<<"$output")" = length ]
	run bash -c "harmony-parse -q --to responses $FX/f10-truncated-content.in"
	[ "$(jq -r .status <<<"$output")" = incomplete ]
	[ "$(jq -r '.output[-1].status' <<<"$output")" = incomplete ]
}

@test "every --to shape matches its fixture" {
	for s in chat chat-stream responses responses-stream events stats text; do
		for f in call final; do
			harmony-parse --to "$s" "$FX/$f.ids" >"$BATS_TEST_TMPDIR/out"
			diff -u "$FX/$f.$s" "$BATS_TEST_TMPDIR/out"
		done
	done
	harmony-parse --to responses "$FX/web.ids" | diff -u "$FX/web.responses" -
	harmony-parse --to responses-stream "$FX/web.ids" | diff -u "$FX/web.responses-stream" -
}

@test "chat: the shape clients read" {
	run harmony-parse --to chat "$FX/call.ids"
	[ "$status" -eq 0 ]
	jq -e '.index == 0 and .message.role == "assistant" and .message.content == null
	    and .message.reasoning_content == "Need weather."
	    and (.message.tool_calls | length) == 1
	    and .message.tool_calls[0].type == "function"
	    and (.message.tool_calls[0].id | startswith("call_"))
	    and .message.tool_calls[0].function.name == "get_weather"
	    and (.message.tool_calls[0].function.arguments | fromjson | .city) == "Tokyo"
	    and .finish_reason == "tool_calls"' <<<"$output"
}

@test "chat-stream: chunks, tool call deltas, [DONE]" {
	run harmony-parse --to chat-stream "$FX/call.ids"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "data: [DONE]" ]
	grep '^data: {' <<<"$output" | sed 's/^data: //' >"$BATS_TEST_TMPDIR/chunks"
	jq -se 'all(.[]; .object == "chat.completion.chunk" and (.choices[0].index == 0))
	    and .[0].choices[0].delta.role == "assistant"
	    and .[-1].choices[0].finish_reason == "tool_calls"
	    and ([.[].choices[0].delta.tool_calls[0]?.function.arguments // empty] | add | fromjson | .city) == "Tokyo"
	    and ([.[].choices[0].delta.reasoning_content // empty] | add) == "Need weather."' \
	    "$BATS_TEST_TMPDIR/chunks"
}

@test "responses-stream: event order and sequence numbers" {
	run harmony-parse --to responses-stream "$FX/final.ids"
	[ "$status" -eq 0 ]
	grep '^data: ' <<<"$output" | sed 's/^data: //' >"$BATS_TEST_TMPDIR/ev"
	jq -se '[.[].sequence_number] == [range(0; length)]' "$BATS_TEST_TMPDIR/ev"
	jq -sr '.[].type' "$BATS_TEST_TMPDIR/ev" | uniq >"$BATS_TEST_TMPDIR/types"
	diff -u - "$BATS_TEST_TMPDIR/types" <<'EOT'
response.created
response.in_progress
response.output_item.added
response.content_part.added
response.reasoning_text.delta
response.reasoning_text.done
response.content_part.done
response.output_item.done
response.output_item.added
response.content_part.added
response.output_text.delta
response.output_text.done
response.content_part.done
response.output_item.done
response.completed
EOT
	grep -c '^event: ' <<<"$output" | grep -qx "$(wc -l <"$BATS_TEST_TMPDIR/ev")"
}

@test "responses: web_search_call action from the call" {
	run harmony-parse --to responses "$FX/web.ids"
	jq -e '.output[1].type == "web_search_call" and .output[1].action.type == "search"
	    and .output[1].action.query == "tokyo weather"' <<<"$output"
}

@test "responses-stream: a web search is added with its action, then searched" {
	run harmony-parse --to responses-stream "$FX/web.ids"
	[ "$status" -eq 0 ]
	grep '^data: ' <<<"$output" | sed 's/^data: //' >"$BATS_TEST_TMPDIR/ev"
	jq -sc '[.[] | select(.item.type == "web_search_call" or (.type | startswith("response.web_search_call")))
	    | [.type, .item.status // .item_id, .item.action.query // .output_index]]' "$BATS_TEST_TMPDIR/ev" >"$BATS_TEST_TMPDIR/web"
	[ "$(cat "$BATS_TEST_TMPDIR/web")" = '[["response.output_item.added","in_progress","tokyo weather"],["response.web_search_call.in_progress","ws_1",1],["response.web_search_call.searching","ws_1",1],["response.web_search_call.completed","ws_1",1],["response.output_item.done","completed","tokyo weather"]]' ]
	# Cut off inside the call: added and in_progress only, then the item as it stands.
	run bash -c "printf '<|channel|>analysis to=browser.search<|message|>{\"query\":\"tok' | harmony-parse -q --from text --to responses-stream"
	grep '^data: ' <<<"$output" | sed 's/^data: //' | jq -r .type | tr '\n' ' ' >"$BATS_TEST_TMPDIR/types"
	[ "$(cat "$BATS_TEST_TMPDIR/types")" = "response.created response.in_progress response.output_item.added response.web_search_call.in_progress response.output_item.done response.incomplete " ]
}

@test "responses: browser.open and browser.find actions" {
	run bash -c "printf '<|channel|>analysis to=browser.open<|message|>{\"id\":\"https://a.example/\"}<|call|><|start|>assistant<|channel|>analysis to=browser.find<|message|>{\"pattern\":\"rain\"}<|call|>' | harmony-parse --from text --to responses"
	[ "$status" -eq 0 ]
	jq -ce '[.output[].action]' <<<"$output"
	[ "$(jq -c '[.output[].action]' <<<"$output")" = '[{"type":"open_page","url":"https://a.example/"},{"type":"find_in_page","pattern":"rain","url":""}]' ]
}

@test "responses: a web_search_call's query as the arguments' JSON says, first of a repeated key" {
	# escapes decoded, a \u0000 kept (cJSON cut the string there), the first
	# "query" of two, blanks and what follows the object ignored
	args='{ "query" : "caf\u00e9 \"a\u0000b\"", "query":"second" } trailing'
	run bash -c "printf '%s' '<|channel|>analysis to=browser.search<|message|>$args<|call|>' | harmony-parse --from text --to responses"
	[ "$status" -eq 0 ]
	[ "$(jq -c '.output[0].action' <<<"$output")" = '{"type":"search","query":"café \"a\u0000b\""}' ]
	# not JSON: no query, as before
	run bash -c "printf '%s' '<|channel|>analysis to=browser.search<|message|>tokyo<|call|>' | harmony-parse --from text --to responses"
	[ "$(jq -c '.output[0].action' <<<"$output")" = '{"type":"search"}' ]
}

@test "NDJSON records: fields carried, a bad record in its place, exit 1" {
	run harmony-parse "$FX/records.ndjson"
	[ "$status" -eq 1 ]
	diff -u "$FX/records.messages" <(printf '%s\n' "${lines[@]}" | grep -v '^harmony-parse:')
	run harmony-parse --to stats --summary "$FX/records.ndjson"
	[ "$status" -eq 1 ]
	[ "${lines[-1]}" = "$(cat "$FX/summary.stats")" ]
}

@test "--channels final hides reasoning" {
	run harmony-parse --channels final "$FX/final.ids"
	[ "$status" -eq 0 ]
	[ "$output" = '{"role":"assistant","content":"4","channel":"final"}' ]
	run harmony-parse --channels final --to chat "$FX/call.ids"
	jq -e '.message.reasoning_content == null' <<<"$output"
}

@test "--from text with special tokens split across reads" {
	text='<|channel|>analysis<|message|>Hm.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>'
	run bash -c "{ printf '%s' '${text:0:5}'; sleep 0.2; printf '%s' '${text:5:30}'; sleep 0.2; printf '%s' '${text:35}'; } | harmony-parse --from text"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"role":"assistant","content":"Hm.","channel":"analysis"}' ]
	[ "${lines[1]}" = '{"role":"assistant","content":"4","channel":"final"}' ]
}

@test "events are written while the input is still being written" {
	fifo="$BATS_TEST_TMPDIR/fifo"
	mkfifo "$fifo"
	harmony-parse --to events <"$fifo" >"$BATS_TEST_TMPDIR/ev" &
	pid=$!
	exec 5>"$fifo"
	echo '200005 17196 200008 12194' >&5
	for i in 1 2 3 4 5 6 7 8 9 10; do
		grep -q '"text":"Hi"' "$BATS_TEST_TMPDIR/ev" 2>/dev/null && break
		sleep 0.2
	done
	grep -q '"text":"Hi"' "$BATS_TEST_TMPDIR/ev"
	echo '200002' >&5
	exec 5>&-
	wait "$pid"
	tail -n 1 "$BATS_TEST_TMPDIR/ev" | jq -e '.type == "done" and .truncated == false'
}

@test "--strict fails where the reference fails" {
	run bash -c 'echo 200005 17196 | harmony-parse --strict'
	[ "$status" -eq 1 ]
	[[ $output == *"Unexpected EOS while waiting for message header to complete"* ]]
	run bash -c 'echo 200005 17196 200008 19 200002 1428 | harmony-parse --strict'
	[ "$status" -eq 1 ]
	[[ $output == *"token 5: Unexpected token 1428 while expecting start token 200006"* ]]
}

@test "an id outside the vocabulary: one U+FFFD and a warning by default" {
	run bash -c 'echo 200005 17196 200008 378 201089 8301 200002 | harmony-parse'
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == *"token 4: unknown token id 201089 replaced by U+FFFD (F12)" ]]
	[ "${lines[1]}" = '{"role":"assistant","content":"ab�cd","channel":"final"}' ]
	run bash -c 'echo 200005 17196 200008 378 201089 8301 200002 | harmony-parse --strict'
	[ "$status" -eq 0 ]
	[ "$output" = '{"role":"assistant","content":"ab�","channel":"final"}' ]
}

@test "a word that is not an id: file, line and token index, exit 1" {
	printf '200005 17196\n200008 x7 19 200002\n' >"$BATS_TEST_TMPDIR/bad"
	run bash -c 'harmony-parse "$1" 2>"$1.err"' - "$BATS_TEST_TMPDIR/bad"
	[ "$status" -eq 1 ]
	[ "$(cat "$BATS_TEST_TMPDIR/bad.err")" = "harmony-parse: $BATS_TEST_TMPDIR/bad:2: token 3: not a token id: 'x7'" ]
	[ "$output" = '{"role":"assistant","content":"4","channel":"final"}' ]
}

@test "usage errors exit 2 with a hint" {
	run harmony-parse --to nope
	[ "$status" -eq 2 ]
	[ "${lines[1]}" = "Try 'harmony-parse --help'." ]
	run harmony-parse --bogus
	[ "$status" -eq 2 ]
	run harmony-parse --role wizard
	[ "$status" -eq 2 ]
	for a in --channels= --channels=final, --channels=a,,b; do
		run harmony-parse "$a" </dev/null
		[ "$status" -eq 2 ]
		[[ "${lines[0]}" == "harmony-parse: --channels needs channel names, comma separated: "* ]]
	done
	run harmony-parse --strict --marker=X </dev/null
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "harmony-parse: --marker is a recovery: it does not go with --strict" ]
}

@test "-q silences warnings" {
	run bash -c "harmony-parse -q $FX/f07-no-message.in 2>&1 >/dev/null"
	[ -z "$output" ]
}

@test "a full disk is an error" {
	[ -w /dev/full ] || skip "no /dev/full"
	run bash -c "harmony-parse $FX/final.ids >/dev/full"
	[ "$status" -eq 3 ]
}

@test "--pretty indents every JSON shape and changes nothing else" {
	for s in messages events chat responses stats; do
		harmony-parse --to "$s" "$FX/call.ids" | jq -c . >"$BATS_TEST_TMPDIR/compact"
		harmony-parse --pretty --to "$s" "$FX/call.ids" >"$BATS_TEST_TMPDIR/pretty"
		[ "$(wc -l <"$BATS_TEST_TMPDIR/pretty")" -gt "$(wc -l <"$BATS_TEST_TMPDIR/compact")" ]
		jq -c . "$BATS_TEST_TMPDIR/pretty" | diff -u "$BATS_TEST_TMPDIR/compact" -
	done
	# The layout is jq's: two spaces a level, empty [] and {} kept whole.
	harmony-parse --pretty --to responses "$FX/call.ids" >"$BATS_TEST_TMPDIR/pretty"
	jq --indent 2 . "$BATS_TEST_TMPDIR/pretty" | diff -u - "$BATS_TEST_TMPDIR/pretty"
	# Records, carried fields (blanks and all) and error lines too.
	harmony-parse --pretty "$FX/records.ndjson" 2>/dev/null >"$BATS_TEST_TMPDIR/pretty" || true
	jq -c . "$BATS_TEST_TMPDIR/pretty" | diff -u "$FX/records.messages" -
	jq --indent 2 . "$BATS_TEST_TMPDIR/pretty" | diff -u - "$BATS_TEST_TMPDIR/pretty"
}

@test "--pretty is a usage error with the SSE shapes and text" {
	for s in chat-stream responses-stream text; do
		run harmony-parse --pretty --to "$s" "$FX/call.ids"
		[ "$status" -eq 2 ]
		[ "${lines[0]}" = "harmony-parse: --pretty goes with the JSON shapes, not --to=$s" ]
	done
}

@test "--ids random: one id per response, item and call across their events" {
	text='<|channel|>analysis<|message|>Hm.<|end|><|start|>assistant<|channel|>commentary to=functions.f<|message|>{"a":1}<|call|>'
	printf '%s' "$text" | harmony-parse --from text --ids random --to responses-stream |
	    grep '^data: ' | sed 's/^data: //' >"$BATS_TEST_TMPDIR/ev"
	# Every resp_, rs_, fc_ and call_ id is the same wherever it appears.
	for pre in resp_ rs_ fc_ call_; do
		[ "$(grep -o "\"${pre}[0-9a-f]*\"" "$BATS_TEST_TMPDIR/ev" | sort -u | wc -l)" -eq 1 ]
	done
	[ "$(grep -o '"rs_[0-9a-f]*"' "$BATS_TEST_TMPDIR/ev" | head -1 | wc -c)" -gt 20 ]
	jq -se '[.[] | .item_id // empty] | length > 3' "$BATS_TEST_TMPDIR/ev"
	# The call's id in chat-stream is also one, and so is the chunk id.
	printf '%s' "$text" | harmony-parse --from text --ids random --to chat-stream >"$BATS_TEST_TMPDIR/cs"
	[ "$(grep -o 'chatcmpl-[0-9a-f]*' "$BATS_TEST_TMPDIR/cs" | sort -u | wc -l)" -eq 1 ]
	[ "$(grep -c 'chatcmpl-' "$BATS_TEST_TMPDIR/cs")" -gt 3 ]
	# Records get ids of their own.
	printf '[200005,17196,200008,19,200002]\n[200005,17196,200008,19,200002]\n' |
	    harmony-parse --ids random --to responses | jq -r .id | sort -u | wc -l | grep -qx 2
}

@test "F10 a tool call cut off: finish_reason length, in chat and chat-stream" {
	run harmony-parse -q --from text --to chat "$FX/cut-call.txt"
	[ "$status" -eq 0 ]
	jq -e '.finish_reason == "length" and .message.tool_calls[0].function.arguments == "{\"city\":\"To"' <<<"$output"
	run harmony-parse -q --from text --to chat-stream "$FX/cut-call.txt"
	[ "$status" -eq 0 ]
	grep '^data: {' <<<"$output" | tail -n 1 | sed 's/^data: //' | jq -e '.choices[0].finish_reason == "length"'
	# A whole call, then a cut in the next message: the call ends it (F19's rule).
	run bash -c "printf '<|channel|>commentary to=functions.f<|message|>{}<|call|><|start|>assistant<|channel|>final<|message|>Th' | harmony-parse -q --from text --to chat"
	jq -e '.finish_reason == "tool_calls"' <<<"$output"
	run harmony-parse --to chat "$FX/call.ids"
	jq -e '.finish_reason == "tool_calls"' <<<"$output"
}

# Peak RSS in KiB of harmony-parse ARGS... on stdin.
rss() {
	/usr/bin/time -f %M harmony-parse "$@" 2>&1 >/dev/null | tail -n 1
}

@test "memory stays flat: stats over many messages, chat-stream over a long one" {
	[ -x /usr/bin/time ] || skip "no /usr/bin/time"
	[ -z "${HM_SANITIZE:-}" ] || skip "RSS is not measured under AddressSanitizer"
	msgs() { yes '200006 173781 200005 17196 200008 19 200002' | head -n "$1"; }
	a=$(msgs 50000 | rss -q --to stats)
	b=$(msgs 400000 | rss -q --to stats)
	echo "stats: $a KiB, $b KiB"
	[ "$b" -lt $((a + 2048)) ]
	long() { echo 200005 17196 200008; yes '12194 1354' | head -n "$1"; }
	a=$(long 250000 | rss -q --to chat-stream)
	b=$(long 1000000 | rss -q --to chat-stream)
	echo "chat-stream: $a KiB, $b KiB"
	[ "$b" -lt $((a + 2048)) ]
	# Text cut into tokens: flat too, and small.
	text() { printf '<|channel|>final<|message|>'; yes 'Hello world, here is a line.' | head -n "$1"; }
	a=$(text 30000 | rss -q --from text --to events)
	b=$(text 120000 | rss -q --from text --to events)
	echo "text events: $a KiB, $b KiB"
	[ "$b" -lt $((a + 2048)) ]
	[ "$b" -lt 32768 ]
}

@test "text input: the same events whatever the reads, F12 at the bad byte" {
	printf '<|channel|>final<|message|>Hello world, it'"'"'s \xff here<|return|>' >"$BATS_TEST_TMPDIR/t"
	harmony-parse --from text --to events "$BATS_TEST_TMPDIR/t" >"$BATS_TEST_TMPDIR/whole" 2>"$BATS_TEST_TMPDIR/werr"
	for cut in 30 33 40 44; do
		{ head -c "$cut" "$BATS_TEST_TMPDIR/t"; sleep 0.2; tail -c +"$((cut + 1))" "$BATS_TEST_TMPDIR/t"; } |
		    harmony-parse --from text --to events >"$BATS_TEST_TMPDIR/cut" 2>"$BATS_TEST_TMPDIR/cerr"
		diff -u "$BATS_TEST_TMPDIR/whole" "$BATS_TEST_TMPDIR/cut"
		sed 's/^harmony-parse: [^:]*:/F:/' "$BATS_TEST_TMPDIR/werr" | diff -u - <(sed 's/^harmony-parse: [^:]*:/F:/' "$BATS_TEST_TMPDIR/cerr")
	done
	# Deltas are the encoder's tokens; the bad byte is byte 45.
	[ "$(jq -c 'select(.type == "delta") | [.at, .text]' "$BATS_TEST_TMPDIR/whole" | tr -d '\n')" = '[27,"Hello"][32," world"][38,","][39," it'"'"'s"][44," �"][46," here"]' ]
	grep -q 'byte 45: invalid UTF-8 in content replaced by U+FFFD (F12)$' "$BATS_TEST_TMPDIR/werr"
}

@test "warnings name the file and line where the token was read" {
	printf '200005 17196\n200008 19\n200002 200002\n' >"$BATS_TEST_TMPDIR/a.ids"
	printf '200006 173781 200005 17196 200008 12 200002\n\n200007\n' >"$BATS_TEST_TMPDIR/b.ids"
	cd "$BATS_TEST_TMPDIR"
	harmony-parse a.ids b.ids 2>err >/dev/null
	diff -u - err <<'EOT'
harmony-parse: a.ids:3: token 5: stray stop token ignored (F9)
harmony-parse: b.ids:3: token 13: stray stop token ignored (F9)
EOT
	# Text: the line of the byte, also in the second file.
	printf '<|channel|>final<|message|>ok\n\n<|end|>\nx\n<|start|>assistant<|channel|>\ncommentary to=functions.f<|message|>{}<|call|>' >t
	harmony-parse --from text t t 2>err >/dev/null
	diff -u - err <<'EOT'
harmony-parse: t:4: byte 39: text without a channel before a message with a channel or a tool call taken as reasoning (analysis) (F18)
harmony-parse: t:5: byte 41: blank after <|channel|> ignored (F6)
harmony-parse: t:1: byte 117: <|channel|> without <|start|>: assistant assumed (F2)
harmony-parse: t:4: byte 156: text without a channel before a message with a channel or a tool call taken as reasoning (analysis) (F18)
harmony-parse: t:5: byte 158: blank after <|channel|> ignored (F6)
EOT
}

@test "carried fields that collide with output keys are dropped; SSE carries them in a comment" {
	nodup='import json, sys
def hook(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), keys
    return dict(pairs)
for line in sys.stdin:
    if line.strip():
        json.loads(line, object_pairs_hook=hook)'
	for s in messages events chat chat-completion responses stats; do
		harmony-parse --to "$s" "$FX/collide.ndjson" | python3 -c "$nodup"
	done
	run harmony-parse "$FX/collide.ndjson"
	[ "$output" = '{"id":"r1","status":"s","output":[1],"type":"t","index":9,"k":{"messages":1},"messages":[{"role":"assistant","content":"4","channel":"final"}]}' ]
	run harmony-parse --to responses "$FX/collide.ndjson"
	jq -e '.id == "r1" and .status == "completed" and .output[0].type == "message" and .messages == "x" and .index == 9' <<<"$output"
	# a Chat choice has no room for them: the chat.completion object has
	run harmony-parse --to chat "$FX/collide.ndjson"
	jq -e '.index == 0 and (keys == ["finish_reason","index","logprobs","message"])' <<<"$output"
	run harmony-parse --to chat-completion "$FX/collide.ndjson"
	jq -e '.id == "r1" and .object == "chat.completion" and .messages == "x" and .index == 9 and .choices[0].index == 0' <<<"$output"
	for s in chat-stream responses-stream; do
		harmony-parse --to "$s" "$FX/collide.ndjson" | head -n 3 >"$BATS_TEST_TMPDIR/head"
		[ "$(sed -n 1p "$BATS_TEST_TMPDIR/head")" = ': {"id":"r1","messages":"x","status":"s","output":[1],"type":"t","index":9,"k":{"messages":1}}' ]
		[ -z "$(sed -n 2p "$BATS_TEST_TMPDIR/head")" ]
		grep -Eq '^(data|event): ' "$BATS_TEST_TMPDIR/head"
	done
}

@test "JSON records over several lines (jq .), unterminated or followed by text" {
	run harmony-parse "$FX/pretty.json"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"id":"p1","messages":[{"role":"assistant","content":"4","channel":"final"}]}' ]
	[ "${lines[1]}" = '{"messages":[{"role":"assistant","content":"Easy.","channel":"analysis"}]}' ]
	[ "${#lines[@]}" -eq 2 ]
	# The warning names the line of its token inside the array.
	run bash -c "printf '[200005,\n 17196,\n 200008, 201089,\n 19 , 200002]\n' | harmony-parse 2>&1 >/dev/null"
	[ "$output" = "harmony-parse: -:3: token 3: unknown token id 201089 replaced by U+FFFD (F12)" ]
	run bash -c "printf '[200005,17196\n' | harmony-parse"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "harmony-parse: -:1: unterminated JSON record" ]
	[ "${lines[1]}" = '{"error":"unterminated JSON record","line":1}' ]
	run bash -c "printf '{\"id\":\"x\",\"tokens\":[200005,17196,200008,19,200002]} trailing\n[1]\n' | harmony-parse"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "harmony-parse: -:1: text after the JSON record: 'trailing'" ]
	[ "${lines[1]}" = '{"id":"x","error":"text after the JSON record","line":1}' ]
	run bash -c "printf '[1, 2 3]\n' | harmony-parse"
	[ "$status" -eq 1 ]
	# the words and the place harmony-tokens decode gives for the same list
	[ "${lines[0]}" = "harmony-parse: -:1:7: expected ',' or ']' between ids" ]
}

@test "--from auto reads ids only when the first line is ids or an id record" {
	run bash -c "printf '4 is the answer' | harmony-parse"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = '{"role":"assistant","content":"4 is the answer"}' ]
	run bash -c "printf '1. First\n2. Second' | harmony-parse -q"
	[ "$output" = '{"role":"assistant","content":"1. First\n2. Second"}' ]
	# A JSON object is a record, never Harmony text (but with --from text).
	run bash -c "printf '{\"note\":\"hi\"}' | harmony-parse -q --from text"
	[ "$output" = '{"role":"assistant","content":"{\"note\":\"hi\"}"}' ]
	run bash -c "printf '{\"note\":\"hi\"}' | harmony-parse -q 2>/dev/null"
	[ "$status" -eq 1 ]
	[[ "$output" == '{"error":"no completion in the record: '*'--field names the member","line":1}' ]]
	run bash -c "printf '200005 17196 200008\n19 200002\n' | harmony-parse"
	[ "$output" = '{"role":"assistant","content":"4","channel":"final"}' ]
	# The first line may arrive in pieces.
	run bash -c "{ printf '200005 1719'; sleep 0.2; printf '6 200008 19 200002'; } | harmony-parse"
	[ "$output" = '{"role":"assistant","content":"4","channel":"final"}' ]
	run bash -c "{ printf '200005 1719'; sleep 0.2; printf '6 is text'; } | harmony-parse -q"
	[ "$output" = '{"role":"assistant","content":"200005 17196 is text"}' ]
}

@test "--lines with text: each line is a record" {
	run bash -c "printf '<|channel|>final<|message|>a<|return|>\n\nb\n' | harmony-parse -q --from text --lines"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"messages":[{"role":"assistant","content":"a","channel":"final"}]}' ]
	[ "${lines[1]}" = '{"messages":[]}' ]
	[ "${lines[2]}" = '{"messages":[{"role":"assistant","content":"b"}]}' ]
	[ "${#lines[@]}" -eq 3 ]
	run bash -c "printf 'x\n<|channel|>final<|message|>b<|return|>\n' | harmony-parse -q --lines --to stats"
	[ "${#lines[@]}" -eq 2 ]
	[ "$(jq -r .tokens <<<"${lines[0]}")" = null ]
}

@test "--strict prints nothing for a stream the reference rejects (events excepted)" {
	for s in messages chat responses text stats chat-stream responses-stream; do
		run bash -c "echo 200005 17196 200008 19 200002 1428 | harmony-parse --strict --to $s 2>/dev/null"
		[ "$status" -eq 1 ]
		[ -z "$output" ]
	done
	run bash -c "echo 200005 17196 200008 19 200002 | harmony-parse --strict"
	[ "$status" -eq 0 ]
	[ "$output" = '{"role":"assistant","content":"4","channel":"final"}' ]
	run bash -c "echo 200005 17196 200008 19 200002 1428 | harmony-parse --strict --to events 2>/dev/null"
	[ "$status" -eq 1 ]
	[ "$(jq -r .type <<<"${lines[-1]}")" = error ]
	[ "$(jq -r .type <<<"${lines[0]}")" = start ]
	# Records: the failed one is an error line, the others are whole.
	run bash -c "printf '[200005,17196,200008,19,200002,1428]\n[200005,17196,200008,19,200002]\n' | harmony-parse --strict 2>/dev/null"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = '{"error":"Unexpected token 1428 while expecting start token 200006","line":1}' ]
	[ "${lines[1]}" = '{"messages":[{"role":"assistant","content":"4","channel":"final"}]}' ]
}

@test "a bad word keeps its token index, is an error event, and comes in order" {
	run bash -c "printf '200005 17196 200008 201089 x7 19\n201089 200002\n' | harmony-parse --from ids --to events 2>'$BATS_TEST_TMPDIR/err'"
	[ "$status" -eq 1 ]
	diff -u - "$BATS_TEST_TMPDIR/err" <<'EOT'
harmony-parse: -:1: token 3: unknown token id 201089 replaced by U+FFFD (F12)
harmony-parse: -:1: token 4: not a token id: 'x7'
harmony-parse: -:2: token 6: unknown token id 201089 replaced by U+FFFD (F12)
EOT
	jq -c 'select(.type == "error" or .type == "warning" or .type == "end") | [.type, .at]' <<<"$output" | tr -d '\n' >"$BATS_TEST_TMPDIR/ev"
	[ "$(cat "$BATS_TEST_TMPDIR/ev")" = '["warning",3]["error",4]["warning",6]["end",7]' ]
}

@test "recipients: browser is no function, functions. warns, an unreadable one is no call" {
	run bash -c "printf '<|channel|>analysis to=browser<|message|>{}<|call|>' | harmony-parse --from text --to chat 2>&1"
	[ "${#lines[@]}" -eq 1 ]
	jq -e '.message.reasoning_content == "{}" and .message.tool_calls == null' <<<"${lines[0]}"
	run bash -c "printf '<|channel|>commentary to=functions.<|message|>{}<|call|>' | harmony-parse --from text --to chat"
	[ "${lines[0]}" = 'harmony-parse: -:1: byte 0: recipient functions. names no function: a call to "" (F5)' ]
	run bash -c "printf '<|channel|>commentary to=\xff<|message|>{}<|call|>' | harmony-parse --from text --to chat"
	[ "${lines[1]}" = 'harmony-parse: -:1: byte 0: recipient "�" is not readable: not a tool call (F12)' ]
	jq -e '.message.tool_calls == null and .finish_reason == "stop"' <<<"${lines[2]}"
}

@test "stats: the summary counts terminators of records that have one" {
	run bash -c "printf '[200005,17196,200008,19,200002]\n[]\n' | harmony-parse --to stats"
	[ "$(jq -c .terminator <<<"${lines[1]}")" = null ]
	run bash -c "printf '[200005,17196,200008,19,200002]\n[]\n' | harmony-parse --to stats --summary"
	jq -e '.records == 2 and .terminators == {"return": 1}' <<<"$output"
}

@test "--marker that never appears: a warning" {
	run bash -c "printf 'just thinking' | harmony-parse --marker=XX"
	[ "${lines[0]}" = "harmony-parse: -:1: byte 13: the marker text never appeared: all the text is reasoning (F8)" ]
}

@test "--to text shows control characters, never passes escape sequences" {
	printf '<|channel|>final<|message|>red \033[31mX\033[0m\r \302\233 ok\ttab é<|return|>' |
	    harmony-parse --from text --to text >"$BATS_TEST_TMPDIR/out"
	! grep -q "$(printf '\033')" "$BATS_TEST_TMPDIR/out"
	[ "$(sed -n 2p "$BATS_TEST_TMPDIR/out")" = "$(printf 'red \\x1b[31mX\\x1b[0m\\x0d \\u009b ok\ttab é')" ]
	# Colors are ours alone.
	printf '<|channel|>final<|message|>\033[2J<|return|>' | harmony-parse --from text --to text --color=always >"$BATS_TEST_TMPDIR/out"
	! grep -q "$(printf '\033\\[2J')" "$BATS_TEST_TMPDIR/out"
	grep -q "$(printf '\033\\[32m')" "$BATS_TEST_TMPDIR/out"
}

@test "one id spelling in every reader: -0, 2.9e2, 290.0 and 0290 are no ids in records, arrays or streams (issue 35)" {
	for w in -0 2.9e2 290.0 0290 1E2; do
		# a record: an error line naming the index and the word
		run bash -c "printf '{\"tokens\":[200005,%s]}\n' '$w' | harmony-parse -q --to stats"
		[ "$status" -eq 1 ]
		[[ "$output" == *"not a token id at index 1: '$w'"* ]] || { echo "record $w: $output"; return 1; }
		# a bare array and a stream: the same word is no id there either
		run bash -c "printf '[200005,%s]\n' '$w' | harmony-parse -q --from ids"
		[ "$status" -eq 1 ]
		[[ "$output" == *"not a token id: '$w'"* ]] || { echo "array $w: $output"; return 1; }
		run bash -c "printf '200005 %s\n' '$w' | harmony-tokens decode"
		[ "$status" -eq 1 ]
		[[ "$output" == *"not a token id: '$w'"* ]] || { echo "stream $w: $output"; return 1; }
	done
	# 0 and plain numbers stay ids everywhere
	run bash -c "printf '{\"tokens\":[0,10,290]}\n[0,10,290]\n' | harmony-parse -q --to answer"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "${lines[1]}" ]
}
