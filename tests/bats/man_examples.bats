#!/usr/bin/env bats
# man_examples.bats - runs the EXAMPLES of every man page in man/ and
# compares what they print with what the page says they print.
#
# In a man page, an .EX/.EE block whose first line starts with "$ " is a
# run of examples: each "$ " line is a command (a line ending in "\", "|",
# "&&" or "||" goes on in a next line starting with "> "), and the lines up
# to the next command or .EE are its output, standard output and standard
# error together, as a terminal shows them.  Output that does not end in a
# newline cannot be written there: end such a command with "; echo".
# Commands run with bash from the repo root, with bin/ first on PATH, in the
# C locale, with standard input from /dev/null and a 20 s limit; the exit
# status is not compared (show it with `; echo "exit status $?"`).

load helpers

setup() {
	hm_setup
}

@test "every man page has examples to run" {
	local n=0 m count
	for m in man/*.1; do
		[ -f "$m" ] || continue
		n=$((n + 1))
		count=$(extract examples "$m" | grep -c '^E ') || {
			echo "$m: no \"\$ \" examples (or the extractor failed)"
			return 1
		}
	done
	[ "$n" -gt 0 ] || { echo "no man pages in man/"; return 1; }
}

@test "every .EX block of an EXAMPLES section is an example that runs" {
	local m bad=0 b
	# one man page per binary, all of them read by the test below
	for b in $(binaries); do
		[ -f "man/$b.1" ] || { echo "man/$b.1: missing"; bad=1; }
	done
	for m in man/*.1; do
		[ -f "$m" ] || continue
		# A block there not led by "$ " would be skipped silently.
		awk -v f="$m" '
			/^\.SH/ { sec = $0; next }
			/^\.EX/ { first = 1; next }
			first { first = 0; if (sec ~ /EXAMPLES/ && $0 !~ /^\$ /) { print f ":" FNR ": not run: " $0; bad = 1 } }
			END { exit bad }' "$m" || bad=1
	done
	[ "$bad" -eq 0 ]
}

@test "every example prints what its man page says" {
	local m kind text fails=0 ran=0
	local d="$BATS_TEST_TMPDIR"

	run_one() {
		# $1 file, $2 line; the command in $d/cmd, expected in $d/want.
		local st=0
		(cd "$ROOT" && timeout 20 bash -c "$(cat "$d/cmd")" </dev/null >"$d/got" 2>&1) || st=$?
		ran=$((ran + 1))
		if [ "$st" -eq 124 ]; then
			echo "$1:$2: timed out: $(cat "$d/cmd")"
			fails=$((fails + 1))
		elif ! cmp -s "$d/want" "$d/got"; then
			echo "$1:$2: \$ $(cat "$d/cmd")"
			diff -u --label "expected ($1:$2)" --label "got" "$d/want" "$d/got" || true
			fails=$((fails + 1))
		fi
	}

	for m in man/*.1; do
		[ -f "$m" ] || continue
		extract examples "$m" >"$d/examples" || {
			echo "$m: cannot read the examples"
			fails=$((fails + 1))
			continue
		}
		line=
		while IFS= read -r rec; do
			kind=${rec:0:1}
			text=${rec:2}
			case $kind in
			E)
				[ -n "$line" ] && run_one "$m" "$line"
				line=$text
				: >"$d/cmd"
				: >"$d/want"
				;;
			C) printf '%s\n' "$text" >>"$d/cmd" ;;
			O) printf '%s\n' "$text" >>"$d/want" ;;
			esac
		done <"$d/examples"
		[ -n "$line" ] && run_one "$m" "$line"
	done
	echo "$ran examples run, $fails failed"
	[ "$ran" -gt 0 ]
	[ "$fails" -eq 0 ]
}
