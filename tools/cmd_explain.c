/*
 * cmd_explain.c — `postmortem explain [REPORT] [--dir D] [--json]`.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"

static const char usage_line[] =
	"explain [REPORT] [--dir D] [--json] [--debug-dir DIR]... [--debuginfod URL]... [--no-debuginfod] "
	"[--no-symbolicate] [--exe PATH] [--sysroot DIR]";

enum { OPT_DEBUGINFOD = 256, OPT_NO_DEBUGINFOD, OPT_EXE, OPT_SYSROOT };

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "Read a crash report (postmortem JSON twin, Apple .crash or .ips, minidump, or an\n"
	       "ELF core file, made a report as 'postmortem convert' makes it) and say in\n"
	       "plain words what happened: the signal or exception, which thread, its top\n"
	       "frames, the image the crash is in and whether it is the app or a library,\n"
	       "and what a termination code such as 0x8badf00d means.  REPORT is a file,\n"
	       "or a report id of the reports directory as 'postmortem list' shows it (or\n"
	       "a unique beginning of one); without REPORT, the newest pending report.\n"
	       "Frames are first symbolicated from the debug information found by build\n"
	       "id (as 'postmortem symbolicate' does, debuginfod servers included) and\n"
	       "their names demangled; the first frame in your code skips the language\n"
	       "runtime's own abort and panic path (libc abort/raise/assert, libstdc++'s\n"
	       "terminate, Rust's panic).\n\n"
	       "%s"
	       "  -j, --json             print the diagnosis as a JSON object\n"
	       "      --debug-dir DIR    also look for debug files in DIR (repeatable)\n"
	       "%s"
	       "  -n, --no-symbolicate   explain the frames as the report names them\n"
	       "%s"
	       "  -h, --help             show this help\n\n"
	       "Exit status: 0 explained, 1 REPORT could not be found or read, 2 bad usage,\n"
	       "3 output failed.\n",
	       usage_line, cli_dir_help, cli_debuginfod_help, cli_core_help);
}

/* Readable frames first: what the debug information says, names demangled. */
static int
readable(pm_report *r, const pm_symbolicate_options *opt, cli_debuginfod *dfd, bool symbolicate)
{
	pm_err e = symbolicate ? pm_symbolicate(r, opt) : pm_demangle_report(r);
	cli_debuginfod_clear(dfd);
	if (e == PM_OK)
		return PM_EXIT_OK;
	cli_error("explain", "%s", pm_strerror(e));
	return PM_EXIT_FAIL;
}

static int
explain(const char *dir, const char *arg, bool json, const pm_symbolicate_options *opt, cli_debuginfod *dfd,
        bool symbolicate, const cli_core_files *where)
{
	char *path;
	int rc = cli_report_path("explain", dir, arg, &path);
	if (rc != PM_EXIT_OK)
		return rc;
	pm_report r;
	rc = cli_load("explain", path, where, &r);
	free(path);
	if (rc != PM_EXIT_OK)
		return rc;
	rc = readable(&r, opt, dfd, symbolicate);
	char *text = rc == PM_EXIT_OK ? pm_explain(&r, json) : NULL;
	pm_report_free(&r);
	if (rc != PM_EXIT_OK)
		return rc;
	if (!text) {
		cli_error("explain", "out of memory");
		return PM_EXIT_FAIL;
	}
	/* The crash group's title as the crash handler wrote it may hold a name it left mangled. */
	char *plain = json ? NULL : pm_demangle_text(text);
	if (plain) {
		free(text);
		text = plain;
	}
	int ok = cli_print_masked(stdout, text) >= 0 && fflush(stdout) == 0;
	free(text);
	if (!ok) {
		cli_error("explain", "cannot write the diagnosis");
		return PM_EXIT_IO;
	}
	return PM_EXIT_OK;
}

int
cmd_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "debug-dir", required_argument, NULL, 'g' },
		{ "debuginfod", required_argument, NULL, OPT_DEBUGINFOD },
		{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
		{ "no-symbolicate", no_argument, NULL, 'n' },
		{ "exe", required_argument, NULL, OPT_EXE },
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char **dirs = cli_debug_dirs("explain", argc);
	if (!dirs)
		return PM_EXIT_FAIL;
	pm_symbolicate_options opt = { .debug_dirs = dirs };
	cli_debuginfod dfd = { .cmd = "explain" };
	const char *dir = NULL;
	bool json = false, symbolicate = true;
	cli_core_files where = { 0 };
	int c, rc = -1;
	while (rc < 0 && (c = getopt_long(argc, argv, "d:jnh", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'j': json = true; break;
		case 'g': dirs[opt.debug_dir_count++] = optarg; break;
		case OPT_DEBUGINFOD: rc = cli_debuginfod_add(&dfd, optarg) ? -1 : PM_EXIT_FAIL; break;
		case OPT_NO_DEBUGINFOD: dfd.off = true; break;
		case 'n': symbolicate = false; break;
		case OPT_EXE: where.exe = optarg; break;
		case OPT_SYSROOT: where.sysroot = optarg; break;
		case 'h': help(); rc = PM_EXIT_OK; break;
		default: rc = cli_usage_error("explain", usage_line); break;
		}
	}
	if (rc < 0 && argc - optind > 1)
		rc = cli_usage_error("explain", usage_line);
	if (rc < 0) {
		/* Notes about images are not explain's to print; a server that cannot be reached is. */
		cli_debuginfod_use(&dfd, &opt, true);
		rc = explain(dir, argv[optind], json, &opt, &dfd, symbolicate, &where);
	}
	cli_debuginfod_end(&dfd);
	free(dirs);
	return rc;
}
