/*
 * as_facts.c — AS-SAFE: the process facts read at the first capture (see
 * as_facts.h; format reference §15.1 for where each comes from).  Each is
 * one system call or one small file, read with open/read; none may have
 * changed since pm_install except by an exec, which ends the install too.
 * What only the minidump shows is read when the first one is written,
 * after the report is durable: a small file costs the capture about 20 us.
 */
#include "as_facts.h"

#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "as_memory.h"

enum { FACTS_UNREAD = 0, FACTS_READING, FACTS_READ };

static void
copy_n(char *out, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

/* PRETTY_NAME="Debian GNU/Linux 12 (bookworm)" from os-release, unquoted. */
static void
pretty_name(char *out, size_t cap, char *buf, size_t buf_cap)
{
	out[0] = '\0';
	long n = as_read_small_file("/etc/os-release", buf, buf_cap);
	if (n < 0)
		n = as_read_small_file("/usr/lib/os-release", buf, buf_cap);
	const char *end = buf + (n > 0 ? n : 0);
	for (const char *line = buf; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *eol = nl ? nl : end;
		if (eol - line >= 12 && memcmp(line, "PRETTY_NAME=", 12) == 0) {
			const char *v = line + 12;
			size_t len = (size_t)(eol - v);
			if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
				v++;
				len -= 2;
			}
			copy_n(out, cap, v, len);
			return;
		}
		line = eol + 1;
	}
}

/* "6.1.0-13-amd64" → 6, 1, 0. */
static void
kernel_version(const char *release, uint32_t out[3])
{
	const char *p = release, *end = release + strlen(release);
	for (int i = 0; i < 3; i++) {
		uint64_t v;
		if (!as_parse_dec(&p, end, &v))
			return;
		out[i] = (uint32_t)v;
		if (p == end || *p != '.')
			return;
		p++;
	}
}

/* Online CPUs from the kernel's list ("0-3,8-11"), what sysconf reads;
 * 0 when it cannot be read, 255 at most. */
static uint8_t
online_cpus(char *buf, size_t cap)
{
	long n = as_read_small_file("/sys/devices/system/cpu/online", buf, cap);
	const char *p = buf, *end = buf + (n > 0 ? n : 0);
	uint64_t count = 0, lo, hi;
	while (p < end && as_parse_dec(&p, end, &lo)) {
		hi = lo;
		if (p < end && *p == '-' && (++p, !as_parse_dec(&p, end, &hi) || hi < lo))
			break;
		count += hi - lo + 1;
		if (p == end || *p != ',')
			break;
		p++;
	}
	return (uint8_t)(count > 255 ? 255 : count);
}

/* Field `field` (numbered from 1, as in proc(5)) of a process's stat: past the
 * ')' that ends the command name (which may hold spaces), one space apart. */
static bool
stat_field(const char *stat, size_t len, int field, uint64_t *out)
{
	const char *p = NULL, *end = stat + len;
	for (size_t i = len; i > 0 && !p; i--)
		if (stat[i - 1] == ')')
			p = stat + i;
	for (int at = 2; p && p < end && at < field; p++)
		if (*p == ' ')
			at++;
	return p && as_parse_dec(&p, end, out);
}

/* Launch time without reading /proc/stat: the process's start in ticks
 * since boot (field 22), placed on the wall clock through CLOCK_BOOTTIME. */
static pm_time
launch_time(uint64_t ticks, long hz, int16_t tz_min)
{
	struct timespec real, boot;
	if (hz <= 0 || clock_gettime(CLOCK_REALTIME, &real) != 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
		return (pm_time){ 0 };
	int64_t now_us = (int64_t)real.tv_sec * 1000000 + real.tv_nsec / 1000;
	int64_t since_boot_us = (int64_t)boot.tv_sec * 1000000 + boot.tv_nsec / 1000;
	int64_t start_us = now_us - since_boot_us + (int64_t)(ticks * 1000000ull / (unsigned long long)hz);
	return (pm_time){ .sec = start_us / 1000000, .usec = (uint32_t)(start_us % 1000000) / 100 * 100,
	                  .tz_min = tz_min, .digits = 4, .set = true };
}

static void
from_stat(pm_facts *f, const as_target *t, char *buf, size_t cap)
{
	pm_late_facts *l = f->late;
	/* The main thread's own stat holds the same three fields (its start is
	 * the process's, the environment is the process's), but the process's
	 * sums every thread's times and faults first: at the first read, with
	 * the threads' structures out of the cache, that took 0.13 ms with one
	 * thread, 0.2-0.3 ms with 256 and 0.4-0.5 ms with 1024, the thread's
	 * 0.03-0.09 ms.  The process's stat is kept for where its main thread's
	 * cannot be found (a /proc of another pid namespace). */
	long n = as_target_read(t, as_target_pid(t), "stat", buf, cap);
	if (n < 0)
		n = as_target_read(t, 0, "stat", buf, cap);
	size_t len = n > 0 ? (size_t)n : 0;
	uint64_t start, env_start, env_end;
	/* Where the kernel put the environment's strings: fields 50 and 51.
	 * Under qemu-user the thread's file is the emulator's own (its start is
	 * the process's, its environment is not the guest's), and qemu's
	 * /proc/self/stat gives no environment (and the asking thread's start):
	 * there the span was taken from environ at install (install_facts.c). */
	if (!f->emulated && stat_field(buf, len, 50, &env_start) && stat_field(buf, len, 51, &env_end) &&
	    env_start < env_end) {
		l->environ_start = env_start;
		l->environ_end = env_end;
	}
	if (stat_field(buf, len, 22, &start)) {
		l->launch_time = launch_time(start, f->clock_ticks, f->tz_min);
		l->start_ticks = start;
	}
}

static void
from_uname(pm_facts *f, struct utsname *u, char *buf, size_t cap)
{
	pm_late_facts *l = f->late;
	if (uname(u) != 0)
		memset(u, 0, sizeof *u);
	if (u->sysname[0])
		as_strlcpy(f->os_name, u->sysname, sizeof f->os_name);
	/* "Debian GNU/Linux 12 (bookworm) (Linux 6.1.0-13-amd64)" */
	pretty_name(l->os_version, sizeof l->os_version, buf, cap);
	if (l->os_version[0])
		as_strlcat(l->os_version, " ", sizeof l->os_version);
	as_strlcat(l->os_version, "(", sizeof l->os_version);
	as_strlcat(l->os_version, f->os_name, sizeof l->os_version);
	as_strlcat(l->os_version, " ", sizeof l->os_version);
	as_strlcat(l->os_version, u->release, sizeof l->os_version);
	as_strlcat(l->os_version, ")", sizeof l->os_version);
	/* uname -srvm */
	const char *const parts[] = { f->os_name, " ", u->release, " ", u->version, " ", u->machine };
	l->kernel[0] = '\0';
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		as_strlcat(l->kernel, parts[i], sizeof l->kernel);
	kernel_version(u->release, l->kernel_version);
	if (as_read_small_file("/sys/class/dmi/id/product_name", buf, cap) > 0) {
		const char *nl = memchr(buf, '\n', strlen(buf));
		copy_n(l->hardware_model, sizeof l->hardware_model, buf, nl ? (size_t)(nl - buf) : strlen(buf));
	}
	if (!l->hardware_model[0])
		as_strlcpy(l->hardware_model, u->machine, sizeof l->hardware_model);
}

/* True for the one caller that is to read the group state guards. */
static bool
claim(int *state)
{
	int unread = FACTS_UNREAD;
	return __atomic_compare_exchange_n(state, &unread, FACTS_READING, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

void
as_facts_read(pm_facts *f, const as_target *t, char *scratch, size_t scratch_cap)
{
	if (!claim(&f->late->state))
		return;
	/* uname's answer goes where the freeze has read the thread list, a page
	 * already there, not on the signal stack: the kernel writing a fresh
	 * page costs a fault, about 20 us on a paravirtualized guest. */
	struct utsname *u = (struct utsname *)scratch;
	from_uname(f, u, scratch + sizeof *u, scratch_cap - sizeof *u);
	from_stat(f, t, scratch, scratch_cap);
	__atomic_store_n(&f->late->state, FACTS_READ, __ATOMIC_RELEASE);
}

void
as_facts_read_minidump(pm_facts *f, char *scratch, size_t scratch_cap)
{
	if (!claim(&f->late->minidump_state))
		return;
	f->late->cpu_count = online_cpus(scratch, scratch_cap);
	__atomic_store_n(&f->late->minidump_state, FACTS_READ, __ATOMIC_RELEASE);
}
