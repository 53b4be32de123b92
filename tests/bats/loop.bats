#!/usr/bin/env bats
# loop.bats - the agent loop through the API shapes: each turn's ids are
# its own (--ids=deterministic derives them from the record), and the
# model's tokens ride with the turn and come back into the next prompt.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C
	T=$BATS_TEST_TMPDIR
	CALL=$(tr -s ' \n' ',,' <fixtures/parse/call.ids | sed 's/,$//')
}

# The call ids of each record of stdin, one line a record.
call_ids() {
	harmony-parse --to "$1" | grep -o '"\(call_id\|id\)":"\(call\|toolu\)_[^"]*"' | sort -u
}

@test "--ids=deterministic: two turns of one conversation never share a call id, the same input the same ids" {
	for to in chat-completion chat-stream responses responses-stream anthropic anthropic-stream; do
		a=$(printf '{"id":"req-1","output_ids":[%s]}\n' "$CALL" | call_ids $to)
		b=$(printf '{"id":"req-2","output_ids":[%s]}\n' "$CALL" | call_ids $to)
		p=$(printf '{"prompt_token_ids":[1,2,3],"output_ids":[%s]}\n' "$CALL" | call_ids $to)
		q=$(printf '{"prompt_token_ids":[1,2,4],"output_ids":[%s]}\n' "$CALL" | call_ids $to)
		[ -n "$a" ] && [ -n "$b" ] && [ -n "$p" ] && [ -n "$q" ]
		[ "$a" != "$b" ] && [ "$p" != "$q" ] && [ "$a" != "$p" ]
		# the same input: the same ids, in a second run as in the first
		[ "$a" = "$(printf '{"id":"req-1","output_ids":[%s]}\n' "$CALL" | call_ids $to)" ]
		# 24 hex digits after the prefix
		echo "$a" | grep -Eq '_[0-9a-f]{24}"$'
	done
	# a record with neither id nor prompt is numbered, as before
	printf '{"output_ids":[%s]}\n' "$CALL" | harmony-parse --to chat-completion | grep -q '"id":"call_0"'
	# a stream names its call by one id in every event
	n=$(printf '{"id":"req-1","output_ids":[%s]}\n' "$CALL" | harmony-parse --to responses-stream |
	    grep -o '"call_\(id\|[0-9a-f]*\)[^,}]*' | grep -o 'call_[0-9a-f]\{24\}' | sort -u | wc -l)
	[ "$n" -eq 1 ]
}

@test "--with-tokens: a tool-call turn comes back token-exact, every dialect, whole and stream, four header forms" {
	n=0
	for d in chat responses anthropic; do
		for m in whole stream; do
			for f in channel recipient bare spaced; do
				run python3 tests/bats/loop_turn.py "${HM_BIN:-bin}" "$d" "$m" "$f"
				[ "$status" -eq 0 ]
				[ "$output" = prefix ] || { echo "$d $m $f: $output"; return 1; }
				n=$((n + 1))
			done
		done
	done
	[ "$n" -eq 24 ]
	# without the ids, the model's spacing is lost (what the ids are for)
	run python3 tests/bats/loop_turn.py "${HM_BIN:-bin}" anthropic whole spaced notokens
	[ "$output" = miss ]
}

@test "--with-tokens: a history the client edited is rendered as without the ids, with a warning naming the message" {
	for d in chat responses anthropic; do
		for m in whole stream; do
			run python3 tests/bats/loop_turn.py "${HM_BIN:-bin}" "$d" "$m" channel edit
			[ "$status" -eq 0 ]
			[ "${lines[0]}" = as-without ]
			[ "${lines[1]}" = miss ]
			[[ "${lines[2]}" =~ ^"harmony-render: -:1: "(messages|input)"[1]: the model's ids it carries are not this message's (edited?): rendered from its text"$ ]]
		done
	done
}

@test "--with-tokens: where each shape carries the turn's ids, packed and checked" {
	rec=$(printf '{"id":"r1","output_ids":[%s]}' "$CALL")
	v=$(echo "$rec" | harmony-parse --with-tokens --to chat-completion | grep -o '"harmony_tokens":"h1[A-Za-z0-9_-]*"')
	[ -n "$v" ]
	# the same value in each shape's place
	echo "$rec" | harmony-parse --with-tokens --to chat-stream | grep -q "\"delta\":{${v}}"
	echo "$rec" | harmony-parse --with-tokens --to anthropic | grep -q "\"signature\":${v#*:}"
	echo "$rec" | harmony-parse --with-tokens --to anthropic-stream | grep -q "\"signature_delta\",\"signature\":${v#*:}"
	echo "$rec" | harmony-parse --with-tokens --to responses | grep -q "\"encrypted_content\":${v#*:}"
	[ "$(echo "$rec" | harmony-parse --with-tokens --to responses-stream | grep -c "\"encrypted_content\":${v#*:}")" -eq 3 ]
	# no reasoning: a block or item of its own
	ans=$(echo '<|channel|>final<|message|>Hi.<|return|>' | harmony-tokens encode | tr ' ' ,)
	printf '{"output_ids":[%s]}\n' "$ans" | harmony-parse --with-tokens --to anthropic |
	    grep -q '"content":\[{"type":"redacted_thinking","data":"h1'
	printf '{"output_ids":[%s]}\n' "$ans" | harmony-parse --with-tokens --to responses |
	    grep -q '"output":\[{"type":"reasoning","id":"rs_1","summary":\[\],"encrypted_content":"h1'
	# without --with-tokens nothing changes
	! echo "$rec" | harmony-parse --to chat-completion | grep -q harmony_tokens
	run harmony-parse --with-tokens --to stats /dev/null
	[ "$status" -eq 2 ]
}

@test "harmony-render: carried ids that do not unpack are refused with a warning, the turn rendered from its text" {
	rec=$(printf '{"id":"r1","output_ids":[%s]}' "$CALL")
	msg=$(echo "$rec" | harmony-parse --with-tokens --to chat | python3 -c '
import json, sys
m = json.load(sys.stdin)["message"]
m["harmony_tokens"] = m["harmony_tokens"][:-3] + ("AAA" if m["harmony_tokens"][-3:] != "AAA" else "BBB")
print(json.dumps(m))')
	req='{"model":"m","messages":[{"role":"user","content":"hi"},'"$msg"']}'
	run harmony-render --from chat <<<"$req"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "harmony-render: -:1: messages[1]: the model's ids it carries do not unpack (its check does not hold (edited or cut)): rendered from its text" ]]
	plain=$(echo "$req" | python3 -c 'import json,sys; r=json.load(sys.stdin); r["messages"][1].pop("harmony_tokens"); print(json.dumps(r))' | harmony-render --from chat)
	[ "${lines[1]}" = "$plain" ]
}

@test "--with-tokens: a final-answer turn with no tools (no developer message) keeps its ids on its own messages" {
	ans=$(printf '%s' '<|channel|>analysis<|message|>Say hi.<|end|><|start|>assistant<|channel|>final<|message|>Hi there.<|return|>' | harmony-tokens encode | tr ' ' ,)
	msg=$(printf '{"id":"x","output_ids":[%s]}\n' "$ans" | harmony-parse --with-tokens --to chat |
	    python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["message"]))')
	req='{"model":"m","messages":[{"role":"user","content":"hi"},'"$msg"',{"role":"user","content":"more"}]}'
	plain=$(echo "$req" | python3 -c 'import json,sys; r=json.load(sys.stdin); r["messages"][1].pop("harmony_tokens"); print(json.dumps(r))')
	# the analysis before the first final answer dropped, the answer as its ids: as from its fields
	[ "$(harmony-render --from chat <<<"$req")" = "$(harmony-render --from chat <<<"$plain")" ]
	# kept: the model's tokens, <|return|> as <|end|>
	harmony-render --from chat --keep-analysis --to text <<<"$req" | grep -q '<|start|>user<|message|>hi<|end|><|start|>assistant<|channel|>analysis<|message|>Say hi.<|end|><|start|>assistant<|channel|>final<|message|>Hi there.<|end|><|start|>user<|message|>more<|end|><|start|>assistant$'
}

@test "--store: a turn that comes back without its reasoning is found by its call id, every dialect, whole and stream" {
	for d in chat responses anthropic; do
		for m in whole stream; do
			run env LOOP_STORE="$T/store" python3 tests/bats/loop_turn.py "${HM_BIN:-bin}" "$d" "$m" spaced dropped
			[ "$status" -eq 0 ]
			[ "$output" = prefix ] || { echo "$d $m: $output"; return 1; }
			# without the store it is rendered from what came back
			run python3 tests/bats/loop_turn.py "${HM_BIN:-bin}" "$d" "$m" spaced dropped
			[ "$output" = miss ]
		done
	done
}

@test "--store: the layout, plain files of ids; a response with its prompt, its call ids; no file left half written" {
	prompt=$(printf '%s' '<|start|>user<|message|>w?<|end|><|start|>assistant' | harmony-tokens encode | tr ' ' ,)
	printf '{"id":"resp_a1","prompt_token_ids":[%s],"output_ids":[%s]}\n' "$prompt" "$CALL" |
	    harmony-parse --store="$T/s" --to responses >"$T/out"
	# the prompt's ids are the store's: not sent to the client
	! grep -q prompt_token_ids "$T/out"
	printf '{"id":"resp_a1","prompt_token_ids":[%s],"output_ids":[%s]}\n' "$prompt" "$CALL" |
	    harmony-parse --to responses | grep -q prompt_token_ids
	call=$(grep -o '"call_id":"call_[0-9a-f]*"' "$T/out" | head -n 1 | cut -d'"' -f4)
	[ -n "$call" ]
	[ "$(ls "$T/s")" = "$(printf 'calls\nresponses\ntmp')" ]
	[ "$(ls "$T/s/responses")" = resp_a1 ]
	[ "$(ls "$T/s/calls")" = "$call" ]
	[ -z "$(ls "$T/s/tmp")" ]
	# line 1 the prompt and the completion, line 2 the call ids
	[ "$(sed -n 1p "$T/s/responses/resp_a1")" = "$(echo "$prompt,$CALL" | tr , ' ')" ]
	[ "$(sed -n 2p "$T/s/responses/resp_a1")" = "$call" ]
	[ "$(cat "$T/s/calls/$call")" = "$(echo "$CALL" | tr , ' ')" ]
	harmony-tokens decode "$T/s/calls/$call" | grep -q 'to=functions.get_weather'
	# a record without its prompt: its calls, no response
	printf '{"id":"resp_a2","output_ids":[%s]}\n' "$CALL" | harmony-parse --store="$T/s" --to chat >/dev/null
	[ ! -e "$T/s/responses/resp_a2" ]
	# an id that cannot name a file is not stored
	printf '{"id":"../x","prompt_token_ids":[1],"output_ids":[%s]}\n' "$CALL" | harmony-parse --store="$T/s" --to responses >/dev/null
	[ "$(ls "$T/s/responses")" = resp_a1 ]
	# only with an API shape
	run harmony-parse --store="$T/s" --to messages </dev/null
	[ "$status" -eq 2 ]
}

@test "--store: workers writing at once leave every file whole" {
	for i in 1 2 3 4 5 6 7 8; do
		for j in 1 2 3 4 5 6 7 8 9 10; do
			printf '{"id":"r%s","prompt_token_ids":[200006,1428],"output_ids":[%s]}\n' "$j" "$CALL"
		done | harmony-parse --store="$T/s" --to responses >/dev/null &
	done
	wait
	[ "$(ls "$T/s/responses" | wc -l)" -eq 10 ]
	[ -z "$(ls "$T/s/tmp")" ]
	for f in "$T/s/responses"/*; do
		[ "$(sed -n 1p "$f")" = "200006 1428 $(echo "$CALL" | tr , ' ')" ]
		[ "$(wc -l <"$f")" -eq 2 ]
	done
}

@test "--store: previous_response_id continues the stored conversation token for token; an unknown id is an error" {
	tools='[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]'
	harmony-render --from responses --store="$T/s" <<<'{"model":"m","input":"w?","tools":'"$tools"'}' >"$T/p1"
	printf '{"id":"resp_1","prompt_token_ids":[%s],"output_ids":[%s]}\n' "$(tr ' ' , <"$T/p1")" "$CALL" |
	    harmony-parse --store="$T/s" --to responses >"$T/r1"
	call=$(grep -o '"call_id":"[^"]*"' "$T/r1" | cut -d'"' -f4)
	req='{"model":"m","previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"'"$call"'","output":"sunny"}],"tools":'"$tools"'}'
	harmony-render --from responses --store="$T/s" <<<"$req" >"$T/p2"
	harmony-tokens diff -q --prefix <(echo "$(cat "$T/p1") $(echo "$CALL" | tr , ' ')") "$T/p2"
	# the same history sent whole renders the same prompt
	whole=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps({"model":"m","input":[{"role":"user","content":"w?"}]+r["output"]+[{"type":"function_call_output","call_id":sys.argv[2],"output":"sunny"}],"tools":json.loads(sys.argv[3])}))' "$T/r1" "$call" "$tools")
	[ "$(harmony-render --from responses --header-order=model <<<"$whole")" = "$(cat "$T/p2")" ]
	run harmony-render --from responses --store="$T/s" <<<'{"model":"m","previous_response_id":"resp_9","input":"hi"}'
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-render: -:1: previous_response_id 'resp_9': no such response in the store" ]
	run harmony-render --from responses <<<'{"model":"m","previous_response_id":"resp_1","input":"hi"}'
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-render: -:1: previous_response_id 'resp_1': no store of responses to find it in" ]
}
