# tests/sdk/npm.sh - sourced by check.sh and clients.sh: the pinned npm
# packages, installed into $cache (tests/sdk/.cache) on first use.
#
# Sets root, sdk, cache, stamp.  skip MESSAGE exits 77 (the test is
# counted as skipped, never as passed), MESSAGE on the first line of the
# output; when npm fails, its own last lines follow.
#
# npm is tried once a bats run: a failed install is noted in
# $BATS_RUN_TMPDIR (shared by the tests of one bats file), and the tests
# after it skip with the same reason without calling npm again.
OPENAI_VERSION=${OPENAI_VERSION:-6.49.0}
ANTHROPIC_VERSION=${ANTHROPIC_VERSION:-1.14.0}
TYPESCRIPT_VERSION=${TYPESCRIPT_VERSION:-5.9.3}
root=$(pwd)
sdk=tests/sdk
cache=${SDK_CACHE:-$root/$sdk/.cache}
stamp="openai@$OPENAI_VERSION @anthropic-ai/sdk@$ANTHROPIC_VERSION typescript@$TYPESCRIPT_VERSION"

skip() {
	echo "sdk check skipped: $*"
	[ -z "${skip_detail-}" ] || sed 's/^/npm: /' "$skip_detail" | tail -n 20
	exit 77
}

sdk_install() {
	[ -z "${HM_LITE-}" ] || skip "make check-lite leaves out the tests that need Node.js and npm (make check runs them)"
	command -v node >/dev/null 2>&1 || skip "node is not installed"
	command -v npm >/dev/null 2>&1 || skip "npm is not installed"
	if [ "$(cat "$cache/stamp" 2>/dev/null)" = "$stamp" ] &&
	    [ -x "$cache/node_modules/.bin/tsc" ] &&
	    [ -f "$cache/node_modules/openai/package.json" ] &&
	    [ -f "$cache/node_modules/@anthropic-ai/sdk/package.json" ]; then
		return 0
	fi
	failed=${BATS_RUN_TMPDIR:+$BATS_RUN_TMPDIR/sdk-npm-failed}
	if [ -n "$failed" ] && [ -f "$failed" ]; then
		skip "$(cat "$failed") (npm tried once in this run, by the first SDK test)"
	fi
	mkdir -p "$cache"
	[ -f "$cache/package.json" ] || echo '{"private":true}' >"$cache/package.json"
	# one attempt, no retry: a registry out of reach fails in 30 s
	if ! npm install --prefix "$cache" --no-audit --no-fund --loglevel=error \
	    --fetch-retries=0 --fetch-timeout=30000 \
	    "openai@$OPENAI_VERSION" "@anthropic-ai/sdk@$ANTHROPIC_VERSION" \
	    "typescript@$TYPESCRIPT_VERSION" >"$cache/npm.log" 2>&1; then
		# npm's own words: why the registry or the install failed (its
		# first error line in the reason, its last lines after it).
		err=$(grep -m 1 -iE 'npm (ERR!|error) (code|errno|network)?' "$cache/npm.log" |
			sed 's/^npm \(ERR!\|error\) *//')
		reason="npm could not install $stamp${err:+: $err}"
		[ -z "$failed" ] || echo "$reason" >"$failed"
		skip_detail=$cache/npm.log
		skip "$reason"
	fi
	echo "$stamp" >"$cache/stamp"
}
