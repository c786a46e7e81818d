/*
 * as_minidump_info.h — AS-SAFE: what a minidump says of the system, the
 * process and its modules (as_minidump_info.c).
 */
#ifndef PM_REPORTER_AS_MINIDUMP_INFO_H
#define PM_REPORTER_AS_MINIDUMP_INFO_H

#include "as_minidump_stream.h"

void as_md_system_info(pm_md_writer *w);
void as_md_misc_info(pm_md_writer *w);
void as_md_module_list(pm_md_writer *w);

#endif
