/*
 * cmd_list.c — `postmortem list [--dir D] [--json] [--group] [--since T] [--until T] [--app NAME]`.
 */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"

static const char usage_line[] = "list [--dir D] [--json] [--group] [--since T] [--until T] [--app NAME]";

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
	       "With --group, one line per crash group (docs/grouping.md): every crash of\n"
	       "one signature the directory knows of, with the first and last time, the\n"
	       "apps, the newest report and a title.  The count includes the crashes\n"
	       "storm control and the caps counted without keeping their reports, and\n"
	       "those delivered whose reports were deleted then.  A count marked ~\n"
	       "counts such crashes over a span a time bound cuts through.\n\n"
	       "%s"
	       "  -g, --group      one line per crash group\n"
	       "  -S, --since T    only crashes at or after T\n"
	       "  -U, --until T    only crashes at or before T\n"
	       "  -a, --app NAME   only crashes of the app (process) NAME\n"
	       "                   T: %s\n"
	       "  -j, --json       print a JSON array: of {id, time, app, exception, state,\n"
	       "                   bytes, crash_loop, reason, signature, title}, or with --group\n"
	       "                   of {signature, title, count, count_exact, reports, dropped,\n"
	       "                   sent, first_time, last_time, apps, latest_id}; times in\n"
	       "                   seconds\n"
	       "                   since the epoch\n"
	       "  -h, --help       show this help\n\n"
	       "Exit status: 0 listed (an empty list too), 1 the directory cannot be opened,\n"
	       "2 bad usage, 3 output could not be written.\n",
	       usage_line, cli_dir_help, cli_when_forms);
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
print_table(const pm_store *s, const pm_store_filter *f)
{
	printf("%-36s  %-19s  %-20s  %-28s  %s\n", "ID", "TIME", "APP", "EXCEPTION", "STATE");
	for (size_t k = 0; k < sizeof states / sizeof states[0]; k++)
		for (size_t i = 0; i < pm_store_count(s, states[k]); i++)
			if (pm_store_filter_match(f, pm_store_get(s, states[k], i)))
				print_row(pm_store_get(s, states[k], i));
}

static void
add_time(cJSON *o, const char *key, int64_t t)
{
	if (t)
		cJSON_AddNumberToObject(o, key, (double)t);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *
entry_json(const pm_store_entry *e)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "id", e->id);
	add_time(o, "time", e->time);
	cJSON_AddStringToObject(o, "app", e->app);
	cJSON_AddStringToObject(o, "exception", e->exception);
	cJSON_AddStringToObject(o, "state", cli_state_name(e->state));
	cJSON_AddNumberToObject(o, "bytes", (double)e->bytes);
	cJSON_AddBoolToObject(o, "crash_loop", e->crash_loop);
	if (e->reason)
		cJSON_AddStringToObject(o, "reason", e->reason);
	if (e->signature[0]) {
		cJSON_AddStringToObject(o, "signature", e->signature);
		cJSON_AddStringToObject(o, "title", e->title);
	}
	return o;
}

/* The whole array as text, or NULL when out of memory. */
static char *
list_json(const pm_store *s, const pm_store_filter *f)
{
	cJSON *a = cJSON_CreateArray();
	bool ok = a != NULL;
	for (size_t k = 0; ok && k < sizeof states / sizeof states[0]; k++)
		for (size_t i = 0; ok && i < pm_store_count(s, states[k]); i++) {
			const pm_store_entry *e = pm_store_get(s, states[k], i);
			if (!pm_store_filter_match(f, e))
				continue;
			cJSON *o = entry_json(e);
			ok = o && cJSON_AddItemToArray(a, o);
		}
	char *text = ok ? cJSON_Print(a) : NULL;
	cJSON_Delete(a);
	return text;
}

/* ---- --group ---------------------------------------------------------------------- */

/* {signature, title, count, count_exact, reports, dropped, first_time, last_time, apps, latest_id} */
static cJSON *
group_json(const pm_store_group *g)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "signature", g->signature);
	cJSON_AddStringToObject(o, "title", g->title);
	cJSON_AddNumberToObject(o, "count", (double)g->count);
	cJSON_AddBoolToObject(o, "count_exact", g->count_exact);
	cJSON_AddNumberToObject(o, "reports", g->reports);
	cJSON_AddNumberToObject(o, "dropped", (double)g->dropped);
	cJSON_AddNumberToObject(o, "sent", (double)g->sent);
	add_time(o, "first_time", g->first_time);
	add_time(o, "last_time", g->last_time);
	cJSON *apps = cJSON_AddArrayToObject(o, "apps");
	for (const char *p = g->apps; apps && *p;) {
		const char *end = strstr(p, ", ");
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char app[sizeof g->apps];
		snprintf(app, sizeof app, "%.*s", (int)n, p);
		cJSON_AddItemToArray(apps, cJSON_CreateString(app));
		p += n + (end ? 2 : 0);
	}
	if (g->latest_id[0])
		cJSON_AddStringToObject(o, "latest_id", g->latest_id);
	else
		cJSON_AddNullToObject(o, "latest_id");
	return o;
}

static char *
groups_json(const pm_store_group *g, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	bool ok = a != NULL;
	for (size_t i = 0; ok && i < n; i++) {
		cJSON *o = group_json(&g[i]);
		ok = o && cJSON_AddItemToArray(a, o);
	}
	char *text = ok ? cJSON_Print(a) : NULL;
	cJSON_Delete(a);
	return text;
}

static void
print_groups(const pm_store_group *g, size_t n)
{
	printf("%-16s  %7s  %-19s  %-19s  %-20s  %-36s  %s\n", "SIGNATURE", "COUNT", "FIRST", "LAST", "APPS",
	       "LATEST", "TITLE");
	for (size_t i = 0; i < n; i++) {
		char first[32], last[32], count[24];
		format_time(g[i].first_time, first, sizeof first);
		format_time(g[i].last_time, last, sizeof last);
		snprintf(count, sizeof count, "%s%llu", g[i].count_exact ? "" : "~", (unsigned long long)g[i].count);
		char *title = pm_demangle_text(g[i].title);
		printf("%-16s  %7s  %-19s  %-19s  %-20s  %-36s  %s\n", g[i].signature, count, first, last,
		       g[i].apps[0] ? g[i].apps : "?", g[i].latest_id[0] ? g[i].latest_id : "-",
		       title ? title : g[i].title);
		free(title);
	}
}

static bool
print_text(char *text)
{
	if (!text)
		return false;
	puts(text);
	free(text);
	return true;
}

static int
list(const char *dir, bool json, bool group, const pm_store_filter *f)
{
	pm_store *s;
	int rc = cli_open_store("list", dir, &s);
	if (rc != PM_EXIT_OK)
		return rc;
	bool ok = true;
	if (group) {
		pm_store_group *g;
		size_t n;
		ok = pm_store_groups(s, f, &g, &n) == PM_OK;
		if (ok && json)
			ok = print_text(groups_json(g, n));
		else if (ok)
			print_groups(g, n);
		free(g);
	} else if (json) {
		ok = print_text(list_json(s, f));
	} else {
		print_table(s, f);
	}
	pm_store_close(s);
	if (!ok) {
		cli_error("list", "out of memory");
		return PM_EXIT_FAIL;
	}
	return cli_stdout_done("list");
}

static bool
when(const char *opt, const char *arg, int64_t *out)
{
	if (cli_parse_when(arg, time(NULL), out))
		return true;
	cli_error("list", "%s '%s' is not a time: give %s", opt, arg, cli_when_forms);
	return false;
}

int
cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "group", no_argument, NULL, 'g' },
		{ "since", required_argument, NULL, 'S' },
		{ "until", required_argument, NULL, 'U' },
		{ "app", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir = NULL;
	bool json = false, group = false;
	pm_store_filter f = { 0 };
	int c;
	while ((c = getopt_long(argc, argv, "d:jgS:U:a:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'j': json = true; break;
		case 'g': group = true; break;
		case 'S':
			if (!when("--since", optarg, &f.since))
				return PM_EXIT_USAGE;
			break;
		case 'U':
			if (!when("--until", optarg, &f.until))
				return PM_EXIT_USAGE;
			break;
		case 'a': f.app = optarg; break;
		case 'h': help(); return PM_EXIT_OK;
		default: return cli_usage_error("list", usage_line);
		}
	}
	if (optind != argc)
		return cli_usage_error("list", usage_line);
	if (f.since && f.until && f.since > f.until) {
		cli_error("list", "--since is after --until: no crash can be in between");
		return PM_EXIT_USAGE;
	}
	return list(dir, json, group, &f);
}
