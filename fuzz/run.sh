#!/bin/sh
# fuzz/run.sh FUZZ_BUILD MAIN_BUILD MODE — run every libFuzzer target.
#
#   MODE ci        a fixed number of runs from a fixed seed (FUZZ_RUNS, FUZZ_SEED):
#                  the same commit always gives the same result, so CI never turns
#                  red at random.
#   MODE long      FUZZ_SECONDS of wall time per target from a random seed, on a
#                  larger corpus that also holds reports captured from every sample
#                  crash program: the campaign to run before resolving any change
#                  to a reader, a writer or the store (`make fuzz-long`).
#
# Seeds: the shared Apple samples (in place) and their JSON twins made with
# `postmortem convert`, the sample reports in sample_crashes/reports, the
# committed fuzz/corpus/<target>/ (minidumps postmortem wrote among them), and
# every input in fuzz/regressions/; small cores for the core reader and for the
# whole report of a core.
# Exit 1 when a target fails; the failing input is copied into
# fuzz/regressions/ (the unit tests replay it), to be committed with its fix.
set -eu
build=$1
main_build=$2
mode=${3:-ci}
runs=${FUZZ_RUNS:-4000}
seed=${FUZZ_SEED:-1}
seconds=${FUZZ_SECONDS:-300}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
shared=${PM_SHARED:-$root/../shared}
[ -d "$shared/samples/apple" ] || shared=/work/shared
postmortem="$root/$main_build/tools/postmortem"
work=$(mktemp -d /tmp/pm-fuzz-XXXXXX)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/reports" "$work/json" "$work/store" "$work/answer" "$work/minidump"
cp "$shared"/samples/apple/*.txt "$shared"/samples/apple/*.ips "$shared"/samples/apple/*.crash \
	"$root"/sample_crashes/reports/*.crash "$work/reports/"
cp "$shared"/docs/examples/* "$work/reports/" 2>/dev/null || true
cp "$root"/sample_crashes/reports/*.json "$work/json/"

# The long campaign also starts from what the crash handler really writes.
if [ "$mode" = long ]; then
	for prog in "$root/$main_build"/sample_crashes/crash_*; do
		[ -x "$prog" ] || continue
		POSTMORTEM_DIR="$work/captured" timeout 20 "$prog" >/dev/null 2>&1 || true
	done
	cp "$work"/captured/pending/*.crash "$work/reports/" 2>/dev/null || true
	cp "$work"/captured/pending/*.json "$work/json/" 2>/dev/null || true
	cp "$work"/captured/pending/*.dmp "$work/minidump/" 2>/dev/null || true
fi

for f in "$work"/reports/*; do
	"$postmortem" convert --to json -o "$work/json/$(basename "$f").json" "$f" 2>/dev/null || true
done
cp "$root"/fuzz/regressions/fuzz_read_* "$work/reports/" 2>/dev/null || true
cp "$root"/fuzz/regressions/fuzz_read_* "$work/json/" 2>/dev/null || true

# A store seed is a directory in fuzz_store.c's layout: a pending report whole,
# another torn in its JSON twin, and a quarantined one with its reason.
chunk() { printf '%s%s\n' "$1" "$2"; cat "$3"; printf '\000\000'; }
for r in "$root"/sample_crashes/reports/*.json; do
	id=$(basename "$r" .json)
	crash="${r%.json}.crash"
	half="$work/half.json"
	head -c "$(($(wc -c < "$r") / 2))" "$r" > "$half"
	{ chunk '0' "$id.crash" "$crash"; chunk '0' "$id.json" "$r"; } > "$work/store/$id-whole"
	{ chunk '0' "$id.crash" "$crash"; chunk '0' ".$id.json.tmp" "$half"; } > "$work/store/$id-torn"
	{ chunk '2' "$id.json" "$r"; printf '2%s.reason\nrejected by the server' "$id"; } > "$work/store/$id-quarantined"
done
# With a run's record at the top (the runs file, docs/store.md "Sessions"): one
# that exited, one killed (its cgroup's OOM count risen), one cut short.
run_record() { printf '3runs\npostmortem-session 1\npid 4242\nstarted 1700000000000000\napp_id app\napp_version 1.0\nexe app\n%s' "$1"; }
run_record 'end exit 3 1700000001000000
' > "$work/store/runs-exited"
run_record 'oom_kill 1 /nonexistent/memory.events
end signal 9 1700000002000000 2
' > "$work/store/runs-killed"
run_record '' | head -c 60 > "$work/store/runs-cut"
cp "$root"/fuzz/regressions/fuzz_store* "$work/store/" 2>/dev/null || true
# Crash groups' records (pending/.groups/<signature>): whole, torn and hostile ones.
mkdir -p "$work/group"
cp "$here"/corpus/group_record/* "$work/group/"
cp "$root"/fuzz/regressions/fuzz_group_record* "$work/group/" 2>/dev/null || true
cp "$here"/corpus/upload_answer/* "$work/answer/"
cp "$root"/fuzz/regressions/fuzz_upload_answer* "$work/answer/" 2>/dev/null || true
cp "$here"/corpus/minidump/* "$work/minidump/"
cp "$root"/fuzz/regressions/fuzz_read_minidump* "$work/minidump/" 2>/dev/null || true
# Mach-O seeds: the dSYM tests' programs and DWARF files (thin and universal), each
# behind the byte that picks the architecture asked for.
mkdir -p "$work/macho"
for f in "$root/$main_build"/tests/symbolicate/symb_macho_*; do
	case $f in *.o) continue ;; esac
	{ printf '\001'; cat "$f"; } > "$work/macho/$(basename "$f")"
done
cp "$root"/fuzz/regressions/fuzz_macho* "$work/macho/" 2>/dev/null || true
# Pre-parsed symbol tables of the same programs and of an ELF test program.
mkdir -p "$work/table"
"$root/$main_build/tools/postmortem" symbols build -o "$work/table" \
	"$root/$main_build"/tests/symbolicate/symb_macho_universal.dwarf "$root/$main_build"/tests/symbolicate/symb_c \
	> /dev/null
cp "$root"/fuzz/regressions/fuzz_table* "$work/table/" 2>/dev/null || true

# Core seeds (fuzz/corpus/core): a gcore of 17 threads and a qemu-user aarch64
# core, their notes kept and their segments emptied, so that they stay small.
mkdir -p "$work/core"
cp "$here"/corpus/core/* "$work/core/"
cp "$root"/fuzz/regressions/fuzz_core-* "$work/core/" 2>/dev/null || true
# The whole report of a core: small kernel cores (fuzz/core_seed.py), one with its executable.
mkdir -p "$work/core_report"
cp "$here"/corpus/core_report/* "$work/core_report/"
cp "$root"/fuzz/regressions/fuzz_core_report-* "$work/core_report/" 2>/dev/null || true

run() {
	name=$1 corpus=$2 dict=$3
	mkdir -p "$work/out-$name" "$work/art-$name"
	set -- "$build/fuzz/$name" -timeout=30 -rss_limit_mb=2048 \
		-artifact_prefix="$work/art-$name/" -print_final_stats=0
	if [ "$mode" = long ]; then
		set -- "$@" -max_total_time="$seconds"
		echo "== $name for ${seconds}s"
	else
		# Same inputs in the same order every time: no corpus reloads on a
		# timer, and no address randomization (the comparison tables that
		# guide mutations are keyed by code address).
		set -- setarch "$(uname -m)" -R "$@" -runs="$runs" -seed="$seed" -reload=0
		echo "== $name: $runs runs from seed $seed"
	fi
	[ -n "$dict" ] && set -- "$@" -dict="$dict"
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

# Each of files through target name again, one a process, under the seccomp
# filter the system reporter's analysis runs under (PM_FUZZ_SANDBOX:
# fuzz/check_core_report.c); a failing one is saved as a regression.
sandboxed() {
	name=$1
	shift
	n=0
	for f in "$@"; do
		[ -f "$f" ] || continue
		if ! PM_FUZZ_SANDBOX=1 ASAN_OPTIONS=detect_leaks=0 "$build/fuzz/$name" "$f" > "$work/$name-sandboxed.log" 2>&1; then
			tail -40 "$work/$name-sandboxed.log"
			mkdir -p "$root/fuzz/regressions"
			cp "$f" "$root/fuzz/regressions/$name-sandboxed-$(basename "$f")"
			echo "fuzz: $name failed under the seccomp filter, saved as fuzz/regressions/$name-sandboxed-$(basename "$f")"
			exit 1
		fi
		n=$((n + 1))
	done
	echo "== $name: $n inputs again, one a process, under the analysis's seccomp filter"
}

run fuzz_read_text "$work/reports" "$here/text.dict"
run fuzz_read_ips "$work/reports" "$here/ips.dict"
run fuzz_read_json "$work/json" ""
run fuzz_read_any "$work/reports" ""
run fuzz_store "$work/store" "$here/store.dict"
run fuzz_group_record "$work/group" "$here/group.dict"
run fuzz_upload_answer "$work/answer" ""
run fuzz_read_minidump "$work/minidump" ""
run fuzz_macho "$work/macho" ""
run fuzz_table "$work/table" ""
run fuzz_core "$work/core" ""
run fuzz_core_report "$work/core_report" ""
sandboxed fuzz_core_report "$work"/core_report/* "$work"/out-fuzz_core_report/*
echo "fuzz: no failures"
