/*
 * start_target.c — issue 13: a whole process that starts and ends at once,
 * built four ways (bench/meson.build): bare; linked with libpostmortem and
 * calling pm_install; the same and pm_upload_start with nothing pending;
 * and, for comparison, also linked with libpostmortem-tools (what every app
 * loaded before the split).  With an argument it prints what its own
 * postmortem calls took, in microseconds, the page faults taken in them
 * (ru_minflt: each a fresh page, the deterministic part of that time), and
 * its peak resident memory in kB (VmHWM: a parent's spawn would count the
 * parent's pages too).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#if defined(START_INSTALL)
#include "postmortem.h"
#endif
#if defined(START_TOOLS)
#include "postmortem-tools.h"
/* Referenced, so that --as-needed keeps the library among what is loaded. */
const char *(*volatile start_keep_tools)(pm_err) = pm_strerror;
#endif

static long
peak_rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

int
main(int argc, char **argv)
{
	(void)argv;
	struct timespec t0, t1;
	struct rusage r0, r1;
	getrusage(RUSAGE_SELF, &r0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
#if defined(START_INSTALL)
	if (pm_install(NULL) != 0)
		return 2;
#endif
#if defined(START_UPLOAD)
	pm_upload_options opt = { .url = "http://127.0.0.1:9/upload" };
	if (pm_upload_start(&opt) != 0)
		return 3;
#endif
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_SELF, &r1);
	if (argc > 1)
		printf("%.1f %ld %ld\n", (double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3,
		       r1.ru_minflt - r0.ru_minflt, peak_rss_kb());
	return 0;
}
