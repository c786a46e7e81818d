/*
 * cmd_show.c — `postmortem show ID [--dir D] [--json]`.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

static const char usage_line[] = "show ID [--dir D] [--json]";

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "Print a report of a reports directory as it is stored: its Apple-style\n"
	       "text, or its JSON twin.  ID is the report's incident id as 'postmortem\n"
	       "list' shows it; the report may be in any state.  For a partial or\n"
	       "quarantined report, a note on standard error says so (and why).\n\n"
	       "%s"
	       "  -j, --json    print the JSON twin instead of the text\n"
	       "  -h, --help    show this help\n\n"
	       "Exit status: 0 printed, 1 no such directory or report, or the file is\n"
	       "missing or unreadable, 2 bad usage, 3 output could not be written.\n",
	       usage_line, cli_dir_help);
}

/* Copy a stored file to standard output. */
static int
copy_out(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		cli_error("show", "cannot read %s: %s", path, strerror(errno));
		return PM_EXIT_FAIL;
	}
	char buf[1 << 16];
	ssize_t n;
	int rc = PM_EXIT_OK;
	bool tty = isatty(STDOUT_FILENO), after_c2 = false;
	while (rc == PM_EXIT_OK && (n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			cli_error("show", "cannot read %s: %s", path, strerror(errno));
			rc = PM_EXIT_FAIL;
		} else {
			if (tty)
				cli_mask(buf, (size_t)n, &after_c2);
			if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
				rc = PM_EXIT_IO;
		}
	}
	close(fd);
	if (rc == PM_EXIT_OK && fflush(stdout) != 0)
		rc = PM_EXIT_IO;
	if (rc == PM_EXIT_IO)
		cli_error("show", "cannot write the report");
	return rc;
}

static const pm_store_entry *
find(const pm_store *s, const char *id)
{
	for (int st = PM_STATE_PENDING; st <= PM_STATE_SENT; st++)
		for (size_t i = 0; i < pm_store_count(s, st); i++) {
			const pm_store_entry *e = pm_store_get(s, st, i);
			if (strcmp(e->id, id) == 0)
				return e;
		}
	return NULL;
}

static int
show(const char *dir, const char *id, bool json)
{
	pm_store *s;
	int rc = cli_open_store("show", dir, &s);
	if (rc != PM_EXIT_OK)
		return rc;
	const pm_store_entry *e = find(s, id);
	const char *crash = NULL, *twin = NULL;
	if (!e || pm_store_paths(s, id, &crash, &twin) != PM_OK) {
		cli_error("show", "no report %s in %s", id, dir ? dir : "the reports directory");
		rc = PM_EXIT_FAIL;
	} else if (!(json ? twin : crash)) {
		cli_error("show", "report %s has no %s file%s", id, json ? "JSON" : ".crash",
		          json ? "" : " (try --json)");
		rc = PM_EXIT_FAIL;
	} else {
		if (e->state == PM_STATE_PARTIAL)
			cli_error("show", "note: %s is partial: torn while being written, salvaged", id);
		else if (e->state == PM_STATE_QUARANTINED)
			cli_error("show", "note: %s is quarantined: %s", id, e->reason ? e->reason : "no reason kept");
		rc = copy_out(json ? twin : crash);
	}
	pm_store_close(s);
	return rc;
}

int
cmd_show(int argc, char **argv)
{
	static const cli_store_cmd me = { "show", usage_line, help, 1 };
	const char *dir;
	bool json;
	int rc = cli_parse_store_args(&me, argc, argv, &dir, &json);
	return rc >= 0 ? rc : show(dir, argv[optind], json);
}
