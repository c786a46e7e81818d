/*
 * enable.c — `postmortem system enable | disable | status`: point
 * kernel.core_pattern at the core handler, remembering what was there
 * (state.c), and put it back byte for byte.  enable also makes sure the
 * kernel waits for the handler (core_pipe_limit, so that /proc/<pid> is
 * still there while it reads) and hands it set-user-ID processes' cores
 * (suid_dumpable 2; their reports go to the private spool, and the
 * previous pattern is served as the previous setting would have), makes
 * the analysis identity (identity.c), keeps the machine-wide delivery, and
 * writes the sysctl drop-in that puts the same three settings in force at
 * the next boot (boot.c).  It refuses a handler anyone but root could
 * change: the kernel runs it as root at every crash.  The pattern is
 * written last, once the state the handler reads is in place, and taken
 * back first.  NOT AS-safe.
 */
#include "enable.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* The handler and every directory above it root's alone (pmi_root_path_open), else why not and what to do. */
static pm_err
handler_trusted(const char *handler, char *msg, size_t cap)
{
	char why[PATH_MAX + 128];
	if (strpbrk(handler, " \t\n")) {
		snprintf(msg, cap, "the handler's path has a space, which the kernel would split: %s", handler);
		return PM_E_INVAL;
	}
	int fd = pmi_root_path_open(handler, PMI_PATH_FILE | PMI_PATH_NAMES, why, sizeof why);
	if (fd >= 0) {
		close(fd);
		return PM_OK;
	}
	snprintf(msg, cap,
	         "refused the core handler %s: %s.  The kernel runs it as root at every crash, so nobody but root may "
	         "be able to change it or any directory above it.  Install it: `meson install -C <build directory>` "
	         "(as root) puts it in %s; then run the installed postmortem's `system enable`",
	         handler, why, PM_CORE_HANDLER_PATH);
	return PM_E_INVAL;
}

/* The identity made (or found) and the delivery o asks for, into st. */
static pm_err
prepare(const pm_enable_options *o, pm_system_state *st, bool *made, char *msg, size_t cap)
{
	char why[512];
	if (!pmi_analysis_identity(&st->analysis_uid, &st->analysis_gid, made, why, sizeof why)) {
		snprintf(msg, cap, "the analysis identity: %s", why);
		return PM_E_IO;
	}
	if (o->no_dsn) {
		st->dsn[0] = st->environment[0] = '\0';
		st->upload_private = false;
	} else if (o->dsn) {
		int d = snprintf(st->dsn, sizeof st->dsn, "%s", o->dsn);
		int v = snprintf(st->environment, sizeof st->environment, "%s", o->environment ? o->environment : "");
		st->upload_private = o->upload_private;
		if (d < 0 || (size_t)d >= sizeof st->dsn || v < 0 || (size_t)v >= sizeof st->environment) {
			snprintf(msg, cap, "the DSN (at most %d bytes) or the environment (%d) is too long",
			         PM_SYSTEM_DSN_MAX - 1, PM_SYSTEM_ENVIRONMENT_MAX - 1);
			return PM_E_LIMIT;
		}
	}
	return PM_OK;
}

void
pmi_delivery_describe(const pm_system_state *st, char *out, size_t cap)
{
	if (!st->dsn[0]) {
		snprintf(out, cap, "none (reports stay where they are written: `enable --dsn DSN` sends them to Sentry)");
		return;
	}
	/* The key is what lets anyone send to the project: scheme://, then what follows the userinfo. */
	const char *host = strstr(st->dsn, "://");
	const char *at = NULL;
	if (host) {
		host += 3;
		for (const char *c = host; *c && !strchr("/?#", *c); c++)
			if (*c == '@')
				at = c;
	}
	char masked[PM_SYSTEM_DSN_MAX + 8];
	if (at)
		snprintf(masked, sizeof masked, "%.*s***%s", (int)(host - st->dsn), st->dsn, at);
	else
		snprintf(masked, sizeof masked, "(a DSN without a key)");
	snprintf(out, cap, "to Sentry, DSN %s, environment %s; the private spool's reports %s", masked,
	         st->environment[0] ? st->environment : "(the uploader's default)",
	         st->upload_private ? "too" : "are not sent");
}

/* What enable left in force, for the next boot. */
static pm_core_settings
boot_settings(const char *ours, const char *pipe_limit)
{
	pm_core_settings b;
	snprintf(b.pattern, sizeof b.pattern, "%s", ours);
	snprintf(b.pipe_limit, sizeof b.pipe_limit, "%s", pipe_limit);
	snprintf(b.suid_dumpable, sizeof b.suid_dumpable, "2");
	return b;
}

static void
say_done(const char *first, const pm_system_state *st, bool made, char *msg, size_t cap)
{
	char delivery[PM_SYSTEM_DSN_MAX + 256];
	pmi_delivery_describe(st, delivery, sizeof delivery);
	snprintf(msg, cap,
	         "%s\n  the next boot applies it too: %s/%s\n"
	         "  cores whose report is root's alone are analysed as %s (uid %u, gid %u%s)\n  delivery: %s",
	         first, PM_SYSCTL_DIR, PM_SYSCTL_DROPIN, PM_ANALYSIS_USER, (unsigned)st->analysis_uid,
	         (unsigned)st->analysis_gid, made ? ", made now" : "", delivery);
}

/* Enabled already with this very pattern: bring the state, the identity and the drop-in up to date. */
static pm_err
update(const pm_enable_options *o, const pm_core_settings *now, char *msg, size_t cap)
{
	pm_system_state st;
	char why[PATH_MAX + 128];
	pm_err e = pmi_state_read(o->sysdir, &st, why, sizeof why);
	if (e == PM_E_NOTFOUND) {
		snprintf(msg, cap,
		         "kernel.core_pattern already runs this handler (%s), but %s holds no state: what it replaced "
		         "is unknown.  Put back a pattern by hand (sysctl -w kernel.core_pattern=core), then enable again",
		         now->pattern, o->sysdir);
		return e;
	}
	bool made;
	pm_core_settings boot = boot_settings(now->pattern, now->pipe_limit);
	if (e != PM_OK)
		snprintf(msg, cap, "%s", why);
	else if ((e = prepare(o, &st, &made, msg, cap)) == PM_OK && (e = pmi_state_write(o->sysdir, &st, msg, cap)) == PM_OK &&
	         (e = pmi_boot_write(&boot, msg, cap)) == PM_OK) {
		char first[PM_PATTERN_MAX + 128];
		snprintf(first, sizeof first, "already enabled (brought up to date): kernel.core_pattern is %s",
		         now->pattern);
		say_done(first, &st, made, msg, cap);
	}
	return e;
}

pm_err
pmi_system_enable(const pm_enable_options *o, char *msg, size_t cap)
{
	pm_core_settings now;
	pm_system_state st;
	if (!pmi_settings_read(&now, msg, cap))
		return PM_E_IO;
	pm_err e = handler_trusted(o->handler, msg, cap);
	if (e != PM_OK)
		return e;
	if (strpbrk(o->sysdir, " \t\n")) {
		snprintf(msg, cap, "the state directory's path has a space, which the kernel would split: %s", o->sysdir);
		return PM_E_INVAL;
	}
	memset(&st, 0, sizeof st);
	if (!pmi_pattern_ours(o->handler, o->default_dir ? NULL : o->sysdir, st.ours, sizeof st.ours)) {
		snprintf(msg, cap, "the pattern for %s is longer than the kernel's %d bytes", o->handler,
		         PM_PATTERN_MAX - 1);
		return PM_E_LIMIT;
	}
	if (pmi_pattern_is_ours(now.pattern)) {
		if (strcmp(now.pattern, st.ours) == 0)
			return update(o, &now, msg, cap);
		snprintf(msg, cap, "kernel.core_pattern already runs another postmortem handler (%s): disable that first",
		         now.pattern);
		return PM_E_INVAL;
	}
	bool made;
	if ((e = prepare(o, &st, &made, msg, cap)) != PM_OK)
		return e;
	st.before = now;
	pm_core_settings boot = boot_settings(st.ours, strcmp(now.pipe_limit, "0") == 0 ? PIPE_LIMIT : now.pipe_limit);
	bool dropin = false;
	e = pmi_state_write(o->sysdir, &st, msg, cap);
	if (e == PM_OK)
		dropin = (e = pmi_boot_write(&boot, msg, cap)) == PM_OK;
	if (e == PM_OK && strcmp(now.pipe_limit, boot.pipe_limit) != 0)
		e = set("kernel/core_pipe_limit", boot.pipe_limit, msg, cap);
	if (e == PM_OK && strcmp(now.suid_dumpable, boot.suid_dumpable) != 0)
		e = set("fs/suid_dumpable", boot.suid_dumpable, msg, cap);
	if (e == PM_OK)
		e = set("kernel/core_pattern", st.ours, msg, cap);
	if (e != PM_OK) { /* leave the machine as it was */
		char ignore[PATH_MAX + 128];
		bool removed, other;
		pmi_sysctl_write("kernel/core_pipe_limit", now.pipe_limit);
		pmi_sysctl_write("fs/suid_dumpable", now.suid_dumpable);
		if (dropin)
			pmi_boot_remove(st.ours, &removed, &other, ignore, sizeof ignore);
		pmi_state_remove(o->sysdir, ignore, sizeof ignore);
		return e;
	}
	char first[2 * PM_PATTERN_MAX + 64];
	snprintf(first, sizeof first, "enabled: kernel.core_pattern is %s (it was %s)", st.ours, now.pattern);
	say_done(first, &st, made, msg, cap);
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
	char why[PATH_MAX + 128];
	bool removed, other;
	/* The drop-in before the state: a failure leaves what a second disable needs. */
	if ((e = pmi_boot_remove(st.ours, &removed, &other, why, sizeof why)) != PM_OK ||
	    (e = pmi_state_remove(sysdir, why, sizeof why)) != PM_OK) {
		snprintf(msg, cap, "%s", why);
		return e;
	}
	char first[2 * PM_PATTERN_MAX + 128];
	if (ours)
		snprintf(first, sizeof first, "disabled: kernel.core_pattern is %s again", st.before.pattern);
	else
		snprintf(first, sizeof first, "disabled; kernel.core_pattern was changed since enable and is left as it is: %s",
		         now.pattern);
	snprintf(msg, cap,
	         "%s\n  the next boot: %s/%s %s\n"
	         "  the user %s is kept, as packages keep their system users (`userdel %s` removes it)",
	         first, PM_SYSCTL_DIR, PM_SYSCTL_DROPIN,
	         removed ? "removed" : other ? "left: it names another pattern than this enable's" : "was not there",
	         PM_ANALYSIS_USER, PM_ANALYSIS_USER);
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
	if (e != PM_OK && e != PM_E_NOTFOUND)
		return e;
	s->has_boot = pmi_boot_read(&s->boot, msg, cap) == PM_OK;
	return PM_OK;
}
