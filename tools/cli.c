/*
 * cli.c — error reporting and report writing shared by the subcommands.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"

void
cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	char line[4096];
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	/* Messages quote file names and report contents. */
	fprintf(stderr, "postmortem %s: ", cmd);
	cli_print_masked(stderr, line);
	fputc('\n', stderr);
}

int
cli_usage_error(const char *cmd, const char *usage)
{
	fprintf(stderr, "usage: postmortem %s\nTry 'postmortem %s --help'.\n", usage, cmd);
	return PM_EXIT_USAGE;
}

const char **
cli_debug_dirs(const char *cmd, int argc)
{
	/* At most every other argument is a directory. */
	const char **dirs = calloc((size_t)argc, sizeof *dirs);
	if (!dirs)
		cli_error(cmd, "out of memory");
	return dirs;
}

/* A device or FIFO is written in place: it is not ours to replace or remove. */
static int
write_in_place(const char *cmd, const pm_report *r, bool json, const char *out)
{
	int fd = open(out, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	bool ok = fd >= 0 && cli_render(r, json, fd);
	int why = errno;
	if (fd >= 0 && close(fd) != 0 && ok) {
		ok = false;
		why = errno;
	}
	if (ok)
		return PM_EXIT_OK;
	cli_error(cmd, "cannot write %s: %s", out, strerror(why));
	return PM_EXIT_IO;
}

/*
 * A file is written whole or not at all: into a temporary beside it, renamed
 * over it only when every byte is there.  A failed write removes only that
 * temporary, never what was at OUT.  Through a symlink the target is
 * replaced and the link kept.
 */
static int
write_replacing(const char *cmd, const pm_report *r, bool json, const char *out, const struct stat *old)
{
	char *target = old ? realpath(out, NULL) : strdup(out), *tmp = NULL;
	const char *slash = target ? strrchr(target, '/') : NULL;
	int dir_len = slash ? (int)(slash - target) + 1 : 0;
	int fd = -1;
	if (target && asprintf(&tmp, "%.*s.%s.XXXXXX", dir_len, target, target + dir_len) > 0)
		fd = mkstemp(tmp);
	else
		tmp = NULL;
	mode_t mask = umask(0);
	umask(mask);
	bool ok = fd >= 0 && fchmod(fd, old ? old->st_mode & 0777 : 0666 & ~mask) == 0 &&
	          cli_render(r, json, fd) && fsync(fd) == 0;
	int why = errno;
	if (fd >= 0 && close(fd) != 0 && ok) {
		ok = false;
		why = errno;
	}
	if (ok && rename(tmp, target) != 0) {
		ok = false;
		why = errno;
	}
	if (!ok && fd >= 0)
		unlink(tmp);
	free(tmp);
	free(target);
	if (ok)
		return PM_EXIT_OK;
	cli_error(cmd, "cannot write %s: %s", out, strerror(why));
	return PM_EXIT_IO;
}

int
cli_write_report(const char *cmd, const pm_report *r, bool json, const char *out)
{
	if (!out) {
		if (cli_render(r, json, STDOUT_FILENO))
			return PM_EXIT_OK;
		cli_error(cmd, "cannot write standard output: %s", strerror(errno));
		return PM_EXIT_IO;
	}
	struct stat st;
	bool exists = stat(out, &st) == 0;
	if (exists && !S_ISREG(st.st_mode))
		return write_in_place(cmd, r, json, out);
	return write_replacing(cmd, r, json, out, exists ? &st : NULL);
}

int
cli_stdout_done(const char *cmd)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return PM_EXIT_OK;
	cli_error(cmd, "cannot write standard output: %s", strerror(errno));
	return PM_EXIT_IO;
}
