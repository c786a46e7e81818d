/*
 * as_landing.h — the door of reporter/landing: a captured report put on
 * disk, durable, under its final names (as_write.h), through the
 * descriptors held from install (as_fds.h).  AS-SAFE.
 */
#ifndef PM_REPORTER_AS_LANDING_H
#define PM_REPORTER_AS_LANDING_H

#include "as_fds.h"
#include "as_write.h"

#endif
