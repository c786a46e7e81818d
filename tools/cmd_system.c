/*
 * cmd_system.c — `postmortem system enable | disable | status [--state-dir DIR]`,
 * enable's `--handler PATH` (a root's copy of the handler elsewhere than
 * where it looks: the system tests' own), and enable's machine-wide delivery (`--dsn DSN [--environment NAME]
 * [--upload-private]`, `--no-dsn`): the system reporter
 * (docs/system-reporter.md), whose work is system/'s.
 */
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "enable.h"

static const char usage_line[] =
	"system enable [--state-dir DIR] [--handler PATH] [--dsn DSN [--environment NAME] [--upload-private] | --no-dsn]\n"
	"       postmortem system disable|status [--state-dir DIR]";
static const char handler_name[] = "postmortem-core-handler";

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "The system reporter: every crashing process of the machine gets a report,\n"
	       "written where its own pm_install would have put it, as its user.\n\n"
	       "  enable    point kernel.core_pattern at %s, keeping what it\n"
	       "            replaces (and kernel.core_pipe_limit, fs.suid_dumpable) in the\n"
	       "            state directory; that handler still gets every core.  Writes\n"
	       "            %s/%s\n"
	       "            so that the next boot does the same, and makes the system user\n"
	       "            %s (the analysis identity).  Refuses a handler\n"
	       "            anyone but root could change.  Enabled already: brings the\n"
	       "            delivery, the identity and the drop-in up to date\n"
	       "  disable   put back what enable replaced, byte for byte, and remove the\n"
	       "            drop-in (the user %s stays)\n"
	       "  status    say which pattern is in force, whether it is postmortem's,\n"
	       "            what it replaced, what the next boot applies, the delivery\n"
	       "            and where reports go\n\n"
	       "  --state-dir DIR   the system reporter's directory: its state and the spools\n"
	       "                    (default %s)\n"
	       "  --handler PATH    enable: this copy of %s (one root\n"
	       "                    alone can change, as any) instead of the one beside\n"
	       "                    this program's build or the installed one:\n"
	       "                    %s\n"
	       "  --dsn DSN         enable: deliver the machine's reports to this Sentry\n"
	       "                    project (kept in the root-only state; status never shows\n"
	       "                    its key)\n"
	       "  --environment NAME\n"
	       "                    with --dsn: the Sentry environment of every event\n"
	       "  --upload-private  with --dsn: send the private spool's reports too (they\n"
	       "                    hold memory of processes that changed credentials)\n"
	       "  --no-dsn          enable: deliver nothing machine-wide any more\n"
	       "  -h, --help        show this help\n\n"
	       "Without --dsn or --no-dsn, enable keeps the delivery it had.  All three\n"
	       "need root.  Exit status: 0 done, 1 it could not be done (or, for disable, it\n"
	       "was not enabled), 2 bad usage (a DSN or environment refused included).\n",
	       usage_line, handler_name, PM_SYSCTL_DIR, PM_SYSCTL_DROPIN, PM_ANALYSIS_USER, PM_ANALYSIS_USER,
	       PM_SYSTEM_DIR, handler_name, PM_CORE_HANDLER_PATH);
}

/* The one asked for (--handler), else beside this binary in the build tree
 * (so that a build never points the kernel at an older installed copy),
 * then where `meson install` puts it; without links (enable judges every
 * directory on the way). */
static bool
find_handler(const char *asked, char *out, size_t cap)
{
	char exe[PATH_MAX], guess[PATH_MAX + 64], real[PATH_MAX];
	ssize_t n = asked ? 0 : readlink("/proc/self/exe", exe, sizeof exe - 1);
	const char *path = asked ? asked : PM_CORE_HANDLER_PATH;
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		snprintf(guess, sizeof guess, "%s/../system/%s", exe, handler_name);
		if (access(guess, X_OK) == 0)
			path = guess;
	}
	return access(path, X_OK) == 0 && realpath(path, real) && snprintf(out, cap, "%s", real) < (int)cap;
}

static void
print_next_boot(const pm_system_status *s)
{
	static const char *const names[PM_BOOT_KEYS] = { "kernel.core_pattern", "kernel.core_pipe_limit",
		                                         "fs.suid_dumpable" };
	const char *next[PM_BOOT_KEYS] = { s->boot.next.pattern, s->boot.next.pipe_limit, s->boot.next.suid_dumpable };
	const char *conf[PM_BOOT_KEYS] = { s->boot.conf.pattern, s->boot.conf.pipe_limit, s->boot.conf.suid_dumpable };
	if (!s->has_boot) {
		printf("next boot: unknown (the sysctl drop-ins could not be read)\n");
		return;
	}
	for (int k = 0; k < PM_BOOT_KEYS; k++)
		if (s->boot.set[k])
			printf("next boot: %s = %s (%s)\n", names[k], next[k], s->boot.from[k]);
		else
			printf("next boot: %s: the kernel's default (no sysctl file sets it)\n", names[k]);
	const char *p = s->boot.next.pattern;
	if (!s->boot.set[0] || !pmi_pattern_is_ours(p))
		printf("next boot: postmortem's: no%s\n", s->ours ? " (the handler is in force only until a reboot)" : "");
	else {
		char handler[PM_PATTERN_MAX + 1];
		snprintf(handler, sizeof handler, "%.*s", (int)strcspn(p + 1, " "), p + 1);
		bool there = access(handler, X_OK) == 0;
		printf("next boot: postmortem's: yes%s%s\n", there ? "" : "; but its handler is gone: ",
		       there ? "" : handler);
	}
	for (int k = 0; k < PM_BOOT_KEYS; k++)
		if (s->boot.conf_set[k] && (!s->boot.set[k] || strcmp(conf[k], next[k]) != 0))
			printf("warning: /etc/sysctl.conf sets %s = %s, which procps' `sysctl --system` (a boot\n"
			       "  without systemd) applies after every drop-in\n",
			       names[k], conf[k]);
}

static void
print_status(const pm_system_status *s, const char *dir)
{
	printf("kernel.core_pattern: %s\n", s->now.pattern);
	printf("postmortem's: %s\n", s->ours ? "yes" : "no (postmortem system enable puts its handler there and keeps "
	                                              "this one working)");
	print_next_boot(s);
	if (!s->ours)
		return;
	if (s->has_state) {
		printf("replaced: %s\nkernel.core_pipe_limit: %s (was %s)\nfs.suid_dumpable: %s (was %s)\n",
		       s->state.before.pattern, s->now.pipe_limit, s->state.before.pipe_limit, s->now.suid_dumpable,
		       s->state.before.suid_dumpable);
		const struct passwd *pw = s->state.analysis_uid ? getpwuid(s->state.analysis_uid) : NULL;
		if (!s->state.analysis_uid)
			printf("analysis identity: none recorded (postmortem system enable makes %s)\n", PM_ANALYSIS_USER);
		else
			printf("analysis identity: uid %u, gid %u (%s)\n", (unsigned)s->state.analysis_uid,
			       (unsigned)s->state.analysis_gid,
			       pw ? pw->pw_name : "no such user now: postmortem system enable makes it again");
		char delivery[PM_SYSTEM_DSN_MAX + 256];
		pmi_delivery_describe(&s->state, delivery, sizeof delivery);
		printf("delivery: %s\n", delivery);
	} else
		printf("replaced: unknown (no state in %s)\n", dir);
	if (strcmp(s->now.pipe_limit, "0") == 0)
		printf("warning: kernel.core_pipe_limit is 0: the kernel does not wait for the handler, which may find the\n"
		       "process gone\n");
	printf("reports: where the process's own pm_install puts them (POSTMORTEM_DIR, else\n"
	       "  $XDG_STATE_HOME/postmortem, else ~/.local/state/postmortem), written as its user;\n"
	       "  a user without a home of their own: %s/users/<uid>;\n"
	       "  set-user-ID and other processes that changed credentials: %s/private/<uid> (root's alone)\n",
	       dir, dir);
}

enum { OPT_STATE_DIR = 256, OPT_HANDLER, OPT_DSN, OPT_ENVIRONMENT, OPT_UPLOAD_PRIVATE, OPT_NO_DSN };

/* The delivery options: only with enable, --environment and --upload-private only with --dsn, and
 * the DSN and environment as the uploader will take them. */
static int
check_delivery(const char *what, const pm_enable_options *o)
{
	bool any = o->dsn || o->environment || o->upload_private || o->no_dsn;
	if (any && strcmp(what, "enable") != 0) {
		cli_error("system", "--dsn, --environment, --upload-private and --no-dsn go with enable");
		return PM_EXIT_USAGE;
	}
	if ((o->environment || o->upload_private) && !o->dsn) {
		cli_error("system", "--environment and --upload-private go with --dsn (give the DSN again to change them)");
		return PM_EXIT_USAGE;
	}
	if (o->dsn && o->no_dsn) {
		cli_error("system", "--dsn and --no-dsn: one or the other");
		return PM_EXIT_USAGE;
	}
	if (!o->dsn)
		return PM_EXIT_OK;
	if (strlen(o->dsn) >= PM_SYSTEM_DSN_MAX) {
		cli_error("system", "the DSN is longer than the %d bytes the state keeps", PM_SYSTEM_DSN_MAX - 1);
		return PM_EXIT_USAGE;
	}
	pm_upload_options check = { .dsn = o->dsn, .environment = o->environment ? o->environment : "production" };
	if (pm_upload_options_check(&check) != PM_OK) {
		cli_error("system", "the DSN or the environment was refused (see above): nothing changed");
		return PM_EXIT_USAGE;
	}
	return PM_EXIT_OK;
}

int
cmd_system(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "handler", required_argument, NULL, OPT_HANDLER },
		{ "dsn", required_argument, NULL, OPT_DSN },
		{ "environment", required_argument, NULL, OPT_ENVIRONMENT },
		{ "upload-private", no_argument, NULL, OPT_UPLOAD_PRIVATE },
		{ "no-dsn", no_argument, NULL, OPT_NO_DSN },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir = NULL, *asked = NULL;
	pm_enable_options o = { 0 };
	int c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_STATE_DIR: dir = optarg; break;
		case OPT_HANDLER: asked = optarg; break;
		case OPT_DSN: o.dsn = optarg; break;
		case OPT_ENVIRONMENT: o.environment = optarg; break;
		case OPT_UPLOAD_PRIVATE: o.upload_private = true; break;
		case OPT_NO_DSN: o.no_dsn = true; break;
		case 'h': help(); return PM_EXIT_OK;
		default: return cli_usage_error("system", usage_line);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("system", usage_line);
	const char *what = argv[optind];
	if (strcmp(what, "enable") != 0 && strcmp(what, "disable") != 0 && strcmp(what, "status") != 0) {
		cli_error("system", "unknown action '%s' (enable, disable or status)", what);
		return PM_EXIT_USAGE;
	}
	if (dir && dir[0] != '/') {
		cli_error("system", "--state-dir must be an absolute path, not '%s'", dir);
		return PM_EXIT_USAGE;
	}
	if (asked && strcmp(what, "enable") != 0) {
		cli_error("system", "--handler goes with enable");
		return PM_EXIT_USAGE;
	}
	const char *base = asked ? strrchr(asked, '/') : NULL;
	if (asked && (asked[0] != '/' || strcmp(base + 1, handler_name) != 0)) {
		cli_error("system", "--handler must be an absolute path to a file named %s (the name the pattern is known "
		          "by), not '%s'", handler_name, asked);
		return PM_EXIT_USAGE;
	}
	int rc = check_delivery(what, &o);
	if (rc != PM_EXIT_OK)
		return rc;
	if (geteuid() != 0) {
		cli_error("system", "%s needs root: it reads and changes kernel.core_pattern and %s", what,
		          dir ? dir : PM_SYSTEM_DIR);
		return PM_EXIT_FAIL;
	}
	char msg[4096], handler[PATH_MAX];
	const char *sysdir = dir ? dir : PM_SYSTEM_DIR;
	pm_err e;
	if (strcmp(what, "status") == 0) {
		pm_system_status s;
		if ((e = pmi_system_status(sysdir, &s, msg, sizeof msg)) != PM_OK) {
			cli_error("system", "%s", msg);
			return PM_EXIT_FAIL;
		}
		print_status(&s, sysdir);
		return PM_EXIT_OK;
	}
	if (strcmp(what, "enable") == 0) {
		if (!find_handler(asked, handler, sizeof handler)) {
			if (asked)
				cli_error("system", "cannot run %s", asked);
			else
				cli_error("system", "cannot find %s (looked beside this program's build and at %s)",
				          handler_name, PM_CORE_HANDLER_PATH);
			return PM_EXIT_FAIL;
		}
		o.handler = handler;
		o.sysdir = sysdir;
		o.default_dir = dir == NULL;
		e = pmi_system_enable(&o, msg, sizeof msg);
	} else
		e = pmi_system_disable(sysdir, msg, sizeof msg);
	if (e != PM_OK) {
		cli_error("system", "%s", msg);
		return PM_EXIT_FAIL;
	}
	printf("postmortem system: %s\n", msg);
	return PM_EXIT_OK;
}
