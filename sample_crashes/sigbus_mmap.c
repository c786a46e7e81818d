/* Touching a mapped page past the end of a truncated file: SIGBUS, BUS_ADRERR. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sample.h"

SAMPLE_FRAME static int
crash_sigbus(volatile char *p)
{
	return p[8192];
}

int
main(void)
{
	sample_install();
	char path[] = "/tmp/pm-sigbus-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, 16384) != 0)
		return 2;
	char *p = mmap(NULL, 16384, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 2;
	if (ftruncate(fd, 4096) != 0)
		return 2;
	unlink(path);
	int r = crash_sigbus(p);
	SAMPLE_KEEP_FRAME();
	return r;
}
