#include "park.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static int silent_pipe[2] = { -1, -1 };
static atomic_size_t arrived;

/* The asm after the call keeps it from becoming a jump: every level stays a frame. */
__attribute__((noinline)) void
park_descend(unsigned depth, void (*at_bottom)(void *), void *arg)
{
	if (depth > 1)
		park_descend(depth - 1, at_bottom, arg);
	else
		at_bottom(arg);
	__asm__ volatile("" ::: "memory");
}

void
park_forever(park_kind kind)
{
	char c;
	atomic_fetch_add(&arrived, 1);
	switch (kind) {
	case PARK_COND_WAIT:
		pthread_mutex_lock(&gate);
		for (;;)
			pthread_cond_wait(&never, &gate);
	case PARK_READ:
		while (read(silent_pipe[0], &c, 1) != 0)
			;
		break;
	case PARK_NANOSLEEP:
		for (;;) {
			struct timespec ts = { 1000, 0 };
			nanosleep(&ts, NULL);
		}
	default:
		for (;;)
			poll(NULL, 0, 1000000);
	}
	/* Only reached when the pipe's write end closes: never in these programs. */
	pause();
}

/* A parked thread's argument: its depth above 8 bits, its kind below. */
static void
park_at_bottom(void *how)
{
	park_forever((park_kind)((uintptr_t)how & 0xff));
}

static void *
parked_thread(void *how)
{
	park_descend((unsigned)((uintptr_t)how >> 8), park_at_bottom, how);
	return NULL;
}

/* Kernel state letter of a thread of ours ('S' asleep, 'R' running). */
static char
thread_state(const char *tid)
{
	char path[300], buf[512];
	snprintf(path, sizeof path, "/proc/self/task/%s/stat", tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return '?';
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The state follows the last ')': the name in between may hold one. */
	char *close = NULL;
	for (char *p = buf; *p; p++)
		if (*p == ')')
			close = p;
	return close && close[1] == ' ' ? close[2] : '?';
}

/* 1 when every thread but the caller sleeps, 0 when one does not, -1 on error. */
static int
others_asleep(void)
{
	char self[32];
	snprintf(self, sizeof self, "%ld", (long)gettid());
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -1;
	int all = 1;
	struct dirent *e;
	while (all && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && strcmp(e->d_name, self) != 0 && thread_state(e->d_name) != 'S')
			all = 0;
	closedir(d);
	return all;
}

int
park_thread(void *(*fn)(void *), void *arg)
{
	if (silent_pipe[0] < 0 && pipe(silent_pipe) != 0)
		return -1;
	pthread_attr_t attr;
	pthread_t t;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* Small stacks: hundreds of threads must fit comfortably. */
	pthread_attr_setstacksize(&attr, 256 * 1024);
	int err = pthread_create(&t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	errno = err;
	return err == 0 ? 0 : -1;
}

int
park_threads(size_t n, unsigned depth)
{
	for (size_t i = 0; i < n; i++)
		if (park_thread(parked_thread, (void *)((uintptr_t)depth << 8 | i % PARK_KINDS)) != 0)
			return -1;
	return 0;
}

int
park_wait(size_t total)
{
	/* A thread counted in has nothing left to do but enter its call;
	 * once the kernel says it sleeps, it is in it. */
	const struct timespec tick = { 0, 1000000 };
	while (atomic_load(&arrived) < total)
		nanosleep(&tick, NULL);
	int r;
	while ((r = others_asleep()) == 0)
		nanosleep(&tick, NULL);
	return r < 0 ? -1 : 0;
}
