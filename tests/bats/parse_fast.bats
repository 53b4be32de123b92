#!/usr/bin/env bats
# parse_fast.bats - harmony-parse's fast id reader and merged deltas: the
# output does not depend on where the 256 KiB reads cut the input, and the
# numbers it takes a word at a time read as the slow path reads them.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C
}

# A stream of messages of about $1 tokens, numbers written in assorted
# ways: separators of every kind, ids up to 7 digits (a leading zero is no
# id: issue 35, one spelling in every reader).
stream() {
	awk -v n="$1" 'BEGIN {
		split("24912 2375 11 6 0 199997 1 200 3000 64000 1000000 1024912 4000002375", w, " ")
		split(" |,|\t|  |\r\n| , |\n", sep, "|")
		srand(7)
		for (i = 0; i < n; ) {
			printf "200006 173781 200005 35644 200008"
			for (k = 0; k < 50; k++) {
				printf "%s%s", sep[1 + int(rand() * 7)], w[1 + int(rand() * 13)]
				i++
			}
			printf " 200007\n"
			i += 6
		}
	}'
}

@test "ids output does not depend on where reads cut the input" {
	stream 110000 >"$BATS_TEST_TMPDIR/in"
	[ "$(wc -c <"$BATS_TEST_TMPDIR/in")" -gt 600000 ]
	harmony-parse -q --role none "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/ref"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/ref")" -gt 1500 ]
	# Shift every number across the 256 KiB read boundaries.
	for pad in 1 2 3 4 5 6 7 8 9 10 11; do
		{ printf '%*s' "$pad" ''; cat "$BATS_TEST_TMPDIR/in"; } |
		    harmony-parse -q --role none >"$BATS_TEST_TMPDIR/out"
		cmp "$BATS_TEST_TMPDIR/ref" "$BATS_TEST_TMPDIR/out"
	done
	# Per-token deltas (events) carry the same text as the merged messages.
	harmony-parse -q --role none --to events "$BATS_TEST_TMPDIR/in" |
	    jq -r 'select(.type == "delta") | .text' | tr -d '\n' >"$BATS_TEST_TMPDIR/ev"
	jq -r .content "$BATS_TEST_TMPDIR/ref" | tr -d '\n' >"$BATS_TEST_TMPDIR/msg"
	cmp "$BATS_TEST_TMPDIR/ev" "$BATS_TEST_TMPDIR/msg"
}

@test "numbers the fast reader takes read as the slow reader reads them" {
	# One number per line: the fast path needs 8 bytes ahead, the last
	# numbers of a read take the slow one.
	printf '200005 35644 200008 24912, 2375\t24912 2375\r\n200007\n' >"$BATS_TEST_TMPDIR/a"
	run harmony-parse "$BATS_TEST_TMPDIR/a"
	[ "$status" -eq 0 ]
	[ "$output" = '{"role":"assistant","content":"hello worldhello world","channel":"analysis"}' ]
	# A leading zero is no id on either path (issue 35): the same error
	# for a word read a word at a time and for one among the last bytes.
	printf '200005 35644 200008 0024912 2375 200007 0000000000002375\n' >"$BATS_TEST_TMPDIR/z"
	run harmony-parse -q "$BATS_TEST_TMPDIR/z"
	[ "$status" -eq 1 ]
	[[ "$output" == *"token 3: not a token id: '0024912'"* ]]
	[[ "$output" == *"token 6: not a token id: '0000000000002375'"* ]]
	printf '200005\n35644\n200008\n24912\n2375\n200007' >"$BATS_TEST_TMPDIR/b"
	run harmony-parse "$BATS_TEST_TMPDIR/b"
	[ "$output" = '{"role":"assistant","content":"hello world","channel":"analysis"}' ]
}

@test "bad numbers in a large stream name their line and token" {
	stream 90000 >"$BATS_TEST_TMPDIR/in"
	# Put bad tokens on line 1000 and across the first read boundary.
	awk 'NR == 1000 { $3 = "12x34"; $4 = "4294967296" } { print }' "$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/bad"
	run bash -c 'harmony-parse -q --role none "$1" >/dev/null' - "$BATS_TEST_TMPDIR/bad"
	[ "$status" -eq 1 ]
	tok=$(head -n 999 "$BATS_TEST_TMPDIR/bad" | tr -s ' ,\t\r\n' '\n\n\n\n\n' | grep -c .)
	[ "${lines[0]}" = "harmony-parse: $BATS_TEST_TMPDIR/bad:1000: token $((tok + 2)): not a token id: '12x34'" ]
	[ "${lines[1]}" = "harmony-parse: $BATS_TEST_TMPDIR/bad:1000: token $((tok + 3)): id 4294967296 out of range (max 4294967295)" ]
	{ head -c 262143 "$BATS_TEST_TMPDIR/in"; printf 'q'; tail -c +262145 "$BATS_TEST_TMPDIR/in"; } >"$BATS_TEST_TMPDIR/cut"
	run bash -c 'harmony-parse -q --role none "$1" >/dev/null' - "$BATS_TEST_TMPDIR/cut"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *"/cut:"*": not a token id: '"*q*"'" ]]
}
