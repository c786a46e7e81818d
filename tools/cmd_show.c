/*
 * cmd_show.c — `postmortem show REPORT [--dir D] [--json]`.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

static const char usage_line[] = "show REPORT [--dir D] [--json]";

static void
help(void)
{
	printf("usage: postmortem %s\n\n"
	       "Print a report of a reports directory as it is stored: its Apple-style\n"
	       "text, or its JSON twin.  REPORT is the report's incident id as 'postmortem\n"
	       "list' shows it, or a unique beginning of one; the report may be in any\n"
	       "state.  For a partial or quarantined report, a note on standard error\n"
	       "says so (and why).  C++, Rust and D names in the text are shown\n"
	       "demangled; the JSON twin is printed as stored.  REPORT may also be a\n"
	       "file in any format postmortem reads.\n\n"
	       "%s"
	       "  -j, --json    print the JSON twin instead of the text\n"
	       "  -h, --help    show this help\n\n"
	       "Exit status: 0 printed, 1 no such directory or report, or the file is\n"
	       "missing or unreadable, 2 bad usage, 3 output could not be written.\n",
	       usage_line, cli_dir_help);
}

static int
open_stored(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		cli_error("show", "cannot read %s: %s", path, strerror(errno));
	return fd;
}

static int
flushed(int rc)
{
	if (rc == PM_EXIT_OK && fflush(stdout) != 0)
		rc = PM_EXIT_IO;
	if (rc == PM_EXIT_IO)
		cli_error("show", "cannot write the report");
	return rc;
}

/* A stored .crash, line by line, with its mangled names demangled. */
static int
text_out(const char *path)
{
	int fd = open_stored(path);
	FILE *in = fd < 0 ? NULL : fdopen(fd, "r");
	if (!in) {
		if (fd >= 0)
			close(fd);
		return PM_EXIT_FAIL;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = PM_EXIT_OK;
	bool tty = isatty(STDOUT_FILENO), after_c2 = false;
	while (rc == PM_EXIT_OK && (n = getline(&line, &cap, in)) > 0) {
		/* A NUL inside a line would end it early: mask it like any control. */
		if (tty || memchr(line, 0, (size_t)n))
			cli_mask(line, (size_t)n, &after_c2);
		char *plain = pm_demangle_text(line);
		if (fputs(plain ? plain : line, stdout) == EOF)
			rc = PM_EXIT_IO;
		free(plain);
	}
	if (rc == PM_EXIT_OK && ferror(in)) {
		cli_error("show", "cannot read %s: %s", path, strerror(errno));
		rc = PM_EXIT_FAIL;
	}
	free(line);
	fclose(in);
	return flushed(rc);
}

/* Copy a stored file to standard output. */
static int
copy_out(const char *path)
{
	int fd = open_stored(path);
	if (fd < 0)
		return PM_EXIT_FAIL;
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
	return flushed(rc);
}

/* A file outside the store is shown as the text or twin it renders to. */
static int
show_file(const char *path, bool json)
{
	pm_report r;
	int rc = cli_load("show", path, NULL, &r);
	if (rc != PM_EXIT_OK)
		return rc;
	if (!json && pm_demangle_report(&r) != PM_OK) {
		cli_error("show", "out of memory");
		rc = PM_EXIT_FAIL;
	} else {
		rc = cli_write_report("show", &r, json, NULL);
	}
	pm_report_free(&r);
	return rc;
}

static int
show(const char *dir, const char *arg, bool json)
{
	if (cli_names_file(arg))
		return show_file(arg, json);
	pm_store *s;
	int rc = cli_open_store("show", dir, &s);
	if (rc != PM_EXIT_OK)
		return rc;
	const pm_store_entry *e = cli_find_entry("show", s, dir, arg);
	const char *id = e ? e->id : arg, *crash = NULL, *twin = NULL;
	if (!e || pm_store_paths(s, id, &crash, &twin) != PM_OK) {
		if (e)
			cli_error("show", "cannot find the files of report %s", id);
		rc = PM_EXIT_FAIL;
	} else if (!(json ? twin : crash)) {
		cli_error("show", "report %s has no %s file%s", id, json ? "JSON" : ".crash",
		          json ? "" : " (try --json)");
		rc = PM_EXIT_FAIL;
	} else {
		if (e->state == PM_STATE_PARTIAL)
			cli_error("show", "note: %s is partial: %s", id,
			          e->reason ? e->reason : "torn while being written, salvaged");
		else if (e->state == PM_STATE_QUARANTINED)
			cli_error("show", "note: %s is quarantined: %s", id, e->reason ? e->reason : "no reason kept");
		rc = json ? copy_out(twin) : text_out(crash);
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
