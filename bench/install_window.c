/*
 * install_window.c — issue 14: how long after pm_install returns a thread
 * from before it may still lack its alternate stack.  With more than 30
 * threads, pm_install leaves the setup requests to a helper thread
 * (reporter/handler/altstack_broadcast.c); until a thread's request is pending, a
 * stack overflow there goes unreported.  Each run is a fresh process with
 * THREADS threads parked: pm_install is timed, then how long after its
 * return every thread held its stack (polled every 200 us) and the helper
 * had ended (just after its last request: the window's end), and the same
 * for a reinstall (every thread known to hold its stack: the helper only
 * lists them).  Linked with the static library, for those internals.
 *
 * usage: bench_install_window REPORTS_DIR [THREADS [RUNS]]   (default 257 20)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "park.h"
#include "postmortem.h"
#include "reporter/handler/altstack.h"
#include "reporter/handler/as_altstack.h"
#include "reporter/memory/as_dirents.h"
#include "reporter/memory/as_sys.h"
#include "timing.h"

enum { COLUMNS = 5, MAX_THREADS = 4096 };

static pid_t tids[MAX_THREADS];
static size_t tid_count;

/* The other threads, before install. */
static void
list_threads(void)
{
	char buf[4096];
	as_dirents d;
	pid_t self = as_sys_gettid(), tid;
	if (!as_dirents_open(&d, "/proc/self/task", buf, sizeof buf))
		return;
	while (tid_count < MAX_THREADS && as_dirents_next_tid(&d, &tid))
		if (tid != self)
			tids[tid_count++] = tid;
	as_dirents_close(&d);
}

/* Microseconds from `since` until every thread listed holds its stack. */
static double
all_held_after(double since)
{
	struct timespec poll = { .tv_nsec = 200 * 1000 };
	for (size_t i = 0; i < tid_count;)
		if (as_altstack_is_known(tids[i]))
			i++;
		else
			nanosleep(&poll, NULL);
	return timing_now_us() - since;
}

/* One fresh process: install, every stack held, helper ended; reinstall,
 * helper ended (microseconds, the last three after the install returned). */
static int
one_run(const char *dir, size_t threads, double out[COLUMNS])
{
	int fds[2];
	if (pipe(fds) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		pm_config cfg = { .reports_dir = dir };
		if (park_threads(threads - 1, 1) != 0 || park_wait(threads - 1) != 0)
			_exit(1);
		list_threads();
		double t0 = timing_now_us();
		int r = pm_install(&cfg);
		double t1 = timing_now_us();
		double held = all_held_after(t1);
		pmi_altstack_broadcast_wait();
		double t2 = timing_now_us();
		pm_uninstall();
		double t3 = timing_now_us();
		r |= pm_install(&cfg);
		double t4 = timing_now_us();
		pmi_altstack_broadcast_wait();
		double t5 = timing_now_us();
		double res[COLUMNS] = { t1 - t0, held, t2 - t1, t4 - t3, t5 - t4 };
		_exit(r == 0 && write(fds[1], res, sizeof res) == (ssize_t)sizeof res ? 0 : 1);
	}
	close(fds[1]);
	int status = -1;
	ssize_t got = pid > 0 ? read(fds[0], out, COLUMNS * sizeof *out) : -1;
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return got == (ssize_t)(COLUMNS * sizeof *out) && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s REPORTS_DIR [THREADS [RUNS]]\n", argv[0]);
		return 2;
	}
	size_t threads = argc > 2 ? strtoul(argv[2], NULL, 10) : 257;
	size_t runs = argc > 3 ? strtoul(argv[3], NULL, 10) : 20;
	double *v = calloc(runs * COLUMNS, sizeof *v), *col = calloc(runs, sizeof *col);
	if (!v || !col || runs == 0 || threads == 0)
		return 2;
	for (size_t i = 0; i < runs; i++)
		if (one_run(argv[1], threads, v + i * COLUMNS) != 0) {
			fprintf(stderr, "run %zu failed\n", i);
			return 1;
		}
	static const char *const names[COLUMNS] = { "first install", "  every stack", "  helper ended", "reinstall",
		                                    "  helper ended" };
	printf("pm_install with %zu threads parked, %zu fresh processes, microseconds; below each install,\n"
	       "how long after it returned every thread held its stack, and its helper thread had ended\n\n",
	       threads, runs);
	printf("%-15s  %8s  %8s  %8s\n", "", "min", "median", "max");
	for (int c = 0; c < COLUMNS; c++) {
		for (size_t i = 0; i < runs; i++)
			col[i] = v[i * COLUMNS + c];
		printf("%-15s  %8.1f  %8.1f  %8.1f\n", names[c], timing_quantile(col, runs, 0), timing_quantile(col, runs, 0.5),
		       timing_quantile(col, runs, 1));
	}
	return 0;
}
