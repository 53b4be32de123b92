#!/bin/sh
# tests/sdk/clients.sh - the real SDK clients (openai, @anthropic-ai/sdk)
# read harmony-parse's streams over loopback HTTP and must assemble the
# objects of the non-stream shapes (tests/sdk/clients.mjs says how).
#
# The completions: every fixture of fixtures/parse (the recovery fixtures
# included, with their arguments), tests/sdk/inputs, and 40 records of a
# generated serving log (id, usage and output ids, so that a record's id
# and input tokens are carried).  For each, harmony-parse writes the
# anthropic, chat-completion and responses objects and their streams.
#
# HM_SDK_BREAK=1 changes one text delta of call.ids' anthropic stream
# first (and takes no other input): the check must fail.
# Exit status: 0 all agree, 1 a difference, 2 not built, 77 skipped (no
# node/npm, or the packages could not be installed).
set -eu
cd "$(dirname "$0")/../.."
. tests/sdk/npm.sh
bin=${BIN:-bin}/harmony-parse
[ -x "$bin" ] || { echo "clients.sh: $bin missing: run make first" >&2; exit 2; }
sdk_install
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"

work=$cache/clients
rm -rf "$work"
mkdir -p "$work/out"
cp "$sdk/clients.mjs" "$work/"

# One completion: NAME, input file, arguments.
one() {
	for shape in anthropic anthropic-stream chat-completion chat-stream responses responses-stream; do
		# shellcheck disable=SC2086
		"$bin" -q $3 --to "$shape" "$2" >"$work/out/$1.$shape" || {
			echo "clients.sh: harmony-parse failed on $2 --to $shape" >&2
			exit 1
		}
	done
}

n=0
inputs="fixtures/parse/*.ids fixtures/parse/f*.in $sdk/inputs/*.txt"
records=40
if [ -n "${HM_SDK_BREAK-}" ]; then
	inputs=fixtures/parse/call.ids
	records=0
fi
for in in $inputs; do
	# empty input is no record: the shapes write nothing for it
	[ -s "$in" ] || continue
	case $in in
	*.txt) args="--from text" ;;
	*.in) args=$(cat "${in%.in}.args") ;;
	*) args= ;;
	esac
	base=$(basename "$in")
	base=${base%.*}
	case " $args " in
	*" --lines "*)
		# One completion a line: each its own exchange.
		mkdir -p "$work/lines"
		split -l 1 -d -a 3 "$in" "$work/lines/$base-"
		for piece in "$work/lines/$base"-*; do
			one "$(basename "$piece")" "$piece" "$args"
			n=$((n + 1))
		done
		;;
	*)
		one "$base" "$in" "$args"
		n=$((n + 1))
		;;
	esac
done
[ "$records" -eq 0 ] || python3 bench/gen_log.py --records "$records" --seed 7 --short |
    python3 -c '
import json, sys
for i, line in enumerate(sys.stdin):
    r = json.loads(line)
    keep = {k: r[k] for k in ("id", "usage", "output_ids") if k in r}
    with open(sys.argv[1] + "/log-%02d.ndjson" % i, "w") as f:
        f.write(json.dumps(keep, separators=(",", ":")) + "\n")
' "$work"
for in in "$work"/log-*.ndjson; do
	[ -f "$in" ] || continue
	base=$(basename "$in")
	one "${base%.ndjson}" "$in" ""
	n=$((n + 1))
done

if [ -n "${HM_SDK_BREAK-}" ]; then
	sed -i 's/"thinking":"Need"/"thinking":"Ned"/' "$work/out/call.anthropic-stream"
	grep -q '"thinking":"Ned"' "$work/out/call.anthropic-stream" ||
	    { echo "clients.sh: HM_SDK_BREAK found nothing to break" >&2; exit 2; }
fi
if ! (cd "$work" && node clients.mjs out) >"$work/log" 2>&1; then
	cat "$work/log"
	echo "sdk clients: a stream assembles another object than its non-stream shape ($stamp)"
	exit 1
fi
echo "sdk clients: $(cat "$work/log") ($n inputs, $stamp)"
