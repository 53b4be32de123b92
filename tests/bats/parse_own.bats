#!/usr/bin/env bats
# parse_own.bats - a record's own fields win: its model, created,
# system_fingerprint, service_tier and usage counts are written where each
# API shape puts them; output tokens are what the parser counted, the
# record's own count kept beside (record_completion_tokens,
# record_output_tokens) where it differs; the defaults (gpt-oss, 0) only
# for what the record does not hold.

bats_require_minimum_version 1.5.0

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C
	T=$BATS_TEST_TMPDIR
	# 13 tokens, 6 of them reasoning (the analysis message, its stop token included)
	IDS='[200005,35644,200008,17958,13,200007,200006,173781,200005,17196,200008,19,200002]'
	# an OpenAI-style log record: every field, its completion count not the parser's
	OAI='{"id":"r1","model":"openai/gpt-oss-120b","created":1732400001,"system_fingerprint":"fp_7","service_tier":"flex","usage":{"prompt_tokens":120,"completion_tokens":9,"total_tokens":129,"prompt_tokens_details":{"cached_tokens":64}},"output_ids":'$IDS'}'
	# a Responses-style record: created_at, input_tokens, its output count the parser's
	RSP='{"id":"r2","model":"m2","created_at":5,"usage":{"input_tokens":7,"input_tokens_details":{"cached_tokens":3,"cache_write_tokens":1},"output_tokens":13},"output_ids":'$IDS'}'
	# an Anthropic-style text record
	ANT='{"id":"r3","model":"claude-x","usage":{"input_tokens":11,"cache_read_input_tokens":2,"cache_creation_input_tokens":4,"output_tokens":99,"service_tier":"priority"},"text":"<|channel|>final<|message|>4<|return|>"}'
	# nothing of its own: the defaults
	BARE='{"id":"r4","output_ids":'$IDS'}'
}

# The data of the SSE events on stdin, one JSON value a line.
data() {
	sed -n 's/^data: //p' | grep -v '^\[DONE\]$'
}

@test "own fields: chat-completion" {
	run harmony-parse --to chat-completion <<<"$OAI"
	[ "$status" -eq 0 ]
	jq -e '.model == "openai/gpt-oss-120b" and .created == 1732400001 and
	    .system_fingerprint == "fp_7" and .service_tier == "flex"' <<<"$output"
	[ "$(jq -c .usage <<<"$output")" = \
	    '{"prompt_tokens":120,"completion_tokens":13,"total_tokens":133,"completion_tokens_details":{"reasoning_tokens":6},"prompt_tokens_details":{"cached_tokens":64},"record_completion_tokens":9}' ]
	# one of each key: the record's own members are not repeated
	[ "$(jq -c '[keys_unsorted[] | select(. == "model" or . == "created" or . == "usage")] | length' <<<"$output")" = 3 ]
	[ "$(grep -o '"model"' <<<"$output" | wc -l)" -eq 1 ]
	# Responses-style counts in Chat's names; the record's output count equal: nothing beside
	run harmony-parse --to chat-completion <<<"$RSP"
	jq -e '.model == "m2" and .created == 5' <<<"$output"
	[ "$(jq -c .usage <<<"$output")" = \
	    '{"prompt_tokens":7,"completion_tokens":13,"total_tokens":20,"completion_tokens_details":{"reasoning_tokens":6},"prompt_tokens_details":{"cached_tokens":3}}' ]
	# a text record: usage all the same, the tokens its text encodes to
	run harmony-parse --to chat-completion <<<"$ANT"
	jq -e '.model == "claude-x" and .created == 0' <<<"$output"
	[ "$(jq -c .usage <<<"$output")" = \
	    '{"prompt_tokens":11,"completion_tokens":5,"total_tokens":16,"prompt_tokens_details":{"cached_tokens":2},"record_completion_tokens":99}' ]
	# the defaults for what the record does not hold; usage always
	run harmony-parse --to chat-completion <<<"$BARE"
	jq -e '.model == "gpt-oss" and .created == 0 and (has("system_fingerprint") | not)
	    and .usage == {"prompt_tokens":0,"completion_tokens":13,"total_tokens":13,"completion_tokens_details":{"reasoning_tokens":6}}' <<<"$output"
}

@test "own fields: chat (the bare choice has none of them)" {
	run harmony-parse --to chat <<<"$OAI"
	[ "$status" -eq 0 ]
	jq -e 'keys == ["finish_reason","index","logprobs","message"]' <<<"$output"
}

@test "own fields: chat-stream, in every chunk, and the record's usage as the last chunk" {
	harmony-parse --to chat-stream <<<"$OAI" >"$T/out"
	tail -n 2 "$T/out" | grep -qx 'data: \[DONE\]'
	data <"$T/out" >"$T/chunks"
	[ "$(wc -l <"$T/chunks")" -gt 4 ]
	# every chunk: the record's model, created, tier and fingerprint
	jq -e -s 'all(.[]; .model == "openai/gpt-oss-120b" and .created == 1732400001 and
	    .service_tier == "flex" and .system_fingerprint == "fp_7" and .object == "chat.completion.chunk")' "$T/chunks"
	# usage once, in a last chunk without choices, as include_usage sends it
	jq -e -s '[.[] | select(has("usage"))] | length == 1' "$T/chunks"
	[ "$(tail -n 1 "$T/chunks" | jq -c '[.choices, .usage]')" = \
	    '[[],{"prompt_tokens":120,"completion_tokens":13,"total_tokens":133,"completion_tokens_details":{"reasoning_tokens":6},"prompt_tokens_details":{"cached_tokens":64},"record_completion_tokens":9}]' ]
	# the usage chunk agrees with the whole chat.completion
	[ "$(tail -n 1 "$T/chunks" | jq -c .usage)" = "$(harmony-parse --to chat-completion <<<"$OAI" | jq -c .usage)" ]
	# a record without counts: no usage chunk, and the defaults
	harmony-parse --to chat-stream <<<"$BARE" | data >"$T/chunks"
	jq -e -s 'all(.[]; .model == "gpt-oss" and .created == 0 and (has("usage") | not)
	    and (has("service_tier") | not) and (has("system_fingerprint") | not))' "$T/chunks"
}

@test "own fields: responses" {
	run harmony-parse --to responses <<<"$OAI"
	[ "$status" -eq 0 ]
	jq -e '.model == "openai/gpt-oss-120b" and .created_at == 1732400001 and .service_tier == "flex"' <<<"$output"
	[ "$(jq -c .usage <<<"$output")" = \
	    '{"input_tokens":120,"input_tokens_details":{"cache_write_tokens":0,"cached_tokens":64},"output_tokens":13,"output_tokens_details":{"reasoning_tokens":6},"total_tokens":133,"record_output_tokens":9}' ]
	[ "$(grep -o '"model"' <<<"$output" | wc -l)" -eq 1 ]
	run harmony-parse --to responses <<<"$RSP"
	jq -e '.model == "m2" and .created_at == 5' <<<"$output"
	[ "$(jq -c .usage <<<"$output")" = \
	    '{"input_tokens":7,"input_tokens_details":{"cache_write_tokens":1,"cached_tokens":3},"output_tokens":13,"output_tokens_details":{"reasoning_tokens":6},"total_tokens":20}' ]
	# a text record with counts has usage (not null), its output the text's tokens
	run harmony-parse --to responses <<<"$ANT"
	[ "$(jq -c .usage <<<"$output")" = \
	    '{"input_tokens":11,"input_tokens_details":{"cache_write_tokens":4,"cached_tokens":2},"output_tokens":5,"output_tokens_details":null,"total_tokens":16,"record_output_tokens":99}' ]
	# a text record without counts: no usage, as before
	run harmony-parse --to responses <<<'{"id":"t","text":"<|channel|>final<|message|>4<|return|>"}'
	jq -e 'has("usage") | not' <<<"$output"
	run harmony-parse --to responses <<<"$BARE"
	jq -e '.model == "gpt-oss" and .created_at == 0 and .usage.input_tokens == 0 and .usage.output_tokens == 13' <<<"$output"
}

@test "own fields: responses-stream, in each response object, usage at the end" {
	harmony-parse --to responses-stream <<<"$OAI" | data | jq -c 'select(.response) | .response' >"$T/resp"
	[ "$(wc -l <"$T/resp")" -eq 3 ]
	jq -e -s 'all(.[]; .model == "openai/gpt-oss-120b" and .created_at == 1732400001 and .service_tier == "flex")' "$T/resp"
	[ "$(tail -n 1 "$T/resp" | jq -c .usage)" = \
	    "$(harmony-parse --to responses <<<"$OAI" | jq -c .usage)" ]
	jq -e -s '.[0:2] | all(.[]; has("usage") | not)' "$T/resp"
	harmony-parse --to responses-stream <<<"$BARE" | data | jq -c 'select(.response) | .response' >"$T/resp"
	jq -e -s 'all(.[]; .model == "gpt-oss" and .created_at == 0 and (has("service_tier") | not))' "$T/resp"
}

@test "own fields: anthropic" {
	run harmony-parse --to anthropic <<<"$ANT"
	[ "$status" -eq 0 ]
	jq -e '.model == "claude-x" and .usage.input_tokens == 11 and .usage.cache_read_input_tokens == 2
	    and .usage.cache_creation_input_tokens == 4 and .usage.output_tokens == 5
	    and .usage.record_output_tokens == 99 and .usage.service_tier == "priority"' <<<"$output"
	run harmony-parse --to anthropic <<<"$OAI"
	jq -e '.model == "openai/gpt-oss-120b" and .usage.input_tokens == 120 and .usage.cache_read_input_tokens == 64
	    and .usage.output_tokens == 13 and .usage.output_tokens_details.thinking_tokens == 6
	    and .usage.record_output_tokens == 9 and .usage.service_tier == "flex"' <<<"$output"
	[ "$(grep -o '"model"' <<<"$output" | wc -l)" -eq 1 ]
	run harmony-parse --to anthropic <<<"$RSP"
	jq -e '.model == "m2" and .usage.input_tokens == 7 and (.usage | has("record_output_tokens") | not)' <<<"$output"
	run harmony-parse --to anthropic <<<"$BARE"
	jq -e '.model == "gpt-oss" and .usage.input_tokens == 0 and .usage.cache_read_input_tokens == 0
	    and .usage.service_tier == null' <<<"$output"
}

@test "own fields: anthropic-stream, the message's model and usage, the output count at the end" {
	harmony-parse --to anthropic-stream <<<"$ANT" | data >"$T/ev"
	jq -e -s '.[] | select(.type == "message_start") | .message |
	    .model == "claude-x" and .usage.input_tokens == 11 and .usage.cache_read_input_tokens == 2
	    and .usage.cache_creation_input_tokens == 4 and .usage.service_tier == "priority"
	    and (.usage | has("record_output_tokens") | not)' "$T/ev"
	jq -e -s '.[] | select(.type == "message_delta") | .usage |
	    .input_tokens == 11 and .output_tokens == 5 and .record_output_tokens == 99' "$T/ev"
	harmony-parse --to anthropic-stream <<<"$BARE" | data >"$T/ev"
	jq -e -s '.[] | select(.type == "message_start") | .message.model == "gpt-oss"' "$T/ev"
}

@test "own fields: a vLLM completions response, whole, in every shape" {
	f=fixtures/servers/vllm-completions.json
	jq -e '.model == "openai/gpt-oss-20b" and .created == 1755784987 and .usage.prompt_tokens == 72' "$f"
	run harmony-parse --to chat-completion "$f"
	jq -e '.model == "openai/gpt-oss-20b" and .created == 1755784987 and .system_fingerprint == null
	    and .usage.prompt_tokens == 72 and .usage.completion_tokens == 23 and .usage.total_tokens == 95
	    and (.usage | has("record_completion_tokens") | not)' <<<"$output"
	run harmony-parse --to responses "$f"
	jq -e '.model == "openai/gpt-oss-20b" and .created_at == 1755784987 and .usage.input_tokens == 72' <<<"$output"
	run harmony-parse --to anthropic "$f"
	jq -e '.model == "openai/gpt-oss-20b" and .usage.input_tokens == 72 and .usage.output_tokens == 23' <<<"$output"
	harmony-parse --to chat-stream "$f" | data | jq -e -s 'all(.[]; .model == "openai/gpt-oss-20b" and .created == 1755784987)
	    and (last | .usage.prompt_tokens == 72)'
	harmony-parse --to responses-stream "$f" | data | jq -e -s '[.[] | select(.response) | .response] |
	    all(.[]; .model == "openai/gpt-oss-20b") and (last | .usage.input_tokens == 72)'
	harmony-parse --to anthropic-stream "$f" | data | jq -e -s '.[0].message.model == "openai/gpt-oss-20b"'
}

@test "own fields: the first member of a name wins; what is not a count or a string is ours" {
	rec='{"model":"a","model":"b","created":-3,"usage":{"prompt_tokens":"x"},"usage":{"prompt_tokens":4},"output_ids":'$IDS'}'
	# (a name given twice is carried as given, with a warning on stderr: dup_keys.bats)
	run --separate-stderr harmony-parse --to chat-completion <<<"$rec"
	jq -e '.model == "a" and .created == 0 and .usage.prompt_tokens == 0' <<<"$output"
	[[ $stderr == *'duplicate key "model"'* ]]
	run --separate-stderr harmony-parse --to chat-completion <<<'{"model":7,"model":"b","created":1e3,"output_ids":'$IDS'}'
	jq -e '.model == "gpt-oss" and .created == 1000' <<<"$output"
	# top-level counts, as some logs keep them
	run harmony-parse --to responses <<<'{"prompt_tokens":8,"completion_tokens":13,"output_ids":'$IDS'}'
	jq -e '.usage.input_tokens == 8 and .usage.total_tokens == 21 and (.usage | has("record_output_tokens") | not)' <<<"$output"
	# Ollama's and llama.cpp's own names for the counts
	run harmony-parse --to chat-completion <<<'{"model":"gpt-oss:20b","response":"<|channel|>final<|message|>4<|return|>","done":true,"prompt_eval_count":31,"eval_count":6}'
	jq -e '.model == "gpt-oss:20b" and .usage.prompt_tokens == 31 and .usage.completion_tokens == 5
	    and .usage.record_completion_tokens == 6' <<<"$output"
	run harmony-parse --to responses <<<'{"tokens_evaluated":17,"tokens_predicted":13,"tokens":'$IDS'}'
	jq -e '.usage.input_tokens == 17 and .usage.total_tokens == 30 and (.usage | has("record_output_tokens") | not)' <<<"$output"
}

# An OpenAI chat stream of one choice: its text in two chunks, then its
# finish; members of the chunks as $1 (first), $2 (finish), then a usage
# chunk $3 when given.  SSE on stdout.
chat_sse() {
	local head='"id":"c9","object":"chat.completion.chunk","created":1700000009,"model":"openai/gpt-oss-120b"'
	printf 'data: {%s,"choices":[{"index":0,"delta":{"role":"assistant","content":"<|channel|>final<|message|>Hi"},"finish_reason":null}]%s}\n\n' "$head" "$1"
	printf 'data: {%s,"choices":[{"index":0,"delta":{"content":" there"},"finish_reason":null}]%s}\n\n' "$head" "$1"
	printf 'data: {%s,"choices":[{"index":0,"delta":{},"finish_reason":"stop","stop_reason":200002}]%s}\n\n' "$head" "$2"
	[ -z "$3" ] || printf 'data: {%s,"choices":[]%s}\n\n' "$head" "$3"
	printf 'data: [DONE]\n\n'
}

@test "own fields: a stream's usage after its first chunk (vLLM's usage chunk) is read, in every shape" {
	U=',"usage":{"prompt_tokens":57,"completion_tokens":6,"total_tokens":63,"prompt_tokens_details":{"cached_tokens":32}}'
	chat_sse '' '' "$U" >"$T/s.sse"
	run harmony-parse --to chat-completion "$T/s.sse"
	[ "$status" -eq 0 ]
	[ "$(jq -c .usage <<<"$output")" = \
	    '{"prompt_tokens":57,"completion_tokens":6,"total_tokens":63,"prompt_tokens_details":{"cached_tokens":32}}' ]
	run harmony-parse --to responses "$T/s.sse"
	jq -e '.usage.input_tokens == 57 and .usage.input_tokens_details.cached_tokens == 32 and .usage.output_tokens == 6' <<<"$output"
	run harmony-parse --to anthropic "$T/s.sse"
	jq -e '.usage.input_tokens == 57 and .usage.cache_read_input_tokens == 32' <<<"$output"
	# the streams: the usage where each API puts it at the end
	harmony-parse --to chat-stream "$T/s.sse" | data | jq -e -s 'last | .choices == [] and .usage.prompt_tokens == 57'
	harmony-parse --to responses-stream "$T/s.sse" | data |
	    jq -e -s 'last | .type == "response.completed" and .response.usage.input_tokens == 57'
	harmony-parse --to anthropic-stream "$T/s.sse" | data |
	    jq -e -s '[.[] | select(.type == "message_delta")] | length == 1 and .[0].usage.input_tokens == 57'
	# without the usage chunk: none of it (the defaults)
	chat_sse '' '' '' | harmony-parse --to chat-completion | jq -e '.usage.prompt_tokens == 0 and .usage.completion_tokens == 6'
	# the same whatever the cuts of the input
	python3 tests/bats/dribble.py --seeds 3 "$T/s.sse" -- harmony-parse -q --to chat-completion
	python3 tests/bats/dribble.py --seeds 3 "$T/s.sse" -- harmony-parse -q --to anthropic-stream
}

@test "own fields: a stream's last usage wins: continuous usage, a usage null, the finish chunk's" {
	# vLLM's continuous_usage_stats: each chunk's usage so far, the usage chunk the whole
	chat_sse ',"usage":{"prompt_tokens":57,"completion_tokens":1}' ',"usage":{"prompt_tokens":57,"completion_tokens":3}' \
	    ',"usage":{"prompt_tokens":57,"completion_tokens":6}' | harmony-parse --to chat-completion |
	    jq -e '.usage.prompt_tokens == 57 and .usage.completion_tokens == 6 and (.usage | has("record_completion_tokens") | not)'
	# sglang writes "usage":null in each chunk: a null says nothing
	chat_sse ',"usage":null' ',"usage":null' ',"usage":{"prompt_tokens":9,"completion_tokens":4}' |
	    harmony-parse --to chat-completion | jq -e '.usage.prompt_tokens == 9'
	# llama.cpp: the usage comes with the finish chunk itself, no chunk after
	chat_sse '' ',"usage":{"prompt_tokens":12,"completion_tokens":6}' '' | harmony-parse --to responses |
	    jq -e '.usage.input_tokens == 12 and .usage.output_tokens == 6 and (.usage | has("record_output_tokens") | not)'
	# llama.cpp's own stream: tokens_predicted grows, the last one counts
	harmony-parse --to chat-completion fixtures/servers/llamacpp-completion.sse |
	    jq -e '.usage.prompt_tokens == 72 and .usage.completion_tokens == 23 and (.usage | has("record_completion_tokens") | not)'
	# Ollama: the counts are on the done line
	{
		echo '{"model":"gpt-oss:20b","created_at":"t","response":"<|channel|>final<|message|>4","done":false}'
		echo '{"model":"gpt-oss:20b","created_at":"t","response":"","done":true,"done_reason":"stop","prompt_eval_count":31,"eval_count":5}'
	} | harmony-parse --to chat-completion | jq -e '.usage.prompt_tokens == 31 and .usage.completion_tokens == 5'
	# sglang /generate: meta_info's counts, the last chunk's
	harmony-parse --to chat-completion fixtures/servers/sglang-generate-incremental.sse |
	    jq -e '.usage.prompt_tokens == 129 and .usage.prompt_tokens_details.cached_tokens == 0'
}

@test "own fields: a usage chunk goes to its own stream only; what follows a held finish keeps its order" {
	U=',"usage":{"prompt_tokens":57,"completion_tokens":4}'
	{
		chat_sse '' '' "$U" | sed '/DONE/d'
		# another stream, its usage chunk before the first one's is read
		chat_sse '' '' ',"usage":{"prompt_tokens":8,"completion_tokens":4}' | sed 's/"c9"/"c10"/; /DONE/d'
		# a usage chunk of no stream: nothing, as before
		printf 'data: {"id":"zz","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":1}}\n\n'
		printf 'data: [DONE]\n\n'
	} >"$T/two.sse"
	run harmony-parse --to chat-completion "$T/two.sse"
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.id, .usage.prompt_tokens]' <<<"$output" | tr -d '\n')" = '["c9",57]["c10",8]' ]
	# a whole record after a finished stream comes out after it, the stream's usage none
	{
		chat_sse '' '' '' | sed '/DONE/d' | sed -n 's/^data: //p'
		echo "$OAI"
	} | harmony-parse --to chat-completion | jq -c '[.id, .usage.prompt_tokens]' | tr -d '\n' >"$T/out"
	[ "$(cat "$T/out")" = '["c9",0]["r1",120]' ]
}
