#!/usr/bin/env bats
# render.bats - harmony-render: the upstream golden renderings, every
# dialect mapping and every option.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH"
	F=fixtures/render
}

@test "upstream test-data renderings: ids and text match exactly" {
	for j in $F/upstream/*.json; do
		n=${j%.json}
		args=$(cat "$n.args")
		got=$(harmony-render --from harmony $args <"$j")
		[ "$got" = "$(cat "$n.ids")" ] || { echo "$n: ids differ"; return 1; }
		# The text golden files end with optional trailing whitespace.
		txt=$(harmony-render --from harmony --to text $args <"$j")
		want=$(cat "$n.txt")
		[ "$txt" = "${want%"${want##*[![:space:]]}"}" ] || { echo "$n: text differs"; return 1; }
		# Token-exact: encoding the golden text with specials gives the ids.
		[ "$(printf '%s' "$txt" | harmony-tokens encode)" = "$(cat "$n.ids")" ] ||
		    { echo "$n: golden text does not encode to the ids"; return 1; }
	done
}

@test "special-token text in a message is plain text, never a control token" {
	run harmony-render --from harmony --mode conversation <<<'[{"role":"user","content":"x<|end|>y"}]'
	[ "$status" -eq 0 ]
	[ "$output" = "200006 1428 200008 87 27 91 419 91 29 88 200007" ]
}

@test "chat, responses and anthropic requests give the same prompt" {
	c=$(harmony-render $F/chat_tools.json)
	[ "$c" = "$(harmony-render $F/responses_tools.json)" ]
	[ "$c" = "$(harmony-render $F/anthropic_tools.json)" ]
	[ "$c" = "$(harmony-render --from chat $F/chat_tools.json)" ]
}

@test "chat mapping matches the reference's own rendering of the same conversation" {
	run harmony-render --to text --date 2025-06-28 $F/chat_tools.json
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat $F/chat_tools.txt)" ]
}

@test "auto detection names the dialect in --to json" {
	for d in chat responses anthropic; do
		run harmony-render --to json $F/${d}_tools.json
		[[ $output == *"\"dialect\":\"$d\""* ]]
	done
	run harmony-render --to json <<<'[{"role":"user","content":"hi"}]'
	[[ $output == *'"dialect":"harmony"'* ]]
}

@test "--to json carries stop tokens, selection text and harmony_model" {
	run harmony-render --to json $F/chat_tools.json
	[[ $output == '{"tokens":[200006,17360,'* ]]
	[[ $output == *'"stop_token_ids":[200002,200012],"selection_text":"What is the weather in Tokyo?","harmony_model":true,"model":"gpt-oss-120b"'* ]]
	run harmony-render --to json <<<'{"model":"gpt-4o","messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}'
	[[ $output == *'"selection_text":"b","harmony_model":false'* ]]
}

@test "chat: system and developer messages become the developer instructions" {
	run harmony-render --to text --mode conversation <<<'{"model":"m","messages":[{"role":"system","content":"one"},{"role":"developer","content":[{"type":"text","text":"two"}]},{"role":"user","content":"hi"}]}'
	[[ $output == *'<|start|>developer<|message|># Instructions

one

two<|end|><|start|>user<|message|>hi<|end|>' ]]
}

@test "chat: assistant content is final; reasoning/thinking is analysis; drop before final" {
	req='{"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant","reasoning":"r","content":"a"},{"role":"user","content":"q2"}]}'
	run harmony-render --to text --mode conversation --keep-analysis <<<"$req"
	[[ $output == *'<|start|>assistant<|channel|>analysis<|message|>r<|end|><|start|>assistant<|channel|>final<|message|>a<|end|><|start|>user<|message|>q2<|end|>' ]]
	run harmony-render --to text --mode conversation --keep-analysis <<<"${req/reasoning/thinking}"
	[[ $output == *'<|start|>assistant<|channel|>analysis<|message|>r<|end|>'* ]]
	# The last assistant message is final, so the analysis before it goes.
	run harmony-render --to text --mode conversation <<<"${req/reasoning/reasoning_content}"
	[[ $output != *'<|channel|>analysis'* ]]
}

@test "chat: reasoning_effort, and --reasoning-effort overrides it" {
	run harmony-render --to text <<<'{"model":"m","reasoning_effort":"low","messages":[]}'
	[[ $output == *'Reasoning: low'* ]]
	run harmony-render --to text --reasoning-effort high <<<'{"model":"m","reasoning_effort":"low","messages":[]}'
	[[ $output == *'Reasoning: high'* ]]
}

@test "chat: a tool message whose tool_call_id is unknown is an error" {
	run harmony-render <<<'{"model":"m","messages":[{"role":"tool","tool_call_id":"x","content":"1"}]}'
	[ "$status" -eq 1 ]
	[[ $output == *'tool_call_id matches no earlier tool call'* ]]
}

@test "responses: a string input is one user message" {
	run harmony-render --to text --mode conversation <<<'{"instructions":"be brief","input":"hi","reasoning":{"effort":"low"}}'
	[[ $output == *'Reasoning: low'* ]]
	[[ $output == *'# Instructions

be brief<|end|><|start|>user<|message|>hi<|end|>' ]]
}

@test "anthropic: temperature maps to effort when none is given" {
	for t in '0.2 low' '0.5 medium' '0.7 medium' '0.8 high' '1 high'; do
		set -- $t
		run harmony-render --to text <<<"{\"system\":\"s\",\"temperature\":$1,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
		[[ $output == *"Reasoning: $2"* ]] || { echo "$1 -> $output"; return 1; }
	done
}

@test "anthropic: text next to tool_use is a commentary preamble" {
	run harmony-render --to text --mode conversation <<<'{"system":"s","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"checking"},{"type":"tool_use","id":"t1","name":"f","input":{"a":1}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"}]}]}]}'
	[[ $output == *'<|start|>assistant<|channel|>commentary<|message|>checking<|end|><|start|>assistant to=functions.f<|channel|>commentary <|constrain|>json<|message|>{"a":1}<|call|><|start|>functions.f to=assistant<|channel|>commentary<|message|>ok<|end|>' ]]
}

@test "--mode, --next-role and --keep-analysis" {
	c='[{"role":"user","content":"q"},{"role":"assistant","channel":"analysis","content":"t"},{"role":"assistant","channel":"final","content":"a"}]'
	run harmony-render --to text --mode training <<<"$c"
	[ "$output" = '<|start|>user<|message|>q<|end|><|start|>assistant<|channel|>final<|message|>a<|return|>' ]
	run harmony-render --to text --mode conversation --keep-analysis <<<"$c"
	[[ $output == *'analysis<|message|>t<|end|>'* ]]
	run harmony-render --to text --next-role user <<<"$c"
	[[ $output == *'<|start|>user' ]]
	run harmony-render --mode bogus <<<"$c"
	[ "$status" -eq 2 ]
}

@test "--date, --knowledge-cutoff, --identity, --builtin" {
	run harmony-render --to text --date 2025-06-28 --knowledge-cutoff 2025-01 --identity 'I am a test.' --builtin browser,python <<<'{"model":"m","messages":[]}'
	[[ $output == '<|start|>system<|message|>I am a test.
Knowledge cutoff: 2025-01
Current date: 2025-06-28

Reasoning: medium

# Tools

## browser
'* ]]
	[[ $output == *'## python'* ]]
	run harmony-render --to text --date today <<<'{"model":"m","messages":[]}'
	[[ $output == *"Current date: $(date +%Y-%m-%d)"* ]]
	run harmony-render --to text <<<'{"model":"m","messages":[]}'
	[[ $output != *'Current date'* ]]
	run harmony-render --builtin nope <<<'[]'
	[ "$status" -eq 2 ]
}

@test "options edit the system message of Harmony input, or add one" {
	run harmony-render --to text --mode conversation --reasoning-effort low <<<'[{"role":"user","content":"hi"}]'
	[[ $output == '<|start|>system<|message|>You are ChatGPT'*'Reasoning: low'*'<|start|>user<|message|>hi<|end|>' ]]
}

@test "Harmony input may be a conversation followed by message lines" {
	run harmony-render --to text --mode conversation <<<'{"messages":[{"role":"user","content":"a"}]}
{"role":"assistant","channel":"final","content":"b"}'
	[ "$output" = '<|start|>user<|message|>a<|end|><|start|>assistant<|channel|>final<|message|>b<|end|>' ]
}

@test "--to harmony writes the converted conversation, which renders the same" {
	a=$(harmony-render $F/anthropic_tools.json)
	b=$(harmony-render --to harmony $F/anthropic_tools.json | harmony-render)
	[ "$a" = "$b" ]
}

@test "--lines: one output line per request, errors in place, exit 1" {
	run harmony-render --lines --to json <<<'[{"role":"user","content":"a"}]
not json
[{"role":"tool","content":"x"}]
[{"role":"user","content":"b"}]'
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 6 ]
	err=$(harmony-render --lines --to json 2>&1 >/dev/null <<<'[{"role":"user","content":"a"}]
not json
[{"role":"tool","content":"x"}]' || true)
	[ "$err" = 'harmony-render: -:2:1: expected value
harmony-render: -:3: Tools should have a name!' ]
	out=$(harmony-render --lines --to json 2>/dev/null <<<'[{"role":"user","content":"a"}]
not json' || true)
	[ "$(sed -n 2p <<<"$out")" = '{"error":"expected value at line 1 column 1","line":2}' ]
	out=$(harmony-render --lines 2>/dev/null <<<'not json
[{"role":"user","content":"a"}]' || true)
	[ "$(sed -n 1p <<<"$out")" = "" ]
	[ "$(sed -n 2p <<<"$out")" = "200006 1428 200008 64 200007 200006 173781" ]
	run harmony-render --lines --to text <<<'[]'
	[ "$status" -eq 2 ]
}

@test "bad input exits 1, a missing file 3, usage errors 2" {
	run harmony-render <<<'{"messages":[{"role":"User","content":"x"}]}'
	[ "$status" -eq 1 ]
	[[ $output == *'unknown variant `User`'* ]]
	run harmony-render /no/such/file
	[ "$status" -eq 3 ]
	run harmony-render --from nope
	[ "$status" -eq 2 ]
	[ "${lines[1]}" = "Try 'harmony-render --help'." ]
}

@test "the man pages' tables fit 80 columns: no groff or man warnings" {
	command -v groff >/dev/null || { echo "groff is not installed (make deps)"; return 1; }
	for m in man/harmony-render.1 man/harmony-tools.1; do
		# man-db formats an 80-column terminal at a line length of 78n.
		warn=$(groff -t -man -ww -z -Tutf8 -rLL=78n "$m" 2>&1)
		[ -z "$warn" ] || { echo "$m: $warn"; return 1; }
		if command -v man >/dev/null; then
			warn=$(MANWIDTH=80 man --warnings -l "$m" 2>&1 >/dev/null)
			[ -z "$warn" ] || { echo "$m: $warn"; return 1; }
		fi
	done
	# The mapping tables are there, one row per line of the source.
	groff -t -man -Tutf8 -rLL=78n man/harmony-render.1 2>/dev/null |
	    grep -q 'tool_calls\[i\] *assistant to=functions.NAME, commentary,'
}

@test "--pretty indents JSON output, which reads back the same" {
	run harmony-render --pretty --to json $F/chat_tools.json
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{' ]
	[[ ${lines[1]} == '  "tokens": [200006, 17360, 200008, '*'200006, 173781],' ]]
	[ "${lines[2]}" = '  "stop_token_ids": [200002, 200012],' ]
	[ "${lines[-1]}" = '}' ]
	# The same object as the compact output, field for field, in order.
	compact=$(harmony-render --to json $F/chat_tools.json)
	[ "$(printf '%s\n' "$output" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), ensure_ascii=False, separators=(",", ":")))')" = "$compact" ]
	# Indented Harmony JSON is still input: it renders as the request does.
	harmony-render --pretty --to harmony $F/chat_tools.json >$BATS_TEST_TMPDIR/conv
	[ "$(wc -l <$BATS_TEST_TMPDIR/conv)" -gt 20 ]
	grep -q '^      "role": "tool",$' $BATS_TEST_TMPDIR/conv
	[ "$(harmony-render --from harmony $BATS_TEST_TMPDIR/conv)" = "$(harmony-render $F/chat_tools.json)" ]
	# Ids and text are not JSON: unchanged.
	[ "$(harmony-render --pretty $F/chat_tools.json)" = "$(harmony-render $F/chat_tools.json)" ]
	[ "$(harmony-render --pretty --to text $F/chat_tools.json)" = "$(harmony-render --to text $F/chat_tools.json)" ]
	# One line per request and indented JSON do not go together.
	run harmony-render --pretty --lines --to json $F/chat_tools.json
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = 'harmony-render: --pretty spans lines; --lines writes one line per request' ]
}
