#!/usr/bin/env bats
# tokens_memory.bats - harmony-tokens encode of one unbroken piece of
# 100 MB stays within the documented memory: peak RSS at most 8 bytes per
# input byte above that of a 10-byte encode (harmony-tokens(1), MEMORY).
# GNU time (`time` package, tools/install-deps) measures the peak.  A few
# seconds; the speed is a benchmark figure (bench/run), not tested here.

load helpers

setup() {
	hm_setup
	TMP=$(mktemp -d)
}

teardown() {
	rm -rf "$TMP"
}

# A sanitizer build keeps shadow memory and quarantines frees: no bound.
sanitized() {
	ldd "$(command -v harmony-tokens)" 2>/dev/null | grep -q 'lib[at]san' ||
	    nm "$(command -v harmony-tokens)" 2>/dev/null | grep -q '__asan_init'
}

@test "encode: 100 MB of one letter, one piece, in at most 8 bytes per byte" {
	[ -x /usr/bin/time ] || { echo "GNU time is missing: run tools/install-deps" >&2; return 1; }
	sanitized && skip "sanitizer build: memory is not bounded the same way"
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
