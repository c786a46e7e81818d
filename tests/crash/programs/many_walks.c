/* THREADS threads (150 by default), thread k named "w<k>" and parked
 * DEPTH(k) calls deep in descend(), the main thread then crashing: enough
 * threads that a frozen one is lent to the walks (reporter/capture/as_walker.c),
 * each with a stack the test knows.
 *
 * many_walks THREADS recover: the main thread raises SIGABRT instead, and
 * the app's own SIGABRT handler, installed before pm_install, recovers
 * (siglongjmp) once it is reported (a fault the kernel raised would go to
 * that handler first, and never be reported); then every thread must run
 * again, on the CPUs it had (the lent one's were changed for the job), and
 * end: exit 0, else 3. */
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "postmortem.h"

int *volatile null_pointer;
static atomic_int ready, moved;
static volatile int sink, stop;
static cpu_set_t cpus;
static sigjmp_buf back;

static int
depth_of(int k)
{
	return 1 + k % 5;
}

__attribute__((noinline)) void
descend(int depth)
{
	if (depth > 1)
		descend(depth - 1);
	else {
		atomic_fetch_add(&ready, 1);
		while (!stop)
			pause();
	}
	sink++; /* no tail call: each level keeps its frame */
}

__attribute__((noinline)) void *
thread_main(void *arg)
{
	int k = (int)(long)arg;
	char name[16];
	snprintf(name, sizeof name, "w%d", k);
	pthread_setname_np(pthread_self(), name);
	descend(depth_of(k));
	cpu_set_t now;
	if (sched_getaffinity(0, sizeof now, &now) != 0 || !CPU_EQUAL(&now, &cpus))
		atomic_fetch_add(&moved, 1);
	return NULL;
}

static void
recover(int sig)
{
	(void)sig;
	siglongjmp(back, 1);
}

static void
wake(int sig)
{
	(void)sig;
}

static void
on(int sig, void (*handler)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigaction(sig, &sa, NULL);
}

/* Every other thread asleep (in pause, past the count of ready threads):
 * a thread frozen on its way there would show one frame more or less. */
static bool
all_asleep(void)
{
	DIR *d = opendir("/proc/self/task");
	bool asleep = d != NULL;
	for (struct dirent *e; asleep && (e = readdir(d)) != NULL;) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == gettid())
			continue;
		char path[300], stat[512];
		snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(stat, 1, sizeof stat - 1, f) : 0;
		if (f)
			fclose(f);
		stat[n] = '\0';
		const char *close = strrchr(stat, ')');
		asleep = !close || close[1] == '\0' || close[2] == 'S';
	}
	if (d)
		closedir(d);
	return asleep;
}

int
main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 150;
	bool recovers = argc > 2 && strcmp(argv[2], "recover") == 0;
	pthread_t *volatile t = calloc((size_t)(threads > 0 ? threads : 1), sizeof *t);
	if (recovers) {
		on(SIGABRT, recover);
		on(SIGUSR1, wake);
	}
	if (threads < 1 || !t || sched_getaffinity(0, sizeof cpus, &cpus) != 0 || pm_install(NULL) != 0)
		return 2;
	for (int k = 0; k < threads; k++)
		if (pthread_create(&t[k], NULL, thread_main, (void *)(long)k) != 0)
			return 2;
	while (atomic_load(&ready) < threads)
		usleep(1000);
	for (int i = 0; i < 5000 && !all_asleep(); i++)
		usleep(1000);
	if (sigsetjmp(back, 1) == 0) {
		if (recovers)
			raise(SIGABRT); /* not abort(): noreturn, it would move the call to main.cold */
		*null_pointer = 1;
	}
	stop = 1;
	for (int k = 0; k < threads; k++) {
		pthread_kill(t[k], SIGUSR1);
		pthread_join(t[k], NULL);
	}
	free(t);
	return atomic_load(&moved) ? 3 : 0;
}
