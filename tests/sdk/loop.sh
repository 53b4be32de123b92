#!/bin/sh
# tests/sdk/loop.sh - the agent loop through the real SDK clients (openai
# Chat Completions and Responses, @anthropic-ai/sdk Messages) over loopback
# HTTP against a server made of the tools: tests/sdk/loop.mjs says what it
# runs and checks.
#
# HM_LOOP_PLAIN=1 runs the server without --with-tokens and --store (as
# before the turn's ids rode along): the check must fail.
# Exit status: 0 every tool-call turn token-exact and no error, 1 not,
# 2 not built, 77 skipped (no node/npm, or the packages could not be
# installed).
set -eu
cd "$(dirname "$0")/../.."
. tests/sdk/npm.sh
bin=${BIN:-bin}
for t in harmony-render harmony-parse harmony-tokens; do
	[ -x "$bin/$t" ] || { echo "loop.sh: $bin/$t missing: run make first" >&2; exit 2; }
done
sdk_install
work=$cache/loop
rm -rf "$work"
mkdir -p "$work"
cp "$sdk/loop.mjs" "$cache/loop.mjs"
case $bin in
/*) ;;
*) bin=$root/$bin ;;
esac
if ! node "$cache/loop.mjs" "$bin" "$work" >"$work/log" 2>&1; then
	cat "$work/log"
	echo "sdk loop: not every tool-call turn is token-exact ($stamp)"
	exit 1
fi
echo "sdk loop: $(tail -n 1 "$work/log") ($stamp)"
