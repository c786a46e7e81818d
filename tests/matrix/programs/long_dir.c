/*
 * Issue 12, item 11: a reports directory so long (4060 bytes) that the
 * report's full paths would not fit in PATH_MAX.  pm_install must refuse it
 * with ENAMETOOLONG (this program then exits 2, saying so); were it
 * accepted, the crash below would cut the paths.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "postmortem.h"
#include "sample.h"

int
main(void)
{
	const char *dir = getenv("POSTMORTEM_DIR");
	char path[4096];
	if (!dir || strlen(dir) > 1000)
		return 3;
	snprintf(path, sizeof path, "%s", dir);
	while (strlen(path) < 4060) {
		size_t n = strlen(path), k = 4060 - n - 1 < 200 ? 4060 - n - 1 : 200;
		path[n] = '/';
		memset(path + n + 1, 'd', k);
		path[n + 1 + k] = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST)
			return 3;
	}
	pm_config cfg = { .reports_dir = path };
	if (pm_install(&cfg) != 0) {
		fprintf(stderr, "pm_install: %s\n", strerror(errno));
		return errno == ENAMETOOLONG ? 2 : 4;
	}
	return *sample_null;
}
