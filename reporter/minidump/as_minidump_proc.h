/*
 * as_minidump_proc.h — AS-SAFE: Breakpad's Linux streams of a minidump
 * (as_minidump_proc.c).
 */
#ifndef PM_REPORTER_AS_MINIDUMP_PROC_H
#define PM_REPORTER_AS_MINIDUMP_PROC_H

#include "as_minidump_stream.h"

void as_md_proc_streams(pm_md_writer *w);

#endif
