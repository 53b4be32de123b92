#!/usr/bin/env bats
# dup_keys.bats - one rule for a key given twice, in every reader that
# takes JSON whole (issue 35): a request to harmony-render (each dialect,
# its tools, --tools), a server's record or SSE chunk (each shape of
# ../shared/spec/input-shapes.md) is an error naming the key and its place,
# never the first or the last taken without a word.  And the server
# shapes' ids are spelled as every other reader's.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	hm_setup
	T=$(mktemp -d)
	S=fixtures/servers
}

teardown() {
	rm -rf "$T"
}

# render "$request": exit 1 and the one message naming key at -:line:col
render_dup() {
	local req=$1 key=$2 place=$3
	run --separate-stderr harmony-render --to text <<<"$req"
	[ "$status" -eq 1 ] || { echo "status $status: $req"; return 1; }
	[ "$output" = "" ]
	[ "$stderr" = "harmony-render: -:$place: duplicate key \"$key\" (which of its values is meant cannot be told)" ] ||
	    { echo "got: $stderr"; return 1; }
}

@test "render: a key given twice in a request is an error naming it, in every dialect" {
	# Harmony JSON (messages, a conversation)
	render_dup '[{"role":"user","content":"a","content":"b"}]' content 1:31
	render_dup '{"messages":[{"role":"user","content":"q"}],"messages":[]}' messages 1:45
	# a second value on its own line: its line
	render_dup '[{"role":"user","content":"a"}]
{"role":"user","role":"assistant","content":"b"}' role 2:16
	# Chat
	render_dup '{"model":"gpt-oss","max_tokens":9,"messages":[{"role":"user","content":"a"}],"max_tokens":1}' max_tokens 1:78
	# Responses
	render_dup '{"model":"gpt-oss","input":"hi","input":"ho"}' input 1:33
	# Anthropic
	render_dup '{"model":"gpt-oss","max_tokens":9,"system":"x","messages":[{"role":"user","content":"a"}],"system":"y"}' system 1:91
	# deep inside: a tool's parameters (rendered as TypeScript)
	render_dup '{"messages":[{"role":"user","content":"q"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"number"}}}}}]}' a 1:162
	# the same requests without the second key render
	run harmony-render --to text <<<'{"model":"gpt-oss","input":"hi"}'
	[ "$status" -eq 0 ]
	[[ $output == *'<|start|>user<|message|>hi<|end|>'* ]]
}

@test "render --lines: a request with a key given twice is its own error line" {
	run --separate-stderr harmony-render --lines --to json <<<'{"model":"gpt-oss","input":"a"}
{"model":"gpt-oss","input":"b","input":"c"}
{"model":"gpt-oss","input":"d"}'
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 3 ]
	[[ ${lines[1]} == *'duplicate key \"input\"'* ]]
	[[ ${lines[0]} != *error* && ${lines[2]} != *error* ]]
	[[ $stderr == *'-:2:'*'duplicate key "input"'* ]]
}

@test "harmony-tools: tool definitions, a request's tool_choice: a key given twice is an error too" {
	printf '%s\n' '{"type":"function","function":{"name":"f","name":"g","parameters":{"type":"object"}}}' >"$T/tools.json"
	run --separate-stderr harmony-tools render "$T/tools.json"
	[ "$status" -eq 1 ]
	[ "$output" = "" ]
	[ "$stderr" = "harmony-tools: $T/tools.json:1:43: duplicate key \"name\" (which of its values is meant cannot be told)" ]
	run --separate-stderr harmony-tools grammar <<<'{"model":"m","messages":[{"role":"user","content":"q"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],"tool_choice":{"type":"function","function":{"name":"f","name":"g"}}}'
	[ "$status" -eq 1 ]
	[ "$stderr" = 'harmony-tools: -:1:198: duplicate key "name" (which of its values is meant cannot be told)' ]
}

# parse_dup FILE LINE KEY: harmony-parse reads FILE with an error line in
# place of record LINE naming KEY, on stderr and in the chat output.
parse_dup() {
	local f=$1 line=$2 key=$3
	run --separate-stderr harmony-parse --to chat "$f"
	[ "$status" -eq 1 ] || { echo "status $status for $f"; return 1; }
	[[ $stderr == *"$f:$line: duplicate key \"$key\" (which of its values is meant cannot be told) at column "* ]] ||
	    { echo "$f: $stderr"; return 1; }
	[[ $output == *"\"error\":\"duplicate key \\\"$key\\\""*"\"line\":$line}"* ]] ||
	    { echo "$f: $output"; return 1; }
}

@test "server shapes: a key given twice in a record or chunk is an error line naming it and its place" {
	# OpenAI completions: stream and whole; a key read inside a choice
	sed '3s/"token_ids":\[/"token_ids":[1],"token_ids":[/' $S/vllm-completions.sse >"$T/a.sse"
	parse_dup "$T/a.sse" 3 token_ids
	sed '1s/"text":/"text":"x","text":/' $S/vllm-completions.json >"$T/a.json"
	parse_dup "$T/a.json" 1 text
	# chat completions: the delta's content
	n=$(grep -n -m1 '"delta":{"content"' $S/vllm-chat.sse | cut -d: -f1)
	sed "${n}s/\"delta\":{\"content\":/\"delta\":{\"content\":\"x\",\"content\":/" $S/vllm-chat.sse >"$T/c.sse"
	parse_dup "$T/c.sse" "$n" content
	# vLLM offline; sglang stream and whole; llama.cpp; Ollama; TGI; Triton
	sed '2s/"finished":true/"finished":true,"finished":false/' $S/vllm-offline.ndjson >"$T/o.ndjson"
	parse_dup "$T/o.ndjson" 2 finished
	sed '1s/"output_ids":/"output_ids":[1],"output_ids":/' $S/sglang-generate.sse >"$T/g.sse"
	parse_dup "$T/g.sse" 1 output_ids
	sed '1s/"meta_info":{"id":"6f0e",/"meta_info":{"id":"6f0e","id":"7",/' $S/sglang-generate.json >"$T/g.json"
	parse_dup "$T/g.json" 1 id
	sed '1s/"stop":false/"stop":false,"stop":true/' $S/llamacpp-completion.sse >"$T/l.sse"
	parse_dup "$T/l.sse" 1 stop
	sed '2s/"thinking":"wants "/"thinking":"wants ","thinking":"no"/' $S/ollama-chat.ndjson >"$T/oc.ndjson"
	parse_dup "$T/oc.ndjson" 2 thinking
	sed '1s/"done":false/"done":false,"done":true/' $S/ollama-generate.ndjson >"$T/og.ndjson"
	parse_dup "$T/og.ndjson" 1 done
	sed '1s/"token":{"id":200005,/"token":{"id":200005,"id":1,/' $S/tgi-generate-stream.sse >"$T/t.sse"
	parse_dup "$T/t.sse" 1 id
	sed '1s/"text_output":/"text_output":"x","text_output":/' $S/triton-generate-stream.sse >"$T/tr.sse"
	parse_dup "$T/tr.sse" 1 text_output
	# a member only carried (model) is no less ambiguous: the same rule
	sed '1s/"model":"openai\/gpt-oss-20b"/"model":"a","model":"b"/' $S/vllm-completions.json >"$T/m.json"
	parse_dup "$T/m.json" 1 model
}

@test "server shapes: the other chunks of a stream are read around the error line" {
	sed '3s/"token_ids":\[/"token_ids":[1],"token_ids":[/' $S/vllm-completions.sse >"$T/a.sse"
	run --separate-stderr harmony-parse --to chat "$T/a.sse"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[0]} == '{"index":0,'* ]]
	[[ ${lines[1]} == '{"id":"cmpl-5a5a","error":"duplicate key'* ]]
	# --field: the record's member at the path, given twice
	run --separate-stderr harmony-parse --field .out --to chat <<<'{"out":[200005,35644],"out":[1]}'
	[ "$status" -eq 1 ]
	[[ $stderr == *'-:1: duplicate key "out" (which of its values is meant cannot be told) at column 23'* ]]
}

@test "log records keep their rule: the member read given twice is an error, one only carried is kept" {
	run --separate-stderr harmony-parse --to chat <<<'{"tokens":[200005],"tokens":[1]}'
	[ "$status" -eq 1 ]
	[[ $stderr == *'duplicate member "tokens" (the one read: which of them is meant cannot be told)'* ]]
	run --separate-stderr harmony-parse --to messages <<<'{"tokens":[200005,17196,200008,17196,200002],"m":1,"m":2}'
	[ "$status" -eq 0 ]
	[ "$output" = '{"m":1,"m":2,"messages":[{"role":"assistant","content":"final","channel":"final"}]}' ]
}

# parse_id FILE LINE WHAT: an error line naming the id and where it is
parse_id() {
	local f=$1 line=$2 what=$3
	run --separate-stderr harmony-parse --to chat "$f"
	[ "$status" -eq 1 ] || { echo "status $status for $f"; return 1; }
	[[ $stderr == *"$f:$line: not a token id at $what (an id is a whole number without sign, fraction, exponent or leading zero)"* ]] ||
	    { echo "$f: $stderr"; return 1; }
}

@test "server shapes: an id spelled otherwise (-0, 2.9e2, 290.0) is an error naming it, not text read instead" {
	sed '3s/"token_ids":\[\([0-9]*\)\]/"token_ids":[-0]/' $S/vllm-completions.sse >"$T/a.sse"
	parse_id "$T/a.sse" 3 "choices[0].token_ids[0]: '-0'"
	sed '1s/"token_ids":\[200005,/"token_ids":[200005,2.9e2,/' $S/vllm-offline.ndjson >"$T/o.ndjson"
	parse_id "$T/o.ndjson" 1 "outputs[0].token_ids[1]: '2.9e2'"
	sed 's/"output_ids":\[200005,35644\],/"output_ids":[200005,35644.0],/' $S/sglang-generate.sse >"$T/g.sse"
	parse_id "$T/g.sse" 3 "output_ids[1]: '35644.0'"
	sed '1s/"tokens":\[200005\]/"tokens":[2.00005e5]/' $S/llamacpp-completion.sse >"$T/l.sse"
	parse_id "$T/l.sse" 1 "tokens[0]: '2.00005e5'"
	sed 's/"id":35644,/"id":35644.0,/' $S/tgi-generate-stream.sse >"$T/t.sse"
	n=$(grep -n -m1 '35644.0' "$T/t.sse" | cut -d: -f1)
	parse_id "$T/t.sse" "$n" "token.id: '35644.0'"
	sed '1s/"tokens":\[{"id":200005,/"tokens":[{"id":-0,/' $S/tgi-generate.json >"$T/t.json"
	parse_id "$T/t.json" 1 "details.tokens[0].id: '-0'"
	run --separate-stderr harmony-parse --field .out --to chat <<<'{"out":[200005,-1]}'
	[ "$status" -eq 1 ]
	[[ $stderr == *"-:1: not a token id at .out[1]: '-1' (an id is"* ]]
	# out of range, and no number at all
	run --separate-stderr harmony-parse --field .out --to chat <<<'{"out":[200005,4294967296]}'
	[[ $stderr == *'-:1: id 4294967296 out of range at .out[1] (max 4294967295)'* ]]
	sed '3s/"token_ids":\[\([0-9]*\)\]/"token_ids":["\1"]/' $S/vllm-completions.sse >"$T/s.sse"
	run --separate-stderr harmony-parse --to chat "$T/s.sse"
	[[ $stderr == *':3: not a token id at choices[0].token_ids[0] (a string)'* ]]
	# null is no ids: the text is read, as before
	run harmony-parse --to chat $S/vllm-offline.ndjson
	[ "$status" -eq 0 ]
}

@test "server shapes: JSON the strict reader refuses is named, not \"no tokens array\"" {
	sed '3s/"token_ids":\[\([0-9]*\)\]/"token_ids":[0\1]/' $S/vllm-completions.sse >"$T/z.sse"
	run --separate-stderr harmony-parse --to chat "$T/z.sse"
	[ "$status" -eq 1 ]
	[[ $stderr == *"$T/z.sse:3: not JSON: expected \`,\` or \`]\` at column "* ]]
	[[ $stderr != *'no tokens'* ]]
}

@test "tokens diff --key: a record giving the key twice is an error naming it, not paired by the last" {
	printf '{"id":1,"id":2,"tokens":[1,2]}\n' >"$T/a"
	printf '{"id":1,"tokens":[1,3]}\n' >"$T/b"
	run --separate-stderr harmony-tokens diff --key id "$T/a" "$T/b"
	[ "$status" -ne 0 ]
	[[ $stderr == *"$T/a:1:1: --key=id: duplicate member \"id\" (the one read: which of them is meant cannot be told)"* ]]
	[[ $stderr$output != *'id 2'* ]]
}

@test "render: a key given twice in a large object is found too, in linear time" {
	# past 16 keys a set is looked in: the 41st key repeats the 8th
	python3 -c '
props = ",".join("\"p%d\":{\"type\":\"string\"}" % i for i in range(40)) + ",\"p7\":{\"type\":\"number\"}"
print("{\"messages\":[{\"role\":\"user\",\"content\":\"q\"}],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":{\"type\":\"object\",\"properties\":{%s}}}}]}" % props)' >"$T/big.json"
	run --separate-stderr harmony-render "$T/big.json"
	[ "$status" -eq 1 ]
	[ "$stderr" = "harmony-render: $T/big.json:1:1090: duplicate key \"p7\" (which of its values is meant cannot be told)" ]
	# 50,000 distinct keys read as before; the last given again is found
	python3 -c '
props = ",".join("\"p%d\":1" % i for i in range(50000))
print("{\"model\":\"m\",\"input\":\"x\",\"metadata\":{%s}}" % props)' >"$T/huge.json"
	run timeout 10 harmony-render --to text "$T/huge.json"
	[ "$status" -eq 0 ]
	sed 's/}}$/,"p49999":2}}/' "$T/huge.json" >"$T/huge2.json"
	run --separate-stderr timeout 10 harmony-render --to text "$T/huge2.json"
	[ "$status" -eq 1 ]
	[[ $stderr == *'duplicate key "p49999"'* ]]
}

@test "server shapes: a choice that is no object, a text that is no string, is an error line, not an empty completion" {
	run --separate-stderr harmony-parse --to chat <<<'{"id":"x","choices":[1]}'
	[ "$status" -eq 1 ]
	[ "$stderr" = 'harmony-parse: -:1: choices[0] is not an object (a number)' ]
	[ "$output" = '{"id":"x","error":"choices[0] is not an object (a number)","line":1}' ]
	run --separate-stderr harmony-parse --to chat <<<'{"id":"x","object":"text_completion","choices":[{"index":0,"text":5,"finish_reason":"stop"}]}'
	[ "$status" -eq 1 ]
	[ "$stderr" = 'harmony-parse: -:1: choices[0].text is not a string (a number)' ]
	run --separate-stderr harmony-parse --to chat <<<'{"outputs":[{"text":["a"]}]}'
	[ "$stderr" = 'harmony-parse: -:1: outputs[0].text is not a string (a list)' ]
	run --separate-stderr harmony-parse --to chat <<<'{"text":5,"meta_info":{"id":"a","finish_reason":{"type":"stop"}}}'
	[ "$stderr" = 'harmony-parse: -:1: text is not a string (a number)' ]
	run --separate-stderr harmony-parse --to chat <<<'{"content":true,"tokens":[],"stop":true}'
	[ "$stderr" = 'harmony-parse: -:1: content is not a string (a boolean)' ]
	# null text is none: the ids are read
	run harmony-parse --to messages <<<'{"outputs":[{"text":null,"token_ids":[200005,17196,200008,17196,200002]}]}'
	[ "$status" -eq 0 ]
	[[ $output == *'"content":"final","channel":"final"'* ]]
}

@test "log records: a member only carried, given twice, is kept as given with a warning naming it and its place, once a record" {
	# the one-pass reader's records
	printf '%s\n' '{"tokens":[200005,17196,200008,17196,200002]}' \
	    '{"tokens":[200005,17196,200008,17196,200002],"m":1,"m":2,"n":1,"n":2}' \
	    '{"id":"a","id":"b","tokens":[200005,17196,200008,17196,200002]}' >"$T/log"
	run --separate-stderr harmony-parse --to messages "$T/log"
	[ "$status" -eq 0 ]
	[ "$(sed -n 2p <<<"$output")" = '{"m":1,"m":2,"n":1,"n":2,"messages":[{"role":"assistant","content":"final","channel":"final"}]}' ]
	[ "$stderr" = "harmony-parse: $T/log:2: duplicate key \"m\" (each value carried as given: which is meant cannot be told)
harmony-parse: $T/log:3: duplicate key \"id\" (each value carried as given: which is meant cannot be told)" ]
	# the general reader's (an escape the one-pass reader leaves to it; past 64 members)
	run --separate-stderr harmony-parse --to messages <<<'{"tokens":[200005,17196,200008,17196,200002],"m":"a\/b","m":2}'
	[ "$status" -eq 0 ]
	[ "$output" = '{"m":"a/b","m":2,"messages":[{"role":"assistant","content":"final","channel":"final"}]}' ]
	[ "$stderr" = 'harmony-parse: -:1: duplicate key "m" (each value carried as given: which is meant cannot be told)' ]
	python3 -c 'print("{" + ",".join("\"k%d\":%d" % (i, i) for i in range(70)) + ",\"k3\":9,\"tokens\":[200005,17196,200008,17196,200002]}")' >"$T/wide"
	run --separate-stderr harmony-parse --to stats "$T/wide"
	[ "$status" -eq 0 ]
	[ "$stderr" = "harmony-parse: $T/wide:1: duplicate key \"k3\" (each value carried as given: which is meant cannot be told)" ]
	# -q: none
	run --separate-stderr harmony-parse -q --to messages "$T/log"
	[ -z "$stderr" ]
}

@test "log records: duplicate-key warnings have a cap of their own, the F-codes' warnings keep theirs" {
	for i in $(seq 12); do echo '{"m":1,"m":2,"tokens":[200005,17196,200008,17196]}'; done >"$T/log"
	run --separate-stderr harmony-parse --to messages "$T/log"
	[ "$(grep -c 'duplicate key "m"' <<<"$stderr")" -eq 10 ]
	[ "$(grep -c '(F10)$' <<<"$stderr")" -eq 10 ]
	[[ $stderr == *'harmony-parse: 2 more records with a duplicate key not shown (--warnings=all shows them)'* ]]
	[[ $stderr == *'harmony-parse: F10: 12 warnings (the first: stream ended inside a message)'* ]]
	run --separate-stderr harmony-parse --warnings=all --to messages "$T/log"
	[ "$(grep -c 'duplicate key "m"' <<<"$stderr")" -eq 12 ]
	[[ $stderr != *'not shown'* ]]
}

@test "harmony-tokens: a record's member not read, given twice, is the same warning, and the ids are read" {
	printf '%s\n' '{"m":1,"m":2,"tokens":[200005,17196]}' '[1,2]' '{"id":1,"id":2,"tokens":[1]}' >"$T/log"
	for cmd in decode inspect "count --from ids"; do
		run --separate-stderr harmony-tokens $cmd "$T/log"
		[ "$status" -eq 0 ]
		[ "$stderr" = "harmony-tokens: $T/log:1: duplicate key \"m\" (each value carried as given: which is meant cannot be told)
harmony-tokens: $T/log:3: duplicate key \"id\" (each value carried as given: which is meant cannot be told)" ] ||
		    { echo "$cmd: $stderr"; return 1; }
	done
	run --separate-stderr harmony-tokens count --from ids "$T/log"
	[ "$output" = 5 ]
	run --separate-stderr harmony-tokens diff "$T/log" "$T/log"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'duplicate key' <<<"$stderr")" -eq 4 ]
	run --separate-stderr harmony-tokens -q decode "$T/log"
	[ -z "$stderr" ]
}

@test "JSON Schema: a schema, a schema document or a checked value that gives a key twice is refused, naming the key" {
	echo '{"type":"object","type":"string"}' >"$T/s.json"
	run --separate-stderr harmony-tools validate --schema="$T/s.json" <<<'{"a":1}'
	[ "$status" -eq 1 ]
	[ "$stderr" = "harmony-tools: $T/s.json:1: the schema is not JSON: duplicate key \"type\" (which of its values is meant cannot be told) at line 1 column 18" ]
	# a document a $ref reaches through --schema-dir is not used: the
	# reference cannot be resolved, and the problem says why
	mkdir "$T/d"
	echo '{"type":"string","type":"integer"}' >"$T/d/x.json"
	echo '{"$ref":"https://example.com/x.json"}' >"$T/r.json"
	run --separate-stderr harmony-tools validate --schema-dir="https://example.com/=$T/d" --schema="$T/r.json" <<<'"a"'
	[ "$status" -eq 1 ]
	[[ $stderr == *"\$ref: cannot resolve \"https://example.com/x.json\" ($T/d/x.json is not JSON: duplicate key \"type\" (which of its values is meant cannot be told) at line 1 column 18)"* ]]
	echo '{"type":"string"}' >"$T/d/x.json"
	run harmony-tools validate --schema-dir="https://example.com/=$T/d" --schema="$T/r.json" <<<'"a"'
	[ "$status" -eq 0 ]
	# a value: which of its values is checked cannot be told either
	echo '{"type":"object","properties":{"a":{"type":"string"}}}' >"$T/s2.json"
	run --separate-stderr harmony-tools validate --schema="$T/s2.json" <<<'{"a":1,"a":"x"}'
	[ "$status" -eq 1 ]
	[ "$output" = '{"valid":false,"error":"not JSON: duplicate key \"a\" (which of its values is meant cannot be told) at line 1 column 8"}' ]
	run --separate-stderr harmony-parse --schema="$T/s2.json" --to answer < <(printf '<|channel|>final<|message|>{"a":"x","a":1}<|return|>')
	[[ $stderr == *'--schema: the final answer is not JSON: duplicate key "a"'* ]]
	[[ $stderr == *'0 valid, 1 invalid, 0 missing'* ]]
}
