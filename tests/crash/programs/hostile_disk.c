/*
 * The disk turns hostile after install: "notdir" moves pending/ away and
 * puts a plain file in its place (the report goes to the directory opened
 * at install, wherever it is now: fault matrix row pending_replaced),
 * "fsize" sets RLIMIT_FSIZE so the first write is cut short (EFBIG; SIGXFSZ
 * must not replace the original signal).  Either way the process must
 * still die of SIGSEGV.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "postmortem.h"

int *volatile null_pointer;

int
main(int argc, char **argv)
{
	if (argc < 2 || pm_install(NULL) != 0)
		return 2;
	if (strcmp(argv[1], "notdir") == 0) {
		char pending[4096], moved[4200];
		snprintf(pending, sizeof pending, "%s/pending", pm_reports_dir());
		snprintf(moved, sizeof moved, "%s.moved", pending);
		if (rename(pending, moved) != 0 || close(open(pending, O_WRONLY | O_CREAT, 0600)) != 0)
			return 3;
	} else {
		struct rlimit rl = { 300, 300 };
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
			return 3;
	}
	return *null_pointer;
}
