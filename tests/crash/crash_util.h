/*
 * crash_util.h — run a sample program that crashes, in a child process, and
 * load what postmortem left behind.
 */
#ifndef PM_TESTS_CRASH_UTIL_H
#define PM_TESTS_CRASH_UTIL_H

#include <stdbool.h>
#include <sys/types.h>

#include "postmortem-tools.h"

typedef struct crash_run {
	char *dir;             /* the reports directory given to the child */
	int status;            /* waitpid status */
	char *crash_path;      /* the one .crash in pending/, NULL if none */
	char *json_path;       /* the one .json in pending/, NULL if none */
	int reports;           /* how many .crash files there are */
	pm_report text;        /* the .crash, read back */
	pm_report json;        /* the .json, read back */
} crash_run;

/* Run build/sample_crashes/crash_<name> with POSTMORTEM_DIR set, extra env
 * "K=V" strings (NULL-terminated, may be NULL), wait (bounded), read the reports. */
void crash_run_sample(crash_run *run, const char *name, const char *const *env);
/* The same for any program with arguments (NULL-terminated, may be NULL). */
void crash_run_program(crash_run *run, const char *path, const char *const *args, const char *const *env);
/* The same, but leaving no report is not a failure (run->reports says how many). */
void crash_run_program_noreport(crash_run *run, const char *path, const char *const *args,
                                const char *const *env);
/* Start path (args, env as above) with POSTMORTEM_DIR=dir without waiting; its pid. */
pid_t crash_spawn(const char *path, const char *const *args, const char *dir, const char *const *env);
/* Wait for a crash_spawn'd child (bounded: fails the test after 30 s); its waitpid status. */
int crash_wait(pid_t pid);
/* Run `postmortem run --dir DIR -- path args` (args: shell words) in a shell, its output
 * and the program's in *out (malloc'd); run->status is run's exit status. */
void crash_run_cli(crash_run *run, const char *path, const char *args, char **out);
/* The same, expecting run to exit with `status` (128 + N when signal N ended the
 * program); returns *out. */
char *crash_run_cli_exiting(crash_run *run, const char *path, const char *args, int status);
void crash_run_free(crash_run *run);

/* <pending>/<id>.dmp, the minidump beside the run's .crash (malloc'd; it may not exist). */
char *crash_dmp_path(const crash_run *run);
/* Path of a sample program. */
const char *crash_sample_path(const char *name);
/* Index of the first frame of thread t whose symbol is `symbol`, or -1. */
int crash_frame_index(const pm_report *r, const pm_thread *t, const char *symbol);
/* The build id `readelf -n` prints for a file, as lower-case hex (static storage). */
const char *crash_readelf_build_id(const char *path);
/* Lower-case hex of an image's build id (static storage). */
const char *crash_image_build_id(const pm_image *im);
/* The index of the first Application Specific Information line containing needle, or -1. */
int crash_asi_line(const pm_report *r, const char *needle);
/* The image whose path ends with `suffix`, or NULL. */
const pm_image *crash_find_image(const pm_report *r, const char *suffix);

/* Threads qemu-user adds to every process (0 natively; docs/arm64.md): its
 * helper thread, which blocks the freeze signal and is listed uncaptured. */
uint32_t crash_emulator_threads(void);
/* Whether the report lists t as qemu-user's helper thread would be. */
bool crash_is_emulator_thread(const pm_thread *t);

#endif
