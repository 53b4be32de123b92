#!/usr/bin/env bats
# parse_anthropic.bats - harmony-parse --to anthropic and anthropic-stream:
# the Message's blocks, ids, stop reasons and usage, arguments that are
# not a JSON object, the stream's events assembling the Message, live
# output, --channels, and the guide's tool loop in Anthropic's dialect.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C
	F=fixtures/parse
	T=$BATS_TEST_TMPDIR
}

# The Message a client assembles from an anthropic-stream on stdin (as
# @anthropic-ai/sdk's MessageStream does), as sorted JSON.
ASSEMBLE='def assemble: reduce .[] as $e (null;
	    if $e.type == "message_start" then $e.message
	    elif $e.type == "content_block_start" then .content += [$e.content_block]
	    elif $e.type == "content_block_delta" then
		(if $e.delta.type == "text_delta" then .content[$e.index].text += $e.delta.text
		elif $e.delta.type == "thinking_delta" then .content[$e.index].thinking += $e.delta.thinking
		elif $e.delta.type == "signature_delta" then .content[$e.index].signature = $e.delta.signature
		elif $e.delta.type == "input_json_delta" then .content[$e.index].json += $e.delta.partial_json
		else error("unknown delta " + $e.delta.type) end)
	    elif $e.type == "content_block_stop" then
		(if .content[$e.index].type == "tool_use" then
		    .content[$e.index] |= (.input = ((.json // "{}") | fromjson) | del(.json))
		else . end)
	    elif $e.type == "message_delta" then
		.stop_reason = $e.delta.stop_reason | .stop_sequence = $e.delta.stop_sequence |
		.usage.output_tokens = $e.usage.output_tokens |
		.usage.output_tokens_details = ($e.usage.output_tokens_details // .usage.output_tokens_details)
	    elif $e.type == "message_stop" then .
	    else error("unknown event " + $e.type) end);'
assemble() {
	sed -n 's/^data: //p' | jq -sS "$ASSEMBLE assemble"
}

@test "anthropic: thinking and tool_use blocks, deterministic ids, tool_use stop, counted usage" {
	run harmony-parse --to anthropic "$F/call.ids"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	jq -e '.id == "msg_0" and .type == "message" and .role == "assistant" and
	    .model == "gpt-oss" and .stop_reason == "tool_use" and .stop_sequence == null and
	    .content == [{"type":"thinking","thinking":"Need weather.","signature":""},
	        {"type":"tool_use","id":"toolu_0","name":"get_weather","input":{"city":"Tokyo"},
	         "caller":{"type":"direct"}}] and
	    .usage.input_tokens == 0 and .usage.output_tokens_details.thinking_tokens == 7' <<<"$output"
	# output tokens: every token of the completion
	[ "$(jq .usage.output_tokens <<<"$output")" -eq "$(wc -w <"$F/call.ids")" ]
	# the Chat shape names the call alike
	[ "$(harmony-parse --to chat "$F/call.ids" | jq -r '.message.tool_calls[0].function.name')" = get_weather ]
}

@test "anthropic: end_turn for an answer, max_tokens for a cut-off output" {
	run harmony-parse -q --from text --to anthropic <<<'<|channel|>final<|message|>4<|return|>'
	jq -e '.stop_reason == "end_turn" and .content == [{"type":"text","text":"4","citations":null}]' <<<"$output"
	# text input: output tokens are the tokens the text encodes to (the
	# newline <<< adds is one), with no thinking count
	jq -e '.usage.output_tokens == 6 and .usage.output_tokens_details == null' <<<"$output"
	run harmony-parse -q $(cat "$F/f10-truncated-content.args") --to anthropic "$F/f10-truncated-content.in"
	jq -e '.stop_reason == "max_tokens" and .content[0].type == "thinking"' <<<"$output"
	# cut off inside a call: max_tokens too, and the input keeps what was written
	run harmony-parse -q --to anthropic --from text <<<'<|start|>assistant to=functions.f<|channel|>commentary<|message|>{"a":'
	jq -e '.stop_reason == "max_tokens" and .content[0].input == {"_raw":"{\"a\":\n"}' <<<"$output"
	[[ "$output" == *'"caller"'* ]]
}

@test "anthropic: a record's id and input tokens, other fields beside the Message's" {
	ids=$(tr ' ' ',' <"$F/call.ids")
	rec="{\"id\":\"req-7\",\"user\":\"u1\",\"usage\":{\"prompt_tokens\":123},\"output_ids\":[$ids]}"
	run harmony-parse --to anthropic <<<"$rec"
	[ "$status" -eq 0 ]
	jq -e '.id == "req-7" and .user == "u1" and .usage.input_tokens == 123 and .type == "message"' <<<"$output"
	[ "$(grep -o '"id":' <<<"$output" | wc -l)" -eq 2 ]   # the Message's and the tool_use's
	run harmony-parse --to anthropic-stream <<<"$rec"
	[ "${lines[0]}" = ': {"id":"req-7","user":"u1","usage":{"prompt_tokens":123}}' ]
	assemble <<<"$output" | jq -e '.id == "req-7" and .usage.input_tokens == 123'
	# input_tokens beside the completion, as some logs have it
	run harmony-parse --to anthropic <<<"{\"input_tokens\":9,\"output_ids\":[$ids]}"
	jq -e '.usage.input_tokens == 9 and .id == "msg_0"' <<<"$output"
	# records are numbered: msg_0, msg_1
	run harmony-parse --to anthropic <<<"[$ids]
[$ids]"
	[ "$(jq -r .id <<<"${lines[1]}")" = msg_1 ]
	[ "$(jq -r .content[1].id <<<"${lines[1]}")" = toolu_0 ]
}

@test "anthropic: --ids random gives msg_ and toolu_ ids of 24 hex digits" {
	run harmony-parse --ids random --to anthropic "$F/call.ids"
	[[ "$(jq -r .id <<<"$output")" =~ ^msg_[0-9a-f]{24}$ ]]
	[[ "$(jq -r .content[1].id <<<"$output")" =~ ^toolu_[0-9a-f]{24}$ ]]
}

@test "anthropic: arguments that are not a JSON object are wrapped, never dropped, with a warning" {
	for args in 'not json' '[1,2]' '"Tokyo"' '{"a":1} trailing'; do
		in="<|start|>assistant to=functions.f<|channel|>commentary<|message|>$args<|call|>"
		harmony-parse --from text --to anthropic <<<"$in" >"$T/out" 2>"$T/err"
		[ "$(jq -c '.content[0].input' "$T/out")" = "$(jq -cn --arg t "$args" '{_raw: $t}')" ]
		grep -q "^harmony-parse: -:1: byte 0: arguments of the call to functions.f are not a JSON object" "$T/err"
		# the stream sends the same input
		harmony-parse -q --from text --to anthropic-stream <<<"$in" | assemble >"$T/got"
		[ "$(jq -c '.content[0].input' "$T/got")" = "$(jq -cn --arg t "$args" '{_raw: $t}')" ]
		run harmony-parse -q --from text --to anthropic <<<"$in"
		[ "${#lines[@]}" -eq 1 ]
	done
	# blank arguments are no arguments; an object is written compactly, numbers as written
	run harmony-parse --from text --to anthropic <<<'<|start|>assistant to=functions.f<|channel|>commentary<|message|> <|call|>'
	[ "$(jq -c '.content[0].input' <<<"$output")" = '{}' ]
	[[ "$output" != *"not a JSON object"* ]]
	run harmony-parse --from text --to anthropic <<<'<|start|>assistant to=functions.f<|channel|>commentary<|message|>{ "a" : 1e400,
 "b": [1, 2.50] }<|call|>'
	[[ "$output" == *'"input":{"a":1e400,"b":[1,2.50]}'* ]]
}

@test "anthropic-stream: the API's events, in order, each named by its event line" {
	harmony-parse --to anthropic-stream "$F/call.ids" >"$T/sse"
	run cat "$T/sse"
	[ "$(grep '^event: ' <<<"$output" | cut -c8- | uniq -c | awk '{print $2 "x" $1}' | tr '\n' ' ')" = \
	    "message_startx1 content_block_startx1 content_block_deltax4 content_block_stopx1 content_block_startx1 content_block_deltax1 content_block_stopx1 message_deltax1 message_stopx1 " ]
	# every data line's type is its event's; blank line after each
	paste -d' ' <(grep '^event: ' <<<"$output" | cut -c8-) \
	    <(sed -n 's/^data: //p' <<<"$output" | jq -r .type) | awk '$1 != $2 { exit 1 }'
	[ "$(grep -c '^$' "$T/sse")" -eq "$(grep -c '^event: ' "$T/sse")" ]
	[ "$(awk 'NR % 3 == 0 && $0 != "" { bad = 1 } END { print !bad }' "$T/sse")" -eq 1 ]
	grep -q '"delta":{"type":"thinking_delta","thinking":" weather"}' <<<"$output"
	grep -q '"delta":{"type":"signature_delta","signature":""}' <<<"$output"
	grep -q '"delta":{"type":"input_json_delta","partial_json":"{\\"city\\":\\"Tokyo\\"}"}' <<<"$output"
	grep -q '"delta":{"stop_reason":"tool_use"' <<<"$output"
}

@test "anthropic-stream assembles into the anthropic Message, for every fixture" {
	# One jq for all fixtures (not two a fixture): each file's objects,
	# by name, every fixture listed even when it gave nothing.
	mkdir "$T/want" "$T/got"
	names=()
	for in in "$F"/*.ids "$F"/f*.in; do
		args=
		case $in in *.in) args=$(cat "${in%.in}.args") ;; esac
		case " $args " in *" --lines "*) continue ;; esac
		base=${in##*/}
		# shellcheck disable=SC2086
		harmony-parse -q $args --to anthropic "$in" >"$T/want/$base"
		# shellcheck disable=SC2086
		harmony-parse -q $args --to anthropic-stream "$in" >"$T/got/$base"
		names+=("$base")
	done
	jq -cSn 'reduce inputs as $m (reduce $ARGS.positional[] as $n ({}; .[$n] = []);
	    .[input_filename | sub(".*/"; "")] += [$m]) | to_entries[] | {(.key): .value}' \
	    "$T"/want/* --args "${names[@]}" >"$T/want.all"
	jq -cSnR "$ASSEMBLE"' reduce (inputs | select(startswith("data: ")) | [input_filename, (.[6:] | fromjson)]) as [$f, $e]
	    (reduce $ARGS.positional[] as $n ({}; .[$n] = []); .[$f | sub(".*/"; "")] += [$e]) |
	    map_values([assemble]) | to_entries[] | {(.key): .value}' \
	    "$T"/got/* --args "${names[@]}" >"$T/got.all"
	diff -u "$T/want.all" "$T/got.all"
	[ "${#names[@]}" -ge 45 ]
}

@test "anthropic-stream: the same bytes for any chunking of the input" {
	for n in f13-stripped f13b-stripped-call f18-prose-reasoning f12-invalid-utf8 f11-several-calls; do
		args=$(cat "$F/$n.args")
		# shellcheck disable=SC2086
		harmony-parse -q $args --to anthropic-stream <"$F/$n.in" >"$T/whole"
		for bs in 1 3 7 64; do
			# shellcheck disable=SC2086
			dd if="$F/$n.in" bs=$bs 2>/dev/null | harmony-parse -q $args --to anthropic-stream >"$T/out"
			cmp "$T/whole" "$T/out" || { echo "$n, reads of $bs"; return 1; }
		done
	done
}

@test "anthropic-stream is written while the input is still being written" {
	mkfifo "$T/fifo"
	harmony-parse --to anthropic-stream <"$T/fifo" >"$T/sse" &
	pid=$!
	exec 5>"$T/fifo"
	# <|channel|>final<|message|>Hi
	echo '200005 17196 200008 12194' >&5
	for i in $(seq 1 25); do
		grep -q '"text_delta","text":"Hi"' "$T/sse" 2>/dev/null && break
		sleep 0.2
	done
	grep -q '^event: message_start' "$T/sse"
	grep -q '"text_delta","text":"Hi"' "$T/sse"
	! grep -q message_stop "$T/sse"
	exec 5>&-
	wait "$pid"
	grep -q '^event: message_stop' "$T/sse"
}

@test "anthropic: --channels final,commentary drops the thinking blocks" {
	run harmony-parse --channels final,commentary --to anthropic "$F/call.ids"
	jq -e '[.content[].type] == ["tool_use"] and .stop_reason == "tool_use" and
	    .usage.output_tokens_details.thinking_tokens == 0' <<<"$output"
	run harmony-parse --channels final,commentary --to anthropic-stream "$F/call.ids"
	! grep -q thinking_delta <<<"$output"
	grep -q '"index":0,"content_block":{"type":"tool_use"' <<<"$output"
	[ "$(assemble <<<"$output")" = "$(harmony-parse --channels final,commentary --to anthropic "$F/call.ids" | jq -S .)" ]
}

@test "anthropic: --pretty indents the Message, and is refused with the stream" {
	run harmony-parse --pretty --to anthropic "$F/call.ids"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = '  "id": "msg_0",' ]
	run harmony-parse --pretty --to anthropic-stream "$F/call.ids"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--pretty goes with the JSON shapes, not --to=anthropic-stream"* ]]
}

# The ```sh block under "### The tool loop in Anthropic's dialect" in docs/guide.md.
readme_loop() {
	awk '/^### The tool loop in Anthropic/ { sec = 1; next }
	    sec && /^#/ && !blk { exit }
	    sec && /^```sh$/ { blk = 1; next }
	    blk && /^```$/ { exit }
	    blk { print }' docs/guide.md
}

@test "the guide's tool loop in Anthropic's dialect runs: the next prompt continues the first" {
	readme_loop >"$T/loop.sh"
	for step in 'harmony-render --from anthropic' 'harmony-parse --to anthropic' 'tool_result' 'harmony-render --from anthropic turn2.json'; do
		grep -q -- "$step" "$T/loop.sh" || { echo "no '$step' in the guide's loop"; return 1; }
	done
	mkdir "$T/run"
	ln -s "$ROOT/fixtures" "$T/run/fixtures"
	(cd "$T/run" && sh -eu ../loop.sh >../out 2>../err)
	[ ! -s "$T/err" ] || { cat "$T/err"; return 1; }
	cd "$T/run"
	jq -e '.stop_reason == "tool_use" and .content[0].type == "thinking" and
	    .content[1] == {"type":"tool_use","id":"toolu_0","name":"get_current_weather",
	        "input":{"location":"Tokyo"},"caller":{"type":"direct"}}' message.json
	out="$ROOT/fixtures/tools/model_output.ids"
	# the next prompt is the first, then the model's tokens, then more
	[ "$(cat prompt.ids) $(cat "$out")" = "$(cut -d' ' -f1-$(($(wc -w <prompt.ids) + $(wc -w <"$out"))) next.ids)" ]
	[ "$(wc -w <next.ids)" -gt "$(($(wc -w <prompt.ids) + $(wc -w <"$out")))" ]
	# ... and what follows is the tool's result, then the assistant's turn
	harmony-tokens decode next.ids | grep -q '<|start|>functions.get_current_weather to=assistant<|channel|>commentary<|message|>{"temperature":20}<|end|><|start|>assistant$'
}

@test "anthropic: text input counts its output tokens as harmony-tokens count does, whole and streamed" {
	for f in "$F"/*.ids "$F"/cut-call.txt; do
		case $f in
		*.ids) harmony-tokens decode "$f" >"$BATS_TEST_TMPDIR/t" ;;
		*) cp "$f" "$BATS_TEST_TMPDIR/t" ;;
		esac
		want=$(harmony-tokens count "$BATS_TEST_TMPDIR/t")
		[ "$want" -gt 0 ]
		got=$(harmony-parse -q --from text --to anthropic "$BATS_TEST_TMPDIR/t" | jq .usage.output_tokens)
		[ "$got" = "$want" ] || { echo "$f: $got, not $want"; return 1; }
		# the stream's message_delta says the same, read in 3-byte pieces
		got=$(dd if="$BATS_TEST_TMPDIR/t" bs=3 2>/dev/null | harmony-parse -q --from text --to anthropic-stream |
		    sed -n 's/^data: //p' | jq -r 'select(.type == "message_delta") | .usage.output_tokens')
		[ "$got" = "$want" ] || { echo "$f streamed: $got, not $want"; return 1; }
	done
	# ids input: the ids, as before
	[ "$(harmony-parse -q --to anthropic "$F/call.ids" | jq .usage.output_tokens)" -eq "$(wc -w <"$F/call.ids")" ]
}
