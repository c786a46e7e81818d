/*
 * core_capture.c — the capture engine run over a core (see core_capture.h):
 * the storage sized to the core's threads (reporter/install's, as
 * pm_install prepares a crash's), the target and the threads from the core
 * (core_target.c), as_capture_stopped, then what a core says differently
 * from a signal frame, and the three files landed as a crash lands them.
 *
 * Memory: the storage maps 8 MiB of report strings, about 33 KiB per
 * thread (512 frames' room, its registers) and 4 MiB of tables and caches,
 * MAP_NORESERVE, plus the symbolizer's 48 MiB reservation: only what the
 * capture writes becomes resident, the core's size does not count.  NOT
 * AS-safe.
 */
#include "core_capture.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "as_landing.h"
#include "core_target.h"

enum { MAX_FRAMES = 512 };

struct pm_core_capture {
	pm_stopped_storage s;
	pm_core_maps maps;
	as_capture_ctx c;
	char exe[PATH_MAX];       /* the executable, as the core names it */
	char exe_local[PATH_MAX]; /* and where it is read (--exe, --sysroot) */
	char proc[PATH_MAX];
};

/* The process as pm_install would have described it: the executable the
 * core maps (else the one /proc named), its name, the app's id and version
 * from its environment with pm_install's defaults. */
static void
fill_facts(pm_core_capture *cc, const pm_core *core, const pm_core_facts *in)
{
	pm_facts *f = &cc->s.facts;
	const pm_core_mapping *exe = pmi_core_exe_map(core);
	as_strlcpy(cc->exe, exe ? exe->path : in->exe ? in->exe : "", sizeof cc->exe);
	if (!pmi_core_local_path(core, cc->exe, cc->exe_local, sizeof cc->exe_local))
		as_strlcpy(cc->exe_local, cc->exe, sizeof cc->exe_local);
	f->exe_path = cc->exe_local;
	as_strlcpy(f->exe_name, cc->exe[0]        ? as_basename(cc->exe)
	                        : core->has_psinfo ? core->psinfo.fname
	                                           : "???",
	           sizeof f->exe_name);
	as_strlcpy(f->app_id, in->app_id && *in->app_id ? in->app_id : f->exe_name, sizeof f->app_id);
	as_strlcpy(f->app_version, in->app_version && *in->app_version ? in->app_version : "???",
	           sizeof f->app_version);
	f->clock_ticks = sysconf(_SC_CLK_TCK);
	struct tm tm;
	if (localtime_r(&in->time.tv_sec, &tm))
		f->tz_min = (int16_t)(tm.tm_gmtoff / 60);
}

/* The images as the core names them: the engine read them where the core
 * reader reads them (core_target.h), and the report says where they were. */
static void
name_images(pm_core_capture *cc)
{
	pm_report *r = cc->c.report;
	for (uint32_t i = 0; i < r->image_count; i++) {
		const char *named = pmi_core_maps_named(&cc->maps, r->images[i].path);
		if (named != r->images[i].path) {
			r->images[i].path = named;
			r->images[i].name = as_basename(named);
		}
	}
	r->header.process_path = cc->exe;
}

/* What the core says otherwise than a signal frame, and where the report comes from. */
static void
finish(pm_core_capture *cc, const pm_core_facts *in, bool crashed)
{
	pm_report *r = cc->c.report;
	if (!crashed) {
		r->kind = PM_KIND_SNAPSHOT;
		r->exception.note = "SIMULATED (this is NOT a crash)";
	}
	/* NT_PRSTATUS has no trap number or error code (x86_64's signal frame does). */
	int32_t k = pm_report_crashed_thread(r);
	if (k >= 0 && r->threads[k].regs)
		r->threads[k].regs->has_trap = false;
	if (!r->header.launch_time.set && in->start_time)
		r->header.launch_time = (pm_time){ .sec = (int64_t)in->start_time, .tz_min = cc->s.facts.tz_min,
		                                   .set = true };
	if (!in->this_machine) {
		r->header.os_version = NULL;
		r->header.hardware_model = NULL;
	}
	pm_kv *kv = pm_report_alloc(r, sizeof *kv, _Alignof(pm_kv));
	if (kv && in->source && (kv->value = pm_report_strdup(r, in->source))) {
		kv->key = PM_CORE_SOURCE_KEY;
		r->header.extra = kv;
		r->header.extra_count = 1;
	}
}

static pm_err
fail(char *why, size_t cap, pm_err e, const char *what)
{
	snprintf(why, cap, "%s", what);
	return e;
}

pm_err
pmi_core_capture(pm_core *core, const pm_core_facts *f, pm_core_capture **out, char *why, size_t cap)
{
	*out = NULL;
	if (core->arch != pmi_core_host_arch()) {
		snprintf(why, cap, "an %s core: its threads are walked by postmortem built for %s, and this one is %s's",
		         pmi_core_arch_name(core->arch), pmi_core_arch_name(core->arch),
		         pmi_core_arch_name(pmi_core_host_arch()));
		return PM_E_UNSUPPORTED;
	}
	if (core->nthreads == 0)
		return fail(why, cap, PM_E_FORMAT, "the core holds no thread");
	pm_core_capture *cc = calloc(1, sizeof *cc);
	if (!cc)
		return fail(why, cap, PM_E_NOMEM, "out of memory");
	if (!pmi_core_maps_build(core, &cc->maps) ||
	    !pmi_stopped_storage_init(&cc->s, (uint32_t)core->nthreads, MAX_FRAMES)) {
		pmi_core_capture_free(cc);
		return fail(why, cap, PM_E_NOMEM, "out of memory for the capture's storage");
	}
	fill_facts(cc, core, f);
	pmi_core_slots(core, f->proc != NULL, cc->s.slots);
	as_strlcpy(cc->proc, f->proc ? f->proc : "", sizeof cc->proc);
	as_target t = pmi_core_target(core, &cc->maps, f->proc ? cc->proc : NULL);
	siginfo_t info;
	bool crashed = pmi_core_fault(core, &info);
	cc->c = pmi_stopped_ctx(&cc->s, &t, core->threads[0].tid, crashed ? &info : NULL, &cc->s.slots[0].mc, &f->time,
	                        "", -1);
	as_capture_stopped(&cc->c, core->nthreads);
	name_images(cc);
	finish(cc, f, crashed);
	*out = cc;
	return PM_OK;
}

pm_report *
pmi_core_capture_report(pm_core_capture *cc)
{
	return cc->c.report;
}

bool
pmi_core_capture_write(pm_core_capture *cc, int dir_fd, const char *dir, char *why, size_t cap)
{
	cc->c.dir_fd = dir_fd;
	cc->c.pending_dir = dir;
	bool landed = as_write_report(&cc->c);
	bool dump = as_write_minidump(&cc->c);
	const pm_report *r = cc->c.report;
	uint64_t frames = 0;
	for (uint32_t i = 0; i < r->thread_count; i++)
		frames += r->threads[i].frame_count;
	if (landed)
		snprintf(why, cap, "written %s.crash, .json%s (%u threads, %llu frames)", r->header.incident_id,
		         dump ? ", .dmp" : ", no .dmp", r->thread_count, (unsigned long long)frames);
	else {
		/* The writers keep no errno: the file system says the likeliest cause. */
		struct statvfs fs;
		bool full = fstatvfs(dir_fd, &fs) == 0 && fs.f_bavail * fs.f_frsize < (uint64_t)cc->s.arena_size;
		snprintf(why, cap, "not written: %s in %s", full ? "no room for the files" : "the files could not be made",
		         dir);
	}
	return landed;
}

void
pmi_core_capture_free(pm_core_capture *cc)
{
	if (!cc)
		return;
	pmi_stopped_storage_free(&cc->s);
	pmi_core_maps_free(&cc->maps);
	free(cc);
}
