# helpers.bash - shared by the doc tests (load helpers).
# The extractors live in tests/lib/; these wrap them per binary.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
EXTRACT="$ROOT/tests/lib/extract.awk"
# The tools under test: bin/, or another build's (tests/run's HM_BIN).
BIN=${HM_BIN:-$ROOT/bin}

# Every test runs from the repo root with bin/ first on PATH, so that
# messages name the program as a user sees it ("harmony-tokens: ...").
hm_setup() {
	cd "$ROOT" || return 1
	export PATH="$BIN:$PATH"
	export LC_ALL=C
	unset NO_COLOR
}

# The version the Makefile builds.
make_version() {
	sed -n 's/^VERSION[ \t]*=[ \t]*//p' "$ROOT/Makefile"
}

# The binaries to check: every executable in bin/ and every name in the
# Makefile's BINS.  A BINS name not built is an error, not a skip.
binaries() {
	local b names
	names=$(sed -n 's/^BINS[ \t]*=[ \t]*//p' "$ROOT/Makefile")
	for b in $names; do
		if [ ! -x "$BIN/$b" ]; then
			echo "$BIN/$b is missing: run make first" >&2
			return 1
		fi
	done
	{
		printf '%s\n' $names
		for b in "$BIN"/*; do
			[ -f "$b" ] && [ -x "$b" ] && printf '%s\n' "${b##*/}"
		done
	} | sort -u | grep . || {
		echo "no binaries in $BIN: run make first" >&2
		return 1
	}
}

# The extractor in MODE over [VAR=VALUE]... [FILE].
extract() {
	local mode=$1
	shift
	LC_ALL=C awk -v mode="$mode" -f "$EXTRACT" "$@"
}

# The options NAME --help lists, sorted.
help_options() {
	"$1" --help | extract help | LC_ALL=C sort -u
}

# The options the OPTIONS section of man/NAME.1 tags, sorted.
man_options() {
	extract options "$ROOT/man/$1.1" | LC_ALL=C sort -u
}

# The options the SHELL completion of NAME offers, sorted.
completion_options() {
	local shell=$1 name=$2 file
	case $shell in
	bash) file=$ROOT/completions/$name.bash ;;
	zsh) file=$ROOT/completions/_$name ;;
	fish) file=$ROOT/completions/$name.fish ;;
	esac
	"$ROOT/tests/lib/completion-options" "$shell" "$file" "$name"
}

# diff two option lists; on a difference print it with labels.
same_set() {
	local label_a=$1 a=$2 label_b=$3 b=$4
	if ! diff -u --label "$label_a" --label "$label_b" "$a" "$b"; then
		return 1
	fi
}

# make check-lite (HM_LITE=1) installs neither the browser nor Node.js:
# the tests that need them skip, saying so, even where they are there.
lite_skip() { # WHAT
	[ -z "${HM_LITE-}" ] || skip "make check-lite leaves out $1 (make check runs them)"
}

# For the memory tests (tokens_memory.bats, parse_memory.bats): whether
# the tool PROG on PATH is a sanitizer build, which keeps shadow memory and
# quarantines frees, so that its memory has no bound to check.
hm_sanitized() {
	ldd "$(command -v "$1")" 2>/dev/null | grep -q 'lib[at]san' ||
	    nm "$(command -v "$1")" 2>/dev/null | grep -q '__asan_init'
}

# The peak RSS in KiB of "$@" (stdout to /dev/null; GNU time, into $TMP).
hm_peak() {
	/usr/bin/time -f %M -o "$TMP/rss" "$@" >/dev/null
	tail -n 1 "$TMP/rss"
}

# The lower of two hm_peak runs of "$@": a peak can be a huge page (2 MiB)
# higher for the kernel's timing alone (transparent huge pages set to
# "always", khugepaged folding pages of a longer run), not for the program.
hm_peak_min() {
	local a b
	a=$(hm_peak "$@")
	b=$(hm_peak "$@")
	[ "$a" -le "$b" ] && echo "$a" || echo "$b"
}
