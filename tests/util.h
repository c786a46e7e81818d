/* util.h — helpers shared by the Criterion tests. */
#ifndef PM_TESTS_UTIL_H
#define PM_TESTS_UTIL_H

#include <stddef.h>

/* Absolute path of a file under the shared folder ("samples/apple/%s", name); static
 * storage that the sixteenth call after reuses. */
const char *pm_test_shared(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Absolute path of a file under the project source root; static storage. */
const char *pm_test_source(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Absolute path of a file under the build root; static storage. */
const char *pm_test_build(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whole file, NUL-terminated (malloc'd); *len gets its size.  Fails the test when unreadable. */
char *pm_test_slurp(const char *path, size_t *len);
/* A fresh empty directory under /tmp (malloc'd path). */
char *pm_test_tmpdir(void);
/* Remove a pm_test_tmpdir with everything in it, and free its name. */
void pm_test_rmdir(char *dir);
/* Run a shell command, capture stdout+stderr into *out (malloc'd); returns the exit status (waitpid form). */
int pm_test_run(const char *cmd, char **out);

#endif
