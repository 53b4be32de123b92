#!/usr/bin/env bats
# parse_sdk.bats - harmony-parse's chat, chat-stream, responses,
# responses-stream, anthropic and anthropic-stream output against the
# TypeScript types of the openai and @anthropic-ai/sdk packages
# (tests/sdk/check.sh), and the real clients of both reading the streams
# over loopback HTTP (tests/sdk/clients.sh).  Skipped (never passed) only
# when node, npm or the packages cannot be had (npm's error is shown then),
# and under tests/sanitize.

# Both tests use check.sh's one package cache and work directory: under
# bats --jobs they run one after the other.
setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
}

setup() {
	# Under tests/sanitize: the clients read the bytes the normal build
	# writes, made by code the other tests run under the sanitizers; two
	# thousand sanitized runs would only add minutes.
	[ -z "${HM_SANITIZE-}" ] || skip "the SDK checks run in make check, not under the sanitizers"
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export BIN=${HM_BIN:-bin}
}

@test "chat, responses and anthropic output has the SDKs' types" {
	run tests/sdk/check.sh
	[ "$status" -ne 77 ] || skip "$output"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" =~ ^"sdk check: "([0-9]+)" outputs match the types of openai@".*" @anthropic-ai/sdk@" ]]
	[ "${BASH_REMATCH[1]}" -ge 100 ]
}

@test "the SDK type check catches a misspelt field, in each SDK" {
	run tests/sdk/check.sh --broken
	[ "$status" -ne 77 ] || skip "$output"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"'\"callid\"' does not exist in type"* ]]
	[[ "$output" == *"'\"stopsequence\"' does not exist in type 'Message'"* ]]
}

@test "the real SDK clients assemble from the streams what the non-stream shapes say" {
	run tests/sdk/clients.sh
	[ "$status" -ne 77 ] || skip "$output"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" =~ ^"sdk clients: "([0-9]+)" completions, "([0-9]+)" streams assembled" ]]
	# every fixture and log record, each through the three clients
	[ "${BASH_REMATCH[1]}" -ge 100 ]
	[ "${BASH_REMATCH[2]}" -eq $((BASH_REMATCH[1] * 3)) ]
}

@test "a stream that differs from its non-stream shape fails the client check" {
	run env HM_SDK_BREAK=1 tests/sdk/clients.sh
	[ "$status" -ne 77 ] || skip "$output"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"assembles another object than --to anthropic"* ]]
}

# The agent loop (issue 34): here, beside the other SDK tests, as they
# share the package cache (one npm install, never two at once).
@test "the SDK agent loop: every tool-call turn's next prompt extends prompt + completion, all header forms, whole, raw stream, helper" {
	run tests/sdk/loop.sh
	[ "$status" -ne 77 ] || skip "$output"
	echo "$output"
	[ "$status" -eq 0 ]
	# 3 dialects x (whole, raw stream, helper stream) x 4 header forms x 2
	# tool-call turns as returned; reasoning dropped (3 x 4 x 2, the store);
	# previous_response_id (4 x 2)
	[[ "${lines[-1]}" =~ ^"sdk loop: 104 of 104 tool-call turns token-exact, 104 call ids all distinct, 208 requests" ]]
}

@test "the SDK agent loop fails without the turn's ids and the store" {
	run env HM_LOOP_PLAIN=1 tests/sdk/loop.sh
	[ "$status" -ne 77 ] || skip "$output"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *" of 104 tool-call turns token-exact"* ]]
	[[ "$output" != *"104 of 104 tool-call turns"* ]]
}
