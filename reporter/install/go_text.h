/*
 * go_text.h — the Go runtime's code range in the executable (NOT AS-safe).
 */
#ifndef PM_REPORTER_GO_TEXT_H
#define PM_REPORTER_GO_TEXT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* Whether the executable is Go's; [lo, hi): Go's code in it, as loaded ((0, 0):
 * not Go, or stripped of the symbols that bracket it). */
bool pmi_go_text(uint64_t *lo, uint64_t *hi);

/* The range into as_g.facts, looked for once, the first time a function
 * handler of another's sits beside postmortem's (one found by pm_install, or
 * one the preload library records later): only such a handler can be a Go
 * runtime's (as_handler.c), and a process without one reads nothing. */
void pmi_go_text_note(const struct sigaction *sa);

#endif
