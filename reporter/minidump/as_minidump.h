/*
 * as_minidump.h — the door of reporter/minidump, AS-SAFE: the report as a
 * Breakpad/Crashpad minidump (<id>.dmp), streamed from the model, the
 * memory map and the threads' stacks read from the capture's target.  No
 * allocation: the ranges table and the chunk buffer were prepared at
 * install.
 *
 * File layout: header, directory, every captured memory range's bytes,
 * then the streams, which point back at those bytes.  The streams' sizes
 * are known only once written, so the header and the directory are written
 * last, over their placeholders (the one seek).  A stream's size covers its
 * fixed records only; what they point at (contexts, strings) follows it.
 */
#ifndef PM_REPORTER_AS_MINIDUMP_H
#define PM_REPORTER_AS_MINIDUMP_H

#include "as_minidump_stream.h"

/* The whole minidump of r into o, whose fd must be a regular file (seekable). */
pm_err as_minidump(const as_capture_ctx *c, pm_out *o);

#endif
