#!/usr/bin/env bats
# parse_tool_choice.bats - harmony-parse --tool-choice: each completion
# checked against the request's tool_choice (the option's, or each
# record's own), one F23 warning per completion that breaks it, counted
# by --to stats (--summary, --merge, metrics) and nothing else changed.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH"
	P=fixtures/parse
	T=$BATS_TEST_TMPDIR
}

@test "--tool-choice: the fixture's call to get_weather kept or broken, by every shape of tool_choice" {
	# kept: no warning
	for tc in auto required any '"required"' '{"type":"any"}' '{"type":"auto"}' \
	    '{"type":"function","function":{"name":"get_weather"}}' '{"type":"function","name":"get_weather"}' \
	    '{"type":"tool","name":"get_weather"}' \
	    '{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[{"type":"function","function":{"name":"get_weather"}}]}}' \
	    '{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"get_weather"}]}'; do
		run harmony-parse --tool-choice="$tc" $P/call.ids
		[ "$status" -eq 0 ]
		[ "$output" = "$(harmony-parse $P/call.ids)" ] || { echo "tool_choice $tc"; false; }
	done
	# broken: one F23 warning naming the call, the messages as they were
	harmony-parse --tool-choice=none $P/call.ids >$T/out 2>$T/err
	[ "$(cat $T/err)" = "harmony-parse: $P/call.ids:1: token 27: a call to functions.get_weather under tool_choice none (F23)" ]
	cmp $T/out <(harmony-parse $P/call.ids)
	for tc in '{"type":"none"}' '{"type":"function","function":{"name":"get_time"}}' '{"type":"tool","name":"get_time"}' \
	    '{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"get_time"}]}' \
	    '{"type":"web_search_preview"}'; do
		run harmony-parse --to stats --tool-choice="$tc" $P/call.ids
		[[ "$output" == *'"warnings":1,'* ]] || { echo "tool_choice $tc: $output"; false; }
		[[ "$output" == *"a call to functions.get_weather under tool_choice"*"(F23)"* ]]
	done
}

@test "--tool-choice: a final answer and no call under required, any or a named tool" {
	for tc in required '{"type":"any"}' '{"type":"tool","name":"get_weather"}'; do
		harmony-parse --to stats --tool-choice="$tc" $P/final.ids >$T/out 2>$T/err
		grep -q '"warnings":1,' $T/out
		grep -q 'a final answer and no call under tool_choice .* (F23)$' $T/err
	done
	# auto and none: a final answer keeps to them
	for tc in auto none; do
		[ -z "$(harmony-parse --tool-choice=$tc $P/final.ids 2>&1 >/dev/null)" ]
	done
	# the stats line is the one without --tool-choice but for the warning counted
	harmony-parse --to stats $P/final.ids >$T/plain
	harmony-parse --to stats --tool-choice=required $P/final.ids 2>/dev/null >$T/checked
	[ "$(sed 's/"warnings":1,/"warnings":0,/' $T/checked)" = "$(cat $T/plain)" ]
}

@test "--tool-choice=record: each record's own tool_choice or request.tool_choice, counted in --summary, --merge and metrics" {
	call=$(jq -sc flatten $P/call.ids) final=$(jq -sc flatten $P/final.ids)
	{
		echo "{\"id\":\"a\",\"tokens\":$call,\"tool_choice\":\"none\"}"
		echo "{\"id\":\"b\",\"tokens\":$final,\"request\":{\"tool_choice\":{\"type\":\"function\",\"name\":\"get_weather\"}}}"
		echo "{\"id\":\"c\",\"tokens\":$final}"
		echo "{\"id\":\"d\",\"tokens\":$call,\"tool_choice\":\"required\"}"
	} >$T/log.ndjson
	harmony-parse --to stats --summary --tool-choice=record $T/log.ndjson >$T/sum 2>$T/err
	[ "$(cat $T/err)" = "harmony-parse: $T/log.ndjson:1: token 27: a call to functions.get_weather under tool_choice none (F23) in record \"a\"
harmony-parse: $T/log.ndjson:2: token $(jq -s length $P/final.ids): a final answer and no call under tool_choice functions.get_weather (F23) in record \"b\"" ]
	grep -q '"warnings":2,"recoveries":{"F23":2}' $T/sum
	# merged halves give the whole, exactly
	head -2 $T/log.ndjson >$T/h1; tail -2 $T/log.ndjson >$T/h2
	harmony-parse -q --to stats --summary --tool-choice=record $T/h1 >$T/s1
	harmony-parse -q --to stats --summary --tool-choice=record $T/h2 >$T/s2
	[ "$(cat $T/s1 $T/s2 | harmony-parse --merge --to stats | jq -c '{warnings, recoveries}')" = \
	    "$(jq -c '{warnings, recoveries}' $T/sum)" ]
	harmony-parse -q --to metrics --tool-choice=record $T/log.ndjson | grep -qx 'harmony_recoveries_total{failure_mode="F23"} 2'
	# without the option the records are not checked
	[ -z "$(harmony-parse --to stats $T/log.ndjson 2>&1 >/dev/null)" ]
}

@test "--tool-choice: a bad one is a usage error; it does not go with --merge" {
	run harmony-parse --tool-choice='{"type":"nonsense"}' $P/call.ids
	[ "$status" -eq 2 ]
	[[ "$output" == *"--tool-choice: tool_choice: unknown type 'nonsense'"* ]]
	run harmony-parse --tool-choice=sometimes $P/call.ids
	[ "$status" -eq 2 ]
	run harmony-parse --merge --to stats --tool-choice=none </dev/null
	[ "$status" -eq 2 ]
	# a record's unreadable tool_choice: a warning, the record not checked
	echo "{\"tokens\":$(jq -sc flatten $P/call.ids),\"tool_choice\":{\"type\":7}}" >$T/bad.ndjson
	run harmony-parse --tool-choice=record $T/bad.ndjson
	[ "$status" -eq 0 ]
	[[ "$output" == *"--tool-choice: not checked: tool_choice: must be a string or an object with a \`type\`"* ]]
	[[ "$output" != *F23* ]]
}
