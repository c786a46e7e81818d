/*
 * core_show.c — print what the core reader finds in a core, for the tests
 * to hold against gdb on the same core.
 *
 *   core_show CORE [ADDR...]            a core file (pread)
 *   core_show - [ADDR...]               a core stream on stdin
 *   core_show --probe DIR PID           run by the kernel as the core_pattern
 *                                       handler: the stream on stdin, teed to
 *                                       DIR/PID.core, what was found in
 *                                       DIR/PID.txt, /proc/PID/mem as the
 *                                       live source, and each thread's stack
 *                                       read both from what the stream kept
 *                                       and from /proc/PID/mem
 *   core_show --probe-notes DIR PID     the same, but the stream read only as
 *                                       far as its notes ("head BYTES"), each
 *                                       stack read from /proc/PID/mem alone,
 *                                       then the rest teed ("rest BYTES"), and
 *                                       the stacks compared with the teed core
 *                                       read as a file
 *
 * Lines: "arch A", "pid P", "comm C", "fault SIGNO CODE ADDR", "threads N",
 * then per thread "thread TID pc PC sp SP signal S fpregs BYTES" and
 * "reg TID NAME VALUE", "maps N", "map START END OFFSET PATH", and per
 * address "mem ADDR WORD" or "mem ADDR unreadable"; a probe ends with
 * "rss KIB", its peak resident memory.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "corefile/core.h"
#include "corefile/core_internal.h"

static const char *const x86_names[PM_CORE_X86_64_NGREG] = {
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rdi", "rsi", "rbp", "rbx",
	"rdx", "rax", "rcx", "rsp", "rip", "eflags", "csgsfs", "err", "trapno", "oldmask", "cr2",
};

static void
show(FILE *f, pm_core *c, int naddr, char **addrs)
{
	fprintf(f, "arch %s\n", pmi_core_arch_name(c->arch));
	if (c->has_psinfo)
		fprintf(f, "pid %d\ncomm %s\nuid %u\nargs %s\n", c->psinfo.pid, c->psinfo.fname, c->psinfo.uid,
		        c->psinfo.args);
	if (c->has_siginfo)
		fprintf(f, "fault %d %d 0x%" PRIx64 "\n", c->siginfo.signo, c->siginfo.code, c->siginfo.addr);
	fprintf(f, "threads %zu\n", c->nthreads);
	for (size_t i = 0; i < c->nthreads; i++) {
		const pm_core_thread *t = &c->threads[i];
		fprintf(f, "thread %d pc 0x%" PRIx64 " sp 0x%" PRIx64 " signal %d fpregs %u\n", t->tid, t->pc, t->sp,
		        t->signal, t->fpregs_len);
		if (c->arch == PM_CORE_ARCH_X86_64)
			for (int r = 0; r < PM_CORE_X86_64_NGREG; r++)
				fprintf(f, "reg %d %s 0x%" PRIx64 "\n", t->tid, x86_names[r], t->mc.x86_64.gregs[r]);
		else {
			for (int r = 0; r < 31; r++)
				fprintf(f, "reg %d x%d 0x%" PRIx64 "\n", t->tid, r, t->mc.aarch64.regs[r]);
			fprintf(f, "reg %d sp 0x%" PRIx64 "\nreg %d pc 0x%" PRIx64 "\nreg %d pstate 0x%" PRIx64 "\n", t->tid,
			        t->mc.aarch64.sp, t->tid, t->mc.aarch64.pc, t->tid, t->mc.aarch64.pstate);
		}
	}
	fprintf(f, "maps %zu\n", c->nmaps);
	for (size_t i = 0; i < c->nmaps; i++)
		fprintf(f, "map 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64 " %s\n", c->maps[i].start, c->maps[i].end,
		        c->maps[i].offset, c->maps[i].path);
	for (int i = 0; i < naddr; i++) {
		uint64_t a = strtoull(addrs[i], NULL, 0), w;
		if (pmi_core_mem_read(c, a, &w, sizeof w))
			fprintf(f, "mem 0x%" PRIx64 " 0x%" PRIx64 "\n", a, w);
		else
			fprintf(f, "mem 0x%" PRIx64 " unreadable\n", a);
	}
}

static bool
tee_to(void *ctx, const void *buf, size_t n)
{
	return fwrite(buf, 1, n, ctx) == n;
}

/* Each thread's first stack words through what the stream kept, and through /proc/PID/mem. */
static void
compare_stacks(FILE *f, pm_core *c, int mem_fd)
{
	for (size_t i = 0; i < c->nthreads; i++) {
		uint64_t kept[64], live[64];
		c->src->mem_fd = -1;
		bool k = pmi_core_mem_read(c, c->threads[i].sp, kept, sizeof kept);
		c->src->mem_fd = mem_fd;
		bool l = pmi_core_mem_read(c, c->threads[i].sp, live, sizeof live);
		fprintf(f, "stack %d kept %s live %s same %s\n", c->threads[i].tid, k ? "yes" : "no", l ? "yes" : "no",
		        k && l && memcmp(kept, live, sizeof kept) == 0 ? "yes" : "no");
	}
}

static long
peak_kib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

enum { STACK_WORDS = 64 };

/* Each thread's first stack words through /proc/PID/mem alone (a core read
 * to its notes keeps nothing), then from the teed core read as a file. */
static void
stacks_live_then_file(FILE *f, pm_core *c, const char *core_path)
{
	uint64_t(*live)[STACK_WORDS] = calloc(c->nthreads, sizeof *live);
	bool *ok = calloc(c->nthreads, sizeof *ok);
	for (size_t i = 0; i < c->nthreads; i++)
		ok[i] = pmi_core_mem_read(c, c->threads[i].sp, live[i], sizeof live[i]);
	pm_core_options opt = { .mem_fd = -1 };
	pm_core *file;
	char why[256];
	if (pmi_core_open(core_path, &opt, &file, why, sizeof why) != PM_OK) {
		fprintf(f, "error the teed core: %s\n", why);
		return;
	}
	for (size_t i = 0; i < c->nthreads; i++) {
		uint64_t kept[STACK_WORDS];
		bool k = pmi_core_mem_read(file, c->threads[i].sp, kept, sizeof kept);
		fprintf(f, "stack %d kept %s live %s same %s\n", c->threads[i].tid, k ? "yes" : "no", ok[i] ? "yes" : "no",
		        k && ok[i] && memcmp(kept, live[i], sizeof kept) == 0 ? "yes" : "no");
	}
	pmi_core_close(file);
	free(live);
	free(ok);
}

static int
probe(const char *dir, const char *pid, bool notes_only)
{
	char path[4096], core_path[4096];
	snprintf(core_path, sizeof core_path, "%s/%s.core", dir, pid);
	FILE *core = fopen(core_path, "wxe");
	snprintf(path, sizeof path, "%s/%s.txt", dir, pid);
	FILE *out = fopen(path, "wxe");
	snprintf(path, sizeof path, "/proc/%s/mem", pid);
	int mem = open(path, O_RDONLY | O_CLOEXEC);
	if (!core || !out)
		return 1;
	pm_core_options opt = { .mem_fd = notes_only ? mem : -1 };
	pm_core *c;
	uint64_t n, rest = 0;
	char why[256];
	pm_err e = notes_only ? pmi_core_read_stream_notes(0, &opt, NULL, tee_to, core, &c, &n, why, sizeof why)
	                      : pmi_core_read_stream(0, &opt, NULL, tee_to, core, &c, &n, why, sizeof why);
	if (e == PM_OK && notes_only) {
		fprintf(out, "head %" PRIu64 "\n", n);
		e = pmi_core_stream_rest(0, n, NULL, tee_to, core, &rest, why, sizeof why);
	}
	fprintf(out, "read %" PRIu64 "\n", n + rest);
	if (e != PM_OK) {
		fprintf(out, "error %s\n", why);
		return 1;
	}
	show(out, c, 0, NULL);
	fprintf(out, "kept %zu\n", c->src->nkept);
	if (fflush(core) != 0)
		return 1;
	if (notes_only)
		stacks_live_then_file(out, c, core_path);
	else
		compare_stacks(out, c, mem);
	fprintf(out, "rss %ld\n", peak_kib());
	pmi_core_close(c);
	return fclose(core) != 0 || fclose(out) != 0;
}

int
main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "--probe") == 0)
		return probe(argv[2], argv[3], false);
	if (argc == 4 && strcmp(argv[1], "--probe-notes") == 0)
		return probe(argv[2], argv[3], true);
	if (argc < 2) {
		fprintf(stderr, "usage: core_show CORE|- [ADDR...] | --probe DIR PID | --probe-notes DIR PID\n");
		return 2;
	}
	pm_core_options opt = { .mem_fd = -1 };
	pm_core *c;
	char why[256];
	uint64_t n;
	pm_err e = strcmp(argv[1], "-") == 0 ? pmi_core_read_stream(0, &opt, NULL, NULL, NULL, &c, &n, why, sizeof why)
	                                     : pmi_core_open(argv[1], &opt, &c, why, sizeof why);
	if (e != PM_OK) {
		fprintf(stderr, "core_show: %s: %s\n", argv[1], why);
		return 1;
	}
	show(stdout, c, argc - 2, argv + 2);
	pmi_core_close(c);
	return 0;
}
