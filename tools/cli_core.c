/*
 * cli_core.c — an ELF core named where a report is expected (convert,
 * explain, symbolicate): read by corefile/ with pread, so the readers'
 * 64 MiB whole-file limit never applies to it.  Turning a core into a
 * report needs the capture engine to run over the core's memory (issue 32,
 * its second part); until then the command says what the core holds and
 * that it cannot make a report of it yet.
 */
#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "core.h"

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

bool
cli_core_refused(const char *cmd, const char *path)
{
	if (!is_core(path))
		return false;
	pm_core_options opt = { .mem_fd = -1 };
	pm_core *c;
	char why[512];
	if (pmi_core_open(path, &opt, &c, why, sizeof why) != PM_OK) {
		cli_error(cmd, "%s: an ELF core that cannot be read: %s", path, why);
		return true;
	}
	cli_error(cmd, "%s: an ELF core (%s) of pid %d (%s), %zu threads, signal %d: making a report of a core "
	          "is not in this build yet", path, pmi_core_arch_name(c->arch), c->psinfo.pid,
	          c->has_psinfo ? c->psinfo.fname : "?", c->nthreads, c->has_siginfo ? c->siginfo.signo : c->threads[0].signal);
	pmi_core_close(c);
	return true;
}
