/*
 * install_facts.c — process facts gathered once at install, so the handler
 * only copies them (format reference §15.1 for where each comes from).
 * NOT AS-safe.
 */
#include "install.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "as_util.h"
#include "go_text.h"

static void
first_line(const char *path, char *out, size_t cap)
{
	if (as_read_small_file(path, out, cap) < 0)
		out[0] = '\0';
	char *nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
}

/* PRETTY_NAME="Debian GNU/Linux 12 (bookworm)" from os-release, unquoted.
 * Read with read(2), not stdio: a FILE is a malloc and a 4 KiB buffer that a
 * fresh process pays for at start. */
static void
pretty_name(char *out, size_t cap)
{
	char buf[4096];
	out[0] = '\0';
	if (as_read_small_file("/etc/os-release", buf, sizeof buf) < 0 &&
	    as_read_small_file("/usr/lib/os-release", buf, sizeof buf) < 0)
		return;
	for (char *line = buf; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, "PRETTY_NAME=", 12) != 0)
			continue;
		char *v = line + 12;
		v[strcspn(v, "\n")] = '\0';
		size_t n = strlen(v);
		if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
			v[n - 1] = '\0';
			v++;
		}
		as_strlcpy(out, v, cap);
		break;
	}
}

/* The n-th space after the ')' that ends the command name in
 * /proc/self/stat precedes field n + 2. */
static const char *
stat_field(const char *stat, int field)
{
	const char *p = strrchr(stat, ')');
	for (int spaces = 0; p && spaces < field - 2; spaces++)
		p = strchr(p + 1, ' ');
	return p ? p + 1 : NULL;
}

/* Where /proc says nothing (qemu-user fills few of its fields): the span of
 * environ's strings, if they are still the kernel's, packed back to back.  One
 * moved by setenv breaks the packing, and then nothing is claimed. */
static void
environ_strings(uint64_t *start, uint64_t *end)
{
	extern char **environ;
	uint64_t lo = UINT64_MAX, hi = 0, bytes = 0;
	for (char **e = environ; e && *e; e++) {
		uint64_t at = (uint64_t)(uintptr_t)*e, n = strlen(*e) + 1;
		lo = at < lo ? at : lo;
		hi = at + n > hi ? at + n : hi;
		bytes += n;
	}
	if (bytes > 0 && hi - lo == bytes) {
		*start = lo;
		*end = hi;
	}
}

/* Where the kernel put the environment's strings: fields 50 and 51. */
static void
environ_range(const char *stat, uint64_t *start, uint64_t *end)
{
	const char *p = stat_field(stat, 50);
	char *after_start, *after_end;
	*start = *end = 0;
	unsigned long long v0 = 0, v1 = 0;
	if (p) {
		v0 = strtoull(p, &after_start, 10);
		v1 = strtoull(after_start, &after_end, 10);
	}
	if (p && after_start != p && after_end != after_start && v0 < v1) {
		*start = v0;
		*end = v1;
	} else {
		environ_strings(start, end);
	}
}

/* Launch time without reading /proc/stat: the process's start in ticks since
 * boot (field 22), placed on the wall clock through CLOCK_BOOTTIME. */
static pm_time
launch_time(const char *stat, int16_t tz_min)
{
	pm_time t = { 0 };
	const char *p = stat_field(stat, 22);
	if (!p)
		return t;
	unsigned long long ticks = strtoull(p, NULL, 10);
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec real, boot;
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	int64_t now_us = (int64_t)real.tv_sec * 1000000 + real.tv_nsec / 1000;
	int64_t since_boot_us = (int64_t)boot.tv_sec * 1000000 + boot.tv_nsec / 1000;
	int64_t start_us = now_us - since_boot_us + (int64_t)(ticks * 1000000ull / (unsigned long long)hz);
	t.sec = start_us / 1000000;
	t.usec = (uint32_t)(start_us % 1000000) / 100 * 100;
	t.tz_min = tz_min;
	t.digits = 4;
	t.set = true;
	return t;
}

/* "6.1.0-13-amd64" → 6, 1, 0.  strtoul, not sscanf: the first sscanf in a
 * process pages in libc's whole scanf engine. */
static void
kernel_version(const char *release, uint32_t out[3])
{
	const char *p = release;
	for (int i = 0; i < 3; i++) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (end == p)
			return;
		out[i] = (uint32_t)v;
		if (*end != '.')
			return;
		p = end + 1;
	}
}

static int16_t
tz_offset_minutes(void)
{
	time_t now = time(NULL);
	struct tm tm;
	if (!localtime_r(&now, &tm))
		return 0;
	return (int16_t)(tm.tm_gmtoff / 60);
}

static const char *
pick(const char *configured, const char *env, const char *fallback)
{
	if (configured && *configured)
		return configured;
	const char *e = getenv(env);
	return e && *e ? e : fallback;
}

/* qemu-user answers /proc/self/exe with the guest program but does not
 * translate /proc/thread-self/exe, which names the emulator itself. */
static bool
under_emulator(const char *exe_path)
{
	char own[PATH_MAX];
	ssize_t n = readlink("/proc/thread-self/exe", own, sizeof own - 1);
	if (n <= 0 || !exe_path[0])
		return false;
	own[n] = '\0';
	return strcmp(own, exe_path) != 0;
}

void
pmi_facts_gather(pm_facts *f, const pm_config *cfg)
{
	memset(f, 0, sizeof *f);
	ssize_t n = readlink("/proc/self/exe", f->exe_path, sizeof f->exe_path - 1);
	f->exe_path[n > 0 ? n : 0] = '\0';
	as_strlcpy(f->exe_name, n > 0 ? as_basename(f->exe_path) : "???", sizeof f->exe_name);
	as_strlcpy(f->app_id, pick(cfg ? cfg->app_id : NULL, "POSTMORTEM_APP_ID", f->exe_name), sizeof f->app_id);
	as_strlcpy(f->app_version, pick(cfg ? cfg->app_version : NULL, "POSTMORTEM_APP_VERSION", "???"),
	              sizeof f->app_version);

	struct utsname u;
	if (uname(&u) != 0)
		memset(&u, 0, sizeof u);
	as_strlcpy(f->os_name, u.sysname[0] ? u.sysname : "Linux", sizeof f->os_name);
	char pretty[256];
	pretty_name(pretty, sizeof pretty);
	snprintf(f->os_version, sizeof f->os_version, "%s%s(%s %s)", pretty, pretty[0] ? " " : "",
	         f->os_name, u.release);

	snprintf(f->kernel, sizeof f->kernel, "%s %s %s %s", f->os_name, u.release, u.version, u.machine);
	kernel_version(u.release, f->kernel_version);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	f->cpu_count = (uint8_t)(cpus > 255 ? 255 : cpus > 0 ? cpus : 0);
	/* Read once for both the environment's range and the start time. */
	char stat[2048];
	if (as_read_small_file("/proc/self/stat", stat, sizeof stat) < 0)
		stat[0] = '\0';
	environ_range(stat, &f->environ_start, &f->environ_end);
	/* A GLIBC_PRIVATE variable: looked up, not linked, so another libc only loses the message. */
	f->abort_msg_var = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "__abort_msg");
	pmi_go_text(&f->go_text_lo, &f->go_text_hi);

	f->emulated = under_emulator(f->exe_path);

	first_line("/sys/class/dmi/id/product_name", f->hardware_model, sizeof f->hardware_model);
	if (!f->hardware_model[0])
		as_strlcpy(f->hardware_model, u.machine, sizeof f->hardware_model);

	f->tz_min = tz_offset_minutes();
	f->launch_time = launch_time(stat, f->tz_min);
}
