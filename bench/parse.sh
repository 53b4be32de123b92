#!/bin/sh
# bench/parse.sh [N] - harmony-parse throughput: a synthetic completion of
# N token ids (default 5000000) as ids text in, messages NDJSON out.
# Prints tokens per second and the peak RSS, then the same for twice the
# input, so a growing RSS shows.  Not a test: run by `make bench`.
set -eu
cd "$(dirname "$0")/.."
n=${1:-5000000}
bin=bin/harmony-parse
[ -x "$bin" ] || { echo "parse.sh: build first (make)" >&2; exit 2; }
mkdir -p bench/cache

# Messages as a model writes them: analysis, a tool call, a final answer,
# with content tokens drawn from real English text.
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

one() {
	f=bench/cache/parse-$1.ids
	[ -s "$f" ] || gen "$1" >"$f"
	t0=$(date +%s.%N)
	rss=$( { /usr/bin/time -f %M "$bin" -q --role none "$f" >/dev/null; } 2>&1 | tail -n 1)
	t1=$(date +%s.%N)
	awk -v n="$1" -v a="$t0" -v b="$t1" -v r="$rss" 'BEGIN {
		s = b - a
		printf "parse: %d tokens in %.2f s: %.1f M tokens/s, peak RSS %d KiB\n", n, s, n / s / 1e6, r
	}'
}

one "$n"
one $((n * 2))
