/*
 * go_text.h — the Go runtime's code range in the executable (NOT AS-safe).
 */
#ifndef PM_REPORTER_GO_TEXT_H
#define PM_REPORTER_GO_TEXT_H

#include <stdbool.h>
#include <stdint.h>

/* [lo, hi): Go's code in a Go executable, as loaded; false (0, 0) otherwise. */
bool pmi_go_text(uint64_t *lo, uint64_t *hi);

#endif
