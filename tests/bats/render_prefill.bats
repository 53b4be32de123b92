#!/usr/bin/env bats
# render_prefill.bats - harmony-render: a request that continues its last
# message (an Anthropic prefill, Chat's continue_final_message, Harmony
# input with --continue) renders that message open: its header and
# content, no stop token, no new header after it.

load helpers

setup() {
	hm_setup
	T=$BATS_TEST_TMPDIR
}

# The ids of a text as harmony-tokens encodes it (not the renderer).
enc() {
	printf '%s' "$1" | harmony-tokens encode
}

# run with stdout and stderr apart: $out, $err, $status.
run2() {
	status=0
	"$@" >"$T/out" 2>"$T/err" || status=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}

START=200006 END=200007 CHANNEL=200005 MESSAGE=200008 ASSISTANT=173781

@test "Anthropic: a last assistant message (text) is continued on the final channel" {
	req='{"model":"claude-x","max_tokens":50,"messages":[{"role":"user","content":"Name a color."},{"role":"assistant","content":"The color is"}]}'
	# the prompt before it, ending in <|start|>assistant: the request without it
	base=$(jq -c 'del(.messages[-1])' <<<"$req" | harmony-render --from anthropic)
	[ "${base##* $START }" = "$ASSISTANT" ]
	want="$base $CHANNEL $(enc final) $MESSAGE $(enc 'The color is')"
	run2 harmony-render --from anthropic <<<"$req"
	[ "$status" -eq 0 ]
	[ -z "$err" ]
	[ "$out" = "$want" ]
	# auto detection reads it the same; the text form ends in the open content
	run2 harmony-render <<<"$req"
	[ "$out" = "$want" ]
	run2 harmony-render --to text <<<"$req"
	[[ $out == *'<|start|>user<|message|>Name a color.<|end|><|start|>assistant<|channel|>final<|message|>The color is' ]]
	# blocks are the same as a string
	run2 harmony-render --from anthropic <<<"$(jq -c '.messages[-1].content = [{"type":"text","text":"The color is"}]' <<<"$req")"
	[ "$out" = "$want" ]
	# open: the rendering closed (conversation mode of the same messages) minus its <|end|>
	closed=$(harmony-render --from anthropic --to harmony <<<"$req" | harmony-render --from harmony --mode conversation)
	[ "${closed##* }" = "$END" ]
	[ "$out" = "${closed% $END}" ]
	# --to json counts the open prompt
	run2 harmony-render --to json <<<"$req"
	[ "$(jq -c '.tokens | join(" ")' <<<"$out")" = "\"$want\"" ]
	[ "$(jq .num_tokens <<<"$out")" -eq "$(wc -w <<<"$want")" ]
}

@test "Anthropic: a thinking prefill is continued on the analysis channel; thinking then text keeps the thinking" {
	req='{"model":"claude-x","max_tokens":9,"messages":[{"role":"user","content":"2+2?"},{"role":"assistant","content":[{"type":"thinking","thinking":"Add them:"}]}]}'
	base=$(jq -c 'del(.messages[-1])' <<<"$req" | harmony-render --from anthropic)
	run2 harmony-render --from anthropic <<<"$req"
	[ "$status" -eq 0 ]
	[ "$out" = "$base $CHANNEL $(enc analysis) $MESSAGE $(enc 'Add them:')" ]
	# thinking, then the answer begun: the analysis of this turn stays
	# (the reference drops analysis before a first final; this final is
	# not finished)
	req2=$(jq -c '.messages[-1].content += [{"type":"text","text":"It is"}]' <<<"$req")
	run2 harmony-render --from anthropic <<<"$req2"
	[ "$status" -eq 0 ]
	[ "$out" = "$base $CHANNEL $(enc analysis) $MESSAGE $(enc 'Add them:') $END $START $ASSISTANT $CHANNEL $(enc final) $MESSAGE $(enc 'It is')" ]
	# an earlier turn's analysis is still dropped by the reference's rule
	req3='{"model":"claude-x","max_tokens":9,"messages":[{"role":"user","content":"1+1?"},{"role":"assistant","content":[{"type":"thinking","thinking":"Easy."},{"type":"text","text":"2"}]},{"role":"user","content":"2+2?"},{"role":"assistant","content":"It is"}]}'
	run2 harmony-render --from anthropic --to text <<<"$req3"
	[[ $out != *Easy.* ]]
	[[ $out == *'<|start|>assistant<|channel|>final<|message|>2<|end|><|start|>user<|message|>2+2?<|end|><|start|>assistant<|channel|>final<|message|>It is' ]]
}

@test "Chat: continue_final_message renders the last assistant message open; without it, as before" {
	req='{"model":"gpt-oss-20b","messages":[{"role":"user","content":"2+2?"},{"role":"assistant","reasoning_content":"Add.","content":"The sum is"}],"continue_final_message":true,"add_generation_prompt":false}'
	base=$(jq -c 'del(.messages[-1]) | del(.continue_final_message, .add_generation_prompt)' <<<"$req" | harmony-render --from chat)
	[ "${base##* $START }" = "$ASSISTANT" ]
	run2 harmony-render --from chat <<<"$req"
	[ "$status" -eq 0 ]
	[ -z "$err" ]
	[ "$out" = "$base $CHANNEL $(enc analysis) $MESSAGE $(enc Add.) $END $START $ASSISTANT $CHANNEL $(enc final) $MESSAGE $(enc 'The sum is')" ]
	# reasoning alone: the analysis message is continued
	run2 harmony-render --from chat <<<"$(jq -c '.messages[-1] |= {role, reasoning_content}' <<<"$req")"
	[ "$out" = "$base $CHANNEL $(enc analysis) $MESSAGE $(enc Add.)" ]
	# continue_final_message false, or absent: closed, and a new assistant
	# header; add_generation_prompt alone is not read (as before)
	for f in '.continue_final_message = false' 'del(.continue_final_message)' \
	    'del(.continue_final_message) | .add_generation_prompt = "yes"' '.continue_final_message = null'; do
		run2 harmony-render --from chat <<<"$(jq -c "$f" <<<"$req")"
		[ "$status" -eq 0 ]
		[[ $out == *" $(enc 'The sum is') $END $START $ASSISTANT" ]] || { echo "$f: $out"; return 1; }
	done
}

@test "Harmony input with --continue: the last message open, as written (no channel stays none)" {
	conv='[{"role":"user","content":"Say hi"},{"role":"assistant","content":"Hi"}]'
	base=$(harmony-render --from harmony <<<'[{"role":"user","content":"Say hi"}]')
	run2 harmony-render --from harmony --continue <<<"$conv"
	[ "$status" -eq 0 ]
	# an assistant message without channel is rendered without one (spec §3)
	[ "$out" = "$base $MESSAGE $(enc Hi)" ]
	run2 harmony-render --continue --to text <<<"$conv"
	[ "$out" = '<|start|>user<|message|>Say hi<|end|><|start|>assistant<|message|>Hi' ]
	run2 harmony-render --from harmony --continue <<<"$(jq -c '.[-1].channel = "final"' <<<"$conv")"
	[ "$out" = "$base $CHANNEL $(enc final) $MESSAGE $(enc Hi)" ]
	# --mode conversation: the same open message, nothing was after it anyway
	run2 harmony-render --continue --mode conversation <<<"$conv"
	[ "$out" = "$base $MESSAGE $(enc Hi)" ]
	# without --continue: closed and a new header, as before
	run2 harmony-render --from harmony <<<"$conv"
	[ "$out" = "$base $MESSAGE $(enc Hi) $END $START $ASSISTANT" ]
	# --continue on a Chat request is continue_final_message
	run2 harmony-render --continue <<<'{"model":"m","messages":[{"role":"user","content":"Say hi"},{"role":"assistant","content":"Hi"}]}'
	[ "$status" -eq 0 ]
	[[ $out == *" $START $ASSISTANT $CHANNEL $(enc final) $MESSAGE $(enc Hi)" ]]
}

@test "--lines: each request's prefill is its own" {
	printf '%s\n' \
	    '{"model":"claude-x","max_tokens":9,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}' \
	    '{"model":"claude-x","max_tokens":9,"messages":[{"role":"user","content":"a"}]}' \
	    '{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}' \
	    '{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}],"continue_final_message":true}' >"$T/reqs"
	run2 harmony-render --lines "$T/reqs"
	[ "$status" -eq 0 ]
	mapfile -t l <"$T/out"
	[[ ${l[0]} == *" $START $ASSISTANT $CHANNEL $(enc final) $MESSAGE $(enc b)" ]]
	[[ ${l[1]} == *" $START $ASSISTANT" ]]
	[[ ${l[2]} == *" $MESSAGE $(enc b) $END $START $ASSISTANT" ]]
	[ "${l[3]}" = "${l[0]}" ]
}

@test "what cannot be continued is an error, never rendered closed" {
	cd "$T"
	# Anthropic: a prefill that ends with a tool call
	run2 harmony-render --from anthropic <<<'{"model":"claude-x","max_tokens":9,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"t1","name":"look","input":{}}]}],"tools":[{"name":"look","input_schema":{"type":"object"}}]}'
	[ "$status" -eq 1 ]
	[ -z "$out" ]
	[ "$err" = 'harmony-render: -:1: messages[1]: a prefill: the assistant'\''s last message ends with a tool call (to functions.look), which is not continued: its result follows it' ]
	# Anthropic: nothing readable in it
	run2 harmony-render --from anthropic <<<'{"model":"claude-x","max_tokens":9,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"redacted_thinking","data":"x"}]}]}'
	[ "$status" -eq 1 ]
	[ "$err" = 'harmony-render: -:1: messages[1]: a prefill: the assistant'\''s last message holds no text or reasoning to continue' ]
	# Chat: the last message is not the assistant's
	run2 harmony-render <<<'{"model":"m","messages":[{"role":"user","content":"hi"}],"continue_final_message":true}'
	[ "$status" -eq 1 ]
	[ "$err" = 'harmony-render: -:1: messages[0]: continue_final_message: the last message is not the assistant'\''s; only an assistant'\''s message can be continued' ]
	# Chat: a tool call
	run2 harmony-render <<<'{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}],"continue_final_message":true}'
	[ "$status" -eq 1 ]
	[[ $err == *'messages[1]: continue_final_message: the assistant'\''s last message ends with a tool call (to functions.f)'* ]]
	# Chat: both fields true (vLLM refuses it too); a field of the wrong type
	run2 harmony-render <<<'{"model":"m","messages":[{"role":"assistant","content":"a"}],"continue_final_message":true,"add_generation_prompt":true}'
	[ "$status" -eq 1 ]
	[ "$err" = 'harmony-render: -:1: continue_final_message and add_generation_prompt are both true: the last message cannot be continued and a new one started; set add_generation_prompt to false' ]
	run2 harmony-render <<<'{"model":"m","messages":[{"role":"assistant","content":"a"}],"continue_final_message":"yes"}'
	[ "$status" -eq 1 ]
	[ "$err" = 'harmony-render: -:1: continue_final_message: must be true or false, not a string' ]
	run2 harmony-render <<<'{"model":"m","messages":[{"role":"assistant","content":"a"}],"continue_final_message":true,"add_generation_prompt":0}'
	[ "$status" -eq 1 ]
	[ "$err" = 'harmony-render: -:1: add_generation_prompt: must be true or false, not a number' ]
	# Harmony --continue: a user's last message, a call, no message at all
	run2 harmony-render --continue <<<'[{"role":"user","content":"hi"}]'
	[ "$status" -eq 1 ]
	[ "$err" = "harmony-render: -:1: the last message is the user's: only an assistant's message can be continued" ]
	run2 harmony-render --continue <<<'[{"role":"user","content":"hi"},{"role":"assistant","recipient":"functions.f","channel":"commentary","content":"{}"}]'
	[ "$status" -eq 1 ]
	[ "$err" = 'harmony-render: -:1: the last message is a tool call (to functions.f): a call is not continued, its result follows it' ]
	run2 harmony-render --continue <<<'[]'
	[ "$status" -eq 1 ]
	[ "$err" = 'harmony-render: -:1: no message to continue' ]
	# a prefill in training mode; --continue with it is a usage error
	run2 harmony-render --mode training <<<'{"model":"claude-x","max_tokens":9,"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}'
	[ "$status" -eq 1 ]
	[ "$err" = 'harmony-render: -:1: a training sample holds whole messages: its last message cannot be left open to continue' ]
	run2 harmony-render --continue --mode training <<<'[]'
	[ "$status" -eq 2 ]
	[ -z "$out" ]
	[ "$err" = "harmony-render: --continue leaves the last message open; --mode training renders whole messages
Try 'harmony-render --help'." ]
	# --lines: the bad record has its error line, the others render
	printf '%s\n' '[{"role":"user","content":"a"}]' '[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]' >reqs
	run2 harmony-render --continue --lines --to json reqs
	[ "$status" -eq 1 ]
	[ "$(head -n 1 <<<"$out")" = "{\"error\":\"the last message is the user's: only an assistant's message can be continued\",\"line\":1}" ]
	[ "$(sed -n 2p <<<"$out" | jq -r '.tokens[-1]')" = "$(enc b | awk '{print $NF}')" ]
}

# The loop around a prefill: render it open, let the model continue, parse
# what it wrote as the rest of that message (harmony-parse --continue).
@test "a prefill's continuation is parsed into the continued message, in all three dialects, ids and text" {
	cont=' red, like a rose.<|return|>'
	# Anthropic (text prefill: final), Chat (continue_final_message: final), Harmony --continue (analysis)
	areq='{"model":"claude-x","max_tokens":50,"messages":[{"role":"user","content":"Name a color."},{"role":"assistant","content":"The color is"}]}'
	creq='{"model":"gpt-oss","continue_final_message":true,"add_generation_prompt":false,"messages":[{"role":"user","content":"Name a color."},{"role":"assistant","content":"The color is"}]}'
	hreq='[{"role":"user","content":"Name a color."},{"role":"assistant","channel":"analysis","content":"The user wants"}]'
	for d in anthropic chat harmony; do
		case $d in
		anthropic) req=$areq chan=final flags= ;;
		chat) req=$creq chan=final flags= ;;
		harmony) req=$hreq chan=analysis flags=--continue ;;
		esac
		prompt=$(printf '%s' "$req" | harmony-render --from $d $flags)
		# the prompt ends open: the model writes on in the message
		[ "${prompt##* }" != $END ]
		printf '%s' "$cont" | harmony-tokens encode >"$T/c.ids"
		run2 harmony-parse --continue=$chan "$T/c.ids"
		[ "$status" -eq 0 ] && [ -z "$err" ]
		[ "$out" = "{\"role\":\"assistant\",\"content\":\" red, like a rose.\",\"channel\":\"$chan\"}" ] || { echo "$d: $out"; return 1; }
		run2 sh -c "printf '%s' '$cont' | harmony-parse --from text --continue=$chan"
		[ "$out" = "{\"role\":\"assistant\",\"content\":\" red, like a rose.\",\"channel\":\"$chan\"}" ]
		# the prompt followed by the model's ids is the prompt of the whole message, closed
		[ "$prompt $(cat "$T/c.ids")" = "$(printf '%s' "$req" | harmony-render --from $d $flags --mode conversation) $(cat "$T/c.ids")" ]
	done
	# without --continue the continuation is read as a message without a
	# header (F8), its leading blank taken for the header's
	run2 harmony-parse "$T/c.ids"
	[ "$out" = '{"role":"assistant","content":"red, like a rose."}' ]
	[[ $err == *'(F8)' ]]
	# a continuation on the final channel is the answer; on analysis it is reasoning
	[ "$(harmony-parse -q --continue=final --to answer "$T/c.ids")" = ' red, like a rose.' ]
	[ "$(harmony-parse -q --continue=analysis --to chat "$T/c.ids" | jq -r .message.reasoning_content)" = ' red, like a rose.' ]
	run2 harmony-parse --continue= "$T/c.ids"
	[ "$status" -eq 2 ]
}
