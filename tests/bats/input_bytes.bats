#!/usr/bin/env bats
# input_bytes.bats - bytes that are not the text: a UTF-8 byte order mark
# at the start of any input is skipped by every tool; a raw control
# character inside a JSON string is invalid JSON (an error line in its
# place, named), never a silent cut, while plain text keeps it; a lone
# surrogate escape is an error in every reader.

bats_require_minimum_version 1.5.0

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH" LC_ALL=C
	T=$BATS_TEST_TMPDIR
	BOM=$'\xef\xbb\xbf'
}

HI='[200005,17196,200008,12194,200002]'

# "$@" on the file with a BOM and without: the same stdout and status.
same_with_bom() {
	local f=$1
	shift
	{ printf '%s' "$BOM"; cat "$f"; } >"$T/bom"
	run --separate-stderr "$@" "$f"
	local want=$output wst=$status
	run --separate-stderr "$@" "$T/bom"
	[ "$status" -eq "$wst" ]
	[ "$output" = "$want" ]
	[ -n "$output" ]
	# from a pipe too, one byte at a time at the start
	run --separate-stderr bash -c '{ printf "\xef"; sleep 0.05; printf "\xbb"; sleep 0.05; tail -c +3 "$0"; } | "$@"' \
	    "$T/bom" "$@"
	[ "$status" -eq "$wst" ]
	[ "$output" = "$want" ]
}

@test "BOM: skipped at the start of every input of every tool" {
	python3 bench/gen_log.py --records 5 --seed 2 --short >"$T/log"
	same_with_bom "$T/log" harmony-parse --to chat
	same_with_bom "$T/log" harmony-parse --to chat --lines
	printf '%s\n' "$HI" >"$T/arr"
	same_with_bom "$T/arr" harmony-parse
	printf '200005 17196 200008 12194 200002\n' >"$T/ids"
	same_with_bom "$T/ids" harmony-parse --to chat
	same_with_bom "$T/ids" harmony-tokens decode
	same_with_bom "$T/ids" harmony-tokens count --from ids
	same_with_bom "$T/ids" harmony-tokens inspect --from ids
	printf '<|channel|>final<|message|>Hi<|return|>' >"$T/text"
	same_with_bom "$T/text" harmony-parse --to chat
	printf 'data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n' >"$T/sse"
	same_with_bom "$T/sse" harmony-parse --to chat
	printf '{"messages":[{"role":"user","content":"hi"}]}\n' >"$T/req"
	same_with_bom "$T/req" harmony-render
	printf '[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]\n' >"$T/tools"
	same_with_bom "$T/tools" harmony-tools render
	printf '{"type":"object"}\n' >"$T/schema"
	printf '{"a":1}\n' >"$T/vals"
	same_with_bom "$T/vals" harmony-tools validate --schema "$T/schema"
	# the summary counts the BOM's bytes: they were read
	{ printf '%s' "$BOM"; cat "$T/log"; } >"$T/b"
	[ "$(harmony-parse -q --to stats --summary "$T/b" | jq .input_bytes)" -eq $(($(wc -c <"$T/log") + 3)) ]
	[ "$(harmony-parse -q --to stats --summary "$T/b" | jq -c 'del(.input_bytes)')" = \
	    "$(harmony-parse -q --to stats --summary "$T/log" | jq -c 'del(.input_bytes)')" ]
	# text to encode keeps it: U+FEFF is a character the tokenizer encodes,
	# as the reference's does (conformance vector tok-ws-0257)
	[ "$(printf '\xef\xbb\xbfHi' | harmony-tokens encode)" = "$(printf '\xef\xbb\xbf' | harmony-tokens encode) $(printf 'Hi' | harmony-tokens encode)" ]
	[ "$(printf '\xef\xbb\xbfHi' | harmony-tokens encode | harmony-tokens decode | od -An -tx1 | tr -d ' ')" = efbbbf4869 ]
	[ "$(printf '\xef\xbb\xbfHi' | harmony-tokens count)" -eq 2 ]
	# --strict reads every byte as the reference does: the BOM is no header
	[ "$(printf '\xef\xbb\xbf<|channel|>final<|message|>Hi<|return|>' | harmony-parse --strict --from text --to chat | jq -r .message.content)" = null ]
	# bytes that only begin like a BOM are text: U+FEC0 is EF BB 80
	[ "$(printf '\xef\xbb\x80' | harmony-tokens encode | harmony-tokens decode | od -An -tx1 | tr -d ' ')" = efbb80 ]
}

@test "raw control bytes: invalid JSON in a record, an error line in its place, named" {
	{
		printf '{"id":"a","text":"<|channel|>final<|message|>a\0b<|return|>"}\n'
		printf '{"id":"b","tokens":%s,"note":"x\001y"}\n' "$HI"
		printf '{"id":"c","tokens":%s}\n' "$HI"
	} >"$T/log"
	run --separate-stderr harmony-parse --to chat "$T/log"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = '{"error":"not JSON: raw control character U+0000 in a string at byte 46 (JSON writes it escaped)","line":1}' ]
	[[ "${lines[1]}" == '{"error":"not JSON: raw control character U+0001 in a string at byte '*'"line":2}' ]]
	jq -e '.message.content == "Hi" and .finish_reason == "stop"' <<<"${lines[2]}"
	[[ "$stderr" == *"log:1: not JSON: raw control character U+0000"* ]]
	# in an SSE chunk: named, not "no tokens array"
	printf 'data: {"choices":[{"index":0,"delta":{"content":"a\0b"},"finish_reason":"stop"}]}\n\n' >"$T/sse"
	run --separate-stderr harmony-parse --to chat "$T/sse"
	[ "$status" -eq 1 ]
	[[ "$output" == *'"error":"not JSON: raw control character U+0000 in a string'* ]]
	printf 'data: {"choices":[{"index":0,"delta":{"content":"a\xffb"},"finish_reason":"stop"}]}\n\n' >"$T/sse"
	run --separate-stderr harmony-parse --to chat "$T/sse"
	[[ "$output" == *'"error":"not JSON: bytes that are not UTF-8 at byte 44"'* ]]
	# escaped, they are text, kept whole
	printf '{"text":"<|channel|>final<|message|>a\\u0000b<|return|>"}\n' >"$T/esc"
	[ "$(harmony-parse --to chat "$T/esc" | jq -c '[.message.content, .finish_reason]')" = '["a\u0000b","stop"]' ]
	# plain text keeps a raw NUL as it did
	printf '<|channel|>final<|message|>a\0b<|return|>' >"$T/text"
	[ "$(harmony-parse --to chat "$T/text" | jq -c '[.message.content, .finish_reason]')" = '["a\u0000b","stop"]' ]
}

@test "lone surrogates: an error in every reader, named" {
	printf '{"text":"<|channel|>final<|message|>a\\ud800b<|return|>"}\n{"x":"\\udc00","tokens":%s}\n{"tokens":%s}\n' \
	    "$HI" "$HI" >"$T/log"
	run --separate-stderr harmony-parse --to chat "$T/log"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = '{"error":"not JSON: lone surrogate \\ud800 in a string at byte 37 (no character: a pair'"'"'s half alone)","line":1}' ]
	[[ "${lines[1]}" == *'lone surrogate \\udc00'* ]]
	jq -e '.message.content == "Hi"' <<<"${lines[2]}"
	# a pair is a character
	printf '{"text":"<|channel|>final<|message|>\\ud83d\\ude00<|return|>"}\n' >"$T/pair"
	[ "$(harmony-parse --to chat "$T/pair" | jq -r .message.content)" = $'\xf0\x9f\x98\x80' ]
	# the request reader (serde_json's rule) and the SSE reader agree
	run harmony-render <<<'{"messages":[{"role":"user","content":"\ud800"}]}'
	[ "$status" -eq 1 ]
	run harmony-parse --to chat <<<'data: {"choices":[{"index":0,"delta":{"content":"\ud800"},"finish_reason":"stop"}]}'
	[ "$status" -eq 1 ]
}

@test "messages: control characters escaped on stderr; an unknown id named" {
	run --separate-stderr harmony-parse --to chat <<<$'{"tokens":[1]} a\tb\x1b[31m'
	[ "$status" -eq 1 ]
	[ "$stderr" = "harmony-parse: -:1: text after the JSON record: 'a\\tb\\x1b[31m'" ]
	# a schema's pattern with a newline in it stays on its line
	printf '{"pattern":"(a\\nb"}\n' >"$T/schema"
	run --separate-stderr harmony-tools validate --schema "$T/schema" <<<'"c"'
	[ "$stderr" = "harmony-tools: $T/schema:1: pattern \"(a\\nb\": missing ) at character 5" ]
	# harmony-parse names the id it could not read, in a header as in content
	run --separate-stderr harmony-parse <<<'200005 999999 200008 12194 200002'
	[[ "$stderr" == *"unknown token id 999999 in header replaced by U+FFFD (F12)"* ]]
	run --separate-stderr harmony-parse <<<'200005 17196 200008 12194 999998 200002'
	[[ "$stderr" == *"unknown token id 999998 replaced by U+FFFD"* ]]
}
