/*
 * group_reports.c — what bench/group_cost.py measures crash groups on.
 *
 *   bench_group_reports write REPORT DIR N GROUPS
 *       DIR/pending/ filled with N copies of REPORT (any format), each its
 *       own incident, a minute apart, crashing in one of GROUPS sites (its
 *       first frame renamed site_<i % GROUPS>), each carrying its group as
 *       the crash handler writes it: both files, as the handler leaves them.
 *   bench_group_reports time ITERATIONS REPORT...
 *       for each report, a line "µs NAME": the median time of one signature
 *       and title computed from its frames (pmi_group_compute, what the crash
 *       handler and every reader of a report without one run), over
 *       ITERATIONS rounds.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/timing.h"
#include "formats/group/group.h"
#include "postmortem-tools.h"

static void
read_or_die(const char *path, pm_report *r)
{
	pm_read_error err = { 0 };
	pm_report_init(r);
	if (pm_read_report_file(path, r, &err) != PM_OK) {
		fprintf(stderr, "%s: line %u: %s\n", path, err.line, err.message);
		exit(1);
	}
}

static void
write_file(const char *path, const pm_report *r, pm_format f)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || pm_write_report_fd(r, f, fd) != PM_OK || close(fd) != 0) {
		perror(path);
		exit(1);
	}
}

static int
write_reports(const char *source, const char *dir, long n, long groups)
{
	pm_report r;
	read_or_die(source, &r);
	int32_t k = pm_report_crashed_thread(&r);
	if (k < 0 || r.threads[k].frame_count == 0) {
		fprintf(stderr, "%s: no crashed thread with frames\n", source);
		return 1;
	}
	char path[4096], id[64], site[32];
	snprintf(path, sizeof path, "%s/pending", dir);
	mkdir(dir, 0700);
	mkdir(path, 0700);
	int64_t start = r.header.time.set ? r.header.time.sec : 1700000000;
	char *room = pm_report_alloc(&r, PM_SIGNATURE_LEN + 1 + PM_TITLE_MAX, 1);
	for (long i = 0; i < n; i++) {
		snprintf(id, sizeof id, "BENCH-%08ld", i);
		snprintf(site, sizeof site, "site_%ld", i % groups);
		r.header.incident_id = id;
		r.header.time.sec = start + 60 * i;
		r.header.time.set = true;
		r.threads[k].frames[0].symbol = site;
		r.complete = true;
		r.signature = NULL;
		pmi_group_compute(&r, room, room + PM_SIGNATURE_LEN + 1);
		r.signature = room;
		r.title = room + PM_SIGNATURE_LEN + 1;
		snprintf(path, sizeof path, "%s/pending/%s.crash", dir, id);
		write_file(path, &r, PM_FORMAT_TEXT);
		snprintf(path, sizeof path, "%s/pending/%s.json", dir, id);
		write_file(path, &r, PM_FORMAT_JSON);
	}
	r.header.incident_id = NULL;
	pm_report_free(&r);
	return 0;
}

static int
time_reports(long iterations, char **paths, int n)
{
	double *v = malloc((size_t)iterations * sizeof *v);
	if (!v)
		return 1;
	for (int p = 0; p < n; p++) {
		pm_report r;
		read_or_die(paths[p], &r);
		char sig[PM_SIGNATURE_LEN + 1], title[PM_TITLE_MAX];
		uint32_t frames = 0;
		int32_t k = pm_report_crashed_thread(&r);
		if (k >= 0)
			frames = r.threads[k].frame_count;
		for (long i = 0; i < iterations; i++) {
			double t0 = timing_now_us();
			pmi_group_compute(&r, sig, title);
			v[i] = timing_now_us() - t0;
		}
		const char *base = strrchr(paths[p], '/');
		printf("%.2f %.2f %u %s %s\n", timing_quantile(v, (size_t)iterations, 0.5),
		       timing_quantile(v, (size_t)iterations, 0.99), frames, base ? base + 1 : paths[p], title);
		pm_report_free(&r);
	}
	free(v);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "write") == 0)
		return write_reports(argv[2], argv[3], atol(argv[4]), atol(argv[5]) > 0 ? atol(argv[5]) : 1);
	if (argc >= 4 && strcmp(argv[1], "time") == 0 && atol(argv[2]) > 0)
		return time_reports(atol(argv[2]), argv + 3, argc - 3);
	fprintf(stderr, "usage: bench_group_reports write REPORT DIR N GROUPS | time ITERATIONS REPORT...\n");
	return 2;
}
