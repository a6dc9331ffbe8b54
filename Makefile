# buildwall: see README.md. `make demo` and `make test` are the quick start.
CC      ?= cc
PREFIX  ?= /usr/local
BUILD   ?= build
VERSION := $(shell sed -n 's/^\#define BUILDWALL_VERSION "\(.*\)"/\1/p' src/base/version.h)
CFLAGS  ?= -O2 -g
WARN     = -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2
CPPFLAGS += -D_POSIX_C_SOURCE=200809L
LIBS     = -ljansson -lsqlite3 -lm -pthread
# UBSan findings abort, so a test under `make asan` fails on them.
SAN      = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# `make V=1` shows the full compiler commands.
ifeq ($(V),1)
Q =
else
Q = @
endif

# src/ by layer (docs/design.md): each folder includes from its own and
# the ones before it, and the compiler holds it to that: a file of a layer
# is compiled with its own folder and the lower ones on the include path
# alone (INCLUDES_model: base, read, model), so an include that reaches up
# does not compile. Tests, fuzz harnesses and benches see every layer.
LAYERS := base read model store probe plan out cmd
INCLUDES := $(LAYERS:%=-Isrc/%)
below :=
$(foreach l,$(LAYERS),$(eval INCLUDES_$(l) := $(below) -Isrc/$(l))$(eval below := $(INCLUDES_$(l))))
layer_includes = $(INCLUDES_$(firstword $(subst /, ,$(1))))
HEADERS := $(wildcard src/*/*.h src/*/*/*.h)
SRC  := $(wildcard src/*/*.c src/*/*/*.c)
LIB_SRC := $(filter-out src/cmd/main.c,$(SRC))
OBJ  := $(SRC:src/%.c=$(BUILD)/obj/%.o)
LIB_OBJ := $(LIB_SRC:src/%.c=$(BUILD)/obj/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps deps-test deps-demo deps-man test unit e2e asan fuzz demo man install clean bench bench-accuracy

all: $(BUILD)/buildwall

$(BUILD)/obj/%.o: src/%.c $(HEADERS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(call layer_includes,$*) $(WARN) $(CFLAGS) -c $< -o $@

$(BUILD)/buildwall: $(OBJ)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $(OBJ) $(LIBS) -o $@

$(BUILD)/tests/test_%: tests/unit/test_%.c tests/unit/unit.h $(LIB_OBJ) | $(BUILD)/tests
	@$(if $(Q),echo "  CC+LD   $<")
	$(Q)$(CC) $(CPPFLAGS) $(INCLUDES) $(WARN) $(CFLAGS) -DTESTS_DIR=\"$(abspath tests)\" $< $(LIB_OBJ) $(LDFLAGS) $(LIBS) -lcmocka -o $@

# The gate's power simulated with check's own regression_judge.
$(BUILD)/bench/check_power: bench/check_power.c $(LIB_OBJ) | $(BUILD)/bench
	@$(if $(Q),echo "  CC+LD   $<")
	$(Q)$(CC) $(CPPFLAGS) $(INCLUDES) $(WARN) $(CFLAGS) $< $(LIB_OBJ) $(LDFLAGS) $(LIBS) -o $@

$(BUILD)/tests $(BUILD)/bench:
	@mkdir -p $@

# Install what is missing from Debian's packages (as root), or say what to run.
deps:
	@scripts/deps.sh build
deps-test:
	@scripts/deps.sh test
deps-demo:
	@scripts/deps.sh demo
deps-man:
	@scripts/deps.sh man

unit: $(UNIT_BIN)
	@tests/run-unit.sh $(UNIT_BIN)

# `make e2e T='t90 t94'` runs those scripts alone.
e2e: $(BUILD)/buildwall
	@BUILDWALL=$(abspath $(BUILD)/buildwall) tests/e2e/run.sh $(T)

# The binaries build on every CPU; the unit tests then run while the
# demo module the e2e scripts share builds, and the scripts one at a time
# (the probes time compiles), those that time nothing beside them.
NPROC := $(shell nproc 2>/dev/null || echo 1)
test: deps-test
	@$(MAKE) --no-print-directory -j$(NPROC) all $(UNIT_BIN)
	@BUILDWALL=$(abspath $(BUILD)/buildwall) tests/e2e/run.sh --beside "tests/run-unit.sh $(UNIT_BIN)"

# The same tests against a sanitizer build (ASan + UBSan).
asan: deps-test
	@$(MAKE) --no-print-directory -j$(NPROC) BUILD=build-asan CFLAGS="-O1 -g $(SAN)" LDFLAGS="$(SAN)" all $(UNIT_BIN:$(BUILD)/%=build-asan/%)
	@$(MAKE) --no-print-directory BUILD=build-asan CFLAGS="-O1 -g $(SAN)" LDFLAGS="$(SAN)" unit e2e

# libFuzzer harnesses (tests/fuzz/), one per parser, under ASan+UBSan with
# clang-19: each runs FUZZ_SECONDS, seeded from tests/fixtures and
# tests/fuzz/seeds; what it finds is kept in build-fuzz/corpus/.
FUZZ_CC      ?= clang-19
FUZZ_SECONDS ?= 60
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN     := $(FUZZ_NAMES:%=build-fuzz/fuzz_%)

FUZZ_OBJ     := $(LIB_SRC:src/%.c=build-fuzz/obj/%.o)
# Kept between runs: they are not intermediates to throw away.
.SECONDARY: $(FUZZ_OBJ)

build-fuzz/obj/%.o: src/%.c $(HEADERS)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $< (fuzz)")
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(call layer_includes,$*) $(WARN) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c $< -o $@

build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_OBJ)
	@$(if $(Q),echo "  FUZZ    $<")
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(INCLUDES) -D_GNU_SOURCE $(WARN) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer $< \
		$(FUZZ_OBJ) $(LIBS) -o $@

# The harnesses build on every CPU, then run as many at once.
fuzz: deps-test
	@$(MAKE) --no-print-directory -j$(NPROC) $(FUZZ_BIN)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh $(FUZZ_BIN)

demo: deps-demo
	@$(MAKE) --no-print-directory all
	@BUILDWALL=$(abspath $(BUILD)/buildwall) examples/demo-module/demo.sh $(BUILD)/demo

bench: all $(BUILD)/bench/check_power
	@BUILDWALL=$(abspath $(BUILD)/buildwall) bench/log_speed.sh
	@BUILDWALL=$(abspath $(BUILD)/buildwall) bench/rank_vs_loop.sh
	@BUILDWALL=$(abspath $(BUILD)/buildwall) bench/pp_scan.sh
	@BUILDWALL=$(abspath $(BUILD)/buildwall) bench/survey_speed.sh

# How close the predictions come to builds, appended to bench/RESULTS.md
# (ONLY='rank advise' for some): judged there over repeated runs, not in
# a test.
bench-accuracy: deps-test all $(BUILD)/bench/check_power
	@BUILDWALL=$(abspath $(BUILD)/buildwall) bench/accuracy.sh

# A man page per command, each from its docs/ page (one source: the page
# on the web and the one man shows), by Debian's lowdown.
MAN_COMMANDS := wall rank passes log sim pp leak advise ab trace report record history check survey
MAN_PAGES := $(BUILD)/man/buildwall.1 $(MAN_COMMANDS:%=$(BUILD)/man/buildwall-%.1)
MAN_DATE := $(shell git log -1 --format=%cs 2>/dev/null)
man: deps-man $(MAN_PAGES)

$(BUILD)/man/buildwall.1: docs/buildwall.md | $(BUILD)/man
	$(Q)lowdown -s -Tman -M title=buildwall -M section=1 -M source="buildwall $(VERSION)" -M date="$(MAN_DATE)" $< -o $@
$(BUILD)/man/buildwall-%.1: docs/%.md | $(BUILD)/man
	$(Q)lowdown -s -Tman -M title=buildwall-$* -M section=1 -M source="buildwall $(VERSION)" -M date="$(MAN_DATE)" $< -o $@
$(BUILD)/man:
	@mkdir -p $@

install: $(BUILD)/buildwall man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/buildwall $(DESTDIR)$(PREFIX)/bin/buildwall
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf build build-asan build-fuzz
