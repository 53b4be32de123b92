#!/usr/bin/env bats
# faults_parse.bats - fault injection into harmony-parse (faults.bats
# says how): ids and text, every output shape, recovered malformed
# output, --strict, log records, summaries (server responses and streams:
# faults_servers.bats).

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
