#!/usr/bin/env bats
# parse_shapes.bats - harmony-parse's OpenAI shapes agree with each other:
# one record gives one id to every whole object (Response, chat.completion,
# their streams), and chat-completion is the chat choice in its object.

load helpers

setup() {
	hm_setup
	FX=fixtures/parse
	REC='{"id":"r1","note":5,"output_ids":[200005,35644,200008,42421,13,200007,200006,173781,200005,17196,200008,19,200002]}'
}

# The ids of every object in SHAPE's output for the input on stdin, one a line.
ids_of() {
	case $1 in
	responses | chat-completion) harmony-parse --to "$1" | jq -c '.id' ;;
	responses-stream) harmony-parse --to "$1" | sed -n 's/^data: //p' | jq -c 'select(.response) | .response.id' ;;
	chat-stream) harmony-parse --to "$1" | sed -n 's/^data: {/{/p' | jq -c '.id' ;;
	esac
}

@test "a record's carried id is the id of the Response, the chat.completion and every event and chunk" {
	for s in responses responses-stream chat-completion chat-stream; do
		out=$(echo "$REC" | ids_of "$s" | sort -u)
		echo "$s: $out"
		[ "$out" = '"r1"' ]
	done
	# the stream's comment line still carries every field
	run bash -c "echo '$REC' | harmony-parse --to responses-stream | head -n 1"
	[ "$output" = ': {"id":"r1","note":5}' ]
	# a number is carried as it is, the same in both Responses shapes
	rec='{"id":7,"output_ids":[200005,17196,200008,19,200002]}'
	[ "$(echo "$rec" | ids_of responses)" = 7 ]
	[ "$(echo "$rec" | ids_of responses-stream | sort -u)" = 7 ]
}

@test "without a carried id, the whole object and its stream share the made id, record by record" {
	two=$(printf '%s\n%s\n' '{"output_ids":[200005,17196,200008,19,200002]}' '{"output_ids":[200005,17196,200008,20,200002]}')
	[ "$(echo "$two" | ids_of responses | tr '\n' ' ')" = '"resp_0" "resp_1" ' ]
	[ "$(echo "$two" | ids_of responses-stream | uniq | tr '\n' ' ')" = '"resp_0" "resp_1" ' ]
	[ "$(echo "$two" | ids_of chat-completion | tr '\n' ' ')" = '"chatcmpl-0" "chatcmpl-1" ' ]
	[ "$(echo "$two" | ids_of chat-stream | uniq | tr '\n' ' ')" = '"chatcmpl-0" "chatcmpl-1" ' ]
}

@test "chat-completion: the chat choice inside a whole chat.completion, with usage" {
	for f in "$FX"/*.ids; do
		choice=$(harmony-parse -q --to chat "$f" | jq -c .)
		run harmony-parse -q --to chat-completion "$f"
		[ "${#lines[@]}" -eq 1 ]
		inner=$(jq -c '.choices[0]' <<<"$output")
		[ "$inner" = "$choice" ] || { echo "$f: $inner != $choice"; return 1; }
		jq -e '(keys == ["choices","created","id","model","object","usage"]) and .object == "chat.completion"
		    and .model == "gpt-oss" and (.choices | length) == 1' <<<"$output" >/dev/null
		# the same counts as the Response's usage
		want=$(harmony-parse -q --to responses "$f" | jq -c '[.usage.output_tokens, .usage.output_tokens_details.reasoning_tokens]')
		got=$(jq -c '[.usage.completion_tokens, .usage.completion_tokens_details.reasoning_tokens]' <<<"$output")
		[ "$got" = "$want" ] || { echo "$f: usage $got != $want"; return 1; }
		jq -e '.usage.total_tokens == .usage.completion_tokens + .usage.prompt_tokens' <<<"$output" >/dev/null
	done
	# text input: usage all the same, the tokens the text encodes to (no reasoning count)
	run bash -c "printf '<|channel|>final<|message|>4<|return|>' | harmony-parse --from text --to chat-completion"
	[ "$status" -eq 0 ]
	[ "$(jq -c .usage <<<"$output")" = '{"prompt_tokens":0,"completion_tokens":5,"total_tokens":5}' ]
}

@test "chat keeps the bare choice, without carried fields; chat-completion carries them beside its own" {
	run bash -c "echo '$REC' | harmony-parse --to chat"
	[ "$status" -eq 0 ]
	jq -e 'keys == ["finish_reason","index","logprobs","message"]' <<<"$output"
	run bash -c "echo '$REC' | harmony-parse --to chat-completion"
	jq -e '.id == "r1" and .note == 5 and .choices[0].message.content == "4"
	    and .choices[0].message.reasoning_content == "Think."' <<<"$output"
}
