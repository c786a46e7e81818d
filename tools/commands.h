/*
 * commands.h — the postmortem CLI's subcommands.  Each lives in its own
 * tools/cmd_<name>.c and only parses arguments and prints: every capability
 * is a library call first.
 */
#ifndef PM_TOOLS_COMMANDS_H
#define PM_TOOLS_COMMANDS_H

#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "postmortem-tools.h"

/* Exit statuses shared by every subcommand (documented in tools/postmortem.md). */
enum {
	PM_EXIT_OK = 0,
	PM_EXIT_FAIL = 1,   /* the input could not be read, or the operation failed */
	PM_EXIT_USAGE = 2,  /* bad flags or arguments */
	PM_EXIT_IO = 3,     /* output could not be written */
};

int cmd_convert(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_symbolicate(int argc, char **argv);
int cmd_symbols(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_upload(int argc, char **argv);
int cmd_system(int argc, char **argv);

/* Print "postmortem <cmd>: message" to stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Standard output flushed: PM_EXIT_OK, or PM_EXIT_IO with why said. */
int cli_stdout_done(const char *cmd);
/* Where the files an ELF core maps are, when they moved (--exe, --sysroot). */
typedef struct cli_core_files {
	const char *exe;         /* the executable, NULL: the path the core names */
	const char *sysroot;     /* prefixed to every path the core names, NULL: none */
} cli_core_files;
/* Load a report from a file, printing a clear error (with the line) on failure.  An ELF
 * core gives the report the capture engine makes of it, its files found as `where` says
 * (NULL: where the core names them). */
int cli_load(const char *cmd, const char *path, const cli_core_files *where, pm_report *r);
/* The --exe and --sysroot lines of a command's help. */
extern const char cli_core_help[];
/* Write r as .crash text or JSON to `out` (NULL: standard output): a file is
 * replaced only once the whole report is written beside it, a device is
 * written in place; on failure say why and return PM_EXIT_IO, with OUT as it was. */
int cli_write_report(const char *cmd, const pm_report *r, bool json, const char *out);
/* Room for every --debug-dir among argc arguments (malloc'd); NULL, said on
 * stderr, when out of memory. */
const char **cli_debug_dirs(const char *cmd, int argc);
/* Show control characters other than newline and tab (and UTF-8's C1
 * controls) as '?', in place; *after_c2 carries across chunks (start false). */
void cli_mask(char *p, size_t n, bool *after_c2);
/* True when the locale's character set is UTF-8 (LC_ALL, LC_CTYPE, LANG). */
bool cli_locale_is_utf8(void);
/* A malloc'd copy of text, its non-ASCII characters spelled in ASCII unless the locale is UTF-8. */
char *cli_for_locale(const char *text);
/* fputs of a masked copy of text, in the locale's character set (cli_for_locale). */
int cli_print_masked(FILE *f, const char *text);
/* Write r as .crash text or JSON to fd, masked when fd is a terminal; false when a write failed. */
bool cli_render(const pm_report *r, bool json, int fd);
/* Standard "unknown option"/"missing argument" handling for getopt_long loops. */
int cli_usage_error(const char *cmd, const char *usage);
/* Open the store of --dir D (NULL: the default directory), printing why not. */
int cli_open_store(const char *cmd, const char *dir, pm_store **s);
/* Where the reports directory is and why: "--dir D", "$POSTMORTEM_DIR (D)", ...; returns buf. */
const char *cli_dir_origin(const char *dir, char *buf, size_t cap);
/* The stored report whose id is arg or the only one beginning with it; NULL after saying why. */
const pm_store_entry *cli_find_entry(const char *cmd, const pm_store *s, const char *dir, const char *arg);
/* True when a REPORT operand names a file (it has a slash, or exists) rather than a report id. */
bool cli_names_file(const char *arg);
/* The file a REPORT operand names (malloc'd into *path): arg itself when it names a file, else the
 * report of that id or unique id prefix in the reports directory (dir, NULL: the default), else
 * with arg NULL the newest pending report; an exit status, after saying why when not PM_EXIT_OK. */
int cli_report_path(const char *cmd, const char *dir, const char *arg, char **path);
/* What `postmortem run` learns of its child once it ended, before reaping it
 * (cli_run_why.c): the kernel's name of the program image it died in, its
 * real and effective ids. */
typedef struct cli_run_end {
	char comm[16];            /* "" unknown */
	long uid[2], gid[2];      /* -1 unknown */
} cli_run_end;
/* An unlinked file for the preload library's record of the child's images
 * (base/run_record.h), and the environment entry naming it (malloc'd into
 * *entry); -1 and NULL when there is none to be had. */
int cli_run_record_open(char **entry);
/* What the kernel keeps of child pid, which ended and is not reaped yet. */
void cli_run_end_read(pid_t pid, cli_run_end *end);
/* Say on stderr why child pid, started as prog with reports going to dir
 * (NULL: the default), left no report of its death by signal sig (named
 * signame): what the signal, end and the record in record_fd (-1: none)
 * show, and the system reporter where in-process capture could not reach. */
void cli_run_why(const char *prog, const char *dir, pid_t pid, int sig, const char *signame, const cli_run_end *end,
                 int record_fd);
/* The --dir lines of a store subcommand's help. */
extern const char cli_dir_help[];
/* A store subcommand that takes [--dir D] [--json] and a fixed number of operands. */
typedef struct cli_store_cmd {
	const char *name, *usage;
	void (*help)(void);
	int operands;
} cli_store_cmd;
/* Parse its arguments: -1 to go on (operands start at optind), else the exit status. */
int cli_parse_store_args(const cli_store_cmd *cmd, int argc, char **argv, const char **dir, bool *json);
/* A time as --since and --until take it (cli_when.c): seconds since the epoch into *out;
 * false when text is none of cli_when_forms.  Spans count from now. */
bool cli_parse_when(const char *text, time_t now, int64_t *out);
/* The forms it takes, for help and errors. */
extern const char cli_when_forms[];
/* "pending", "partial", "quarantined", "sent". */
const char *cli_state_name(pm_report_state st);
/* n bytes as "512 B", "1.5 KiB", "4.1 MiB". */
void cli_format_size(uint64_t n, char *out, size_t cap);

/* --debuginfod URL and --no-debuginfod of the commands that symbolicate. */
typedef struct cli_debuginfod {
	const char *cmd;
	char *urls;              /* the --debuginfod URLs, space-separated; NULL: $DEBUGINFOD_URLS */
	bool off;                /* --no-debuginfod */
	bool shown;              /* a progress line is on the terminal */
	bool say_unreachable;
	bool failed;             /* the servers could not be reached */
} cli_debuginfod;
/* The options' lines of a command's help. */
extern const char cli_debuginfod_help[];
/* Take one --debuginfod URL; false, said on stderr, when out of memory. */
bool cli_debuginfod_add(cli_debuginfod *d, const char *url);
/* Ask debuginfod through opt as the options and the environment say, with a progress line
 * on a terminal; d->failed is set when the servers cannot be reached, and with
 * `say_unreachable` the note is printed then. */
void cli_debuginfod_use(cli_debuginfod *d, pm_symbolicate_options *opt, bool say_unreachable);
/* Clear the progress line, if one is shown. */
void cli_debuginfod_clear(cli_debuginfod *d);
/* The same, and free what d holds. */
void cli_debuginfod_end(cli_debuginfod *d);

#endif
