#!/usr/bin/env bats
# parse_cut.bats - a record cut short (a writer killed mid-line) costs that
# record only: an error line in its place, every record after it read, the
# summary counting it as an error, and the same counts over parts merged.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C
	T=$BATS_TEST_TMPDIR
}

bats_require_minimum_version 1.5.0

HI='[200005,17196,200008,12194,200002]'

# A log of 4 records a line, the second cut short (in its id array).
cut4() {
	printf '{"id":1,"tokens":%s}\n{"id":2,"tokens":[200005,17196,2000\n{"id":3,"tokens":%s}\n{"id":4,"tokens":%s}\n' \
	    "$HI" "$HI" "$HI"
}

@test "cut: an unterminated record is an error line in its place; the rest is read" {
	for lines in "" --lines; do
		cut4 >"$T/log"
		run --separate-stderr harmony-parse $lines --to chat "$T/log"
		[ "$status" -eq 1 ]
		[ "${#lines[@]}" -eq 4 ]
		[ "${lines[1]}" = '{"error":"unterminated JSON record","line":2}' ]
		for i in 0 2 3; do
			jq -e '.message.content == "Hi"' <<<"${lines[$i]}"
		done
		[ "$stderr" = "harmony-parse: $T/log:2: unterminated JSON record (line 3 begins the next record)" ]
	done
	# at the end of the input: as before
	printf '{"tokens":%s}\n{"tokens":[1,2' "$HI" >"$T/end"
	run --separate-stderr harmony-parse --to chat "$T/end"
	[ "$status" -eq 1 ]
	[ "${lines[1]}" = '{"error":"unterminated JSON record","line":2}' ]
	[ "$stderr" = "harmony-parse: $T/end:2: unterminated JSON record" ]
}

@test "cut: inside a string, a bare id array, a pretty record: each costs itself" {
	{
		printf '{"id":"a","text":"<|channel|>final<|message|>he\n'
		printf '[200005,17196\n'
		printf '{\n  "id": "p",\n  "tokens": [\n    200005, 17196, 200008, 12194, 200002\n  ],\n  "x": {"y": [1]}\n}\n'
		printf '%s\n' "$HI"
		printf '{"id":"b","text":"<|channel|>final<|message|>ok<|return|>"}\n'
	} >"$T/log"
	run --separate-stderr harmony-parse "$T/log"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 5 ]
	[ "${lines[0]}" = '{"error":"unterminated JSON record","line":1}' ]
	[ "${lines[1]}" = '{"error":"unterminated JSON record","line":2}' ]
	jq -e '.id == "p" and .messages[0].content == "Hi"' <<<"${lines[2]}"
	jq -e '.messages[0].content == "Hi"' <<<"${lines[3]}"
	jq -e '.id == "b" and .messages[0].content == "ok"' <<<"${lines[4]}"
	# a batch with an object a line in the first column is one array still
	printf '[\n{"tokens":%s},\n{"tokens":%s}\n]\n' "$HI" "$HI" >"$T/batch"
	[ "$(harmony-parse --to chat "$T/batch" | jq -r .message.content | tr '\n' ' ')" = 'Hi Hi ' ]
}

@test "cut: an SSE data line cut short costs that event only" {
	c='{"choices":[{"index":0,"delta":{"content":"%s"},"finish_reason":null}]}'
	{
		printf "data: $c\n\n" A
		printf 'data: {"choices":[{"index":0,"delta":{"cont\n'
		printf "data: $c\n\n" B
		printf 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
		printf 'data: [DONE]\n\n'
	} >"$T/sse"
	run --separate-stderr harmony-parse --to chat "$T/sse"
	[ "$status" -eq 1 ]
	# the stream goes on past the piece that is no object, as past any
	[[ "$stderr" == *"sse:3: "* ]]
	[ "${#lines[@]}" -eq 2 ]
	jq -e '.message.content == "AB"' <<<"${lines[0]}"
	jq -e '.line == 3 and (.error | length > 0)' <<<"${lines[1]}"
}

@test "cut: summaries count errors; one run and parts merged agree, for a cut anywhere" {
	python3 bench/gen_log.py --records 30 --seed 3 --short >"$T/clean"
	n=$(wc -l <"$T/clean")
	for k in 1 7 15 29 30; do
		# line k cut in the middle (its newline kept)
		awk -v k="$k" 'NR == k { $0 = substr($0, 1, int(length($0) / 2)) } { print }' \
		    "$T/clean" >"$T/log"
		harmony-parse -q --to stats --summary "$T/log" >"$T/one" || true
		jq -e --argjson n "$n" '.records == $n - 1 and .errors == 1 and
		    .input_lines == $n and .record_lines == $n' "$T/one"
		rm -f "$T"/part.*
		split -l 11 "$T/log" "$T/part."
		for p in "$T"/part.*; do harmony-parse -q --to stats --summary "$p" || true; done |
		    harmony-parse --to stats --merge --expect-lines="$n" \
		    --expect-bytes="$(wc -c <"$T/log")" >"$T/merged"
		cmp "$T/one" "$T/merged"
	done
}

@test "merge: records and errors must account for the lines read" {
	ok='{"records":2,"input_lines":3,"input_bytes":30,"errors":1,"record_lines":3}'
	run --separate-stderr harmony-parse --to stats --merge <<<"$ok"
	[ "$status" -eq 0 ]
	jq -e '.errors == 1 and .record_lines == 3' <<<"$output"
	# a part whose reader lost lines
	run --separate-stderr harmony-parse --to stats --merge <<<"$ok
{\"records\":1,\"input_lines\":4,\"input_bytes\":40,\"errors\":0,\"record_lines\":2}"
	[ "$status" -eq 1 ]
	[ "$stderr" = "harmony-parse: coverage: the records and errors account for 5 of the 7 lines read" ]
	jq -e '.records == 3 and .errors == 1 and .record_lines == 5' <<<"$output"
	# a part that did not count them (older, or not read by lines): no check
	run --separate-stderr harmony-parse --to stats --merge <<<"$ok
{\"records\":1,\"input_lines\":4,\"input_bytes\":40}"
	[ "$status" -eq 0 ]
	jq -e '.record_lines == null and .errors == 1' <<<"$output"
}
