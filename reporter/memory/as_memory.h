/*
 * as_memory.h — the door of reporter/memory, the ground every other room
 * of the reporter stands on (AS-SAFE unless a declaration says otherwise):
 * raw system calls (as_sys.h), bounded strings, numbers and small files
 * (as_util.h), directory listings (as_dirents.h), fault-free reads of
 * memory, their cache and stack windows (as_mem.h), the target a capture
 * reads (as_target.h), where a static that pm_install writes belongs
 * (start_data.h), and the thread-id cache kept right across fork
 * (tid_cache.h).
 *
 * The memory-source seam.  Every read the capture engine makes of the
 * process it reports goes through an as_target: its bytes (a pm_mem), its
 * mappings and its /proc files.  Our own process is as_target_self(), which
 * the freeze's capture reads (as_capture, reporter/capture).  To report
 * another process — a core file's segments and the files it mapped, or
 * /proc/<pid> while the kernel holds a dying one — fill an as_target over
 * it, its threads as pm_slot records with their registers, and call the
 * engine after the freeze: as_capture_stopped (reporter/capture/
 * as_capture.h) fills the report (images and build ids, every thread's
 * walk, the exception, the symbols), as_write_report and as_write_minidump
 * (reporter/landing) write the .crash, the .json and the .dmp.
 * tests/seam holds a second source, over a buffer, that does exactly this.
 */
#ifndef PM_REPORTER_AS_MEMORY_H
#define PM_REPORTER_AS_MEMORY_H

#include "as_dirents.h"
#include "as_mem.h"
#include "as_sys.h"
#include "as_target.h"
#include "as_util.h"
#include "start_data.h"
#include "tid_cache.h"

#endif
