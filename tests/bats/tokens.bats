#!/usr/bin/env bats
# harmony-tokens: stdout, stderr and exit status against fixtures/tokens.

setup() {
	cd "$BATS_TEST_DIRNAME/../.."
	T=bin/harmony-tokens
	F=fixtures/tokens
}

# golden NAME ARGS...: run in fixtures/tokens, compare with NAME.out/.err/.status
golden() {
	local name=$1; shift
	local out err st
	out=$(mktemp) err=$(mktemp)
	st=0; (cd "$F" && ../../"$T" "$@" >"$out" 2>"$err") || st=$?
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
	cat lib/*.c man/*.1 README.md > "$BATS_TMPDIR/src.txt"
	$T encode "$BATS_TMPDIR/src.txt" > "$BATS_TMPDIR/src.ids"
	$T decode "$BATS_TMPDIR/src.ids" | cmp - "$BATS_TMPDIR/src.txt"
}

@test "1 MB runs of one character class encode without error" {
	for c in a Z 7 ' ' '!' 'é' '中' '\n' '\t'; do
		python3 -c "import sys; sys.stdout.write(sys.argv[1].encode().decode('unicode_escape') * 1048576)" "$c" > "$BATS_TMPDIR/run.txt"
		n=$($T count "$BATS_TMPDIR/run.txt")
		[ "$n" -gt 0 ]
		$T encode "$BATS_TMPDIR/run.txt" | $T decode | cmp - "$BATS_TMPDIR/run.txt"
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
