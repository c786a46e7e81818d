/*
 * record_capture.c — a live capture of a stopped thread, recorded: the
 * first half of the seam's test (test_seam.c).
 *
 *   record_capture DIR RECORD
 *
 * A worker thread three calls deep stops in a signal handler, which hands
 * over its registers and waits.  The capture engine then captures this
 * process after the freeze (as_capture_stopped) with the worker as the
 * crashed thread, through a recorder over our own memory: the report's
 * .crash, .json and .dmp go into DIR, and what the capture read (and the
 * mappings it saw, and the worker's registers) into the file RECORD.
 */
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reporter/landing/as_landing.h"
#include "seam.h"

#define SEAM_FRAME __attribute__((noinline, noclone))

static sem_t parked, release;
static pid_t worker_tid;
static mcontext_t worker_mc;

static void
on_stop(int sig, siginfo_t *info, void *uctx)
{
	(void)sig;
	(void)info;
	worker_mc = ((ucontext_t *)uctx)->uc_mcontext;
	sem_post(&parked);
	while (sem_wait(&release) != 0)
		;
}

SEAM_FRAME static void
seam_inner(void)
{
	worker_tid = (pid_t)gettid();
	sem_post(&parked);
	for (;;)
		pause();
}

SEAM_FRAME static void
seam_middle(void)
{
	seam_inner();
	__asm__ volatile("" ::: "memory");
}

SEAM_FRAME static void
seam_outer(void)
{
	seam_middle();
	__asm__ volatile("" ::: "memory");
}

static void *
worker(void *arg)
{
	(void)arg;
	seam_outer();
	return NULL;
}

static char *
slurp(const char *path, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;
	if (!buf || fd < 0)
		return NULL;
	while ((got = read(fd, buf + n, cap - n)) > 0)
		if ((n += (size_t)got) == cap && !(buf = realloc(buf, cap *= 2)))
			return NULL;
	close(fd);
	*len = n;
	return buf;
}

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: record_capture DIR RECORD\n");
		return 2;
	}
	static char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return 1;
	exe[n] = '\0';
	struct sigaction sa = { .sa_sigaction = on_stop, .sa_flags = SA_SIGINFO };
	sigemptyset(&sa.sa_mask);
	pthread_t t;
	if (sem_init(&parked, 0, 0) != 0 || sem_init(&release, 0, 0) != 0 || sigaction(SIGUSR1, &sa, NULL) != 0 ||
	    pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	while (sem_wait(&parked) != 0) /* it is three calls deep */
		;
	if (pthread_kill(t, SIGUSR1) != 0)
		return 1;
	while (sem_wait(&parked) != 0) /* it stopped */
		;

	size_t maps_len;
	char *maps = slurp("/proc/self/maps", &maps_len);
	int dir = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!maps || dir < 0)
		return 1;
	static seam_storage storage;
	static seam_record record;
	seam_storage_init(&storage, exe);
	if (!pmi_as_mem_setup())
		return 1;
	pm_mem self = as_mem_self();
	as_mem_self_begin();
	as_target target = seam_recorder(&record, &self, maps, maps_len);
	record.pid = getpid();
	record.tid = worker_tid;
	record.mc = worker_mc;
	as_capture_ctx c = seam_ctx(&storage, &target, worker_tid, &worker_mc, argv[1], dir);
	as_capture_stopped(&c, 1);
	if (!as_write_report(&c) || !as_write_minidump(&c) || !seam_save(&record, argv[2])) {
		perror("record_capture");
		return 1;
	}
	printf("%s\n%s\n%s\n", c.crash_path, c.json_path, c.minidump_path);
	return 0;
}
