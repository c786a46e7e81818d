/*
 * session_target.c — issue 33: what a run's session costs an app that never
 * crashes, at pm_install and at exit.  It times its pm_install (the session's
 * start is in it unless POSTMORTEM_SESSIONS=0) and, from two exit handlers
 * around postmortem's, the hooks exit() runs between them: one registered
 * before pm_install runs after postmortem's, one registered after runs
 * before it (exit runs them in reverse), so their difference is what
 * postmortem's adds to exit.  With an argument it prints
 * "<install us> <exit us>" from the last handler; the bare build times two
 * adjacent handlers with nothing between them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "timing.h"

#if defined(SESSION_INSTALL)
#include "postmortem.h"
#endif

static double install_us, exit_from;
static int print;

/* Runs first at exit: postmortem's hook comes next. */
static void
exit_begins(void)
{
	exit_from = timing_now_us();
}

/* Runs last: after postmortem's. */
static void
exit_ends(void)
{
	double spent = timing_now_us() - exit_from;
	if (print)
		printf("%.2f %.2f\n", install_us, spent);
}

int
main(int argc, char **argv)
{
	(void)argv;
	print = argc > 1;
	atexit(exit_ends);
	double t0 = timing_now_us();
#if defined(SESSION_INSTALL)
	if (pm_install(NULL) != 0)
		return 2;
#endif
	install_us = timing_now_us() - t0;
	atexit(exit_begins);
	return 0;
}
