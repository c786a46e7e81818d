/*
 * cmd_symbols.c — `postmortem symbols build FILE... [--build-id ID]... [-o DIR]`:
 * pre-parsed symbol tables (pm_symbols_build, pm_symbols_build_id) that
 * `symbolicate --debug-dir DIR` uses.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static const char usage_line[] =
	"symbols build [FILE]... [--build-id ID]... [--debuginfod URL]... [--no-debuginfod] [-o DIR]";

enum { OPT_DEBUGINFOD = 256, OPT_NO_DEBUGINFOD };

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "Read the DWARF and symbols of each debug FILE once (an ELF file with a\n"
	       "build id; a dSYM's DWARF file or a Mach-O file, each slice of a universal\n"
	       "one) and write every answer symbolicate would give, as a table DIR/<id>.pmsym\n"
	       "named by the build id or UUID.  symbolicate --debug-dir DIR then looks each\n"
	       "frame up in the table instead of reading the DWARF again.  For each --build-id\n"
	       "the debug file is found as symbolicate finds it: /usr/lib/debug/.build-id,\n"
	       "then the debuginfod servers of $DEBUGINFOD_URLS (the executable itself when\n"
	       "they have no debug file: a table of its symbols).\n\n"
	       "  -b, --build-id ID      build the table of the image with this build id (hex)\n"
	       "%s"
	       "  -o, --output DIR       where the tables go (default: the current directory)\n"
	       "  -h, --help             show this help\n\n"
	       "Exit status: 0 every FILE and ID gave a table, 1 some could not be read or\n"
	       "found or its table written, 2 bad usage (an ID that is not hex).\n",
	       usage_line, cli_debuginfod_help);
}

static int
report(const char *what, pm_err e, const char *msg)
{
	if (e == PM_OK) {
		printf("%s\n", msg);
		return PM_EXIT_OK;
	}
	cli_error("symbols", "%s: %s", what, msg[0] ? msg : pm_strerror(e));
	return PM_EXIT_FAIL;
}

/* Each id once; after the servers could not be reached, local files only. */
static int
build_ids(char **ids, size_t n, const char *dir, pm_symbolicate_options *opt, cli_debuginfod *dfd)
{
	int rc = PM_EXIT_OK;
	cli_debuginfod_use(dfd, opt, false);
	for (size_t i = 0; i < n; i++) {
		bool again = false;
		for (size_t k = 0; k < i; k++)
			again |= strcmp(ids[k], ids[i]) == 0;
		if (again)
			continue;
		opt->debuginfod &= !dfd->failed;
		char msg[4096];
		pm_err e = pm_symbols_build_id(ids[i], dir, opt, msg, sizeof msg);
		cli_debuginfod_clear(dfd);
		if (report(ids[i], e, msg) != PM_EXIT_OK && rc != PM_EXIT_USAGE)
			rc = e == PM_E_INVAL ? PM_EXIT_USAGE : PM_EXIT_FAIL;
	}
	return rc;
}

int
cmd_symbols(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "build-id", required_argument, NULL, 'b' },
		{ "debuginfod", required_argument, NULL, OPT_DEBUGINFOD },
		{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char **ids = calloc((size_t)argc, sizeof *ids);
	if (!ids) {
		cli_error("symbols", "out of memory");
		return PM_EXIT_FAIL;
	}
	size_t id_count = 0;
	cli_debuginfod dfd = { .cmd = "symbols" };
	const char *dir = ".";
	int c, rc = -1;
	while (rc < 0 && (c = getopt_long(argc, argv, "b:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b': ids[id_count++] = optarg; break;
		case OPT_DEBUGINFOD: rc = cli_debuginfod_add(&dfd, optarg) ? -1 : PM_EXIT_FAIL; break;
		case OPT_NO_DEBUGINFOD: dfd.off = true; break;
		case 'o': dir = optarg; break;
		case 'h': help(); rc = PM_EXIT_OK; break;
		default: rc = cli_usage_error("symbols", usage_line); break;
		}
	}
	if (rc < 0 && (optind >= argc || strcmp(argv[optind], "build") != 0 || (optind + 1 == argc && !id_count)))
		rc = cli_usage_error("symbols", usage_line);
	if (rc < 0) {
		rc = PM_EXIT_OK;
		for (int i = optind + 1; i < argc; i++) {
			char msg[4096];
			pm_err e = pm_symbols_build(argv[i], dir, msg, sizeof msg);
			if (report(argv[i], e, msg) != PM_EXIT_OK)
				rc = PM_EXIT_FAIL;
		}
		pm_symbolicate_options opt = { 0 };
		int ids_rc = build_ids(ids, id_count, dir, &opt, &dfd);
		rc = ids_rc != PM_EXIT_OK ? ids_rc : rc;
	}
	cli_debuginfod_end(&dfd);
	free(ids);
	return rc;
}
