/*
 * cmd_explain.c — `postmortem explain IN [--json]`.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"

static const char usage_line[] = "explain IN [--json]";

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "Read a crash report (postmortem JSON twin, Apple .crash or .ips) and say in\n"
	       "plain words what happened: the signal or exception, which thread, its top\n"
	       "frames, the image the crash is in and whether it is the app or a library,\n"
	       "and what a termination code such as 0x8badf00d means.\n\n"
	       "  -j, --json   print the diagnosis as a JSON object\n"
	       "  -h, --help   show this help\n\n"
	       "Exit status: 0 explained, 1 IN could not be read, 2 bad usage, 3 output failed.\n",
	       usage_line);
}

int
cmd_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool json = false;
	int c;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'h': help(); return PM_EXIT_OK;
		default: return cli_usage_error("explain", usage_line);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("explain", usage_line);
	pm_report r;
	int rc = cli_load("explain", argv[optind], &r);
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
