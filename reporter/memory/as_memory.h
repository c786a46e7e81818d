/*
 * as_memory.h — the door of reporter/memory, the ground every other room
 * of the reporter stands on (AS-SAFE unless a declaration says otherwise):
 * raw system calls (as_sys.h), bounded strings, numbers and small files
 * (as_util.h), directory listings (as_dirents.h), fault-free reads of
 * memory, their cache and stack windows (as_mem.h), the target a capture
 * reads (as_target.h), and where a static that pm_install writes belongs
 * (start_data.h).
 */
#ifndef PM_REPORTER_AS_MEMORY_H
#define PM_REPORTER_AS_MEMORY_H

#include "as_dirents.h"
#include "as_mem.h"
#include "as_sys.h"
#include "as_util.h"
#include "start_data.h"
#include "tid_cache.h"

#endif
