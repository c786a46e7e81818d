/*
 * stop_in_qsort.h — a thread stopped deep in a known call chain that crosses
 * libc, and its signal context handed to a callback inside the signal
 * handler, with what the crash handler would walk it with.
 *
 * The thread descends `depth` frames (park.c) and calls qsort; the
 * comparator raises SIGUSR1.  Its stack, innermost first: pthread_kill and
 * raise (libc), the comparator, qsort's merge sort (libc), sort_and_raise,
 * the park_descend frames, the thread's start routine, start_thread and
 * clone3 (libc).  Compiled into each program, so that the chain's own frames
 * are built in that program's flavour.
 */
#ifndef PM_BENCH_STOP_IN_QSORT_H
#define PM_BENCH_STOP_IN_QSORT_H

#include <ucontext.h>

#include "reporter/unwind/as_unwind.h"

typedef struct stop_site {
	ucontext_t *uc;          /* the context the signal interrupted */
	pm_cpu cpu;              /* its registers, where as_unwind starts */
	pm_unwind_env env;       /* the page-cached self reader and the image table */
	pm_mem_cache *cache;     /* behind env.mem: reset it before each walk, as a crash starts cold */
	pm_report *report;       /* holds the images the scan found (env.images' model_index) */
} stop_site;

/*
 * Stop a new thread `depth` (at least 1) frames down as above and run
 * inside(site, arg) in its SIGUSR1 handler, after scanning the images there
 * as the crash handler does; return once the thread has ended.  0, or -1
 * when the memory reader, the handler or the thread could not be set up.
 * One at a time: the site lives in static storage.
 */
int stop_in_qsort(unsigned depth, void (*inside)(const stop_site *site, void *arg), void *arg);

#endif
