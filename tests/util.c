#include "util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static const char *
under(const char *env, const char *rel, char *buf, size_t cap)
{
	const char *root = getenv(env);
	cr_assert(root != NULL, "%s is not set: run the tests through meson test", env);
	snprintf(buf, cap, "%s/%s", root, rel);
	return buf;
}

const char *
pm_test_shared(const char *rel)
{
	static char buf[4096];
	return under("PM_SHARED", rel, buf, sizeof buf);
}

const char *
pm_test_source(const char *rel)
{
	static char buf[4096];
	return under("PM_SOURCE_ROOT", rel, buf, sizeof buf);
}

const char *
pm_test_build(const char *rel)
{
	static char buf[4096];
	return under("PM_BUILD_ROOT", rel, buf, sizeof buf);
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
