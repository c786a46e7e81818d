#include "fault_counter.h"

#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int
open_counter(bool user_only)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.exclude_kernel = user_only;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

int
fault_counter_open(bool kernel_too)
{
	int fd = kernel_too ? open_counter(false) : -1;
	return fd >= 0 ? fd : open_counter(true);
}
