/*
 * boot.c — the system reporter after a reboot.  enable writes a sysctl
 * drop-in with the three settings it changed (as systemd-coredump ships
 * 50-coredump.conf), so that the next boot puts the handler in force again;
 * disable removes it; status reads what the next boot will apply.
 *
 * At boot systemd-sysctl (or, without systemd, procps' `sysctl --system`)
 * reads every *.conf of /etc/sysctl.d, /run/sysctl.d,
 * /usr/local/lib/sysctl.d, /usr/lib/sysctl.d and /lib/sysctl.d — a name in
 * an earlier directory hiding the same name in a later one — in the order of
 * their names, byte by byte, and a setting made again later wins (sysctl.d(5)).
 * procps then reads /etc/sysctl.conf once more, last.  The drop-in is
 * /etc/sysctl.d/99-zz-postmortem.conf: after every name Debian and systemd
 * ship (50-coredump.conf, 99-protect-links.conf, and 99-sysctl.conf, the
 * link to /etc/sysctl.conf), so that its settings are the ones applied.
 * Only the three settings are read of those files: a line `key = value`
 * (the key with '.' or '/' between its words, '-' before it to ignore a
 * failure, a glob in it since systemd 249), '#' and ';' begin comments.
 * NOT AS-safe.
 */
#include "system.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const keys[PM_BOOT_KEYS] = { "kernel.core_pattern", "kernel.core_pipe_limit",
	                                        "fs.suid_dumpable" };
static const char *const dirs[] = { "/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d",
	                            "/usr/lib/sysctl.d", "/lib/sysctl.d" };

#define FIELD(f) { offsetof(pm_core_settings, f), sizeof ((pm_core_settings *)0)->f }
static const struct {
	size_t at, size;
} fields[PM_BOOT_KEYS] = { FIELD(pattern), FIELD(pipe_limit), FIELD(suid_dumpable) };

static char *
value_of(pm_core_settings *s, int k)
{
	return (char *)s + fields[k].at;
}

static char *
strip(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && strchr(" \t\r\n", s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* kernel/core_pattern as kernel.core_pattern: the first separator says which one the key uses. */
static void
normalize(char *key)
{
	char *sep = strpbrk(key, "./");
	if (!sep || *sep == '.')
		return;
	for (char *c = key; *c; c++)
		*c = *c == '/' ? '.' : *c == '.' ? '/' : *c;
}

/* Each of the three that path sets: into out, the file into from[k] (when from). */
static void
read_file(const char *path, pm_core_settings *out, bool set[PM_BOOT_KEYS], char (*from)[PATH_MAX])
{
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) >= 0) {
		char *l = strip(line);
		char *eq = strchr(l, '=');
		if (!*l || *l == '#' || *l == ';' || !eq)
			continue;
		*eq = '\0';
		char *key = strip(l[0] == '-' ? l + 1 : l), *value = strip(eq + 1);
		normalize(key);
		bool glob = strpbrk(key, "*?[") != NULL;
		for (int k = 0; k < PM_BOOT_KEYS; k++)
			if (glob ? fnmatch(key, keys[k], 0) == 0 : strcmp(key, keys[k]) == 0) {
				snprintf(value_of(out, k), fields[k].size, "%s", value);
				set[k] = true;
				if (from)
					snprintf(from[k], PATH_MAX, "%s", path);
			}
	}
	free(line);
	fclose(f);
}

typedef struct conf_file {
	char name[256];
	char path[PATH_MAX];
} conf_file;

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const conf_file *)a)->name, ((const conf_file *)b)->name);
}

/* The *.conf files of the five directories as sysctl.d(5) takes them; NULL when out of memory. */
static conf_file *
list_files(size_t *count)
{
	conf_file *files = NULL;
	size_t n = 0, cap = 0;
	for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
		DIR *dir = opendir(dirs[d]);
		struct dirent *e;
		while (dir && (e = readdir(dir))) {
			size_t len = strlen(e->d_name);
			if (e->d_name[0] == '.' || len < 6 || len >= sizeof files->name ||
			    strcmp(e->d_name + len - 5, ".conf") != 0)
				continue;
			bool hidden = false;
			for (size_t i = 0; i < n && !hidden; i++)
				hidden = strcmp(files[i].name, e->d_name) == 0;
			if (hidden)
				continue;
			if (n == cap) {
				conf_file *more = realloc(files, (cap = cap ? 2 * cap : 16) * sizeof *files);
				if (!more) {
					closedir(dir);
					free(files);
					return NULL;
				}
				files = more;
			}
			snprintf(files[n].name, sizeof files[n].name, "%s", e->d_name);
			snprintf(files[n].path, sizeof files[n].path, "%s/%s", dirs[d], e->d_name);
			n++;
		}
		if (dir)
			closedir(dir);
	}
	if (n)
		qsort(files, n, sizeof *files, by_name);
	*count = n;
	return files ? files : calloc(1, sizeof *files);
}

pm_err
pmi_boot_read(pm_boot_settings *b, char *why, size_t cap)
{
	memset(b, 0, sizeof *b);
	size_t n;
	conf_file *files = list_files(&n);
	if (!files) {
		snprintf(why, cap, "out of memory listing the sysctl drop-ins");
		return PM_E_NOMEM;
	}
	for (size_t i = 0; i < n; i++)
		read_file(files[i].path, &b->next, b->set, b->from);
	free(files);
	read_file("/etc/sysctl.conf", &b->conf, b->conf_set, NULL);
	return PM_OK;
}

static void
fill(FILE *f, const void *arg)
{
	fprintf(f, "# postmortem's system reporter (docs/system-reporter.md): `postmortem system enable`\n"
	           "# wrote this file so that the next boot keeps its core handler in force, and\n"
	           "# `postmortem system disable` removes it.  Its name sorts after every file Debian\n"
	           "# and systemd ship (99-sysctl.conf, 50-coredump.conf): its settings are applied last.\n");
	for (int k = 0; k < PM_BOOT_KEYS; k++)
		fprintf(f, "%s = %s\n", keys[k], (const char *)arg + fields[k].at);
}

pm_err
pmi_boot_write(const pm_core_settings *s, char *why, size_t cap)
{
	return pmi_root_file_write(PM_SYSCTL_DIR, PM_SYSCTL_DROPIN, 0644, fill, s, why, cap);
}

pm_err
pmi_boot_remove(const char *ours, bool *removed, bool *other, char *why, size_t cap)
{
	*removed = *other = false;
	pm_core_settings there;
	bool set[PM_BOOT_KEYS] = { false };
	memset(&there, 0, sizeof there);
	read_file(PM_SYSCTL_DIR "/" PM_SYSCTL_DROPIN, &there, set, NULL);
	/* Another enable's (of another state directory) is that one's to remove. */
	*other = set[0] && strcmp(there.pattern, ours) != 0;
	if (!set[0] || *other)
		return PM_OK;
	pm_err e = pmi_root_file_remove(PM_SYSCTL_DIR, PM_SYSCTL_DROPIN, why, cap);
	*removed = e == PM_OK;
	return e;
}
