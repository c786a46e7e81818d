/* A crash's page faults (issue 14): THREADS threads (argv[1], default 1),
 * the minidump off; the crash callback writes to $MARKER two uint64_t in
 * this machine's byte order: the page faults the crashing thread took in
 * user mode from just before the fault to the callback (perf's software
 * counter: faults taken, not pages populated ahead), and 1 when this system
 * can tell (the counter opened, and MADV_POPULATE_WRITE makes a page
 * resident: Linux 5.14 and up, not qemu-user), else 0.  The callback runs
 * in the handler: read and write only. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench/fault_counter.h"
#include "postmortem.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

int *volatile null_pointer;
static int counter = -1, marker = -1;
static bool supported;
static atomic_int started;

static void
on_crash(const pm_crash_info *info, void *ctx)
{
	(void)info;
	(void)ctx;
	uint64_t v[2] = { 0, supported };
	if (counter < 0 || read(counter, &v[0], sizeof v[0]) != sizeof v[0])
		v[1] = 0;
	(void)!write(marker, v, sizeof v);
}

static bool
populate_works(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char resident = 0;
	void *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool ok = p != MAP_FAILED && madvise(p, (size_t)page, MADV_POPULATE_WRITE) == 0 &&
	          mincore(p, (size_t)page, &resident) == 0 && (resident & 1);
	if (p != MAP_FAILED)
		munmap(p, (size_t)page);
	return ok;
}

static void *
idle(void *arg)
{
	(void)arg;
	atomic_fetch_add(&started, 1);
	for (;;)
		pause();
	return NULL;
}

int
main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 1;
	const char *path = getenv("MARKER");
	pm_config cfg = { .on_crash = on_crash, .no_minidump = true };
	if (!path || (marker = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 || pm_install(&cfg) != 0)
		return 2;
	for (int i = 1; i < threads; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, idle, NULL) != 0)
			return 2;
	}
	while (atomic_load(&started) < threads - 1)
		usleep(1000);
	supported = populate_works();
	/* User mode only: what an unprivileged user may count. */
	counter = fault_counter_open(false);
	return *null_pointer;
}
