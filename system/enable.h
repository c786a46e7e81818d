/*
 * enable.h — the door of system/: what `postmortem system` does
 * (enable.c; the state, the next boot and the identity it keeps are
 * system.h's), and a core file made a report by the capture engine
 * (core_capture.h), which `postmortem convert`, `explain` and
 * `symbolicate` read cores with.  NOT AS-safe.
 */
#ifndef PM_SYSTEM_ENABLE_H
#define PM_SYSTEM_ENABLE_H

#include "core_capture.h"
#include "system.h"

/* What `postmortem system enable` is asked for. */
typedef struct pm_enable_options {
	const char *handler;      /* the core handler; refused unless root alone can change it and every
	                           * directory above it (pmi_root_path_open) */
	const char *sysdir;       /* the state directory, made with the directories above it */
	bool default_dir;         /* sysdir is the default: the pattern names none */
	/* Machine-wide delivery.  dsn (checked by the caller with
	 * pm_upload_options_check) replaces the three; no_dsn clears them;
	 * neither keeps what the state has. */
	const char *dsn;
	const char *environment;  /* NULL: the uploader's default */
	bool upload_private;
	bool no_dsn;
} pm_enable_options;

/* Point kernel.core_pattern at the handler, keeping what it replaces in the
 * state, and write the sysctl drop-in that makes the next boot do the same;
 * make the analysis identity.  Already enabled: the state's delivery, the
 * identity and the drop-in are brought up to date.  msg says what was done
 * or why not. */
pm_err pmi_system_enable(const pm_enable_options *o, char *msg, size_t cap);
/* Put back what enable replaced.  PM_E_NOTFOUND: it was not enabled. */
pm_err pmi_system_disable(const char *sysdir, char *msg, size_t cap);

typedef struct pm_system_status {
	pm_core_settings now;
	bool ours;                /* kernel.core_pattern runs a postmortem handler */
	bool has_state;
	pm_system_state state;    /* when has_state: what enable replaced, the identity, the delivery */
	bool has_boot;
	pm_boot_settings boot;    /* when has_boot: what the next boot applies */
} pm_system_status;
pm_err pmi_system_status(const char *sysdir, pm_system_status *s, char *msg, size_t cap);

/* The state's machine-wide delivery in words; its DSN with "***" for its key. */
void pmi_delivery_describe(const pm_system_state *st, char *out, size_t cap);

#endif
