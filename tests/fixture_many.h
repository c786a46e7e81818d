/*
 * fixture_many.h — a report model of many threads, for the writers' golden
 * test (tests/golden/) and their benchmark (bench/render_cost.c).
 *
 * Deterministic: the same arguments give the same model, byte for byte in
 * every rendering.  Plain C (no Criterion), so a benchmark can link it.
 */
#ifndef PM_TESTS_FIXTURE_MANY_H
#define PM_TESTS_FIXTURE_MANY_H

#include "postmortem-tools.h"

/*
 * `threads` threads of up to `frames` frames each, shaped like a capture of
 * x86_64 Linux (registers on every captured thread, the crashed one with its
 * trap), but with every variation the writers branch on: frames of every
 * kind (symbol with and without offset, file with and without line, column,
 * inlined, no symbol, an image without a name, an image index out of range,
 * each `how` and one past them), names and symbols that need JSON escapes or
 * are longer than the writers' short-string path, UTF-8, threads not
 * captured, attributed, truncated, and numbers of every width.  False when
 * the report's storage ran out.
 */
bool pm_fixture_many(pm_report *r, uint32_t threads, uint32_t frames);

#endif
