/* The crash in the app's own words: argv[1] picks how it dies.
 *   assert   a failed assert() (glibc keeps its message in __abort_msg)
 *   abort    a plain abort(): no message to report */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "postmortem.h"

static int
check_positive(int n)
{
	assert(n > 0 && "the count must be positive");
	return n;
}

int
main(int argc, char **argv)
{
	if (argc < 2 || pm_install(NULL) != 0)
		return 2;
	if (strcmp(argv[1], "assert") == 0)
		return check_positive(argc - 3);
	abort();
}
