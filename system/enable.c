/*
 * enable.c — `postmortem system enable | disable | status`: point
 * kernel.core_pattern at the core handler, remembering what was there
 * (state.c), and put it back byte for byte.  enable also makes sure the
 * kernel waits for the handler (core_pipe_limit, so that /proc/<pid> is
 * still there while it reads) and hands it set-user-ID processes' cores
 * (suid_dumpable 2; their reports go to the private spool, and the
 * previous pattern is served as the previous setting would have).  The
 * pattern is written last, once the state the handler reads is in place,
 * and taken back first.  NOT AS-safe.
 */
#include "enable.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* At most this many crashes are handed to handlers at once; past it the kernel skips cores. */
#define PIPE_LIMIT "64"

static pm_err
set(const char *name, const char *value, char *msg, size_t cap)
{
	if (pmi_sysctl_write(name, value))
		return PM_OK;
	snprintf(msg, cap, "cannot write /proc/sys/%s: %s", name, strerror(errno));
	return PM_E_IO;
}

pm_err
pmi_system_enable(const char *handler, const char *sysdir, bool default_dir, char *msg, size_t cap)
{
	pm_core_settings now;
	pm_system_state st;
	if (!pmi_settings_read(&now, msg, cap))
		return PM_E_IO;
	if (strpbrk(handler, " \t\n")) {
		snprintf(msg, cap, "the handler's path has a space, which the kernel would split: %s", handler);
		return PM_E_INVAL;
	}
	memset(&st, 0, sizeof st);
	if (!pmi_pattern_ours(handler, default_dir ? NULL : sysdir, st.ours, sizeof st.ours)) {
		snprintf(msg, cap, "the pattern for %s is longer than the kernel's %d bytes", handler, PM_PATTERN_MAX - 1);
		return PM_E_LIMIT;
	}
	if (pmi_pattern_is_ours(now.pattern)) {
		if (strcmp(now.pattern, st.ours) == 0) {
			snprintf(msg, cap, "already enabled: kernel.core_pattern is %s", now.pattern);
			return PM_OK;
		}
		snprintf(msg, cap, "kernel.core_pattern already runs another postmortem handler (%s): disable that first",
		         now.pattern);
		return PM_E_INVAL;
	}
	st.before = now;
	pm_err e = pmi_state_write(sysdir, &st, msg, cap);
	if (e == PM_OK && strcmp(now.pipe_limit, "0") == 0)
		e = set("kernel/core_pipe_limit", PIPE_LIMIT, msg, cap);
	if (e == PM_OK && strcmp(now.suid_dumpable, "2") != 0)
		e = set("fs/suid_dumpable", "2", msg, cap);
	if (e == PM_OK)
		e = set("kernel/core_pattern", st.ours, msg, cap);
	if (e != PM_OK) { /* leave the machine as it was */
		char ignore[256];
		pmi_sysctl_write("kernel/core_pipe_limit", now.pipe_limit);
		pmi_sysctl_write("fs/suid_dumpable", now.suid_dumpable);
		pmi_state_remove(sysdir, ignore, sizeof ignore);
		return e;
	}
	snprintf(msg, cap, "enabled: kernel.core_pattern is %s (it was %s)", st.ours, now.pattern);
	return PM_OK;
}

pm_err
pmi_system_disable(const char *sysdir, char *msg, size_t cap)
{
	pm_system_state st;
	pm_core_settings now;
	pm_err e = pmi_state_read(sysdir, &st, msg, cap);
	if (e == PM_E_NOTFOUND) {
		snprintf(msg, cap, "not enabled: no state in %s", sysdir);
		return e;
	}
	if (e != PM_OK || !pmi_settings_read(&now, msg, cap))
		return e != PM_OK ? e : PM_E_IO;
	bool ours = strcmp(now.pattern, st.ours) == 0;
	/* The pattern first: from then on no new crash comes to the handler. */
	if (ours && (e = set("kernel/core_pattern", st.before.pattern, msg, cap)) != PM_OK)
		return e;
	if ((e = set("kernel/core_pipe_limit", st.before.pipe_limit, msg, cap)) != PM_OK ||
	    (e = set("fs/suid_dumpable", st.before.suid_dumpable, msg, cap)) != PM_OK)
		return e;
	char why[256];
	if ((e = pmi_state_remove(sysdir, why, sizeof why)) != PM_OK) {
		snprintf(msg, cap, "%s", why);
		return e;
	}
	if (ours)
		snprintf(msg, cap, "disabled: kernel.core_pattern is %s again", st.before.pattern);
	else
		snprintf(msg, cap, "disabled; kernel.core_pattern was changed since enable and is left as it is: %s",
		         now.pattern);
	return PM_OK;
}

pm_err
pmi_system_status(const char *sysdir, pm_system_status *s, char *msg, size_t cap)
{
	memset(s, 0, sizeof *s);
	if (!pmi_settings_read(&s->now, msg, cap))
		return PM_E_IO;
	s->ours = pmi_pattern_is_ours(s->now.pattern);
	pm_err e = pmi_state_read(sysdir, &s->state, msg, cap);
	s->has_state = e == PM_OK;
	return e == PM_OK || e == PM_E_NOTFOUND ? PM_OK : e;
}
