/*
 * symb_c.c — crashes for the symbolication tests, built with -g -O2.
 *
 * Tests find the expected lines by the LINE: markers, so edits that move
 * lines keep them right; keep each marker on the line it names.
 *   symb_c segv     a write through NULL two real frames below main
 *   symb_c inline   the same inside an always_inline chain three deep
 *   symb_c abort    abort(): frames inside libc
 */
#include <stdlib.h>
#include <string.h>

#include "sample_crashes/sample.h"

SAMPLE_FRAME void
symb_crash_here(int v)
{
	*sample_null = v; /* LINE:crash_here */
}

SAMPLE_FRAME void
symb_caller(int v)
{
	symb_crash_here(v + 1); /* LINE:call_crash */
	SAMPLE_KEEP_FRAME();
}

static inline __attribute__((always_inline)) void
inline_level3(int v)
{
	*sample_null = v * 3; /* LINE:inline3 */
}

static inline __attribute__((always_inline)) void
inline_level2(int v)
{
	inline_level3(v + 2); /* LINE:inline2 */
	SAMPLE_KEEP_FRAME();
}

static inline __attribute__((always_inline)) void
inline_level1(int v)
{
	inline_level2(v + 1); /* LINE:inline1 */
	SAMPLE_KEEP_FRAME();
}

SAMPLE_FRAME void
symb_inlined_host(int v)
{
	inline_level1(v); /* LINE:inline_host */
	SAMPLE_KEEP_FRAME();
}

SAMPLE_FRAME void
symb_abort(void)
{
	abort(); /* LINE:abort */
}

int
main(int argc, char **argv)
{
	sample_install();
	const char *what = argc > 1 ? argv[1] : "segv";
	if (strcmp(what, "inline") == 0)
		symb_inlined_host(argc);
	else if (strcmp(what, "abort") == 0)
		symb_abort();
	else
		symb_caller(argc);
	return 0;
}
