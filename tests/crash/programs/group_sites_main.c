/* group_sites_main.c — main of crash_group_sites (group_sites.c says what it does). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group_sites.h"
#include "postmortem.h"

int
main(int argc, char **argv)
{
	if (pm_install(NULL) != 0) {
		fprintf(stderr, "pm_install: %s\n", strerror(errno));
		return 2;
	}
	const char *what = argc > 1 ? argv[1] : "";
	if (strcmp(what, "a") == 0)
		site_a(argc > 2 ? atoi(argv[2]) : 0);
	else if (strcmp(what, "b") == 0)
		site_b();
	else if (strcmp(what, "abort") == 0)
		fail_hard();
	else if (strcmp(what, "assert") == 0)
		check_invariant(argc);
	else if (strcmp(what, "site") == 0 && argc > 2)
		site_n(atoi(argv[2]));
	fprintf(stderr, "usage: crash_group_sites a [OFFSET] | b | abort | assert | site N\n");
	return 2;
}
