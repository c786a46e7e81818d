/*
 * cli.c — error reporting and report loading shared by the subcommands.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

void
cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "postmortem %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int
cli_load(const char *cmd, const char *path, pm_report *r)
{
	pm_read_error err = { 0 };
	pm_report_init(r);
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

int
cli_usage_error(const char *cmd, const char *usage)
{
	fprintf(stderr, "usage: postmortem %s\nTry 'postmortem %s --help'.\n", usage, cmd);
	return PM_EXIT_USAGE;
}

int
cli_write_report(const char *cmd, const pm_report *r, bool json, const char *out)
{
	int fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : STDOUT_FILENO;
	if (fd < 0) {
		cli_error(cmd, "cannot write %s: %s", out, strerror(errno));
		return PM_EXIT_IO;
	}
	char buf[1 << 16];
	pm_out o;
	pm_out_init_fd(&o, fd, buf, sizeof buf);
	pm_err e = json ? pm_write_json(r, &o) : pm_write_text(r, &o);
	if (out && close(fd) != 0 && e == PM_OK)
		e = PM_E_IO;
	if (e == PM_OK)
		return PM_EXIT_OK;
	cli_error(cmd, "cannot write %s: %s", out ? out : "standard output", strerror(errno));
	if (out)
		unlink(out); /* never leave half a report behind */
	return PM_EXIT_IO;
}
