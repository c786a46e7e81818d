/*
 * golden_render.h — the models of the writers' golden files (tests/golden/)
 * and how they are rendered, shared by the test that compares and the
 * program that wrote them (tests/golden/README.md).
 */
#ifndef PM_TESTS_GOLDEN_RENDER_H
#define PM_TESTS_GOLDEN_RENDER_H

#include <stddef.h>

#include "postmortem-tools.h"

typedef struct golden_model {
	const char *name;           /* files <name>.crash and <name>.json */
	void (*build)(pm_report *r);
} golden_model;

extern const golden_model golden_models[];
extern const size_t golden_model_count;

/* The format's file extension: ".crash" or ".json". */
const char *golden_ext(pm_format f);

/*
 * r rendered in format f through the writers' sink with a buffer of `cap`
 * bytes that drains to a file, as the crash path's does; the bytes,
 * malloc'd, *len of them.  NULL when a writer failed.
 */
char *golden_render(const pm_report *r, pm_format f, size_t cap, size_t *len);

#endif
