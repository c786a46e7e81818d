/*
 * as_freeze_relay.h — AS-SAFE: the freeze's list of requests to send,
 * shared between the reporting thread and the threads that have answered.
 *
 * Each request costs its sender about 7 us of its own CPU on a
 * paravirtualized guest (the wakeup's interprocessor interrupt is a
 * hypervisor exit), so the reporting thread sends a few and goes on; each
 * thread that answers takes the next ones from the bottom of the list, and
 * the reporting thread, when it has scanned the images, takes what is left
 * from the top.  Each index is handed out once, by a compare-and-swap on one
 * word; whether a request is sent is still decided by its slot
 * (as_freeze.c), so a taker that stalls before it sends holds nobody up.
 */
#ifndef PM_REPORTER_AS_FREEZE_RELAY_H
#define PM_REPORTER_AS_FREEZE_RELAY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Publish tids[0, n) and the request's siginfo (its si_uid is set per
 * thread) for the takers; the list stays valid until the next open. */
void as_relay_open(const pid_t *tids, size_t n, const siginfo_t *info);
/* The next thread not handed out yet, from the bottom of the list or its
 * top, with the request to send it (si_uid to set); false when none is left. */
bool as_relay_take(bool top, pid_t *tid, siginfo_t *info);
/* The request as published (si_uid to set). */
void as_relay_request(siginfo_t *info);

#endif
