# harmony - Unix filters for OpenAI's Harmony format.
# Plain make: `make`, `make check`, `make install PREFIX=... DESTDIR=...`.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share

CC ?= cc
AR ?= ar
OBJCOPY ?= objcopy
CFLAGS ?= -O2 -g
HM_CFLAGS = -std=c11 -Wall -Wextra -pedantic -D_POSIX_C_SOURCE=200809L -Ilib -Ibuild
# The library reads JSON with its own reader (lib/json_parse.c) and links
# nothing beyond libc; cJSON is linked where its callers are: harmony-tools,
# and the tests that check the library's output against it.
CJSON_LIBS = -lcjson

VERSION = 1.0.0
# The shared library's ABI number (docs/architecture.md, "What the library
# exports, and its versions"): raised when a public function or struct
# changes incompatibly, not when one is added (or an options struct grows
# at its end).  1: the 1.0 interface.
SOVERSION = 1
SONAME = libharmony.so.$(SOVERSION)
SHLIB = lib/libharmony.so.$(VERSION)
BINS = harmony-tokens harmony-render harmony-parse harmony-tools

LIB_SRC = $(wildcard lib/*.c)
LIB_OBJ = $(LIB_SRC:lib/%.c=build/lib/%.o) build/lib/vocab_data.o
CLI_OBJ = build/cmd/cli.o
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=build/tests/%)
FUZZ_NAMES = $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
REPLAY_BIN = $(FUZZ_NAMES:%=build/tests/test_replay_%)

all: lib/libharmony.a $(SHLIB) $(BINS:%=bin/%) build/harmony.pc build/harmony-uninstalled.pc

# The vocabulary is checked against its SHA-256, then compiled in (without
# debug information: it is tables, and that halves its compile time).
build/vocab.ok: vocab/o200k_base.tiktoken vocab/SHA256SUMS
	@mkdir -p build
	cd vocab && sha256sum -c --quiet SHA256SUMS
	@touch $@

build/gen_vocab: tools/gen_vocab.c lib/vocab_int.h lib/unicode_tables.c lib/unicode_int.h
	@mkdir -p build
	$(CC) -O2 -std=c11 -Wall -Wextra -Ilib -o $@ tools/gen_vocab.c lib/unicode_tables.c

build/vocab_data.c: build/vocab.ok build/gen_vocab vocab/o200k_base.tiktoken
	build/gen_vocab vocab/o200k_base.tiktoken > $@.tmp && mv $@.tmp $@

# The library is compiled position-independent (for the shared library)
# and with hidden visibility: harmony.h marks what it declares as the only
# symbols exported.  Its assertions are off here (NDEBUG), on in the copy
# the unit tests link (build/lib-dbg) and in the sanitized and fuzzing
# builds that run the suite again.
LIB_CFLAGS = -fPIC -fvisibility=hidden -fno-semantic-interposition -DNDEBUG
LIB_DBG_OBJ = $(LIB_SRC:lib/%.c=build/lib-dbg/%.o) build/lib/vocab_data.o

build/lib/vocab_data.o: build/vocab_data.c
	@mkdir -p build/lib
	$(CC) $(CFLAGS) -g0 $(LIB_CFLAGS) -std=c11 -Ilib -c -o $@ build/vocab_data.c

build/lib/%.o: lib/%.c lib/harmony.h $(wildcard lib/*_int.h)
	@mkdir -p build/lib
	$(CC) $(HM_CFLAGS) $(LIB_CFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

build/lib-dbg/%.o: lib/%.c lib/harmony.h $(wildcard lib/*_int.h)
	@mkdir -p build/lib-dbg
	$(CC) $(HM_CFLAGS) $(filter-out -DNDEBUG,$(LIB_CFLAGS)) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The static library is one object: the library's objects linked together
# (ld -r), their hidden symbols then made local, so that it defines
# harmony.h's functions and nothing else.  The unit tests of internal parts
# link the objects as they are, assertions on (build/libharmony-int.a).
build/harmony-all.o: $(LIB_OBJ)
	$(CC) -r -nostdlib -o $@ $(LIB_OBJ)
	$(OBJCOPY) --localize-hidden $@

lib/libharmony.a: build/harmony-all.o
	rm -f $@
	$(AR) rcs $@ build/harmony-all.o

build/libharmony-int.a: $(LIB_DBG_OBJ)
	rm -f $@
	$(AR) rcs $@ $(LIB_DBG_OBJ)

# The shared library, from the same objects; the version script (made from
# the header) says the same as the visibility, for linkers that ask for it.
build/harmony.map: lib/harmony.h
	@mkdir -p build
	{ echo '{ global:'; \
	  sed -n 's/^[^#/ *].*[^a-z_0-9]\(hm_[a-z_0-9]*\)(.*/\1;/p' lib/harmony.h | sort -u; \
	  echo 'local: *; };'; } > $@

$(SHLIB): $(LIB_OBJ) build/harmony.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=build/harmony.map \
	    $(CFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJ) $(LDLIBS)
	ln -sf libharmony.so.$(VERSION) lib/$(SONAME)
	ln -sf $(SONAME) lib/libharmony.so

build/cmd/%.o: cmd/%.c $(wildcard cmd/*.h) lib/harmony.h
	@mkdir -p build/cmd
	$(CC) $(HM_CFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# A binary is its main file, cli.o and any further objects listed here,
# and the libraries of TOOL_LIBS_name.
TOOL_LIBS_harmony-tools = $(CJSON_LIBS)
TOKENS_OBJ = tokens_ctx.o tokens_encode.o tokens_decode.o tokens_inspect.o tokens_diff.o
PARSE_OBJ = parse_input.o parse_plain.o parse_out.o
bin/harmony-tokens: $(TOKENS_OBJ:%=build/cmd/%)
bin/harmony-parse: $(PARSE_OBJ:%=build/cmd/%) build/cmd/store.o
bin/harmony-render: build/cmd/store.o

bin/%: build/cmd/%.o $(CLI_OBJ) lib/libharmony.a
	@mkdir -p bin
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) lib/libharmony.a $(TOOL_LIBS_$*) $(LDLIBS)

# The threads test starts threads, and runs the example program
# (docs/example.c, libharmony(3)'s EXAMPLES) in each.
build/tests/test_threads build-san/tests/test_threads: LDLIBS += -pthread
build/tests/test_threads build-san/tests/test_threads build-san/tsan/test_threads: docs/example.c

build/tests/%: tests/unit/%.c tests/unit/unit.h build/libharmony-int.a
	@mkdir -p build/tests
	$(CC) $(HM_CFLAGS) -Itests/unit $(CPPFLAGS) $(CFLAGS) -o $@ $< build/libharmony-int.a $(CJSON_LIBS) $(LDLIBS)

# Rebuilt every time: it records PREFIX, which may differ from the last make.
# make install writes its own from harmony.pc.in, so that two installs
# with different prefixes at once (the tests run in parallel) cannot mix.
PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g'
build/harmony.pc: harmony.pc.in FORCE
	@mkdir -p build
	$(PC_SED) $< > $@.$$$$ && mv $@.$$$$ $@

# The library as built in this tree, for programs built against it before
# (or without) make install: PKG_CONFIG_PATH=$PWD/build finds it, since
# pkg-config prefers NAME-uninstalled.pc.  The header and the libraries
# are where make puts them; the run path lets the program find
# libharmony.so there.
build/harmony-uninstalled.pc: harmony.pc.in Makefile
	@mkdir -p build
	sed -e 's|@PREFIX@|$(CURDIR)|g' -e 's|@LIBDIR@|$(CURDIR)/lib|g' \
	    -e 's|@INCLUDEDIR@|$(CURDIR)/lib|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|^Libs: -L$${libdir}|Libs: -L$${libdir} -Wl,-rpath,$${libdir}|' $< > $@.$$$$ && mv $@.$$$$ $@

unit: $(UNIT_BIN) $(REPLAY_BIN) build/tests/failmalloc.so build/tests/test_threads_tsan

# The threads test once more under ThreadSanitizer (gcc's runtime comes
# with gcc on Debian), with the library compiled into it (build/tsan/),
# fewer rounds: a data race between threads is a report, and a report ends
# it with a failure.  make check runs it with the other unit programs
# (about 2 s); make sanitize runs clang's build of it too.
TSAN_CC ?= $(CC)
TSAN_FLAGS = -O1 -g -fsanitize=thread
TSAN_LIB_OBJ = $(LIB_SRC:lib/%.c=build/tsan/%.o) build/lib/vocab_data.o

build/tsan/%.o: lib/%.c lib/harmony.h $(wildcard lib/*_int.h)
	@mkdir -p build/tsan
	$(TSAN_CC) $(HM_CFLAGS) $(TSAN_FLAGS) -c -o $@ $<

build/tests/test_threads_tsan: tests/unit/test_threads.c tests/unit/unit.h docs/example.c $(TSAN_LIB_OBJ)
	@mkdir -p build/tests
	$(TSAN_CC) $(HM_CFLAGS) -Itests/unit $(TSAN_FLAGS) -o $@ $< $(TSAN_LIB_OBJ) -pthread

# The fault-injection shim (tests/faults/): an LD_PRELOAD library that
# makes the K-th allocation fail; test_faults shares its allocator.
build/tests/test_faults build-san/tests/test_faults: tests/faults/allocator.h
build/tests/failmalloc.so: tests/faults/failmalloc.c tests/faults/allocator.h
	@mkdir -p build/tests
	$(CC) -O2 -Wall -Wextra -shared -fPIC -o $@ tests/faults/failmalloc.c

# make check: installs what is missing (the build and the test packages),
# builds with a job per core, then runs the unit programs all at once and
# the bats tests a core each (tests/run).
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
# bats files at a time (tests/run's queue): a core each.
BATS_JOBS ?= $(JOBS)
# -j only when the caller gave none (theirs then governs the sub-make too).
SUBJ = $(if $(findstring -j,$(MAKEFLAGS)),,-j$(JOBS))

check: deps
	$(MAKE) $(SUBJ) all unit
	HM_JOBS=$(BATS_JOBS) tests/run

# make check-lite: the same without the browser and Node.js, most of the
# test set's size (tools/install-deps lite); the tests that need them
# skip, each saying so.
check-lite: deps-lite
	$(MAKE) $(SUBJ) all unit
	HM_LITE=1 HM_JOBS=$(BATS_JOBS) tests/run

# The packages for building and the demo; deps adds those of the tests
# (and promtool, taken out of Debian's prometheus package into
# build/deps/bin, not installed); deps-sanitize adds clang and its
# runtimes, which only make sanitize and make fuzz use.
deps-build:
	@tools/install-deps build

deps:
	@tools/install-deps test

deps-lite:
	@tools/install-deps lite

deps-sanitize:
	@tools/install-deps sanitize

demo: deps-build
	@echo '== building the library and the tools (a line a file; about a minute on 2 cores)'
	@$(MAKE) --no-print-directory $(SUBJ) all
	@echo '== harmony-render: a bundled Chat Completions request, as Harmony text'
	bin/harmony-render --from chat --to text fixtures/demo/chat.json
	@echo
	@echo '== the same prompt as o200k_harmony tokens (first rows)'
	bin/harmony-render --from chat fixtures/demo/chat.json | bin/harmony-tokens inspect | head -n 12
	@echo '== harmony-parse: a recorded completion, as a Chat Completions choice'
	bin/harmony-parse --to chat fixtures/demo/completion.ids
	@echo '== harmony-tokens: a bundled Harmony prompt, inspected'
	bin/harmony-tokens encode fixtures/demo/prompt.txt | bin/harmony-tokens inspect | head -n 8

# In-process render speed; built by `make bench`, not by `make all`.
build/render_bench: bench/render_bench.c lib/harmony.h lib/libharmony.a
	@mkdir -p build
	$(CC) $(HM_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ bench/render_bench.c lib/libharmony.a $(LDLIBS)

# In-process encode speed per kind of text (bench/run's scripts section).
build/encode_bench: bench/encode_bench.c lib/harmony.h lib/libharmony.a
	@mkdir -p build
	$(CC) $(HM_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ bench/encode_bench.c lib/libharmony.a $(LDLIBS)

bench: all build/render_bench build/encode_bench
	bench/run

# JSON Schema validation beside python3-jsonschema (bench/jsonschema), a
# section of its own before bench/run's table.
# (the library's objects, not libharmony.a: it times validation alone through
# an internal entry point, hm__schema_validate_jv, that the archive hides)
build/jsonschema_bench: bench/jsonschema_bench.c lib/harmony.h lib/json_schema_int.h $(LIB_OBJ)
	@mkdir -p build
	$(CC) $(HM_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ bench/jsonschema_bench.c $(LIB_OBJ) $(LDLIBS)
bench: bench-jsonschema
bench-jsonschema: all build/jsonschema_bench
	bench/jsonschema
.PHONY: bench-jsonschema

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(DATADIR)/bash-completion/completions \
	    $(DESTDIR)$(DATADIR)/zsh/site-functions $(DESTDIR)$(DATADIR)/fish/vendor_completions.d
	for b in $(BINS); do \
	    install -m 755 bin/$$b $(DESTDIR)$(BINDIR)/$$b; \
	    install -m 644 man/$$b.1 $(DESTDIR)$(MANDIR)/man1/$$b.1; \
	    install -m 644 completions/$$b.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/$$b; \
	    install -m 644 completions/_$$b $(DESTDIR)$(DATADIR)/zsh/site-functions/_$$b; \
	    install -m 644 completions/$$b.fish $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/$$b.fish; \
	done
	install -m 644 lib/libharmony.a $(DESTDIR)$(LIBDIR)/libharmony.a
	install -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/libharmony.so.$(VERSION)
	ln -sf libharmony.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libharmony.so
	install -m 644 lib/harmony.h $(DESTDIR)$(INCLUDEDIR)/harmony.h
	install -m 644 man/libharmony.3 $(DESTDIR)$(MANDIR)/man3/libharmony.3
	$(PC_SED) harmony.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/harmony.pc
	@# Into the system (no DESTDIR) as root: refresh the linker's cache, or
	@# programs linked against libharmony.so.$(SOVERSION) would not find it.
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then \
	    if command -v ldconfig >/dev/null 2>&1; then echo ldconfig; ldconfig; \
	    elif [ -x /sbin/ldconfig ]; then echo /sbin/ldconfig; /sbin/ldconfig; fi; \
	fi

uninstall:
	for b in $(BINS); do \
	    rm -f $(DESTDIR)$(BINDIR)/$$b $(DESTDIR)$(MANDIR)/man1/$$b.1 \
	        $(DESTDIR)$(DATADIR)/bash-completion/completions/$$b \
	        $(DESTDIR)$(DATADIR)/zsh/site-functions/_$$b \
	        $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/$$b.fish; \
	done
	rm -f $(DESTDIR)$(LIBDIR)/libharmony.a $(DESTDIR)$(INCLUDEDIR)/harmony.h \
	    $(DESTDIR)$(LIBDIR)/libharmony.so $(DESTDIR)$(LIBDIR)/$(SONAME) \
	    $(DESTDIR)$(LIBDIR)/libharmony.so.$(VERSION) $(DESTDIR)$(MANDIR)/man3/libharmony.3 \
	    $(DESTDIR)$(LIBDIR)/pkgconfig/harmony.pc

clean:
	rm -rf build bin lib/libharmony.a lib/libharmony.so* build-san bin-san build-fuzz

.PHONY: all check check-lite deps deps-lite deps-build deps-sanitize demo bench install uninstall clean unit FORCE sanitize sanitize-build fuzz fuzz-build
FORCE:
.SECONDARY:

# ---------------------------------------------------------------- hardening
# `make sanitize`: the library, the tools and the unit tests built with
# AddressSanitizer + UndefinedBehaviorSanitizer into build-san/ and bin-san/,
# then the whole suite run against them (tests/sanitize).
# `make fuzz FUZZ_SECONDS=N`: every libFuzzer target of tests/fuzz/ built
# into build-fuzz/ and run N seconds each (tests/fuzz/run).
SAN_CC ?= clang
SAN_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
SAN_LIB_OBJ = $(LIB_SRC:lib/%.c=build-san/lib/%.o) build/lib/vocab_data.o
SAN_UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=build-san/tests/%)

build-san/lib/%.o: lib/%.c lib/harmony.h $(wildcard lib/*_int.h)
	@mkdir -p build-san/lib
	$(SAN_CC) $(HM_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

build-san/libharmony.a: $(SAN_LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $(SAN_LIB_OBJ)

build-san/cmd/%.o: cmd/%.c $(wildcard cmd/*.h) lib/harmony.h
	@mkdir -p build-san/cmd
	$(SAN_CC) $(HM_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

# The further objects of a binary, as for bin/ above.
bin-san/harmony-tokens: $(TOKENS_OBJ:%=build-san/cmd/%)
bin-san/harmony-parse: $(PARSE_OBJ:%=build-san/cmd/%) build-san/cmd/store.o
bin-san/harmony-render: build-san/cmd/store.o

bin-san/%: build-san/cmd/%.o build-san/cmd/cli.o build-san/libharmony.a
	@mkdir -p bin-san
	$(SAN_CC) $(SAN_FLAGS) -o $@ $(filter %.o,$^) build-san/libharmony.a $(TOOL_LIBS_$*) $(LDLIBS)

build-san/tests/%: tests/unit/%.c tests/unit/unit.h build-san/libharmony.a
	@mkdir -p build-san/tests
	$(SAN_CC) $(HM_CFLAGS) -Itests/unit $(SAN_FLAGS) -o $@ $< build-san/libharmony.a $(CJSON_LIBS) $(LDLIBS)

# The fuzz targets as unit tests: each replays fixtures/fuzz/NAME/.
build/tests/test_replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(wildcard tests/fuzz/*.h) build/libharmony-int.a
	@mkdir -p build/tests
	$(CC) $(HM_CFLAGS) -Itests/fuzz $(CPPFLAGS) $(CFLAGS) -DFUZZ_NAME='"$*"' -o $@ $< tests/fuzz/replay.c build/libharmony-int.a $(CJSON_LIBS) $(LDLIBS)

build-san/tests/test_replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(wildcard tests/fuzz/*.h) build-san/libharmony.a
	@mkdir -p build-san/tests
	$(SAN_CC) $(HM_CFLAGS) -Itests/fuzz $(SAN_FLAGS) -DFUZZ_NAME='"$*"' -o $@ $< tests/fuzz/replay.c build-san/libharmony.a $(CJSON_LIBS) $(LDLIBS)

# The threads test once more under ThreadSanitizer, with the library
# built into it: a data race between threads is a report.
build-san/tsan/test_threads: tests/unit/test_threads.c tests/unit/unit.h $(LIB_SRC) lib/harmony.h $(wildcard lib/*_int.h) build/lib/vocab_data.o
	@mkdir -p build-san/tsan
	$(SAN_CC) $(HM_CFLAGS) -Itests/unit -O1 -g -fsanitize=thread -o $@ tests/unit/test_threads.c $(LIB_SRC) build/lib/vocab_data.o -pthread

sanitize-build: $(BINS:%=bin-san/%) $(SAN_UNIT_BIN) $(FUZZ_NAMES:%=build-san/tests/test_replay_%) build-san/tsan/test_threads

sanitize: deps-sanitize
	$(MAKE) all unit sanitize-build
	tests/sanitize

FUZZ_CC ?= clang
FUZZ_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_SECONDS ?= 20
FUZZ_LIB_OBJ = $(LIB_SRC:lib/%.c=build-fuzz/lib/%.o) build/lib/vocab_data.o

build-fuzz/lib/%.o: lib/%.c lib/harmony.h $(wildcard lib/*_int.h)
	@mkdir -p build-fuzz/lib
	$(FUZZ_CC) $(HM_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build-fuzz/libharmony.a: $(FUZZ_LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $(FUZZ_LIB_OBJ)

build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) build-fuzz/libharmony.a
	$(FUZZ_CC) $(HM_CFLAGS) -Itests/fuzz $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< build-fuzz/libharmony.a $(CJSON_LIBS) $(LDLIBS)

fuzz-build: $(FUZZ_NAMES:%=build-fuzz/fuzz_%)

fuzz: deps-sanitize
	$(MAKE) all fuzz-build
	tests/fuzz/run $(FUZZ_SECONDS) $(FUZZ_NAMES)
