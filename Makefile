# The two entry points the README starts with.  Both work on a fresh Debian 12
# machine: they install what is missing with apt-get, build, and run.
#
#   make demo   crash a sample program under postmortem and print its report
#               (SPOTLIGHT=1: then upload it to Spotlight, Sentry's development
#               receiver, and print the address of its page)
#   make test   build with warnings as errors and run every test (and every
#               fuzzer for a fixed number of runs from a fixed seed)
#
#   make fuzz-long   minutes per fuzzer from random seeds: run it before
#                    resolving a change to a reader, a writer or the store
#
#   make test-arm64  cross-build for aarch64 and run the capture, crash and
#                    unwind tests under qemu-user (make test runs it too)
#
# Re-running is cheap: packages already installed are skipped, meson rebuilds
# only what changed.

BUILD ?= build
FUZZ_BUILD ?= build-fuzz
FUZZ_RUNS ?= 4000
FUZZ_SEED ?= 1
FUZZ_SECONDS ?= 300
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# What the native suite runs of aarch64: system_core_reader builds a static aarch64 program
# (libc6-dev-arm64-cross is only a Recommends of the compiler) and qemu-user writes its core;
# core_qemu crashes a static program under qemu-user.  Installed with the rest, before any test.
CROSS_PACKAGES = gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
PACKAGES = $(CROSS_PACKAGES) build-essential meson ninja-build pkg-config clang clang-14 libclang-rt-14-dev llvm-14 lld-14 \
           libcriterion-dev libcjson-dev libdw-dev libelf-dev elfutils libunwind-dev libdebuginfod-dev debuginfod \
           libcurl4-openssl-dev libssl-dev zlib1g-dev libc6-dbg libdb5.3-dbg binutils gdb python3 \
           python3-jsonschema lldb cmake groff-base zsh libiberty-dev rustc tzdata golang-go chromium \
           openjdk-17-jdk-headless mono-runtime mono-mcs strace procps systemd libseccomp-dev
# libdebuginfod-dev: elfutils' debuginfod client, which symbolication asks servers through; debuginfod: the
# server the tests and the debuginfod benchmark start on a loopback port.
# libseccomp-dev: the seccomp filter the system reporter's analysis child runs under (system/sandbox.c).
# tzdata: zone files the launch-time offset test reads.  libiberty-dev: the demangler (C++, Rust, D).  rustc (~270 MB with its std), golang-go
# (Go 1.19: an 81 MB download, 450 MB installed, under a minute to install) and build-essential's g++ build the
# programs tests/crash/test_runtimes.c crashes.
# openjdk-17-jdk-headless, mono-runtime, mono-mcs (and node, below): runtimes that take SIGSEGV on purpose,
# run for real by tests/crash/test_managed.c; strace counts the faults they take.
# procps and systemd: `sysctl` and systemd-sysctl, which apply the sysctl drop-ins at boot, judge the one
# `system enable` writes (tests/system/test_enable.py); a container image may have neither.
# chromium: Spotlight's error page is read in it, headless (tests/delivery/test_upload_spotlight.c).
# Tests install Breakpad's tools, sentry-cli, Spotlight and playwright-core with npm; Debian's
# npm is needed only when none is present (NodeSource's nodejs ships its own and conflicts with Debian's;
# it also ships the Node-API headers that Debian's libnode-dev holds).
NPM_PACKAGES = nodejs npm libnode-dev

# aarch64 (issue 15): a cross compiler, qemu-user, and the dependencies' arm64
# packages through multiarch.  Criterion's arm64 package cannot be installed
# beside the amd64 one (libnanomsg5 is not multiarch), so its files are
# unpacked under the build tree instead, its .pc pointed there (linked
# dynamically: the private requirements it names are dropped; an old-style
# RPATH, which libcriterion.so.3 inherits, finds libnanomsg.so.5 beside it).
ARM64_BUILD ?= build-arm64
ARM64_ROOT = $(CURDIR)/$(ARM64_BUILD)-root
ARM64_PACKAGES = $(CROSS_PACKAGES) g++-aarch64-linux-gnu libc6:arm64 \
                 libcjson-dev:arm64 libdw-dev:arm64 libelf-dev:arm64 libdebuginfod-dev:arm64 libunwind-dev:arm64 \
                 libcurl4-openssl-dev:arm64 libssl-dev:arm64 zlib1g-dev:arm64 libiberty-dev:arm64 \
                 libffi8:arm64 libgit2-1.5:arm64 libstdc++6:arm64 libc6-dbg:arm64 libseccomp-dev:arm64
ARM64_UNPACKED = libcriterion3:arm64 libcriterion-dev:arm64 libnanomsg5:arm64
# What runs under qemu (docs/arm64.md): real crashes (crash_arm64 and the x86_64 crash
# suites, with arm64's expectations where the architecture differs), minidumps read by
# LLDB and minidump_stackwalk, live backtraces and the watchdog, the unwinder against
# libunwind's (-O2 with and without frame pointers), the capture engine over a second
# memory source (seam: an aarch64 thread captured again from the bytes a live capture
# read), an aarch64 core qemu-user wrote converted by the aarch64 postmortem (core_qemu:
# the engine over a core, a static binary's bare .eh_frame), the crash-path import
# allow-list, and the writers' output byte for byte (their escape and hex work on 8-byte
# words).
# Tools and upload are portable C tested on the build machine.
ARM64_TESTS = crash_arm64 crash_samples crash_capture crash_unwind crash_minidump crash_live crash_watchdog \
              crash_words crash_walkers crash_landing crash_handed_first unwind_libunwind unwind_libunwind_fp as_symbols \
              render_golden out seam core_qemu

.PHONY: deps deps-arm64 build demo test test-arm64 fuzz fuzz-long clean

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
	SPOTLIGHT=$(SPOTLIGHT) sh sample_crashes/demo.sh $(BUILD)

# Every package any test uses (test-arm64's too) is installed before the first test runs.
# A system test killed with its guard (tests/system/kernel_settings.py) left the machine's crash
# settings changed: they are put back before the first crash test runs.
test: deps deps-arm64 build
	python3 tests/system/kernel_settings.py
	meson test -C $(BUILD) --print-errorlogs
	$(MAKE) --no-print-directory fuzz
	$(MAKE) --no-print-directory test-arm64

deps-arm64: deps
	dpkg --print-foreign-architectures | grep -qx arm64 || $(SUDO) dpkg --add-architecture arm64
	$(SUDO) apt-get update -qq
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(ARM64_PACKAGES)
	# Tests exec arm64 programs (samples, Criterion's workers): the kernel must hand them to
	# qemu.  qemu-user-static registers itself where systemd runs; elsewhere, do it here.
	mountpoint -q /proc/sys/fs/binfmt_misc || $(SUDO) mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
	test -e /proc/sys/fs/binfmt_misc/qemu-aarch64 || \
		$(SUDO) sh -c 'cat /usr/lib/binfmt.d/qemu-aarch64.conf > /proc/sys/fs/binfmt_misc/register'
	test -f $(ARM64_ROOT)/.unpacked || { \
		rm -rf $(ARM64_ROOT) && mkdir -p $(ARM64_ROOT)/debs && \
		cd $(ARM64_ROOT)/debs && apt-get download $(ARM64_UNPACKED) && \
		for d in *.deb; do dpkg-deb -x "$$d" $(ARM64_ROOT); done && \
		sed -i -e 's|^prefix=.*|prefix=$(ARM64_ROOT)/usr|' -e '/^Requires.private/d' -e '/^Libs.private/d' \
			$(ARM64_ROOT)/usr/lib/aarch64-linux-gnu/pkgconfig/criterion.pc && \
		touch $(ARM64_ROOT)/.unpacked; }

$(ARM64_BUILD)/build.ninja:
	meson setup $(ARM64_BUILD) --cross-file cross/aarch64-linux-gnu.ini -Dwerror=true -Dlibunwind=enabled \
		-Dpkg_config_path=$(ARM64_ROOT)/usr/lib/aarch64-linux-gnu/pkgconfig \
		-Dc_link_args=-Wl,--disable-new-dtags,-rpath,$(ARM64_ROOT)/usr/lib/aarch64-linux-gnu

test-arm64: deps-arm64 $(ARM64_BUILD)/build.ninja
	ninja -C $(ARM64_BUILD)
	meson test -C $(ARM64_BUILD) --print-errorlogs $(ARM64_TESTS)

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
	rm -rf $(BUILD) $(FUZZ_BUILD) $(ARM64_BUILD) $(ARM64_BUILD)-root
