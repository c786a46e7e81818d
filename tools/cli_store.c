/*
 * cli_store.c — opening the reports directory for the store subcommands.
 */
#include "commands.h"

const char cli_dir_help[] =
	"  -d, --dir D   reports directory (default: $POSTMORTEM_DIR, else\n"
	"                $XDG_STATE_HOME/postmortem, else ~/.local/state/postmortem)\n";

int
cli_open_store(const char *cmd, const char *dir, pm_store **s)
{
	pm_store_options opt = { .dir = dir };
	pm_err e = pm_store_open(s, &opt);
	if (e == PM_OK)
		return PM_EXIT_OK;
	if (e == PM_E_NOTFOUND && dir)
		cli_error(cmd, "no reports directory at %s", dir);
	else if (e == PM_E_NOTFOUND)
		cli_error(cmd, "no reports directory at the default place (pass --dir, or set POSTMORTEM_DIR)");
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
