#!/usr/bin/env bats
# Set-up as a newcomer meets it: tools/install-deps without root, the
# package sets of make demo and make check, ldconfig after make install.

setup() {
	cd "$BATS_TEST_DIRNAME/../.."
	# the set this run's make installed: make check-lite's has no browser
	# and no Node.js, so they would be missing from the test set here
	TESTSET=test
	[ -z "${HM_LITE-}" ] || TESTSET=lite
}

teardown() {
	[ -z "${fake:-}" ] || rm -rf "$fake"
}

# A scratch directory readable by anyone, in $fake, so that nobody can use
# it too even where the checkout is not (a clone in root's 0700 home):
# $fake/bin holds every command on PATH but those named (and promtool where
# the machine has it, which nobody might not reach in build/deps), and
# $fake/tools/install-deps is a copy of the script, run from $fake.
path_without() {
	local d f
	fake=$(mktemp -d /tmp/hm-deps.XXXXXX)
	chmod 755 "$fake"
	mkdir -m 755 "$fake/bin" "$fake/tools"
	cp tools/install-deps "$fake/tools/install-deps"
	chmod 755 "$fake/tools/install-deps"
	# one ln a directory (a process per command is slow); a name already
	# linked from an earlier directory stays, as on PATH
	for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
		[ -d "$d" ] && ! [ -L "$d" ] || continue
		ln -s "$d"/* "$fake/bin"/ 2>/dev/null || true
	done
	if [ ! -e "$fake/bin/promtool" ] && [ -x build/deps/bin/promtool ]; then
		printf '#!/bin/sh\nexit 0\n' >"$fake/bin/promtool"
		chmod 755 "$fake/bin/promtool"
	fi
	for f in "$@"; do
		rm -f "$fake/bin/$f"
	done
}

in_fake() { # COMMAND...: run from $fake
	cd "$fake" && "$@"
}

# tools/install-deps SET as an ordinary user (nobody when we are root), with
# PATH=$fake/bin, from the copy in $fake.
deps_as_user() {
	if [ "$(id -u)" -eq 0 ]; then
		run in_fake setpriv --reuid=nobody --regid=nogroup --clear-groups \
		    env PATH="$fake/bin" /bin/sh tools/install-deps "$@"
	else
		run in_fake env PATH="$fake/bin" /bin/sh tools/install-deps "$@"
	fi
}

@test "install-deps: not root, nothing missing: succeeds silently, for both sets" {
	if [ "$(id -u)" -eq 0 ]; then command -v setpriv >/dev/null; fi
	path_without sudo
	for s in build "$TESTSET"; do
		deps_as_user "$s"
		[ "$status" -eq 0 ] || { echo "$s: $output"; false; }
		[ -z "$output" ]
	done
}

@test "install-deps: not root, no sudo, a test tool missing: names the packages and the command, fails" {
	path_without sudo jq zsh
	deps_as_user test
	[ "$status" -eq 1 ]
	[[ "$output" == *"missing for 'test': jq zsh"* ]]
	# each package with what it is for, before the command
	[[ "$output" == *"    jq "*"JSON compared"* ]]
	[[ "$output" == *"    zsh "*"zsh completions"* ]]
	[[ "$output" == *"apt-get install --no-install-recommends jq zsh"* ]]
	[[ "$output" != *sudo:* ]]
	# what the demo needs is all there: the build set still succeeds
	deps_as_user build
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "install-deps: the build set is the compiler, make and libcjson-dev only" {
	path_without sudo cc make bats jq parallel clang
	deps_as_user build
	[ "$status" -eq 1 ]
	[[ "$output" == *"missing for 'build': gcc make"* ]]
	[[ "$output" != *bats* ]] && [[ "$output" != *clang* ]] && [[ "$output" != *parallel* ]]
	run tools/install-deps nonsense
	[ "$status" -eq 2 ]
}

@test "install-deps: clang and its runtimes are in the sanitize set, not in the test set" {
	path_without sudo clang jq
	rm -f "$fake"/bin/clang-[0-9]*
	deps_as_user "$TESTSET"
	[ "$status" -eq 1 ]
	[[ "$output" == *"missing for '$TESTSET': jq"* ]]
	[[ "$output" != *clang* ]]
	deps_as_user sanitize
	[ "$status" -eq 1 ]
	# (after the browser and Node.js where make check-lite left them out)
	[[ "$output" == *"missing for 'sanitize': jq "*clang* ]] || [[ "$output" == *"missing for 'sanitize': jq clang"* ]]
}

@test "install-deps -n: says what it would install and why, installs nothing" {
	path_without jq promtool
	run in_fake env PATH="$fake/bin" HM_DEPS_DIR="$BATS_TEST_TMPDIR/deps" /bin/sh tools/install-deps -n "$TESTSET"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "install-deps: would install for '$TESTSET': jq" ]]
	[[ "${lines[1]}" == "    jq "*"JSON compared" ]]
	# promtool is not had through the prometheus package (a server and
	# its service) when it is missing: it would be taken out of it
	[[ "${lines[0]}" != *prometheus* ]]
	# what it costs, as apt-get's simulation counts it (jq is there
	# already: nothing), or that apt-get update must run first to know
	[[ "${lines[2]}" =~ ^"install-deps: that is "[0-9]+" package" ]] ||
	    [[ "${lines[2]}" == "install-deps: the size is known once apt-get update has run"* ]]
	[[ "${lines[3]}" == *"would take promtool out of the prometheus package into $BATS_TEST_TMPDIR/deps/bin (not installed)" ]]
	[ "${#lines[@]}" -eq 4 ]
	[ ! -e "$BATS_TEST_TMPDIR/deps" ]
}

@test "install-deps lite: the test set without the browser and Node.js; make check-lite skips their tests" {
	path_without sudo node npm
	deps_as_user test
	[ "$status" -eq 1 ]
	[[ "$output" == *"missing for 'test': nodejs npm"* ]]
	deps_as_user lite
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run make -n check-lite
	[[ "$output" == *"install-deps lite"* ]]
	[[ "$output" == *"HM_LITE=1"* ]]
	# the tests that need them skip, saying so
	run env HM_LITE=1 bats --tap tests/bats/html.bats
	[ "$status" -eq 0 ]
	[[ "$output" == *"# skip make check-lite leaves out the browser tests"* ]]
	[[ "$output" != *"not ok"* ]]
	run env HM_LITE=1 sh -c '. tests/sdk/npm.sh; sdk_install'
	[ "$status" -eq 77 ]
	[[ "$output" == *"make check-lite leaves out the tests that need Node.js"* ]]
}

@test "make demo installs the build set, make check the test set, the hardening targets the sanitize set" {
	run make -n demo
	[[ "$output" == *"install-deps build"* ]]
	[[ "$output" != *"install-deps test"* ]]
	run make -n check
	[[ "$output" == *"install-deps test"* ]]
	[[ "$output" != *"install-deps sanitize"* ]]
	for t in sanitize fuzz; do
		run make -n "$t"
		[[ "$output" == *"install-deps sanitize"* ]] || { echo "$t: $output"; false; }
	done
}

# A fake ldconfig (and, for an ordinary user, a fake id saying root) that
# leaves a mark when run.
fake_ldconfig() {
	mkdir -p "$BATS_TEST_TMPDIR/fakebin"
	printf '#!/bin/sh\necho "$@" >> %s/ldconfig.ran\n' "$BATS_TEST_TMPDIR" > "$BATS_TEST_TMPDIR/fakebin/ldconfig"
	chmod +x "$BATS_TEST_TMPDIR/fakebin/ldconfig"
	if [ "$(id -u)" -ne 0 ]; then
		printf '#!/bin/sh\necho 0\n' > "$BATS_TEST_TMPDIR/fakebin/id"
		chmod +x "$BATS_TEST_TMPDIR/fakebin/id"
	fi
}

@test "make install into the system runs ldconfig; with DESTDIR it does not" {
	fake_ldconfig
	p="$BATS_TEST_TMPDIR/prefix"
	PATH="$BATS_TEST_TMPDIR/fakebin:$PATH" make -s install PREFIX="$p" >/dev/null
	[ -f "$p/lib/libharmony.so.1.0.0" ]
	[ -f "$BATS_TEST_TMPDIR/ldconfig.ran" ]
	rm "$BATS_TEST_TMPDIR/ldconfig.ran"
	PATH="$BATS_TEST_TMPDIR/fakebin:$PATH" make -s install PREFIX=/opt/hm DESTDIR="$BATS_TEST_TMPDIR/stage" >/dev/null
	[ -f "$BATS_TEST_TMPDIR/stage/opt/hm/lib/libharmony.so.1.0.0" ]
	[ ! -e "$BATS_TEST_TMPDIR/ldconfig.ran" ]
}
