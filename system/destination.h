/*
 * destination.h — where a crash's report goes, and as whom (destination.c).
 * NOT AS-safe.
 */
#ifndef PM_SYSTEM_DESTINATION_H
#define PM_SYSTEM_DESTINATION_H

#include <dirent.h>

#include "core_report.h"

/* At most this many entries of a pending/ are looked at, and a JSON twin
 * of at most PM_DEST_TWIN_MAX bytes is read. */
enum { PM_DEST_SCAN_MAX = 4096, PM_DEST_TWIN_MAX = 8 << 20 };

/* As root, from the kernel's word alone: PM_DEST_PRIVATE, PM_DEST_SPOOL or
 * PM_DEST_OWN (to be resolved as the user); *reason says why when not OWN. */
pm_dest_kind pmi_dest_first(const pm_crash_args *a, const pm_proc_facts *f, const char **reason);
/* The process's own credentials (real ids, its groups). */
pm_creds pmi_dest_creds(const pm_proc_facts *f);
/* As the user: its reports directory into dir (PM_DEST_OWN), or PM_DEST_SPOOL
 * when it has no home of its own, or PM_DEST_NONE when it cannot be resolved.
 * Changes this process's environment and working directory (to the
 * process's, through proc_dir, its pinned /proc directory). */
pm_dest_kind pmi_dest_resolve(int proc_dir, const pm_env_facts *env, uid_t uid, char *dir, size_t cap);
/* As the user: the pending/ its pm_install holds open (ours alone), or -1. */
int pmi_dest_app_pending(int proc_dir, const pm_env_facts *env);
/* As root: make the spool directory for f's uid (users/<uid> given to the
 * user, or private/<uid> root's alone) below sysdir; its path into dir. */
bool pmi_dest_spool(const char *sysdir, pm_dest_kind kind, const pm_proc_facts *f, char *dir, size_t cap,
                    char *why, size_t wcap);
/* As root: make <sysdir>/private-upload/<uid>, the private spool of a machine
 * that delivers it (`enable --upload-private`), given to the analysis
 * identity; its path into dir. */
bool pmi_dest_private_upload(const char *sysdir, uint32_t uid, uid_t ana_uid, gid_t ana_gid, char *dir, size_t cap,
                             char *why, size_t wcap);
/* A report the process wrote itself in pending_fd (the pending/ its
 * pm_install holds open), written since `since` (seconds since the epoch):
 * a JSON twin whose header's pid is pid_ns (its pid in its own namespace)
 * and whose start_ticks is start_ticks (its stat's field 22); its .crash's
 * name into id. */
bool pmi_dest_has_report(int pending_fd, int pid_ns, uint64_t start_ticks, uint64_t since, char *id, size_t cap);

#endif
