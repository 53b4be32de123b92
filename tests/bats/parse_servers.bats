#!/usr/bin/env bats
# parse_servers.bats - harmony-parse over what servers return: every shape
# of ../shared/spec/input-shapes.md (fixtures/servers/, written by
# fixtures/servers/gen.py from the spec) gives, with no option, the
# messages its completion gives when parsed directly; whole and cut
# anywhere; streams read live; records that hold no completion.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C.UTF-8
	S=fixtures/servers
	T=$BATS_TEST_TMPDIR
}

# The messages of completion A or B, parsed directly, one a line.
direct() {
	harmony-parse --from text --to messages "$S/$1.txt"
}

# check FILE WANT OUT: OUT's records hold the completions WANT names in order.
check_records() {
	local want=($2) i=0 w
	[ "$(wc -l <"$3")" -eq "${#want[@]}" ]
	for w in "${want[@]}"; do
		i=$((i + 1))
		if [ "$w" = E ]; then
			sed -n "${i}p" "$3" | jq -e 'has("error")' >/dev/null
		else
			sed -n "${i}p" "$3" | jq -c '.messages[]' >"$T/got"
			direct "$w" | cmp - "$T/got"
		fi
	done
}

@test "servers: every shape gives its completion's messages, with no option" {
	[ "$(wc -l <"$S/expect.txt")" -ge 22 ]
	while read -r f want; do
		echo "$f" >&2
		st=0
		harmony-parse --to messages "$S/$f" >"$T/out" 2>"$T/err" || st=$?
		case $want in *E*) [ "$st" -eq 1 ] ;; *) [ "$st" -eq 0 ] && [ ! -s "$T/err" ] ;; esac
		check_records "$f" "$want" "$T/out"
	done <"$S/expect.txt"
}

@test "servers: the fixtures hold the hard parts of the wire formats" {
	# markup cut between chunks, Go's escapes, CRLF and comments, data:
	# without a blank, a byte token's empty text, a cumulative stream
	grep -q '"text":"<|chan"' "$S/vllm-completions.sse"
	grep -q '\\u003c|channel|\\u003e' "$S/ollama-generate.ndjson"
	grep -q $'\r$' "$S/vllm-chat.sse"
	grep -q '^: ping' "$S/vllm-chat.sse"
	grep -q '^data:{' "$S/tgi-generate-stream.sse"
	grep -q '"content":""' "$S/vllm-chat.sse"
	grep -q '"output_ids":\[200005,35644,200008\]' "$S/sglang-generate.sse"
	! grep -q '<|call|>' "$S/ollama-generate.ndjson"
}

@test "servers: n>1 gives one record per choice, carrying its index" {
	harmony-parse "$S/vllm-completions-n2.json" | jq -c '[.id, .index]' >"$T/out"
	printf '%s\n' '["cmpl-3f1c",0]' '["cmpl-3f1c",1]' | cmp - "$T/out"
	# interleaved in a stream: kept apart, in the order they began
	harmony-parse "$S/vllm-completions-n2.sse" | jq -c .index >"$T/out"
	printf '1\n0\n' | cmp - "$T/out"
}

@test "servers: any cut of the input gives the same output" {
	# cut at random (seeded) places, inside special tokens' text, inside
	# UTF-8 characters and between CR and LF, through a pipe
	python3 tests/bats/dribble.py --seeds 3 $(sed "s|^|$S/|; s/ .*//" "$S/expect.txt") \
	    -- harmony-parse -q --to chat-stream
	python3 tests/bats/dribble.py --seeds 2 "$S/vllm-completions-n2.sse" "$S/ollama-chat.ndjson" \
	    -- harmony-parse -q --to messages
}

@test "servers: a stream read through a pipe comes out live" {
	# The first event is written while the stream is still open: the
	# writer holds the pipe open until it has read that output.
	python3 tests/bats/loopback.py "$S/vllm-completions.sse" -- harmony-parse --to chat-stream
}

@test "servers: an error record first, then 20,000 good records" {
	{
		echo '{"id":"chatcmpl-err","error":"upstream timeout"}'
		python3 -c '
import sys
rec = "{\"id\":\"r%d\",\"choices\":[{\"index\":0,\"text\":\"<|channel|>final<|message|>Hi %d\",\"finish_reason\":\"stop\",\"stop_reason\":null}]}\n"
sys.stdout.write("".join(rec % (i, i) for i in range(20000)))'
	} >"$T/log"
	run bash -c "harmony-parse -q --to stats --summary '$T/log' 2>/dev/null"
	[ "$status" -eq 1 ]
	[ "$(jq .records <<<"$output")" -eq 20000 ]
	harmony-parse --to chat "$T/log" >"$T/out" 2>"$T/err" || true
	[ "$(wc -l <"$T/out")" -eq 20001 ]
	head -1 "$T/out" | jq -e '.id == "chatcmpl-err" and (.error | test("upstream timeout"))'
	[ "$(wc -l <"$T/err")" -eq 1 ]
}

@test "records: a record without a completion is an error line in its place" {
	printf '%s\n' '{"id":"a","response":"<|channel|>final<|message|>ok<|return|>","done":true}' \
	    '{"id":"b","foo":1}' '{"id":"c","text":"<|channel|>final<|message|>yes"}' >"$T/log"
	run bash -c "harmony-parse --to chat '$T/log' 2>'$T/err'"
	[ "$status" -eq 1 ]
	[[ "$(head -1 "$T/err")" == "harmony-parse: $T/log:2: no completion in the record: "*"text"*"--field names the member" ]]
	[ "$(echo "${lines[0]}" | jq -r .message.content)" = ok ]
	[ "$(echo "${lines[1]}" | jq -r .id)" = b ]
	[ "$(echo "${lines[2]}" | jq -r .message.content)" = yes ]
	# -q does not hide it, and the JSON record never becomes messages
	run bash -c "harmony-parse -q --lines '$T/log' 2>&1"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 4 ]
	[[ "$output" != *'\"foo\"'* ]]
}

@test "records: --field takes a jq path; a string is text, numbers are ids" {
	printf '%s\n' '{"id":1,"out":{"c":[{"t":"<|channel|>final<|message|>x<|return|>"}]}}' \
	    '{"id":2,"out":{"c":[{"t":[200005,17196,200008,19,200002]}]}}' '{"id":3}' >"$T/log"
	run bash -c "harmony-parse --field '.out.c[0].t' --to chat '$T/log' 2>'$T/err'"
	[ "$status" -eq 1 ]
	[ "$(echo "${lines[0]}" | jq -r .message.content)" = x ]
	[ "$(echo "${lines[1]}" | jq -r .message.content)" = 4 ]
	[[ "$(cat "$T/err")" == *":3: no member .out.c[0].t in the record (--field)" ]]
	[ "$(echo "${lines[2]}" | jq -c '[.id, .line]')" = '[3,3]' ]
	# a bare name is a member name
	echo '{"response":"<|channel|>final<|message|>r"}' | harmony-parse --field response --to chat >"$T/out"
	[ "$(jq -r .message.content "$T/out")" = r ]
	run harmony-parse --field '.a[x]' </dev/null
	[ "$status" -eq 2 ]
	[[ "$output" == *"invalid --field: '.a[x]'"* ]]
}

@test "records: raw Harmony text stays one text, JSON lines in it included" {
	printf '<|channel|>final<|message|>\n{"tokens":[1,2]}\n{"text":"x"}<|return|>' >"$T/t"
	run harmony-parse --to chat "$T/t"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$(echo "$output" | jq -r .message.content)" = $'\n{"tokens":[1,2]}\n{"text":"x"}' ]
}

@test "empty input is no record: records 0, merge unchanged, JSON shapes write nothing" {
	run harmony-parse --to stats --summary </dev/null
	[ "$status" -eq 0 ]
	[ "$(jq .records <<<"$output")" -eq 0 ]
	echo '{"tokens":[200005,17196,200008,19,200002]}' | harmony-parse --to stats --summary >"$T/one"
	{ cat "$T/one"; echo "$output"; } | harmony-parse --to stats --merge >"$T/merged"
	harmony-parse --to stats --merge "$T/one" | cmp - "$T/merged"
	for to in chat chat-completion responses messages stats; do
		[ -z "$(harmony-parse --to $to </dev/null)" ]
		[ -z "$(printf '\n \n' | harmony-parse --to $to)" ]
	done
}

@test "a binary file gives a capped count of warnings" {
	python3 -c 'import random, sys; r = random.Random(5); sys.stdout.buffer.write(bytes([0]) + bytes(r.randrange(256) for _ in range(300000)))' >"$T/bin"
	harmony-parse --to stats "$T/bin" >/dev/null 2>"$T/err" || true
	[ "$(wc -l <"$T/err")" -lt 60 ]
	harmony-parse --warnings=all --to stats "$T/bin" >/dev/null 2>"$T/err" || true
	[ "$(wc -l <"$T/err")" -gt 60 ]
}

@test "ids are read strictly by every tool: decode, diff and parse" {
	for bad in '[13225, 2375' '[1,,2]' '[[1,2]]' '[1,2]]' '1 4294967296'; do
		run bash -c "printf '%s\n' '$bad' | harmony-tokens decode"
		[ "$status" -eq 1 ]
		[[ "$output" == "harmony-tokens: -:1:"[0-9]*": "* ]]
	done
	run bash -c "printf '[13225, 2375\n' | harmony-tokens decode 2>&1"
	[ "$output" = "harmony-tokens: -:1:13: unterminated JSON array: no ']'" ]
	# diff says so on stderr and never calls the files equal
	printf '[1,2]\n[1,,2]\n' >"$T/a"
	printf '[1,2]\n[1,2]\n' >"$T/b"
	run bash -c "harmony-tokens diff '$T/a' '$T/b' 2>'$T/err'"
	[ "$status" -eq 1 ]
	[[ "$output" != *equal* ]]
	grep -q "a:2:4: doubled comma" "$T/err"
	# harmony-parse: the plain stream goes on past a stray bracket
	run bash -c "printf '200005 17196 200008\n19 ] 200002\n' | harmony-parse 2>'$T/err'"
	[ "$status" -eq 1 ]
	[ "$(cat "$T/err")" = "harmony-parse: -:2: token 4: stray ']': ids here are not in an array" ]
	[ "$output" = '{"role":"assistant","content":"4","channel":"final"}' ]
}

@test "servers: a stream left open, then a record that is not the server's: the stream goes out first, whole, in its place" {
	# a chunk of a chat stream that never finishes, then text, ids and a bad line (--lines)
	chunk='{"id":"s1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"<|channel|>final<|message|>Hel"},"finish_reason":null}]}'
	printf '%s\n' 'x' "$chunk" '<|channel|>final<|message|>two<|return|>' "$chunk" '200005 17196 200008 19 200002' "$chunk" '{"id":7,"tokens":"z"}' >"$T/mixed.txt"
	harmony-parse --lines --to chat "$T/mixed.txt" >"$T/out" 2>"$T/err" && st=0 || st=$?
	[ "$st" -eq 1 ]
	# one output line per input record, in the order they began
	[ "$(wc -l <"$T/out")" -eq 7 ]
	[ "$(jq -r '.message.content // .error' "$T/out" | tr '\n' '|')" = \
	    'x|Hel|two|Hel|200005 17196 200008 19 200002|Hel|the id field is not an array|' ] ||
	    { cat "$T/out"; return 1; }
	# each stream cut where the next record came, said so, never glued to it
	[ "$(jq -r 'select(.message.content == "Hel") | .finish_reason' "$T/out" | sort -u)" = length ]
	[ "$(grep -c 'stream ended inside a message (F10) in record "s1"' "$T/err")" -eq 3 ]
	! grep -q 'F8) in record' "$T/err"
	# records (no --lines): an id array record after an open chunk
	printf '%s\n' "$chunk" '[200005,17196,200008,19,200002]' | harmony-parse --to chat >"$T/out"
	[ "$(jq -r .message.content "$T/out" | tr '\n' '|')" = 'Hel|4|' ]
}
