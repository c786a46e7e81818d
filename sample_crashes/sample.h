/*
 * sample.h — shared by the sample programs that crash on purpose.
 *
 * Every sample installs postmortem with the defaults (POSTMORTEM_DIR picks
 * the reports directory), then crashes in a function whose name the tests
 * look for in the report.
 */
#ifndef PM_SAMPLE_H
#define PM_SAMPLE_H

/* Install postmortem or exit(2) saying why. */
void sample_install(void);
/* Pointers the compiler cannot prove anything about (defined in sample.c). */
extern int *volatile sample_null;
extern void (*volatile sample_null_fn)(void);
extern volatile int sample_zero;
/* Keep a function from being inlined or folded into its caller (gcc would
 * also clone it under another name, such as crash_abort.constprop.0). */
#if defined(__clang__)
#define SAMPLE_FRAME __attribute__((noinline))
#else
#define SAMPLE_FRAME __attribute__((noinline, noclone))
#endif
/* Keep the compiler from turning a call into a jump (tail call), so the caller's frame stays. */
#define SAMPLE_KEEP_FRAME() __asm__ volatile("" ::: "memory")

#endif
