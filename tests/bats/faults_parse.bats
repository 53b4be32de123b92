#!/usr/bin/env bats
# faults_parse.bats - fault injection into harmony-parse (faults.bats
# says how): ids and text, every output shape, recovered malformed
# output, --strict, log records, summaries, merges, a record's own fields
# (server responses and streams: faults_servers.bats).

load faults_helpers

@test "faults: harmony-parse ids, every output shape" {
	for to in messages events chat chat-stream responses responses-stream text stats \
	    chat-completion anthropic anthropic-stream answer metrics; do
		sweep harmony-parse --to "$to" fixtures/demo/completion.ids
	done
	sweep harmony-parse --strict fixtures/demo/completion.ids
	sweep harmony-parse --pretty --to responses fixtures/demo/completion.ids
}

@test "faults: harmony-parse text, recovered malformed output" {
	sweep harmony-parse --from text --to chat fixtures/parse/cut-call.txt
	sweep harmony-parse --to anthropic fixtures/parse/f19-real-outputs.in
	sweep harmony-parse --to responses-stream fixtures/parse/f19-real-outputs.in
	for f in f01-recipient-after-channel f06-junk-header f07-no-message f09-after-stop \
	    f10b-truncated-header f12-invalid-utf8 f13-stripped f15-recipient-twice \
	    f17-special-in-header f17d-special-in-content-ids f18-prose-reasoning \
	    f20b-role-doubled-ids; do
		sweep harmony-parse --to chat "fixtures/parse/$f.in"
	done
	sweep harmony-parse --strict --from text fixtures/parse/f06-junk-header.in
	# a header's words counted in text an append lost; an F13 split from a
	# header copy that failed; strict mode's message joined after a failure
	sweep harmony-parse --to events --from text fixtures/parse/f09-after-stop.in
	sweep harmony-parse --to events fixtures/parse/f22c-stripped-constrain-tool.in
	sweep harmony-parse --to chat --strict fixtures/parse/f15-recipient-twice.in
	# arguments that are JSON but not compact: hm_json_compact's own failure is reported
	printf '%s' '<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json' \
	    '<|message|>{ "a" : 1 }<|call|>' > "$BATS_TEST_TMPDIR/call.txt"
	sweep harmony-parse --from text --to anthropic "$BATS_TEST_TMPDIR/call.txt"
}

@test "faults: harmony-parse log records, summaries" {
	# the log's first records: ids and text, a bad one, carried fields
	local log=$BATS_TEST_TMPDIR/log.ndjson
	head -n 12 fixtures/parse/records/log.ndjson > "$log"
	sweep harmony-parse --to chat-completion "$log"
	sweep harmony-parse --to anthropic "$log"
	sweep harmony-parse --to responses-stream "$log"
	sweep harmony-parse --to stats --summary "$log"
	sweep harmony-parse --to metrics "$log"
	sweep harmony-parse --to chat-completion fixtures/parse/collide.ndjson
	harmony-parse --to stats --summary fixtures/diff/log-a.ndjson > "$BATS_TEST_TMPDIR/a"
	harmony-parse --to stats --summary fixtures/diff/log-b.ndjson > "$BATS_TEST_TMPDIR/b"
	sweep harmony-parse --merge --to metrics "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
}

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
