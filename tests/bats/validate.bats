#!/usr/bin/env bats
# validate.bats - harmony-tools validate (JSON values against a JSON Schema)
# and calls --check, which uses the same validator.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH"
	J=fixtures/jsonschema
}

@test "validate: an OpenAI strict-mode schema (\$defs, anyOf with null), a verdict a value" {
	harmony-tools validate --schema $J/forecast.schema.json $J/forecast.ndjson \
	    >$BATS_TEST_TMPDIR/out 2>$BATS_TEST_TMPDIR/err && st=0 || st=$?
	[ "$st" -eq 1 ]
	[ "$(sed -n 1p $BATS_TEST_TMPDIR/out)" = '{"valid":true}' ]
	[ "$(sed -n 2p $BATS_TEST_TMPDIR/out)" = '{"valid":true}' ]
	[ "$(sed -n 3p $BATS_TEST_TMPDIR/out)" = '{"valid":false,"errors":[{"path":"/unit","keyword":"anyOf","message":"\"kelvin\" matches none of the 2 schemas"},{"path":"/days/0/date","keyword":"format","message":"\"2025-02-30\" is not a valid date"},{"path":"/days/0/hours","keyword":"maximum","message":"24 is greater than 23"},{"path":"/days/1/wind","keyword":"additionalProperties","message":"property \"wind\" is not allowed"}]}' ]
	[ "$(sed -n 4p $BATS_TEST_TMPDIR/out)" = '{"valid":false,"errors":[{"path":"","keyword":"required","message":"missing property \"location\""},{"path":"/country","keyword":"additionalProperties","message":"property \"country\" is not allowed"}]}' ]
	[ "$(sed -n 5p $BATS_TEST_TMPDIR/out)" = '{"valid":false,"error":"not JSON: EOF while parsing an object at line 1 column 20"}' ]
	[ "$(wc -l <$BATS_TEST_TMPDIR/out)" -eq 5 ]
	[ "$(cat $BATS_TEST_TMPDIR/err)" = "harmony-tools: $J/forecast.ndjson:3: /unit: anyOf: \"kelvin\" matches none of the 2 schemas (and 3 more problems)
harmony-tools: $J/forecast.ndjson:4: (root): required: missing property \"location\" (and 1 more problem)
harmony-tools: $J/forecast.ndjson:6: not JSON: EOF while parsing an object at line 1 column 20" ]
}

@test "validate: --schema takes a response format or a request holding one, as harmony-parse --schema does" {
	T=$BATS_TEST_TMPDIR
	harmony-tools validate --schema $J/forecast.schema.json $J/forecast.ndjson >$T/want 2>&1 || true
	# Chat's response_format, the format alone, Responses' text.format: the same verdicts,
	# the schema's own $ref resolved inside the schema
	jq -c '{model: "m", messages: [], response_format: {type: "json_schema", json_schema: {name: "f", strict: true, schema: .}}}' \
	    $J/forecast.schema.json >$T/chat.json
	jq -c .response_format $T/chat.json >$T/format.json
	jq -c '{model: "m", input: "x", text: {format: {type: "json_schema", name: "f", schema: .}}}' \
	    $J/forecast.schema.json >$T/responses.json
	grep -q '"\$ref"' $T/chat.json
	for f in chat format responses; do
		harmony-tools validate --schema $T/$f.json $J/forecast.ndjson >$T/got 2>&1 && st=0 || st=$?
		[ "$st" -eq 1 ]
		diff $T/want $T/got
	done
	# a format without a schema is an error of the schema file
	run harmony-tools validate --schema <(echo '{"type":"json_schema","json_schema":{"name":"x"}}') </dev/null
	[ "$status" -eq 1 ]
	[[ $output == *'holds no `schema`'* ]]
}

@test "validate: all valid is exit 0; python3-jsonschema agrees on every verdict" {
	run harmony-tools validate --schema $J/forecast.schema.json < <(head -n 2 $J/forecast.ndjson)
	[ "$status" -eq 0 ]
	[ "$output" = '{"valid":true}
{"valid":true}' ]
	# The same verdicts as Debian's python3-jsonschema (formats asserted).
	want=$(/usr/bin/python3 -c '
import json, sys, warnings
warnings.simplefilter("ignore")
import jsonschema
s = json.load(open(sys.argv[1]))
v = jsonschema.Draft202012Validator(s, format_checker=jsonschema.FormatChecker())
for line in open(sys.argv[2]):
    if line.strip():
        try:
            print(v.is_valid(json.loads(line)))
        except ValueError:
            print(False)
' $J/forecast.schema.json $J/forecast.ndjson)
	got=$(harmony-tools validate --schema $J/forecast.schema.json $J/forecast.ndjson 2>/dev/null |
	    jq -r 'if .valid then "True" else "False" end')
	[ "$got" = "$want" ]
}

@test "validate: a schema that cannot be used is an error of the schema file" {
	printf '{"pattern":"(?<=a)b"}' >$BATS_TEST_TMPDIR/s.json
	run harmony-tools validate --schema $BATS_TEST_TMPDIR/s.json <<<'"b"'
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-tools: $BATS_TEST_TMPDIR/s.json:1: pattern \"(?<=a)b\": lookahead and lookbehind are not supported at character 2" ]
	printf '{"$ref":"#/$defs/none"}' >$BATS_TEST_TMPDIR/s.json
	run harmony-tools validate --schema $BATS_TEST_TMPDIR/s.json <<<'1'
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-tools: $BATS_TEST_TMPDIR/s.json:1: \$ref \"#/\$defs/none\" points to nothing in the schema" ]
	printf '{"type":\n' >$BATS_TEST_TMPDIR/s.json
	run harmony-tools validate --schema $BATS_TEST_TMPDIR/s.json <<<'1'
	[ "$status" -eq 1 ]
	[[ $output == "harmony-tools: $BATS_TEST_TMPDIR/s.json:2: the schema is not JSON: "* ]]
	run harmony-tools validate --schema $BATS_TEST_TMPDIR/nope.json <<<'1'
	[ "$status" -eq 3 ]
}

@test "validate: hostile schemas end in a problem, quickly" {
	run timeout 20 harmony-tools validate --schema <(echo '{"$ref":"#"}') <<<'1'
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == '{"valid":false,"errors":[{"path":"","keyword":"depth",'* ]]
	python3 -c 'print("\"" + "a" * 200000 + "b\"")' >$BATS_TEST_TMPDIR/long
	run timeout 20 harmony-tools validate --schema <(echo '{"pattern":"^(a+)+$"}') $BATS_TEST_TMPDIR/long
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == '{"valid":false,"errors":[{"path":"","keyword":"pattern",'* ]]
}

@test "validate: usage" {
	run harmony-tools validate <<<'1'
	[ "$status" -eq 2 ]
	[[ $output == *"validate needs --schema"* ]]
	run harmony-tools calls --schema x <<<'1'
	[ "$status" -eq 2 ]
	[[ $output == *"--schema goes with validate"* ]]
}

@test "calls --check: the whole schema is checked (enum, anyOf, additionalProperties, \$ref)" {
	jq -c '{name: "forecast", parameters: .}' $J/forecast.schema.json >$BATS_TEST_TMPDIR/tools.json
	out=$(jq -c '{role: "assistant", recipient: "functions.forecast", content: (. | tojson)}' \
	    < <(sed -n 1,4p $J/forecast.ndjson) |
	    harmony-tools calls --check $BATS_TEST_TMPDIR/tools.json 2>$BATS_TEST_TMPDIR/err) && st=0 || st=$?
	[ "$st" -eq 1 ]
	[ "$(jq -r '.error // "ok"' <<<"$out")" = 'ok
ok
/unit: anyOf: "kelvin" matches none of the 2 schemas; /days/0/date: format: "2025-02-30" is not a valid date; /days/0/hours: maximum: 24 is greater than 23; /days/1/wind: additionalProperties: property "wind" is not allowed
(root): required: missing property "location"; /country: additionalProperties: property "country" is not allowed' ]
	[ "$(cat $BATS_TEST_TMPDIR/err)" = 'harmony-tools: -:3: call_2 functions.forecast: /unit: anyOf: "kelvin" matches none of the 2 schemas; /days/0/date: format: "2025-02-30" is not a valid date; /days/0/hours: maximum: 24 is greater than 23; /days/1/wind: additionalProperties: property "wind" is not allowed
harmony-tools: -:4: call_3 functions.forecast: (root): required: missing property "location"; /country: additionalProperties: property "country" is not allowed' ]
}
