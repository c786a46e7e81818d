/*
 * cmd_symbols.c — `postmortem symbols build FILE... [-o DIR]`: pre-parsed
 * symbol tables (pm_symbols_build) that `symbolicate --debug-dir DIR` uses.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const char usage_line[] = "symbols build FILE... [-o DIR]";

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "Read the DWARF and symbols of each debug FILE once (an ELF file with a\n"
	       "build id; a dSYM's DWARF file or a Mach-O file, each slice of a universal\n"
	       "one) and write every answer symbolicate would give, as a table DIR/<id>.pmsym\n"
	       "named by the build id or UUID.  symbolicate --debug-dir DIR then looks each\n"
	       "frame up in the table instead of reading the DWARF again.\n\n"
	       "  -o, --output DIR   where the tables go (default: the current directory)\n"
	       "  -h, --help         show this help\n\n"
	       "Exit status: 0 every FILE gave a table, 1 some FILE could not be read or\n"
	       "its table written, 2 bad usage.\n",
	       usage_line);
}

int
cmd_symbols(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir = ".";
	int c;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': dir = optarg; break;
		case 'h': help(); return PM_EXIT_OK;
		default: return cli_usage_error("symbols", usage_line);
		}
	}
	if (optind + 1 >= argc || strcmp(argv[optind], "build") != 0)
		return cli_usage_error("symbols", usage_line);
	int rc = PM_EXIT_OK;
	for (int i = optind + 1; i < argc; i++) {
		char msg[4096];
		pm_err e = pm_symbols_build(argv[i], dir, msg, sizeof msg);
		if (e == PM_OK) {
			printf("%s\n", msg);
		} else {
			cli_error("symbols", "%s: %s", argv[i], msg[0] ? msg : pm_strerror(e));
			rc = PM_EXIT_FAIL;
		}
	}
	return rc;
}
