#!/usr/bin/env bats
# hardening.bats - hostile input: JSON nested to the limit every JSON
# reader shares (127 levels, serde_json's), one level more, and far more
# (100,000 levels, which must be an error, not a stack overflow), in
# requests, tool schemas, call arguments and id records; and the inputs
# that sanitizers and fuzzers found (run under ASan by make sanitize, where
# a leak fails the test).

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C
	T=$BATS_TEST_TMPDIR
}

MSG='recursion limit exceeded (JSON nested deeper than 127 levels)'

# nest N: N arrays one in another, [[...]].
nest() {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "["; for (i = 0; i < n; i++) printf "]" }'
}

# wrap N TEMPLATE: TEMPLATE with @ replaced by N nested arrays, into $T/in.
wrap() {
	local a
	a=$(nest "$1")
	printf '%s\n' "${2//@/$a}" >"$T/in"
}

@test "harmony-render: JSON nested 127 levels reads, 128 is an error at the bracket, 100000 too" {
	# The outer object is a level: 126 arrays in it make 127.
	for d in chat responses anthropic; do
		case $d in
		chat) tpl='{"messages":[{"role":"user","content":"hi"}],"metadata":@}' ;;
		responses) tpl='{"input":"hi","metadata":@}' ;;
		anthropic) tpl='{"max_tokens":9,"messages":[{"role":"user","content":"hi"}],"metadata":@}' ;;
		esac
		wrap 126 "$tpl"
		run harmony-render --from "$d" --to text "$T/in"
		[ "$status" -eq 0 ] || { echo "$d 127: $output"; return 1; }
		wrap 127 "$tpl"
		run harmony-render --from "$d" --to text "$T/in"
		[ "$status" -eq 1 ]
		pre=${tpl%%@*}
		col=$(( ${#pre} + 127 ))
		[ "$output" = "harmony-render: $T/in:1:$col: $MSG" ] || { echo "$d 128: $output"; return 1; }
		wrap 100000 "$tpl"
		run harmony-render --from "$d" --to text "$T/in"
		[ "$status" -eq 1 ]
		[[ $output == *":1:$col: $MSG" ]]
	done
	# A bare Harmony array: 127 arrays read (and are no conversation), 128 do not.
	nest 127 >"$T/in"
	run harmony-render --from harmony "$T/in"
	[ "$status" -eq 1 ]
	[[ $output != *recursion* ]]
	nest 128 >"$T/in"
	run harmony-render --from harmony "$T/in"
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-render: $T/in:1:128: $MSG" ]
}

@test "harmony-tools: deep tool schemas and call arguments are an error, not a crash" {
	tpl='{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"array","default":@}}}}'
	# Four objects, then arrays: 123 make 127 levels.
	wrap 123 "$tpl"
	run harmony-tools render "$T/in"
	[ "$status" -eq 0 ]
	[[ $output == *'type f = (_: {'* ]]
	wrap 124 "$tpl"
	run harmony-tools render "$T/in"
	[ "$status" -eq 1 ]
	[[ $output == "harmony-tools: $T/in:1:"[0-9]*": $MSG" ]]
	wrap 100000 "$tpl"
	run harmony-tools render "$T/in"
	[ "$status" -eq 1 ]
	[[ $output == *"$MSG"* ]]
	# Arguments of a call: checked against the schema, read with the same limit.
	printf '%s\n' '{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"array"}}}}' >"$T/tools.json"
	for n in 126 127 100000; do
		printf '{"role":"assistant","content":[{"type":"text","text":"{\\"a\\":%s}"}],"channel":"commentary","recipient":"functions.f"}\n' "$(nest "$n")" >"$T/calls"
		run harmony-tools calls --check "$T/tools.json" "$T/calls"
		echo "$n: $status ${output:0:300}"
		if [ "$n" -eq 126 ]; then
			[ "$status" -eq 0 ]
			[[ ${lines[0]} == '{"call_id":"call_0","name":"f","namespace":"functions","arguments":{"a":[[['* ]]
		else
			# {"a": then the arrays: the 128th level is at column 5 + 127.
			[ "${lines[0]}" = "harmony-tools: $T/calls:1: call_0 functions.f: arguments are not JSON: $MSG at line 1 column 132" ]
		fi
	done
}

@test "id records nested past the limit: the reason, for harmony-parse and harmony-tokens" {
	wrap 126 '{"tokens":[200006,1428],"x":@}'
	run harmony-parse -q --to stats "$T/in"
	[ "$status" -eq 0 ]
	wrap 127 '{"tokens":[200006,1428],"x":@}'
	run harmony-parse --to stats "$T/in"
	[ "$status" -eq 1 ]
	# a record-level fault: no token is named
	[ "${lines[0]}" = "harmony-parse: $T/in:1: $MSG" ]
	wrap 100000 '{"tokens":[200006,1428],"x":@}'
	run harmony-tokens decode "$T/in"
	[ "$status" -eq 1 ]
	[[ $output == "harmony-tokens: $T/in:1:"[0-9]*": $MSG"* ]]
}

@test "a Responses reasoning item with an empty summary leaks nothing" {
	run harmony-render --from responses --to text fixtures/fuzz/render_responses/leak-reasoning-empty-summary.json
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "harmony-render: fixtures/fuzz/render_responses/leak-reasoning-empty-summary.json:1: input[0]: reasoning item with no readable text (empty summary) left out" ]
	[ "${lines[-1]}" = "# Valid channels: analysis, commentary, final. Channel must be included for every message.<|end|><|start|>assistant" ]
}

@test "fuzz finding: an NDJSON id of 1e30 is not a token id (was a float-to-integer overflow)" {
	run harmony-parse fixtures/fuzz/ids/id-beyond-uint64
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "harmony-parse: fixtures/fuzz/ids/id-beyond-uint64:1: token 0: not a token id at index 0" ]
}

@test "fuzz finding: --role none text after blanks starts where a read of its own would start it" {
	# Whole, or the blank in a read of its own: the same start, after it.
	whole=$(harmony-parse --role none --from text --to events -q fixtures/fuzz/parse_text/role-none-leading-blank | head -n 1)
	split=$( (printf ' '; sleep 0.1; tail -c +2 fixtures/fuzz/parse_text/role-none-leading-blank) |
		harmony-parse --role none --from text --to events -q | head -n 1)
	[ "$whole" = "$split" ]
	[[ $whole == *'"at":1'* ]]
}
