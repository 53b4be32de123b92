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
				run python3 tests/bats/loop_turn.py bin "$d" "$m" "$f"
				[ "$status" -eq 0 ]
				[ "$output" = prefix ] || { echo "$d $m $f: $output"; return 1; }
				n=$((n + 1))
			done
		done
	done
	[ "$n" -eq 24 ]
	# without the ids, the model's spacing is lost (what the ids are for)
	run python3 tests/bats/loop_turn.py bin anthropic whole spaced notokens
	[ "$output" = miss ]
}

@test "--with-tokens: a history the client edited is rendered as without the ids, with a warning naming the message" {
	for d in chat responses anthropic; do
		for m in whole stream; do
			run python3 tests/bats/loop_turn.py bin "$d" "$m" channel edit
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
