#!/usr/bin/env bats
# parse_logs.bats - harmony-parse over serving logs: the one-pass record
# reader gives what the general (cJSON) reader gave, text records, warning
# summaries, mergeable stats, and GNU parallel.
#
# fixtures/parse/records/log.ndjson is `bench/gen_log.py --records 240
# --seed 11 --variety --short`; its log.* outputs were written by
# harmony-parse before the one-pass reader existed, and are the oracle.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="$ROOT/bin:$PATH" LC_ALL=C
	F=fixtures/parse/records
	T=$BATS_TEST_TMPDIR
}

@test "records: every shape as the general reader wrote it, errors included" {
	for to in messages stats chat; do
		run harmony-parse --to "$to" "$F/log.ndjson"
		[ "$status" -eq 1 ]
		harmony-parse --to "$to" "$F/log.ndjson" >"$T/out" 2>"$T/err" || true
		cmp "$F/log.$to" "$T/out"
		cmp "$F/log.err" "$T/err"
	done
	harmony-parse --strict --to chat "$F/log.ndjson" >"$T/out" 2>"$T/err" || true
	cmp "$F/log.strict.chat" "$T/out"
	cmp "$F/log.strict.chat.err" "$T/err"
}

@test "records: the fixture holds the forms the one-pass reader hands on" {
	# Python separators, floats, escapes, several id arrays, bad records:
	# without them the comparison above would prove little.
	grep -q '", "' "$F/log.ndjson"
	grep -q '"temperature":0\.' "$F/log.ndjson"
	grep -q '\\u00e9' "$F/log.ndjson"
	grep -q '"input_ids":\[' "$F/log.ndjson"
	grep -q '"tokens":\[' "$F/log.ndjson"
	grep -q '\\/' "$F/log.ndjson"
	grep -q '"error"' "$F/log.messages"
	[ "$(grep -c '^{"id":"chatcmpl' "$F/log.messages")" -gt 150 ]
}

@test "records: output does not depend on where reads cut a record" {
	harmony-parse -q --to stats "$F/log.ndjson" | sed 's/"line":[0-9]*//' >"$T/ref" || true
	for pad in 1 7 13; do
		{ head -c $((262144 - 100 * pad)) /dev/zero | tr '\0' '\n'; cat "$F/log.ndjson"; } |
		    harmony-parse -q --to stats | sed 's/"line":[0-9]*//' >"$T/out" || true
		cmp "$T/ref" "$T/out"
	done
}

@test "records: JSON arrays one a line read as the general reader reads them" {
	python3 bench/gen_log.py --records 50 --seed 3 --short --shape array >"$T/a"
	python3 bench/gen_log.py --records 50 --seed 3 --short --shape flat >"$T/f"
	harmony-parse -q --to messages "$T/a" >"$T/a.out"
	harmony-parse -q --lines --to messages "$T/f" >"$T/f.out"
	[ "$(wc -l <"$T/a.out")" -eq 50 ]
	cmp "$T/a.out" "$T/f.out"
	# blanks after commas, and a bad id: the error as before
	printf '[200006, 173781,200008 ,12194]\n[1,x]\n' >"$T/b"
	run harmony-parse -q --to messages "$T/b"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "$(printf '[200006,173781,\n200008,12194]\n' | harmony-parse -q --to messages)" ]
	[[ "${lines[2]}" == *"not a token id: 'x'"* ]]
}
