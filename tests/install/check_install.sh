#!/bin/sh
# check_install.sh BUILD_DIR — `meson install` puts the library (shared and
# static), postmortem.h, the CLI, its man page and bash/zsh completions, a
# pkg-config file and a CMake package in place; a program built against them
# with pkg-config (plain, with a sysroot, with --define-prefix) and one built
# with CMake's find_package(postmortem) (shared and static) link, run and
# crash into a report.  Installs into a scratch DESTDIR, never onto the system.
set -eu
build=$1
dest=$(mktemp -d /tmp/pm-install-XXXXXX)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --no-rebuild --quiet
pc=$(find "$dest" -name postmortem.pc)
[ -n "$pc" ] || { echo "no postmortem.pc installed"; exit 1; }
for f in include/postmortem.h bin/postmortem share/man/man1/postmortem.1 \
         share/bash-completion/completions/postmortem share/zsh/site-functions/_postmortem \
         cmake/postmortem/postmortemConfig.cmake cmake/postmortem/postmortemConfigVersion.cmake; do
	[ -e "$(find "$dest" -path "*/$f" | head -1)" ] || { echo "not installed: $f"; exit 1; }
done
libdir=$(dirname "$(find "$dest" -name 'libpostmortem.so.0' | head -1)")
prefix=$(dirname "$(dirname "$(find "$dest" -path '*/include/postmortem.h')")")
[ -f "$libdir/libpostmortem.a" ] || { echo "no static library installed"; exit 1; }

# The man page renders without a warning and names every command.
man=$(find "$dest" -name postmortem.1)
warnings=$(groff -man -Tutf8 -ww -z "$man" 2>&1)
[ -z "$warnings" ] || { echo "the man page: $warnings"; exit 1; }
for cmd in convert explain symbolicate symbols list show run upload; do
	grep -q "postmortem $cmd" "$man" || { echo "the man page does not name $cmd"; exit 1; }
done

cat > "$dest/app.c" <<'C'
#include <postmortem.h>
int *volatile p;
int main(void) { if (pm_install(NULL) != 0) return 2; return *p; }
C

# crash NAME: run $dest/NAME; it must die of SIGSEGV and leave a report.
crash() {
	status=0
	rm -rf "$dest/reports"
	POSTMORTEM_DIR="$dest/reports" LD_LIBRARY_PATH="$libdir" "$dest/$1" || status=$?
	[ "$status" -eq 139 ] || { echo "$1 exited $status, not 139 (SIGSEGV)"; exit 1; }
	ls "$dest"/reports/pending/*.crash "$dest"/reports/pending/*.json >/dev/null
}

# pkg-config: as installed, under a sysroot, and relocated by --define-prefix.
for how in plain sysroot define-prefix; do
	case $how in
	plain) flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs postmortem) ;;
	sysroot) flags=$(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest pkg-config --cflags --libs postmortem) ;;
	define-prefix) flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-prefix --cflags --libs postmortem) ;;
	esac
	# Its own -I and -L must lead to the installed header and library.
	inc=no lib=no
	for f in $flags; do
		case $f in
		-I*) [ -f "${f#-I}/postmortem.h" ] && inc=yes ;;
		-L*) [ -f "${f#-L}/libpostmortem.so" ] && lib=yes ;;
		esac
	done
	[ $inc$lib = yesyes ] || { echo "pkg-config ($how): no -I to postmortem.h or -L to libpostmortem.so in: $flags"; exit 1; }
	cc -o "$dest/app-$how" "$dest/app.c" $flags
	crash "app-$how"
done

# CMake: find_package(postmortem) with its imported targets, shared and static.
mkdir -p "$dest/cmake-app"
cp "$dest/app.c" "$dest/cmake-app/app.c"
cat > "$dest/cmake-app/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(consumer C)
find_package(postmortem 0.1 REQUIRED)
add_executable(app_shared app.c)
target_link_libraries(app_shared PRIVATE postmortem::postmortem)
add_executable(app_static app.c)
target_link_libraries(app_static PRIVATE postmortem::postmortem_static)
CMAKE
cmake -S "$dest/cmake-app" -B "$dest/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$dest/cmake-build" >/dev/null
for app in app_shared app_static; do
	cp "$dest/cmake-build/$app" "$dest/$app"
	crash "$app"
done
# The static one carries the library; the shared one loads the installed copy.
! ldd "$dest/app_static" | grep -q libpostmortem || { echo "app_static loads libpostmortem.so"; exit 1; }
LD_LIBRARY_PATH="$libdir" ldd "$dest/app_shared" | grep -q "$libdir/libpostmortem.so" ||
	{ echo "app_shared does not load the installed libpostmortem.so"; exit 1; }

"$(find "$dest" -path '*/bin/postmortem')" explain "$dest"/reports/pending/*.json | head -1
echo "installed: $(cd "$dest" && find usr -type f | sort | tr '\n' ' ')"
