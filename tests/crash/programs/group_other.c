/* group_other.c — another program with a site_a of its own, crashing the same way
 * (tests/crash/test_groups.c: another binary is another crash group). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "group_sites.h"
#include "postmortem.h"

int *volatile group_null;

GROUP_FRAME void
site_a(int offset)
{
	group_null[offset] = 1;
	GROUP_KEEP_FRAME();
}

int
main(void)
{
	if (pm_install(NULL) != 0) {
		fprintf(stderr, "pm_install: %s\n", strerror(errno));
		return 2;
	}
	site_a(0);
	return 2;
}
