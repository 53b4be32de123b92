#!/usr/bin/env bats
# parse_answer.bats - harmony-parse --to answer: only what the end user
# sees (final text and preambles), never reasoning, labels or tool calls;
# plain text is the answer; records give one JSON string each; written as
# the tokens come.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C
	F=fixtures/parse
	T=$BATS_TEST_TMPDIR
}

FULL='<|channel|>analysis<|message|>The user wants the weather. SECRET.<|end|><|start|>assistant<|channel|>commentary<|message|>Let me look that up.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"city":"Tokyo"}<|call|>'
FINAL='<|start|>assistant<|channel|>analysis<|message|>20 degrees: mild. SECRET.<|end|><|start|>assistant<|channel|>final<|message|>It is 20 °C in Tokyo.<|return|>'

@test "answer: final text and preambles, joined by a newline; no reasoning, labels or calls" {
	printf '%s' "$FULL$FINAL" | harmony-parse --from text --to answer >"$T/out"
	printf 'Let me look that up.\nIt is 20 °C in Tokyo.\n' | cmp - "$T/out"
	# the same from token ids
	printf '%s' "$FULL$FINAL" | harmony-tokens encode | harmony-parse --to answer | cmp - "$T/out"
	# only a tool call: nothing to show
	run harmony-parse --to answer "$F/call.ids"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "answer: plain text without any Harmony structure is the answer" {
	run harmony-parse -q --from text --to answer <<<'The answer is 4.'
	[ "$output" = 'The answer is 4.' ]
	printf 'The answer is 4.' | harmony-tokens encode >"$T/ids"
	run harmony-parse -q --to answer "$T/ids"
	[ "$output" = 'The answer is 4.' ]
	# the text ends with a newline once, whether or not the model wrote one
	[ "$(printf 'Four.' | harmony-parse -q --from text --to answer | od -An -c | tr -d ' ')" = 'Four.\n' ]
	[ "$(printf 'Four.\n' | harmony-parse -q --from text --to answer | od -An -c | tr -d ' ')" = 'Four.\n' ]
}

@test "answer: text before a channel message is reasoning, and never shows (F18, stripped specials)" {
	for in in 'I think. SECRET.<|channel|>final<|message|>4<|return|>' \
	    'I think. SECRET.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>' \
	    'analysisI think. SECRET.assistantfinal4'; do
		run harmony-parse -q --from text --to answer <<<"$in"
		[ "$output" = 4 ]
	done
	for n in f18-prose-reasoning f18b-prose-channel f18c-stripped-prose f13-stripped f13c-stripped-preamble; do
		# shellcheck disable=SC2046
		harmony-parse -q $(cat "$F/$n.args") --to answer <"$F/$n.in" >"$T/out"
		# what the Chat shape shows as content, and nothing of its reasoning
		# shellcheck disable=SC2046
		harmony-parse -q $(cat "$F/$n.args") --to chat <"$F/$n.in" >"$T/chat"
		[ "$(cat "$T/out")" = "$(jq -r '.message.content // empty' "$T/chat")" ] || { echo "$n"; return 1; }
		reason=$(jq -r '.message.reasoning_content // empty' "$T/chat")
		[ -z "$reason" ] || ! grep -qF -- "$reason" "$T/out" || { echo "$n leaks"; return 1; }
	done
}

@test "answer: every fixture shows exactly the Chat shape's content" {
	# One jq for all fixtures: each name, then its content as jq -r and
	# $(...) would give it (lines joined, trailing newlines dropped).
	mkdir "$T/chat" "$T/ans"
	names=()
	for in in "$F"/*.ids "$F"/f*.in; do
		args=
		case $in in *.in) args=$(cat "${in%.in}.args") ;; esac
		case " $args " in *" --lines "*) continue ;; esac
		base=${in##*/}
		# shellcheck disable=SC2086
		harmony-parse -q $args --to chat "$in" >"$T/chat/$base"
		# shellcheck disable=SC2086
		harmony-parse -q $args --to answer "$in" >"$T/ans/$base"
		names+=("$base")
	done
	jq -jn 'def rstrip: if endswith("\n") then .[:-1] | rstrip else . end;
	    reduce inputs as $m (reduce $ARGS.positional[] as $n ({}; .[$n] = "");
	        .[input_filename | sub(".*/"; "")] += ([$m.message.content // empty | . + "\n"] | add // "")) |
	    to_entries[] | .key + "\u0000" + (.value | rstrip) + "\u0000"' \
	    "$T"/chat/* --args "${names[@]}" >"$T/want"
	n=0
	while IFS= read -r -d '' name && IFS= read -r -d '' want; do
		got=$(<"$T/ans/$name")
		[ "$got" = "$want" ] || { echo "$name: '$got' != '$want'"; return 1; }
		n=$((n + 1))
	done <"$T/want"
	[ "$n" -eq "${#names[@]}" ]
	[ "$n" -ge 45 ]
}

@test "answer: --channels still applies, and analysis kept by it is still not the answer" {
	run harmony-parse --from text --channels analysis --to answer <<<"$FINAL"
	[ -z "$output" ]
	run harmony-parse --from text --channels commentary --to answer <<<"$FULL$FINAL"
	[ "$output" = 'Let me look that up.' ]
}

@test "answer: records give one JSON string each, \"\" without an answer, an error line for a bad one" {
	{
		jq -cn --arg t "$FULL$FINAL" '{id: "a", text: $t}'
		jq -cn --arg t '<|channel|>final<|message|>two
lines<|return|>' '{id: "b", text: $t}'
		echo '{"id":"c","output_ids":[200005,35644,200008,12194,200007]}'
		echo '{"id":"d","output_ids":"bad"}'
		echo '{"id":"e","text":"plain"}'
	} >"$T/log"
	st=0
	harmony-parse -q --to answer "$T/log" >"$T/out" 2>"$T/err" || st=$?
	[ "$st" -eq 1 ]
	grep -q 'log:4: the id field is not an array' "$T/err"
	run cat "$T/out"
	[ "${#lines[@]}" -eq 5 ]
	[ "${lines[0]}" = '"Let me look that up.\nIt is 20 °C in Tokyo."' ]
	[ "${lines[1]}" = '"two\nlines"' ]
	[ "${lines[2]}" = '""' ]
	[[ "${lines[3]}" == '{"id":"d","error":'* ]]
	[ "${lines[4]}" = '"plain"' ]
	[ "$(harmony-parse -q --to answer "$T/log" 2>/dev/null | jq -r 'strings' | head -n 2)" = 'Let me look that up.
It is 20 °C in Tokyo.' ]
}

@test "answer: written token by token while the input is still being written" {
	mkfifo "$T/fifo"
	harmony-parse --to answer <"$T/fifo" >"$T/ans" &
	pid=$!
	exec 5>"$T/fifo"
	# <|channel|>final<|message|>Hi
	echo '200005 17196 200008 12194' >&5
	for i in $(seq 1 25); do
		[ "$(cat "$T/ans")" = Hi ] && break
		sleep 0.2
	done
	[ "$(cat "$T/ans")" = Hi ]
	# " there" (1354) and <|return|>
	echo '1354 200002' >&5
	exec 5>&-
	wait "$pid"
	[ "$(cat "$T/ans")" = 'Hi there' ]
}

@test "answer: the same bytes for any chunking of the input" {
	printf '%s' "$FULL$FINAL" >"$T/in"
	harmony-parse -q --from text --to answer <"$T/in" >"$T/whole"
	for bs in 1 2 5 13; do
		dd if="$T/in" bs=$bs 2>/dev/null | harmony-parse -q --from text --to answer | cmp "$T/whole" -
	done
	run harmony-parse --pretty --to answer "$T/in"
	[ "$status" -eq 2 ]
}
