/*
 * as_minidump_threads.h — AS-SAFE: the threads of a minidump
 * (as_minidump_threads.c): ThreadList, Exception, thread names.
 */
#ifndef PM_REPORTER_AS_MINIDUMP_THREADS_H
#define PM_REPORTER_AS_MINIDUMP_THREADS_H

#include "as_minidump_stream.h"

void as_md_thread_list(pm_md_writer *w);
void as_md_exception(pm_md_writer *w);
void as_md_thread_names(pm_md_writer *w);

#endif
