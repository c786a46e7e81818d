/*
 * install_facts.c — the process facts gathered at install: those that need
 * libc calls the handler may not make (localtime_r, dlsym), that catching a
 * crash depends on (whether we run under an emulator), or that come from
 * the configuration.  The rest are read by the first capture (as_facts.c).
 * Format reference §15.1 for where each comes from.  NOT AS-safe.
 */
#include "install.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "as_memory.h"

/* With TZ unset, glibc's zone is /etc/localtime, and UTC where there is
 * none.  A link to one of tzdata's names for UTC (as containers and
 * servers mostly have) says the offset by its name alone: no localtime_r,
 * whose first call reads and parses the zone file and was the largest part
 * of pm_install (docs/benchmarks.md).  Any other zone, a copied file, or TZ
 * set: localtime_r. */
static bool
zone_is_utc(void)
{
	static const char *const names[] = { "/UTC", "/UCT", "/Universal", "/Zulu", "/GMT" };
	char target[PATH_MAX];
	if (getenv("TZ"))
		return false;
	ssize_t n = readlink("/etc/localtime", target, sizeof target - 1);
	if (n < 0)
		return errno == ENOENT;
	target[n] = '\0';
	/* ".../zoneinfo/UTC", ".../Etc/UTC", or under right/ (leap seconds change
	 * the time, not the offset): the last component says it. */
	const char *name = strrchr(target, '/');
	for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

static int16_t
tz_offset_minutes(void)
{
	if (zone_is_utc())
		return 0;
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

/* qemu-user leaves /proc/self/stat's environment fields 0 (docs/arm64.md), so
 * the first capture finds no span there: under it, the span of environ's
 * strings while they are still the kernel's, packed back to back.  One moved
 * by setenv breaks the packing, and then nothing is claimed. */
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

void
pmi_facts_gather(pm_facts *f, const pm_config *cfg, char *exe_room)
{
	ssize_t n = readlink("/proc/self/exe", exe_room, PATH_MAX - 1);
	exe_room[n > 0 ? n : 0] = '\0';
	f->exe_path = exe_room;
	as_strlcpy(f->exe_name, n > 0 ? as_basename(f->exe_path) : "???", sizeof f->exe_name);
	as_strlcpy(f->app_id, pick(cfg ? cfg->app_id : NULL, "POSTMORTEM_APP_ID", f->exe_name), sizeof f->app_id);
	as_strlcpy(f->app_version, pick(cfg ? cfg->app_version : NULL, "POSTMORTEM_APP_VERSION", "???"),
	              sizeof f->app_version);
	/* What a minimal report names before the first capture has asked uname. */
	as_strlcpy(f->os_name, "Linux", sizeof f->os_name);
	f->clock_ticks = sysconf(_SC_CLK_TCK);
	/* A GLIBC_PRIVATE variable: looked up, not linked, so another libc only loses the message. */
	f->abort_msg_var = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "__abort_msg");
	f->emulated = under_emulator(f->exe_path);
	if (f->emulated)
		environ_strings(&f->late->environ_start, &f->late->environ_end);
	f->tz_min = tz_offset_minutes();
}
