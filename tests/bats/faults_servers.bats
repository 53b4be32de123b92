#!/usr/bin/env bats
# faults_servers.bats - fault injection into harmony-parse reading what
# servers send (faults.bats says how): every whole response of
# fixtures/servers/, and streams of each kind (an SSE stream of chat
# chunks, of completions, with an error event, Triton's).

load faults_helpers

@test "faults: harmony-parse, every server's whole response" {
	local f
	for f in fixtures/servers/*.json fixtures/servers/*.ndjson; do
		sweep harmony-parse --to chat "$f"
	done
}

@test "faults: harmony-parse, server streams" {
	sweep harmony-parse --to chat fixtures/servers/llamacpp-completion.sse
	sweep harmony-parse --to chat fixtures/servers/triton-generate-stream.sse
	sweep harmony-parse --to chat fixtures/servers/error-then-stream.sse
	sweep harmony-parse --to anthropic-stream fixtures/servers/vllm-chat.sse
	sweep harmony-parse --to responses-stream fixtures/servers/vllm-chat.sse
	# a usage chunk after the finish: held END, late members, the writer taking them
	sweep harmony-parse --to chat-completion fixtures/servers/vllm-completions.sse
	sweep harmony-parse --to anthropic-stream fixtures/servers/ollama-chat.ndjson
}
