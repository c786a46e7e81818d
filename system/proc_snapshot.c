/*
 * proc_snapshot.c — the bytes of /proc the report's analysis reads, taken
 * by root through the pinned directory (proc_pin.c) while the kernel holds
 * the process, and the OS's facts files the capture reads (os-release,
 * the hardware model, the CPUs online): so that the analysis, which runs
 * sandboxed in an empty root, opens no /proc and no system path.  Nothing
 * here is parsed: a file's bytes are kept as they came (up to a bound),
 * each under the path the engine asks for (as_files_serve), and the
 * environment apart, for the children that read it (proc_env.c).  The
 * threads are the names of task/, which the kernel makes.  What the kernel
 * reads out of the process's memory to answer (environ, cmdline) is read
 * in a child that root kills at its time limit.  NOT AS-safe.
 */
#include "system.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"

enum {
	SMALL_MAX = 64 << 10,     /* status, stat, comm, cmdline, auxv, an OS file */
	MAPS_MAX = 16 << 20,      /* as the minidump's copy of a /proc file */
	ENV_MAX = 1 << 20,
	TOTAL_MAX = 64 << 20,     /* everything */
};

/* The OS's files the capture reads (reporter/capture/as_facts.c, the minidump's release stream). */
static const char *const os_files[] = {
	"/etc/os-release", "/usr/lib/os-release", "/etc/lsb-release", "/sys/devices/system/cpu/online",
	"/sys/class/dmi/id/product_name",
};

typedef struct taking {
	pm_proc_snapshot *s;
	size_t total;
} taking;

/* Up to max bytes of name below dir, malloc'd (NUL after them); NULL when unreadable. */
static char *
read_all(int dir, const char *name, size_t max, size_t *len)
{
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	/* A buffer filled grows (to max at most); one not filled has its end. */
	while (buf && (n += pmi_read_fd(fd, buf + n, cap - n)) == cap && cap < max) {
		size_t more = cap * 2 > max ? max : cap * 2;
		char *b = realloc(buf, more + 1);
		if (!b)
			break;
		buf = b;
		cap = more;
	}
	close(fd);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

/* Room for one more file; false when out of memory. */
static bool
grow_files(pm_proc_snapshot *s)
{
	if (s->n < s->cap)
		return true;
	size_t cap = s->cap ? s->cap * 2 : 64;
	pm_snap_file *f = realloc(s->files, cap * sizeof *f);
	if (!f)
		return false;
	s->files = f;
	s->cap = cap;
	return true;
}

static void
keep(taking *t, int dir, const char *name, const char *path, size_t max)
{
	pm_proc_snapshot *s = t->s;
	if (t->total >= TOTAL_MAX) {
		s->cut = true;
		return;
	}
	if (!grow_files(s))
		return;
	size_t len;
	char *data = read_all(dir, name, max, &len), *key = data ? strdup(path) : NULL;
	if (!key) {
		free(data);
		return;
	}
	s->files[s->n++] = (pm_snap_file){ key, data, len };
	t->total += len;
}

static void
keep_proc(taking *t, int dir, int pid, const char *name, size_t max)
{
	char path[96];
	snprintf(path, sizeof path, "/proc/%d/%s", pid, name);
	keep(t, dir, name, path, max);
}

/* Each thread's comm and stat: task/'s names are the kernel's (numbers). */
static void
keep_threads(taking *t, const pm_proc *p)
{
	int fd = openat(p->dir, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *e;
	size_t seen = 0;
	while ((e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		if (seen++ == PM_CORE_THREADS_MAX) {
			t->s->cut = true;
			break;
		}
		char name[64];
		snprintf(name, sizeof name, "task/%ld/comm", tid);
		keep_proc(t, p->dir, p->pid, name, SMALL_MAX);
		snprintf(name, sizeof name, "task/%ld/stat", tid);
		keep_proc(t, p->dir, p->pid, name, SMALL_MAX);
	}
	closedir(d);
}

/* Another process's name (its parent, a signal's sender): comm, which anyone may read. */
static void
keep_comm_of(taking *t, int pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/comm", pid);
	for (size_t i = 0; pid > 0 && i < t->s->n; i++)
		if (strcmp(t->s->files[i].path, path) == 0)
			return;
	if (pid > 0)
		keep(t, AT_FDCWD, path, path, SMALL_MAX);
}

/* environ and cmdline are read out of the process's memory (the kernel's
 * access_remote_vm): a page of them may be a file of a FUSE server its
 * user runs, which need never answer, and such a wait ends only by
 * SIGKILL.  So root reads them in a child of its own, killed at
 * MEMORY_MS; they come back through memory the two share. */
enum { MEMORY_MS = 5000 };

typedef struct from_memory {
	int dir;
	size_t env_len, cmd_len;
	char env[ENV_MAX], cmd[SMALL_MAX];
} from_memory;

static int
read_memory_backed(void *arg, int sock)
{
	(void)sock;
	from_memory *m = arg;
	size_t len;
	char *b = read_all(m->dir, "environ", ENV_MAX, &len);
	if (b)
		memcpy(m->env, b, m->env_len = len);
	free(b);
	if ((b = read_all(m->dir, "cmdline", SMALL_MAX, &len)))
		memcpy(m->cmd, b, m->cmd_len = len);
	free(b);
	return 0;
}

static void
keep_from_memory(taking *t, const pm_proc *p, bool with_proc)
{
	from_memory *m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return;
	m->dir = p->dir;
	int fd;
	bool timed_out;
	int rc = pmi_child_run(NULL, read_memory_backed, m, MEMORY_MS, &fd, &timed_out, NULL);
	if (fd >= 0)
		close(fd);
	/* Its own words, for its children: never served as a file (the minidump
	 * leaves the environment out). */
	if (rc == 0 && m->env_len <= ENV_MAX && (t->s->env = malloc(m->env_len + 1))) {
		memcpy(t->s->env, m->env, t->s->env_len = m->env_len);
		t->s->env[m->env_len] = '\0';
	}
	char path[64], *cmd = rc == 0 && with_proc && m->cmd_len <= SMALL_MAX ? malloc(m->cmd_len + 1) : NULL;
	snprintf(path, sizeof path, "/proc/%d/cmdline", p->pid);
	char *key = cmd ? strdup(path) : NULL;
	if (key && grow_files(t->s)) {
		memcpy(cmd, m->cmd, m->cmd_len);
		cmd[m->cmd_len] = '\0';
		t->s->files[t->s->n++] = (pm_snap_file){ key, cmd, m->cmd_len };
		t->total += m->cmd_len;
	} else {
		free(cmd);
		free(key);
	}
	t->s->cut |= rc != 0;
	munmap(m, sizeof *m);
}

static int
by_path(const void *a, const void *b)
{
	return strcmp(((const pm_snap_file *)a)->path, ((const pm_snap_file *)b)->path);
}

void
pmi_snapshot_take(pm_proc_snapshot *s, const pm_proc *p, const pm_proc_facts *f, bool with_proc)
{
	*s = (pm_proc_snapshot){ .proc = with_proc };
	taking t = { s, 0 };
	for (size_t i = 0; i < sizeof os_files / sizeof *os_files; i++)
		keep(&t, AT_FDCWD, os_files[i], os_files[i], SMALL_MAX);
	if (p->dir >= 0) {
		keep_proc(&t, p->dir, p->pid, "maps", MAPS_MAX);
		keep_from_memory(&t, p, with_proc);
	}
	if (with_proc && p->dir >= 0) {
		static const char *const files[] = { "status", "auxv", "stat", "comm" };
		for (size_t i = 0; i < sizeof files / sizeof *files; i++)
			keep_proc(&t, p->dir, p->pid, files[i], SMALL_MAX);
		keep_threads(&t, p);
		keep_comm_of(&t, f->ppid);
	}
	qsort(s->files, s->n, sizeof *s->files, by_path);
}

void
pmi_snapshot_keep_comm(pm_proc_snapshot *s, int pid)
{
	size_t total = 0;
	for (size_t i = 0; i < s->n; i++)
		total += s->files[i].len;
	taking t = { s, total };
	keep_comm_of(&t, pid);
	qsort(s->files, s->n, sizeof *s->files, by_path);
}

const char *
pmi_snapshot_bytes(const pm_proc_snapshot *s, const char *path, size_t *len)
{
	pm_snap_file key = { .path = (char *)path };
	const pm_snap_file *f = s->n ? bsearch(&key, s->files, s->n, sizeof *s->files, by_path) : NULL;
	*len = f ? f->len : 0;
	return f ? f->data : NULL;
}

void
pmi_snapshot_free(pm_proc_snapshot *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->files[i].path);
		free(s->files[i].data);
	}
	free(s->files);
	free(s->env);
	*s = (pm_proc_snapshot){ 0 };
}
