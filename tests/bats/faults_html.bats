#!/usr/bin/env bats
# faults_html.bats - the HTML pages under failing allocations (see
# faults.bats): every allocation of inspect, render and parse --to html
# failed in turn, and from the K-th on; each run gives the whole page or
# "out of memory" and exit 3.

load faults_helpers

@test "faults: --to html of harmony-tokens inspect, harmony-render, harmony-parse" {
	sweep harmony-tokens inspect --to html fixtures/demo/prompt.txt
	sweep harmony-render --to html fixtures/demo/chat.json
	sweep harmony-render --to html --lines fixtures/render/two_chat_requests.json
	sweep harmony-parse --to html fixtures/demo/completion.ids
	sweep harmony-parse --to html fixtures/parse/records/log.ndjson
	sweep harmony-parse --to html fixtures/parse/cut-call.txt
	sweep --after harmony-parse --to html fixtures/parse/records/log.ndjson
}
