/*
 * test_corefile.c — the core stream's ways of reading (corefile/core.h) over
 * a real core fed through a pipe: qemu-user's core of a static program
 * (fuzz/corpus/core/qemu-aarch64), laid out as the kernel lays one out — the
 * notes right after the program headers, the segments after them.
 *
 * Read as far as its notes, the stream gives the threads and not one byte
 * more (every byte it read teed), the rest then comes whole; memory then
 * comes through a /proc/<pid>/mem alone (no range kept), here a live stopped
 * child's.  The caps: a stream longer than its byte cap, and one that never
 * ends, are read no further than their cap, the notes kept.
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corefile/core.h"
#include "corefile/core_internal.h"
#include "util.h"

typedef struct feed {
	int fd;
	const char *bytes;
	size_t len;
	bool endless;             /* then zeros until the reader closes its end */
} feed;

static void *
writer(void *arg)
{
	feed *f = arg;
	for (size_t at = 0; at < f->len;) {
		ssize_t k = write(f->fd, f->bytes + at, f->len - at);
		if (k <= 0)
			goto out;
		at += (size_t)k;
	}
	static const char zeros[65536];
	while (f->endless && write(f->fd, zeros, sizeof zeros) > 0)
		;
out:
	close(f->fd);
	return NULL;
}

typedef struct sink {
	char *buf;
	size_t len, cap;
} sink;

static bool
keep(void *ctx, const void *buf, size_t n)
{
	sink *s = ctx;
	if (s->len + n > s->cap) {
		s->cap = (s->len + n) * 2;
		s->buf = realloc(s->buf, s->cap);
		cr_assert(s->buf != NULL);
	}
	memcpy(s->buf + s->len, buf, n);
	s->len += n;
	return true;
}

static char *core;
static size_t core_len;
static uint64_t notes_end, first_segment;

/* Where the core's notes end and its first segment's bytes begin, read with <elf.h>. */
static void
load_core(void)
{
	signal(SIGPIPE, SIG_IGN);
	core = pm_test_slurp(pm_test_source("fuzz/corpus/core/qemu-aarch64"), &core_len);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)core;
	first_segment = UINT64_MAX;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(core + eh->e_phoff + (size_t)i * sizeof *ph);
		if (ph->p_type == PT_NOTE && ph->p_offset + ph->p_filesz > notes_end)
			notes_end = ph->p_offset + ph->p_filesz;
		if (ph->p_type == PT_LOAD && ph->p_filesz && ph->p_offset < first_segment)
			first_segment = ph->p_offset;
	}
	cr_assert(notes_end > 0 && notes_end < first_segment && first_segment < core_len,
	          "the core has its notes (ending at %llu) before its segments (from %llu)",
	          (unsigned long long)notes_end, (unsigned long long)first_segment);
}

static void
free_core(void)
{
	free(core);
}

/* A pipe the core (then zeros, when endless) is written into by a thread. */
static int
start(pthread_t *t, feed *f, bool endless)
{
	int p[2];
	cr_assert(pipe(p) == 0);
	*f = (feed){ p[1], core, core_len, endless };
	cr_assert(pthread_create(t, NULL, writer, f) == 0);
	return p[0];
}

TestSuite(corefile, .init = load_core, .fini = free_core);

Test(corefile, notes_alone_then_the_rest_whole)
{
	pthread_t t;
	feed f;
	int fd = start(&t, &f, false);
	sink got = { 0 };
	pm_core_options opt = { .mem_fd = -1 };
	pm_core *c;
	uint64_t n, rest;
	char why[256];
	cr_assert_eq(pmi_core_read_stream_notes(fd, &opt, NULL, keep, &got, &c, &n, why, sizeof why), PM_OK, "%s", why);
	cr_expect_eq(n, notes_end, "read %llu bytes: the notes end at %llu", (unsigned long long)n,
	             (unsigned long long)notes_end);
	cr_expect(got.len == n && memcmp(got.buf, core, n) == 0, "every byte read was teed, in order");
	cr_expect_eq(c->nthreads, 1);
	cr_expect_eq(c->arch, PM_CORE_ARCH_AARCH64);
	cr_expect_eq(c->src->nkept, 0, "nothing kept of the segments");
	cr_expect(!c->stopped);
	cr_assert_eq(pmi_core_stream_rest(fd, n, NULL, keep, &got, &rest, why, sizeof why), PM_OK, "%s", why);
	cr_expect_eq(n + rest, core_len);
	cr_expect(got.len == core_len && memcmp(got.buf, core, core_len) == 0, "the rest came whole after the notes");
	pmi_core_close(c);
	close(fd);
	pthread_join(t, NULL);
	free(got.buf);
}

static char live[4096];

Test(corefile, memory_through_the_process_alone)
{
	memset(live, 'p', sizeof live);
	pid_t pid = fork();
	if (pid == 0) {
		memset(live, 'c', sizeof live);
		raise(SIGSTOP);
		_exit(0);
	}
	int status;
	cr_assert_eq(waitpid(pid, &status, WUNTRACED), pid);
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/mem", pid);
	int mem = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert(mem >= 0);
	pthread_t t;
	feed f;
	int fd = start(&t, &f, false);
	pm_core_options opt = { .mem_fd = mem };
	pm_core *c;
	uint64_t n;
	char why[256], buf[sizeof live], want[sizeof live];
	cr_assert_eq(pmi_core_read_stream_notes(fd, &opt, NULL, NULL, NULL, &c, &n, why, sizeof why), PM_OK, "%s", why);
	close(fd);
	pthread_join(t, NULL);
	memset(want, 'c', sizeof want);
	cr_expect(pmi_core_mem_read(c, (uint64_t)(uintptr_t)live, buf, sizeof buf) && memcmp(buf, want, sizeof buf) == 0,
	          "the stopped child's bytes, through its /proc/<pid>/mem, with no range kept");
	cr_expect(!pmi_core_mem_read(c, 0x1000, buf, 16), "nothing where neither the core nor the process has memory");
	pmi_core_close(c);
	close(mem);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

Test(corefile, a_byte_cap_stops_the_whole_read_after_the_notes)
{
	pthread_t t;
	feed f;
	int fd = start(&t, &f, false);
	pm_core_stream_limits lim = { .max_bytes = notes_end + 100 };
	pm_core_options opt = { .mem_fd = -1 };
	pm_core *c;
	uint64_t n;
	char why[256];
	cr_assert_eq(pmi_core_read_stream(fd, &opt, &lim, NULL, NULL, &c, &n, why, sizeof why), PM_OK, "%s", why);
	cr_expect_eq(n, lim.max_bytes);
	cr_expect(c->stopped && c->size == n && n < c->end, "stopped at the cap, the core cut there");
	cr_expect_eq(c->nthreads, 1);
	pmi_core_close(c);
	close(fd);
	pthread_join(t, NULL);

	fd = start(&t, &f, false);
	lim.max_bytes = notes_end - 1;
	cr_expect_eq(pmi_core_read_stream(fd, &opt, &lim, NULL, NULL, &c, &n, why, sizeof why), PM_E_LIMIT);
	cr_expect(c == NULL && strstr(why, "byte limit") && strstr(why, "before its notes"), "%s", why);
	close(fd);
	pthread_join(t, NULL);
}

Test(corefile, an_endless_stream_ends_at_the_time_cap)
{
	pthread_t t;
	feed f;
	int fd = start(&t, &f, true);
	pm_core_stream_limits lim = { .max_ms = 1000 };
	pm_core_options opt = { .mem_fd = -1 };
	pm_core *c;
	uint64_t n;
	char why[256];
	cr_assert_eq(pmi_core_read_stream(fd, &opt, &lim, NULL, NULL, &c, &n, why, sizeof why), PM_OK, "%s", why);
	cr_expect(c->stopped && n > core_len, "read %llu bytes, then stopped", (unsigned long long)n);
	cr_expect_eq(c->nthreads, 1);
	pmi_core_close(c);
	close(fd); /* the writer's next write fails: it ends */
	pthread_join(t, NULL);
}

Test(corefile, the_rest_stops_at_its_caps)
{
	pthread_t t;
	feed f;
	int fd = start(&t, &f, true);
	pm_core_options opt = { .mem_fd = -1 };
	pm_core *c;
	uint64_t n, rest;
	char why[256];
	cr_assert_eq(pmi_core_read_stream_notes(fd, &opt, NULL, NULL, NULL, &c, &n, why, sizeof why), PM_OK, "%s", why);
	pm_core_stream_limits lim = { .max_bytes = n + 1000 };
	cr_expect_eq(pmi_core_stream_rest(fd, n, &lim, NULL, NULL, &rest, why, sizeof why), PM_E_LIMIT);
	cr_expect(rest == 1000 && strstr(why, "byte limit"), "%llu: %s", (unsigned long long)rest, why);
	lim = (pm_core_stream_limits){ .max_ms = 1000 };
	cr_expect_eq(pmi_core_stream_rest(fd, n + rest, &lim, NULL, NULL, &rest, why, sizeof why), PM_E_LIMIT);
	cr_expect(strstr(why, "time limit"), "%s", why);
	pmi_core_close(c);
	close(fd);
	pthread_join(t, NULL);
}
