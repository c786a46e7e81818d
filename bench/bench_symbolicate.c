/*
 * bench_symbolicate.c — pm_symbolicate against addr2line, eu-addr2line and
 * llvm-symbolizer-14 on the same addresses (issue 5).
 *
 *   bench_symbolicate [N [LIB...]]   (default: 100000 addresses, libc and libdb-5.3)
 *
 * Every contender runs as a child process reading the addresses from a file:
 * the tools once per library (-e/--obj), postmortem once for a report
 * holding frames in both (this program re-run with --ours, which builds the
 * report, calls pm_symbolicate and prints the frames).  Measured: addresses
 * per second (spawn to exit), time to the first answer (separate runs with
 * one address, spawn to first output byte, the median of five, as a loaded
 * machine makes single short runs jump), peak memory (ru_maxrss), and the
 * answers identical to llvm-symbolizer's: function, file and line of every
 * frame of the inline chain.  Differences are sorted into classes, with
 * examples (docs/symbolication.md explains them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symb_bench.h"
#include "timing.h"

enum { MAX_LIBS = 8, FIRST_RUNS = 5 };
static const char *const default_libs[] = {
	"/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/usr/lib/x86_64-linux-gnu/libdb-5.3.so",
};

/* ---- the child: postmortem on the whole list ---------------------------- */

static void
print_answers(const pm_thread *t)
{
	char *answer = NULL;
	for (uint32_t i = 0; i < t->frame_count; i++) {
		const pm_frame *f = &t->frames[i];
		answer = sb_frame_text(answer, f->symbol, f->file, f->line);
		if (!f->inlined) {
			puts(answer);
			free(answer);
			answer = NULL;
		}
	}
}

static int
run_ours(const char *addr_path, char **lib_paths, int nlibs)
{
	pm_report r;
	pm_report_init(&r);
	r.os = PM_OS_LINUX;
	r.images = pm_report_alloc(&r, (size_t)nlibs * sizeof *r.images, 8);
	for (int i = 0; i < nlibs; i++) {
		sb_lib l;
		if (!sb_lib_open(&l, lib_paths[i], 0x7f0000000000 + ((uint64_t)i << 36)))
			return 1;
		pm_image *im = &r.images[r.image_count++];
		*im = (pm_image){ .start = l.base, .size = l.size, .path = l.path, .name = strrchr(l.path, '/') + 1 };
		memcpy(im->build_id, l.build_id, l.build_id_len);
		im->build_id_len = (uint8_t)l.build_id_len;
	}
	FILE *in = fopen(addr_path, "r");
	size_t cap = 1024, n = 0;
	pm_frame *frames = malloc(cap * sizeof *frames);
	unsigned lib;
	unsigned long long vaddr;
	while (in && frames && fscanf(in, "%u %llx", &lib, &vaddr) == 2 && (int)lib < nlibs) {
		if (n == cap)
			frames = realloc(frames, (cap *= 2) * sizeof *frames);
		/* "context": each address is an exact pc, looked up as given, as the tools do. */
		frames[n++] = (pm_frame){ .address = r.images[lib].start + vaddr, .image = (int32_t)lib,
		                          .how = PM_HOW_CONTEXT };
	}
	if (in)
		fclose(in);
	pm_thread t = { .frames = frames, .frame_count = (uint32_t)n };
	r.threads = &t;
	r.thread_count = 1;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pm_err e = pm_symbolicate(&r, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (e != PM_OK)
		return 1;
	print_answers(&t);
	printf("#internal %.6f\n", (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	r.threads = NULL;
	r.thread_count = 0;
	free(frames);
	pm_report_free(&r);
	return 0;
}

/* ---- the parent ----------------------------------------------------------- */

typedef struct contender {
	const char *name;
	sb_style style;
	const char *argv[8];     /* "LIB" stands for the library */
	double wall_s, first_s;
	long maxrss_kb;
	char **answers;
	bool ran;
} contender;

typedef struct bench {
	sb_lib libs[MAX_LIBS];
	int nlibs;
	sb_addr *addrs;
	size_t n;
	char *dir;               /* temporary files */
	char self[4096];
	double internal_s;
} bench;

static char *
path_in(const bench *b, const char *name)
{
	char *p;
	return asprintf(&p, "%s/%s", b->dir, name) < 0 ? NULL : p;
}

/* Input files: all.txt (lib vaddr), libK.txt (vaddr per library), first.txt and firstK.txt (the first address). */
static void
write_inputs(const bench *b)
{
	char name[32];
	char *all = path_in(b, "all.txt"), *first = path_in(b, "first.txt");
	FILE *fa = fopen(all, "w"), *ff = fopen(first, "w");
	fprintf(ff, "%u %llx\n", b->addrs[0].lib, (unsigned long long)b->addrs[0].vaddr);
	for (size_t i = 0; i < b->n; i++)
		fprintf(fa, "%u %llx\n", b->addrs[i].lib, (unsigned long long)b->addrs[i].vaddr);
	fclose(fa);
	fclose(ff);
	free(all);
	free(first);
	for (int k = 0; k < b->nlibs; k++) {
		snprintf(name, sizeof name, "lib%d.txt", k);
		char *p = path_in(b, name);
		FILE *f = fopen(p, "w");
		for (size_t i = 0; i < b->n; i++)
			if (b->addrs[i].lib == (uint32_t)k)
				fprintf(f, "0x%llx\n", (unsigned long long)b->addrs[i].vaddr);
		fclose(f);
		free(p);
		snprintf(name, sizeof name, "first%d.txt", k);
		p = path_in(b, name);
		f = fopen(p, "w");
		fprintf(f, "0x%llx\n", (unsigned long long)b->addrs[0].vaddr);
		fclose(f);
		free(p);
	}
}

static bool
run_tool(const bench *b, const contender *c, int lib, const char *input, sb_proc *p)
{
	char *argv[8] = { 0 };
	int n = 0;
	for (; c->argv[n]; n++) {
		const char *a = c->argv[n];
		size_t len = strlen(a);
		bool is_lib = len >= 3 && strcmp(a + len - 3, "LIB") == 0;
		if (asprintf(&argv[n], "%.*s%s", (int)(is_lib ? len - 3 : len), a, is_lib ? b->libs[lib].path : "") < 0)
			return false;
	}
	char *in = path_in(b, input);
	bool ok = sb_run(argv, in, p);
	free(in);
	while (n-- > 0)
		free(argv[n]);
	return ok;
}

static void
measure_tool(const bench *b, contender *c)
{
	char name[32];
	size_t *index = malloc(b->n * sizeof *index);
	c->ran = true;
	for (int k = 0; k < b->nlibs && c->ran; k++) {
		size_t count = 0;
		for (size_t i = 0; i < b->n; i++)
			if (b->addrs[i].lib == (uint32_t)k)
				index[count++] = i;
		sb_proc p;
		snprintf(name, sizeof name, "lib%d.txt", k);
		c->ran = run_tool(b, c, k, name, &p);
		c->wall_s += p.wall_s;
		c->maxrss_kb = p.maxrss_kb > c->maxrss_kb ? p.maxrss_kb : c->maxrss_kb;
		if (c->ran)
			sb_parse(c->style, p.out, p.len, c->answers, index, count);
		free(p.out);
	}
	free(index);
}

static void
read_ours(bench *b, contender *c, const char *out)
{
	size_t k = 0;
	for (const char *s = out; *s && k <= b->n;) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		if (strncmp(s, "#internal ", 10) == 0)
			b->internal_s = strtod(s + 10, NULL);
		else if (k < b->n)
			c->answers[k++] = strndup(s, n);
		s += n + (nl != NULL);
	}
}

/* This program again, in --ours mode, on an input file. */
static bool
run_ours_child(const bench *b, const char *input, sb_proc *p)
{
	char *in = path_in(b, input);
	char *argv[4 + MAX_LIBS] = { (char *)b->self, "--ours", in, NULL };
	for (int k = 0; k < b->nlibs; k++)
		argv[3 + k] = (char *)b->libs[k].path;
	bool ok = sb_run(argv, in, p);
	free(in);
	return ok;
}

static void
measure_ours(bench *b, contender *c)
{
	sb_proc p;
	c->ran = run_ours_child(b, "all.txt", &p);
	c->wall_s = p.wall_s;
	c->maxrss_kb = p.maxrss_kb;
	if (c->ran)
		read_ours(b, c, p.out);
	free(p.out);
}

/* One run with the first address alone: the time to its answer, or -1. */
static double
first_answer(const bench *b, const contender *c, bool ours)
{
	sb_proc p;
	bool ok;
	if (ours) {
		ok = run_ours_child(b, "first.txt", &p);
	} else {
		char name[32];
		snprintf(name, sizeof name, "first%u.txt", b->addrs[0].lib);
		ok = run_tool(b, c, (int)b->addrs[0].lib, name, &p);
	}
	free(p.out);
	return ok ? p.first_s : -1;
}

/* Rounds of one first-answer run per contender, so that a busy moment of the
 * machine hits them all alike; each keeps its median. */
static void
measure_first_answers(const bench *b, contender *cs, int ncs)
{
	double t[8][FIRST_RUNS];
	for (int r = 0; r < FIRST_RUNS; r++)
		for (int i = 0; i < ncs; i++)
			t[i][r] = cs[i].ran ? first_answer(b, &cs[i], i == 0) : -1;
	for (int i = 0; i < ncs; i++) {
		cs[i].first_s = timing_quantile(t[i], FIRST_RUNS, 0.5);
		cs[i].ran &= cs[i].first_s >= 0;
	}
}

static void
label(size_t i, void *ctx, char *buf, size_t len)
{
	const bench *b = ctx;
	snprintf(buf, len, "%s 0x%llx", strrchr(b->libs[b->addrs[i].lib].path, '/') + 1,
	         (unsigned long long)b->addrs[i].vaddr);
}

static double
agreement(const bench *b, const contender *c, const contender *ref, bool explain)
{
	const sb_side x = { c->name, c->answers }, y = { ref->name, ref->answers };
	return sb_agreement(&x, &y, b->n, explain ? label : NULL, (void *)b);
}

/* ---- the table ------------------------------------------------------------ */

static void
print_table(const bench *b, contender *cs, int ncs)
{
	const contender *ours = &cs[0], *ref = &cs[1];
	printf("\n%-20s %12s %7s %13s %7s %10s %7s %10s\n", "symbolizer", "addresses/s", "x", "first answer", "x",
	       "peak RSS", "x", "= llvm");
	for (int i = 0; i < ncs; i++) {
		const contender *c = &cs[i];
		if (!c->ran) {
			printf("%-20s (could not run)\n", c->name);
			continue;
		}
		double rate = (double)b->n / c->wall_s;
		printf("%-20s %12.0f %7.2f %10.1f ms %7.2f %6.1f MiB %7.2f %9.2f%%\n", c->name, rate,
		       c->wall_s / ours->wall_s, c->first_s * 1e3, c->first_s / ours->first_s, (double)c->maxrss_kb / 1024,
		       (double)c->maxrss_kb / (double)ours->maxrss_kb, ref->ran ? agreement(b, c, ref, false) : 0);
	}
	printf("\nx: postmortem's rate over each one's (addresses/s), each one's time or memory\n"
	       "over postmortem's: above 1 means postmortem is faster or smaller.\n"
	       "pm_symbolicate alone (no process start, input or output): %.3f s, %.0f addresses/s\n",
	       b->internal_s, b->internal_s > 0 ? (double)b->n / b->internal_s : 0);
	for (int i = 0; i < ncs && ref->ran; i++) {
		if (&cs[i] == ref || !cs[i].ran)
			continue;
		printf("\n%s against %s, answers that differ:\n", cs[i].name, ref->name);
		agreement(b, &cs[i], ref, true);
	}
}

static bool
setup(bench *b, int argc, char **argv)
{
	b->n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	const char *const *paths = argc > 2 ? (const char *const *)argv + 2 : default_libs;
	b->nlibs = argc > 2 ? argc - 2 : 2;
	if (b->n == 0 || b->nlibs > MAX_LIBS)
		return false;
	for (int i = 0; i < b->nlibs; i++)
		if (!sb_lib_open(&b->libs[i], paths[i], 0))
			return false;
	b->addrs = sb_addrs_make(b->libs, (size_t)b->nlibs, b->n, 0x5eed5eed5eedull);
	ssize_t len = readlink("/proc/self/exe", b->self, sizeof b->self - 1);
	char tmpl[] = "/tmp/pm-bench-symb-XXXXXX";
	if (!b->addrs || len <= 0 || !mkdtemp(tmpl))
		return false;
	b->self[len] = '\0';
	b->dir = strdup(tmpl);
	write_inputs(b);
	return true;
}

int
main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "--ours") == 0)
		return run_ours(argv[2], argv + 3, argc - 3);
	bench b = { 0 };
	if (!setup(&b, argc, argv)) {
		fprintf(stderr, "bench_symbolicate: cannot set up (libraries and their debug files, see above)\n");
		return 77;
	}
	contender cs[] = {
		{ .name = "postmortem" },
		{ .name = "llvm-symbolizer-14", .style = SB_LLVM,
		  .argv = { "llvm-symbolizer-14", "--obj=LIB", "--inlining", "--demangle", "--print-address",
		            "--output-style=LLVM" } },
		{ .name = "addr2line", .style = SB_GNU, .argv = { "addr2line", "-f", "-i", "-C", "-a", "-e", "LIB" } },
		{ .name = "eu-addr2line", .style = SB_ELFUTILS,
		  .argv = { "eu-addr2line", "-f", "-i", "-C", "-a", "-e", "LIB" } },
	};
	int ncs = (int)(sizeof cs / sizeof cs[0]);
	printf("symbolicate: %zu addresses inside functions of", b.n);
	for (int i = 0; i < b.nlibs; i++)
		printf(" %s%s", b.libs[i].path, i + 1 < b.nlibs ? "," : "");
	printf("\n(debug information found by build id; inline chains on; one run each)\n");
	for (int i = 0; i < ncs; i++) {
		cs[i].answers = calloc(b.n, sizeof *cs[i].answers);
		if (i == 0)
			measure_ours(&b, &cs[i]);
		else
			measure_tool(&b, &cs[i]);
		fprintf(stderr, "%s: %.2f s\n", cs[i].name, cs[i].wall_s);
	}
	measure_first_answers(&b, cs, ncs);
	print_table(&b, cs, ncs);
	char *cmd;
	if (asprintf(&cmd, "rm -rf '%s'", b.dir) > 0 && system(cmd) != 0)
		fprintf(stderr, "bench_symbolicate: could not remove %s\n", b.dir);
	return cs[0].ran ? 0 : 1;
}
