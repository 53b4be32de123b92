#!/usr/bin/env bats
# docs.bats - keeps --help, the man pages and the shell completions of every
# binary in bin/ (and every name in the Makefile's BINS) from drifting apart,
# and checks the shared option conventions of CLI.md.
#
# Each test covers all binaries and reports every one that fails, so a
# missing binary, man page or completion file is a failure, never a skip.
# Needs groff (groff-base), zsh and fish: the completion files are loaded by
# the real shells (tests/lib/completion-options).

load helpers

setup() {
	hm_setup
	BINS=$(binaries) || return 1
	FAIL="$BATS_TEST_TMPDIR/fail"
	: >"$FAIL"
}

# Record a failure for the end of the test and go on.
bad() {
	printf '%s\n' "$*" >>"$FAIL"
}

# Fail the test with every failure recorded.
report() {
	if [ -s "$FAIL" ]; then
		cat "$FAIL"
		return 1
	fi
}

@test "every binary is built and checked here" {
	[ -n "$BINS" ]
	for b in $BINS; do
		[ -x "$BIN/$b" ] || bad "$BIN/$b: missing"
		[ "$(command -v "$b")" = "$BIN/$b" ] ||
		    bad "$b: PATH finds $(command -v "$b"), not $BIN/$b"
	done
	report
}

@test "--help and -h print a usage to stdout and exit 0" {
	for b in $BINS; do
		for h in --help -h; do
			st=0
			"$b" "$h" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" </dev/null || st=$?
			[ "$st" -eq 0 ] || bad "$b $h: exit status $st, not 0"
			[ -s "$BATS_TEST_TMPDIR/err" ] && bad "$b $h: wrote to stderr: $(cat "$BATS_TEST_TMPDIR/err")"
			head -n 1 "$BATS_TEST_TMPDIR/out" | grep -q "^Usage: $b " ||
			    bad "$b $h: first line is not 'Usage: $b ...': $(head -n 1 "$BATS_TEST_TMPDIR/out")"
		done
	done
	report
}

@test "--version and -V print 'NAME VERSION' with the Makefile's VERSION" {
	version=$(make_version)
	[ -n "$version" ]
	for b in $BINS; do
		for v in --version -V; do
			st=0
			out=$("$b" "$v" 2>"$BATS_TEST_TMPDIR/err" </dev/null) || st=$?
			[ "$st" -eq 0 ] || bad "$b $v: exit status $st, not 0"
			[ "$out" = "$b $version" ] || bad "$b $v: printed '$out', not '$b $version'"
			[ -s "$BATS_TEST_TMPDIR/err" ] && bad "$b $v: wrote to stderr: $(cat "$BATS_TEST_TMPDIR/err")"
		done
	done
	report
}

@test "an unknown option exits 2 with one line and 'Try NAME --help.' on stderr" {
	for b in $BINS; do
		for o in --no-such-option -Z; do
			st=0
			"$b" "$o" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" </dev/null || st=$?
			[ "$st" -eq 2 ] || bad "$b $o: exit status $st, not 2"
			[ -s "$BATS_TEST_TMPDIR/out" ] && bad "$b $o: wrote to stdout"
			n=$(wc -l <"$BATS_TEST_TMPDIR/err")
			[ "$n" -eq 2 ] || bad "$b $o: $n lines on stderr, not 2: $(cat "$BATS_TEST_TMPDIR/err")"
			first=$(head -n 1 "$BATS_TEST_TMPDIR/err")
			case $first in
			"$b: "*) ;;
			*) bad "$b $o: message does not start with '$b: ': $first" ;;
			esac
			last=$(tail -n 1 "$BATS_TEST_TMPDIR/err")
			[ "$last" = "Try '$b --help'." ] || bad "$b $o: last line is '$last', not \"Try '$b --help'.\""
		done
	done
	report
}

@test "--help, the man page and the bash, zsh and fish completions list the same options" {
	for b in $BINS; do
		d="$BATS_TEST_TMPDIR/$b"
		mkdir -p "$d"
		help_options "$b" >"$d/help" || bad "$b: cannot read --help"
		# The conventions every binary follows must be there to compare.
		for o in -h --help -V --version; do
			grep -qx -- "$o" "$d/help" || bad "$b --help: does not list $o"
		done
		if [ -f "man/$b.1" ]; then
			man_options "$b" >"$d/man" || bad "man/$b.1: cannot read the OPTIONS section"
			same_set "$b --help" "$d/help" "man/$b.1 OPTIONS" "$d/man" >>"$FAIL" ||
			    bad "$b: --help and man/$b.1 differ (above)"
		else
			bad "man/$b.1: missing"
		fi
		for sh in bash zsh fish; do
			if completion_options "$sh" "$b" >"$d/$sh" 2>"$d/$sh.err"; then
				same_set "$b --help" "$d/help" "$sh completion" "$d/$sh" >>"$FAIL" ||
				    bad "$b: --help and the $sh completion differ (above)"
			else
				bad "$b: $sh completion: $(cat "$d/$sh.err")"
			fi
		done
	done
	report
}

@test "every option --help lists is one the binary accepts" {
	for b in $BINS; do
		opts=$(help_options "$b") || { bad "$b: cannot read --help"; continue; }
		# How the binary reports an option it does not know, per form.
		unknown_long=$("$b" --zz-unknown-option 2>&1 >/dev/null </dev/null | head -n 1)
		short=
		for c in Z z Y y X x W w; do
			printf '%s\n' "$opts" | grep -qx -- "-$c" || { short=$c; break; }
		done
		unknown_short=$("$b" "-$short" 2>&1 >/dev/null </dev/null | head -n 1)
		for o in $opts; do
			case $o in
			--*) want=${unknown_long//--zz-unknown-option/$o} ;;
			-?) want=${unknown_short//"'$short'"/"'${o#-}'"} ;;
			*) bad "$b: odd option '$o' in --help"; continue ;;
			esac
			got=$(timeout 10 "$b" "$o" 2>&1 >/dev/null </dev/null | head -n 1)
			[ "$got" = "$want" ] && bad "$b: rejects $o, which --help lists: $got"
		done
	done
	report
}

@test "the man page SYNOPSIS says what the --help usage says" {
	for b in $BINS; do
		[ -f "man/$b.1" ] || { bad "man/$b.1: missing"; continue; }
		# Usage lines: "Usage: NAME ..." and "   or: NAME ..." up to a blank.
		"$b" --help | awk -v name="$b" '
			/^$/ { exit }
			{
				sub(/^[ \t]*(Usage|or):[ \t]*/, "")
				if (index($0, name " ") == 1 || $0 == name) {
					gsub(/[ \t]+/, " ")
					sub(/ $/, "")
					print
				}
			}' >"$BATS_TEST_TMPDIR/usage"
		[ -s "$BATS_TEST_TMPDIR/usage" ] || bad "$b --help: no 'Usage: $b ...' line"
		extract synopsis name="$b" "man/$b.1" >"$BATS_TEST_TMPDIR/synopsis" ||
		    bad "man/$b.1: cannot read the SYNOPSIS"
		same_set "$b --help usage" "$BATS_TEST_TMPDIR/usage" "man/$b.1 SYNOPSIS" \
		    "$BATS_TEST_TMPDIR/synopsis" >>"$FAIL" ||
		    bad "$b: --help usage and man/$b.1 SYNOPSIS differ (above)"
	done
	report
}

@test "every man page renders without warnings and has the shared sections" {
	command -v groff >/dev/null || { echo "groff is not installed (make deps)"; return 1; }
	version=$(make_version)
	for b in $BINS; do
		m="man/$b.1"
		[ -f "$m" ] || { bad "$m: missing"; continue; }
		warn=$(groff -t -man -ww -z -Tutf8 "$m" 2>&1)
		[ -z "$warn" ] || bad "$m: groff warns: $warn"
		extract sections "$m" >"$BATS_TEST_TMPDIR/sections" || bad "$m: cannot read the sections"
		for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES "SEE ALSO"; do
			grep -qx "$s" "$BATS_TEST_TMPDIR/sections" || bad "$m: no $s section"
		done
		mapfile -t th < <(extract th "$m")
		up=$(printf '%s' "$b" | tr '[:lower:]' '[:upper:]')
		[ "${th[0]:-}" = "$up" ] || bad "$m: .TH names '${th[0]:-}', not '$up'"
		[ "${th[1]:-}" = 1 ] || bad "$m: .TH section '${th[1]:-}', not 1"
		[ "${th[3]:-}" = "harmony $version" ] ||
		    bad "$m: .TH source '${th[3]:-}', not 'harmony $version' (the Makefile's VERSION)"
		grep -q "^$b \\\\- " "$m" || bad "$m: no NAME line '$b \\- ...'"
	done
	report
}

@test "the extractors read what they should (self-test)" {
	f="$BATS_TEST_TMPDIR/t.1"
	cat >"$f" <<'EOF'
.TH T 1
.SH OPTIONS
.TP
.BR \-a ", " \-\-all
all
.TP
\fB\-\-to\fR=\fIFORMAT\fR
to \-\-not\-this
.TQ
.BI \-\-from= F
.IP "\fB\-x\fR" 4
x
.SH EXAMPLES
.EX
not an example
.EE
.EX
$ printf \(aq%s\en\(aq a\e
> b |
> cat
ab
\&.dot \[u00E9]
.EE
EOF
	run extract options "$f"
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]}" | sort | tr '\n' ' ')" = "--all --from --to -a -x " ]
	run extract examples "$f"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "E 18" ]
	[ "${lines[1]}" = "C printf '%s\n' a\\" ]
	[ "${lines[2]}" = "C b |" ]
	[ "${lines[3]}" = "C cat" ]
	[ "${lines[4]}" = "O ab" ]
	[ "${lines[5]}" = "O .dot é" ]
	[ "${#lines[@]}" -eq 6 ]
	printf '.SH EXAMPLES\n.EX\n$ echo \\s+2x\n.EE\n' >"$f"
	run extract examples "$f"
	[ "$status" -eq 1 ]
	[[ $output == *"unsupported escape"* ]]
	printf '  -a, --all     all; not --this\n      --to=FMT  x\n  --x-y\tz\nUsage: -q\n' >"$f"
	run extract help <"$f"
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]}" | tr '\n' ' ')" = "-a --all --to --x-y " ]
}
