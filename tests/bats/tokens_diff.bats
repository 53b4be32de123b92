#!/usr/bin/env bats
# tokens_diff.bats - harmony-tokens diff: CI regression of token files, and
# the CI loop of docs/guide.md.

load helpers

setup() {
	hm_setup
	F=fixtures/diff
	T=$BATS_TEST_TMPDIR
}

# The ```sh block number $1 (from 1) under "## CI regression of rendered
# prompts" in docs/guide.md.
readme_block() {
	awk -v want="$1" '/^## CI regression of rendered prompts/ { sec = 1; next }
	    sec && /^## / { exit }
	    sec && /^```sh$/ { n++; blk = (n == want); next }
	    blk && /^```$/ { blk = 0; next }
	    blk { print }' docs/guide.md
}

# The report the guide shows (its plain ``` block).
readme_report() {
	awk '/^## CI regression of rendered prompts/ { sec = 1; next }
	    sec && /^## / { exit }
	    sec && /^```sh$/ { insh = 1; next }
	    insh && /^```$/ { insh = 0; next }
	    sec && /^```$/ && !blk { blk = 1; next }
	    blk && /^```$/ { exit }
	    blk { print }' docs/guide.md
}

# run with stdout and stderr apart: $out, $err, $status.
run2() {
	status=0
	"$@" >"$T/out" 2>"$T/err" || status=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}

@test "the guide's CI loop: record, check equal (0), a changed conversation fails (1)" {
	readme_block 1 >"$T/record.sh"
	readme_block 2 >"$T/check.sh"
	grep -q 'harmony-render --lines' "$T/record.sh"
	grep -q 'harmony-render --lines' "$T/check.sh"
	grep -q 'harmony-tokens diff' "$T/check.sh"
	mkdir -p "$T/run/fixtures"
	cp -r "$ROOT/$F" "$T/run/fixtures/"
	cd "$T/run"
	# recording again gives the committed recording
	sh -eu ../record.sh
	cmp fixtures/diff/recorded.ids "$ROOT/$F/recorded.ids"
	[ "$(wc -l <fixtures/diff/recorded.ids)" -eq "$(wc -l <fixtures/diff/requests.ndjson)" ]
	# this version renders them the same: silent, exit 0
	run2 sh -u ../check.sh
	[ "$status" -eq 0 ]
	[ -z "$out" ]
	[ -z "$err" ]
	# a changed conversation: exit 1 and the report of the guide
	sed -i 's/7 is prime\./7 is a prime./' fixtures/diff/requests.ndjson
	run2 sh -u ../check.sh
	[ "$status" -eq 1 ]
	[ -z "$err" ]
	[ "$out" = "$(cat "$ROOT/$F/ci-modified.out")" ]
	[ "$out" = "$(cd "$ROOT" && readme_report)" ]
}

@test "equal files: exit 0 and no output, whatever the format of each" {
	ids=$(head -n 1 $F/recorded.ids)
	json="[${ids// /,}]"
	printf '%s\n' "$ids" >"$T/spaces"
	printf '%s\n' "${ids// /,}" >"$T/commas"
	printf '%s\n' "$json" >"$T/array"
	for k in tokens token_ids output_ids input_ids; do
		printf '{"id":"x","%s":%s,"n":1}\n' "$k" "$json" >"$T/$k"
	done
	for a in spaces commas array tokens token_ids output_ids input_ids; do
		run2 harmony-tokens diff "$T/spaces" "$T/$a"
		[ "$status" -eq 0 ] || { echo "$a: $status $out $err"; return 1; }
		[ -z "$out$err" ]
	done
	run2 harmony-tokens diff $F/recorded.ids $F/recorded.ids
	[ "$status" -eq 0 ]
	[ -z "$out$err" ]
	# standard input for one side
	run2 sh -c "harmony-tokens diff - $F/recorded.ids <$F/recorded.ids"
	[ "$status" -eq 0 ]
	[ -z "$out$err" ]
	# empty files have no records: equal
	: >"$T/empty"
	run2 harmony-tokens diff "$T/empty" /dev/null
	[ "$status" -eq 0 ]
	[ -z "$out$err" ]
}

@test "a difference in the middle, in each input format: the same report" {
	a=$(head -n 1 $F/places-a.ids)
	b=$(sed -n 2p $F/places-b.ids)   # token 3 differs: Hi -> Hello
	want='A:1 B:1: first difference at token 3 (15 and 15 tokens)
- ids:  200006 1428 200008 [12194] 200007 200006 173781 200005 ...
+ ids:  200006 1428 200008 [13225] 200007 200006 173781 200005 ...
- text: "<|start|>user<|message|>" ["Hi"] "<|end|><|start|>assistant<|channel|>"
+ text: "<|start|>user<|message|>" ["Hello"] "<|end|><|start|>assistant<|channel|>"
  in:   content of message 1 (role user)
  drift: the text changed too, from byte 25 (token 3 of A, token 3 of B)'
	cd "$T"
	for fmt in spaces commas array output_ids; do
		for s in a b; do
			v=${!s}
			case $fmt in
			spaces) echo "$v" ;;
			commas) echo "${v// /, }" ;;
			array) echo "[${v// /,}]" ;;
			output_ids) echo "{\"output_ids\":[${v// /,}],\"id\":7}" ;;
			esac >"${s^^}"
		done
		run2 harmony-tokens diff A B
		[ "$status" -eq 1 ] || { echo "$fmt: status $status"; return 1; }
		[ -z "$err" ]
		[ "$out" = "$want" ] || { echo "$fmt:"; echo "$out"; return 1; }
	done
}

@test "where a difference falls: header, content, stop token, outside, unfinished header" {
	run2 harmony-tokens diff --context=1 $F/places-a.ids $F/places-b.ids
	[ "$status" -eq 1 ]
	[ -z "$err" ]
	[ "$out" = "$(cat $F/places.out)" ]
	# one report per differing record, each naming its place
	[ "$(grep -c '^fixtures/diff/places-a.ids:[0-9]* ' <<<"$out")" -eq 6 ]
	grep -qx -- '- in:   header of message 1 (role user)' <<<"$out"
	grep -qx -- '  in:   content of message 1 (role user)' <<<"$out"
	grep -qx -- '  in:   stop token of message 1 (role user)' <<<"$out"
	grep -qx -- '  in:   after message 2, outside any message' <<<"$out"
	grep -qx -- '- in:   header of message 3 (role assistant), unfinished' <<<"$out"
	grep -qx -- '+ in:   header of message 2 (role assistant, channel analysis)' <<<"$out"
	# a completion (no <|start|>) is an assistant message; a tool call names its recipient
	run2 harmony-tokens diff --context=0 <(sed -n 2p $F/log-a.ndjson) <(sed -n 2p $F/log-a.ndjson | sed 's/10848,/10849,/')
	[ "$status" -eq 1 ]
	[[ $out == *'  in:   content of message 1 (role assistant, to functions.get_weather, channel commentary)'$'\n''  drift: the text changed too, from byte '* ]]
}

@test "the token index reported is the first position where the ids part" {
	a=($(head -n 1 $F/recorded.ids))
	for i in 0 1 17 40 "$((${#a[@]} - 1))"; do
		b=("${a[@]}")
		b[$i]=$(( (${b[$i]} + 1) % 199998 ))
		echo "${a[*]}" >"$T/a"
		echo "${b[*]}" >"$T/b"
		run2 harmony-tokens diff --to=json "$T/a" "$T/b"
		[ "$status" -eq 1 ]
		[ "$(jq -r .token <<<"$out")" -eq "$i" ]
		[ "$(jq -r .a.id <<<"$out")" -eq "${a[$i]}" ]
		[ "$(jq -r .b.id <<<"$out")" -eq "${b[$i]}" ]
		[ "$(jq -r '.a.text' <<<"$out")" = "$(echo "${a[$i]}" | harmony-tokens decode)" ]
	done
}

@test "one record the start of the other: a length difference, either way" {
	printf '200006 1428 200008 12194\n' >"$T/short"
	printf '200006 1428 200008 12194 200007 200006\n' >"$T/long"
	cd "$T"
	run2 harmony-tokens diff short long
	[ "$status" -eq 1 ]
	[ -z "$err" ]
	[ "$out" = 'short:1 long:1: short ends at token 4, long goes on (4 and 6 tokens)
- ids:  200006 1428 200008 12194 [end]
+ ids:  200006 1428 200008 12194 [200007] 200006
- text: "<|start|>user<|message|>Hi" [end]
+ text: "<|start|>user<|message|>Hi" ["<|end|>"] "<|start|>"
+ in:   stop token of message 1 (role user)
  drift: the text changed too, from byte 26 (short'"'"'s text ends there, token 4 of long)' ]
	run2 harmony-tokens diff long short
	[ "$status" -eq 1 ]
	[ "${out%%$'\n'*}" = 'long:1 short:1: short ends at token 4, long goes on (6 and 4 tokens)' ]
	[[ $out == *'- in:   stop token of message 1 (role user)'$'\n''  drift: the text changed too, from byte 26 (token 4 of long, short'"'"'s text ends there)' ]]
	# an empty record against a non-empty one
	printf '\n' >empty1
	run2 harmony-tokens diff empty1 short
	[ "$status" -eq 1 ]
	[ "${out%%$'\n'*}" = 'empty1:1 short:1: empty1 ends at token 0, short goes on (0 and 4 tokens)' ]
	run2 harmony-tokens diff --to=json short long
	[ "$(jq -c '[.type, .token, .a.id, .a.place, .b.id, .b.place.part]' <<<"$out")" = '["length",4,null,null,200007,"stop"]' ]
}

@test "a different number of records: each extra record is a difference" {
	head -n 1 $F/recorded.ids >"$T/one"
	run2 harmony-tokens diff "$T/one" $F/recorded.ids
	[ "$status" -eq 1 ]
	[ -z "$err" ]
	[ "$out" = "$F/recorded.ids:2: only in $F/recorded.ids (80 tokens)
$F/recorded.ids:3: only in $F/recorded.ids ($(sed -n 3p $F/recorded.ids | wc -w) tokens)" ]
	run2 harmony-tokens diff $F/recorded.ids "$T/one"
	[ "$status" -eq 1 ]
	[ "$(wc -l <<<"$out")" -eq 2 ]
	[[ ${out%%$'\n'*} == "$F/recorded.ids:2: only in $F/recorded.ids (80 tokens)" ]]
	run2 harmony-tokens diff --to=json $F/recorded.ids /dev/null
	[ "$(jq -c '[.type, .key, .a.line, .a.tokens]' <<<"$out" | head -n 1)" = '["only_a",null,1,'"$(head -n 1 $F/recorded.ids | wc -w)"']' ]
}

@test "--key pairs records by a field: reordered, missing and added records" {
	run2 harmony-tokens diff --key=id $F/log-a.ndjson $F/log-b.ndjson
	[ "$status" -eq 1 ]
	[ -z "$err" ]
	[ "$out" = "$(cat $F/key.out)" ]
	# the same records in another order are equal by key, not by line
	tac $F/log-a.ndjson >"$T/rev"
	run2 harmony-tokens diff --key=id $F/log-a.ndjson "$T/rev"
	[ "$status" -eq 0 ]
	[ -z "$out$err" ]
	run2 harmony-tokens diff $F/log-a.ndjson "$T/rev"
	[ "$status" -eq 1 ]
	[ "$(grep -c 'first difference' <<<"$out")" -eq 2 ]
	# keys compare as JSON values: 1 and "1" differ
	printf '{"id":1,"tokens":[1]}\n' >"$T/n"
	printf '{"id":"1","tokens":[1]}\n' >"$T/s"
	run2 harmony-tokens diff --key=id "$T/n" "$T/s"
	[ "$status" -eq 1 ]
	[ "$out" = "$T/n:1: id 1: only in $T/n (1 token)
$T/s:1: id \"1\": only in $T/s (1 token)" ]
	run2 harmony-tokens diff --key=id --to=json $F/log-a.ndjson $F/log-b.ndjson
	[ "$(jq -c '[.type, .key]' <<<"$out" | tr '\n' ' ')" = '["differ","r1"] ["only_a","r2"] ["only_b","r4"] ' ]
}

@test "bad input: reported on stderr, not compared, exit 1; the rest is compared" {
	printf '1 2 3\n4 x 6\n7 8 9\n' >"$T/a"
	printf '1 2 3\n4 5 6\n7 8 10\n' >"$T/b"
	cd "$T"
	run2 harmony-tokens diff --context=0 a b
	[ "$status" -eq 1 ]
	[ "$err" = "harmony-tokens: a:2:3: token 1: not a token id: 'x'" ]
	[ "$out" = 'a:3 b:3: first difference at token 2 (3 and 3 tokens)
- ids:  ... [9]
+ ids:  ... [10]
- text: ["*"]
+ text: ["+"]
  in:   content of message 1 (role assistant)
  drift: the text changed too, from byte 2 (token 2 of a, token 2 of b)' ]
	# bad input alone: exit 1 with nothing on stdout, so stderr tells it apart
	printf '1 2 3\n4 5 6\n7 8 9\n' >b
	run2 harmony-tokens diff a b
	[ "$status" -eq 1 ]
	[ -z "$out" ]
	[ -n "$err" ]
	# an id past the vocabulary, on the other side
	printf '1 201089\n' >c
	run2 harmony-tokens diff b c
	[ "$status" -eq 1 ]
	[ "$err" = "harmony-tokens: c:1:3: token 1: id 201089 out of range (max 201088)" ]
	[ "$out" = "b:2: only in b (3 tokens)
b:3: only in b (3 tokens)" ]
	# --key: a line that is not a JSON object, a record without the field, a repeated key
	printf '{"id":"a","tokens":[1]}\n[1,2]\n{"tokens":[2]}\n{"id":"a","tokens":[3]}\n' >k
	run2 harmony-tokens diff --key=id k k
	[ "$status" -eq 1 ]
	[ -z "$out" ]
	[ "$(sort -u <<<"$err")" = 'harmony-tokens: k:2:1: --key=id: not a JSON object (looking for field "id")
harmony-tokens: k:3:1: --key=id: no field "id"
harmony-tokens: k:4: id "a" repeated (first on line 1): not compared' ]
	# --to json: an error record too
	run2 harmony-tokens diff --to=json a b
	[ "$(jq -c . <<<"$out")" = '{"type":"error","error":"token 1: not a token id: '"'x'"'","file":"a","line":2}' ]
}

@test "--quiet: the exit status alone; errors still on stderr" {
	run2 harmony-tokens diff -q $F/places-a.ids $F/places-b.ids
	[ "$status" -eq 1 ]
	[ -z "$out$err" ]
	run2 harmony-tokens diff --quiet --key=id $F/log-a.ndjson $F/log-b.ndjson
	[ "$status" -eq 1 ]
	[ -z "$out$err" ]
	run2 harmony-tokens diff --quiet $F/places-a.ids $F/places-a.ids
	[ "$status" -eq 0 ]
	[ -z "$out$err" ]
	printf 'x\n' >"$T/bad"
	run2 harmony-tokens diff -q "$T/bad" "$T/bad"
	[ "$status" -eq 1 ]
	[ -z "$out" ]
	[ "$(wc -l <<<"$err")" -eq 2 ]
}

@test "--to json: one NDJSON report a differing record, with ids, text and place" {
	run2 harmony-tokens diff --to=json --context=2 $F/places-a.ids $F/places-b.ids
	[ "$status" -eq 1 ]
	[ "$(wc -l <<<"$out")" -eq 6 ]
	first=$(head -n 1 <<<"$out")
	[ "$first" = '{"type":"differ","key":null,"token":1,"drift":"text","text_byte":9,"text_token_a":1,"text_token_b":1,"a":{"file":"fixtures/diff/places-a.ids","line":1,"tokens":15,"before":[200006],"id":1428,"after":[200008,12194],"text_before":"<|start|>","text":"user","text_after":"<|message|>Hi","place":{"part":"header","message":1,"role":"user","recipient":null,"channel":null,"unfinished":false}},"b":{"file":"fixtures/diff/places-b.ids","line":1,"tokens":15,"before":[200006],"id":17360,"after":[200008,12194],"text_before":"<|start|>","text":"system","text_after":"<|message|>Hi","place":{"part":"header","message":1,"role":"system","recipient":null,"channel":null,"unfinished":false}}}' ]
	[ "$(jq -r '.a.place.part' <<<"$out" | tr '\n' ' ')" = 'header content stop outside header header ' ]
	[ "$(jq -r '.b.place.unfinished' <<<"$out" | sed -n 5p)" = true ]
}

@test "color only when asked (or on a terminal)" {
	run2 harmony-tokens diff --color=always --context=0 $F/places-a.ids $F/places-b.ids
	[[ $out == *$'\033[1m'* ]]
	[[ $out == *$'\033[31m[1428]\033[0m'* ]]
	[[ $out == *$'\033[32m[17360]\033[0m'* ]]
	run2 harmony-tokens diff $F/places-a.ids $F/places-b.ids
	[[ $out != *$'\033'* ]]
}

@test "usage and I/O errors: 2 and 3" {
	for args in "diff" "diff $F/user.ids" "diff $F/user.ids $F/user.ids $F/user.ids" "diff - -" \
	    "--context=x diff a b" "--context=-1 diff a b" "--context=1001 diff a b" "--key= diff a b" \
	    "--lines diff a b" "--to=table diff a b" "--key=id decode" "--context=2 encode" "--from=ids diff a b"; do
		run2 harmony-tokens $args
		[ "$status" -eq 2 ] || { echo "$args: status $status"; return 1; }
		[ -z "$out" ]
		[ "$(tail -n 1 <<<"$err")" = "Try 'harmony-tokens --help'." ]
	done
	run2 harmony-tokens diff $F/user.ids "$T/no-such-file"
	[ "$status" -eq 3 ]
	[ -z "$out" ]
	[ "$err" = "harmony-tokens: $T/no-such-file: No such file or directory" ]
	run2 harmony-tokens diff "$T/no-such-file" $F/user.ids
	[ "$status" -eq 3 ]
}

# prev and next of the multi-turn log: turn n's prompt and completion, and
# turn n+1's prompt, one record a line.
turns_split() {
	jq -r '.input_ids + .output_ids | map(tostring) | join(" ")' $F/turns.ndjson | sed '$d' >"$T/prev"
	jq -r '.input_ids | map(tostring) | join(" ")' $F/turns.ndjson | sed 1d >"$T/next"
}

@test "--prefix on a multi-turn log: the turn whose call was re-rendered in another order is found" {
	turns_split
	cmp "$T/prev" $F/turns-prev.ids
	cmp "$T/next" $F/turns-next.ids
	# each turn's prompt is harmony-render's of its Chat request, and turn
	# 3's model wrote its call channel first (turns 1 and 2 recipient first)
	harmony-render --lines $F/turns-requests.ndjson >"$T/prompts"
	jq -r '.input_ids | map(tostring) | join(" ")' $F/turns.ndjson | cmp - "$T/prompts"
	for t in 1 2 3; do
		sed -n ${t}p $F/turns.ndjson | jq -r '.output_ids | map(tostring) | join(" ")' | harmony-tokens decode >"$T/c$t"
	done
	grep -q '^<|channel|>analysis<|message|>.*<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"city":"Paris"}<|call|>$' "$T/c1"
	grep -qx ' to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"city":"Tokyo"}<|call|>' "$T/c2"
	grep -qx '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Lima"}<|call|>' "$T/c3"
	run2 harmony-tokens diff --prefix $F/turns-prev.ids $F/turns-next.ids
	[ "$status" -eq 1 ]
	[ -z "$err" ]
	[ "$out" = "$(cat $F/turns-prefix.out)" ]
	# one report, for turn 3's completion (channel first) against turn 4's prompt
	[ "$(grep -c 'stops extending' <<<"$out")" -eq 1 ]
	[[ $out == "$F/turns-prev.ids:3 $F/turns-next.ids:3: $F/turns-next.ids stops extending $F/turns-prev.ids at token 207 "* ]]
	grep -qx -- '- text: " sunny<|end|><|start|>assistant" \["<|channel|>"\] "commentary to="' <<<"$out"
	grep -qx -- '+ text: " sunny<|end|><|start|>assistant" \[" to"\] "=functions.get_weather"' <<<"$out"
	grep -qx -- '  in:   header of message 9 (role assistant, to functions.get_weather, channel commentary)' <<<"$out"
	# the counts, worked out apart: a record that extends reuses all of A,
	# the one that does not its common prefix (207 tokens, checked here)
	p=($(sed -n 3p "$T/prev")) n=($(sed -n 3p "$T/next"))
	[ "${p[*]:0:207}" = "${n[*]:0:207}" ]
	[ "${p[207]}" != "${n[207]}" ]
	reused=207 recomputed=$(( ${#n[@]} - 207 ))
	for l in 1 2; do
		a=$(sed -n ${l}p "$T/prev" | wc -w) b=$(sed -n ${l}p "$T/next" | wc -w)
		[ "$b" -gt "$a" ]
		reused=$((reused + a)) recomputed=$((recomputed + b - a))
	done
	[ "${out##*$'\n'}" = "prefix: 2 of 3 records extend, 1 does not (0 retokenized, 1 with its text changed); $reused tokens reused, $recomputed recomputed" ]
	# the same turns as the server logged them, paired by --key
	jq -c '{turn: (.turn + 1), tokens: (.input_ids + .output_ids)}' $F/turns.ndjson >"$T/prevk"
	jq -c '{turn, tokens: .input_ids}' $F/turns.ndjson | tac >"$T/nextk"
	run2 harmony-tokens diff --prefix --key=turn "$T/prevk" "$T/nextk"
	[ "$status" -eq 1 ]
	grep -q "^$T/prevk:3 $T/nextk:1: turn 4: $T/nextk stops extending $T/prevk at token 207 " <<<"$out"
	grep -qx "$T/prevk:4: turn 5: only in $T/prevk (.* tokens)" <<<"$out"
	grep -qx "$T/nextk:4: turn 1: only in $T/nextk (.* tokens)" <<<"$out"
	t1=$(jq ".input_ids | length" $F/turns.ndjson | head -n 1)
	[ "${out##*$'\n'}" = "prefix: 2 of 5 records extend, 3 do not (0 retokenized, 1 with its text changed); $reused tokens reused, $((recomputed + t1)) recomputed" ]
}

@test "--prefix: records that extend (equal ones too) give the summary alone and exit 0" {
	turns_split
	head -n 2 "$T/prev" >"$T/a"
	head -n 2 "$T/next" >"$T/b"
	run2 harmony-tokens diff --prefix "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	[ -z "$err" ]
	a=$(cat "$T/a" | wc -w) b=$(cat "$T/b" | wc -w)
	[ "$out" = "prefix: 2 of 2 records extend, 0 do not; $a tokens reused, $((b - a)) recomputed" ]
	run2 harmony-tokens diff --prefix $F/recorded.ids $F/recorded.ids
	[ "$status" -eq 0 ]
	[ "$out" = "prefix: 3 of 3 records extend, 0 do not; $(cat $F/recorded.ids | wc -w) tokens reused, 0 recomputed" ]
	# plain diff still calls a longer record a difference
	run2 harmony-tokens diff "$T/a" "$T/b"
	[ "$status" -eq 1 ]
	# -q: nothing at all
	run2 harmony-tokens diff --prefix -q "$T/a" "$T/b"
	[ "$status" -eq 0 ]
	[ -z "$out$err" ]
	# empty files: no records, nothing reused
	run2 harmony-tokens diff --prefix /dev/null /dev/null
	[ "$status" -eq 0 ]
	[ "$out" = "prefix: 0 of 0 records extend, 0 do not; 0 tokens reused, 0 recomputed" ]
}

@test "--prefix: B shorter than A, a record on one side only, bad input, --to json, -q" {
	printf '200006 1428 200008 12194 200007\n200006 1428\n200006\n7 8\n' >"$T/a"
	printf '200006 1428 200008\n200006 1428 200008 12194\n200006\n' >"$T/b"
	cd "$T"
	run2 harmony-tokens diff --prefix --context=1 a b
	[ "$status" -eq 1 ]
	[ -z "$err" ]
	[ "$out" = 'a:1 b:1: b ends at token 3, a goes on (5 and 3 tokens; 3 reused, 0 recomputed)
- ids:  ... 200008 [12194] 200007
+ ids:  ... 200008 [end]
- text: "<|message|>" ["Hi"] "<|end|>"
+ text: "<|message|>" [end]
- in:   content of message 1 (role user)
  drift: the text changed too, from byte 24 (token 3 of a, b'"'"'s text ends there)
a:4: only in a (2 tokens)
prefix: 2 of 4 records extend, 2 do not (0 retokenized, 1 with its text changed); 6 tokens reused, 2 recomputed' ]
	run2 harmony-tokens diff --prefix b a
	[ "$status" -eq 1 ]
	grep -qx 'a:4: only in a (2 tokens)' <<<"$out"
	[ "${out##*$'\n'}" = 'prefix: 2 of 4 records extend, 2 do not (0 retokenized, 1 with its text changed); 6 tokens reused, 4 recomputed' ]
	run2 harmony-tokens diff --prefix --to=json a b
	[ "$status" -eq 1 ]
	[ "$(jq -c '[.type, .token, .reused, .recomputed, .a.id, .b.id]' <<<"$out" | head -n 1)" = '["length",3,3,0,12194,null]' ]
	[ "$(tail -n 1 <<<"$out")" = '{"type":"summary","records":4,"extend":2,"not_extend":2,"reused":6,"recomputed":2,"retokenized":0,"text_changed":1}' ]
	run2 harmony-tokens diff --prefix -q a b
	[ "$status" -eq 1 ]
	[ -z "$out$err" ]
	# a bad record is an error, not counted; the others still are
	printf '200006 x\n200006 1428\n' >c
	run2 harmony-tokens diff --prefix c a
	[ "$status" -eq 1 ]
	[ "$err" = "harmony-tokens: c:1:8: token 1: not a token id: 'x'" ]
	[ "$(tail -n 1 <<<"$out")" = 'prefix: 1 of 3 records extend, 2 do not; 2 tokens reused, 3 recomputed' ]
	# usage: --prefix goes with diff only
	run2 harmony-tokens --prefix encode /dev/null
	[ "$status" -eq 2 ]
	[ "$err" = "harmony-tokens: --key, --context and --prefix go with diff
Try 'harmony-tokens --help'." ]
	run2 harmony-tokens diff --prefix a no-such-file
	[ "$status" -eq 3 ]
	[ -z "$out" ]
}

@test "the guide's prefix-cache example runs and prints what the guide shows" {
	awk '/^### Finding prefix-cache misses/ { sec = 1; next }
	    sec && /^#/ && !blk { exit }
	    sec && /^```sh$/ { blk = 1; next }
	    blk && /^```$/ { exit }
	    blk { print }' docs/guide.md >"$T/prefix.sh"
	awk '/^### Finding prefix-cache misses/ { sec = 1; next }
	    sec && /^#/ && !blk { exit }
	    sec && /^```text$/ { blk = 1; next }
	    blk && /^```$/ { exit }
	    blk { print }' docs/guide.md >"$T/prefix.want"
	grep -q 'harmony-tokens diff --prefix' "$T/prefix.sh"
	[ -s "$T/prefix.want" ]
	mkdir "$T/run"
	ln -s "$PWD/fixtures" "$T/run/fixtures"
	st=0
	(cd "$T/run" && sh -u ../prefix.sh >../prefix.out 2>../prefix.err) || st=$?
	[ "$st" -eq 1 ]
	[ ! -s "$T/prefix.err" ]
	diff -u "$T/prefix.want" "$T/prefix.out"
}

@test "drift named: the same text under other ids is a retokenization, in text, JSON, --prefix and the page" {
	# "Hello world" as the encoder cuts it (Hello, " world") and as Hello, " ", world
	[ "$(printf 'Hello world' | harmony-tokens encode)" = '13225 2375' ]
	[ "$(printf ' ' | harmony-tokens encode) $(printf 'world' | harmony-tokens encode)" = '220 24169' ]
	printf '13225 2375\n13225 2375 0\n' >"$T/a"
	printf '13225 220 24169\n13225 2375 15\n' >"$T/b"
	cd "$T"
	run2 harmony-tokens diff a b
	[ "$status" -eq 1 ]
	[ "$(grep -c '^  drift: ' <<<"$out")" -eq 2 ]
	grep -qx '  drift: the same text: a retokenization (the ids changed, the decoded text did not)' <<<"$out"
	# "Hello world!" against "Hello world0": the text parts at byte 11, in token 2
	grep -qx '  drift: the text changed too, from byte 11 (token 2 of a, token 2 of b)' <<<"$out"
	run2 harmony-tokens diff --to=json a b
	[ "$(jq -c '[.drift, .text_byte, .text_token_a, .text_token_b]' <<<"$out" | tr '\n' ' ')" = '["retokenization",null,null,null] ["text",11,2,2] ' ]
	# --prefix: B starting with A's text under other ids is a retokenization too
	printf '13225 2375\n13225 2375\n' >"$T/a"
	printf '13225 220 24169 0\n13225 2375 0\n' >"$T/b"
	run2 harmony-tokens diff --prefix a b
	[ "$status" -eq 1 ]
	grep -qx "  drift: b's text starts with a's: a retokenization (the ids changed, the decoded text did not)" <<<"$out"
	[ "${out##*$'\n'}" = 'prefix: 1 of 2 records extend, 1 does not (1 retokenized, 0 with their text changed); 3 tokens reused, 4 recomputed' ]
	run2 harmony-tokens diff --prefix --to=json a b
	[ "$(head -n 1 <<<"$out" | jq -r .drift)" = retokenization ]
	[ "$(tail -n 1 <<<"$out" | jq -c '[.retokenized, .text_changed]')" = '[1,0]' ]
	# the same text but cut: B shorter than A's text is a changed text under --prefix
	printf '13225 220\n' >"$T/b1"
	printf '13225 2375\n' >"$T/a1"
	run2 harmony-tokens diff --prefix --to=json a1 b1
	[ "$(jq -c '[.drift, .text_byte, .text_token_a, .text_token_b]' <<<"$out" | head -n 1)" = '["text",6,1,null]' ]
	# the page names it too
	harmony-tokens diff --prefix --to=html a b >page.html || true
	grep -q '<p class="drift retok" data-drift="retokenization"><b>Retokenized</b> b&#39;s text starts with a&#39;s: a retokenization' page.html
}
