#!/usr/bin/env bats
# docs.bats - keeps --help, the man pages and the shell completions of every
# binary in bin/ (and every name in the Makefile's BINS) from drifting apart
# (options, commands, and the values offered for options), and checks the
# shared option conventions of CLI.md.
#
# Each test covers all binaries and reports every one that fails, so a
# missing binary, man page or completion file is a failure, never a skip.
# Needs groff (groff-base), zsh and fish: the completion files are loaded by
# the real shells (tests/lib/completion-options, tests/lib/completion-values).

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

# The commands NAME --help lists under "Commands:", sorted: the first word
# of each line indented by two (deeper lines go on describing one).
help_commands() {
	"$1" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on && /^  [^ ]/ { print $1 }' |
	    LC_ALL=C sort -u
}

# The values (or, for WHAT "command", the commands) the SHELL completion of
# NAME offers after NAME WORD..., sorted.
completion_values() {
	local shell=$1 name=$2 file
	shift 2
	case $shell in
	bash) file=$ROOT/completions/$name.bash ;;
	zsh) file=$ROOT/completions/_$name ;;
	fish) file=$ROOT/completions/$name.fish ;;
	esac
	"$ROOT/tests/lib/completion-values" "$shell" "$file" "$name" "$@"
}

@test "--help, the man page and the bash, zsh and fish completions list the same commands" {
	for b in $BINS; do
		d="$BATS_TEST_TMPDIR/$b"
		mkdir -p "$d"
		help_commands "$b" >"$d/help"
		extract commands "man/$b.1" | LC_ALL=C sort -u >"$d/man" ||
		    bad "man/$b.1: cannot read the COMMANDS section"
		same_set "$b --help Commands" "$d/help" "man/$b.1 COMMANDS" "$d/man" >>"$FAIL" ||
		    bad "$b: --help and man/$b.1 list different commands (above)"
		# A binary without commands completes files (none here) as its operand.
		for sh in bash zsh fish; do
			if completion_values "$sh" "$b" command >"$d/$sh" 2>"$d/$sh.err"; then
				same_set "$b --help Commands" "$d/help" "$sh completion" "$d/$sh" >>"$FAIL" ||
				    bad "$b: --help and the $sh completion offer different commands (above)"
			else
				bad "$b: $sh completion: $(cat "$d/$sh.err")"
			fi
		done
	done
	report
}

# Does NAME take `--OPT=VALUE` after WORD... (a command)?  Usage errors
# (exit status 2) say no; bad or empty input (exit 1) says yes.
takes() {
	local st=0
	timeout 10 env -C "$BATS_TEST_TMPDIR" "$@" </dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/takes.err" || st=$?
	[ "$st" -ne 2 ]
}

@test "the completions offer the same values for each option, values the binary takes and the man page names" {
	for b in $BINS; do
		d="$BATS_TEST_TMPDIR/$b"
		mkdir -p "$d"
		cmds=$(help_commands "$b")
		vopts=$("$b" --help | grep -oE -- '--[a-z][-a-z]*=' | tr -d = | LC_ALL=C sort -u)
		[ -n "$vopts" ] || bad "$b --help: no option with a value"
		man=$(sed -e 's/\\-/-/g' -e 's/\\(aq/'"'"'/g' "man/$b.1")
		offered=0 taken=
		unset named
		declare -A named     # the values already looked for in the man page
		# every question to a shell in one run of it: answer k in $d/SHELL.k
		for o in $vopts; do
			for c in "" $cmds; do
				echo "$o${c:+ $c}"
			done
		done >"$d/questions"
		for sh in bash zsh fish; do
			completion_values "$sh" "$b" --batch <"$d/questions" >"$d/$sh.all" 2>"$d/$sh.err" ||
			    bad "$b: $sh completion: $(cat "$d/$sh.err")"
			awk -v f="$d/$sh." 'BEGIN { k = 1; printf "" > (f k) } /^$/ { close(f k); k++; printf "" > (f k); next } { print > (f k) }' "$d/$sh.all"
		done
		k=0
		for o in $vopts; do
			any=0
			for c in "" $cmds; do
				k=$((k + 1))
				# (read without a process each: this loop runs a few hundred times)
				for sh in bash zsh fish; do
					[ -f "$d/$sh.$k" ] || bad "$b $c $o: no $sh answer"
					IFS= read -rd '' "ans_$sh" <"$d/$sh.$k" || true
				done
				for sh in zsh fish; do
					a="ans_$sh"
					[ "$ans_bash" = "${!a}" ] ||
					    same_set "bash: $b $c $o" "$d/bash.$k" "$sh: $b $c $o" "$d/$sh.$k" >>"$FAIL" ||
					    bad "$b $c $o: the bash and $sh completions offer different values (above)"
				done
				[ -n "$ans_bash" ] || continue
				offered=$((offered + 1)) any=1
				while IFS= read -r v; do
					# a list value (browser,python) is named part by part
					for part in ${v//,/ }; do
						[ -z "${named[$o $part]:-}" ] || continue
						named[$o $part]=1
						[[ $man =~ (^|[^[:alnum:]_])"$part"($|[^[:alnum:]_]) ]] ||
						    bad "$b $o: man/$b.1 never names '$part'"
					done
				done <"$d/bash.$k"
				# Where the option applies (with a command, if the binary has
				# commands) the values offered are taken; a usage error that
				# says the option goes with other commands only, or where no
				# value is taken (result needs --name first), it does not
				# apply there.
				[ -n "$cmds" ] && [ -z "$c" ] && continue
				: >"$d/refused"
				here=0
				# an option that applies only beside another gets that one
				# too (a schema file that is no schema: exit 1, not 2)
				with=
				case "$b $o" in
				"harmony-tools --formats" | "harmony-parse --formats") with=--schema=/dev/null ;;
				esac
				while IFS= read -r v; do
					# shellcheck disable=SC2086
					if takes "$b" $c $with "$o=$v"; then
						taken="$taken $o" here=1
					else
						IFS= read -r err <"$BATS_TEST_TMPDIR/takes.err" || true
						[[ $err =~ "$o "(goes with|does not apply) ]] ||
						    printf '%s: %s\n' "$v" "$err" >>"$d/refused"
					fi
				done <"$d/bash.$k"
				if [ "$here" -eq 1 ]; then
					while IFS= read -r r; do
						bad "$b $c $o=$r (offered, but a usage error)"
					done <"$d/refused"
				fi
			done
			case " $taken " in
			*" $o "*) ;;
			*) [ "$any" -eq 0 ] || bad "$b $o: no command takes the values the completions offer" ;;
			esac
		done
		[ "$offered" -gt 0 ] || bad "$b: the completions offer no option values at all"
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

@test "docs/architecture.md's module map names every file of lib/ and cmd/" {
	# names as the map writes them, a {a,b} group expanded
	grep -o '`[^`]*\.[ch]`' docs/architecture.md | tr -d '`' |
	    sed 's|^lib/||; s|^cmd/||' >"$BATS_TEST_TMPDIR/named"
	while read -r n; do
		case $n in
		*'{'*) eval "printf '%s\n' $n" ;;
		*) printf '%s\n' "$n" ;;
		esac
	done <"$BATS_TEST_TMPDIR/named" | sort -u >"$BATS_TEST_TMPDIR/map"
	missing=$( (cd lib && ls *.c; cd ../cmd && ls *.c) | sort -u | comm -23 - "$BATS_TEST_TMPDIR/map")
	[ -z "$missing" ] || { echo "not in docs/architecture.md: $missing"; return 1; }
}
