/*
 * check_core_report.c — the whole report of a hostile core, as the system
 * reporter makes it: the core reader (corefile/), then the capture engine
 * over it (system/core_capture.h: every thread walked by the unwinder, the
 * images and their build ids and symbols read from the core's memory and
 * the executable's file, the fault), then the .crash, .json and .dmp
 * written as the handler writes them.  Whatever the bytes, nothing may
 * crash, hang or reach outside what it was given (the sanitizers watch);
 * the report the engine makes must render, come back the same through its
 * JSON twin (fuzz_check_report), and land.
 *
 * Input: a little-endian u32 n, then n bytes of core, then the bytes of
 * the file the core's executable maps (served as pm_core_options.exe: the
 * engine's reads of that file come from the input too; empty: none).  No
 * other file of the host is read: every other path the core names is
 * looked for under a sysroot that does not exist.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corefile/core.h"
#include "fuzz/checks.h"
#include "system/core_capture.h"

/* Where the executable's bytes and the reports go: a directory of this process's, in memory. */
static char dir[64], exe[96];
static int out_fd = -1;

static void
remove_dir(void)
{
	unlink(exe);
	if (out_fd >= 0)
		unlinkat(AT_FDCWD, dir, AT_REMOVEDIR);
}

/* Once per process, before the first input: the place to write to, and
 * (when the analysis has one) the sandbox the engine runs in as it would
 * parse a user's core: whatever confines it must confine this too. */
static bool
init(char *why, size_t cap)
{
	if (out_fd >= 0)
		return true;
	snprintf(dir, sizeof dir, "/dev/shm/pm-fuzz-report-XXXXXX");
	if (!mkdtemp(dir))
		return fuzz_say(why, cap, "cannot make %s", dir);
	snprintf(exe, sizeof exe, "%s/exe", dir);
	out_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	atexit(remove_dir);
	return out_fd >= 0 || fuzz_say(why, cap, "cannot open %s", dir);
}

/* The reports written, removed (the executable's bytes stay for the next input to replace). */
static void
empty_out(void)
{
	int fd = dup(out_fd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && strcmp(e->d_name, "exe") != 0)
			unlinkat(out_fd, e->d_name, 0);
	closedir(d);
}

static bool
put_exe(const uint8_t *p, size_t n)
{
	int fd = open(exe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	bool ok = fd >= 0 && write(fd, p, n) == (ssize_t)n;
	if (fd >= 0)
		close(fd);
	return ok;
}

bool
fuzz_check_core_report(const uint8_t *data, size_t size, char *why, size_t cap)
{
	if (!init(why, cap))
		return false;
	uint32_t n = 0;
	if (size >= 4)
		n = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
	size_t head = size < 4 ? size : 4;
	fuzz_bytes core = { data + head, n < size - head ? n : size - head };
	const uint8_t *file = core.p + core.n;
	size_t file_n = size - head - core.n;
	if (file_n && !put_exe(file, file_n))
		return fuzz_say(why, cap, "cannot write %s", exe);
	pm_core_options opt = { .sysroot = "/nonexistent-fuzz-sysroot", .exe = file_n ? exe : NULL, .mem_fd = -1 };
	pm_core *c;
	char w[512];
	if (pmi_core_open_pread(fuzz_bytes_pread, &core, core.n, &opt, &c, w, sizeof w) != PM_OK)
		return true;
	pm_core_facts f = { .time = { 1700000000, 0 }, .source = "fuzz" };
	pm_core_capture *cc;
	bool ok = true;
	if (pmi_core_capture(c, &f, &cc, w, sizeof w) == PM_OK) {
		ok = fuzz_check_report(pmi_core_capture_report(cc), why, cap);
		if (ok && !pmi_core_capture_write(cc, out_fd, dir, w, sizeof w))
			ok = fuzz_say(why, cap, "the report did not land: %s", w);
		empty_out();
		pmi_core_capture_free(cc);
	}
	pmi_core_close(c);
	return ok;
}
