#!/bin/sh
# check_symbols.sh ALLOWLIST LIB.a... — the crash-path objects may import only
# allow-listed functions.  Symbols defined by any of the given archives are
# internal; every other undefined symbol is an import and must be listed.
set -eu
allow=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm --defined-only --format=posix "$@" 2>/dev/null | awk 'NF >= 2 && $2 != "" {print $1}' | sort -u > "$tmp/defined"
nm --undefined-only --format=posix "$@" 2>/dev/null | awk 'NF >= 2 {print $1}' | sort -u > "$tmp/undefined"
grep -v '^#' "$allow" | awk 'NF {print $1}' | sort -u > "$tmp/allowed"
comm -23 "$tmp/undefined" "$tmp/defined" > "$tmp/imports"
bad=$(comm -23 "$tmp/imports" "$tmp/allowed")
if [ -n "$bad" ]; then
	echo "crash-path objects import functions that are not on the async-signal-safe allow-list ($allow):"
	echo "$bad" | sed 's/^/  /'
	exit 1
fi
echo "crash-path imports ($(wc -l < "$tmp/imports")), all allow-listed:"
sed 's/^/  /' "$tmp/imports"
