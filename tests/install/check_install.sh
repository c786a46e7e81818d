#!/bin/sh
# check_install.sh BUILD_DIR — `meson install` puts the library (shared and
# static), postmortem.h, the CLI and a pkg-config file in place, and a
# program built against them with pkg-config links, runs and crashes into a
# report.  Installs into a scratch DESTDIR, never onto the system.
set -eu
build=$1
dest=$(mktemp -d /tmp/pm-install-XXXXXX)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --no-rebuild --quiet
pc=$(find "$dest" -name postmortem.pc)
[ -n "$pc" ] || { echo "no postmortem.pc installed"; exit 1; }
for f in include/postmortem.h bin/postmortem; do
	[ -e "$(find "$dest" -path "*/$f" | head -1)" ] || { echo "not installed: $f"; exit 1; }
done
libdir=$(dirname "$(find "$dest" -name 'libpostmortem.so.0' | head -1)")
[ -f "$libdir/libpostmortem.a" ] || { echo "no static library installed"; exit 1; }
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest pkg-config --cflags --libs postmortem)
cat > "$dest/app.c" <<'C'
#include <postmortem.h>
int *volatile p;
int main(void) { if (pm_install(NULL) != 0) return 2; return *p; }
C
cc -o "$dest/app" "$dest/app.c" $flags
status=0
POSTMORTEM_DIR="$dest/reports" LD_LIBRARY_PATH="$libdir" "$dest/app" || status=$?
[ "$status" -eq 139 ] || { echo "the installed library's program exited $status, not 139 (SIGSEGV)"; exit 1; }
ls "$dest"/reports/pending/*.crash "$dest"/reports/pending/*.json >/dev/null
"$(find "$dest" -path '*/bin/postmortem')" explain "$dest"/reports/pending/*.json | head -1
echo "installed: $(cd "$dest" && find . -type f | sort | tr '\n' ' ')"
