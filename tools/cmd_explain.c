/*
 * cmd_explain.c — `postmortem explain [REPORT] [--dir D] [--json]`.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"

static const char usage_line[] = "explain [REPORT] [--dir D] [--json]";

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "Read a crash report (postmortem JSON twin, Apple .crash or .ips) and say in\n"
	       "plain words what happened: the signal or exception, which thread, its top\n"
	       "frames, the image the crash is in and whether it is the app or a library,\n"
	       "and what a termination code such as 0x8badf00d means.  REPORT is a file,\n"
	       "or a report id of the reports directory as 'postmortem list' shows it (or\n"
	       "a unique beginning of one); without REPORT, the newest pending report.\n\n"
	       "%s"
	       "  -j, --json    print the diagnosis as a JSON object\n"
	       "  -h, --help    show this help\n\n"
	       "Exit status: 0 explained, 1 REPORT could not be found or read, 2 bad usage,\n"
	       "3 output failed.\n",
	       usage_line, cli_dir_help);
}

int
cmd_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir = NULL;
	bool json = false;
	int c;
	while ((c = getopt_long(argc, argv, "d:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'j': json = true; break;
		case 'h': help(); return PM_EXIT_OK;
		default: return cli_usage_error("explain", usage_line);
		}
	}
	if (argc - optind > 1)
		return cli_usage_error("explain", usage_line);
	char *path;
	int rc = cli_report_path("explain", dir, argv[optind], &path);
	if (rc != PM_EXIT_OK)
		return rc;
	pm_report r;
	rc = cli_load("explain", path, &r);
	free(path);
	if (rc != PM_EXIT_OK)
		return rc;
	char *text = pm_explain(&r, json);
	pm_report_free(&r);
	if (!text) {
		cli_error("explain", "out of memory");
		return PM_EXIT_FAIL;
	}
	int ok = cli_print_masked(stdout, text) >= 0 && fflush(stdout) == 0;
	free(text);
	if (!ok) {
		cli_error("explain", "cannot write the diagnosis");
		return PM_EXIT_IO;
	}
	return PM_EXIT_OK;
}
