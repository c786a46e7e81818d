/*
 * table_cost.c — symbolicating many reports with and without the
 * pre-parsed table (`postmortem symbols build`), against llvm-symbolizer-14
 * run once per report, as a server handling reports one by one would (issue 18).
 *
 *   bench_table_cost DSYM_DWARF [REPORTS [FRAMES]]   (default: 1000 reports of 16 frames)
 *
 * Two debug files: the dSYM of the tests' arm64 program (DSYM_DWARF, a
 * dsymutil --flat file; small: two functions) and libc's debug file
 * (libc6-dbg, 5 MB of compressed DWARF).  Each report has one thread whose
 * frames are exact pcs drawn from the table's ranges that have an answer,
 * the same for every contender.  postmortem runs in this process, a
 * pm_symbolicate per report, reading the DWARF each time, then the table;
 * llvm-symbolizer runs as a child per report with that report's addresses.
 * Answers compared: function, file and line of every frame of each chain.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/symb_bench.h"
#include "symbolicate/symb.h"

typedef struct target {
	const char *label;
	const char *debug;       /* the file llvm-symbolizer reads */
	pm_image img;
	bool darwin;
	const char *dwarf_dir;   /* debug dir holding its dSYM bundle (NULL: found by build id) */
	char table_dir[64];
	double build_s;
} target;

static double
now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Exact pcs (link-time) drawn from the table's ranges with an answer. */
static uint64_t *
draw_pcs(const char *table_path, size_t n, uint64_t *base)
{
	pm_sy_table t;
	char why[256];
	if (pmi_sy_table_open(&t, table_path, why, sizeof why) != 0) {
		fprintf(stderr, "%s: %s\n", table_path, why);
		return NULL;
	}
	*base = t.base;
	uint64_t *pcs = malloc(n * sizeof *pcs);
	srand(18);
	for (size_t i = 0; pcs && i < n;) {
		size_t r = (size_t)rand() % (t.range_count - 1);
		const unsigned char *g = t.ranges + r * PM_SY_TABLE_RANGE;
		uint64_t lo, hi;
		uint32_t count;
		memcpy(&lo, g, 8);
		memcpy(&hi, g + PM_SY_TABLE_RANGE, 8);
		memcpy(&count, g + 12, 4);
		if (count && hi > lo)
			pcs[i++] = lo + (uint64_t)rand() % (hi - lo);
	}
	pmi_sy_table_close(&t);
	return pcs;
}

static char *
chain_text(const pm_thread *t, uint32_t *i)
{
	char *answer = NULL;
	for (; *i < t->frame_count; (*i)++) {
		const pm_frame *f = &t->frames[*i];
		answer = sb_frame_text(answer, f->symbol, f->file, f->line);
		if (!f->inlined)
			break;
	}
	(*i)++;
	return answer;
}

/* pm_symbolicate on each report; the answers in order.  Seconds. */
static double
run_ours(const target *tg, const uint64_t *pcs, uint64_t base, size_t reports, size_t frames, const char *dir,
         char **answers)
{
	const char *dirs[] = { dir };
	pm_symbolicate_options opt = { .debug_dirs = dirs, .debug_dir_count = dir ? 1 : 0 };
	pm_frame *fr = calloc(frames, sizeof *fr);
	double t0 = now();
	for (size_t k = 0; k < reports; k++) {
		pm_report r;
		pm_report_init(&r);
		r.os = tg->darwin ? PM_OS_DARWIN : PM_OS_LINUX;
		pm_image im = tg->img;
		r.images = &im;
		r.image_count = 1;
		for (size_t i = 0; i < frames; i++)
			fr[i] = (pm_frame){ .address = pcs[k * frames + i] - base + im.start, .how = PM_HOW_CONTEXT };
		pm_thread th = { .frames = fr, .frame_count = (uint32_t)frames };
		r.threads = &th;
		r.thread_count = 1;
		if (pm_symbolicate(&r, &opt) != PM_OK || (k == 0 && !im.debug_file))
			fprintf(stderr, "%s: not symbolicated: %s\n", tg->label, im.note ? im.note : "");
		uint32_t at = 0;
		for (size_t i = 0; i < frames; i++)
			answers[k * frames + i] = chain_text(&th, &at);
		r.images = NULL;
		r.image_count = 0;
		r.threads = NULL;
		r.thread_count = 0;
		pm_report_free(&r);
	}
	double s = now() - t0;
	free(fr);
	return s;
}

/* llvm-symbolizer-14 once per report.  Seconds. */
static double
run_llvm(const target *tg, const uint64_t *pcs, size_t reports, size_t frames, char **answers)
{
	char in[] = "/tmp/pm-table-cost-XXXXXX", obj[4200];
	int fd = mkstemp(in);
	close(fd);
	snprintf(obj, sizeof obj, "--obj=%s", tg->debug);
	char *argv[] = { "llvm-symbolizer-14", obj, "--inlining", "--demangle", "--print-address",
		         "--output-style=LLVM", NULL };
	size_t *index = malloc(frames * sizeof *index);
	double total = 0;
	for (size_t k = 0; k < reports; k++) {
		FILE *f = fopen(in, "w");
		for (size_t i = 0; i < frames; i++) {
			fprintf(f, "0x%llx\n", (unsigned long long)pcs[k * frames + i]);
			index[i] = k * frames + i;
		}
		fclose(f);
		sb_proc p;
		if (!sb_run(argv, in, &p)) {
			fprintf(stderr, "llvm-symbolizer-14 failed\n");
			break;
		}
		total += p.wall_s;
		sb_parse(SB_LLVM, p.out, p.len, answers, index, frames);
		free(p.out);
	}
	unlink(in);
	free(index);
	return total;
}

static void
report_target(target *tg, size_t reports, size_t frames)
{
	char msg[4096], hex[2 * PM_BUILD_ID_MAX + 1], path[4200];
	double t0 = now();
	if (pm_symbols_build(tg->debug, tg->table_dir, msg, sizeof msg) != PM_OK) {
		fprintf(stderr, "%s: %s\n", tg->debug, msg);
		return;
	}
	tg->build_s = now() - t0;
	pmi_sy_hex(tg->img.build_id, tg->img.build_id_len, hex);
	snprintf(path, sizeof path, "%s/%s.pmsym", tg->table_dir, hex);
	size_t n = reports * frames;
	uint64_t base;
	uint64_t *pcs = draw_pcs(path, n, &base);
	if (!pcs)
		return;
	char **dwarf = calloc(n, sizeof *dwarf), **table = calloc(n, sizeof *table), **llvm = calloc(n, sizeof *llvm);
	double s_dwarf = run_ours(tg, pcs, base, reports, frames, tg->dwarf_dir, dwarf);
	double s_table = run_ours(tg, pcs, base, reports, frames, tg->table_dir, table);
	double s_llvm = run_llvm(tg, pcs, reports, frames, llvm);
	sb_side a = { "table", table }, b = { "dwarf", dwarf }, c = { "llvm-symbolizer-14", llvm };
	printf("\n%s: %zu reports of %zu frames (table built in %.3f s)\n", tg->label, reports, frames, tg->build_s);
	printf("| symbolizer | per report | table faster by | identical to llvm-symbolizer |\n");
	printf("|---|---:|---:|---:|\n");
	printf("| postmortem, table | %.3f ms | — | %.2f %% |\n", s_table * 1e3 / (double)reports,
	       sb_agreement(&a, &c, n, NULL, NULL));
	printf("| postmortem, DWARF | %.3f ms | %.1f× | %.2f %% |\n", s_dwarf * 1e3 / (double)reports,
	       s_dwarf / s_table, sb_agreement(&b, &c, n, NULL, NULL));
	printf("| llvm-symbolizer-14, a process per report | %.3f ms | %.1f× | — |\n",
	       s_llvm * 1e3 / (double)reports, s_llvm / s_table);
	printf("table and DWARF answers identical: %.2f %%\n", sb_agreement(&a, &b, n, NULL, NULL));
	for (size_t i = 0; i < n; i++) {
		free(dwarf[i]);
		free(table[i]);
		free(llvm[i]);
	}
	free(dwarf);
	free(table);
	free(llvm);
	free(pcs);
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_table_cost DSYM_DWARF [REPORTS [FRAMES]]\n");
		return 2;
	}
	size_t reports = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
	size_t frames = argc > 3 ? strtoul(argv[3], NULL, 10) : 16;
	elf_version(EV_CURRENT);

	/* The dSYM, found by UUID in a directory holding it as a bundle. */
	target mo = { .label = "dSYM (tests' arm64 program)", .debug = argv[1], .darwin = true };
	char bundle[] = "/tmp/pm-table-dsym-XXXXXX";
	pm_sy_map map;
	pm_sy_macho m;
	if (!mkdtemp(bundle) || pmi_sy_map_file(argv[1], &map) != 0 ||
	    pmi_sy_macho_read(map.data, map.len, "arm64", NULL, &m) != 0) {
		fprintf(stderr, "%s: not a Mach-O file\n", argv[1]);
		return 1;
	}
	mo.img = (pm_image){ .name = "prog", .arch = "arm64", .start = 0x104900000, .size = 1 << 20,
	                     .build_id_len = 16 };
	memcpy(mo.img.build_id, m.uuid, 16);
	pmi_sy_unmap(&map);
	char cmd[8400], real[4096];
	if (!realpath(argv[1], real))
		return 1;
	snprintf(cmd, sizeof cmd, "mkdir -p %s/prog.dSYM/Contents/Resources/DWARF && ln -s '%s' %s/prog.dSYM/Contents/Resources/DWARF/prog",
	         bundle, real, bundle);
	if (system(cmd) != 0)
		return 1;
	mo.dwarf_dir = bundle;
	strcpy(mo.table_dir, "/tmp/pm-table-XXXXXX");
	if (!mkdtemp(mo.table_dir))
		return 1;
	report_target(&mo, reports, frames);

	/* libc: its debug file by build id, as a Linux report's image. */
	sb_lib libc;
	if (!sb_lib_open(&libc, "/usr/lib/x86_64-linux-gnu/libc.so.6", 0x7f0000000000))
		return 1;
	target elf = { .label = "ELF (libc.so.6, libc6-dbg)", .debug = libc.debug_path };
	/* No path: the debug file gives the symbols too, as it does to the table and to llvm-symbolizer. */
	elf.img = (pm_image){ .name = "libc.so.6", .start = libc.base, .size = libc.size,
	                      .build_id_len = (uint8_t)libc.build_id_len };
	memcpy(elf.img.build_id, libc.build_id, libc.build_id_len);
	strcpy(elf.table_dir, "/tmp/pm-table-XXXXXX");
	if (!mkdtemp(elf.table_dir))
		return 1;
	report_target(&elf, reports, frames);

	snprintf(cmd, sizeof cmd, "rm -rf %s %s %s", bundle, mo.table_dir, elf.table_dir);
	return system(cmd) == 0 ? 0 : 1;
}
