#!/usr/bin/env bats
# tokens_memory.bats - harmony-tokens encode of one unbroken piece of
# 100 MB stays within the documented memory: peak RSS at most 8 bytes per
# input byte above that of a 10-byte encode (harmony-tokens(1), MEMORY).
# GNU time (`time` package, tools/install-deps) measures the peak.  A few
# seconds; the speed is a benchmark figure (bench/run), not tested here.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	hm_setup
	TMP=$(mktemp -d)
}

teardown() {
	rm -rf "$TMP"
}

@test "encode: 100 MB of one letter, one piece, in at most 8 bytes per byte" {
	[ -x /usr/bin/time ] || { echo "GNU time is missing: run tools/install-deps" >&2; return 1; }
	hm_sanitized harmony-tokens && skip "sanitizer build: memory is not bounded the same way"
	n=100000000
	printf aaaaaaaaaa >"$TMP/small"
	/usr/bin/time -f %M -o "$TMP/base" harmony-tokens encode "$TMP/small" >/dev/null
	head -c "$n" /dev/zero | tr '\0' a |
	    /usr/bin/time -f %M -o "$TMP/rss" harmony-tokens encode >"$TMP/ids"
	base=$(tail -n 1 "$TMP/base")
	rss=$(tail -n 1 "$TMP/rss")
	echo "peak RSS: $rss KiB, $base KiB for 10 bytes" >&2
	# the ids: "aaaaaaaa" (117525) again and again
	run sh -c "tr ' ' '\n' <'$TMP/ids' | uniq -c"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$(echo ${lines[0]})" = "12500000 117525" ]
	[ $(( (rss - base) * 1024 )) -le $(( 8 * n )) ]
}

@test "ids: count, inspect and decode --from ids in constant memory, 2 M ids as 20 M" {
	[ -x /usr/bin/time ] || { echo "GNU time is missing: run tools/install-deps" >&2; return 1; }
	hm_sanitized harmony-tokens && skip "sanitizer build: memory is not bounded the same way"
	yes '200005 17196 200008 12194 200002' | head -n 400000 >"$TMP/small"
	yes '200005 17196 200008 12194 200002' | head -n 4000000 >"$TMP/big"
	[ "$(harmony-tokens count --from ids "$TMP/big")" -eq 20000000 ]
	[ "$(harmony-tokens count --from ids "$TMP/small" "$TMP/big" | tail -n 1)" = "22000000 total" ]
	for cmd in "count --from ids" "inspect --from ids" "decode"; do
		a=$(hm_peak_min harmony-tokens $cmd "$TMP/small")
		b=$(hm_peak_min harmony-tokens $cmd "$TMP/big")
		echo "$cmd: $a KiB for 2 M ids, $b KiB for 20 M" >&2
		# the same but for noise (two huge pages): under 4 MiB more for
		# 18 M more ids, so less than a quarter of a byte kept per id
		[ "$b" -le $((a + 4096)) ]
	done
	# one line of 20 M ids too
	tr '\n' ' ' <"$TMP/big" >"$TMP/line"
	b=$(hm_peak harmony-tokens count --from ids "$TMP/line")
	[ "$b" -le $((a + 4096)) ]
}

@test "inspect, count --from auto: ids told from the first block, then streamed: 2 M ids as 20 M" {
	[ -x /usr/bin/time ] || { echo "GNU time is missing: run tools/install-deps" >&2; return 1; }
	hm_sanitized harmony-tokens && skip "sanitizer build: memory is not bounded the same way"
	yes '200005 17196 200008 12194 200002' | head -n 400000 >"$TMP/small"
	yes '200005 17196 200008 12194 200002' | head -n 4000000 >"$TMP/big"
	[ "$(harmony-tokens count --from auto "$TMP/big")" -eq 20000000 ]
	# the rows are those of --from ids (the same reader)
	[ "$(harmony-tokens inspect "$TMP/small" | md5sum)" = "$(harmony-tokens inspect --from ids "$TMP/small" | md5sum)" ]
	for cmd in "inspect" "inspect --to json" "count --from auto"; do
		a=$(hm_peak_min harmony-tokens $cmd "$TMP/small")
		b=$(hm_peak_min harmony-tokens $cmd "$TMP/big")
		echo "$cmd: $a KiB for 2 M ids, $b KiB for 20 M" >&2
		[ "$b" -le $((a + 4096)) ]
		# 2 M ids held whole would be 8 MB at the least
		[ "$a" -le 8192 ]
	done
	# standard input too
	a=$(hm_peak harmony-tokens inspect <"$TMP/big")
	[ "$a" -le 8192 ]
	# text after the first block: an error naming it, the ids before written
	{ head -n 20000 "$TMP/small"; echo hello; } >"$TMP/mixed"
	run --separate-stderr harmony-tokens inspect "$TMP/mixed"
	[ "$status" -eq 1 ]
	[ "$stderr" = "harmony-tokens: $TMP/mixed:20001:1: token 0: not a token id: 'hello'" ]
	[ "${#lines[@]}" -eq 100000 ]
	# text in the first block: text, as before
	{ echo hello; cat "$TMP/small"; } >"$TMP/text"
	[ "$(harmony-tokens count --from auto "$TMP/text")" = "$(harmony-tokens count "$TMP/text")" ]
}

@test "encode, count: one 100 MB line of prose in bounded memory, cut where the pattern restarts" {
	[ -x /usr/bin/time ] || { echo "GNU time is missing: run tools/install-deps" >&2; return 1; }
	hm_sanitized harmony-tokens && skip "sanitizer build: memory is not bounded the same way"
	python3 -c 'import sys; sys.stdout.write("The quick brown fox jumps over the lazy dog. " * 2300000)' >"$TMP/line"
	printf aaaaaaaaaa >"$TMP/small"
	base=$(hm_peak harmony-tokens encode "$TMP/small")
	rss=$(hm_peak harmony-tokens encode "$TMP/line")
	crss=$(hm_peak harmony-tokens count "$TMP/line")
	echo "peak RSS: encode $rss KiB, count $crss KiB, $base KiB for 10 bytes" >&2
	[ "$rss" -le $((base + 32768)) ]
	[ "$crss" -le $((base + 32768)) ]
}
