/*
 * as_header.c — AS-SAFE: the report header at crash time.
 *
 * Most facts were read at install (pm_facts); what may have changed since
 * (pid after a fork, the parent) is read now from the target (getpid and
 * getppid for our own process) and /proc.
 */
#include <unistd.h>

#include "as_memory.h"
#include "as_report.h"
#include "as_unwind.h"
#include "model.h"

const char *
as_proc_name(pm_arena *a, const as_target *t, pid_t pid)
{
	char name[64];
	return t->proc && as_read_proc("/proc/", pid, "comm", name, sizeof name) > 0 ? pmi_arena_strdup(a, name) : NULL;
}

const char *
as_thread_name(pm_arena *a, const as_target *t, pid_t tid)
{
	char name[64];
	return as_target_read(t, tid, "comm", name, sizeof name) > 0 ? pmi_arena_strdup(a, name) : NULL;
}

/* A random (version 4) UUID, upper case and dashed as Apple prints it.  If
 * getrandom is unavailable, the time and ids still make a unique name. */
static const char *
incident_id(pm_arena *a, const struct timespec *now)
{
	uint8_t b[16];
	if (as_sys_getrandom(b, sizeof b) != (long)sizeof b) {
		uint64_t x = (uint64_t)now->tv_sec * 1000000000u + (uint64_t)now->tv_nsec;
		uint64_t y = ((uint64_t)getpid() << 32) ^ (uint64_t)as_sys_gettid() ^ as_sys_now_ns();
		for (int i = 0; i < 8; i++) {
			b[i] = (uint8_t)(x >> (8 * i));
			b[8 + i] = (uint8_t)(y >> (8 * i));
		}
	}
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
	char s[37];
	size_t o = 0;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			s[o++] = '-';
		o += pmi_fmt_hex(s + o, sizeof s - o, b[i], 2, true);
	}
	return pmi_arena_strndup(a, s, o);
}

void
as_fill_header(pm_report *r, const pm_facts *f, const struct timespec *now, const as_target *t)
{
	pm_header *h = &r->header;
	/* Facts first, system calls last: a seccomp filter may trap one of
	 * them, and the minimal report then still names the OS (readers tell
	 * Linux signal numbers from Apple's by it) and the time. */
	r->os = PM_OS_LINUX;
	r->os_name = f->os_name;
	h->hardware_model = f->late->hardware_model;
	h->process_name = f->exe_name;
	h->process_path = f->exe_path;
	h->identifier = f->app_id;
	h->version = f->app_version;
	h->code_type = as_arch_code_type;
	/* Apple prints tenths of milliseconds; keep exactly what the text shows. */
	h->time = (pm_time){ .sec = now->tv_sec, .usec = (uint32_t)(now->tv_nsec / 100000) * 100,
	                     .tz_min = f->tz_min, .digits = 4, .set = true };
	h->launch_time = f->late->launch_time;
	/* Exact, where the launch time is rounded: with the pid, the process as
	 * the kernel knows it (the system reporter matches its report by both). */
	h->start_ticks = f->late->start_ticks;
	h->os_version = f->late->os_version;
	h->report_version = "104";
	h->incident_id = incident_id(r->arena, now);
	h->pid = as_target_pid(t);
	h->parent_pid = as_target_ppid(t);
	h->parent_name = as_proc_name(r->arena, t, (pid_t)h->parent_pid);
}

const char *
as_arena_addr(pm_arena *a, const char *prefix, uint64_t addr)
{
	char buf[160];
	pm_out o;
	pmi_out_init_buf(&o, buf, sizeof buf);
	pmi_out_str(&o, prefix);
	pmi_out_0x(&o, addr, 16);
	return pmi_arena_strndup(a, buf, o.len);
}
