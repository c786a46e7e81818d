/*
 * dfd_util.h — the debuginfod tests' setting: a program stripped of its
 * DWARF (and, when asked, libc under a build id that nothing installed has)
 * that crashed into a report, their debug files where only a server has
 * them; the servers (serve_debug.py: Debian's debuginfod, or plain files),
 * loopback ports that refuse or never answer; the CLI run against them.
 */
#ifndef PM_TESTS_DFD_UTIL_H
#define PM_TESTS_DFD_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "symb_util.h"

typedef struct dfd_lab {
	char *dir;               /* bin/: the programs; lib/: libc; serve/: the debug files; cache/ */
	char *bin;               /* bin/symb_c: symb_c without DWARF (its symbol table kept) */
	const char *json;        /* the report's JSON twin */
	char id[2 * PM_BUILD_ID_MAX + 1];      /* its build id */
	char libc_id[2 * PM_BUILD_ID_MAX + 1]; /* lib/libc.so.6's, "" without it */
	crash_run run;           /* bin/symb_c crashed with the lab's argument */
} dfd_lab;

enum {
	DFD_LIBC = 1,            /* run with lib/libc.so.6: libc under a new build id, whose debug
	                          * file (libc6-dbg's, under the same id) is in serve/ too */
	DFD_STRIP_ALL = 2,       /* bin/symb_c has no symbol table either */
};

/* A lab whose bin/symb_c crashed with arg (segv, inline, abort), its debug file in
 * serve/ (flags: DFD_*). */
void dfd_lab_make(dfd_lab *l, const char *arg, unsigned flags);
void dfd_lab_free(dfd_lab *l);
/* <lab>/<rel> (malloc'd). */
char *dfd_path(const dfd_lab *l, const char *rel);

typedef struct dfd_server {
	pid_t pid;
	int in;                  /* its standard input: closing it stops the server */
	char url[128];
	char *log;               /* a line per request */
} dfd_server;

/* Serve dir (mode "debuginfod" or "plain", serve_debug.py) with its files in work. */
void dfd_serve(dfd_server *s, const char *mode, const char *dir, const char *work);
/* Serve the lab's serve/ with Debian's debuginfod, its files in work/. */
void dfd_lab_serve(const dfd_lab *l, dfd_server *s);
/* Stop it (and wait for it); the log stays readable. */
void dfd_stop(dfd_server *s);
void dfd_server_free(dfd_server *s);
/* Requests in its log for /buildid/<id>/<kind> (kind: debuginfo, executable); id NULL: for any file. */
unsigned dfd_requests(const dfd_server *s, const char *id, const char *kind);

/* A loopback socket whose port refuses connections (bound, not listening), or one that
 * takes them and never answers (listening, never accepting); its port in *port. */
int dfd_refusing_port(uint16_t *port);
int dfd_silent_port(uint16_t *port);
/* The connections made so far to a silent port (each is then accepted and closed). */
unsigned dfd_connections(int fd);

/* Run `postmortem ARGS` with DEBUGINFOD_URLS=urls, the lab's cache, and `env` (shell
 * assignments, may be ""); its exit status (the test fails if it did not exit), all it
 * printed in *out (malloc'd). */
int dfd_cli(const dfd_lab *l, const char *urls, const char *env, const char *args, char **out);
/* Symbolicate the lab's report that way into <lab>/out.json, read back into r. */
int dfd_symbolicate(const dfd_lab *l, const char *urls, const char *env, const char *args, pm_report *r, char **out);

#endif
