#!/usr/bin/env bats
# tools.bats - harmony-tools: render, convert, calls, result, and the
# tool-call loop of the README.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH"
	F=fixtures/tools
}

@test "render: every shape gives the renderer's namespace text" {
	for s in chat responses mcp anthropic; do
		run harmony-tools render $F/tools_$s.json
		[ "$status" -eq 0 ]
		[ "$output" = "$(cat $F/tools.txt)" ] || { echo "$s differs"; return 1; }
		run harmony-tools render --from $s $F/tools_$s.json
		[ "$output" = "$(cat $F/tools.txt)" ]
	done
	# The same text as in the rendered developer message.
	harmony-render --to text $F/chat.json | grep -q "$(sed -n 5p $F/tools.txt)"
}

@test "render --namespace names the namespace" {
	run harmony-tools render --namespace weather $F/tools_chat.json
	[[ ${lines[1]} == '## weather' ]]
	[[ ${lines[2]} == 'namespace weather {' ]]
	[[ ${lines[-1]} == '} // namespace weather' ]]
}

@test "convert: between every pair of shapes, losslessly for these tools" {
	for a in chat responses mcp anthropic harmony; do
		for b in chat responses mcp anthropic harmony; do
			got=$(harmony-tools convert --to $a $F/tools_params.json |
			    harmony-tools convert --from $a --to $b | harmony-tools render)
			[ "$got" = "$(cat $F/tools_params.txt)" ] || { echo "$a -> $b"; return 1; }
		done
	done
	# MCP and Anthropic need a schema: a tool without one gets an empty object.
	run harmony-tools convert --to mcp $F/tools_chat.json
	[[ $output == '[{"name":"get_location","description":"Gets the location of the user.","inputSchema":{"type":"object","properties":{}}},'* ]]
	run harmony-tools convert --to chat $F/tools_mcp.json
	[[ $output == '[{"type":"function","function":{"name":"get_location","description":"Gets the location of the user."}},'* ]]
	run harmony-tools convert --to harmony $F/tools_responses.json
	[[ $output == '{"name":"functions","description":null,"tools":[{"name":"get_location","description":"Gets the location of the user.","parameters":null},'* ]]
	run harmony-tools convert $F/tools_chat.json
	[ "$status" -eq 2 ]
}

@test "calls: one line per tool call, arguments parsed when JSON" {
	run harmony-tools calls <<<'{"role":"assistant","channel":"analysis","content":"think"}
{"role":"assistant","recipient":"functions.get_current_weather","channel":"commentary","content_type":"<|constrain|>json","content":"{\"location\":\"Tokyo\"}"}
{"role":"assistant","recipient":"browser.search","channel":"analysis","content":"not json"}'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"call_id":"call_0","name":"get_current_weather","namespace":"functions","arguments":{"location":"Tokyo"}}' ]
	[ "${lines[1]}" = '{"call_id":null,"name":"search","namespace":"browser","arguments":"not json"}' ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "calls: ids are harmony-parse --to chat's, builtin calls have none" {
	# A browser call (reasoning in Chat, no id), then two function calls.
	printf '%s' '<|channel|>analysis<|message|>look<|end|><|start|>assistant to=browser.search<|channel|>analysis<|message|>{"query":"x"}<|call|><|start|>browser.search to=assistant<|channel|>analysis<|message|>res<|end|><|start|>assistant to=functions.a<|channel|>commentary <|constrain|>json<|message|>{}<|call|><|start|>assistant to=python<|channel|>analysis<|message|>1+1<|call|><|start|>assistant to=functions.b<|channel|>commentary <|constrain|>json<|message|>{"x":1}<|call|>' >$BATS_TEST_TMPDIR/c.txt
	run harmony-parse --from text --role assistant --to chat $BATS_TEST_TMPDIR/c.txt
	[[ $output == *'"tool_calls":[{"id":"call_0","type":"function","function":{"name":"a",'*'{"id":"call_1","type":"function","function":{"name":"b",'* ]]
	run sh -c "harmony-parse --from text --role assistant $BATS_TEST_TMPDIR/c.txt | harmony-tools calls"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"call_id":null,"name":"search","namespace":"browser","arguments":{"query":"x"}}' ]
	[ "${lines[1]}" = '{"call_id":"call_0","name":"a","namespace":"functions","arguments":{}}' ]
	[ "${lines[2]}" = '{"call_id":null,"name":"python","namespace":"python","arguments":"1+1"}' ]
	[ "${lines[3]}" = '{"call_id":"call_1","name":"b","namespace":"functions","arguments":{"x":1}}' ]
	[ "${#lines[@]}" -eq 4 ]
}

@test "calls: each record line (harmony-parse --lines) counts from call_0" {
	ids=$(cat $F/model_output.ids)
	printf '%s\n%s\n' "$ids" "$ids" >$BATS_TEST_TMPDIR/two.ids
	run sh -c "harmony-parse --lines $BATS_TEST_TMPDIR/two.ids | harmony-tools calls"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[0]} == '{"call_id":"call_0","name":"get_current_weather",'* ]]
	[[ ${lines[1]} == '{"call_id":"call_0","name":"get_current_weather",'* ]]
	# Loose message lines are one stream; a record in between starts afresh.
	run harmony-tools calls <<<'{"role":"assistant","recipient":"functions.a","content":"{}"}
{"role":"assistant","recipient":"functions.b","content":"{}"}
[{"role":"assistant","recipient":"functions.c","content":"{}"},{"role":"assistant","recipient":"functions.d","content":"{}"}]
{"role":"assistant","recipient":"functions.e","content":"{}"}'
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]}" | cut -d, -f1-2)" = '{"call_id":"call_0","name":"a"
{"call_id":"call_1","name":"b"
{"call_id":"call_0","name":"c"
{"call_id":"call_1","name":"d"
{"call_id":"call_0","name":"e"' ]
}

@test "calls --check: unknown tools, missing required properties, wrong types" {
	out=$(harmony-tools calls --check $F/tools_anthropic.json 2>$BATS_TEST_TMPDIR/err <<<'{"role":"assistant","recipient":"functions.get_current_weather","content":"{\"location\":\"Tokyo\"}"}
{"role":"assistant","recipient":"functions.get_current_weather","content":"{\"format\":3}"}
{"role":"assistant","recipient":"functions.nope","content":"{}"}') && st=0 || st=$?
	[ "$st" -eq 1 ]
	[ "$(sed -n 1p <<<"$out")" = '{"call_id":"call_0","name":"get_current_weather","namespace":"functions","arguments":{"location":"Tokyo"}}' ]
	[[ $(sed -n 2p <<<"$out") == *'"error":"(root): required: missing property \"location\"; /format: type: expected string, got integer; /format: enum: 3 is not one of the 2 allowed values"}' ]]
	[[ $(sed -n 3p <<<"$out") == *'"error":"unknown tool functions.nope"}' ]]
	[ "$(cat $BATS_TEST_TMPDIR/err)" = 'harmony-tools: -:2: call_1 functions.get_current_weather: (root): required: missing property "location"; /format: type: expected string, got integer; /format: enum: 3 is not one of the 2 allowed values
harmony-tools: -:3: call_2 functions.nope: unknown tool functions.nope' ]
}

@test "result: a tool message line ready to append" {
	run harmony-tools result --name get_current_weather --call-id call_1 <<<'{"temperature":20}'
	[ "$output" = '{"role":"tool","name":"functions.get_current_weather","recipient":"assistant","content":"{\"temperature\":20}","channel":"commentary","call_id":"call_1"}' ]
	run harmony-tools result --name browser.search <<<'page'
	[ "$output" = '{"role":"tool","name":"browser.search","recipient":"assistant","content":"page","channel":"commentary"}' ]
	run harmony-tools result <<<'x'
	[ "$status" -eq 2 ]
}

# The ```sh block under "### The tool loop" in README.md, on stdout.
readme_loop() {
	awk '/^### The tool loop/ { sec = 1; next }
	    sec && /^#/ && !blk { exit }
	    sec && /^```sh$/ { blk = 1; next }
	    blk && /^```$/ { exit }
	    blk { print }' README.md
}

@test "the tool loop of the README runs: render, model output, parse, calls, result, render again" {
	readme_loop >$BATS_TEST_TMPDIR/loop.sh
	# The block is really there and really is the loop.
	[ "$(grep -vc '^#' $BATS_TEST_TMPDIR/loop.sh)" -ge 6 ]
	for step in 'harmony-render --from chat' 'harmony-parse' 'harmony-tools calls' 'harmony-tools result' 'harmony-render --from harmony'; do
		grep -q -- "$step" $BATS_TEST_TMPDIR/loop.sh || { echo "no '$step' in the README loop"; return 1; }
	done
	mkdir $BATS_TEST_TMPDIR/run
	ln -s "$ROOT/fixtures" $BATS_TEST_TMPDIR/run/fixtures
	(cd $BATS_TEST_TMPDIR/run && sh -eu ../loop.sh >../out 2>../err)
	[ ! -s $BATS_TEST_TMPDIR/err ] || { cat $BATS_TEST_TMPDIR/err; return 1; }
	[ "$(cat $BATS_TEST_TMPDIR/out)" = '{"call_id":"call_0","name":"get_current_weather","namespace":"functions","arguments":{"location":"Tokyo"}}
prefix: 1 of 1 record extends, 0 do not; 206 tokens reused, 20 recomputed' ]
	# the README quotes that closing line
	grep -qF '`prefix: 1 of 1 record extends, 0 do not; 206 tokens reused, 20' README.md
	cd $BATS_TEST_TMPDIR/run
	# The first prompt is the Chat request's; the next one continues it
	# with the model's tokens and is the whole exchange's prompt.
	[ "$(cat prompt.ids)" = "$(harmony-render "$ROOT/$F/turn1.json")" ]
	[ "$(cat prompt.ids) $(cat "$ROOT/$F/model_output.ids")" = "$(cut -d' ' -f1-$(($(wc -w <prompt.ids) + $(wc -w <"$ROOT/$F/model_output.ids"))) next.ids)" ]
	[ "$(cat next.ids)" = "$(harmony-render "$ROOT/$F/chat.json")" ]
	[ "$(cat next.ids)" = "$(cat "$ROOT/$F/next.ids")" ]
	[ "$(wc -w <next.ids)" -gt "$(($(wc -w <prompt.ids) + $(wc -w <"$ROOT/$F/model_output.ids")))" ]
}

@test "--pretty indents the JSON of convert, calls and result" {
	run harmony-tools --pretty convert --to chat $F/tools_chat.json
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '[' ]
	[ "${lines[1]}" = '  {' ]
	[ "${lines[2]}" = '    "type": "function",' ]
	[[ $output == *'          "format": {
            "type": "string",
            "enum": [
              "celsius",
              "fahrenheit"
            ],'* ]]
	[ "$(printf '%s\n' "$output" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), ensure_ascii=False, separators=(",", ":")))')" = "$(harmony-tools convert --to chat $F/tools_chat.json)" ]
	run sh -c "harmony-parse $F/model_output.ids | harmony-tools calls --pretty"
	[ "$output" = '{
  "call_id": "call_0",
  "name": "get_current_weather",
  "namespace": "functions",
  "arguments": {
    "location": "Tokyo"
  }
}' ]
	run harmony-tools result --pretty --name now <<<'12:00'
	[ "$output" = '{
  "role": "tool",
  "name": "functions.now",
  "recipient": "assistant",
  "content": "12:00",
  "channel": "commentary"
}' ]
	# render writes text, not JSON: unchanged.
	[ "$(harmony-tools render --pretty $F/tools_chat.json)" = "$(cat $F/tools.txt)" ]
}

# The README's loop with another model output in place of the recorded one.
loop_with() { # MODEL_OUTPUT_FILE: runs the loop in a scratch directory, cd's there
	(cd "$ROOT" && readme_loop) | sed "s|fixtures/tools/model_output.ids|fixtures/tools/$1|g" >$BATS_TEST_TMPDIR/loop_$1.sh
	mkdir $BATS_TEST_TMPDIR/run_$1
	ln -s "$ROOT/fixtures" $BATS_TEST_TMPDIR/run_$1/fixtures
	(cd $BATS_TEST_TMPDIR/run_$1 && sh -eu ../loop_$1.sh >../out_$1 2>../err_$1)
	cd $BATS_TEST_TMPDIR/run_$1
}
# next.ids is prompt.ids, then exactly the model's ids, then more.
extends() { # MODEL_IDS_FILE
	local n=$(($(wc -w <prompt.ids) + $(wc -w <"$1")))
	[ "$(cat prompt.ids) $(cat "$1")" = "$(cut -d' ' -f1-$n next.ids)" ] || return 1
	[ "$(wc -w <next.ids)" -gt "$n" ]
	harmony-tokens diff -q --prefix <(printf '%s %s\n' "$(cat prompt.ids)" "$(cat "$1")") next.ids
}
@test "the tool loop is token-exact for a channel-first call and for a tokenization the encoder would not make" {
	grep -q 'harmony-parse --with-tokens' <(readme_loop)
	for m in model_output_channel_first.ids model_output_split.ids; do
		loop_with "$m"
		extends "$ROOT/$F/$m" || { echo "$m: next.ids does not extend the prompt with the model's ids"; return 1; }
		# without --with-tokens the history is re-rendered: recipient first, the encoder's cut
		harmony-parse "$ROOT/$F/$m" >plain.ndjson
		head -n 1 conversation.ndjson >conv0.ndjson
		cat conv0.ndjson plain.ndjson result.ndjson | harmony-render --from harmony >rerendered.ids
		run harmony-tokens diff -q --prefix <(printf '%s %s\n' "$(cat prompt.ids)" "$(cat "$ROOT/$F/$m")") rerendered.ids
		[ "$status" -eq 1 ]
	done
}
@test "tokens: a message read with its ids renders as them; a last <|return|> as <|end|>; bad ids are an error" {
	run sh -c 'printf "%s" "<|channel|>final<|message|>Hi<|return|>" | harmony-tokens encode | harmony-parse --with-tokens'
	[ "$output" = '{"role":"assistant","content":"Hi","channel":"final","tokens":[200005,17196,200008,12194,200002]}' ]
	run sh -c "printf '%s\n' '{\"role\":\"user\",\"content\":\"Hi\"}' '$output' | harmony-render --from harmony --mode conversation"
	[ "$output" = "$(printf '%s' '<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final<|message|>Hi<|end|>' | harmony-tokens encode)" ]
	run sh -c "printf '%s\n' '{\"role\":\"assistant\",\"content\":\"x\",\"tokens\":[1,\"a\"]}' | harmony-render --from harmony"
	[ "$status" -eq 1 ]
	[[ $output == *'tokens[1]: not a token id'* ]]
	# text input: the message's text encoded, special tokens as their ids
	run sh -c 'printf "%s" "<|channel|>final<|message|>Hi<|return|>" | harmony-parse --from text --with-tokens'
	[ "$output" = '{"role":"assistant","content":"Hi","channel":"final","tokens":[200005,17196,200008,12194,200002]}' ]
	# the API shapes carry a turn's ids packed (loop.bats); the others none
	run harmony-parse --with-tokens --to stats </dev/null
	[ "$status" -eq 2 ]
}
@test "--header-order=model: the Chat and Anthropic tool loops are token-exact for a channel-first call; the reference order is not" {
	M=$ROOT/$F/model_output_channel_first.ids
	cd "$BATS_TEST_TMPDIR"
	# Chat
	harmony-render --from chat --header-order=model "$ROOT/$F/turn1.json" >prompt.ids
	harmony-parse --to chat-completion "$M" >cc.json
	jq -c --slurpfile c cc.json '.messages += [($c[0].choices[0].message | {role, content, reasoning_content, tool_calls}),
	    {role: "tool", tool_call_id: $c[0].choices[0].message.tool_calls[0].id, content: "{\"temperature\":20}"}]' \
	    "$ROOT/$F/turn1.json" >turn2.json
	printf '%s %s\n' "$(cat prompt.ids)" "$(cat "$M")" >sent.ids
	harmony-render --from chat --header-order=model turn2.json >next.ids
	run harmony-tokens diff --prefix sent.ids next.ids
	[ "$status" -eq 0 ]
	[[ ${lines[-1]} == 'prefix: 1 of 1 record extends, 0 do not; '* ]]
	harmony-render --from chat turn2.json >next_ref.ids
	run harmony-tokens diff --prefix sent.ids next_ref.ids
	[ "$status" -eq 1 ]
	[[ $output == *'in:   header of message 5 (role assistant, to functions.get_current_weather, channel commentary)'* ]]
	# Anthropic
	harmony-render --from anthropic --header-order=model "$ROOT/$F/anthropic_turn1.json" >aprompt.ids
	harmony-parse --to anthropic "$M" >message.json
	jq -c --slurpfile m message.json '.messages += [{role: "assistant", content: $m[0].content},
	    {role: "user", content: [{type: "tool_result", tool_use_id: $m[0].content[-1].id, content: "{\"temperature\":20}"}]}]' \
	    "$ROOT/$F/anthropic_turn1.json" >aturn2.json
	printf '%s %s\n' "$(cat aprompt.ids)" "$(cat "$M")" >asent.ids
	harmony-render --from anthropic --header-order=model aturn2.json >anext.ids
	harmony-tokens diff -q --prefix asent.ids anext.ids
	# a recipient-first output is written channel first all the same
	harmony-render --from anthropic aturn2.json >anext_ref.ids
	! harmony-tokens diff -q --prefix asent.ids anext_ref.ids
	# the first prompt has no call: the same in either order
	[ "$(harmony-render --from chat "$ROOT/$F/turn1.json")" = "$(cat prompt.ids)" ]
	run harmony-render --header-order=first "$ROOT/$F/turn1.json"
	[ "$status" -eq 2 ]
}

@test "calls --check: arguments that give a key twice are an error naming it" {
	out=$(harmony-tools calls --check $F/tools_anthropic.json 2>$BATS_TEST_TMPDIR/err <<<'{"role":"assistant","recipient":"functions.get_current_weather","content":"{\"location\":\"Tokyo\",\"location\":\"Paris\"}"}') && st=0 || st=$?
	[ "$st" -eq 1 ]
	[[ $out == *'"error":"arguments: duplicate key \"location\" (which of its values is meant cannot be told) at line 1 column 21"}' ]]
	grep -q 'call_0 functions.get_current_weather: arguments: duplicate key "location"' $BATS_TEST_TMPDIR/err
}

@test "calls --check --formats: a broken date passes as the draft says, fails with assert" {
	tools=$BATS_TEST_TMPDIR/tools.json
	printf '%s\n' '[{"name":"book","parameters":{"type":"object","properties":{"day":{"type":"string","format":"date"}},"required":["day"]}}]' >$tools
	call='{"role":"assistant","recipient":"functions.book","content":"{\"day\":\"2024-13-45\"}"}'
	run harmony-tools calls --check $tools <<<"$call"
	[ "$status" -eq 0 ]
	[[ $output != *'"error"'* ]]
	run harmony-tools calls --check $tools --formats=draft <<<"$call"
	[ "$status" -eq 0 ]
	run harmony-tools calls --check $tools --formats=annotate <<<"$call"
	[ "$status" -eq 0 ]
	run harmony-tools calls --check $tools --formats=assert <<<"$call"
	[ "$status" -eq 1 ]
	[[ $output == *'"error":"/day: format: '* ]]
	# a good date passes asserted too
	run harmony-tools calls --check $tools --formats=assert <<<'{"role":"assistant","recipient":"functions.book","content":"{\"day\":\"2024-02-29\"}"}'
	[ "$status" -eq 0 ]
	[[ $output != *'"error"'* ]]
	# without --check it is still a usage error
	run harmony-tools calls --formats=assert <<<"$call"
	[ "$status" -eq 2 ]
}
