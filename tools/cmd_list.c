/*
 * cmd_list.c — `postmortem list [--dir D] [--json]`.
 */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "commands.h"

static const char usage_line[] = "list [--dir D] [--json]";

static const pm_report_state states[] = {
	PM_STATE_PENDING, PM_STATE_PARTIAL, PM_STATE_QUARANTINED, PM_STATE_SENT,
};

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "List the crash reports of a reports directory, in delivery order within\n"
	       "each state:\n"
	       "  pending      written whole, not delivered yet\n"
	       "  partial      torn while being written, salvaged as far as possible\n"
	       "  quarantined  unreadable or rejected (the reason follows)\n"
	       "  sent         delivered and kept\n"
	       "A report that is part of a crash loop says so after its state.  Opening\n"
	       "the directory salvages torn reports and applies the caps, as an app's\n"
	       "next launch does (docs/store.md).\n\n"
	       "%s"
	       "  -j, --json    print a JSON array of {id, time, app, exception, state,\n"
	       "                bytes, crash_loop, reason}; time in seconds since the epoch\n"
	       "  -h, --help    show this help\n\n"
	       "Exit status: 0 listed (an empty list too), 1 the directory cannot be opened,\n"
	       "2 bad usage, 3 output could not be written.\n",
	       usage_line, cli_dir_help);
}

static void
format_time(int64_t t, char *out, size_t cap)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!t || !localtime_r(&tt, &tm) || strftime(out, cap, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		snprintf(out, cap, "?");
}

static void
print_row(const pm_store_entry *e)
{
	char when[32];
	format_time(e->time, when, sizeof when);
	printf("%-36s  %-19s  %-20s  %-28s  %s%s", e->id, when, e->app[0] ? e->app : "?",
	       e->exception[0] ? e->exception : "?", cli_state_name(e->state),
	       e->crash_loop ? " (crash loop)" : "");
	if (e->reason)
		printf(": %s", e->reason);
	putchar('\n');
}

static void
print_table(const pm_store *s)
{
	printf("%-36s  %-19s  %-20s  %-28s  %s\n", "ID", "TIME", "APP", "EXCEPTION", "STATE");
	for (size_t k = 0; k < sizeof states / sizeof states[0]; k++)
		for (size_t i = 0; i < pm_store_count(s, states[k]); i++)
			print_row(pm_store_get(s, states[k], i));
}

static cJSON *
entry_json(const pm_store_entry *e)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "id", e->id);
	if (e->time)
		cJSON_AddNumberToObject(o, "time", (double)e->time);
	else
		cJSON_AddNullToObject(o, "time");
	cJSON_AddStringToObject(o, "app", e->app);
	cJSON_AddStringToObject(o, "exception", e->exception);
	cJSON_AddStringToObject(o, "state", cli_state_name(e->state));
	cJSON_AddNumberToObject(o, "bytes", (double)e->bytes);
	cJSON_AddBoolToObject(o, "crash_loop", e->crash_loop);
	if (e->reason)
		cJSON_AddStringToObject(o, "reason", e->reason);
	return o;
}

/* The whole array as text, or NULL when out of memory. */
static char *
list_json(const pm_store *s)
{
	cJSON *a = cJSON_CreateArray();
	bool ok = a != NULL;
	for (size_t k = 0; ok && k < sizeof states / sizeof states[0]; k++)
		for (size_t i = 0; ok && i < pm_store_count(s, states[k]); i++) {
			cJSON *o = entry_json(pm_store_get(s, states[k], i));
			ok = o && cJSON_AddItemToArray(a, o);
		}
	char *text = ok ? cJSON_Print(a) : NULL;
	cJSON_Delete(a);
	return text;
}

static int
list(const char *dir, bool json)
{
	pm_store *s;
	int rc = cli_open_store("list", dir, &s);
	if (rc != PM_EXIT_OK)
		return rc;
	if (json) {
		char *text = list_json(s);
		if (!text) {
			cli_error("list", "out of memory");
			pm_store_close(s);
			return PM_EXIT_FAIL;
		}
		puts(text);
		free(text);
	} else {
		print_table(s);
	}
	pm_store_close(s);
	return cli_stdout_done("list");
}

int
cmd_list(int argc, char **argv)
{
	static const cli_store_cmd me = { "list", usage_line, help, 0 };
	const char *dir;
	bool json;
	int rc = cli_parse_store_args(&me, argc, argv, &dir, &json);
	return rc >= 0 ? rc : list(dir, json);
}
