/*
 * cmd_convert.c — `postmortem convert REPORT [-o OUT] [--to crash|json] [--exe PATH] [--sysroot DIR]`.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static const char usage_line[] = "convert REPORT [-o OUT] [--to crash|json] [--exe PATH] [--sysroot DIR]";

enum { OPT_EXE = 256, OPT_SYSROOT };

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "Read a crash report in any supported format (detected from its content:\n"
	       "postmortem JSON twin, Apple .crash text, Apple .ips, minidump) and write it as\n"
	       "Apple-style .crash text or as a postmortem JSON twin.  REPORT is a file, or\n"
	       "a report id (or a unique beginning of one) of the reports directory.  An ELF\n"
	       "core file (the kernel's, gdb's gcore's, coredumpctl dump's; any size) becomes\n"
	       "the report postmortem's handler would have written: every thread walked over\n"
	       "the core's memory and the files it maps.\n\n"
	       "  -o, --output OUT       write to OUT instead of standard output\n"
	       "  -t, --to FORMAT        crash or json (default: crash, or json when REPORT is .crash text)\n"
	       "%s"
	       "  -h, --help             show this help\n\n"
	       "Exit status: 0 converted, 1 REPORT could not be found or read, 2 bad usage, 3 OUT could not be written.\n",
	       usage_line, cli_core_help);
}

static int
convert(const char *arg, const char *out, const char *to, const cli_core_files *where)
{
	char *in;
	int rc = cli_report_path("convert", NULL, arg, &in);
	if (rc != PM_EXIT_OK)
		return rc;
	pm_report r;
	rc = cli_load("convert", in, where, &r);
	free(in);
	if (rc != PM_EXIT_OK)
		return rc;
	bool json = to ? strcmp(to, "json") == 0 : r.format == PM_FORMAT_TEXT;
	rc = cli_write_report("convert", &r, json, out);
	pm_report_free(&r);
	return rc;
}

int
cmd_convert(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "to", required_argument, NULL, 't' },
		{ "exe", required_argument, NULL, OPT_EXE },
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out = NULL, *to = NULL;
	cli_core_files where = { 0 };
	int c;
	while ((c = getopt_long(argc, argv, "o:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 't': to = optarg; break;
		case OPT_EXE: where.exe = optarg; break;
		case OPT_SYSROOT: where.sysroot = optarg; break;
		case 'h': help(); return PM_EXIT_OK;
		default: return cli_usage_error("convert", usage_line);
		}
	}
	if (to && strcmp(to, "crash") != 0 && strcmp(to, "json") != 0) {
		cli_error("convert", "--to must be crash or json, not '%s'", to);
		return PM_EXIT_USAGE;
	}
	if (optind + 1 != argc)
		return cli_usage_error("convert", usage_line);
	return convert(argv[optind], out, to, &where);
}
