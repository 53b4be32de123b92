#!/usr/bin/env bats
# harmony-tokens: stdout, stderr and exit status against fixtures/tokens.

setup() {
	cd "$BATS_TEST_DIRNAME/../.."
	T=${HM_BIN:-$PWD/bin}/harmony-tokens
	F=fixtures/tokens
}

# golden NAME ARGS...: run in fixtures/tokens, compare with NAME.out/.err/.status
golden() {
	local name=$1; shift
	local out err st
	out=$(mktemp) err=$(mktemp)
	st=0; (cd "$F" && "$T" "$@" >"$out" 2>"$err") || st=$?
	diff -u "$F/$name.out" "$out"
	if [ -f "$F/$name.err" ]; then diff -u "$F/$name.err" "$err"; else diff -u /dev/null "$err"; fi
	[ "$st" -eq "$(cat "$F/$name.status")" ]
	rm -f "$out" "$err"
}

@test "encode: ids on one line" { golden encode-hello encode hello.txt; }
@test "encode --to json" { golden encode-json encode --to json hello.txt; }
@test "encode --to lines" { golden encode-lines-fmt encode --to lines hello.txt; }
@test "encode --lines: one output line per input line, empty line kept" { golden encode-per-line encode --lines lines.txt; }
@test "encode --lines --to json" { golden encode-per-line-json encode --lines --to json lines.txt; }
@test "encode: invalid UTF-8 names file, line and byte, exit 1" { golden encode-invalid encode invalid.txt; }
@test "encode: error located in the second file" { golden encode-invalid-two encode hello.txt invalid.txt; }
@test "encode --lossy replaces invalid UTF-8 with U+FFFD" { golden encode-lossy encode --lossy invalid.txt; }
@test "decode: numbers, JSON arrays and NDJSON records" { golden decode-forms decode ids.txt; }
@test "decode --lines" { golden decode-per-line decode --lines ids.txt; }
@test "decode --lines --to json" { golden decode-per-line-json decode --lines --to json ids.txt; }
@test "decode: bad ids name line, byte and token index" { golden decode-bad decode badids.txt; }
@test "decode --lines: a bad line leaves an empty line" { golden decode-bad-lines decode --lines badids.txt; }
@test "inspect: a token that is not UTF-8 alone is marked" { golden inspect-partial inspect partial.txt; }
@test "inspect --to json" { golden inspect-json inspect --to json partial.txt; }
@test "inspect --from text" { golden inspect-text inspect --from text hello.txt; }
@test "inspect --lines" { golden inspect-per-line inspect --lines lines.txt; }
@test "inspect --lines --to json: a bad id line is an error record" { golden inspect-bad-lines-json inspect --lines --to json --from ids badids.txt; }
@test "inspect --lines --to json: invalid UTF-8 is an error record" { golden inspect-invalid-lines-json inspect --lines --to json --from text invalid.txt; }
@test "count: one file" { golden count-one count hello.txt; }
@test "count: several files, like wc" { golden count-many count hello.txt lines.txt; }
@test "count --lines" { golden count-per-line count --lines lines.txt; }
@test "count --from ids" { golden count-ids count --from ids ids.txt; }
@test "count --from ids, several files: errors name their file" { golden count-ids-many count --from ids ids.txt lines.txt; }
@test "specials --stop" { golden specials-stop specials --stop; }
@test "specials --stop-actions" { golden specials-stop-actions specials --stop-actions; }

@test "specials: all 1091, ids 199998..201088" {
	run $T specials
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1091 ]
	[ "${lines[0]}" = "199998 <|startoftext|>" ]
	[ "${lines[8]}" = "200006 <|start|>" ]
	[ "${lines[1090]}" = "201088 <|reserved_201088|>" ]
}

@test "encode: special-token text is the special token unless --no-special" {
	run sh -c "printf '<|start|>user<|message|>hi<|end|>' | $T encode"
	[ "$output" = "200006 1428 200008 3686 200007" ]
	run sh -c "printf '<|start|>' | $T encode --no-special"
	[ "$output" = "27 91 5236 91 29" ]
}

@test "encode: no newline trimming; - is standard input" {
	run sh -c "printf 'hi\n' | $T encode -"
	[ "$output" = "3686 198" ]
}

@test "decode inverts encode on this repository's sources" {
	cat lib/*.c man/*.1 README.md > "$BATS_TEST_TMPDIR/src.txt"
	$T encode "$BATS_TEST_TMPDIR/src.txt" > "$BATS_TEST_TMPDIR/src.ids"
	$T decode "$BATS_TEST_TMPDIR/src.ids" | cmp - "$BATS_TEST_TMPDIR/src.txt"
}

@test "1 MB runs of one character class encode without error" {
	for c in a Z 7 ' ' '!' 'é' '中' '\n' '\t'; do
		python3 -c "import sys; sys.stdout.write(sys.argv[1].encode().decode('unicode_escape') * 1048576)" "$c" > "$BATS_TEST_TMPDIR/run.txt"
		n=$($T count "$BATS_TEST_TMPDIR/run.txt")
		[ "$n" -gt 0 ]
		$T encode "$BATS_TEST_TMPDIR/run.txt" | $T decode | cmp - "$BATS_TEST_TMPDIR/run.txt"
	done
}

@test "color only when asked or on a TTY, never with NO_COLOR" {
	run sh -c "echo 200006 24912 | $T inspect"
	[[ "$output" != *$'\033['* ]]
	run sh -c "echo 200006 24912 | $T inspect --color=always"
	[[ "$output" == *$'\033['* ]]
	command -v script >/dev/null || skip "script(1) is needed for a TTY"
	run sh -c "NO_COLOR=1 TERM=xterm timeout 10 script -qc 'echo 200006 | $T inspect' /dev/null < /dev/null"
	[[ "$output" == *"<|start|>"* ]]
	[[ "$output" != *$'\033['* ]]
	run sh -c "TERM=dumb timeout 10 script -qc 'echo 200006 | $T inspect' /dev/null < /dev/null"
	[[ "$output" != *$'\033['* ]]
	run sh -c "TERM=xterm timeout 10 script -qc 'unset NO_COLOR; echo 200006 | $T inspect' /dev/null < /dev/null"
	[[ "$output" == *$'\033['* ]]
}

@test "usage errors exit 2 with a hint" {
	run $T frob
	[ "$status" -eq 2 ]
	[ "${lines[1]}" = "Try 'harmony-tokens --help'." ]
	run $T
	[ "$status" -eq 2 ]
	run $T encode --to xml
	[ "$status" -eq 2 ]
	run $T count --to json
	[ "$status" -eq 2 ]
	run $T --color=sometimes encode
	[ "$status" -eq 2 ]
	# options that do not go with the command are usage errors, not ignored
	for bad in "decode --no-special" "decode --lossy" "specials --lines" "specials --lossy" "encode --stop"; do
		run $T $bad < /dev/null
		[ "$status" -eq 2 ]
	done
}

@test "I/O errors exit 3: missing file, full disk" {
	run $T encode /nonexistent/file
	[ "$status" -eq 3 ]
	[[ "$output" == *"/nonexistent/file: No such file or directory"* ]]
	if [ -w /dev/full ]; then
		run sh -c "$T specials > /dev/full"
		[ "$status" -eq 3 ]
		[[ "$output" == *"write error"* ]]
	fi
}

@test "a reader closing the pipe ends quietly" {
	run sh -c "$T specials | head -n 1"
	[ "$status" -eq 0 ]
	[ "$output" = "199998 <|startoftext|>" ]
}

# A text of about $2 MB with lines of words, numbers, scripts, CRLF,
# special-token text and runs of spaces, deterministic.
gen_text() {
	python3 - "$1" "$2" <<'PY'
import random, sys
random.seed(7)
words = ["hello", " world", " the", "\u00dcber", "don't", " na\u00efve", "\u4e2d\u6587",
         "12345", "  ", "\t", "x/y", "<|start|>", "!!", "\r\n", " \u00e9t\u00e9", "\u017f",
         "HTML5", "\U0001f602", "{", "}", "//", "'s"]
out, n, want = [], 0, float(sys.argv[2]) * 1e6
while n < want:
    line = "".join(random.choice(words) for _ in range(random.randint(0, 14))) + "\n"
    out.append(line)
    n += len(line.encode())
open(sys.argv[1], "w", newline="").write("".join(out))
PY
}

@test "encode streams in chunks: the ids of the whole text, as inspect (unchunked) gives them" {
	gen_text "$BATS_TEST_TMPDIR/t.txt" 2.5
	$T encode --to lines "$BATS_TEST_TMPDIR/t.txt" > "$BATS_TEST_TMPDIR/stream.ids"
	$T inspect --from text "$BATS_TEST_TMPDIR/t.txt" | awk '{ print $2 }' > "$BATS_TEST_TMPDIR/whole.ids"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/stream.ids")" -gt 500000 ]
	cmp "$BATS_TEST_TMPDIR/stream.ids" "$BATS_TEST_TMPDIR/whole.ids"
	# one text across files, cut anywhere (here inside a line)
	head -c 1300001 "$BATS_TEST_TMPDIR/t.txt" > "$BATS_TEST_TMPDIR/a.txt"
	tail -c +1300002 "$BATS_TEST_TMPDIR/t.txt" > "$BATS_TEST_TMPDIR/b.txt"
	$T encode --to lines "$BATS_TEST_TMPDIR/a.txt" - < "$BATS_TEST_TMPDIR/b.txt" | cmp - "$BATS_TEST_TMPDIR/stream.ids"
	[ "$($T count "$BATS_TEST_TMPDIR/t.txt")" -eq "$(wc -l < "$BATS_TEST_TMPDIR/stream.ids")" ]
	$T encode --to json "$BATS_TEST_TMPDIR/t.txt" | python3 -c 'import json, sys; print("\n".join(map(str, json.load(sys.stdin))))' |
	    cmp - "$BATS_TEST_TMPDIR/stream.ids"
}

@test "encode, count and decode run in bounded memory" {
	(ulimit -v 40000) 2>/dev/null || skip "ulimit -v is not supported here"
	[ -z "${HM_SANITIZE:-}" ] || skip "AddressSanitizer does not run under ulimit -v"
	gen_text "$BATS_TEST_TMPDIR/t.txt" 2
	for i in 1 2 3 4 5 6; do cat "$BATS_TEST_TMPDIR/t.txt"; done > "$BATS_TEST_TMPDIR/big.txt"
	# a line of 2 MB with no place to cut: held whole, still fine
	python3 -c 'import sys; sys.stdout.write("a b. " * 400000)' >> "$BATS_TEST_TMPDIR/big.txt"
	(ulimit -v 40000; $T encode "$BATS_TEST_TMPDIR/big.txt" > "$BATS_TEST_TMPDIR/big.ids")
	[ "$(wc -l < "$BATS_TEST_TMPDIR/big.ids")" -eq 1 ]
	(ulimit -v 40000; $T decode "$BATS_TEST_TMPDIR/big.ids") | cmp - "$BATS_TEST_TMPDIR/big.txt"
	(ulimit -v 40000; $T decode --to json "$BATS_TEST_TMPDIR/big.ids") |
	    python3 -c 'import json, sys; sys.stdout.buffer.write(json.load(sys.stdin).encode())' | cmp - "$BATS_TEST_TMPDIR/big.txt"
	n=$(ulimit -v 40000; $T count "$BATS_TEST_TMPDIR/big.txt")
	[ "$n" -eq "$(wc -w < "$BATS_TEST_TMPDIR/big.ids")" ]
}

@test "streamed encode and count: invalid UTF-8 deep in a file or in the second file is located" {
	gen_text "$BATS_TEST_TMPDIR/t.txt" 1.5
	nl=$(wc -l < "$BATS_TEST_TMPDIR/t.txt")
	{ cat "$BATS_TEST_TMPDIR/t.txt"; printf 'ok\nab\377cd\n'; } > "$BATS_TEST_TMPDIR/bad.txt"
	want="harmony-tokens: $BATS_TEST_TMPDIR/bad.txt:$((nl + 2)):3: invalid UTF-8 (use --lossy to replace it)"
	run sh -c "$T encode '$BATS_TEST_TMPDIR/bad.txt' > /dev/null"
	[ "$status" -eq 1 ]
	[ "$output" = "$want" ]
	run sh -c "$T count '$BATS_TEST_TMPDIR/t.txt' '$BATS_TEST_TMPDIR/bad.txt' 2>&1 > /dev/null"
	[ "$status" -eq 1 ]
	[ "$output" = "$want" ]
	run $T count "$BATS_TEST_TMPDIR/t.txt" "$BATS_TEST_TMPDIR/bad.txt" "$BATS_TEST_TMPDIR/t.txt"
	[[ "${lines[1]}" == *" $BATS_TEST_TMPDIR/t.txt" ]]
	[[ "${lines[2]}" == *" $BATS_TEST_TMPDIR/t.txt" ]]
	[[ "${lines[3]}" == *" total" ]]
	printf 'x\ny\377z' > "$BATS_TEST_TMPDIR/bad2.txt"
	run sh -c "$T encode '$BATS_TEST_TMPDIR/t.txt' '$BATS_TEST_TMPDIR/bad2.txt' > /dev/null"
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-tokens: $BATS_TEST_TMPDIR/bad2.txt:2:2: invalid UTF-8 (use --lossy to replace it)" ]
	# --lossy: the same text with U+FFFD
	sed 's/\xff/\xef\xbf\xbd/' "$BATS_TEST_TMPDIR/bad.txt" > "$BATS_TEST_TMPDIR/fixed.txt"
	$T encode --lossy "$BATS_TEST_TMPDIR/bad.txt" | $T decode | cmp - "$BATS_TEST_TMPDIR/fixed.txt"
}

@test "decode of a long line: a bad id is located by byte and token" {
	python3 -c 'import sys; print(" ".join(["24912"] * 50000 + ["12x"] + ["2375"] * 10))' > "$BATS_TEST_TMPDIR/long.ids"
	run sh -c "$T decode '$BATS_TEST_TMPDIR/long.ids' > /dev/null"
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-tokens: $BATS_TEST_TMPDIR/long.ids:1:300001: token 50000: not a token id: '12x'" ]
}

@test "encode: invalid UTF-8 past the first chunk still closes the line and exits 1" {
	python3 -c "import sys; sys.stdout.buffer.write(b'hello world\n' * 200000 + b'bad \xff\n')" > "$BATS_TEST_TMPDIR/late.txt"
	run sh -c "$T encode --to json $BATS_TEST_TMPDIR/late.txt 2>/dev/null | tail -c 2 | od -An -c | tr -d ' '"
	[ "$output" = ']\n' ]
	run $T encode "$BATS_TEST_TMPDIR/late.txt"
	[ "$status" -eq 1 ]
	[[ "$output" == *"late.txt:200001:5: invalid UTF-8"* ]]
}

@test "encode, count: a line with no break, cut between words, gives the ids of the whole" {
	# 3 MB on one line: words, digits, punctuation, non-ASCII, special-token text
	python3 -c '
import random, sys
r = random.Random(5)
w = ["the", "Quick", "fox", "123", "4567", "don'"'"'t", "naïve", "日本語", "<|end|>", "a", "I", "x1", ",", "..", "/", "--", "  "]
sys.stdout.write(" ".join(r.choice(w) for _ in range(600000)))' >"$BATS_TEST_TMPDIR/line.txt"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/line.txt")" -eq 0 ]
	$T inspect --from text "$BATS_TEST_TMPDIR/line.txt" | awk '{ print $2 }' >"$BATS_TEST_TMPDIR/whole.ids"
	$T encode --to lines "$BATS_TEST_TMPDIR/line.txt" | cmp - "$BATS_TEST_TMPDIR/whole.ids"
	[ "$($T count "$BATS_TEST_TMPDIR/line.txt")" -eq "$(wc -l <"$BATS_TEST_TMPDIR/whole.ids")" ]
	grep -qx 200007 "$BATS_TEST_TMPDIR/whole.ids"
	# special-token text as plain text: streamed as the line encoded whole (--lines)
	$T encode --no-special --to lines "$BATS_TEST_TMPDIR/line.txt" >"$BATS_TEST_TMPDIR/plain.ids"
	$T encode --no-special --lines "$BATS_TEST_TMPDIR/line.txt" | tr ' ' '\n' | cmp - "$BATS_TEST_TMPDIR/plain.ids"
	! grep -qx 200007 "$BATS_TEST_TMPDIR/plain.ids"
}

# The encoder's UTF-8 check has an AVX2 form, chosen from glibc's CPU
# features; GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2 takes it away.  Both forms
# give the same ids, and the same first invalid byte, on text of every
# width (on a CPU without AVX2 both runs take the same form).
@test "encode: the same ids and the same invalid byte with and without the AVX2 form" {
	python3 bench/gen_corpus.py --kind emoji --size 300000 -o "$BATS_TEST_TMPDIR/e.txt"
	python3 bench/gen_corpus.py --kind cjk --size 300000 -o "$BATS_TEST_TMPDIR/c.txt"
	cat "$BATS_TEST_TMPDIR/e.txt" "$BATS_TEST_TMPDIR/c.txt" >"$BATS_TEST_TMPDIR/ec.txt"
	a=$("$T" encode "$BATS_TEST_TMPDIR/ec.txt" | md5sum)
	b=$(GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2 "$T" encode "$BATS_TEST_TMPDIR/ec.txt" | md5sum)
	[ "$a" = "$b" ]
	# a lone continuation byte, a cut 4-byte lead and a surrogate, each deep in a 64-byte block
	for bad in '\x80' '\xf0\x9f\x98' '\xed\xa0\x80'; do
		{ head -c 100037 "$BATS_TEST_TMPDIR/c.txt"; printf "$bad"; echo tail; } >"$BATS_TEST_TMPDIR/bad.txt"
		run "$T" encode "$BATS_TEST_TMPDIR/bad.txt"
		a="$status $output"
		GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2 run "$T" encode "$BATS_TEST_TMPDIR/bad.txt"
		[ "$status" -eq 1 ]
		[ "$a" = "$status $output" ]
		[[ "$output" == *"invalid UTF-8"* ]]
	done
}
