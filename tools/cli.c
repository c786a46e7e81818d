/*
 * cli.c — error reporting and report loading shared by the subcommands.
 */
#include <stdarg.h>
#include <stdio.h>

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
