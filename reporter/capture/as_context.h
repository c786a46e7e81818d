/*
 * as_context.h — AS-SAFE: what the app said before it crashed
 * (pm_set_crash_message, pm_annotate, pm_breadcrumb), read at crash time.
 */
#ifndef PM_REPORTER_AS_CONTEXT_H
#define PM_REPORTER_AS_CONTEXT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "postmortem-tools.h"

/* Copy the crash message (lines separated by '\n') into buf; its length, 0 when none. */
size_t as_context_message(char *buf, size_t cap);
/* r->annotations and r->breadcrumbs (times in local offset tz_min); buf is scratch. */
void as_fill_context(pm_report *r, int16_t tz_min, char *buf, size_t cap);

#endif
