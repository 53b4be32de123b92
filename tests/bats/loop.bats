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
