#!/usr/bin/env bats
# parse_schema.bats - harmony-parse --schema: each completion's final answer
# checked against a JSON Schema, a response format or a request.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH"
	J=fixtures/jsonschema
}

@test "--schema: a warning per problem with path and keyword, not JSON and missing answers too, counts at the end" {
	harmony-parse --lines --from text --to answer --schema $J/forecast.schema.json $J/answers.txt \
	    >$BATS_TEST_TMPDIR/out 2>$BATS_TEST_TMPDIR/err
	[ "$(cat $BATS_TEST_TMPDIR/err)" = "harmony-parse: $J/answers.txt:2: --schema: no final answer to check
harmony-parse: $J/answers.txt:3: --schema: the final answer is not JSON: EOF while parsing an object at line 1 column 20
harmony-parse: $J/answers.txt:4: --schema: /days/0/hours: maximum: 30 is greater than 23
harmony-parse: $J/answers.txt:4: --schema: /wind: additionalProperties: property \"wind\" is not allowed
harmony-parse: --schema: 1 valid, 2 invalid, 1 missing structured answers" ]
	# the output is what it is without --schema
	[ "$(cat $BATS_TEST_TMPDIR/out)" = "$(harmony-parse --lines --from text --to answer $J/answers.txt 2>/dev/null)" ]
	# -q: no warnings
	[ -z "$(harmony-parse -q --lines --from text --to answer --schema $J/forecast.schema.json $J/answers.txt 2>&1 >/dev/null)" ]
}

@test "--schema takes a response format, or a request holding one" {
	jq -c '{type: "json_schema", json_schema: {name: "forecast", schema: .}}' $J/forecast.schema.json >$BATS_TEST_TMPDIR/chat_format.json
	jq -c '{model: "m", input: "x", text: {format: {type: "json_schema", name: "forecast", schema: .}}}' \
	    $J/forecast.schema.json >$BATS_TEST_TMPDIR/request.json
	for f in $BATS_TEST_TMPDIR/chat_format.json $BATS_TEST_TMPDIR/request.json fixtures/render/responses_text_format.json; do
		run harmony-parse --lines --from text --to answer --schema $f $J/answers.txt
		[ "$status" -eq 0 ]
		[ "${lines[-1]}" = "harmony-parse: --schema: 1 valid, 2 invalid, 1 missing structured answers" ]
	done
	# a request whose format has no schema, a bad schema: errors of the schema file
	echo '{"response_format":{"type":"json_schema","json_schema":{"name":"x"}}}' >$BATS_TEST_TMPDIR/bad.json
	run harmony-parse --schema $BATS_TEST_TMPDIR/bad.json $J/answers.txt
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-parse: $BATS_TEST_TMPDIR/bad.json:1: the response format holds no \`schema\`" ]
	run harmony-parse --merge --to stats --schema $J/forecast.schema.json </dev/null
	[ "$status" -eq 2 ]
}

@test "--schema with --to stats: structured_answers in the summary, merged, and in the metrics" {
	harmony-parse -q --lines --from text --to stats --summary --schema $J/forecast.schema.json $J/answers.txt |
	    tail -n 1 >$BATS_TEST_TMPDIR/sum
	[ "$(jq -c .structured_answers $BATS_TEST_TMPDIR/sum)" = '{"valid":1,"invalid":2,"missing":1}' ]
	# two parts of a log merge into the counts of the whole
	cat $BATS_TEST_TMPDIR/sum $BATS_TEST_TMPDIR/sum | harmony-parse --merge --to stats >$BATS_TEST_TMPDIR/merged
	[ "$(jq -c .structured_answers $BATS_TEST_TMPDIR/merged)" = '{"valid":2,"invalid":4,"missing":2}' ]
	run harmony-parse -q --lines --from text --to metrics --schema $J/forecast.schema.json $J/answers.txt
	[ "$status" -eq 0 ]
	[[ $output == *'harmony_structured_answers_total{verdict="valid"} 1
harmony_structured_answers_total{verdict="invalid"} 2
harmony_structured_answers_total{verdict="missing"} 1'* ]]
	promtool check metrics <<<"$output"
	# without --schema the summary is as before: no such member
	harmony-parse -q --lines --from text --to stats --summary $J/answers.txt | tail -n 1 >$BATS_TEST_TMPDIR/plain
	[ "$(jq -c 'has("structured_answers")' $BATS_TEST_TMPDIR/plain)" = false ]
	echo '{"records":1,"structured_answers":{"valid":-1}}' | { ! harmony-parse --merge --to stats 2>/dev/null; }
}
