/*
 * core_target.h — a core read as the capture engine reads a process
 * (core_target.c): its mappings, its memory, its threads as stopped
 * threads' slots and its fault as a siginfo_t.  NOT AS-safe.
 */
#ifndef PM_SYSTEM_CORE_TARGET_H
#define PM_SYSTEM_CORE_TARGET_H

#include <signal.h>

#include "core.h"
#include "install.h"

/* A file the core maps, read at another path here (--exe, --sysroot). */
typedef struct pm_core_moved {
	char *local;
	const char *path;         /* NT_FILE's */
} pm_core_moved;

/* The mappings of a core, in address order. */
typedef struct pm_core_maps {
	as_mapping *m;
	size_t n;
	pm_core_moved *moved;
	size_t nmoved;
} pm_core_maps;

/* Every PT_LOAD with its permissions, cut where the files of NT_FILE begin
 * and end (their offsets, and the paths where the core reader reads them:
 * the engine opens an image's file by its mapping's path, for a -static
 * executable's .eh_frame and for .symtab), the files no segment holds
 * (gcore leaves out the text it can read back from the file) and the vDSO
 * named "[vdso]" as /proc/<pid>/maps names it.  False when out of memory. */
bool pmi_core_maps_build(const pm_core *c, pm_core_maps *out);
/* The path the core names for a mapping's path (path itself unless it moved). */
const char *pmi_core_maps_named(const pm_core_maps *m, const char *path);
void pmi_core_maps_free(pm_core_maps *m);

/* The target: memory through pmi_core_mem_read, the mappings of m, the
 * process's ids as the core says them, proc (NULL: none). */
as_target pmi_core_target(pm_core *c, pm_core_maps *m, const char *proc);

/* The core's threads into slots[0, nthreads): every one stopped with its
 * registers; the main thread named as the core names the process when
 * there is no /proc to ask (the core names no other thread). */
void pmi_core_slots(const pm_core *c, bool have_proc, pm_slot *slots);

/* The fault as the kernel gave it (NT_SIGINFO), else the crashed thread's
 * signal; false when the core holds no fault: taken of a process that did
 * not crash (gcore's of a running process: SIGSTOP, or none). */
bool pmi_core_fault(const pm_core *c, siginfo_t *info);

#endif
