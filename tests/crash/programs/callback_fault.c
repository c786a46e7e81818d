/* The user's crash callback faults: the process must still die of the
 * original signal (SIGABRT here), and the report already written stays. */
#include <stdlib.h>

#include "postmortem.h"

int *volatile null_pointer;

static void
bad_callback(const pm_crash_info *info, void *ctx)
{
	(void)info;
	(void)ctx;
	*null_pointer = 1;
}

int
main(void)
{
	pm_config cfg = { .on_crash = bad_callback };
	if (pm_install(&cfg) != 0)
		return 2;
	abort();
}
