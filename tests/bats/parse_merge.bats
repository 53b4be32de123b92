#!/usr/bin/env bats
# parse_merge.bats - harmony-parse --merge is whole or refused, and
# coverage can be checked: every summary says how much input it read
# (input_lines, input_bytes), --merge adds them up, and --expect-lines /
# --expect-bytes name a part that went missing.

bats_require_minimum_version 1.5.0

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C
	T=$BATS_TEST_TMPDIR
}

# A log of n records and the summaries of its parts of k lines.
parts() {
	python3 bench/gen_log.py --records "$1" --seed 7 --short >"$T/log"
	split -l "$2" "$T/log" "$T/part."
	for p in "$T"/part.*; do harmony-parse -q --to stats --summary "$p"; done >"$T/sums"
}

@test "summary: input_lines and input_bytes right after records, as wc counts them" {
	parts 300 70
	harmony-parse -q --to stats --summary "$T/log" >"$T/whole"
	jq -e --argjson l "$(wc -l <"$T/log")" --argjson b "$(wc -c <"$T/log")" \
	    '.input_lines == $l and .input_bytes == $b and
	     (keys_unsorted[0:3] == ["records", "input_lines", "input_bytes"])' "$T/whole"
	# a last line without a newline is a line; several files add up
	[ "$(printf 'a\nb' | harmony-parse -q --to stats --summary | jq -c '[.input_lines, .input_bytes]')" = '[2,3]' ]
	printf 'x\n\n' >"$T/two"
	harmony-parse -q --to stats --summary "$T/two" - <<<'y' >"$T/s"
	[ "$(jq -c '[.input_lines, .input_bytes]' "$T/s")" = '[3,5]' ]
	# nothing read is nothing covered
	[ "$(harmony-parse --to stats --summary </dev/null | jq -c '[.records, .input_lines, .input_bytes]')" = '[0,0,0]' ]
	# blanks alone are read, though they hold no record
	[ "$(printf '\n \n' | harmony-parse --to stats --summary | jq -c '[.records, .input_lines, .input_bytes]')" = '[0,2,3]' ]
}

@test "merge: the parts' coverage adds up to the whole's, in any order" {
	parts 300 70
	harmony-parse -q --to stats --summary "$T/log" >"$T/whole"
	harmony-parse --to stats --merge "$T/sums" | cmp "$T/whole" -
	tac "$T/sums" | harmony-parse --to stats --merge | cmp "$T/whole" -
	# the expected coverage met: exit 0, nothing on stderr
	run --separate-stderr harmony-parse --to stats --merge --expect-lines="$(wc -l <"$T/log")" \
	    --expect-bytes="$(wc -c <"$T/log")" "$T/sums"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$(cat "$T/whole")" ]
}

@test "merge: a part missing is named, the summary of the rest still written, exit 1" {
	parts 300 70
	nl=$(wc -l <"$T/log") nb=$(wc -c <"$T/log")
	sed 2d "$T/sums" >"$T/lost"
	got_l=$(jq -s 'map(.input_lines) | add' "$T/lost")
	got_b=$(jq -s 'map(.input_bytes) | add' "$T/lost")
	[ "$got_l" -eq $((nl - 70)) ]
	run --separate-stderr harmony-parse --to stats --merge --expect-lines="$nl" "$T/lost"
	[ "$status" -eq 1 ]
	[ "$stderr" = "harmony-parse: coverage: the summaries cover $got_l of $nl lines (70 missing)" ]
	[ "$output" = "$(harmony-parse --to stats --merge "$T/lost")" ]
	run --separate-stderr harmony-parse --to stats --merge --expect-bytes="$nb" "$T/lost"
	[ "$status" -eq 1 ]
	[ "$stderr" = "harmony-parse: coverage: the summaries cover $got_b of $nb bytes ($((nb - got_b)) missing)" ]
	# both at once: both named
	run --separate-stderr harmony-parse --to stats --merge --expect-lines="$nl" --expect-bytes="$nb" "$T/lost"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	# a part counted twice is more than expected
	cat "$T/sums" <(sed -n 1p "$T/sums") >"$T/twice"
	run --separate-stderr harmony-parse --to stats --merge --expect-lines="$nl" "$T/twice"
	[ "$status" -eq 1 ]
	[ "$stderr" = "harmony-parse: coverage: the summaries cover $((nl + 70)) of $nl lines (70 more than expected)" ]
	# metrics merge the same way, with the coverage as counters
	run --separate-stderr harmony-parse --to metrics --merge --expect-lines="$nl" "$T/lost"
	[ "$status" -eq 1 ]
	grep -qx "harmony_input_lines_total $got_l" <<<"$output"
	grep -qx "harmony_input_bytes_total $got_b" <<<"$output"
	[[ "$stderr" == *"(70 missing)" ]]
	harmony-parse -q --to metrics "$T/log" >"$T/m"
	grep -qx "harmony_input_lines_total $nl" "$T/m"
	grep -qx "harmony_input_bytes_total $nb" "$T/m"
}

@test "merge: summaries without input_lines (older ones) merge, their coverage unknown" {
	parts 200 70
	jq -c 'del(.input_lines, .input_bytes)' "$T/sums" | sed -n 1p >"$T/mixed"
	sed 1d "$T/sums" >>"$T/mixed"
	run --separate-stderr harmony-parse --to stats --merge "$T/mixed"
	[ "$status" -eq 0 ]
	jq -e '.records == 200 and .input_lines == null and .input_bytes == null' <<<"$output"
	# null merges as unknown again; the figures are the whole's
	[ "$(jq -c 'del(.input_lines, .input_bytes)' <<<"$output")" = \
	    "$(harmony-parse -q --to stats --summary "$T/log" | jq -c 'del(.input_lines, .input_bytes)')" ]
	run --separate-stderr harmony-parse --to stats --merge --expect-lines=200 "$T/mixed"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "harmony-parse: coverage: unknown: "* ]]
	[ -n "$output" ]
	run --separate-stderr harmony-parse --to metrics --merge "$T/mixed"
	[ "$status" -eq 0 ]
	! grep -q harmony_input_ <<<"$output"
	# one of the two alone is not a summary
	run --separate-stderr harmony-parse --to stats --merge <<<'{"records":1,"input_lines":3}'
	[ "$status" -eq 1 ]
}

@test "merge: a bad line adds nothing; the good lines' summary, the bad one named, exit 1" {
	parts 200 70
	good=$(harmony-parse --to stats --merge "$T/sums")
	# each bad line fails late, after figures that a merge would have added first
	line=$(sed -n 1p "$T/sums")
	for bad in \
	    "$(jq -c '.tokens_hist = {"3": "x"}' <<<"$line")" \
	    "$(jq -c '.recoveries = {"F99": 1}' <<<"$line")" \
	    "$(jq -c '.terminators = {"end": -1}' <<<"$line")" \
	    "$(jq -c '.tokens_min = null' <<<"$line")" \
	    "$(jq -c '.input_bytes = "many"' <<<"$line")" \
	    "$(jq -c '.recoveries = [1]' <<<"$line")" \
	    "$(jq -c '.tokens = "x"' <<<"$line")" \
	    '{"records":"x"}' 'not json'; do
		{ sed -n 1,2p "$T/sums"; printf '%s\n' "$bad"; sed 1,2d "$T/sums"; } >"$T/in"
		run --separate-stderr harmony-parse --to stats --merge "$T/in"
		echo "$bad: $status $stderr"
		[ "$status" -eq 1 ]
		[ "$output" = "$good" ]
		[[ "$stderr" == "harmony-parse: $T/in:3: "* ]]
		[ "${#stderr_lines[@]}" -eq 1 ]
		# the metrics of it are the good lines' metrics
		run --separate-stderr harmony-parse --to metrics --merge "$T/in"
		[ "$status" -eq 1 ]
		[ "$output" = "$(harmony-parse --to metrics --merge "$T/sums")" ]
	done
}

@test "merge: no summary line at all is an error, not a zero summary" {
	for to in stats metrics; do
		for input in '' '\n' ' \n\n\t\n'; do
			run --separate-stderr bash -c "printf '$input' | harmony-parse --to $to --merge"
			[ "$status" -eq 1 ]
			[ -z "$output" ]
			[ "$stderr" = "harmony-parse: no summary line to merge" ]
		done
		# bad lines alone: named, and still no summary
		run --separate-stderr harmony-parse --to "$to" --merge <<<'{"records":-1}'
		[ "$status" -eq 1 ]
		[ -z "$output" ]
		[ "${#stderr_lines[@]}" -eq 2 ]
		# with --expect-*: the shortfall is named too
		run --separate-stderr harmony-parse --to "$to" --merge --expect-lines=5 </dev/null
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"coverage: the summaries cover 0 of 5 lines (5 missing)" ]]
	done
	# a zero summary (of an empty part) is a summary, and merges
	harmony-parse --to stats --summary </dev/null >"$T/zero"
	run harmony-parse --to stats --merge --expect-lines=0 --expect-bytes=0 "$T/zero"
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "$T/zero")" ]
}

@test "--expect-lines, --expect-bytes: numbers, with --merge only" {
	for o in --expect-lines=-1 --expect-lines= --expect-bytes=1x --expect-bytes=+3 \
	    --expect-lines=99999999999999999999999; do
		run harmony-parse --to stats --merge "$o" </dev/null
		[ "$status" -eq 2 ]
		[[ "$output" == *"must be a number of"* ]]
	done
	run harmony-parse --to stats --summary --expect-lines=3 </dev/null
	[ "$status" -eq 2 ]
	[[ "$output" == *"--expect-lines goes with --merge"* ]]
	run harmony-parse --to stats --expect-bytes=3 </dev/null
	[ "$status" -eq 2 ]
}

@test "merge: counts past 2^53 add exactly" {
	# 2^53 + 1 is no double: read as the digits say
	b=9007199254740993
	line="{\"records\":$b,\"input_lines\":$b,\"input_bytes\":$b,\"errors\":$b,\"record_lines\":$b,\"tokens\":$b,\"messages\":1,\"channels\":{\"final\":$b},\"warnings\":$b,\"recoveries\":{\"F10\":$b},\"truncated\":0}"
	run --separate-stderr harmony-parse --to stats --merge <<<"$line
$line"
	[ "$status" -eq 0 ]
	s=18014398509481986
	[[ "$output" == "{\"records\":$s,\"input_lines\":$s,\"input_bytes\":$s,\"errors\":$s,\"record_lines\":$s,\"tokens\":$s,\"messages\":2,\"channels\":{\"final\":$s},"* ]]
	[[ "$output" == *"\"warnings\":$s,\"recoveries\":{\"F10\":$s},"* ]]
	# past 2^64 - 1, or not whole: not a count
	run --separate-stderr harmony-parse --to stats --merge <<<'{"records":18446744073709551616}'
	[ "$status" -eq 1 ]
	run --separate-stderr harmony-parse --to stats --merge <<<'{"records":9007199254740993.5}'
	[ "$status" -eq 1 ]
}
