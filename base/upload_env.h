/*
 * upload_env.h — the environment an uploader started at a crash is given
 * from the crashed process's (docs/upload.md, "At the crash";
 * docs/system-reporter.md, "Delivery"): its destination, when the process
 * names one, and what libcurl and the loader need.  Read by pm_install for
 * its own process (reporter/install/upload_now.c) and by the system
 * reporter for a crashed one (system/upload_child.c).  NOT AS-safe.
 */
#ifndef PM_BASE_UPLOAD_ENV_H
#define PM_BASE_UPLOAD_ENV_H

/* POSTMORTEM_UPLOAD=next-launch: reports wait for the next launch, nothing is started at a crash. */
#define PMI_UPLOAD_WHEN_VAR "POSTMORTEM_UPLOAD"
#define PMI_UPLOAD_NEXT_LAUNCH "next-launch"

enum { PMI_UPLOAD_DESTINATION_VARS = 9, PMI_UPLOAD_PASSED_VARS = 14 };
/* The destination (POSTMORTEM_DSN or POSTMORTEM_UPLOAD_URL first, then what goes with it). */
extern const char *const pmi_upload_destination_vars[PMI_UPLOAD_DESTINATION_VARS];
/* What is passed on whoever's destination it is: proxies, CA bundles, the loader's path, HOME,
 * TMPDIR, storm control's numbers.  Never LD_PRELOAD. */
extern const char *const pmi_upload_passed_vars[PMI_UPLOAD_PASSED_VARS];

#endif
