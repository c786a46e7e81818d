/*
 * cli_store.c — opening the reports directory for the store subcommands.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"

const char cli_dir_help[] =
	"  -d, --dir D   reports directory (default: $POSTMORTEM_DIR, else\n"
	"                $XDG_STATE_HOME/postmortem, else ~/.local/state/postmortem)\n";

const char *
cli_dir_origin(const char *dir, char *buf, size_t cap)
{
	/* The order pm_install resolves it in (include/postmortem.h, pm_config.reports_dir). */
	const char *v;
	if (dir)
		snprintf(buf, cap, "%s (from --dir)", dir);
	else if ((v = getenv("POSTMORTEM_DIR")) && *v)
		snprintf(buf, cap, "%s (from $POSTMORTEM_DIR)", v);
	else if ((v = getenv("XDG_STATE_HOME")) && *v == '/')
		snprintf(buf, cap, "%s/postmortem (from $XDG_STATE_HOME)", v);
	else if ((v = getenv("HOME")) && *v == '/')
		snprintf(buf, cap, "%s/.local/state/postmortem (the default place; pass --dir or set POSTMORTEM_DIR)", v);
	else
		snprintf(buf, cap, "the default place (no $HOME; pass --dir or set POSTMORTEM_DIR)");
	return buf;
}

int
cli_open_store(const char *cmd, const char *dir, pm_store **s)
{
	/* The CLI's store commands only look: opening for them never writes. */
	pm_store_options opt = { .dir = dir, .read_only = true };
	pm_err e = pm_store_open(s, &opt);
	if (e == PM_OK)
		return PM_EXIT_OK;
	char where[512];
	if (e == PM_E_NOTFOUND)
		cli_error(cmd, "no reports directory at %s", cli_dir_origin(dir, where, sizeof where));
	else
		cli_error(cmd, "cannot open the reports directory%s%s: %s", dir ? " " : "", dir ? dir : "",
		          pm_strerror(e));
	return PM_EXIT_FAIL;
}

const char *
cli_state_name(pm_report_state st)
{
	static const char *const names[] = { "pending", "partial", "quarantined", "sent" };
	return (unsigned)st < sizeof names / sizeof names[0] ? names[st] : "?";
}

int
cli_parse_store_args(const cli_store_cmd *cmd, int argc, char **argv, const char **dir, bool *json)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;
	*dir = NULL;
	*json = false;
	while ((c = getopt_long(argc, argv, "d:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'd': *dir = optarg; break;
		case 'j': *json = true; break;
		case 'h': cmd->help(); return PM_EXIT_OK;
		default: return cli_usage_error(cmd->name, cmd->usage);
		}
	}
	if (argc - optind != cmd->operands)
		return cli_usage_error(cmd->name, cmd->usage);
	return -1;
}
