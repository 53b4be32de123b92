#!/usr/bin/env bats
# parse_logs.bats - harmony-parse over serving logs: the one-pass record
# reader gives what the general reader gives, text records, warning
# summaries, mergeable stats, and GNU parallel.
#
# fixtures/parse/records/log.ndjson is `bench/gen_log.py --records 240
# --seed 11 --variety --short`; its log.* outputs were written by
# harmony-parse before the one-pass reader existed, and are the oracle
# (its carried numbers since kept as written: 1e3 was 1000, 1.0 was 1).

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C
	F=fixtures/parse/records
	T=$BATS_TEST_TMPDIR
}

@test "records: every shape as the general reader wrote it, errors included" {
	for to in messages stats chat chat-completion; do
		run harmony-parse --to "$to" "$F/log.ndjson"
		[ "$status" -eq 1 ]
		harmony-parse --warnings=all --to "$to" "$F/log.ndjson" >"$T/out" 2>"$T/err" || true
		cmp "$F/log.$to" "$T/out"
		cmp "$F/log.err" "$T/err"
	done
	harmony-parse --warnings=all --strict --to chat "$F/log.ndjson" >"$T/out" 2>"$T/err" || true
	cmp "$F/log.strict.chat" "$T/out"
	cmp "$F/log.strict.chat.err" "$T/err"
}

@test "records: the fixture holds the forms the one-pass reader hands on" {
	# Python separators, floats, escapes, several id arrays, bad records:
	# without them the comparison above would prove little.
	grep -q '", "' "$F/log.ndjson"
	grep -q '"temperature":0\.' "$F/log.ndjson"
	grep -q '\\u00e9' "$F/log.ndjson"
	grep -q '"input_ids":\[' "$F/log.ndjson"
	grep -q '"tokens":\[' "$F/log.ndjson"
	grep -q '\\/' "$F/log.ndjson"
	grep -q '"error"' "$F/log.messages"
	[ "$(grep -c '^{"id":"chatcmpl' "$F/log.messages")" -gt 150 ]
}

@test "records: output does not depend on where reads cut a record" {
	harmony-parse -q --to stats "$F/log.ndjson" | sed 's/"line":[0-9]*//' >"$T/ref" || true
	for pad in 1 7 13; do
		{ head -c $((262144 - 100 * pad)) /dev/zero | tr '\0' '\n'; cat "$F/log.ndjson"; } |
		    harmony-parse -q --to stats | sed 's/"line":[0-9]*//' >"$T/out" || true
		cmp "$T/ref" "$T/out"
	done
}

@test "records: JSON arrays one a line read as the general reader reads them" {
	python3 bench/gen_log.py --records 50 --seed 3 --short --shape array >"$T/a"
	python3 bench/gen_log.py --records 50 --seed 3 --short --shape flat >"$T/f"
	harmony-parse -q --to messages "$T/a" >"$T/a.out"
	harmony-parse -q --lines --to messages "$T/f" >"$T/f.out"
	[ "$(wc -l <"$T/a.out")" -eq 50 ]
	cmp "$T/a.out" "$T/f.out"
	# blanks after commas, and a bad id: the error as before
	printf '[200006, 173781,200008 ,12194]\n[1,x]\n' >"$T/b"
	run harmony-parse -q --to messages "$T/b"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "$(printf '[200006,173781,\n200008,12194]\n' | harmony-parse -q --to messages)" ]
	[[ "${lines[2]}" == *"not a token id: 'x'"* ]]
}

@test "text records: the completion string parsed as Harmony text, fields carried" {
	printf '%s\n' \
	    '{"id":"a","text":"<|channel|>final<|message|>hi<|return|>"}' \
	    '{"id":"b","model":"m", "completion": "<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final<|message|>x\u00e9\n<|return|>"}' \
	    '{"id":"c","content":"analysis\u003cmessage|>no specials"}' \
	    '{"id":"d","nothing":1}' \
	    '{"id":"e","output_ids":[200005,17196,200008,12194,200002],"text":"carried"}' >"$T/in"
	run bash -c 'harmony-parse -q "$1" 2>/dev/null' _ "$T/in"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = '{"id":"a","messages":[{"role":"assistant","content":"hi","channel":"final"}]}' ]
	[ "${lines[1]}" = '{"id":"b","model":"m","messages":[{"role":"assistant","content":"think","channel":"analysis"},{"role":"assistant","content":"xé\n","channel":"final"}]}' ]
	[[ "${lines[3]}" == '{"id":"d","error":'*'"line":4}' ]]
	[ "${lines[4]}" = '{"id":"e","text":"carried","messages":[{"role":"assistant","content":"Hi","channel":"final"}]}' ]
	# the same records as text lines: the JSON ones are records, others text
	run harmony-parse -q --from text --lines --to chat "$T/in"
	[ "${#lines[@]}" -eq 5 ]
	[ "$(jq -r .message.content <<<"${lines[0]}")" = hi ]
	[ "$(jq -r .message.content <<<"${lines[3]}")" = '{"id":"d","nothing":1}' ]
	# --field names another member; records then even without ids first
	printf '{"id":"f","reply":"<|channel|>final<|message|>ok<|return|>","text":"kept"}\n' >"$T/f"
	run harmony-parse -q --field reply --to chat-completion "$T/f"
	[ "$status" -eq 0 ]
	[ "$output" = '{"id":"f","text":"kept","object":"chat.completion","created":0,"model":"gpt-oss","choices":[{"index":0,"message":{"role":"assistant","content":"ok","refusal":null,"reasoning_content":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":0,"completion_tokens":5,"total_tokens":5}}' ]
}

@test "text records: stripped specials (F13) recovered as in text input" {
	printf '{"id":"s","text":"analysisThinking.assistantfinalAnswer."}\n' >"$T/in"
	run harmony-parse --warnings=all --to chat "$T/in"
	printf 'analysisThinking.assistantfinalAnswer.' | harmony-parse --to chat >"$T/plain" 2>/dev/null
	[ "$(jq -c .message <<<"${lines[-1]}")" = "$(jq -c .message "$T/plain")" ]
	[[ "$output" == *"(F13)"* ]]
}

@test "text records: the slow reader (escapes cJSON rewrites) gives the same" {
	printf '{"id":"a","x":"\\/","text":"<|channel|>final<|message|>hi<|return|>"}\n' >"$T/in"
	run harmony-parse -q "$T/in"
	[ "$output" = '{"id":"a","x":"/","messages":[{"role":"assistant","content":"hi","channel":"final"}]}' ]
}

@test "warnings: the first 10 with record ids, then one line per failure mode" {
	python3 bench/gen_log.py --records 2000 --seed 5 --short >"$T/log"
	harmony-parse --to stats "$T/log" 2>"$T/err" >/dev/null
	n=$(harmony-parse --warnings=all --to stats "$T/log" 2>&1 >/dev/null | wc -l)
	[ "$n" -gt 20 ]
	[ "$(grep -c ' in record "chatcmpl-' "$T/err")" -eq 10 ]
	grep -q "^harmony-parse: $((n - 10)) more warnings not shown" "$T/err"
	grep -q "^harmony-parse: F10: $n warnings (the first: stream ended inside a" "$T/err"
	[ "$(wc -l <"$T/err")" -eq 12 ]
	# none, -q, and a single stream keeps every warning by default
	[ -z "$(harmony-parse --warnings=none --to stats "$T/log" 2>&1 >/dev/null)" ]
	[ -z "$(harmony-parse -q --to stats "$T/log" 2>&1 >/dev/null)" ]
	run harmony-parse --warnings=bogus "$T/log"
	[ "$status" -eq 2 ]
}

@test "stats: summaries of parts merge into the summary of the whole" {
	python3 bench/gen_log.py --records 600 --seed 9 --short >"$T/log"
	harmony-parse -q --to stats --summary "$T/log" >"$T/whole"
	split -l 137 "$T/log" "$T/part."
	for p in "$T"/part.*; do harmony-parse -q --to stats --summary "$p"; done >"$T/sums"
	[ "$(wc -l <"$T/sums")" -eq 5 ]
	harmony-parse --to stats --merge "$T/sums" >"$T/merged"
	cmp "$T/whole" "$T/merged"
	# a merge of merges is the same
	{ head -2 "$T/sums" | harmony-parse --to stats --merge; tail -3 "$T/sums"; } |
	    harmony-parse --to stats --merge | cmp "$T/whole" -
	# the figures a person asks about are there
	jq -e '.records == 600 and .truncated > 0 and .recoveries.F10 == .truncated and
	    (.channel_tokens | add) <= .tokens and .tokens_p50 <= .tokens_p90 and
	    .tokens_p99 <= .tokens_max and ([.tokens_hist[]] | add) == .records and
	    (.tool_calls | length) == 4' "$T/whole"
	run harmony-parse --to stats --merge <<<'{"records":"x"}'
	[ "$status" -eq 1 ]
	run harmony-parse --merge "$T/sums"
	[ "$status" -eq 2 ]
}

@test "stats: percentiles from the histogram, within a bucket of the true value" {
	python3 bench/gen_log.py --records 400 --seed 4 >"$T/log"
	harmony-parse -q --to stats "$T/log" | jq -s '[.[].tokens] | sort' >"$T/sorted"
	harmony-parse -q --to stats --summary "$T/log" >"$T/s"
	for p in 50 90 99; do
		true_v=$(jq --argjson p $p '.[((length * $p + 99) / 100 | floor) - 1]' "$T/sorted")
		got=$(jq ".tokens_p$p" "$T/s")
		# got is the lower bound of the bucket holding the true value
		[ "$got" -le "$true_v" ]
		[ $((got + got / 32)) -ge "$true_v" ]
	done
}

@test "GNU parallel: chunks parsed apart give the serial output, and merge" {
	command -v parallel >/dev/null || skip "GNU parallel is not installed (tools/install-deps installs it)"
	python3 bench/gen_log.py --records 1500 --seed 2 --short >"$T/log"
	[ "$(wc -c <"$T/log")" -gt 400000 ]
	for to in messages responses; do
		harmony-parse -q --to "$to" "$T/log" >"$T/serial"
		parallel --pipe --keep-order --block 40k harmony-parse -q --to "$to" <"$T/log" >"$T/par"
		[ "$(wc -l <"$T/par")" -eq 1500 ]
		cmp "$T/serial" "$T/par"
	done
	harmony-parse -q --to stats --summary "$T/log" >"$T/serial"
	parallel --pipe --keep-order --block 40k harmony-parse -q --to stats --summary <"$T/log" >"$T/sums"
	[ "$(wc -l <"$T/sums")" -gt 10 ]
	harmony-parse --to stats --merge "$T/sums" >"$T/par"
	cmp "$T/serial" "$T/par"
	# --pipepart without --keep-order: the parts' summaries in any order
	parallel --pipepart -a "$T/log" --block 40k -j 2 harmony-parse -q --to stats --summary |
	    harmony-parse --to stats --merge | cmp "$T/serial" -
	tac "$T/sums" | harmony-parse --to stats --merge | cmp "$T/serial" -
}

@test "records: an id record counts its tokens whichever reader takes it, after a text record too" {
	ids=$(printf '<|channel|>analysis<|message|>hmm<|end|>' | harmony-tokens encode | tr ' ' ',')
	text='{"text":"<|channel|>final<|message|>hi<|end|>"}'
	# \u0031 sends the record to the general reader, 1 not
	printf '%s\n{"id":"\\u0031000","tokens":[%s]}\n[%s]\n%s\n' "$text" "$ids" "$ids" "$ids" >"$T/slow"
	printf '%s\n{"id":"1000","tokens":[%s]}\n[%s]\n%s\n' "$text" "$ids" "$ids" "$ids" >"$T/fast"
	harmony-parse --lines --to stats "$T/slow" >"$T/slow.out"
	harmony-parse --lines --to stats "$T/fast" >"$T/fast.out"
	cmp "$T/slow.out" "$T/fast.out"
	# the id records after the text one have token counts, as a text record has none
	[ "$(sed -n 1p "$T/fast.out" | grep -c '"tokens":null')" = 1 ]
	[ "$(sed -n '2,$p' "$T/fast.out" | grep -c '"tokens":null')" = 0 ]
}

@test "bench/gen_log.py --shape text writes the Harmony text of the ids shape's tokens" {
	python3 bench/gen_log.py --records 100 --seed 7 --short --shape text >"$T/t"
	python3 bench/gen_log.py --records 100 --seed 7 --short >"$T/i"
	# the text is exactly the ids decoded
	jq -c .text "$T/t" >"$T/text"
	harmony-tokens decode --lines --to json "$T/i" >"$T/decoded"
	cmp "$T/text" "$T/decoded"
	# so its headers read as Harmony: the same messages, only truncations warned
	harmony-parse -q --to messages "$T/t" >"$T/m.text"
	harmony-parse -q --to messages "$T/i" >"$T/m.ids"
	cmp "$T/m.text" "$T/m.ids"
	run sh -c "harmony-parse --warnings=all --to stats '$T/t' 2>&1 >/dev/null | grep -v '(F10)'"
	[ -z "$output" ]
	# --help describes every option
	run python3 -B -c 'import sys; sys.path.insert(0, "bench"); import gen_log
print(" ".join(sorted(o for a in gen_log.parser()._actions if not a.help for o in a.option_strings)))'
	[ "$status" -eq 0 ] && [ -z "$output" ]
}
