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
	[ "$(cat $BATS_TEST_TMPDIR/out)" = '{"call_id":"call_0","name":"get_current_weather","namespace":"functions","arguments":{"location":"Tokyo"}}' ]
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
