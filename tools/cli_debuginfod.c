/*
 * cli_debuginfod.c — how symbolicate, explain and symbols build use
 * debuginfod: the servers of $DEBUGINFOD_URLS unless --debuginfod names
 * others or --no-debuginfod turns it off; a progress line on a terminal.
 *
 * elfutils' client reads its servers from the environment at each question
 * and has no other way to be given them, so --debuginfod sets
 * DEBUGINFOD_URLS for this process.  Its retries are turned off unless
 * DEBUGINFOD_RETRY_LIMIT says otherwise: a silent server would cost
 * DEBUGINFOD_TIMEOUT three times (and symbolication asks no server again
 * after one failure anyway).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

/* Smaller downloads end before a progress line would be read. */
enum { PROGRESS_MIN_BYTES = 1024 * 1024 };

const char cli_debuginfod_help[] =
	"      --debuginfod URL   ask this debuginfod server for what no local file has,\n"
	"                         instead of those of $DEBUGINFOD_URLS (repeatable)\n"
	"      --no-debuginfod    local files only\n";

bool
cli_debuginfod_add(cli_debuginfod *d, const char *url)
{
	char *joined;
	if (asprintf(&joined, "%s%s%s", d->urls ? d->urls : "", d->urls ? " " : "", url) < 0) {
		cli_error(d->cmd, "out of memory");
		return false;
	}
	free(d->urls);
	d->urls = joined;
	return true;
}

static void
progress(void *ctx, const char *image, long done, long total)
{
	cli_debuginfod *d = ctx;
	if (total < PROGRESS_MIN_BYTES)
		return;
	char a[32], b[32], line[512];
	cli_format_size((uint64_t)done, a, sizeof a);
	cli_format_size((uint64_t)total, b, sizeof b);
	snprintf(line, sizeof line, "postmortem %s: downloading %s from debuginfod: %s of %s", d->cmd, image, a, b);
	/* Cleared, written, carriage return: the next line writes over it. */
	fputs("\033[K", stderr);
	cli_print_masked(stderr, line);
	fputc('\r', stderr);
	fflush(stderr);
	d->shown = true;
}

static void
unreachable(void *ctx, const char *note)
{
	cli_debuginfod *d = ctx;
	d->failed = true;
	if (!d->say_unreachable)
		return;
	if (d->shown)
		fputs("\033[K", stderr);
	cli_error(d->cmd, "%s", note);
}

void
cli_debuginfod_use(cli_debuginfod *d, pm_symbolicate_options *opt, bool say_unreachable)
{
	if (d->off)
		return;
	if (d->urls)
		setenv("DEBUGINFOD_URLS", d->urls, 1);
	setenv("DEBUGINFOD_RETRY_LIMIT", "0", 0);
	opt->debuginfod = true;
	opt->ctx = d;
	if (isatty(STDERR_FILENO))
		opt->progress = progress;
	opt->unreachable = unreachable;
	d->say_unreachable = say_unreachable;
}

void
cli_debuginfod_clear(cli_debuginfod *d)
{
	if (d->shown)
		fputs("\033[K", stderr);
	d->shown = false;
}

void
cli_debuginfod_end(cli_debuginfod *d)
{
	cli_debuginfod_clear(d);
	free(d->urls);
	d->urls = NULL;
}
