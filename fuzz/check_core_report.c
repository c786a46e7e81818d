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
 * Input: a little-endian u32 n, then n bytes of core, then the bytes of a
 * file, served (as the handler serves the analysis its descriptors) as
 * every file the core maps: the engine's reads of mapped files come from
 * the input too, and it opens no path (as_files_serve).
 *
 * The fuzzer (built with FUZZ_SANDBOX) with PM_FUZZ_SANDBOX set runs it
 * under the analysis's seccomp filter (system/sandbox.h), installed once,
 * before the first input.  Only for one input a process: the filter also
 * binds libFuzzer, which reads its corpus and writes a failing input after
 * that (fuzz/run.sh replays every seed and every input the campaign kept
 * that way, after the campaign).  The unit test that replays the saved
 * inputs runs unfiltered.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corefile/core.h"
#include "fuzz/checks.h"
#include "reporter/memory/as_util.h"
#include "system/core_capture.h"
#ifdef FUZZ_SANDBOX
#include "system/sandbox.h"
#endif

/* Where the file's bytes and the reports go: one directory of this user's
 * in memory, for every process of the target (a directory of each would be
 * left behind: the filter forbids removing it), the file's bytes in
 * "file-<pid>", the reports under their unique ids. */
static char dir[64], file[32];
static int out_fd = -1;

static void
remove_file(void)
{
	unlinkat(out_fd, file, 0);
}

/* Once per process, before the first input: the place to write to, and the
 * analysis's seccomp filter, which confines the engine as it confines it
 * when it parses a user's core (only openat below that place, no exec, no
 * socket, no signal, no executable memory: system/sandbox.h). */
static bool
init(char *why, size_t cap)
{
	if (out_fd >= 0)
		return true;
	snprintf(dir, sizeof dir, "/dev/shm/pm-fuzz-report-%u", (unsigned)geteuid());
	snprintf(file, sizeof file, "file-%d", (int)getpid());
	struct stat st;
	if ((mkdir(dir, 0700) != 0 && errno != EEXIST) ||
	    (out_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 || fstat(out_fd, &st) != 0 ||
	    st.st_uid != geteuid() || (st.st_mode & 077))
		return fuzz_say(why, cap, "cannot make %s, or it is not this user's alone", dir);
	atexit(remove_file);
#ifdef FUZZ_SANDBOX
	if (getenv("PM_FUZZ_SANDBOX") && !pmi_sandbox_filter(out_fd, -1, out_fd))
		return fuzz_say(why, cap, "cannot install the analysis's seccomp filter");
#endif
	return true;
}

/* The file's bytes, written and opened again for reading, as a descriptor the reader is given. */
static int
put_file(const uint8_t *p, size_t n)
{
	int fd = openat(out_fd, file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	bool ok = fd >= 0 && write(fd, p, n) == (ssize_t)n;
	if (fd >= 0)
		close(fd);
	return ok ? openat(out_fd, file, O_RDONLY | O_CLOEXEC) : -1;
}

/* The core, with fd given as the file of every mapping NT_FILE names (the core read once to learn them). */
static pm_core *
open_core(fuzz_bytes *core, int fd)
{
	pm_core_options opt = { .mem_fd = -1, .mapped = NULL };
	pm_core *c;
	char w[512];
	if (pmi_core_open_pread(fuzz_bytes_pread, core, core->n, &opt, &c, w, sizeof w) != PM_OK)
		return NULL;
	pm_core_mapped *m = calloc(c->nmaps + 1, sizeof *m);
	for (size_t i = 0; m && i < c->nmaps; i++)
		m[i] = (pm_core_mapped){ c->maps[i].start, c->maps[i].end, fd };
	opt.mapped = m;
	opt.nmapped = m && fd >= 0 ? c->nmaps : 0;
	pmi_core_close(c);
	pm_err e = m ? pmi_core_open_pread(fuzz_bytes_pread, core, core->n, &opt, &c, w, sizeof w) : PM_E_NOMEM;
	free(m);
	return e == PM_OK ? c : NULL;
}

/* The engine's files: a mapped file is the input's (no /proc, no OS file: NULL). */
static const char *
no_bytes(void *ctx, const char *path, size_t *len)
{
	(void)ctx;
	(void)path;
	*len = 0;
	return NULL;
}

static int
served_open(void *ctx, const char *path)
{
	return pmi_core_open_mapped(ctx, path);
}

/* The report's files removed (their names are its incident id's). */
static void
remove_report(const pm_report *r)
{
	static const char *const ext[] = { ".crash", ".json", ".dmp" };
	for (size_t i = 0; i < 3; i++) {
		char name[128];
		snprintf(name, sizeof name, "%s%s", r->header.incident_id ? r->header.incident_id : "", ext[i]);
		unlinkat(out_fd, name, 0);
	}
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
	size_t file_n = size - head - core.n;
	int fd = file_n ? put_file(core.p + core.n, file_n) : -1;
	if (file_n && fd < 0)
		return fuzz_say(why, cap, "cannot write the file's bytes in %s", dir);
	pm_core *c = open_core(&core, fd);
	pm_core_facts f = { .time = { 1700000000, 0 }, .source = "fuzz" };
	pm_core_capture *cc;
	char w[512];
	bool ok = true;
	as_file_server server = { no_bytes, served_open, c };
	as_files_serve(&server);
	if (c && pmi_core_capture(c, &f, &cc, w, sizeof w) == PM_OK) {
		const pm_report *r = pmi_core_capture_report(cc);
		ok = fuzz_check_report(r, why, cap);
		if (ok && !pmi_core_capture_write(cc, out_fd, dir, w, sizeof w))
			ok = fuzz_say(why, cap, "the report did not land: %s", w);
		remove_report(r);
		pmi_core_capture_free(cc);
	}
	as_files_serve(NULL);
	pmi_core_close(c);
	if (fd >= 0)
		close(fd);
	return ok;
}
