/*
 * as_write.h — AS-SAFE: put the report on disk.
 */
#ifndef PM_REPORTER_AS_WRITE_H
#define PM_REPORTER_AS_WRITE_H

#include "as_capture.h"

/*
 * Write <pending>/<incident>.crash then <pending>/<incident>.json (into
 * c->dir_fd, pending/ held from install when it is -1), each
 * under a hidden temporary name, their writeback started; then rename each
 * once its writeback has ended (and it is fsync'd, where the filesystem may
 * commit a rename before the file's blocks), and fsync pending/ (and the
 * files, where the filesystem needs it: what is durable when,
 * docs/architecture.md); files 0600.  The JSON twin ends with
 * "complete": true, so the next launch can tell a torn report.  Fills
 * c->crash_path / json_path.  True if both landed.
 */
bool as_write_report(const as_capture_ctx *c);
/*
 * Then <pending>/<incident>.dmp, the same way, when minidumps are on.  Kept
 * apart so a fault while writing it (the minidump reads the most memory)
 * comes after the report is known to be on disk.  True if it landed.
 */
bool as_write_minidump(const as_capture_ctx *c);

#endif
