/*
 * cmd_symbolicate.c — `postmortem symbolicate REPORT [--debug-dir DIR]...
 * [--debuginfod URL]... [--no-debuginfod] [-o OUT] [--to crash|json] [--exe PATH] [--sysroot DIR]`.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static const char usage_line[] =
	"symbolicate REPORT [--debug-dir DIR]... [--debuginfod URL]... [--no-debuginfod] [-o OUT] [--to crash|json] "
	"[--exe PATH] [--sysroot DIR]";

enum { OPT_DEBUGINFOD = 256, OPT_NO_DEBUGINFOD, OPT_EXE, OPT_SYSROOT };

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "Give the frames of a crash report function names, source files, lines and\n"
	       "inlined calls from debug information found by each image's build id: the\n"
	       "image file itself, its .gnu_debuglink, /usr/lib/debug/.build-id, each DIR\n"
	       "(a .build-id tree, or a directory of files named like the images), then the\n"
	       "debuginfod servers of $DEBUGINFOD_URLS (elfutils' client and cache).  A\n"
	       "file whose build id differs is never used.  Images without debug\n"
	       "information keep their names; why is printed to standard error and kept in\n"
	       "the JSON twin.  Apple reports: each image's UUID picks a dSYM in a DIR\n"
	       "(DIR/NAME.dSYM, any other .dSYM bundle, or a Mach-O file; the slice of the\n"
	       "report's architecture in a universal file); another UUID is never used.\n"
	       "REPORT is a file, or a report id (or a unique beginning of one) of the\n"
	       "reports directory; an ELF core file is made a report first, as 'postmortem\n"
	       "convert' makes it.\n\n"
	       "  -d, --debug-dir DIR    look for debug files in DIR too (repeatable)\n"
	       "%s"
	       "  -o, --output OUT       write to OUT instead of standard output\n"
	       "  -t, --to FORMAT        crash or json (default: json for a JSON twin, else crash)\n"
	       "%s"
	       "  -h, --help             show this help\n\n"
	       "Exit status: 0 written (also when a server could not be reached), 1 REPORT\n"
	       "could not be found, read or symbolicated, 2 bad usage, 3 OUT could not be written.\n",
	       usage_line, cli_debuginfod_help, cli_core_help);
}

static void
print_notes(const pm_report *r)
{
	for (uint32_t i = 0; i < r->image_count; i++)
		if (r->images[i].note)
			cli_error("symbolicate", "%s: %s", r->images[i].name ? r->images[i].name : "???",
			          r->images[i].note);
}

static int
symbolicate(const char *arg, const pm_symbolicate_options *opt, cli_debuginfod *dfd, const char *out,
            const char *to, const cli_core_files *where)
{
	char *in;
	int rc = cli_report_path("symbolicate", NULL, arg, &in);
	if (rc != PM_EXIT_OK)
		return rc;
	pm_report r;
	rc = cli_load("symbolicate", in, where, &r);
	if (rc != PM_EXIT_OK) {
		free(in);
		return rc;
	}
	pm_err e = pm_symbolicate(&r, opt);
	cli_debuginfod_clear(dfd);
	if (e == PM_OK) {
		print_notes(&r);
		bool json = to ? strcmp(to, "json") == 0 : r.format == PM_FORMAT_JSON;
		rc = cli_write_report("symbolicate", &r, json, out);
	} else {
		cli_error("symbolicate", "%s: %s", in, pm_strerror(e));
		rc = PM_EXIT_FAIL;
	}
	free(in);
	pm_report_free(&r);
	return rc;
}

int
cmd_symbolicate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "debug-dir", required_argument, NULL, 'd' },
		{ "debuginfod", required_argument, NULL, OPT_DEBUGINFOD },
		{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
		{ "output", required_argument, NULL, 'o' },
		{ "to", required_argument, NULL, 't' },
		{ "exe", required_argument, NULL, OPT_EXE },
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char **dirs = cli_debug_dirs("symbolicate", argc);
	if (!dirs)
		return PM_EXIT_FAIL;
	pm_symbolicate_options opt = { .debug_dirs = dirs };
	cli_debuginfod dfd = { .cmd = "symbolicate" };
	const char *out = NULL, *to = NULL;
	cli_core_files where = { 0 };
	int c, rc = -1;
	while (rc < 0 && (c = getopt_long(argc, argv, "d:o:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dirs[opt.debug_dir_count++] = optarg; break;
		case OPT_DEBUGINFOD: rc = cli_debuginfod_add(&dfd, optarg) ? -1 : PM_EXIT_FAIL; break;
		case OPT_NO_DEBUGINFOD: dfd.off = true; break;
		case 'o': out = optarg; break;
		case 't': to = optarg; break;
		case OPT_EXE: where.exe = optarg; break;
		case OPT_SYSROOT: where.sysroot = optarg; break;
		case 'h': help(); rc = PM_EXIT_OK; break;
		default: rc = cli_usage_error("symbolicate", usage_line); break;
		}
	}
	if (rc < 0 && to && strcmp(to, "crash") != 0 && strcmp(to, "json") != 0) {
		cli_error("symbolicate", "--to must be crash or json, not '%s'", to);
		rc = PM_EXIT_USAGE;
	}
	if (rc < 0 && optind + 1 != argc)
		rc = cli_usage_error("symbolicate", usage_line);
	if (rc < 0) {
		/* The notes printed after it name an unreachable server for the image that asked. */
		cli_debuginfod_use(&dfd, &opt, false);
		rc = symbolicate(argv[optind], &opt, &dfd, out, to, &where);
	}
	cli_debuginfod_end(&dfd);
	free(dirs);
	return rc;
}
