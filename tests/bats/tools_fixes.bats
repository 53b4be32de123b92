#!/usr/bin/env bats
# tools_fixes.bats - harmony-tools: schemas under another shape's key,
# Harmony namespaces, recipients as harmony-parse reads them, nested
# --check, result --name, nothing written for bad input, large schemas.
# Each test is a regression test for one finding of the audit.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH"
	F=fixtures/tools
}

@test "render --from anthropic on an MCP tool keeps its schema, with a warning" {
	run harmony-tools render --from anthropic <<<'{"name":"get_current_weather","description":"Gets the current weather in the provided location.","inputSchema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "harmony-tools: -:1: tool: tool 'get_current_weather': schema read from \`inputSchema\` (this shape's key is \`input_schema\`)" ]
	[[ $output == *'type get_current_weather = (_: {
location: string,
}) => any;'* ]]
	# Every shape against every key: never "() => any".
	for from in chat responses mcp anthropic harmony; do
		for key in parameters input_schema inputSchema; do
			t="{\"name\":\"f\",\"$key\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}}"
			[ $from = chat ] && t="{\"type\":\"function\",\"function\":$t}"
			out=$(harmony-tools render -q --from $from <<<"$t")
			[[ $out == *'a?: string,'* ]] || { echo "$from $key: $out"; return 1; }
		done
	done
	# convert keeps it too.
	run harmony-tools convert -q --from responses --to anthropic <<<'[{"type":"function","name":"f","input_schema":{"type":"object"}}]'
	[ "$output" = '[{"name":"f","input_schema":{"type":"object"}}]' ]
}

@test "render uses a Harmony namespace's name and description; --namespace overrides the name" {
	run harmony-tools render $F/namespace.json
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat $F/namespace.txt)" ]
	run harmony-tools render --namespace other $F/namespace.json
	[ "${lines[1]}" = '## other' ]
	[ "${lines[2]}" = '// Weather tools.' ]
	[ "${lines[-1]}" = '} // namespace other' ]
	# The same text as the renderer's, inside a developer message.
	harmony-tools convert --to harmony $F/namespace.json >$BATS_TEST_TMPDIR/ns.json
	[[ $(cat $BATS_TEST_TMPDIR/ns.json) == '{"name":"weather","description":"Weather tools.\nData from the national service.","tools":[{"name":"get_current_weather",'* ]]
	conv="[{\"role\":\"developer\",\"content\":[{\"type\":\"developer_content\",\"tools\":{\"weather\":$(cat $BATS_TEST_TMPDIR/ns.json)}}]}]"
	[ "$(harmony-render --mode conversation --to text <<<"$conv")" = "<|start|>developer<|message|>$(cat $F/namespace.txt)<|end|>" ]
	# Tools of two namespaces: the first name stays, with a warning.
	run harmony-tools render $F/namespace.json $F/tools_chat.json <(echo '{"name":"b","tools":[]}')
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == 'harmony-tools: /dev/fd/'*":1: namespace 'b': its tools go into namespace 'weather'" ]]
	[ "${lines[2]}" = '## weather' ]
}

@test "calls: a bare recipient is a function, as harmony-parse reads it" {
	run harmony-tools calls --check $F/tools_chat.json <<<'{"role":"assistant","recipient":"get_current_weather","channel":"commentary","content":"{\"location\":\"Tokyo\"}"}'
	[ "$status" -eq 0 ]
	[ "$output" = '{"call_id":"call_0","name":"get_current_weather","namespace":"functions","arguments":{"location":"Tokyo"}}' ]
	# harmony-parse gives the same name.
	printf '%s' '<|start|>assistant to=get_current_weather<|channel|>commentary <|constrain|>json<|message|>{}<|call|>' >$BATS_TEST_TMPDIR/c.txt
	run harmony-parse --from text --to chat $BATS_TEST_TMPDIR/c.txt
	[[ $output == *'"function":{"name":"get_current_weather",'* ]]
	# Builtins keep their own namespace and get no call id.
	run harmony-tools calls <<<'{"role":"assistant","recipient":"python","content":"1+1"}'
	[ "$output" = '{"call_id":null,"name":"python","namespace":"python","arguments":"1+1"}' ]
}

@test "calls: a recipient naming no tool is an error record, not name \"\"" {
	run harmony-tools calls <<<'{"role":"assistant","recipient":"functions.","content":"{}"}
{"role":"assistant","recipient":"functions.ok","content":"{}"}'
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "harmony-tools: -:1: call_0 functions.: recipient 'functions.' names no tool" ]
	[ "${lines[1]}" = '{"call_id":"call_0","name":null,"namespace":"functions","arguments":{},"error":"recipient '"'"'functions.'"'"' names no tool"}' ]
	[ "${lines[2]}" = '{"call_id":"call_1","name":"ok","namespace":"functions","arguments":{}}' ]
}

@test "calls: multi-dot recipients split at the last dot, like harmony-parse's mcp_call" {
	run harmony-tools calls <<<'{"role":"assistant","recipient":"mcp.srv.search","content":"{}"}
{"role":"assistant","recipient":"functions.a.b","content":"{}"}'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"call_id":"call_0","name":"search","namespace":"mcp.srv","arguments":{}}' ]
	[ "${lines[1]}" = '{"call_id":"call_1","name":"a.b","namespace":"functions","arguments":{}}' ]
	printf '%s' '<|start|>assistant to=mcp.srv.search<|channel|>commentary<|message|>{}<|call|>' >$BATS_TEST_TMPDIR/c.txt
	run harmony-parse --from text --to responses $BATS_TEST_TMPDIR/c.txt
	[[ $output == *'"type":"mcp_call",'*'"name":"search","server_label":"mcp.srv"'* ]]
}

@test "calls --check: nested objects, array items, and numbers of any size" {
	out=$(harmony-tools calls --check $F/tools_nested.json 2>$BATS_TEST_TMPDIR/err <<<'{"role":"assistant","recipient":"functions.book_trip","content":"{\"nights\":1e400,\"traveler\":{\"name\":\"A\",\"address\":{\"city\":\"Paris\"}},\"stops\":[{\"city\":\"Lyon\",\"days\":2}],\"tags\":[\"x\"]}"}
{"role":"assistant","recipient":"functions.book_trip","content":"{\"nights\":2.5,\"traveler\":{\"address\":{\"zip\":75001}},\"stops\":[{\"days\":1},{\"city\":\"Nice\",\"days\":\"two\"}],\"tags\":[1]}"}') && st=0 || st=$?
	[ "$st" -eq 1 ]
	[ "$(sed -n 1p <<<"$out")" = '{"call_id":"call_0","name":"book_trip","namespace":"functions","arguments":{"nights":1e400,"traveler":{"name":"A","address":{"city":"Paris"}},"stops":[{"city":"Lyon","days":2}],"tags":["x"]}}' ]
	[[ $(sed -n 2p <<<"$out") == *'"error":"/nights: type: expected integer, got number; /traveler: required: missing property \"name\"; /traveler/address: required: missing property \"city\"; /traveler/address/zip: type: expected string, got integer; ..."}' ]]
	[ "$(cat $BATS_TEST_TMPDIR/err)" = 'harmony-tools: -:2: call_1 functions.book_trip: /nights: type: expected integer, got number; /traveler: required: missing property "name"; /traveler/address: required: missing property "city"; /traveler/address/zip: type: expected string, got integer; ...' ]
	# The rest of the problems are there, in order, when they are the first four.
	run harmony-tools calls --check $F/tools_nested.json <<<'{"role":"assistant","recipient":"functions.book_trip","content":"{\"nights\":2,\"traveler\":{\"name\":\"A\"},\"stops\":[{\"days\":1},{\"city\":\"Nice\",\"days\":\"two\"}],\"tags\":[1]}"}'
	[[ ${lines[0]} == *': /stops/0: required: missing property "city"; /stops/1/days: type: expected integer, got string; /tags/0: type: expected string, got integer' ]]
}

@test "result --name must name a tool" {
	for n in '' '.' 'functions.' '.x'; do
		run harmony-tools result --name "$n" <<<'x'
		[ "$status" -eq 2 ] || { echo "'$n' accepted"; return 1; }
		[ "${lines[0]}" = "harmony-tools: --name must name a tool (NAME or NAMESPACE.NAME), not '$n'" ]
	done
	run harmony-tools result --name f --call-id '' <<<'x'
	[ "$status" -eq 2 ]
}

@test "render and convert write nothing for bad input, and say where" {
	printf '[{"name":"a"},\n 3]\n' >$BATS_TEST_TMPDIR/bad.json
	run harmony-tools render $F/tools_chat.json $BATS_TEST_TMPDIR/bad.json
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-tools: $BATS_TEST_TMPDIR/bad.json:2: [1]: must be an object, not a number" ]
	out=$(harmony-tools render $BATS_TEST_TMPDIR/bad.json 2>/dev/null) || true
	[ -z "$out" ]
	out=$(harmony-tools convert --to chat $BATS_TEST_TMPDIR/bad.json 2>/dev/null) || true
	[ -z "$out" ]
	printf '[{"name":"a"},\n {"name": }]\n' >$BATS_TEST_TMPDIR/bad.json
	run harmony-tools render $BATS_TEST_TMPDIR/bad.json
	[ "$output" = "harmony-tools: $BATS_TEST_TMPDIR/bad.json:2:11: expected value" ]
}

@test "50,000 required properties: render and calls --check stay fast" {
	python3 -c '
import json
props = {"p%d" % i: {"type": "string"} for i in range(50000)}
print(json.dumps({"name": "big", "description": "d", "parameters": {"type": "object", "properties": props, "required": list(props)}}))' >$BATS_TEST_TMPDIR/big.json
	python3 -c '
import json
args = {"p%d" % i: "v" for i in range(50000)}
print(json.dumps({"role": "assistant", "recipient": "functions.big", "content": json.dumps(args)}))' >$BATS_TEST_TMPDIR/call.json
	# Quadratic took 12 s and 24 s; linear is well under a second.
	timeout 5 harmony-tools render $BATS_TEST_TMPDIR/big.json >$BATS_TEST_TMPDIR/out
	[ "$(wc -l <$BATS_TEST_TMPDIR/out)" -eq 50011 ]
	[ "$(sed -n 9p $BATS_TEST_TMPDIR/out)" = 'p0: string,' ]
	[ "$(grep -c '^p[0-9]*: string,$' $BATS_TEST_TMPDIR/out)" -eq 50000 ]
	run timeout 5 harmony-tools calls --check $BATS_TEST_TMPDIR/big.json $BATS_TEST_TMPDIR/call.json
	[ "$status" -eq 0 ]
	run timeout 5 harmony-render --to text <<<"{\"model\":\"m\",\"tools\":[{\"type\":\"function\",\"function\":$(cat $BATS_TEST_TMPDIR/big.json)}],\"messages\":[]}"
	[ "$status" -eq 0 ]
	[[ $output == *'p49999: string,'* ]]
}
