/*
 * install_window.c — issue 14: how long after pm_install returns a thread
 * from before it may still lack its alternate stack.  With more than 30
 * threads, pm_install leaves the setup requests to a helper thread
 * (reporter/altstack_broadcast.c); until the helper has sent its last one,
 * a stack overflow on a thread not reached yet goes unreported.  Each run
 * is a fresh process with THREADS threads parked: pm_install is timed, then
 * the wait for the helper (the window), then both again for a reinstall
 * (every thread known to hold its stack: the helper only lists them).
 * Linked with the static library, for the helper's wait.
 *
 * usage: bench_install_window REPORTS_DIR [THREADS [RUNS]]   (default 257 20)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "park.h"
#include "postmortem.h"
#include "reporter/altstack.h"
#include "timing.h"

enum { COLUMNS = 4 };

/* One fresh process: install, window, reinstall, window (microseconds). */
static int
one_run(const char *dir, size_t threads, double out[COLUMNS])
{
	int fds[2];
	if (pipe(fds) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		pm_config cfg = { .reports_dir = dir };
		double t[6];
		if (park_threads(threads - 1, 1) != 0 || park_wait(threads - 1) != 0)
			_exit(1);
		t[0] = timing_now_us();
		int r = pm_install(&cfg);
		t[1] = timing_now_us();
		pmi_altstack_broadcast_wait();
		t[2] = timing_now_us();
		pm_uninstall();
		t[3] = timing_now_us();
		r |= pm_install(&cfg);
		t[4] = timing_now_us();
		pmi_altstack_broadcast_wait();
		t[5] = timing_now_us();
		double res[COLUMNS] = { t[1] - t[0], t[2] - t[1], t[4] - t[3], t[5] - t[4] };
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
	static const char *const names[COLUMNS] = { "first install", "its window", "reinstall", "its window" };
	printf("pm_install with %zu threads parked, %zu fresh processes; microseconds after pm_install returned\n"
	       "until its helper thread had asked the last thread (\"window\"; 0: no helper)\n\n",
	       threads, runs);
	printf("%-14s  %8s  %8s  %8s\n", "", "min", "median", "max");
	for (int c = 0; c < COLUMNS; c++) {
		for (size_t i = 0; i < runs; i++)
			col[i] = v[i * COLUMNS + c];
		printf("%-14s  %8.1f  %8.1f  %8.1f\n", names[c], timing_quantile(col, runs, 0), timing_quantile(col, runs, 0.5),
		       timing_quantile(col, runs, 1));
	}
	return 0;
}
