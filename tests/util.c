#include "util.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Paths come from a ring of buffers, so a few can be held at once
 * (e.g. a program's path and the library directory it needs). */
static const char *
under(const char *env, const char *fmt, va_list ap)
{
	static char ring[16][4096];
	static unsigned next;
	char *buf = ring[next++ % 16];
	const char *root = getenv(env);
	cr_assert(root != NULL, "%s is not set: run the tests through meson test", env);
	char rel[2048];
	vsnprintf(rel, sizeof rel, fmt, ap);
	snprintf(buf, sizeof ring[0], "%s/%s", root, rel);
	return buf;
}

#define UNDER(env)                                  \
	va_list ap;                                 \
	va_start(ap, fmt);                          \
	const char *path = under(env, fmt, ap);     \
	va_end(ap);                                 \
	return path

const char *
pm_test_shared(const char *fmt, ...)
{
	UNDER("PM_SHARED");
}

const char *
pm_test_source(const char *fmt, ...)
{
	UNDER("PM_SOURCE_ROOT");
}

const char *
pm_test_build(const char *fmt, ...)
{
	UNDER("PM_BUILD_ROOT");
}

char *
pm_test_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f != NULL, "cannot open %s", path);
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	size_t got;
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *
pm_test_tmpdir(void)
{
	char *d = strdup("/tmp/pm-test-XXXXXX");
	cr_assert(mkdtemp(d) != NULL, "mkdtemp failed");
	return d;
}

void
pm_test_rmdir(char *dir)
{
	char *cmd = NULL;
	cr_assert(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
	cr_expect_eq(pm_test_run(cmd, NULL), 0, "could not remove %s", dir);
	free(cmd);
	free(dir);
}

int
pm_test_run(const char *cmd, char **out)
{
	char *full = NULL;
	cr_assert(asprintf(&full, "(%s) 2>&1", cmd) > 0);
	FILE *p = popen(full, "r");
	free(full);
	cr_assert(p != NULL, "popen failed: %s", cmd);
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap + 1);
	while ((got = fread(buf + n, 1, cap - n, p)) > 0) {
		n += got;
		if (n == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	buf[n] = '\0';
	int st = pclose(p);
	if (out)
		*out = buf;
	else
		free(buf);
	return st;
}
