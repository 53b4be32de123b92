#!/usr/bin/env bats
# parse_metrics.bats - harmony-parse --to metrics: the stats summary in
# Prometheus' text exposition format, checked by promtool (Debian's
# prometheus package; those tests skip without it), its figures against
# the summary's, --merge, and label escaping.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C
	F=fixtures/parse
	LOG=fixtures/parse/records/log.ndjson
	T=$BATS_TEST_TMPDIR
}

# The value of the sample NAME (with its labels, as written) in file $1.
value() {
	awk -v k="$2" '$1 == k { print $2; found = 1 } END { exit !found }' "$1"
}

@test "metrics: promtool check metrics accepts every output" {
	command -v promtool >/dev/null || skip "promtool is not installed (Debian package prometheus)"
	harmony-parse -q --to metrics "$LOG" >"$T/log.prom" 2>/dev/null || true
	harmony-parse -q --to metrics "$F/call.ids" >"$T/call.prom"
	harmony-parse -q --from text --to metrics "$F/f08-plain-text.in" >"$T/text.prom"
	harmony-parse -q --to metrics </dev/null >"$T/empty.prom"
	for f in log call text empty; do
		[ -s "$T/$f.prom" ]
		run promtool check metrics <"$T/$f.prom"
		echo "$f: $output"
		[ "$status" -eq 0 ]
		[ -z "$output" ]
	done
}

@test "metrics: the summary's figures, each family with HELP and TYPE, names as Prometheus asks" {
	# (error lines of bad records come first, the summary last)
	harmony-parse -q --to stats --summary "$LOG" 2>/dev/null | tail -n 1 >"$T/summary"
	st=0
	harmony-parse -q --to metrics "$LOG" >"$T/m" 2>"$T/err" || st=$?
	[ "$st" -eq 1 ]                 # the log holds bad records: reported on stderr ...
	! grep -q '"error"' "$T/m"      # ... and not in the exposition
	s=$T/summary
	[ "$(value "$T/m" harmony_records_total)" = "$(jq .records "$s")" ]
	# the bad records counted beside them (issue 35): as many as error lines
	[ "$(value "$T/m" harmony_errors_total)" = "$(jq .errors "$s")" ]
	[ "$(jq .errors "$s")" -gt 0 ]
	[ "$(value "$T/m" harmony_tokens_total)" = "$(jq .tokens "$s")" ]
	[ "$(value "$T/m" harmony_warnings_total)" = "$(jq .warnings "$s")" ]
	[ "$(value "$T/m" harmony_truncated_records_total)" = "$(jq .truncated "$s")" ]
	[ "$(value "$T/m" harmony_reasoning_tokens_total)" = "$(jq .reasoning_tokens "$s")" ]
	for ch in $(jq -r '.channels | keys[]' "$s"); do
		[ "$(value "$T/m" "harmony_messages_total{channel=\"$ch\"}")" = "$(jq --arg c "$ch" '.channels[$c]' "$s")" ]
		[ "$(value "$T/m" "harmony_message_tokens_total{channel=\"$ch\"}")" = "$(jq --arg c "$ch" '.channel_tokens[$c]' "$s")" ]
	done
	for tool in $(jq -r '.tool_calls | keys[]' "$s"); do
		[ "$(value "$T/m" "harmony_tool_calls_total{tool=\"$tool\"}")" = "$(jq --arg c "$tool" '.tool_calls[$c]' "$s")" ]
	done
	[ "$(jq '.recoveries | length' "$s")" -gt 0 ]
	for code in $(jq -r '.recoveries | keys[]' "$s"); do
		[ "$(value "$T/m" "harmony_recoveries_total{failure_mode=\"$code\"}")" = "$(jq --arg c "$code" '.recoveries[$c]' "$s")" ]
	done
	ratio=$(value "$T/m" harmony_reasoning_ratio)
	awk -v r="$ratio" -v a="$(jq .reasoning_tokens "$s")" -v t="$(jq .tokens "$s")" \
	    'BEGIN { d = r - a / t; exit !(d < 1e-5 && d > -1e-5) }'
	# every family: HELP then TYPE; counters end in _total, others do not
	awk '/^# HELP / { help = $3; next }
	    /^# TYPE / { if ($3 != help) exit 1; if (($4 == "counter") != ($3 ~ /_total$/)) exit 1; next }
	    /^#/ { exit 1 }' "$T/m"
	! grep -v '^#' "$T/m" | grep -qv '^harmony_[a-z_]*\({[a-z_]*="[^"]*"}\)\? [0-9.e+-]*$'
}

@test "metrics: the histogram of tokens per record, exact at every bound" {
	harmony-parse -q --to stats "$LOG" 2>/dev/null | jq -r 'select(.tokens != null) | .tokens' >"$T/tokens" || true
	harmony-parse -q --to metrics "$LOG" >"$T/m" 2>/dev/null || true
	n=$(wc -l <"$T/tokens")
	[ "$n" -gt 100 ]
	[ "$(value "$T/m" harmony_record_tokens_count)" = "$n" ]
	[ "$(value "$T/m" 'harmony_record_tokens_bucket{le="+Inf"}')" = "$n" ]
	[ "$(value "$T/m" harmony_record_tokens_sum)" = "$(awk '{ s += $1 } END { print s }' "$T/tokens")" ]
	prev=0
	for le in 15 31 63 127 255 511 1023 2047 4095 8191 16383 32767 65535 131071 262143; do
		got=$(value "$T/m" "harmony_record_tokens_bucket{le=\"$le\"}")
		[ "$got" = "$(awk -v le="$le" '$1 <= le { c++ } END { print c + 0 }' "$T/tokens")" ] || { echo "le=$le: $got"; return 1; }
		[ "$got" -ge "$prev" ]
		prev=$got
	done
}

@test "metrics: --merge of the summaries of parts gives the metrics of the whole" {
	# a log of one record a line, cut at line boundaries
	python3 bench/gen_log.py --records 200 --seed 5 --short >"$T/log"
	harmony-parse -q --to metrics "$T/log" >"$T/whole"
	split -l 60 "$T/log" "$T/part."
	for p in "$T"/part.*; do
		harmony-parse -q --to stats --summary "$p"
	done >"$T/summaries"
	[ "$(wc -l <"$T/summaries")" -eq 4 ]
	grep -qx 'harmony_records_total 200' "$T/whole"
	harmony-parse --merge --to metrics "$T/summaries" >"$T/merged"
	diff -u "$T/whole" "$T/merged"
	# and a summary turned into metrics alone is the same too
	harmony-parse -q --to stats --summary "$T/log" | harmony-parse --merge --to metrics |
	    cmp "$T/whole" -
}

@test "metrics: label values escaped as the format asks" {
	line='{"records":1,"tokens":5,"messages":1,"channels":{"a\"b\\c\nd":1},"tool_calls":{"functions.\"x\"":2},"recoveries":{},"truncated":0,"reasoning_tokens":0,"tokens_min":5,"tokens_max":5,"tokens_hist":{"5":1}}'
	run harmony-parse --merge --to metrics <<<"$line"
	[ "$status" -eq 0 ]
	grep -qxF 'harmony_messages_total{channel="a\"b\\c\nd"} 1' <<<"$output"
	grep -qxF 'harmony_tool_calls_total{tool="functions.\"x\""} 2' <<<"$output"
	! command -v promtool >/dev/null || promtool check metrics <<<"$output"
}

@test "metrics: text input has no token counts, so no token families" {
	run harmony-parse -q --from text --to metrics "$F/f08-plain-text.in"
	[ "$status" -eq 0 ]
	grep -qx 'harmony_records_total 1' <<<"$output"
	grep -qx 'harmony_messages_total{channel="none"} 1' <<<"$output"
	! grep -q 'tokens' <<<"$output"
	! grep -q 'ratio' <<<"$output"
}

@test "metrics: --summary is allowed, --pretty is not" {
	[ "$(harmony-parse --summary --to metrics "$F/call.ids")" = "$(harmony-parse --to metrics "$F/call.ids")" ]
	run harmony-parse --pretty --to metrics "$F/call.ids"
	[ "$status" -eq 2 ]
	run harmony-parse --merge --to chat "$F/call.ids"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--merge goes with --to=stats or --to=metrics"* ]]
}
