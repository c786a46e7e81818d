#!/bin/sh
# check_install.sh BUILD_DIR — `meson install` puts both libraries (the
# app's libpostmortem and libpostmortem-tools, shared and static), their
# headers, the CLI, its man page and bash/zsh completions, two pkg-config
# files and a CMake package in place; an app built against them with
# pkg-config postmortem alone (plain, with a sysroot, with --define-prefix)
# and one built with CMake's find_package(postmortem) (shared and static)
# link, run and crash into a report, load nothing but libc besides
# libpostmortem, and upload that report at their next launch, or at once
# through the installed uploader given a destination; a tool built
# with pkg-config postmortem-tools reads it and writes it as .crash text.
# Installs into a scratch DESTDIR, never onto the system.
set -eu
build=$1
dest=$(mktemp -d /tmp/pm-install-XXXXXX)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --no-rebuild --quiet
pc=$(find "$dest" -name postmortem.pc)
[ -n "$pc" ] || { echo "no postmortem.pc installed"; exit 1; }
for f in include/postmortem.h include/postmortem-tools.h pkgconfig/postmortem-tools.pc bin/postmortem share/man/man1/postmortem.1 \
         share/bash-completion/completions/postmortem share/zsh/site-functions/_postmortem \
         cmake/postmortem/postmortemConfig.cmake cmake/postmortem/postmortemConfigVersion.cmake; do
	[ -e "$(find "$dest" -path "*/$f" | head -1)" ] || { echo "not installed: $f"; exit 1; }
done
libdir=$(dirname "$(find "$dest" -name 'libpostmortem.so.0' | head -1)")
prefix=$(dirname "$(dirname "$(find "$dest" -path '*/include/postmortem.h')")")
for f in libpostmortem.a libpostmortem-tools.a libpostmortem-tools.so.0; do
	[ -f "$libdir/$f" ] || { echo "not installed: $libdir/$f"; exit 1; }
done

# The man page renders without a warning and names every command.
man=$(find "$dest" -name postmortem.1)
warnings=$(groff -man -Tutf8 -ww -z "$man" 2>&1)
[ -z "$warnings" ] || { echo "the man page: $warnings"; exit 1; }
for cmd in convert explain symbolicate symbols list show run upload; do
	grep -q "postmortem $cmd" "$man" || { echo "the man page does not name $cmd"; exit 1; }
done

# The app crashes when run without arguments; run with a URL, it uploads
# what is pending, as an app does at launch, and says whether all went.
cat > "$dest/app.c" <<'C'
#include <dirent.h>
#include <postmortem.h>
#include <string.h>
#include <unistd.h>
int *volatile p;
static int pending(void) {
	char path[4096] = "";
	strncat(path, pm_reports_dir(), sizeof path - 16);
	strcat(path, "/pending");
	DIR *d = opendir(path);
	int n = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d) closedir(d);
	return n;
}
int main(int argc, char **argv) {
	if (pm_install(NULL) != 0) return 2;
	if (argc < 2) return *p;
	pm_upload_options opt = { .url = argv[1] };
	if (pm_upload_start(&opt) != 0) return 3;
	for (int i = 0; i < 3000 && pending(); i++) usleep(10000);
	pm_upload_stop(5000);
	return pending() ? 4 : 0;
}
C

# A collector on loopback: answers 200 to every POST and counts them.
python3 - "$dest/collector" <<'PY' &
import http.server, sys
class Collector(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        if self.headers.get("Expect", "").lower() == "100-continue":
            self.send_response_only(100)
            self.end_headers()
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                self.rfile.read(size + 2)
                if size == 0:
                    break
        else:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
        with open(sys.argv[1] + ".posts", "a") as f:
            f.write("POST\n")
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Collector)
with open(sys.argv[1] + ".port.tmp", "w") as f:
    f.write(str(server.server_port))
import os
os.rename(sys.argv[1] + ".port.tmp", sys.argv[1] + ".port")
server.serve_forever()
PY
collector=$!
trap 'kill $collector 2>/dev/null; rm -rf "$dest"' EXIT
for _ in $(seq 100); do [ -f "$dest/collector.port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$dest/collector.port")/upload"

# crash NAME: run $dest/NAME; it must die of SIGSEGV and leave a report,
# having loaded nothing but libc besides libpostmortem; run again, it uploads
# the report (libpostmortem-tools loaded only then).
crash() {
	status=0
	rm -rf "$dest/reports"
	POSTMORTEM_DIR="$dest/reports" LD_LIBRARY_PATH="$libdir" "$dest/$1" || status=$?
	[ "$status" -eq 139 ] || { echo "$1 exited $status, not 139 (SIGSEGV)"; exit 1; }
	ls "$dest"/reports/pending/*.crash "$dest"/reports/pending/*.json >/dev/null
	loads=$(LD_LIBRARY_PATH="$libdir" ldd "$dest/$1" | awk '{print $1}' |
	        grep -v -e '^linux-vdso' -e '^/lib64/ld-linux' -e '^libc\.so' -e '^libpostmortem\.so' || true)
	[ -z "$loads" ] || { echo "$1 loads more than libc and libpostmortem: $loads"; exit 1; }
	cp -r "$dest/reports" "$dest/reports-kept"
	before=$(cat "$dest/collector.posts" 2>/dev/null | wc -l)
	status=0
	POSTMORTEM_DIR="$dest/reports" LD_LIBRARY_PATH="$libdir" "$dest/$1" "$url" || status=$?
	[ "$status" -eq 0 ] || { echo "$1 did not upload its report at the next launch (exit $status)"; exit 1; }
	after=$(cat "$dest/collector.posts" | wc -l)
	[ "$after" -gt "$before" ] || { echo "$1: the collector received nothing"; exit 1; }
	rm -rf "$dest/reports"
	mv "$dest/reports-kept" "$dest/reports"
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

# Delivered at the crash: with a destination in its environment, the app's crash
# handler starts the installed uploader, found from the library's directory (here
# a DESTDIR, not the prefix it was configured for), and the collector has the
# report with no next launch.
uploader=$(find "$dest" -path '*/libexec/postmortem/postmortem-uploader')
[ -x "$uploader" ] || { echo "not installed: libexec/postmortem/postmortem-uploader"; exit 1; }
before=$(cat "$dest/collector.posts" 2>/dev/null | wc -l)
status=0
POSTMORTEM_DIR="$dest/reports-now" POSTMORTEM_UPLOAD_URL="$url" LD_LIBRARY_PATH="$libdir" "$dest/app-plain" || status=$?
[ "$status" -eq 139 ] || { echo "app-plain with an uploader exited $status, not 139 (SIGSEGV)"; exit 1; }
for _ in $(seq 300); do
	grep -q ']: end:' "$dest/reports-now/upload.log" 2>/dev/null && break
	sleep 0.1
done
after=$(cat "$dest/collector.posts" 2>/dev/null | wc -l)
[ "$after" -gt "$before" ] ||
	{ echo "the crash was not delivered at once: $(cat "$dest/reports-now/upload.log" 2>&1)"; exit 1; }
grep -q ']: end: sent 1, kept 0' "$dest/reports-now/upload.log" ||
	{ echo "the installed uploader did not say it sent the report: $(cat "$dest/reports-now/upload.log")"; exit 1; }

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

# Report tooling with pkg-config postmortem-tools: read the report and explain it.
cat > "$dest/tool.c" <<'C'
#include <postmortem-tools.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
	pm_report r;
	pm_report_init(&r);
	if (argc < 2 || pm_read_report_file(argv[1], &r, NULL) != PM_OK) return 2;
	if (argc > 2) return pm_write_report_fd(&r, PM_FORMAT_TEXT, 1) == PM_OK ? 0 : 4;
	char *text = pm_explain(&r, false);
	if (!text) return 3;
	fputs(text, stdout);
	free(text);
	pm_report_free(&r);
	return 0;
}
C
cc -o "$dest/tool" "$dest/tool.c" $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs postmortem-tools)
LD_LIBRARY_PATH="$libdir" "$dest/tool" "$(ls "$dest"/reports/pending/*.json | head -1)" | grep -q SIGSEGV ||
	{ echo "the tool built with postmortem-tools.pc did not explain the report"; exit 1; }
LD_LIBRARY_PATH="$libdir" "$dest/tool" "$(ls "$dest"/reports/pending/*.json | head -1)" text | grep -q '^Exception Type: .*SIGSEGV' ||
	{ echo "the tool built with postmortem-tools.pc did not write the report as .crash text"; exit 1; }

"$(find "$dest" -path '*/bin/postmortem')" explain "$dest"/reports/pending/*.json | head -1
echo "installed: $(cd "$dest" && find usr -type f | sort | tr '\n' ' ')"
