#!/usr/bin/env bats
# libharmony as a product: the shared library exports only what harmony.h
# declares, and the example program of README.md and libharmony(3) builds
# and runs against the build tree and an installed copy, static and shared.

# The tools are the build's (tests/run's HM_BIN, or bin/), also when this
# file is run alone.
setup() {
	cd "$BATS_TEST_DIRNAME/../.."
	export PATH="${HM_BIN:-$PWD/bin}:$PATH"
}

# The example program the README points to.
readme_example() {
	cat docs/example.c
}

# The first .EX block of EXAMPLES in libharmony.3, groff escapes undone.
man_example() {
	awk '/^\.SH EXAMPLES/ { s = 1 } s && /^\.EX$/ { p = 1; next } p && /^\.EE$/ { exit } p' man/libharmony.3 |
	    sed -e 's/^\\&//' -e 's/\\e/\\/g'
}

man_output() {
	awk '/^\.SH EXAMPLES/ { s = 1 } s && /^\.EX$/ { n++; if (n == 2) { p = 1; next } } p && /^\.EE$/ { exit } p' man/libharmony.3
}

# Function names declared in harmony.h (not typedefs).
declared() {
	grep -v '^typedef' lib/harmony.h | sed -n 's/^[^#/ *].*[^a-z_0-9]\(hm_[a-z_0-9]*\)(.*/\1/p' | sort -u
}

@test "libharmony.so: soname and version, only the functions of harmony.h exported" {
	[ -f lib/libharmony.so.1.0.0 ]
	[ "$(readlink lib/libharmony.so.1)" = libharmony.so.1.0.0 ]
	readelf -d lib/libharmony.so.1.0.0 | grep -q 'Library soname: \[libharmony.so.1\]'
	nm -D --defined-only lib/libharmony.so.1.0.0 | awk '{print $3}' | sort > "$BATS_TEST_TMPDIR/exported"
	declared > "$BATS_TEST_TMPDIR/declared"
	[ -s "$BATS_TEST_TMPDIR/exported" ]
	run grep -v '^hm_' "$BATS_TEST_TMPDIR/exported"
	[ -z "$output" ]
	# exactly the declared functions: nothing internal leaks, nothing is missing
	run diff "$BATS_TEST_TMPDIR/declared" "$BATS_TEST_TMPDIR/exported"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# the library does not print or exit
	run sh -c "nm -D --undefined-only lib/libharmony.so.1.0.0 | grep -wE 'printf|puts|exit|_exit|abort|fputs|fwrite|perror'"
	[ -z "$output" ]
}

@test "libharmony.a: one object defining only the functions of harmony.h, internals hm__ and not linkable" {
	nm -g --defined-only lib/libharmony.a | awk 'NF == 3 {print $3}' | sort > "$BATS_TEST_TMPDIR/defined"
	declared > "$BATS_TEST_TMPDIR/declared"
	[ -s "$BATS_TEST_TMPDIR/defined" ]
	run diff "$BATS_TEST_TMPDIR/declared" "$BATS_TEST_TMPDIR/defined"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# every other name of the library is internal, by its one prefix hm__
	[ -f build/libharmony-int.a ]
	nm -g --defined-only build/libharmony-int.a | awk 'NF == 3 {print $3}' | sort -u |
	    comm -23 - "$BATS_TEST_TMPDIR/declared" > "$BATS_TEST_TMPDIR/internal"
	[ "$(wc -l < "$BATS_TEST_TMPDIR/internal")" -gt 100 ]
	run grep -v '^hm__' "$BATS_TEST_TMPDIR/internal"
	[ -z "$output" ] || { echo "internal names without hm__: $output"; false; }
	# the internal names are still in it, as local symbols
	nm lib/libharmony.a | grep -q ' t hm__p_step$'
	# a program calling one cannot link
	cat > "$BATS_TEST_TMPDIR/inner.c" <<'C'
void hm__p_step(void);
int main(void) { hm__p_step(); return 0; }
C
	run cc -o "$BATS_TEST_TMPDIR/inner" "$BATS_TEST_TMPDIR/inner.c" lib/libharmony.a
	[ "$status" -ne 0 ]
	[[ "$output" == *"undefined reference to \`hm__p_step'"* ]]
}

@test "the example program (docs/example.c) is libharmony(3)'s and runs as the man page says" {
	readme_example > "$BATS_TEST_TMPDIR/readme.c"
	man_example > "$BATS_TEST_TMPDIR/man.c"
	[ -s "$BATS_TEST_TMPDIR/readme.c" ]
	diff "$BATS_TEST_TMPDIR/readme.c" "$BATS_TEST_TMPDIR/man.c"
	cc -std=c11 -Wall -Wextra -pedantic -Werror -Ilib -o "$BATS_TEST_TMPDIR/ex" \
	    "$BATS_TEST_TMPDIR/readme.c" lib/libharmony.a
	run "$BATS_TEST_TMPDIR/ex"
	[ "$status" -eq 0 ]
	[ "$output" = "$(man_output)" ]
	# the tokens it shows are the ones harmony-tokens gives
	want=$(printf '%s' '<|channel|>analysis<|message|>' | harmony-tokens encode)
	[ "${lines[3]}" = "first ids: $want" ]
}

@test "installed: the example builds through pkg-config, shared and static, and runs" {
	command -v pkg-config >/dev/null || skip "pkg-config is not installed"
	d="$BATS_TEST_TMPDIR/stage"
	p=/opt/hm
	make -s install PREFIX="$p" DESTDIR="$d" >/dev/null
	[ -f "$d$p/share/man/man3/libharmony.3" ]
	[ "$(readlink "$d$p/lib/libharmony.so")" = libharmony.so.1 ]
	readme_example > "$BATS_TEST_TMPDIR/ex.c"
	# the .pc names the final prefix; the staged copy is found by rewriting it
	sed "s|^prefix=.*|prefix=$d$p|; s|^libdir=.*|libdir=$d$p/lib|; s|^includedir=.*|includedir=$d$p/include|" \
	    "$d$p/lib/pkgconfig/harmony.pc" > "$BATS_TEST_TMPDIR/harmony.pc"
	flags=$(PKG_CONFIG_PATH="$BATS_TEST_TMPDIR" pkg-config --cflags --libs harmony)
	cc -std=c11 -o "$BATS_TEST_TMPDIR/shared" "$BATS_TEST_TMPDIR/ex.c" $flags
	run env LD_LIBRARY_PATH="$d$p/lib" ldd "$BATS_TEST_TMPDIR/shared"
	[[ "$output" == *"libharmony.so.1 => $d$p/lib/libharmony.so.1"* ]]
	run env LD_LIBRARY_PATH="$d$p/lib" "$BATS_TEST_TMPDIR/shared"
	[ "$status" -eq 0 ]
	[ "$output" = "$(man_output)" ]
	cc -std=c11 -o "$BATS_TEST_TMPDIR/static" "$BATS_TEST_TMPDIR/ex.c" \
	    $(PKG_CONFIG_PATH="$BATS_TEST_TMPDIR" pkg-config --cflags harmony) \
	    "$d$p/lib/libharmony.a" $(PKG_CONFIG_PATH="$BATS_TEST_TMPDIR" pkg-config --libs-only-l harmony | sed 's/-lharmony//')
	run sh -c "ldd '$BATS_TEST_TMPDIR/static' | grep -c libharmony"
	[ "$output" = 0 ]
	run "$BATS_TEST_TMPDIR/static"
	[ "$status" -eq 0 ]
	[ "$output" = "$(man_output)" ]
}

@test "the tools live on harmony.h: no file in cmd/ includes an internal header" {
	run grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"][^>"]*_int\.h[>"]' cmd/*.c cmd/*.h
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	# and each compiles with harmony.h as the only header of lib/ in sight
	mkdir "$BATS_TEST_TMPDIR/inc"
	cp lib/harmony.h "$BATS_TEST_TMPDIR/inc/"
	for f in cmd/*.c; do
		cc -std=c11 -Wall -Wextra -pedantic -Werror -D_POSIX_C_SOURCE=200809L \
		    -I"$BATS_TEST_TMPDIR/inc" -Icmd -c -o "$BATS_TEST_TMPDIR/x.o" "$f" ||
		    { echo "$f needs more than harmony.h"; false; }
	done
}

@test "one out-of-memory path: lib/ appends name their owner's flag and read no buffer's own" {
	# the public appenders are the callers'; the library names an owner
	run grep -nE 'hm_buf_(add|adds|addc|addu|reserve|json_body|json_str)\(' \
	    $(ls lib/*.c lib/*_int.h | grep -v '^lib/buf')
	[ "$status" -eq 1 ] || { echo "$output"; false; }
	# a buffer's own flag is passed where the buffer stands alone
	# (&b->oom), never read or ORed; the one exception is the joined run
	# of the parser's fast path, whose failure is not the parser's
	run bash -c "grep -nwE 'oom' \$(ls lib/*.c lib/*_int.h | grep -v '^lib/buf') |
	    grep -vE ':[0-9]+:[[:space:]]*(/?\*|//)' | grep -vE '&[a-z_>.-]*oom\b'"
	[ "$output" = "lib/parse_step.c:$(grep -n 'r->oom = 0;' lib/parse_step.c | cut -d: -f1):	r->oom = 0; /* the run's own flag (see above): not the parser's failure */" ] ||
	    { echo "$output"; false; }
	# no object keeps a list of its buffers' flags
	run grep -nE '\.oom *\||\| *[a-z_>.-]+\.oom' lib/*.c
	[ "$status" -eq 1 ] || { echo "$output"; false; }
}

@test "each tool keeps its state in its context: cmd/ has no writable object but cli.c's proc" {
	command -v objdump >/dev/null || skip "objdump is not installed"
	# writable sections: .data, .bss and .data.rel.local (not .data.rel.ro)
	found=$(for f in build/cmd/*.o; do
		objdump -t "$f" | awk -v f="${f##*/}" '$2 == "l" || $2 == "g" {
		    if ($0 ~ / O / && $(NF - 2) ~ /^\.(data|bss)($|\.rel\.local)/) print f ":" $NF }'
	done | sort)
	# the process's own (program name, an unfinished line of stdout) and
	# the list that stands for standard input, never written
	[ "$found" = "$(printf 'cli.o:proc\ncli.o:stdin_only.0')" ] || { echo "$found"; false; }
}

@test "lib/ files form layers: no two files call each other, directly or around a loop" {
	run tests/lib/lib-graph build/lib
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# the check itself sees a circle when there is one
	d="$BATS_TEST_TMPDIR/objs"
	mkdir -p "$d"
	printf 'void b(void); void a(void) { b(); }\n' > "$d/a.c"
	printf 'void a(void); void b(void) { a(); }\n' > "$d/b.c"
	cc -c -o "$d/a.o" "$d/a.c" && cc -c -o "$d/b.o" "$d/b.c"
	run tests/lib/lib-graph "$d"
	[ "$status" -eq 1 ]
	[ "$output" = "a <-> b" ]
}

@test "the parser's state: each part written by the one file that owns it" {
	run tests/lib/parser-owners lib
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$output" = "parser state: 8 parts, each written by its owner only" ]
	# the check itself sees a write from another file, of each kind
	d="$BATS_TEST_TMPDIR/lib"
	mkdir -p "$d"
	cp lib/*.c lib/*.h "$d/"
	printf '%s\n' 'void hm__x(hm_parser *p) {' '	p->q.len = 0;' '	++p->st.pos;' \
	    '	hm_buf_reset(&p->h.tmp);' '	memset(p->r.pkb.p, 0, 1);' '	p->t.mk[0].off += 1;' \
	    '	const hm_buf *b = &p->c.hold;' '	(void)b;' '}' >> "$d/parse_content.c"
	run tests/lib/parser-owners "$d"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 5 ]
	[[ "${lines[0]}" == parse_content.c:*": assigns p->q.len, which parse_events.c owns" ]]
	[[ "${lines[1]}" == *"increments p->st.pos, which parse_step.c owns" ]]
	[[ "${lines[2]}" == *"takes the address of p->h.tmp, which parse_header_fix.c owns" ]]
	[[ "${lines[3]}" == *"copies into p->r.pkb.p, which parse_recover.c owns" ]]
	[[ "${lines[4]}" == *"assigns p->t.mk[0].off, which parse_events.c owns" ]]
}

@test "assertions: on in the objects the unit tests link, off in the released library" {
	[ -n "$(nm build/libharmony-int.a 2>/dev/null | grep -w __assert_fail)" ]
	[ -z "$(nm lib/libharmony.a 2>/dev/null | grep -w __assert_fail)" ]
	[ -z "$(nm -D lib/libharmony.so 2>/dev/null | grep -w __assert_fail)" ]
}

@test "no cJSON in libharmony: no symbol in the .a or the .so, defined or undefined, nor in its link" {
	# the library reads JSON with its own reader (lib/json_parse.c); cJSON
	# is the tools' (harmony-tools) and the tests'
	[ -f lib/libharmony.a ] && [ -f lib/libharmony.so.1.0.0 ] && [ -f build/libharmony-int.a ]
	for f in lib/libharmony.a build/libharmony-int.a; do
		run sh -c "nm '$f' | grep -i cjson"
		[ "$status" -eq 1 ] && [ -z "$output" ] || { echo "$f: $output"; false; }
		# the check can fail: nm sees the names the library does refer to
		nm -u "$f" | grep -qw malloc
	done
	run sh -c "nm -D lib/libharmony.so.1.0.0 | grep -i cjson; nm lib/libharmony.so.1.0.0 | grep -i cjson"
	[ -z "$output" ] || { echo "libharmony.so: $output"; false; }
	nm -D --undefined-only lib/libharmony.so.1.0.0 | grep -qw malloc
	# it needs no library but libc, and says none to its users
	run sh -c "readelf -d lib/libharmony.so.1.0.0 | sed -n 's/.*(NEEDED).*\\[\\(.*\\)\\]/\\1/p'"
	[ "$output" = libc.so.6 ] || { echo "NEEDED: $output"; false; }
	run grep -E '^(Requires|Libs)' harmony.pc.in
	[[ "$output" != *cjson* ]] || { echo "$output"; false; }
	[[ "$output" == *"Libs: -L\${libdir} -lharmony"* ]]
	# a program that reads records, ids and summaries links with it alone
	cat > "$BATS_TEST_TMPDIR/rd.c" <<'C'
#include <string.h>
#include "harmony.h"
int main(void)
{
	static const char rec[] = "{\"tokens\":[200005, 1e400], \"x\":1}";
	hm_ids ids = { 0 };
	hm_error err;
	hm_writer *w = hm_writer_new(HM_TO_STATS, 0);
	int bad = hm_ids_parse(rec, strlen(rec), 0, &ids, NULL, &err) != HM_EINPUT ||
	    hm_writer_merge_summary(w, "{\"records\":2}", 14, &err) != HM_OK;
	hm_ids_free(&ids);
	hm_writer_free(w);
	return bad;
}
C
	cc -std=c11 -Ilib -o "$BATS_TEST_TMPDIR/rd" "$BATS_TEST_TMPDIR/rd.c" lib/libharmony.a
	"$BATS_TEST_TMPDIR/rd"
}

@test "the library's text names no program option: hints instead, in the tools' words" {
	# a string literal of lib/ or a line of harmony.h with --word
	run grep -n -E '"[^"]*(^|[ (;])--[a-z][^"]*"' lib/*.c lib/*.h
	[ "$status" -eq 1 ] || { echo "$output"; return 1; }
	run grep -n -E '(^|[ (])--[a-z]' lib/harmony.h
	[ "$status" -eq 1 ] || { echo "$output"; return 1; }
	# the tools put the hint in their words
	run harmony-render <<<'{"x":1}'
	[ "$output" = "harmony-render: -:1: cannot tell the request's shape (want messages, input or a list); use --from" ]
	run harmony-parse --field .out.c <<<'{"id":1}'
	[[ "$output" == *"no member .out.c in the record (--field)"* ]]
}
