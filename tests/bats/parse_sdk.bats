#!/usr/bin/env bats
# parse_sdk.bats - harmony-parse's chat, chat-stream, responses and
# responses-stream output against the openai SDK's TypeScript types
# (tests/sdk/check.sh).  Skipped only when node, npm or the packages
# cannot be had.

# Both tests use check.sh's one package cache and work directory: under
# bats --jobs they run one after the other.
setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export BIN=${HM_BIN:-bin}
}

@test "chat and responses output has the openai SDK's types" {
	run tests/sdk/check.sh
	[ "$status" -ne 77 ] || skip "$output"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" =~ ^"sdk check: "([0-9]+)" outputs match the types of openai@" ]]
	[ "${BASH_REMATCH[1]}" -ge 100 ]
}

@test "the SDK type check catches a misspelt field" {
	run tests/sdk/check.sh --broken
	[ "$status" -ne 77 ] || skip "$output"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"'\"callid\"' does not exist in type"* ]]
}
