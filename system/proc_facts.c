/*
 * proc_facts.c — what /proc/<pid> says of the crashed process, read by the
 * handler as root through the pinned directory (proc_pin.c): its ids,
 * groups and umask (status, whose Uid:, Gid:, Groups:, Umask: and PPid:
 * lines the kernel writes; a name the process chose is on the Name: line
 * alone, which is not read), its executable (a link the kernel makes), its
 * mount namespace and its start (stat's field 22, after the last ')').
 * Nothing the process wrote is parsed here: its environment and maps are
 * the snapshot's bytes, read by its children (proc_env.c).  Every read is
 * bounded.  NOT AS-safe.
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
	if (pmi_read_below(dir, "status", buf, sizeof buf) <= 0)
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
	if ((p = strstr(buf, "\nPPid:")))
		f->ppid = atoi(p + 6);
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

/* Its start in seconds since the epoch: the ticks after boot pinned, and /proc/stat's btime. */
static uint64_t
start_time(uint64_t ticks)
{
	char sys[16384];
	if (!ticks || pmi_read_below(AT_FDCWD, "/proc/stat", sys, sizeof sys) <= 0)
		return 0;
	const char *bt = strstr(sys, "\nbtime ");
	unsigned long long btime = 0;
	if (!bt || sscanf(bt + 7, "%llu", &btime) != 1)
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
pmi_proc_facts_read(const pm_proc *p, pm_proc_facts *f, char *why, size_t cap)
{
	memset(f, 0, sizeof *f);
	if (!read_status(p->dir, f)) {
		snprintf(why, cap, "cannot read /proc/%d/status", p->pid);
		return false;
	}
	ssize_t k = readlinkat(p->dir, "exe", f->exe, sizeof f->exe - 1);
	f->exe[k > 0 ? k : 0] = '\0';
	f->same_mount_ns = same_ns(p->dir);
	f->start_time = start_time(p->start_ticks);
	return true;
}
