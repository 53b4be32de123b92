#!/usr/bin/env bats
# faults_schema.bats - fault injection (as faults.bats) over structured
# output: the JSON Schema validator (harmony-tools validate, calls --check,
# harmony-parse --schema) and the # Response Formats section.  Each run
# gives the undisturbed output or "out of memory" and exit status 3.

load faults_helpers

@test "faults: harmony-tools validate and calls --check" {
	sweep harmony-tools validate --schema fixtures/jsonschema/forecast.schema.json fixtures/jsonschema/forecast.ndjson
	jq -c '{name: "forecast", parameters: .}' fixtures/jsonschema/forecast.schema.json >$BATS_TEST_TMPDIR/tools.json
	sed -n 3,4p fixtures/jsonschema/forecast.ndjson |
	    jq -c '{role: "assistant", recipient: "functions.forecast", content: (. | tojson)}' >$BATS_TEST_TMPDIR/calls.ndjson
	sweep harmony-tools calls --check $BATS_TEST_TMPDIR/tools.json $BATS_TEST_TMPDIR/calls.ndjson
}

@test "faults: harmony-render with a response format, harmony-parse --schema" {
	sweep harmony-render --to text fixtures/render/chat_response_format.json
	sweep harmony-render -q fixtures/render/responses_text_format.json
	sweep harmony-parse --lines --from text --to stats --summary --schema fixtures/jsonschema/forecast.schema.json fixtures/jsonschema/answers.txt
}
