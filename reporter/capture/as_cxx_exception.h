/*
 * as_cxx_exception.h — AS-SAFE: the uncaught C++ exception a crashed thread
 * died of (as_cxx_exception.c).
 */
#ifndef PM_REPORTER_AS_CXX_EXCEPTION_H
#define PM_REPORTER_AS_CXX_EXCEPTION_H

#include <stddef.h>
#include <sys/types.h>

#include "as_images.h"
#include "postmortem.h"

/* "terminating due to uncaught exception of type _Z<type>: <what()>" into
 * buf when thread tid died of one; its length, 0 when it did not. */
size_t as_cxx_exception_text(const pm_report *r, pid_t tid, char *buf, size_t cap);
/* The throw site's frames as r's Last Exception Backtrace (before the
 * symbols are looked up), when thread tid died of an uncaught exception. */
void as_fill_last_exception(pm_report *r, const pm_as_images *im, pid_t tid);

#endif
