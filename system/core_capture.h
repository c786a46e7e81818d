/*
 * core_capture.h — a core as the capture engine's target (NOT AS-safe): the
 * report an in-process handler writes, made from outside the process, over
 * the core's memory and the files it mapped, for every thread the core
 * holds.  The system reporter's handler writes it into a reports
 * directory (core_report.c); `postmortem convert`, `explain` and
 * `symbolicate` read a core file through it.
 */
#ifndef PM_SYSTEM_CORE_CAPTURE_H
#define PM_SYSTEM_CORE_CAPTURE_H

#include <time.h>

#include "core.h"

/* What the core does not say of its process, as far as the caller knows it. */
typedef struct pm_core_facts {
	const char *exe;          /* its executable (/proc/<pid>/exe), used when the core names none; NULL */
	const char *proc;         /* its /proc directory, readable now (thread names, launch time, the
	                           * minidump's Linux streams); NULL: none */
	const char *app_id;       /* POSTMORTEM_APP_ID of its environment; NULL: the executable's name */
	const char *app_version;  /* POSTMORTEM_APP_VERSION; NULL: "???" */
	uint64_t start_time;      /* when it started, seconds since the epoch; 0: unknown */
	struct timespec time;     /* when it crashed (or the core was taken) */
	bool this_machine;        /* of this machine, now: the OS facts are this machine's (else left out) */
	const char *source;       /* what the report was made from: its "Report Source" header line */
} pm_core_facts;

/* The header line that says what a report was made from (pm_header.extra). */
#define PM_CORE_SOURCE_KEY "Report Source"

typedef struct pm_core_capture pm_core_capture;

/* Capture the core: every thread walked, images and build ids, the fault
 * (a core taken of a process that did not crash, gcore's of a stopped
 * one, is a snapshot), the frames named.  PM_E_UNSUPPORTED for a core of
 * another architecture than this program's (its registers are walked by
 * postmortem built for it), PM_E_FORMAT for one without threads,
 * PM_E_NOMEM; why says it in one line. */
pm_err pmi_core_capture(pm_core *core, const pm_core_facts *f, pm_core_capture **out, char *why, size_t cap);
/* The report, whose storage the capture owns. */
pm_report *pmi_core_capture_report(pm_core_capture *cc);
/* Write its .crash, .json and .dmp into dir_fd, with the store's rules
 * (hidden temporary names, O_CREAT | O_EXCL | O_NOFOLLOW, 0600, each made
 * durable, then renamed); dir names the directory in messages.  True when
 * the report (.crash and .json) landed; why says what was written. */
bool pmi_core_capture_write(pm_core_capture *cc, int dir_fd, const char *dir, char *why, size_t cap);
void pmi_core_capture_free(pm_core_capture *cc);

#endif
