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

@test "--schema with --formats, --schema-dir and --schema-strict, as harmony-tools validate has them" {
	t=$BATS_TEST_TMPDIR
	printf '<|channel|>final<|message|>{"d":"2025-02-30","n":"x"}<|return|>\n' >$t/answer.txt
	# the warnings alone (the answer is written without a newline)
	warnings() { harmony-parse --lines --from text --to answer "$@" 2>&1 >/dev/null; }
	# format: an annotation without $schema (2020-12), the answers that
	# break one counted with the option that asserts it; --formats=assert
	# makes it a problem
	printf '{"properties":{"d":{"format":"date"}}}' >$t/s.json
	run warnings --schema $t/s.json $t/answer.txt
	[ "$status" -eq 0 ]
	[ "$output" = "harmony-parse: --schema: 1 valid, 0 invalid, 0 missing structured answers
harmony-parse: --schema: 1 of the valid answers break a format, which their schema's draft only annotates (2019-09, 2020-12, the draft without \$schema); --formats=assert asserts formats" ]
	run warnings -q --schema $t/s.json $t/answer.txt
	[ -z "$output" ]
	run warnings --formats=annotate --schema $t/s.json $t/answer.txt
	[ "$output" = "harmony-parse: --schema: 1 valid, 0 invalid, 0 missing structured answers" ]
	run warnings --formats=assert --schema $t/s.json $t/answer.txt
	[ "${lines[-2]}" = "harmony-parse: $t/answer.txt:1: --schema: /d: format: \"2025-02-30\" is not a valid date" ]
	[ "${lines[-1]}" = "harmony-parse: --schema: 0 valid, 1 invalid, 0 missing structured answers" ]
	# draft-07 asserts unless --formats=annotate
	printf '{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"d":{"format":"date"}}}' >$t/s7.json
	run warnings --schema $t/s7.json $t/answer.txt
	[ "${lines[-1]}" = "harmony-parse: --schema: 0 valid, 1 invalid, 0 missing structured answers" ]
	run warnings --formats=annotate --schema $t/s7.json $t/answer.txt
	[ "${lines[-1]}" = "harmony-parse: --schema: 1 valid, 0 invalid, 0 missing structured answers" ]
	# a referenced document read from a mapped directory
	mkdir -p $t/schemas
	printf '{"type":"integer"}' >$t/schemas/int.json
	printf '{"properties":{"n":{"$ref":"https://example.com/s/int.json"}}}' >$t/ref.json
	run warnings --schema-dir=https://example.com/s/=$t/schemas \
	    --schema $t/ref.json $t/answer.txt
	[ "${lines[-2]}" = "harmony-parse: $t/answer.txt:1: --schema: /n: type: expected integer, got string" ]
	run warnings --schema $t/ref.json $t/answer.txt
	[[ ${lines[-2]} == *'/n: $ref: cannot resolve "https://example.com/s/int.json"'* ]]
	# --schema-strict: a keyword the draft does not have is the schema's error
	printf '{"type":"object","propertiez":{}}' >$t/typo.json
	run warnings --schema $t/typo.json $t/answer.txt
	[ "$status" -eq 0 ]
	run warnings --schema-strict --schema $t/typo.json $t/answer.txt
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-parse: $t/typo.json:1: unknown keyword \"propertiez\" at (root) (strict: a keyword the draft does not have is an error)" ]
	# usage: with --schema only; the words --formats takes
	for o in --formats=assert --schema-strict --schema-dir=a=b; do
		run harmony-parse $o $t/answer.txt
		[ "$status" -eq 2 ]
		[[ $output == *"${o%%=*} goes with --schema"* ]]
	done
	run harmony-parse --formats=always --schema $t/s.json $t/answer.txt
	[ "$status" -eq 2 ]
	[[ $output == *"--formats must be assert, annotate or draft, not 'always'"* ]]
	run harmony-parse --schema-dir=nodir --schema $t/s.json $t/answer.txt
	[ "$status" -eq 2 ]
	[[ $output == *"--schema-dir takes URI=DIR"* ]]
}
