#!/usr/bin/env bats
# faults_merge.bats - fault injection into harmony-parse --merge
# (faults.bats says how): a bad line between good ones, coverage checked
# and found short, older summaries without their coverage; and a
# record's own fields (model, usage ...) in the API shapes.

load faults_helpers

@test "faults: harmony-parse --merge, a bad line, --expect-lines short" {
	local d=$BATS_TEST_TMPDIR
	harmony-parse --to stats --summary fixtures/diff/log-a.ndjson >"$d/in" || true
	echo '{"records":1,"tokens":"x"}' >>"$d/in"
	harmony-parse --to stats --summary fixtures/diff/log-b.ndjson >>"$d/in" || true
	jq -c 'del(.input_lines, .input_bytes)' <"$d/in" 2>/dev/null | head -n 1 >"$d/old" || true
	sweep harmony-parse --merge --to stats --expect-lines=1000 --expect-bytes=3 "$d/in"
	sweep harmony-parse --merge --to metrics --expect-lines=1000 "$d/in"
	sweep harmony-parse --merge --to stats --expect-lines=1 "$d/old" "$d/in"
}

@test "faults: harmony-parse, a record's own fields in every API shape" {
	local d=$BATS_TEST_TMPDIR
	printf '%s\n' \
	    '{"id":"r1","model":"m1","created":5,"system_fingerprint":"fp","service_tier":"flex","usage":{"prompt_tokens":9,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":3}},"output_ids":[200005,35644,200008,17958,13,200007,200006,173781,200005,17196,200008,19,200002]}' \
	    '{"id":"r2","model":"m2","usage":{"input_tokens":4,"cache_read_input_tokens":1,"service_tier":"priority"},"text":"<|channel|>final<|message|>4<|return|>"}' >"$d/rec"
	for to in chat-completion chat-stream responses responses-stream anthropic anthropic-stream; do
		sweep harmony-parse --to "$to" "$d/rec"
	done
}
