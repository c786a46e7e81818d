/*
 * cli_report_arg.c — the REPORT operand of the report commands: a file, or
 * an incident id of the reports directory or a unique prefix of one (as git
 * takes commits), or none at all: the newest pending report.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"

const pm_store_entry *
cli_find_entry(const char *cmd, const pm_store *s, const char *dir, const char *arg)
{
	enum { SHOWN = 4 };
	const pm_store_entry *hit[SHOWN];
	size_t n = strlen(arg), matches = 0;
	for (int st = PM_STATE_PENDING; st <= PM_STATE_SENT; st++)
		for (size_t i = 0; i < pm_store_count(s, st); i++) {
			const pm_store_entry *e = pm_store_get(s, st, i);
			if (strcmp(e->id, arg) == 0)
				return e;
			if (n && strncmp(e->id, arg, n) == 0 && matches++ < SHOWN)
				hit[matches - 1] = e;
		}
	if (matches == 1)
		return hit[0];
	if (matches == 0) {
		char where[512];
		cli_error(cmd, "no file %s and no report id beginning %s in %s", arg, arg,
		          cli_dir_origin(dir, where, sizeof where));
		return NULL;
	}
	cli_error(cmd, "%s is ambiguous: %zu report ids begin with it:", arg, matches);
	for (size_t i = 0; i < matches && i < SHOWN; i++)
		cli_error(cmd, "  %s", hit[i]->id);
	return NULL;
}

static const pm_store_entry *
newest_pending(const char *cmd, const pm_store *s, const char *dir)
{
	const pm_store_entry *best = NULL;
	for (size_t i = 0; i < pm_store_count(s, PM_STATE_PENDING); i++) {
		const pm_store_entry *e = pm_store_get(s, PM_STATE_PENDING, i);
		if (!best || e->time >= best->time)
			best = e;
	}
	if (!best) {
		char where[512];
		cli_error(cmd, "no pending report in %s", cli_dir_origin(dir, where, sizeof where));
	}
	return best;
}

bool
cli_names_file(const char *arg)
{
	struct stat st;
	/* What looks like a path is one, even a missing one: its error names it. */
	return strchr(arg, '/') || stat(arg, &st) == 0;
}

int
cli_report_path(const char *cmd, const char *dir, const char *arg, char **path)
{
	*path = NULL;
	if (arg && cli_names_file(arg)) {
		*path = strdup(arg);
		return *path ? PM_EXIT_OK : PM_EXIT_FAIL;
	}
	pm_store *s;
	int rc = cli_open_store(cmd, dir, &s);
	if (rc != PM_EXIT_OK)
		return rc;
	const pm_store_entry *e = arg ? cli_find_entry(cmd, s, dir, arg) : newest_pending(cmd, s, dir);
	const char *crash = NULL, *twin = NULL;
	rc = PM_EXIT_FAIL;
	/* The twin carries what the text cannot (build ids, notes): read it first. */
	if (e && pm_store_paths(s, e->id, &crash, &twin) == PM_OK && (twin || crash)) {
		*path = strdup(twin ? twin : crash);
		rc = *path ? PM_EXIT_OK : PM_EXIT_FAIL;
	} else if (e) {
		cli_error(cmd, "report %s has no readable file", e->id);
	}
	pm_store_close(s);
	return rc;
}
