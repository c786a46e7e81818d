/*
 * as_tls_seen.h — AS-SAFE: thread pointers already found sound, so that a
 * fatal signal on a thread other than the installing one (a JVM's Java
 * threads, whose handled null checks come by the thousand) need not prove
 * its thread pointer with two system calls every time.
 */
#ifndef PM_AS_TLS_SEEN_H
#define PM_AS_TLS_SEEN_H

#include <stdbool.h>
#include <stdint.h>

/* tp was found sound before.  A thread pointer cannot go bad under a
 * running thread (its TCB lives as long as the thread), so a value once
 * sound stays so while a thread uses it. */
bool as_tls_seen(uint64_t tp);

/* Remember tp as sound; a full table forgets some other value. */
void as_tls_saw(uint64_t tp);

#endif
