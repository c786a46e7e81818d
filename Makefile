# The two entry points the README starts with.  Both work on a fresh Debian 12
# machine: they install what is missing with apt-get, build, and run.
#
#   make demo   crash a sample program under postmortem and print its report
#   make test   build with warnings as errors and run every test
#
# Re-running is cheap: packages already installed are skipped, meson rebuilds
# only what changed.

BUILD ?= build
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 20
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

PACKAGES = build-essential meson ninja-build pkg-config clang clang-14 libclang-rt-14-dev llvm-14 lld-14 \
           libcriterion-dev libcjson-dev libdw-dev libelf-dev elfutils libunwind-dev \
           libcurl4-openssl-dev libssl-dev zlib1g-dev libc6-dbg libdb5.3-dbg binutils gdb python3

.PHONY: deps build demo test fuzz clean

deps:
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(PACKAGES)

$(BUILD)/build.ninja:
	meson setup $(BUILD) -Dwerror=true -Dlibunwind=enabled

build: $(BUILD)/build.ninja
	ninja -C $(BUILD)

demo: deps build
	sh sample_crashes/demo.sh $(BUILD)

test: deps build
	meson test -C $(BUILD) --print-errorlogs
	$(MAKE) --no-print-directory fuzz

# Every reader's libFuzzer target, a bounded time each, on the shared samples.
$(FUZZ_BUILD)/build.ninja:
	CC=clang meson setup $(FUZZ_BUILD) -Dfuzz=true -Dtests=false

fuzz: $(FUZZ_BUILD)/build.ninja build
	ninja -C $(FUZZ_BUILD)
	sh fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(BUILD)

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD)
