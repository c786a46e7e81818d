/*
 * tid_cache.h — the per-thread id cache of as_sys_tid, kept right across
 * fork (NOT AS-safe: at install, and at the first C++ throw).
 */
#ifndef PM_REPORTER_TID_CACHE_H
#define PM_REPORTER_TID_CACHE_H

/* A forked child's thread forgets the id its parent's thread kept
 * (pthread_atfork, registered once per process). */
void pmi_tid_cache_start(void);

#endif
