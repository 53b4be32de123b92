# tests/sdk/npm.sh - sourced by check.sh and clients.sh: the pinned npm
# packages, installed into $cache (tests/sdk/.cache) on first use.
#
# Sets root, sdk, cache, stamp.  skip MESSAGE exits 77 (the test is
# counted as skipped, never as passed); when npm fails, its own output is
# shown before.
OPENAI_VERSION=${OPENAI_VERSION:-6.49.0}
ANTHROPIC_VERSION=${ANTHROPIC_VERSION:-1.14.0}
TYPESCRIPT_VERSION=${TYPESCRIPT_VERSION:-5.9.3}
root=$(pwd)
sdk=tests/sdk
cache=${SDK_CACHE:-$root/$sdk/.cache}
stamp="openai@$OPENAI_VERSION @anthropic-ai/sdk@$ANTHROPIC_VERSION typescript@$TYPESCRIPT_VERSION"

skip() {
	echo "sdk check skipped: $*"
	exit 77
}

sdk_install() {
	command -v node >/dev/null 2>&1 || skip "node is not installed"
	command -v npm >/dev/null 2>&1 || skip "npm is not installed"
	if [ "$(cat "$cache/stamp" 2>/dev/null)" = "$stamp" ] &&
	    [ -x "$cache/node_modules/.bin/tsc" ] &&
	    [ -f "$cache/node_modules/openai/package.json" ] &&
	    [ -f "$cache/node_modules/@anthropic-ai/sdk/package.json" ]; then
		return 0
	fi
	mkdir -p "$cache"
	[ -f "$cache/package.json" ] || echo '{"private":true}' >"$cache/package.json"
	if ! npm install --prefix "$cache" --no-audit --no-fund --loglevel=error \
	    --fetch-retries=1 --fetch-timeout=30000 \
	    "openai@$OPENAI_VERSION" "@anthropic-ai/sdk@$ANTHROPIC_VERSION" \
	    "typescript@$TYPESCRIPT_VERSION" >"$cache/npm.log" 2>&1; then
		# npm's own words: why the registry or the install failed.
		sed 's/^/npm: /' "$cache/npm.log" | tail -n 20
		skip "npm could not install $stamp"
	fi
	echo "$stamp" >"$cache/stamp"
}
