#!/usr/bin/env bats
# faults_merge.bats - fault injection into harmony-parse --merge
# (faults.bats says how): a bad line between good ones, coverage checked
# and found short, older summaries without their coverage.

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
