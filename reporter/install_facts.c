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

static void
first_line(const char *path, char *out, size_t cap)
{
	if (as_read_small_file(path, out, cap) < 0)
		out[0] = '\0';
	char *nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
}

/* PRETTY_NAME="Debian GNU/Linux 12 (bookworm)" from os-release, unquoted. */
static void
pretty_name(char *out, size_t cap)
{
	out[0] = '\0';
	FILE *f = fopen("/etc/os-release", "re");
	if (!f)
		f = fopen("/usr/lib/os-release", "re");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
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
	fclose(f);
}

/* Launch time without reading /proc/stat: the process's start in ticks since
 * boot, placed on the wall clock through CLOCK_BOOTTIME. */
/* Where the kernel put the environment's strings: fields 50 and 51 of
 * /proc/self/stat (after the last ')', which ends the command name). */
static void
environ_range(uint64_t *start, uint64_t *end)
{
	char buf[2048];
	*start = *end = 0;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	unsigned long long v[2];
	/* The n-th space after ')' precedes field n + 2. */
	for (int spaces = 0; p && spaces < 48; spaces++)
		p = strchr(p + 1, ' ');
	if (p && sscanf(p, " %llu %llu", &v[0], &v[1]) == 2 && v[0] < v[1]) {
		*start = v[0];
		*end = v[1];
	}
}

static pm_time
launch_time(int16_t tz_min)
{
	pm_time t = { 0 };
	char stat[1024];
	if (as_read_small_file("/proc/self/stat", stat, sizeof stat) <= 0)
		return t;
	const char *p = strrchr(stat, ')');
	if (!p)
		return t;
	/* starttime is field 22; after "pid (comm)" that is the 20th field. */
	for (int field = 0; field < 20 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p)
		return t;
	unsigned long long ticks = strtoull(p + 1, NULL, 10);
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
	sscanf(u.release, "%u.%u.%u", &f->kernel_version[0], &f->kernel_version[1], &f->kernel_version[2]);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	f->cpu_count = (uint8_t)(cpus > 255 ? 255 : cpus > 0 ? cpus : 0);
	environ_range(&f->environ_start, &f->environ_end);
	/* A GLIBC_PRIVATE variable: looked up, not linked, so another libc only loses the message. */
	f->abort_msg_var = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "__abort_msg");

	f->emulated = under_emulator(f->exe_path);

	first_line("/sys/class/dmi/id/product_name", f->hardware_model, sizeof f->hardware_model);
	if (!f->hardware_model[0])
		as_strlcpy(f->hardware_model, u.machine, sizeof f->hardware_model);

	f->tz_min = tz_offset_minutes();
	f->launch_time = launch_time(f->tz_min);
}
