/*
 * Issue 12, item 10: the process has used every descriptor (EMFILE) when it
 * crashes.  The report must still be written, with its threads and images.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "postmortem.h"
#include "sample.h"

SAMPLE_FRAME static int
crash_without_descriptors(void)
{
	return *sample_null;
}

int
main(void)
{
	if (pm_install(NULL) != 0)
		return 2;
	while (open("/dev/null", O_RDONLY) >= 0)
		;
	if (errno != EMFILE)
		return 3;
	return crash_without_descriptors();
}
