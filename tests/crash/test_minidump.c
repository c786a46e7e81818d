/*
 * test_minidump.c — crash a real program and open the <id>.dmp it left
 * with the tools people use: LLDB (threads, frames, a local variable of the
 * crashing function from the saved stack) and Breakpad's minidump_stackwalk
 * (crash reason and address, modules with their debug ids, the crashed
 * thread's frames, symbolicated with dump_syms's symbol file).  Each must
 * agree with the .crash/.json written beside it.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash_util.h"
#include "util.h"

static const char *
locals_program(void)
{
	static char exe[PATH_MAX];
	cr_assert(realpath(pm_test_build("tests/crash_minidump_locals"), exe) != NULL);
	return exe;
}

static const pm_thread *
crashed_thread(const pm_report *r)
{
	int32_t c = pm_report_crashed_thread(r);
	cr_assert(c >= 0, "the report has no crashed thread");
	return &r->threads[c];
}

/* The text of the thread LLDB marks as selected ("* thread #"), up to the next thread. */
static char *
lldb_selected_thread(char *out)
{
	char *t = strstr(out, "* thread #");
	cr_assert(t != NULL, "lldb selected no thread:\n%s", out);
	char *next = strstr(t + 1, "\n  thread #");
	if (next)
		*next = '\0';
	return t;
}

/* The register minidump_locals.c leaves its heap string in. */
#if defined(__aarch64__)
#define MARKER_REG "x19"
#else
#define MARKER_REG "r12"
#endif

Test(minidump, lldb_reads_frames_and_locals)
{
	crash_run run;
	const char *exe = locals_program();
	crash_run_program(&run, exe, NULL, NULL);
	char *dmp = crash_dmp_path(&run), *cmd, *out;
	cr_assert(access(dmp, R_OK) == 0, "no minidump beside %s", run.crash_path);
	cr_assert(asprintf(&cmd, "lldb -b -c '%s' '%s' -o 'frame variable answer product' -o 'x/s $%s' "
	                         "-o 'frame select 1' -o 'frame variable depth' -o 'thread backtrace all'",
	                   dmp, exe, MARKER_REG) > 0);
	int st = pm_test_run(cmd, &out);
	cr_assert_eq(st, 0, "lldb failed:\n%s", out);
	/* The crashing function's locals and its caller's argument, from the saved stack. */
	cr_expect(strstr(out, "answer = 4242") != NULL, "lldb did not read `answer`:\n%s", out);
	cr_expect(strstr(out, "product = 7000021") != NULL, "lldb did not read `product`:\n%s", out);
	cr_expect(strstr(out, "depth = 0") != NULL, "lldb did not read the caller's `depth`:\n%s", out);
	/* The heap string a register points at, from the regions kept around pointers. */
	cr_expect(strstr(out, "\"minidump-heap-marker\"") != NULL, "lldb did not read the string at %s:\n%s", MARKER_REG,
	          out);
	/* The crashed thread's frames: the same addresses, in the same order, as the .crash. */
	const pm_thread *t = crashed_thread(&run.json);
	char *bt = lldb_selected_thread(strstr(out, "(lldb) thread backtrace all"));
	cr_assert(t->frame_count >= 6, "the report has %u frames", t->frame_count);
	for (uint32_t i = 0; i < t->frame_count; i++) {
		char want[64];
		snprintf(want, sizeof want, "frame #%u: 0x%016llx", i, (unsigned long long)t->frames[i].address);
		cr_expect(strstr(bt, want) != NULL, "lldb's crashed thread lacks \"%s\":\n%s", want, bt);
	}
	cr_expect(strstr(bt, "stop reason = signal SIGSEGV") != NULL, "%s", bt);
	free(out);
	free(cmd);
	free(dmp);
	crash_run_free(&run);
}

/* The debug id Breakpad derives from an ELF build id: its first 16 bytes as a
 * GUID (the first three fields byte-swapped), upper-case, then the age 0. */
static const char *
breakpad_debug_id(const pm_image *im)
{
	static char id[34];
	uint8_t g[16] = { 0 };
	memcpy(g, im->build_id, im->build_id_len < 16 ? im->build_id_len : 16);
	static const int order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
	for (int i = 0; i < 16; i++)
		snprintf(id + 2 * i, 3, "%02X", g[order[i]]);
	strcpy(id + 32, "0");
	return id;
}

/* dump_syms's symbol file for exe, placed where minidump_stackwalk looks: DIR/name/ID/name.sym. */
static void
make_symbols(const char *bin, const char *exe, const char *dir)
{
	char *cmd, *out;
	cr_assert(asprintf(&cmd, "'%s/dump_syms' '%s' > '%s/exe.sym' 2>/dev/null && head -1 '%s/exe.sym'",
	                   bin, exe, dir, dir) > 0);
	cr_assert_eq(pm_test_run(cmd, &out), 0, "dump_syms failed: %s", out);
	char id[64], name[256];
	cr_assert_eq(sscanf(out, "MODULE Linux %*s %63s %255s", id, name), 2, "%s", out);
	free(cmd);
	free(out);
	cr_assert(asprintf(&cmd, "mkdir -p '%s/sym/%s/%s' && mv '%s/exe.sym' '%s/sym/%s/%s/%s.sym'",
	                   dir, name, id, dir, dir, name, id, name) > 0);
	cr_assert_eq(pm_test_run(cmd, NULL), 0);
	free(cmd);
}

/* The line of `minidump_stackwalk -m` output starting with `prefix`, or NULL. */
static const char *
mline(const char *out, const char *prefix)
{
	size_t n = strlen(prefix);
	for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, prefix, n) == 0)
			return p;
	return NULL;
}

static void
expect_module(const char *out, const pm_image *im)
{
	char want[600];
	snprintf(want, sizeof want, "Module|%s|", im->name);
	const char *line = mline(out, want);
	cr_assert(line != NULL, "minidump_stackwalk lists no module %s", im->name);
	cr_expect(strstr(line, breakpad_debug_id(im)) != NULL && strchr(line, '\n') > strstr(line, breakpad_debug_id(im)),
	          "module %s: expected debug id %s in %.200s", im->name, breakpad_debug_id(im), line);
}

Test(minidump, stackwalk_reads_reason_modules_and_frames)
{
	const char *bin = getenv("PM_BREAKPAD_BIN");
	cr_assert(bin != NULL);
	char *tool;
	cr_assert(asprintf(&tool, "%s/minidump_stackwalk", bin) > 0);
	cr_assert(access(tool, X_OK) == 0, "%s is missing (npm install of `minidump` failed?)", tool);
	crash_run run;
	const char *exe = locals_program();
	crash_run_program(&run, exe, NULL, NULL);
	char *dmp = crash_dmp_path(&run), *cmd, *out;
	make_symbols(bin, exe, run.dir);
	cr_assert(asprintf(&cmd, "'%s' -m '%s' '%s/sym' 2>/dev/null", tool, dmp, run.dir) > 0);
	cr_assert_eq(pm_test_run(cmd, &out), 0, "minidump_stackwalk failed:\n%s", out);

	const pm_exception *x = &run.json.exception;
	char want[128];
	snprintf(want, sizeof want, "Crash|SIGSEGV /SEGV_MAPERR|0x%llx|", (unsigned long long)x->address);
	const char *crash = mline(out, want);
	cr_assert(crash != NULL, "no \"%s\" line:\n%s", want, out);
	int crashed = atoi(crash + strlen(want));

	char exe_path[PATH_MAX];
	cr_assert(realpath(exe, exe_path) != NULL);
	expect_module(out, crash_find_image(&run.json, exe_path));
	const pm_image *libc = crash_find_image(&run.json, "/libc.so.6");
	cr_assert(libc != NULL);
	expect_module(out, libc);

	/* Frames of the crashed thread, symbolicated from the .sym: the app's functions, in
	 * the .crash's order. */
	/* The online CPUs, which the first minidump reads after the report (as_facts.c). */
	const char *cpu = mline(out, "CPU|");
	cr_assert(cpu != NULL, "no CPU line:\n%s", out);
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	/* CPU|arch|info|count: info is empty on arm64, so take the count after the third bar. */
	const char *count_at = cpu;
	for (int bars = 0; bars < 3 && count_at; bars++) {
		count_at = strchr(count_at, '|');
		if (count_at)
			count_at++;
	}
	cr_assert(count_at != NULL, "%.200s", cpu);
	long count = strtol(count_at, NULL, 10);
	cr_expect_eq(count, online > 255 ? 255 : online, "%.200s", cpu);

	const pm_thread *t = crashed_thread(&run.json);
	const char *names[] = { "crash_with_locals", "descend", "descend", "descend", "descend", "main" };
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
		cr_expect_str_eq(t->frames[i].symbol, names[i]);
		snprintf(want, sizeof want, "%d|%u|crash_minidump_locals|%s|", crashed, i, names[i]);
		cr_expect(mline(out, want) != NULL, "minidump_stackwalk lacks \"%s\":\n%s", want, out);
	}
	free(out);
	free(cmd);
	free(dmp);
	free(tool);
	crash_run_free(&run);
}

Test(minidump, off_by_environment)
{
	crash_run run;
	const char *env[] = { "POSTMORTEM_MINIDUMP=0", NULL };
	crash_run_program(&run, locals_program(), NULL, env);
	char *dmp = crash_dmp_path(&run);
	cr_expect(access(dmp, F_OK) != 0, "%s was written with POSTMORTEM_MINIDUMP=0", dmp);
	free(dmp);
	crash_run_free(&run);
}

/* postmortem reads its own minidump back: the same signal, threads, registers and images
 * as the JSON twin written beside it. */
Test(minidump, reader_agrees_with_the_json_twin)
{
	crash_run run;
	crash_run_program(&run, locals_program(), NULL, NULL);
	char *dmp = crash_dmp_path(&run);
	pm_report md;
	pm_read_error err;
	pm_report_init(&md);
	cr_assert_eq(pm_read_report_file(dmp, &md, &err), PM_OK, "%s", err.message);
	const pm_report *j = &run.json;
	cr_expect_eq(md.format, PM_FORMAT_MINIDUMP);
	cr_expect_eq(md.header.pid, j->header.pid);
	cr_expect_eq(md.exception.signal, j->exception.signal);
	cr_expect_eq(md.exception.si_code, j->exception.si_code);
	cr_expect_eq(md.exception.address, j->exception.address);
	cr_expect_str_eq(md.exception.codes, j->exception.codes);
	uint32_t k = 0;
	for (uint32_t i = 0; i < j->thread_count; i++) {
		const pm_thread *a = &j->threads[i];
		if (!a->captured)
			continue;
		cr_assert(k < md.thread_count, "the minidump has %u threads", md.thread_count);
		const pm_thread *b = &md.threads[k++];
		cr_expect_eq(b->id, a->id);
		cr_expect_eq(b->crashed, a->crashed);
		cr_expect_str_eq(b->name, a->name);
		cr_expect_eq(b->frames[0].address, a->frames[0].address);
		for (uint32_t r = 0; r < b->regs->count; r++)
			cr_expect_eq(b->regs->reg[r].value, a->regs->reg[r].value, "thread %u %s", k, b->regs->reg[r].name);
	}
	cr_expect_eq(k, md.thread_count);
	cr_assert_eq(md.image_count, j->image_count);
	for (uint32_t i = 0; i < j->image_count; i++) {
		cr_expect_eq(md.images[i].start, j->images[i].start);
		cr_expect_str_eq(md.images[i].path, j->images[i].path);
		cr_expect_eq(md.images[i].build_id_len, j->images[i].build_id_len);
		cr_expect(memcmp(md.images[i].build_id, j->images[i].build_id, j->images[i].build_id_len) == 0,
		          "image %u's build id differs", i);
	}
	pm_report_free(&md);
	free(dmp);
	crash_run_free(&run);
}

/* Whether the minidump of a run with a secret in its environment holds it. */
static bool
secret_in_minidump(const char *const *extra)
{
	const char *env[4] = { "PM_TEST_SECRET=hunter2-6f1c", NULL, NULL, NULL };
	for (int i = 0; extra && extra[i] && i < 2; i++)
		env[1 + i] = extra[i];
	crash_run run;
	crash_run_program(&run, locals_program(), NULL, env);
	char *dmp = crash_dmp_path(&run);
	size_t len;
	char *data = pm_test_slurp(dmp, &len);
	bool found = memmem(data, len, "hunter2-6f1c", 12) != NULL;
	free(data);
	free(dmp);
	crash_run_free(&run);
	return found;
}

Test(minidump, environment_only_when_asked)
{
	cr_expect_not(secret_in_minidump(NULL), "the environment is in the minidump by default");
	const char *on[] = { "POSTMORTEM_MINIDUMP_ENVIRON=1", NULL };
	cr_expect(secret_in_minidump(on), "POSTMORTEM_MINIDUMP_ENVIRON=1 did not add the environment");
}
