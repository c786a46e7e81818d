/* Alternate stacks of threads started after pm_install: each has the top
 * page, where a frozen thread's signal frame goes, in memory before any
 * signal; pm_install's own thread does not (its start cost); and a thread
 * that starts after another ended takes over that one's stack, on which
 * the handler of its crash then runs and writes the report.
 *
 * Annotations: "installer_top" and "worker_top", 1 when that page is in
 * memory; "reused", 1 when the second worker holds the first one's stack
 * (the mark the first one left at its bottom is still there: a new mapping,
 * even at the same address, would be zero). */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "postmortem.h"

enum { MARK = 0x706d5354 };

static int *volatile nowhere;

/* The handler runs on the alternate stack (SA_ONSTACK): the reused one. */
__attribute__((noinline, noclone)) static void
crash_on_reused_stack(void)
{
	*nowhere = 1;
	__asm__ volatile("" ::: "memory");
}

/* 1 when the page just below the top of the calling thread's alternate stack is in memory. */
static int
top_page_resident(stack_t *ss)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char in = 0;
	if (sigaltstack(NULL, ss) != 0 || (ss->ss_flags & SS_DISABLE))
		return -1;
	char *top = (char *)ss->ss_sp + ss->ss_size;
	if (mincore(top - page, (size_t)page, &in) != 0)
		return -1;
	return in & 1;
}

static void *
first(void *out)
{
	stack_t ss;
	int resident = top_page_resident(&ss);
	if (resident >= 0)
		*(volatile long *)ss.ss_sp = MARK;
	*(void **)out = ss.ss_sp;
	return (void *)(long)resident;
}

static void *
second(void *before)
{
	stack_t ss;
	bool reused = top_page_resident(&ss) >= 0 && ss.ss_sp == before && *(volatile long *)ss.ss_sp == MARK;
	pm_annotate("reused", reused ? "1" : "0");
	crash_on_reused_stack();
	return NULL;
}

int
main(void)
{
	stack_t ss;
	if (pm_install(NULL) != 0)
		return 2;
	pm_annotate("installer_top", top_page_resident(&ss) == 1 ? "1" : "0");
	pthread_t t;
	void *sp = NULL, *resident = NULL;
	if (pthread_create(&t, NULL, first, &sp) != 0 || pthread_join(t, &resident) != 0)
		return 2;
	pm_annotate("worker_top", resident == (void *)1 ? "1" : "0");
	if (pthread_create(&t, NULL, second, sp) != 0)
		return 2;
	pthread_join(t, NULL);
	return 0;
}
