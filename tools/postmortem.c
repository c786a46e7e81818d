/*
 * postmortem.c — the CLI entry point: dispatches to tools/cmd_*.c.
 */
#include <stdio.h>
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
	{ "upload", cmd_upload, "send the pending reports to a server over HTTP(S)" },
};

static void
usage(FILE *f)
{
	fprintf(f, "usage: postmortem <command> [options]\n\n"
	           "Crash reports: read Apple .crash/.ips and postmortem's own reports,\n"
	           "convert, explain, and manage the reports of crashed programs.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'postmortem <command> --help' describes a command.\n"
	           "Exit status: 0 success, 1 failure (unreadable input, failed operation),\n"
	           "2 bad usage, 3 output could not be written.\n");
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
	if (strcmp(argv[1], "--version") == 0) {
		printf("postmortem %s\n", PM_VERSION);
		return PM_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "postmortem: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return PM_EXIT_USAGE;
}
