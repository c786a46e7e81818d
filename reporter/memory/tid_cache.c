/*
 * tid_cache.c — a forked child forgets the cached thread id (tid_cache.h).
 */
#include "tid_cache.h"

#include <pthread.h>
#include <stdatomic.h>

#include "as_sys.h"
#include "start_data.h"

/* In .data beside what install writes first (start_data.h). */
static PM_START_DATA atomic_bool started;

void
pmi_tid_cache_start(void)
{
	bool no = false;
	if (atomic_compare_exchange_strong(&started, &no, true))
		pthread_atfork(NULL, NULL, as_sys_tid_forget);
}
