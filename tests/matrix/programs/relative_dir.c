/*
 * Issue 12, item 8: POSTMORTEM_DIR is relative ("reports" in the test's
 * directory's parent) and the app changes directory after pm_install.  The
 * report must land where the directory named it at install.
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

int
main(void)
{
	const char *dir = getenv("POSTMORTEM_DIR");
	if (!dir)
		return 3;
	char *parent = strdup(dir), *base = strdup(dir);
	if (chdir(dirname(parent)) != 0 || setenv("POSTMORTEM_DIR", basename(base), 1) != 0)
		return 3;
	if (pm_install(NULL) != 0)
		return 2;
	if (chdir("/") != 0)
		return 3;
	return crash_after_chdir();
}
