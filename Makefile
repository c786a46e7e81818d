# The two entry points the README starts with.  Both work on a fresh Debian 12
# machine: they install what is missing with apt-get, build, and run.
#
#   make demo   crash a sample program under postmortem and print its report
#   make test   build with warnings as errors and run every test (and every
#               fuzzer for a fixed number of runs from a fixed seed)
#
#   make fuzz-long   minutes per fuzzer from random seeds: run it before
#                    resolving a change to a reader, a writer or the store
#
# Re-running is cheap: packages already installed are skipped, meson rebuilds
# only what changed.

BUILD ?= build
FUZZ_BUILD ?= build-fuzz
FUZZ_RUNS ?= 4000
FUZZ_SEED ?= 1
FUZZ_SECONDS ?= 300
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

PACKAGES = build-essential meson ninja-build pkg-config clang clang-14 libclang-rt-14-dev llvm-14 lld-14 \
           libcriterion-dev libcjson-dev libdw-dev libelf-dev elfutils libunwind-dev \
           libcurl4-openssl-dev libssl-dev zlib1g-dev libc6-dbg libdb5.3-dbg binutils gdb python3 \
           python3-jsonschema lldb cmake groff-base zsh libiberty-dev rustc
# libiberty-dev: the demangler (C++, Rust, D).  rustc (~270 MB with its std) and build-essential's
# g++ build the programs tests/crash/test_runtimes.c crashes.
# Tests install Breakpad's tools and sentry-cli with npm; Debian's npm is needed only when
# none is present (NodeSource's nodejs ships its own and conflicts with Debian's).
NPM_PACKAGES = nodejs npm

.PHONY: deps build demo test fuzz fuzz-long clean

deps:
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(PACKAGES)
	command -v npm >/dev/null || $(SUDO) env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends $(NPM_PACKAGES)

$(BUILD)/build.ninja:
	meson setup $(BUILD) -Dwerror=true -Dlibunwind=enabled

build: $(BUILD)/build.ninja
	ninja -C $(BUILD)

demo: deps build
	sh sample_crashes/demo.sh $(BUILD)

test: deps build
	meson test -C $(BUILD) --print-errorlogs
	$(MAKE) --no-print-directory fuzz

# Every libFuzzer target (fuzz/run.sh): deterministic in `make test`, a
# timed campaign from random seeds in `make fuzz-long`.
$(FUZZ_BUILD)/build.ninja:
	CC=clang meson setup $(FUZZ_BUILD) -Dfuzz=true -Dtests=false

fuzz: $(FUZZ_BUILD)/build.ninja build
	ninja -C $(FUZZ_BUILD)
	FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_SEED=$(FUZZ_SEED) sh fuzz/run.sh $(FUZZ_BUILD) $(BUILD) ci

fuzz-long: $(FUZZ_BUILD)/build.ninja build
	ninja -C $(FUZZ_BUILD)
	FUZZ_SECONDS=$(FUZZ_SECONDS) sh fuzz/run.sh $(FUZZ_BUILD) $(BUILD) long

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD)
