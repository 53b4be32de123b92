#!/usr/bin/env bats
# voice.bats - errors in one voice across the four tools: the form
# "PROG: FILE:LINE[:COL]: what, with the offending value", the same words
# for the same condition, hints where the next step is obvious, and no
# message inside a half-written line of output.

load helpers

setup() {
	hm_setup
	T=$BATS_TEST_TMPDIR
}

@test "a JSON error names the file's line and column, not the record's line as well" {
	printf '{"messages":[]}\n\n{"messages": [}\n' >"$T/r.json"
	err=$(harmony-render --lines --to json "$T/r.json" 2>&1 >/dev/null) && false
	[ "$err" = "harmony-render: $T/r.json:2: empty line: no request
harmony-render: $T/r.json:3:15: expected value" ]
	printf '\n\n{"messages": [}' >"$T/w.json"
	run harmony-render "$T/w.json"
	[ "$output" = "harmony-render: $T/w.json:3:15: expected value" ]
	run harmony-tools render "$T/w.json"
	[ "$output" = "harmony-tools: $T/w.json:3:15: expected value" ]
}

@test "an empty input is 'empty input' in every tool that needs one" {
	: >"$T/empty"
	run harmony-render "$T/empty"
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-render: $T/empty:1: empty input: no request" ]
	for c in render "convert --to chat"; do
		# shellcheck disable=SC2086
		run harmony-tools $c "$T/empty"
		[ "$status" -eq 1 ]
		[ "$output" = "harmony-tools: $T/empty:1: empty input: no tool definitions" ]
	done
	run harmony-tools calls --check "$T/empty" </dev/null
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-tools: $T/empty:1: empty input: no tool definitions" ]
}

@test "an id out of range and a word that is no id: the value named, the same words in harmony-tokens' commands" {
	printf '24912 201089\n' >"$T/ids"
	run harmony-tokens decode "$T/ids"
	[ "$output" = "harmony-tokens: $T/ids:1:7: token 1: id 201089 out of range (max 201088)" ]
	run harmony-tokens count --from ids "$T/ids"
	[ "$output" = "harmony-tokens: $T/ids:1:7: token 1: id 201089 out of range (max 201088)" ]
	run harmony-tokens diff "$T/ids" "$T/ids"
	[ "${lines[0]}" = "harmony-tokens: $T/ids:1:7: token 1: id 201089 out of range (max 201088)" ]
	# a record without ids is about the record: no token index
	printf '{"x":1}\n' >"$T/rec"
	run harmony-tokens decode "$T/rec"
	[ "$output" = "harmony-tokens: $T/rec:1:1: no tokens, token_ids, output_ids or input_ids array" ]
}

@test "every tool reports a bad option the same way" {
	for b in harmony-tokens harmony-render harmony-tools; do
		run "$b" --bogus
		[ "$status" -eq 2 ]
		[ "${lines[0]}" = "$b: unknown option '--bogus'" ]
		[ "${lines[1]}" = "Try '$b --help'." ]
		run "$b" --to
		[ "${lines[0]}" = "$b: option '--to' needs an argument" ]
	done
}

@test "harmony-tools calls given token ids says to parse them first" {
	run harmony-tools calls <<<'200006 1428 200008'
	[ "$status" -eq 1 ]
	[[ $output == "harmony-tools: -:1: "*"token ids: parse them first (harmony-parse FILE | harmony-tools calls)" ]]
	# a completion parsed first gives the calls
	run sh -c 'harmony-parse fixtures/tools/model_output.ids | harmony-tools calls'
	[ "$status" -eq 0 ]
	[[ $output == *'"name":"get_current_weather"'* ]]
}

@test "calls --check names the expected and the given type" {
	err=$(harmony-tools calls --check fixtures/tools/tools_anthropic.json 2>&1 >/dev/null \
	    <<<'{"role":"assistant","recipient":"functions.get_current_weather","content":"{\"location\":\"Tokyo\",\"format\":3}"}') && false
	[ "$err" = "harmony-tools: -:1: call_0 functions.get_current_weather: /format: type: expected string, got integer; /format: enum: 3 is not one of the 2 allowed values" ]
}

@test "an error never lands inside a half-written line: stdout and stderr one file" {
	# encode writes its ids as they come, then meets invalid UTF-8 late
	{ yes 'hello world' | head -n 20000; printf '\377\n'; } >"$T/late.txt"
	harmony-tokens encode "$T/late.txt" >"$T/both" 2>&1 && false
	# the half-written ids line is ended; the message is a line of its own
	[ "$(sed -n 2p "$T/both")" = "harmony-tokens: $T/late.txt:20001:1: invalid UTF-8 (use --lossy to replace it)" ]
	[ "$(wc -l <"$T/both")" -eq 3 ]
	# no id is lost: the two parts are the ids written to a file alone
	harmony-tokens encode "$T/late.txt" 2>/dev/null >"$T/out" && false
	[ "$(sed -n 1p "$T/both")$(sed -n 3p "$T/both")" = "$(cat "$T/out")" ]
	# to a file of its own (stderr elsewhere) stdout gets no extra newline
	[ "$(wc -l <"$T/out")" -eq 1 ]
}

@test "on a terminal too (script): the message starts its own line" {
	command -v script >/dev/null
	{ yes 'hello world' | head -n 20000; printf '\377\n'; } >"$T/late.txt"
	script -qec "harmony-tokens encode '$T/late.txt'" /dev/null >"$T/tty" || true
	tr -d '\r' <"$T/tty" | grep -qx "harmony-tokens: $T/late.txt:20001:1: invalid UTF-8 (use --lossy to replace it)"
}
