#!/bin/sh
# bench/parse.sh [N] - harmony-parse throughput: a synthetic stream of N
# token ids (default 5000000) as ids text in, messages NDJSON out, timed as
# a whole process (best of 3).  Prints tokens per second and peak RSS for N
# and for 4 N tokens: the RSS should stay flat.  Run by `make bench`, or by
# hand from anywhere once bin/ is built.  Target: >= 20 M tokens/s.
# bench/parse.sh -g N writes the stream of N tokens (if it is not in
# bench/cache yet) and prints its path, timing nothing (bench/run counts
# instructions on it).
set -eu
cd "$(dirname "$0")/.."
genonly=
if [ "${1:-}" = -g ]; then
	genonly=1
	shift
fi
n=${1:-5000000}
bin=bin/harmony-parse
[ -x "$bin" ] || { echo "parse.sh: build first (make)" >&2; exit 2; }
mkdir -p bench/cache

# Messages as a model writes them: analysis, a tool call, a final answer,
# each line one message, content tokens drawn from real English text.
words=$(sed -n '/^\.SH DESCRIPTION/,/^\.SH OPTIONS/p' man/harmony-parse.1 |
    grep -v '^\.' | bin/harmony-tokens encode --no-special)
gen() {
	awk -v n="$1" -v words="$words" 'BEGIN {
		nw = split(words, w, " ")
		srand(42); i = 0; line = ""
		while (i < n) {
			m = int(i / 400) % 3
			if (m == 0) hdr = "200006 173781 200005 35644 200008"
			else if (m == 1) hdr = "200006 173781 316 28 44580 775 170154 200005 12606 815 220 200003 4108 200008"
			else hdr = "200006 173781 200005 17196 200008"
			line = hdr; i += split(hdr, _, " ")
			for (k = 0; k < 390 && i < n; k++) { line = line " " w[1 + int(rand() * nw)]; i++ }
			line = line (m == 1 ? " 200012" : " 200007"); i++
			print line
		}
	}'
}

# Seconds since the epoch, with nanoseconds where date has them.
now() {
	date +%s.%N
}

one() {
	f=bench/cache/parse-$1.ids
	if [ ! -s "$f" ]; then
		if [ "$1" -gt "$n" ] && [ -s "bench/cache/parse-$n.ids" ]; then
			# Whole messages, so copies of the smaller stream join up.
			k=$(($1 / n))
			while [ "$k" -gt 0 ]; do cat "bench/cache/parse-$n.ids"; k=$((k - 1)); done >"$f.tmp"
		else
			gen "$1" >"$f.tmp"
		fi
		mv "$f.tmp" "$f"
	fi
	toks=$(wc -w <"$f")
	best=
	for run in 1 2 3; do
		t0=$(now)
		if [ -x /usr/bin/time ]; then
			rss=$( { /usr/bin/time -f %M "$bin" -q --role none "$f" >/dev/null; } 2>&1 | tail -n 1)
		else
			"$bin" -q --role none "$f" >/dev/null
			rss=
		fi
		t1=$(now)
		best=$(awk -v a="$t0" -v b="$t1" -v best="$best" 'BEGIN {
			s = b - a; if (best == "" || s < best) best = s; printf "%.4f", best }')
	done
	awk -v n="$toks" -v s="$best" -v r="$rss" 'BEGIN {
		printf "parse: %d tokens in %.3f s: %.1f M tokens/s, peak RSS %s\n",
		    n, s, n / s / 1e6, r == "" ? "n/a" : sprintf("%.1f MiB", r / 1024)
	}'
}

if [ -n "$genonly" ]; then
	f=bench/cache/parse-$n.ids
	if [ ! -s "$f" ]; then
		gen "$n" >"$f.tmp"
		mv "$f.tmp" "$f"
	fi
	echo "$f"
	exit 0
fi
one "$n"
one $((n * 4))
