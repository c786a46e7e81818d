#include "stop_in_qsort.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/model/model.h"
#include "park.h"
#include "sample_crashes/sample.h"

enum { MAX_IMAGES = 512, MAX_MAPS = 8192 };

static char arena_mem[4 << 20];
static pm_as_image as_images[MAX_IMAGES];
static pm_as_map maps_table[MAX_MAPS];
static char exe[PATH_MAX], line[4096];
static volatile sig_atomic_t raised;

static struct {
	unsigned depth;
	void (*inside)(const stop_site *, void *);
	void *arg;
} job;

/* In the handler, as at crash time: the image table comes from the same scan. */
static void
on_usr1(int sig, siginfo_t *info, void *uctx)
{
	static pm_report rep;
	static pm_mem_cache cache;
	pm_as_images im = { .images = as_images, .cap = MAX_IMAGES, .maps = maps_table, .map_cap = MAX_MAPS };
	stop_site site = { .uc = uctx, .cache = &cache, .report = &rep };
	(void)sig;
	(void)info;
	as_target self = as_target_self();
	as_mem_self_begin();
	as_mem_cache_reset(&cache, &self.mem);
	site.env = (pm_unwind_env){ .mem = as_mem_cached(&cache), .images = &im };
	self.mem = site.env.mem;
	pmi_report_init_fixed(&rep, arena_mem, sizeof arena_mem);
	rep.images = pmi_arena_alloc(rep.arena, MAX_IMAGES * sizeof *rep.images, _Alignof(pm_image));
	as_images_scan(&im, &rep, &self, exe, line, sizeof line);
	as_arch_cpu_from_mcontext(&site.uc->uc_mcontext, &site.cpu);
	job.inside(&site, job.arg);
}

SAMPLE_FRAME static int
compare_and_raise(const void *a, const void *b)
{
	if (!raised) {
		raised = 1;
		raise(SIGUSR1);
	}
	return *(const int *)a - *(const int *)b;
}

SAMPLE_FRAME static void
sort_and_raise(void *arg)
{
	int v[16] = { 9, 4, 12, 1, 15, 7, 3, 11, 0, 14, 6, 10, 2, 13, 5, 8 };
	(void)arg;
	qsort(v, sizeof v / sizeof v[0], sizeof v[0], compare_and_raise);
	SAMPLE_KEEP_FRAME();
}

static void *
walker(void *arg)
{
	park_descend(job.depth, sort_and_raise, arg);
	return NULL;
}

int
stop_in_qsort(unsigned depth, void (*inside)(const stop_site *site, void *arg), void *arg)
{
	struct sigaction sa, old;
	pthread_t t;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0 || !pmi_as_mem_setup())
		return -1;
	exe[n] = '\0';
	job.depth = depth;
	job.inside = inside;
	job.arg = arg;
	raised = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, &old) != 0)
		return -1;
	int err = pthread_create(&t, NULL, walker, NULL);
	if (err == 0)
		pthread_join(t, NULL);
	sigaction(SIGUSR1, &old, NULL);
	return err == 0 ? 0 : -1;
}
