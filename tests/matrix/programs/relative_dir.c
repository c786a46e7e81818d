/*
 * Issue 12, item 8: POSTMORTEM_DIR is relative (the test's directory, named
 * from its parent) and the app changes directory after pm_install.  The
 * report must land where the directory named it at install, and the paths
 * postmortem hands out (pm_reports_dir, the crash callback's) must be
 * absolute: exit 4 otherwise.
 */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "postmortem.h"
#include "sample.h"

SAMPLE_FRAME static int
crash_after_chdir(void)
{
	return *sample_null;
}

static void
on_crash(const pm_crash_info *info, void *ctx)
{
	(void)ctx;
	if (info->crash_path[0] != '/')
		_exit(4);
}

int
main(void)
{
	const char *dir = getenv("POSTMORTEM_DIR");
	if (!dir)
		return 3;
	char *parent = strdup(dir), *base = strdup(dir);
	if (chdir(dirname(parent)) != 0 || setenv("POSTMORTEM_DIR", basename(base), 1) != 0)
		return 3;
	pm_config cfg = { .on_crash = on_crash };
	if (pm_install(&cfg) != 0)
		return 2;
	if (pm_reports_dir()[0] != '/')
		return 4;
	if (chdir("/") != 0)
		return 3;
	return crash_after_chdir();
}
