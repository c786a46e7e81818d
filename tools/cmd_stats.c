/*
 * cmd_stats.c — `postmortem stats [--dir D] [--json]`: crash-free rates per
 * release, from the store's sessions (pm_store_release_stats).
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"

static const char usage_line[] = "stats [--dir D] [--json]";

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "Release health: per release (<app id>@<version>), the runs that ended and\n"
	       "how, from the sessions of a reports directory, delivered or not\n"
	       "(docs/sentry.md, \"Sessions\"), newest release first:\n"
	       "  runs       runs that ended (a run still going is not counted yet)\n"
	       "  exited     exited without errors\n"
	       "  errored    exited with errors: a non-zero exit code, hang reports\n"
	       "  crashed    ended by a crash that left a report\n"
	       "  abnormal   ended with neither: SIGKILL, the OOM killer (oom: those it\n"
	       "             is known for), a power loss\n"
	       "  crash-free the share of runs that did not crash\n"
	       "Runs that ended since the directory was last opened for writing are\n"
	       "counted as they will be collected; nothing is written.\n\n"
	       "%s"
	       "  -j, --json    print a JSON array of {release, runs, exited, errored, crashed,\n"
	       "                abnormal, oom_kills, crash_free}; crash_free from 0 to 1\n"
	       "  -h, --help    show this help\n\n"
	       "Exit status: 0 printed (no runs too), 1 the directory cannot be opened,\n"
	       "2 bad usage, 3 output could not be written.\n",
	       usage_line, cli_dir_help);
}

static void
print_table(const pm_release_stats *v, size_t n)
{
	if (n == 0) {
		puts("no runs recorded yet (a run's session is recorded by pm_install or `postmortem run`)");
		return;
	}
	printf("%-40s %6s %7s %8s %8s %9s %5s %11s\n", "RELEASE", "RUNS", "EXITED", "ERRORED", "CRASHED", "ABNORMAL",
	       "OOM", "CRASH-FREE");
	for (size_t i = 0; i < n; i++)
		printf("%-40s %6u %7u %8u %8u %9u %5u %10.1f%%\n", v[i].release, v[i].runs, v[i].exited, v[i].errored,
		       v[i].crashed, v[i].abnormal, v[i].oom_kills, 100.0 * v[i].crash_free);
}

/* The array as text, or NULL when out of memory. */
static char *
stats_json(const pm_release_stats *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	bool ok = a != NULL;
	for (size_t i = 0; ok && i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		ok = o && cJSON_AddItemToArray(a, o) && cJSON_AddStringToObject(o, "release", v[i].release) &&
		     cJSON_AddNumberToObject(o, "runs", v[i].runs) && cJSON_AddNumberToObject(o, "exited", v[i].exited) &&
		     cJSON_AddNumberToObject(o, "errored", v[i].errored) &&
		     cJSON_AddNumberToObject(o, "crashed", v[i].crashed) &&
		     cJSON_AddNumberToObject(o, "abnormal", v[i].abnormal) &&
		     cJSON_AddNumberToObject(o, "oom_kills", v[i].oom_kills) &&
		     cJSON_AddNumberToObject(o, "crash_free", v[i].crash_free);
	}
	char *text = ok ? cJSON_Print(a) : NULL;
	cJSON_Delete(a);
	return text;
}

static int
stats(const char *dir, bool json)
{
	pm_store *s;
	int rc = cli_open_store("stats", dir, &s);
	if (rc != PM_EXIT_OK)
		return rc;
	size_t n;
	pm_release_stats *v = pm_store_release_stats(s, &n);
	bool lost = pm_store_session_count(s) > 0 && !v;
	pm_store_close(s);
	char *text = NULL;
	if (lost || (json && !(text = stats_json(v, n)))) {
		free(v);
		cli_error("stats", "out of memory");
		return PM_EXIT_FAIL;
	}
	if (json)
		puts(text);
	else
		print_table(v, n);
	free(text);
	free(v);
	return cli_stdout_done("stats");
}

int
cmd_stats(int argc, char **argv)
{
	static const cli_store_cmd me = { "stats", usage_line, help, 0 };
	const char *dir;
	bool json;
	int rc = cli_parse_store_args(&me, argc, argv, &dir, &json);
	return rc >= 0 ? rc : stats(dir, json);
}
