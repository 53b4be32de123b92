# faults_helpers.bash - shared by the fault-injection tests (load it):
# sweep runs tests/faults/sweep over one command (every allocation of it
# failed in turn, under build/tests/failmalloc.so) and fails the test,
# showing the sweep's report, when any run crashed, hung or lost output
# without saying "out of memory" (exit 3).

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C
	[ -f build/tests/failmalloc.so ] || {
		echo "build/tests/failmalloc.so missing: make unit builds it" >&2
		return 1
	}
}

# sweep [--after] [--stdin FILE] COMMAND [ARG]...
sweep() {
	local opts=()
	while [ "$1" = --after ] || [ "$1" = --stdin ]; do
		if [ "$1" = --stdin ]; then opts+=("$1" "$2"); shift 2; else opts+=("$1"); shift; fi
	done
	local out
	if ! out=$(python3 tests/faults/sweep "${opts[@]}" -- "$@" 2>&1); then
		echo "$* ${opts[*]}: $out" >&2
		return 1
	fi
	# an undisturbed run that allocates nothing tests nothing
	case $out in "ok 0 allocations") echo "$*: no allocation" >&2; return 1 ;; esac
}
