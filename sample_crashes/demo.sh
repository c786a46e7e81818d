#!/bin/sh
# The README's demo: crash a sample program under postmortem, print its report.
set -eu
build=${1:-build}
dir=$(mktemp -d /tmp/postmortem-demo-XXXXXX)
prog="$build/sample_crashes/crash_null_deref"
echo "== $prog dereferences NULL on purpose; postmortem is installed in it"
status=0
POSTMORTEM_DIR="$dir" "$prog" || status=$?
echo "== it died with exit status $status (128 + signal $((status - 128)))"
echo "== postmortem left in $dir/pending:"
ls -l "$dir/pending"
echo
cat "$dir"/pending/*.crash
echo
echo "== postmortem explain $dir/pending/*.json"
"$build/tools/postmortem" explain "$dir"/pending/*.json

# make demo SPOTLIGHT=1: the same crash as Sentry shows it.  Spotlight, Sentry's
# development receiver (npm, as the tests install it), receives the upload on a
# free loopback port; its page stays up until Enter is pressed.
[ "${SPOTLIGHT:-}" = 1 ] || exit 0
echo
echo "== Spotlight (Sentry's development receiver) receives the report"
ninja -C "$build" tests/spotlight-npm.stamp >/dev/null
export PM_NODE_MODULES="$PWD/$build/tests/spotlight-npm/node_modules"
log="$dir/spotlight.log"
node tests/ecosystem/spotlight/spotlight.mjs -p 0 >"$log" 2>&1 &
spotlight=$!
trap 'kill $spotlight 2>/dev/null' EXIT INT TERM
port=
for _ in $(seq 100); do
	port=$(sed -n 's/.*Spotlight listening on \([0-9]*\).*/\1/p' "$log")
	[ -n "$port" ] && break
	sleep 0.2
done
[ -n "$port" ] || { cat "$log"; echo "== Spotlight did not start"; exit 1; }
id=$(basename "$dir"/pending/*.json .json | tr -d - | tr A-F a-f)
"$build/tools/postmortem" upload --dir "$dir" --dsn "http://demo@127.0.0.1:$port/1"
echo "== open http://localhost:$port/telemetry/errors/$id/details"
echo "== (press Enter to stop Spotlight)"
read -r _
