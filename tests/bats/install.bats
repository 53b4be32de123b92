#!/usr/bin/env bats
# make install with PREFIX and DESTDIR, and a program built from the
# installed library through pkg-config.

setup() {
	cd "$BATS_TEST_DIRNAME/../.."
}

@test "make install PREFIX=... DESTDIR=...: every file in its place, uninstall removes them" {
	d="$BATS_TEST_TMPDIR/stage"
	make -s install PREFIX=/opt/hm DESTDIR="$d" >/dev/null
	for b in harmony-tokens harmony-render harmony-parse harmony-tools; do
		[ -x "$d/opt/hm/bin/$b" ]
		[ -f "$d/opt/hm/share/man/man1/$b.1" ]
		[ -f "$d/opt/hm/share/bash-completion/completions/$b" ]
		[ -f "$d/opt/hm/share/zsh/site-functions/_$b" ]
		[ -f "$d/opt/hm/share/fish/vendor_completions.d/$b.fish" ]
	done
	[ -f "$d/opt/hm/lib/libharmony.a" ]
	[ -f "$d/opt/hm/lib/libharmony.so.1.0.0" ]
	[ -f "$d/opt/hm/include/harmony.h" ]
	grep -qx 'prefix=/opt/hm' "$d/opt/hm/lib/pkgconfig/harmony.pc"
	make -s uninstall PREFIX=/opt/hm DESTDIR="$d" >/dev/null
	[ ! -e "$d/opt/hm/bin/harmony-tokens" ]
	[ ! -e "$d/opt/hm/lib/pkgconfig/harmony.pc" ]
	[ ! -e "$d/opt/hm/lib/libharmony.so" ] && [ ! -e "$d/opt/hm/lib/libharmony.so.1.0.0" ]
}

@test "a program links against the installed library through pkg-config" {
	command -v pkg-config >/dev/null || skip "pkg-config is not installed"
	p="$BATS_TEST_TMPDIR/p"
	make -s install PREFIX="$p" >/dev/null
	cat > "$BATS_TEST_TMPDIR/t.c" <<'C'
#include <stdio.h>
#include <harmony.h>
int main(void)
{
	hm_ids ids = { 0 };
	hm_encoder *e = hm_encoder_new();
	hm_error err;
	/* an NDJSON id record: the library reads it itself (no -lcjson in Libs) */
	if (hm_ids_parse("{\"tokens\":[24912]}", 18, 0, &ids, NULL, &err) != HM_OK)
		return 1;
	if (hm_encode(e, " world", 6, 0, &ids, NULL) != HM_OK)
		return 1;
	for (size_t i = 0; i < ids.len; i++)
		printf("%s%u", i ? " " : "", ids.v[i]);
	putchar('\n');
	hm_ids_free(&ids);
	hm_encoder_free(e);
	return 0;
}
C
	cc -std=c11 -o "$BATS_TEST_TMPDIR/t" "$BATS_TEST_TMPDIR/t.c" \
	    $(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --cflags --libs harmony) -Wl,-rpath,"$p/lib"
	run "$BATS_TEST_TMPDIR/t"
	[ "$status" -eq 0 ]
	[ "$output" = "24912 2375" ]
}
