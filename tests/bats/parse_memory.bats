#!/usr/bin/env bats
# parse_memory.bats - harmony-parse's memory as harmony-parse(1) states it
# (DESCRIPTION): the shapes written as they go (messages, events, text,
# answer, chat-stream, anthropic-stream) hold no more for a completion of
# 6 M ids than for one of 1 M, from ids and from text; the shapes that
# must hold a completion (chat, chat-completion, responses,
# responses-stream, anthropic) hold one copy of its text, not one more
# escaped in the output.  GNU time (`time` package, tools/install-deps)
# measures the peak.  A few seconds.

load helpers

setup() {
	hm_setup
	TMP=$(mktemp -d)
}

teardown() {
	rm -rf "$TMP"
}

# One final answer of $1 M ids of " the" (290), as ids in $2.ids and as text in $2.txt.
completion() {
	python3 -c '
import sys
n = int(sys.argv[1])
with open(sys.argv[2] + ".ids", "w") as f:
    f.write("200006 173781 200005 17196 200008 ")
    for _ in range(n * 10):
        f.write("290 " * 100000)
    f.write("200002\n")
with open(sys.argv[2] + ".txt", "w") as f:
    f.write("<|start|>assistant<|channel|>final<|message|>")
    for _ in range(n * 10):
        f.write(" the" * 100000)
    f.write("<|return|>")
' "$1" "$2"
}

@test "parse: streamed shapes in constant memory, whole shapes with one copy of the text (1 M and 6 M ids)" {
	[ -x /usr/bin/time ] || { echo "GNU time is missing: run tools/install-deps" >&2; return 1; }
	hm_sanitized harmony-parse && skip "sanitizer build: memory is not bounded the same way"
	completion 1 "$TMP/small"
	completion 6 "$TMP/big"
	# the text that grows: 5 M tokens of 4 bytes, in KiB
	grow=$(( 5000000 * 4 / 1024 ))
	[ "$(harmony-parse -q --to answer "$TMP/big.ids" | wc -c)" -eq 24000001 ]
	[ "$(harmony-parse -q --from text --to answer "$TMP/big.txt" | wc -c)" -eq 24000001 ]
	for in in ids txt; do
		from=ids
		[ "$in" = txt ] && from=text
		for to in messages events text answer chat-stream anthropic-stream; do
			a=$(hm_peak_min harmony-parse -q --from $from --to $to "$TMP/small.$in")
			b=$(hm_peak_min harmony-parse -q --from $from --to $to "$TMP/big.$in")
			echo "$from --to $to: $a KiB for 1 M ids, $b KiB for 6 M" >&2
			# the same but for noise (two huge pages): under 4 MiB more for
			# 5 M more ids, so less than a byte kept per id
			[ "$b" -le $((a + 4096)) ] || { echo "$from $to grows" >&2; return 1; }
		done
		for to in chat chat-completion responses responses-stream anthropic; do
			a=$(hm_peak harmony-parse -q --from $from --to $to "$TMP/small.$in")
			b=$(hm_peak harmony-parse -q --from $from --to $to "$TMP/big.$in")
			echo "$from --to $to: $a KiB for 1 M ids, $b KiB for 6 M (text grows by $grow KiB)" >&2
			# one copy of the text that grew, a quarter more for the buffer's slack
			[ $(( (b - a) * 4 )) -le $(( grow * 5 )) ] || { echo "$from $to holds more than one copy" >&2; return 1; }
		done
	done
}
