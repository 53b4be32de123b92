#!/usr/bin/env bats
# newcomer.bats - what someone who has just cloned the tree meets first:
# the README's tour and library lines run as written, --help fits a
# terminal, a missing file writes nothing, no stray binary in the tree,
# a browser that cannot run says so, the tests build without warnings.

load helpers

setup() {
	hm_setup
}

# The ```sh blocks of README.md from the line matching $1 up to the next
# line matching $2, one command a line (comments and blank lines left out).
readme_lines() {
	awk -v from="$1" -v to="$2" '
		$0 ~ from { on = 1 }
		on && $0 ~ to && !($0 ~ from) { on = 0 }
		on && /^```sh$/ { inb = 1; next }
		inb && /^```$/ { inb = 0; next }
		inb && !/^[ \t]*(#|$)/ { print }' "$ROOT/README.md"
}

# A scratch directory that looks like the top of the tree to the README's
# relative paths (fixtures/, docs/), so that what they write stays there.
scratch_top() {
	S=$BATS_TEST_TMPDIR/top
	mkdir -p "$S"
	ln -s "$ROOT/fixtures" "$S/fixtures"
	ln -s "$ROOT/docs" "$S/docs"
}

@test "README: every command of the short tour and the pages runs as written from the top of the tree" {
	scratch_top
	readme_lines '^## A short tour' '^### The tool loop' >"$BATS_TEST_TMPDIR/tour"
	n=$(wc -l <"$BATS_TEST_TMPDIR/tour")
	[ "$n" -ge 10 ] || { echo "only $n commands found in the tour"; cat "$BATS_TEST_TMPDIR/tour"; false; }
	fails=0
	while IFS= read -r cmd; do
		st=0
		(cd "$S" && timeout 20 bash -c "$cmd" </dev/null >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err") || st=$?
		want=0
		# a diff exits 1 when the two sides differ, as these do
		case $cmd in "harmony-tokens diff "*) want=1 ;; esac
		if [ "$st" -ne "$want" ] || [ -s "$BATS_TEST_TMPDIR/err" ]; then
			echo "exit $st (want $want): $cmd"
			cat "$BATS_TEST_TMPDIR/err"
			fails=$((fails + 1))
			continue
		fi
		# what it writes: standard output, or the page it is sent to
		case $cmd in
		*" > "*.html)
			f=${cmd##*> }
			grep -q '^<!DOCTYPE html>' "$S/$f" || { echo "no page in $f: $cmd"; fails=$((fails + 1)); } ;;
		*)
			[ -s "$BATS_TEST_TMPDIR/out" ] || { echo "no output: $cmd"; fails=$((fails + 1)); } ;;
		esac
	done <"$BATS_TEST_TMPDIR/tour"
	[ "$fails" -eq 0 ]
}

@test "README: the library example builds from the tree through pkg-config and runs" {
	command -v pkg-config >/dev/null || skip "pkg-config is not installed"
	command -v cc >/dev/null || skip "no C compiler"
	[ -f "$ROOT/build/harmony-uninstalled.pc" ] || { echo "make did not write build/harmony-uninstalled.pc"; false; }
	scratch_top
	readme_lines '^## The library' '^## Where to read more' >"$BATS_TEST_TMPDIR/lib"
	grep -q 'PKG_CONFIG_PATH' "$BATS_TEST_TMPDIR/lib"
	# the lines as the README has them, from the top of the tree ($PWD),
	# writing the program in the scratch directory
	script=$(sed -e "s|\\\$PWD/build|$ROOT/build|" "$BATS_TEST_TMPDIR/lib")
	run bash -c "cd '$S' && $script"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "prompt: 13 tokens" ]]
	[[ "$output" == *"assistant [analysis]: Easy. (end)"* ]]
	# it runs against this tree's libharmony.so (the run path), not an installed one
	ldd "$S/example" | grep -q "$ROOT/lib/libharmony.so"
}

@test "--help fits 80 columns, and each option's words stand apart from its description" {
	local b bad=0
	for b in $(binaries); do
		"$b" --help >"$BATS_TEST_TMPDIR/help"
		awk -v b="$b" 'length($0) > 80 { print b ": " length($0) " columns: " $0; bad = 1 }
			# an option, then its description two blanks on at least
			{ line = $0; sub(/^ +/, "", line) }
			line ~ /^(-[A-Za-z0-9], )?--?[A-Za-z0-9][^ ,]* [^ ]/ {
				print b ": no gap before the description: " $0; bad = 1
			}
			END { exit bad }' "$BATS_TEST_TMPDIR/help" || bad=1
	done
	[ "$bad" -eq 0 ]
}

@test "a missing input file writes nothing to standard output, in every tool and shape" {
	local m=$BATS_TEST_TMPDIR/missing.ndjson ok=$ROOT/fixtures/diff/log-a.ndjson bad=0
	while IFS= read -r args; do
		# alone and after a file that is there
		for pre in "" "$ok"; do
			# shellcheck disable=SC2086
			st=0
			$args $pre "$m" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" || st=$?
			if [ "$st" -ne 3 ] || [ -s "$BATS_TEST_TMPDIR/out" ] ||
			    ! grep -q "missing.ndjson: No such file or directory" "$BATS_TEST_TMPDIR/err"; then
				echo "$args ${pre:+FILE }MISSING: exit $st, $(wc -c <"$BATS_TEST_TMPDIR/out") bytes out"
				cat "$BATS_TEST_TMPDIR/err"
				bad=1
			fi
		done
	done <<'EOF'
harmony-parse --to stats --summary
harmony-parse --to report
harmony-parse --to metrics
harmony-parse --to html
harmony-parse --to chat
harmony-parse --to stats --merge
harmony-tokens count
harmony-tokens inspect --to html
harmony-tokens encode
harmony-render --to html
harmony-render
harmony-tools render
EOF
	[ "$bad" -eq 0 ]
	# a directory is no input either
	run harmony-tokens count "$BATS_TEST_TMPDIR"
	[ "$status" -eq 3 ]
	[ "$output" = "harmony-tokens: $BATS_TEST_TMPDIR: Is a directory" ]
}

@test "the tree holds no file over 1 MB but the vocabulary (a core dump, a build left in)" {
	if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$ROOT" ls-files -z >"$BATS_TEST_TMPDIR/files"
	else
		# a tree without git: what make and the tests did not write
		(cd "$ROOT" && find . -type f ! -path './.git/*' ! -path './build*' ! -path './bin*' \
		    ! -path '*/.cache/*' ! -path './bench/cache/*' ! -path './lib/libharmony*' -print0) >"$BATS_TEST_TMPDIR/files"
	fi
	big=$(cd "$ROOT" && xargs -0 -r stat -c '%s %n' <"$BATS_TEST_TMPDIR/files" |
	    awk '$1 > 1048576 && $2 !~ /(^|\/)vocab\/o200k_base\.tiktoken$/')
	[ -z "$big" ] || { echo "over 1 MB: $big"; false; }
	# and core files are ignored, should one be written again
	if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$ROOT" check-ignore -q core
		git -C "$ROOT" check-ignore -q core.12345
	fi
}

@test "tests/lib/browser: a browser that cannot start is status 3, with its reason and the way out" {
	lite_skip "the browser driver's tests"
	command -v node >/dev/null 2>&1 || skip "no node (tests/lib/browser runs on it)"
	printf '<!DOCTYPE html><p>x\n' >"$BATS_TEST_TMPDIR/p.html"
	# dies at once, saying what Chromium says without a usable sandbox
	printf '#!/bin/sh\necho "FATAL:zygote_host_impl_linux.cc(128)] No usable sandbox!" >&2\nexit 1\n' >"$BATS_TEST_TMPDIR/dies"
	# closes the protocol pipe first, as a crashing browser does
	printf '#!/bin/sh\nexec 3<&- 4>&-\nsleep 0.2\necho "No usable sandbox!" >&2\nexit 1\n' >"$BATS_TEST_TMPDIR/closes"
	chmod +x "$BATS_TEST_TMPDIR/dies" "$BATS_TEST_TMPDIR/closes"
	for b in dies closes; do
		run env CHROMIUM="$BATS_TEST_TMPDIR/$b" TMPDIR="$BATS_TEST_TMPDIR" \
		    "$ROOT/tests/lib/browser" "$BATS_TEST_TMPDIR/p.html" --eval '1 + 1'
		echo "$b: $output"
		[ "$status" -eq 3 ]
		[[ "$output" == *"chromium-sandbox"* ]]
		[[ "$output" == *"No usable sandbox!"* ]]
	done
	# its profile is gone with it
	[ -z "$(find "$BATS_TEST_TMPDIR" -maxdepth 1 -name 'hm-browser-*' -print -quit)" ]
}

@test "the tests and fuzz targets compile without a warning" {
	command -v cc >/dev/null || skip "no C compiler"
	bad=0
	for f in tests/unit/test_*.c tests/fuzz/fuzz_*.c tests/fuzz/replay.c docs/example.c; do
		cc -std=c11 -Wall -Wextra -pedantic -D_POSIX_C_SOURCE=200809L -Ilib -Ibuild -Itests/unit -Itests/fuzz \
		    -DFUZZ_NAME='"x"' -fsyntax-only "$f" 2>"$BATS_TEST_TMPDIR/warn" || bad=1
		if [ -s "$BATS_TEST_TMPDIR/warn" ]; then
			cat "$BATS_TEST_TMPDIR/warn"
			bad=1
		fi
	done
	[ "$bad" -eq 0 ]
}
