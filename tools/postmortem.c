/*
 * postmortem.c — the CLI entry point: dispatches to tools/cmd_*.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

typedef struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} command;

static const command commands[] = {
	{ "convert", cmd_convert, "convert a report between .crash text and the JSON twin" },
	{ "explain", cmd_explain, "say in plain words what a crash report shows" },
	{ "symbolicate", cmd_symbolicate, "add functions, files, lines and inlined calls from debug info" },
	{ "symbols", cmd_symbols, "build pre-parsed symbol tables for symbolicate" },
	{ "list", cmd_list, "list the reports of a reports directory and their state" },
	{ "show", cmd_show, "print a stored report by its id" },
	{ "run", cmd_run, "run a program with the crash reporter preloaded" },
	{ "stats", cmd_stats, "crash-free rates per release, from the sessions of the runs" },
	{ "upload", cmd_upload, "send the pending reports to a server over HTTP(S)" },
	{ "system", cmd_system, "report every crashing process of the machine (kernel.core_pattern)" },
};

static void
usage(FILE *f)
{
	fprintf(f, "usage: postmortem <command> [options]\n\n"
	           "Crash reports: read Apple .crash/.ips and postmortem's own reports,\n"
	           "convert, explain, and manage the reports of crashed programs.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'postmortem <command> --help' describes a command; 'postmortem --version'\n"
	           "(or -v, or version) prints the version.\n"
	           "Exit status: 0 success, 1 failure (unreadable input, failed operation),\n"
	           "2 bad usage, 3 output could not be written.\n");
}

/* Edit distance (insertions, deletions, substitutions, adjacent swaps),
 * for "did you mean": command names are short, so a small fixed table. */
static size_t
distance(const char *a, const char *b)
{
	enum { MAX = 32 };
	size_t n = strlen(a), m = strlen(b), d[MAX + 1][MAX + 1];
	if (n > MAX || m > MAX)
		return MAX;
	for (size_t i = 0; i <= n; i++)
		for (size_t j = 0; j <= m; j++) {
			if (i == 0 || j == 0) {
				d[i][j] = i + j;
				continue;
			}
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[n][m];
}

static void
unknown_command(const char *name)
{
	fprintf(stderr, "postmortem: unknown command '%s'\n", name);
	size_t best = 3, found = 0;
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		size_t d = distance(name, commands[i].name);
		if (d < best) {
			best = d;
			found = i + 1;
		}
	}
	if (found)
		fprintf(stderr, "Did you mean 'postmortem %s'?\n", commands[found - 1].name);
	fprintf(stderr, "Run 'postmortem --help' for the list of commands.\n");
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return PM_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return PM_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-v") == 0 || strcmp(argv[1], "version") == 0) {
		printf("postmortem %s\n", PM_VERSION);
		return PM_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(argv[1], commands[i].name) == 0) {
			/* getopt names argv[0] in its messages: "postmortem explain: unrecognized option". */
			char *self;
			if (asprintf(&self, "postmortem %s", commands[i].name) < 0)
				return PM_EXIT_FAIL;
			argv[1] = self;
			int rc = commands[i].run(argc - 1, argv + 1);
			free(self);
			return rc;
		}
	unknown_command(argv[1]);
	return PM_EXIT_USAGE;
}
