/*
 * cmd_system.c — `postmortem system enable | disable | status [--state-dir DIR]`:
 * the system reporter (docs/system-reporter.md), whose work is system/'s.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "enable.h"

static const char usage_line[] = "system enable|disable|status [--state-dir DIR]";
static const char handler_name[] = "postmortem-core-handler";

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "The system reporter: every crashing process of the machine gets a report,\n"
	       "written where its own pm_install would have put it, as its user.\n\n"
	       "  enable    point kernel.core_pattern at %s, keeping what it\n"
	       "            replaces (and kernel.core_pipe_limit, fs.suid_dumpable) in the\n"
	       "            state directory; that handler still gets every core\n"
	       "  disable   put back what enable replaced, byte for byte\n"
	       "  status    say which pattern is in force, whether it is postmortem's,\n"
	       "            what it replaced and where reports go\n\n"
	       "  --state-dir DIR   the system reporter's directory: its state and the spools\n"
	       "                    (default %s)\n"
	       "  -h, --help        show this help\n\n"
	       "All three need root.  Exit status: 0 done, 1 it could not be done (or, for\n"
	       "disable, it was not enabled), 2 bad usage.\n",
	       usage_line, handler_name, PM_SYSTEM_DIR);
}

/* Beside this binary in the build tree first (so that a build never points
 * the kernel at an older installed copy), then where `meson install` puts it. */
static bool
find_handler(char *out, size_t cap)
{
	char exe[PATH_MAX], guess[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		snprintf(guess, sizeof guess, "%s/../system/%s", exe, handler_name);
		if (access(guess, X_OK) == 0 && realpath(guess, out) && strlen(out) < cap)
			return true;
	}
	int k = snprintf(out, cap, "%s", PM_CORE_HANDLER_PATH);
	return k > 0 && (size_t)k < cap && access(out, X_OK) == 0;
}

static void
print_status(const pm_system_status *s, const char *dir)
{
	printf("kernel.core_pattern: %s\n", s->now.pattern);
	if (!s->ours) {
		printf("postmortem's: no (postmortem system enable puts its handler there and keeps this one working)\n");
		return;
	}
	printf("postmortem's: yes\n");
	if (s->has_state)
		printf("replaced: %s\nkernel.core_pipe_limit: %s (was %s)\nfs.suid_dumpable: %s (was %s)\n",
		       s->state.before.pattern, s->now.pipe_limit, s->state.before.pipe_limit, s->now.suid_dumpable,
		       s->state.before.suid_dumpable);
	else
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

int
cmd_system(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "state-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
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
	if (geteuid() != 0) {
		cli_error("system", "%s needs root: it reads and changes kernel.core_pattern and %s", what,
		          dir ? dir : PM_SYSTEM_DIR);
		return PM_EXIT_FAIL;
	}
	char msg[1024], handler[PATH_MAX];
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
		if (!find_handler(handler, sizeof handler)) {
			cli_error("system", "cannot find %s (looked beside this program's build and at %s)", handler_name,
			          PM_CORE_HANDLER_PATH);
			return PM_EXIT_FAIL;
		}
		e = pmi_system_enable(handler, sysdir, dir == NULL, msg, sizeof msg);
	} else
		e = pmi_system_disable(sysdir, msg, sizeof msg);
	if (e != PM_OK) {
		cli_error("system", "%s", msg);
		return PM_EXIT_FAIL;
	}
	printf("postmortem system: %s\n", msg);
	return PM_EXIT_OK;
}
