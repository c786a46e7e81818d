/*
 * render_cost.c — issue 14: the write phase's processor time.  Renders a
 * report through the crash path's writers (pmi_write_text, pmi_write_json)
 * and their sink with a 64 KiB buffer, as the handler does, side by side
 * with the floor: the same bytes copied in 64 KiB pieces (memcpy) to the
 * same place.  Twice: into memory (the writers' own time), and into a file
 * on tmpfs through write(2) (what the write phase does without a disk).
 *
 *   bench_render_cost [REPORT ...]
 *
 * Without arguments, the models are tests/fixture_many.c's of 1, 17, 257 and
 * 1025 threads of 35 frames; with arguments, the reports read from those
 * files (a crash_target report at 257 threads is the write phase's case),
 * their frames' symbols shared as the crash path shares them.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/text/text.h"
#include "formats/json/json.h"
#include "tests/fixture_many.h"
#include "timing.h"

enum { CHUNK = 64 * 1024, RUNS = 31 };

/* Where rendered bytes land: a region large enough for the whole file,
 * touched once beforehand so that no run pays its page faults; `at`
 * moves on as bytes arrive. */
typedef struct dest {
	char *base, *at, *end;
} dest;

static bool
to_dest(void *ctx, const char *p, size_t n)
{
	dest *d = ctx;
	bool fits = n <= (size_t)(d->end - d->at);
	if (fits) {
		memcpy(d->at, p, n);
		d->at += n;
	}
	return fits;
}

static pm_err
render(const pm_report *r, pm_format f, pm_out *o)
{
	return f == PM_FORMAT_TEXT ? pmi_write_text(r, o) : pmi_write_json(r, o);
}

static double
render_to_memory(const pm_report *r, pm_format f, char *buf, dest *d)
{
	pm_out o;
	pmi_out_init_buf(&o, buf, CHUNK);
	o.sink = to_dest;
	o.sink_ctx = d;
	d->at = d->base;
	double t = timing_now_us();
	if (render(r, f, &o) != PM_OK) {
		fprintf(stderr, "render_cost: the writer failed\n");
		exit(1);
	}
	return timing_now_us() - t;
}

/* The floor: the rendered bytes, copied as the sink copies them. */
static double
copy_to_memory(const char *src, size_t n, char *buf, dest *d)
{
	d->at = d->base;
	double t = timing_now_us();
	for (size_t at = 0; at < n; at += CHUNK) {
		size_t k = n - at < CHUNK ? n - at : CHUNK;
		memcpy(buf, src + at, k);
		to_dest(d, buf, k);
	}
	return timing_now_us() - t;
}

static int
fresh_file(const char *path)
{
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

static double
render_to_file(const pm_report *r, pm_format f, char *buf, const char *path)
{
	int fd = fresh_file(path);
	pm_out o;
	pmi_out_init_fd(&o, fd, buf, CHUNK);
	double t = timing_now_us();
	pm_err e = render(r, f, &o);
	t = timing_now_us() - t;
	close(fd);
	if (e != PM_OK) {
		fprintf(stderr, "render_cost: the writer failed on %s\n", path);
		exit(1);
	}
	return t;
}

static double
copy_to_file(const char *src, size_t n, char *buf, const char *path)
{
	int fd = fresh_file(path);
	double t = timing_now_us();
	for (size_t at = 0; at < n; at += CHUNK) {
		size_t k = n - at < CHUNK ? n - at : CHUNK;
		memcpy(buf, src + at, k);
		if (write(fd, buf, k) != (ssize_t)k) {
			perror(path);
			exit(1);
		}
	}
	t = timing_now_us() - t;
	close(fd);
	return t;
}

static void
row(const char *model, const char *format, size_t bytes, double *v[4])
{
	double q[4][2];
	for (int i = 0; i < 4; i++) {
		q[i][0] = timing_quantile(v[i], RUNS, 0) / 1e3;
		q[i][1] = timing_quantile(v[i], RUNS, 0.5) / 1e3;
	}
	printf("%-14.14s %-6s %9zu  %8.3f %8.3f  %8.3f %8.3f  %5.1fx  %6.2f  %8.3f %8.3f  %8.3f %8.3f  %5.2fx\n",
	       model, format, bytes, q[0][0], q[0][1], q[1][0], q[1][1], q[0][1] / q[1][1],
	       q[0][1] * 1e6 / (double)bytes, q[2][0], q[2][1], q[3][0], q[3][1], q[2][1] / q[3][1]);
}

static void
measure(const char *model, const pm_report *r)
{
	static const pm_format formats[] = { PM_FORMAT_TEXT, PM_FORMAT_JSON };
	static const char *const names[] = { ".crash", ".json" };
	char path[] = "/dev/shm/pm-render-cost.out";
	static char buf[CHUNK];
	for (int i = 0; i < 2; i++) {
		/* Sized from one rendering, then touched, so that runs fault no page in. */
		size_t most = (size_t)1 << 30;
		dest d = { .base = malloc(most) };
		d.end = d.base + most;
		render_to_memory(r, formats[i], buf, &d);
		size_t bytes = (size_t)(d.at - d.base);
		char *src = malloc(bytes);
		memcpy(src, d.base, bytes);
		d.end = d.base + bytes;
		memset(d.base, 0, bytes);
		double render_mem[RUNS], copy_mem[RUNS], render_file[RUNS], copy_file[RUNS];
		/* Alternated, so that the machine's noise falls on both alike. */
		for (int k = 0; k < RUNS; k++) {
			render_mem[k] = render_to_memory(r, formats[i], buf, &d);
			copy_mem[k] = copy_to_memory(src, bytes, buf, &d);
			render_file[k] = render_to_file(r, formats[i], buf, path);
			copy_file[k] = copy_to_file(src, bytes, buf, path);
		}
		double *v[4] = { render_mem, copy_mem, render_file, copy_file };
		row(model, names[i], bytes, v);
		free(src);
		free(d.base);
	}
	unlink(path);
}

/* One copy of each distinct frame symbol, as the crash path's model has
 * them (as_symbols.c names every frame of a symbol with one copy); a
 * report read back from a file has a copy per frame. */
static void
share_symbols(pm_report *r)
{
	enum { DISTINCT = 4096 };
	static const char *seen[DISTINCT];
	size_t n = 0;
	for (uint32_t t = 0; t < r->thread_count; t++) {
		for (uint32_t i = 0; i < r->threads[t].frame_count; i++) {
			pm_frame *f = &r->threads[t].frames[i];
			if (!f->symbol)
				continue;
			size_t k = 0;
			while (k < n && strcmp(seen[k], f->symbol) != 0)
				k++;
			if (k == n && n < DISTINCT)
				seen[n++] = f->symbol;
			if (k < n)
				f->symbol = seen[k];
		}
	}
}

int
main(int argc, char **argv)
{
	printf("ms, min and median of %d runs; ns/B: the writer's median per byte\n", RUNS);
	printf("%-14s %-6s %9s  %17s  %17s  %6s  %6s  %17s  %17s  %6s\n", "model", "file", "bytes",
	       "render to memory", "memcpy (floor)", "ratio", "ns/B", "render to tmpfs", "write(2) tmpfs",
	       "ratio");
	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			pm_report r;
			pm_report_init(&r);
			pm_err e = pm_read_report_file(argv[i], &r, NULL);
			if (e != PM_OK) {
				fprintf(stderr, "render_cost: %s: cannot read the report (%d)\n", argv[i], (int)e);
				return 1;
			}
			share_symbols(&r);
			const char *base = strrchr(argv[i], '/');
			measure(base ? base + 1 : argv[i], &r);
			pm_report_free(&r);
		}
		return 0;
	}
	static const uint32_t threads[] = { 1, 17, 257, 1025 };
	for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
		pm_report r;
		pm_report_init(&r);
		if (!pm_fixture_many(&r, threads[i], 35)) {
			fprintf(stderr, "render_cost: out of memory\n");
			return 1;
		}
		char model[32];
		snprintf(model, sizeof model, "many %u", threads[i]);
		measure(model, &r);
		pm_report_free(&r);
	}
	return 0;
}
