#!/usr/bin/env bats
# damage.bats - generated logs damaged at seeded random places (lines cut
# short, a BOM, raw NULs, members given twice: tests/lib/damage.py), each
# through every reader harmony-parse has for them: NDJSON records of ids,
# of text, JSON arrays, each by records and with --lines, and an SSE
# stream.  Asserted: a cut or NUL'd record is an error line in its place,
# so is one whose member read (ids, text) is given twice, every other
# record comes out as from the clean log, a duplicated member no reader
# reads changes nothing, and the summary counts records and
# errors alike on one machine and over parts merged (split at lines, as
# parallel --pipe cuts; the multi-host recipe itself: multihost.bats).

bats_require_minimum_version 1.5.0

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C
	T=$BATS_TEST_TMPDIR
	N=60
}

# Check "$T/dmg" (manifest "$T/man") against "$T/clean" through
# harmony-parse "$@" --to chat, one output line a record: each damaged line
# an error line naming its line, each other as the clean log's.
# $1: the line of record k is 1 + (k - 1) * $1 (1 a line; 4 in SSE).
check_damage() {
	local step=$1 k line kind out
	shift
	harmony-parse -q "$@" --to chat "$T/clean" >"$T/want"
	[ "$(wc -l <"$T/want")" -eq "$N" ]
	run --separate-stderr harmony-parse -q "$@" --to chat "$T/dmg"
	out=("${lines[@]}")
	[ "${#out[@]}" -eq "$N" ]
	mapfile -t want <"$T/want"
	for ((k = 1; k <= N; k++)); do
		line=$((1 + (k - 1) * step))
		kind=$(awk -v l="$line" '$1 == l { print $2 }' "$T/man")
		case $kind in
		cut | nul | dupkey)
			[[ "${out[k - 1]}" == '{'*'"error":'*',"line":'"$line"'}' ]] ||
			    { echo "record $k (line $line, $kind): ${out[k - 1]}"; return 1; }
			;;
		*)
			[ "${out[k - 1]}" = "${want[k - 1]}" ] ||
			    { echo "record $k (line $line, ${kind:-clean}) differs"; return 1; }
			;;
		esac
	done
	# exit 1 when something was bad, 0 else
	if grep -qE ' (cut|nul|dupkey)$' "$T/man"; then [ "$status" -eq 1 ]; else [ "$status" -eq 0 ]; fi
}

# The summary of "$T/dmg": records and errors as the manifest says; the
# same bytes from parts of 17 lines merged, the coverage checked.
check_counts() {
	local bad lines
	bad=$(grep -cE ' (cut|nul|dupkey)$' "$T/man" || true)
	lines=$(wc -l <"$T/dmg")
	harmony-parse -q "$@" --to stats --summary "$T/dmg" >"$T/one" || true
	jq -e --argjson n "$N" --argjson b "$bad" --argjson l "$lines" \
	    '.records == $n - $b and .errors == $b and .input_lines == $l and .record_lines == $l' "$T/one"
	rm -f "$T"/part.*
	split -l 17 "$T/dmg" "$T/part."
	for p in "$T"/part.*; do harmony-parse -q "$@" --to stats --summary "$p" || true; done |
	    harmony-parse --to stats --merge --expect-lines="$lines" \
	    --expect-bytes="$(wc -c <"$T/dmg")" >"$T/merged"
	cmp "$T/one" "$T/merged"
}

@test "damage: NDJSON records of ids, by records and by --lines, 12 seeds" {
	python3 bench/gen_log.py --records "$N" --seed 4 --short >"$T/clean"
	for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
		python3 tests/lib/damage.py "$seed" cut,nul,dup,dupkey,bom "$T/clean" "$T/dmg" "$T/man"
		check_damage 1
		check_damage 1 --lines
		check_counts
		check_counts --lines
	done
}

@test "damage: NDJSON records of text, 8 seeds" {
	python3 bench/gen_log.py --records "$N" --seed 5 --short --shape text >"$T/clean"
	for seed in 1 2 3 4 5 6 7 8; do
		python3 tests/lib/damage.py "$seed" cut,nul,dup,dupkey,bom "$T/clean" "$T/dmg" "$T/man"
		check_damage 1
		check_damage 1 --lines
		check_counts
	done
}

@test "damage: JSON arrays of ids, 8 seeds" {
	python3 bench/gen_log.py --records "$N" --seed 6 --short --shape array >"$T/clean"
	for seed in 1 2 3 4 5 6 7 8; do
		python3 tests/lib/damage.py "$seed" cut,nul,bom "$T/clean" "$T/dmg" "$T/man"
		check_damage 1
		check_damage 1 --lines
		check_counts
	done
}

@test "damage: an SSE stream of completions, 8 seeds" {
	# each record a completion: its chunk, a blank line, [DONE], a blank line
	python3 bench/gen_log.py --records "$N" --seed 7 --short --shape text |
	    jq -c '{id, choices: [{index: 0, text: .text, finish_reason: "stop"}]}' |
	    awk '{ printf "data: %s\n\ndata: [DONE]\n\n", $0 }' >"$T/clean"
	for seed in 1 2 3 4 5 6 7 8; do
		python3 tests/lib/damage.py "$seed" cut,nul,bom "$T/clean" "$T/dmg" "$T/man"
		check_damage 4
		bad=$(grep -cE ' (cut|nul)$' "$T/man")
		harmony-parse -q --to stats --summary "$T/dmg" >"$T/one" || true
		jq -e --argjson n "$N" --argjson b "$bad" \
		    '.records == $n - $b and .errors == $b and .record_lines == null' "$T/one"
	done
}
