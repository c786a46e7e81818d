#!/bin/sh
# fuzz/run.sh BUILD SECONDS — run every reader's fuzzer for a bounded time on a
# seed corpus made from the shared Apple samples (and their JSON twins made
# with `postmortem convert`).  Exit 1 with the crashing input's path if a
# fuzzer finds anything; copy that input into fuzz/regressions/ so the unit
# tests replay it for good.
set -eu
build=$1
seconds=${2:-20}
main_build=${3:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
shared=${PM_SHARED:-$root/../shared}
[ -d "$shared/samples/apple" ] || shared=/work/shared
work=$(mktemp -d /tmp/pm-fuzz-XXXXXX)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/apple" "$work/json"
cp "$shared"/samples/apple/*.txt "$shared"/samples/apple/*.ips "$shared"/samples/apple/*.crash "$work/apple/"
cp "$shared"/docs/examples/* "$work/apple/" 2>/dev/null || true
for f in "$work"/apple/*; do
	"$root/$main_build/tools/postmortem" convert --to json -o "$work/json/$(basename "$f").json" "$f" \
		2>/dev/null || true
done
cp "$root"/fuzz/regressions/* "$work/apple/" 2>/dev/null || true
# Mach-O seeds: the dSYM tests' programs and DWARF files (thin and universal), each
# behind the byte that picks the architecture asked for.
mkdir -p "$work/macho"
for f in "$root/$main_build"/tests/symbolicate/symb_macho_*; do
	case $f in *.o) continue ;; esac
	{ printf '\001'; cat "$f"; } > "$work/macho/$(basename "$f")"
done
# Pre-parsed symbol tables of the same programs and of an ELF test program.
mkdir -p "$work/table"
"$root/$main_build/tools/postmortem" symbols build -o "$work/table" \
	"$root/$main_build"/tests/symbolicate/symb_macho_universal.dwarf "$root/$main_build"/tests/symbolicate/symb_c \
	> /dev/null

run() {
	name=$1 corpus=$2 dict=$3
	mkdir -p "$work/out-$name" "$work/art-$name"
	set -- "$build/fuzz/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$work/art-$name/" -print_final_stats=0
	[ -n "$dict" ] && set -- "$@" -dict="$dict"
	echo "== $name for ${seconds}s"
	if ! "$@" "$work/out-$name" "$corpus" > "$work/$name.log" 2>&1; then
		tail -40 "$work/$name.log"
		mkdir -p "$root/fuzz/regressions"
		for a in "$work/art-$name"/*; do
			[ -f "$a" ] || continue
			cp "$a" "$root/fuzz/regressions/$name-$(basename "$a")"
			echo "fuzz: $name found a failing input, saved as fuzz/regressions/$name-$(basename "$a")"
		done
		exit 1
	fi
	grep -E "^#[0-9]+.*(DONE|pulse)" "$work/$name.log" | tail -1 || true
}

run fuzz_read_text "$work/apple" "$here/text.dict"
run fuzz_read_ips "$work/apple" "$here/ips.dict"
run fuzz_read_json "$work/json" ""
run fuzz_read_any "$work/apple" ""
run fuzz_macho "$work/macho" ""
run fuzz_table "$work/table" ""
echo "fuzz: no failures"
