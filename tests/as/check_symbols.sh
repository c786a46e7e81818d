#!/bin/sh
# check_symbols.sh ALLOWLIST ARCHIVE... [--whole ARCHIVE...] — the crash-path
# objects may import only allow-listed functions.  The crash path is every
# object named as_* or arch_* of the reporter's rooms, whichever room's
# archive holds it (docs/architecture.md, "Names"), and every object of the
# archives after --whole (formats_safe).  Symbols those objects define are
# internal; every other undefined symbol is an import and must be listed.
set -eu
allow=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/lines"
whole=0
for a in "$@"; do
	if [ "$a" = --whole ]; then
		whole=1
		continue
	fi
	# "archive[dir/member.o]: symbol type ...": keep the crash path's members.
	nm -A --format=posix "$a" 2>/dev/null | awk -v whole="$whole" '
		{ member = $1; sub(/\]:$/, "", member); sub(/.*[\/\[]/, "", member) }
		whole || member ~ /^(as|arch)_/ { print $2, $3 }' >> "$tmp/lines"
done
awk '$2 != "U" && $2 != "" {print $1}' "$tmp/lines" | sort -u > "$tmp/defined"
awk '$2 == "U" {print $1}' "$tmp/lines" | sort -u > "$tmp/undefined"
if [ ! -s "$tmp/defined" ]; then
	echo "no crash-path object found in: $*"
	exit 1
fi
grep -v '^#' "$allow" | awk 'NF {print $1}' | sort -u > "$tmp/allowed"
comm -23 "$tmp/undefined" "$tmp/defined" > "$tmp/imports"
bad=$(comm -23 "$tmp/imports" "$tmp/allowed")
if [ -n "$bad" ]; then
	echo "crash-path objects import functions that are not on the async-signal-safe allow-list ($allow):"
	echo "$bad" | sed 's/^/  /'
	exit 1
fi
echo "crash-path objects: $(cut -d' ' -f1 "$tmp/defined" | wc -l) symbols defined; imports ($(wc -l < "$tmp/imports")), all allow-listed:"
sed 's/^/  /' "$tmp/imports"
