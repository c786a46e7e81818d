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
