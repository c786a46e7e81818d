/*
 * cgroup_oom.h — the OOM killer's count for this process's memory cgroup
 * (cgroup_oom.c).  NOT AS-safe.
 */
#ifndef PM_BASE_CGROUP_OOM_H
#define PM_BASE_CGROUP_OOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The file that counts the OOM kills of the memory cgroup named in
 * proc_cgroup (the text of /proc/<pid>/cgroup): v1's memory.oom_control when
 * a hierarchy has the memory controller, else v2's memory.events.  False when
 * neither is named or the path does not fit. */
bool pmi_cgroup_oom_file_of(const char *proc_cgroup, char *out, size_t cap);
/* The "oom_kill <n>" of such a file's text; -1 when it has none. */
int64_t pmi_cgroup_oom_count(const char *text);
/* pmi_cgroup_oom_file_of for this process (it may not exist: a cgroup path
 * this mount namespace does not show). */
bool pmi_cgroup_oom_file(char *out, size_t cap);
/* The count in that file now; -1 when it cannot be read. */
int64_t pmi_cgroup_oom_kills(const char *file);

#endif
