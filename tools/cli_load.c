/*
 * cli_load.c — the report a command is given a file of (convert, explain,
 * symbolicate, show): any report format the readers know, or an ELF core,
 * read by corefile/ with pread, so no whole-file size limit applies to it,
 * captured by the engine over its memory and the files it mapped
 * (system/core_capture.h), and handed on as the report that capture makes,
 * read back from its JSON twin so that it owns its storage as any report
 * read from a file does.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "enable.h"

const char cli_core_help[] =
	"      --exe PATH         an ELF core: read PATH as its executable (a file of another build\n"
	"                         id is not read; a core that names no file, qemu-user's, needs it)\n"
	"      --sysroot DIR      an ELF core: look for the files it maps under DIR\n";

static bool
is_core(const char *path)
{
	unsigned char h[EI_NIDENT + 2];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, h, sizeof h);
	close(fd);
	return n == (ssize_t)sizeof h && memcmp(h, ELFMAG, SELFMAG) == 0 && (h[EI_NIDENT] | h[EI_NIDENT + 1] << 8) == ET_CORE;
}

/* The capture's report as one read from a file: rendered as its JSON twin, read back. */
static pm_err
own_copy(const pm_report *made, pm_report *r, char *why, size_t cap)
{
	char *json;
	size_t len;
	pm_read_error err = { 0 };
	pm_err e = pm_write_report_string(made, PM_FORMAT_JSON, &json, &len);
	if (e == PM_OK) {
		e = pm_read_json(json, len, r, &err);
		free(json);
	}
	snprintf(why, cap, "%s", err.message[0] ? err.message : pm_strerror(e));
	return e;
}

static int
from_core(const char *cmd, const char *path, const cli_core_files *where, pm_report *r)
{
	/* The report names the executable by the path given: made absolute, as a mapping's is. */
	char *exe = where && where->exe ? realpath(where->exe, NULL) : NULL;
	if (where && where->exe && !exe) {
		cli_error(cmd, "cannot read --exe %s: %s", where->exe, strerror(errno));
		return PM_EXIT_FAIL;
	}
	pm_core_options opt = { .mem_fd = -1, .exe = exe, .sysroot = where ? where->sysroot : NULL };
	pm_core *c;
	char why[512];
	pm_err oe = pmi_core_open(path, &opt, &c, why, sizeof why);
	free(exe);
	if (oe != PM_OK) {
		cli_error(cmd, "%s: an ELF core that cannot be read: %s", path, why);
		return PM_EXIT_FAIL;
	}
	/* The core file's time is when it was written: the crash, or gcore's run. */
	struct stat st;
	char source[PATH_MAX + 32];
	const char *slash = strrchr(path, '/');
	snprintf(source, sizeof source, "the core file %s", slash ? slash + 1 : path);
	pm_core_facts f = { .time = stat(path, &st) == 0 ? st.st_mtim : (struct timespec){ 0 }, .source = source };
	pm_core_capture *cc;
	pm_err e = pmi_core_capture(c, &f, &cc, why, sizeof why);
	if (e == PM_OK) {
		e = own_copy(pmi_core_capture_report(cc), r, why, sizeof why);
		r->format = PM_FORMAT_UNKNOWN; /* made from a core, not read from a twin */
		pmi_core_capture_free(cc);
	}
	if (e != PM_OK)
		cli_error(cmd, "%s: an ELF core (%s) of pid %d (%s), %zu threads: no report: %s", path,
		          pmi_core_arch_name(c->arch), c->has_psinfo ? c->psinfo.pid : c->threads[0].tid,
		          c->has_psinfo ? c->psinfo.fname : "?", c->nthreads, why);
	pmi_core_close(c);
	return e == PM_OK ? PM_EXIT_OK : PM_EXIT_FAIL;
}

/* When path is an ELF core (or where names files and path is not one): its report into r,
 * or why not said; true, with the exit status in *rc.  False: not a core. */
static bool
core_load(const char *cmd, const char *path, const cli_core_files *where, pm_report *r, int *rc)
{
	bool core = is_core(path);
	if (core)
		*rc = from_core(cmd, path, where, r);
	else if (where && (where->exe || where->sysroot)) {
		cli_error(cmd, "%s is not an ELF core: --exe and --sysroot apply to cores", path);
		*rc = PM_EXIT_USAGE;
		core = true;
	}
	return core;
}

int
cli_load(const char *cmd, const char *path, const cli_core_files *where, pm_report *r)
{
	pm_read_error err = { 0 };
	pm_report_init(r);
	int rc;
	if (core_load(cmd, path, where, r, &rc)) {
		if (rc != PM_EXIT_OK)
			pm_report_free(r);
		return rc;
	}
	pm_err e = pm_read_report_file(path, r, &err);
	if (e == PM_OK)
		return PM_EXIT_OK;
	const char *why = err.message[0] ? err.message : pm_strerror(e);
	if (err.line)
		cli_error(cmd, "%s:%u: %s", path, err.line, why);
	else
		cli_error(cmd, "%s: %s", path, why);
	pm_report_free(r);
	return PM_EXIT_FAIL;
}
