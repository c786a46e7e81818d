/*
 * symb_util.h — helpers for the symbolication tests: the test programs,
 * their LINE: markers, crashing them (also as copies outside the build
 * tree) and reading frames.
 */
#ifndef PM_TESTS_SYMB_UTIL_H
#define PM_TESTS_SYMB_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "crash/crash_util.h"
#include "postmortem-tools.h"

/* Path of a test program built in tests/symbolicate/ (static storage). */
const char *symb_program(const char *name);
/* Line number of "LINE:<marker>" in tests/symbolicate/programs/<source>. */
uint32_t symb_marker_line(const char *source, const char *marker);
/* Crash the program at `path` with one argument (or none), wherever it lies. */
void symb_crash(crash_run *run, const char *path, const char *arg);
/* A malloc'd string built like printf. */
char *symb_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Run a shell command built like printf; the test fails unless it exits 0. */
void symb_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The crashed thread of r; the test fails when there is none. */
const pm_thread *symb_crashed(const pm_report *r);
/* The app's image in r; the test fails when there is none. */
const pm_image *symb_app_image(const pm_report *r);
/* Index of the first frame of t named `symbol`; the test fails when there is none. */
uint32_t symb_frame(const pm_thread *t, const char *symbol);
bool symb_ends_with(const char *s, const char *suffix);
/* Check frame f: its name, that its file ends with `file`, its line and whether it is inlined. */
void symb_expect_frame(const pm_frame *f, const char *symbol, const char *file, uint32_t line, bool inlined);
/* The report as .crash text (malloc'd). */
char *symb_text(const pm_report *r);

#endif
