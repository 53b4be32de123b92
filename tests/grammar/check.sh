#!/bin/sh
# tests/grammar/check.sh - harmony-tools grammar checked by real engines.
#
#   tests/grammar/check.sh engine   XGrammar (npm @mlc-ai/web-xgrammar, WebAssembly
#                                   under node) takes the ebnf, gbnf and
#                                   structural-tag grammars token by token
#   tests/grammar/check.sh lark     python3-lark parses the lark grammars
#
# Run from the repository root after make; BIN names the tools (default
# bin).  The grammars and completions are tests/grammar/cases.py's.  The
# package is installed with npm into $GRAMMAR_CACHE (tests/grammar/.cache)
# on first use, as tests/sdk/npm.sh installs the SDKs.  Exit 77 (skipped,
# never passed) with the reason on the first line when node, npm, the
# package or lark cannot be had; npm's own last lines follow.
# HM_GRAMMAR_BREAK=1: every completion is expected to be accepted, so
# the check must fail on each non-compliant one (the check can fail).
set -u
XGRAMMAR_VERSION=${XGRAMMAR_VERSION:-0.1.27}
root=$(pwd)
cache=${GRAMMAR_CACHE:-$root/tests/grammar/.cache}
BIN=${BIN:-bin}
what=${1:-engine}

skip() {
	echo "grammar $what check skipped: $*"
	[ -z "${detail-}" ] || sed 's/^/npm: /' "$detail" | tail -n 20
	exit 77
}

xgrammar_install() {
	command -v node >/dev/null 2>&1 || skip "node is not installed"
	pkg="@mlc-ai/web-xgrammar@$XGRAMMAR_VERSION"
	if [ "$(cat "$cache/stamp" 2>/dev/null)" = "$pkg" ] &&
	    [ -f "$cache/node_modules/@mlc-ai/web-xgrammar/lib/index.js" ]; then
		return 0
	fi
	command -v npm >/dev/null 2>&1 || skip "npm is not installed"
	mkdir -p "$cache"
	[ -f "$cache/package.json" ] || echo '{"private":true}' >"$cache/package.json"
	# one attempt, no retry: a registry out of reach fails in 30 s
	if ! npm install --prefix "$cache" --no-audit --no-fund --loglevel=error \
	    --fetch-retries=0 --fetch-timeout=30000 "$pkg" >"$cache/npm.log" 2>&1; then
		err=$(grep -m 1 -iE 'npm (ERR!|error) (code|errno|network)?' "$cache/npm.log" |
			sed 's/^npm \(ERR!\|error\) *//')
		detail=$cache/npm.log
		skip "npm could not install $pkg${err:+: $err}"
	fi
	echo "$pkg" >"$cache/stamp"
}

case $what in
engine) xgrammar_install ;;
lark) /usr/bin/python3 -c 'import lark' 2>/dev/null || skip "python3-lark is not installed" ;;
*) echo "usage: tests/grammar/check.sh engine|lark" >&2; exit 2 ;;
esac

out=$(mktemp -d) || exit 3
trap 'rm -rf "$out"' EXIT
python3 tests/grammar/cases.py "$BIN" "$out" || exit 1
if [ "$what" = engine ]; then
	node tests/grammar/engine.js "$cache" vocab/o200k_base.tiktoken "$out/cases.ndjson"
else
	/usr/bin/python3 tests/grammar/lark_check.py "$out/lark.ndjson"
fi
