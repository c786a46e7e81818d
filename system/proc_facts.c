/*
 * proc_facts.c — what /proc/<pid> says of the crashed process, read by the
 * handler as root while the kernel holds the process (core_pipe_limit > 0):
 * its credentials, umask, environment's reports directory, executable,
 * mount namespace, start time, and whether postmortem runs inside it (and
 * which pending/ it holds open).  /proc is the kernel's word; the values
 * in it that the process chose (environment, paths) are only ever used as
 * the process's own user.  Every read is bounded.  NOT AS-safe.
 */
#include "system.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { ENV_MAX = 1 << 20, MAPS_MAX = 8 << 20, FDS_MAX = 4096 };

/* Up to cap - 1 bytes of /proc/<pid>/<name> into buf (NUL-terminated); the count, or -1. */
static ssize_t
slurp(int dir, const char *name, char *buf, size_t cap)
{
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	size_t n = 0;
	while (n < cap - 1) {
		ssize_t k = read(fd, buf + n, cap - 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

static bool
status_ids(const char *status, const char *key, unsigned long out[4])
{
	const char *p = strstr(status, key);
	return p && sscanf(p + strlen(key), "%lu %lu %lu %lu", &out[0], &out[1], &out[2], &out[3]) == 4;
}

static bool
read_status(int dir, pm_proc_facts *f)
{
	char buf[16384];
	if (slurp(dir, "status", buf, sizeof buf) <= 0)
		return false;
	unsigned long u[4], g[4];
	if (!status_ids(buf, "\nUid:", u) || !status_ids(buf, "\nGid:", g))
		return false;
	for (int i = 0; i < 4; i++) {
		f->uid[i] = (uid_t)u[i];
		f->gid[i] = (gid_t)g[i];
	}
	const char *p = strstr(buf, "\nUmask:");
	unsigned m = 022;
	if (p)
		sscanf(p + 7, "%o", &m);
	f->umask = (mode_t)(m & 0777);
	f->ngroups = 0;
	if ((p = strstr(buf, "\nGroups:"))) {
		p += 8;
		char *end;
		for (;;) {
			unsigned long v = strtoul(p, &end, 10);
			if (end == p || f->ngroups == PM_GROUPS_MAX)
				break;
			f->groups[f->ngroups++] = (gid_t)v;
			p = end;
		}
	}
	return true;
}

/* Its environment's value of name ("" when unset) into out; too long counts as unset. */
static void
env_value(const char *env, size_t len, const char *name, char *out, size_t cap)
{
	size_t k = strlen(name);
	out[0] = '\0';
	for (size_t at = 0; at < len;) {
		const char *e = env + at;
		size_t n = strnlen(e, len - at);
		if (n > k && e[k] == '=' && memcmp(e, name, k) == 0 && n - k - 1 < cap) {
			memcpy(out, e + k + 1, n - k - 1);
			out[n - k - 1] = '\0';
		}
		at += n + 1;
	}
}

static void
read_environ(int dir, pm_proc_facts *f)
{
	char *buf = malloc(ENV_MAX);
	ssize_t n = buf ? slurp(dir, "environ", buf, ENV_MAX) : -1;
	if (n > 0) {
		env_value(buf, (size_t)n, "POSTMORTEM_DIR", f->env_dir, sizeof f->env_dir);
		env_value(buf, (size_t)n, "XDG_STATE_HOME", f->env_state, sizeof f->env_state);
		env_value(buf, (size_t)n, "HOME", f->env_home, sizeof f->env_home);
	}
	free(buf);
}

/* libpostmortem.so* or libpostmortem-preload.so among its mappings. */
static bool
maps_postmortem(int dir)
{
	char *buf = malloc(MAPS_MAX);
	ssize_t n = buf ? slurp(dir, "maps", buf, MAPS_MAX) : -1;
	bool found = false;
	for (char *line = buf; n > 0 && line && *line && !found;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		const char *slash = strrchr(line, '/');
		found = slash && (strncmp(slash, "/libpostmortem.so", 17) == 0 ||
		                  strcmp(slash, "/libpostmortem-preload.so") == 0);
		line = nl ? nl + 1 : NULL;
	}
	free(buf);
	return found;
}

/* A descriptor of it that is a directory named pending: pm_install holds its pending/ open. */
static int
pending_descriptor(int dir)
{
	int fdd = openat(dir, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fdd >= 0 ? fdopendir(fdd) : NULL;
	if (!d) {
		if (fdd >= 0)
			close(fdd);
		return -1;
	}
	int found = -1;
	struct dirent *e;
	for (int seen = 0; found < 0 && seen < FDS_MAX && (e = readdir(d)); seen++) {
		char target[PATH_MAX];
		struct stat st;
		ssize_t k = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
		if (k < 9)
			continue;
		target[k] = '\0';
		if (strcmp(target + k - 8, "/pending") == 0 && fstatat(dirfd(d), e->d_name, &st, 0) == 0 &&
		    S_ISDIR(st.st_mode))
			found = atoi(e->d_name);
	}
	closedir(d);
	return found;
}

/* Its start, from stat's field 22 (clock ticks after boot) and /proc/stat's btime. */
static uint64_t
start_time(int dir)
{
	char buf[4096], sys[16384];
	if (slurp(dir, "stat", buf, sizeof buf) <= 0 || slurp(AT_FDCWD, "/proc/stat", sys, sizeof sys) <= 0)
		return 0;
	const char *p = strrchr(buf, ')'), *bt = strstr(sys, "\nbtime ");
	unsigned long long ticks = 0, btime = 0;
	if (!p || !bt || sscanf(bt + 7, "%llu", &btime) != 1)
		return 0;
	p += 2; /* past ") " at field 3 */
	for (int field = 3; field < 22 && p; field++)
		p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL;
	if (!p || sscanf(p, "%llu", &ticks) != 1)
		return 0;
	long hz = sysconf(_SC_CLK_TCK);
	return btime + ticks / (unsigned long long)(hz > 0 ? hz : 100);
}

static bool
same_ns(int dir)
{
	struct stat a, b;
	return fstatat(dir, "ns/mnt", &a, 0) == 0 && stat("/proc/self/ns/mnt", &b) == 0 && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

bool
pmi_proc_facts_read(int pid, pm_proc_facts *f, char *why, size_t cap)
{
	char path[64];
	memset(f, 0, sizeof *f);
	f->pending_fd = -1;
	snprintf(path, sizeof path, "/proc/%d", pid);
	int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0 || !read_status(dir, f)) {
		snprintf(why, cap, "cannot read /proc/%d: %s", pid, dir < 0 ? strerror(errno) : "status unreadable");
		if (dir >= 0)
			close(dir);
		return false;
	}
	ssize_t k = readlinkat(dir, "exe", f->exe, sizeof f->exe - 1);
	f->exe[k > 0 ? k : 0] = '\0';
	read_environ(dir, f);
	f->same_mount_ns = same_ns(dir);
	f->postmortem_mapped = maps_postmortem(dir);
	if (f->postmortem_mapped)
		f->pending_fd = pending_descriptor(dir);
	f->start_time = start_time(dir);
	close(dir);
	return true;
}
