/*
 * runs_util.h — runs of sample_crashes/runs.c (crash_runs, crash_plain_runs)
 * in one reports directory: release health's test runs.
 */
#ifndef PM_TESTS_RUNS_UTIL_H
#define PM_TESTS_RUNS_UTIL_H

#include <sys/types.h>

/* The six runs of issue 33, in this order. */
enum { RUNS_SIX = 6 };
extern const char *const runs_six_modes[RUNS_SIX]; /* exit0 exit0 exit0 exit3 crash wait(+SIGKILL) */

/*
 * Run build/sample_crashes/<program> MODE with POSTMORTEM_DIR=dir and the "K=V"
 * strings of env (NULL-terminated, may be NULL), nothing else of the test's
 * POSTMORTEM_* variables.  Mode "wait" is killed with SIGKILL once it said it
 * is ready.  Its pid; *status its wait status.
 */
pid_t runs_run(const char *program, const char *dir, const char *mode, const char *const *env, int *status);
/* The six runs of crash_runs into dir; their pids. */
void runs_six(const char *dir, const char *const *env, pid_t pids[RUNS_SIX]);

#endif
