/*
 * map_files.c — the files the crashed process maps, as descriptors of the
 * very inodes mapped, never by a path: /proc/<pid>/map_files/ lists one
 * entry per file mapping, named by the kernel "<start>-<end>" (hex), a
 * link to the mapped file whatever its path says now (renamed, replaced,
 * in another mount namespace).
 *
 * Root, in the handler, opens each entry O_PATH: no device's open runs,
 * no FIFO blocks, no file system is asked to open anything; statx with
 * AT_STATX_DONT_SYNC asks no server either (FUSE, NFS).  Only regular
 * files are kept, one descriptor per inode (its other mappings share it),
 * at most FILES_MAX of them: past that a file is left out (fewer symbols,
 * said in the log).  The analysis child opens each for reading itself,
 * through /proc/self/fd (pmi_map_files_reopen): as root for a report root
 * keeps, as the user for a report the user gets (so a file that user may
 * not read stays out), and within the child's time limit, so that a file
 * system that never answers holds nobody but it.  NOT AS-safe.
 */
#include "map_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

enum { FILES_MAX = 4096, MAPPINGS_MAX = 1 << 20, SLOTS = 8192 /* a power of two over 2 * FILES_MAX */ };

/* The inodes kept so far: an open-addressed table of indexes into mf->files. */
typedef struct inodes {
	int slot[SLOTS];          /* index + 1; 0: empty */
} inodes;

static size_t
hash(dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15u ^ (uint64_t)dev;
	return (size_t)(h >> 32) & (SLOTS - 1);
}

/* The file kept for (dev, ino), or -1 with *at the slot to fill. */
static int
find_inode(const inodes *t, const pm_map_files *mf, dev_t dev, ino_t ino, size_t *at)
{
	size_t i = hash(dev, ino);
	while (t->slot[i]) {
		const pm_map_file *f = &mf->files[t->slot[i] - 1];
		if (f->dev == dev && f->ino == ino)
			return f->fd;
		i = (i + 1) & (SLOTS - 1);
	}
	*at = i;
	return -1;
}

static bool
parse_range(const char *name, uint64_t *start, uint64_t *end)
{
	char *dash, *stop;
	unsigned long long s = strtoull(name, &dash, 16);
	if (dash == name || *dash != '-')
		return false;
	unsigned long long e = strtoull(dash + 1, &stop, 16);
	if (stop == dash + 1 || *stop || e <= s)
		return false;
	*start = s;
	*end = e;
	return true;
}

/* Enough descriptors for FILES_MAX files (the kernel starts a pipe handler with 1024). */
static void
room_for_files(void)
{
	struct rlimit r;
	rlim_t want = FILES_MAX + 256;
	if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < want) {
		r.rlim_cur = want;
		if (r.rlim_max < want)
			r.rlim_max = want;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

static bool
grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return true;
	size_t more = *cap ? *cap * 2 : 256;
	void *q = realloc(*p, more * size);
	if (!q)
		return false;
	*p = q;
	*cap = more;
	return true;
}

/* Entry name of d: its file kept (once per inode), its mapping recorded. */
static void
take(pm_map_files *mf, inodes *t, int dir, const char *name, size_t *mcap, size_t *fcap)
{
	uint64_t start, end;
	if (!parse_range(name, &start, &end) || mf->n == MAPPINGS_MAX ||
	    !grow((void **)&mf->m, mcap, mf->n, sizeof *mf->m))
		return;
	int o = openat(dir, name, O_PATH | O_CLOEXEC);
	struct statx st;
	if (o < 0)
		return;
	if (statx(o, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_INO, &st) != 0 ||
	    !S_ISREG(st.stx_mode)) {
		mf->not_files++;
		close(o);
		return;
	}
	dev_t dev = makedev(st.stx_dev_major, st.stx_dev_minor);
	size_t at = 0;
	int fd = find_inode(t, mf, dev, st.stx_ino, &at);
	if (fd >= 0)
		close(o);
	else if (mf->nfiles == FILES_MAX || !grow((void **)&mf->files, fcap, mf->nfiles, sizeof *mf->files)) {
		mf->left_out++;
		close(o);
		return;
	} else {
		fd = o;
		mf->files[mf->nfiles++] = (pm_map_file){ .fd = fd, .dev = dev, .ino = st.stx_ino };
		t->slot[at] = (int)mf->nfiles;
	}
	mf->m[mf->n++] = (pm_core_mapped){ .start = start, .end = end, .fd = fd };
}

bool
pmi_map_files_open(const pm_proc *p, pm_map_files *mf, char *why, size_t cap)
{
	*mf = (pm_map_files){ 0 };
	int fd = openat(p->dir, "map_files", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	inodes *t = calloc(1, sizeof *t);
	if (!d || !t) {
		snprintf(why, cap, "cannot list /proc/%d/map_files: %s", p->pid, strerror(errno));
		if (d)
			closedir(d);
		else if (fd >= 0)
			close(fd);
		free(t);
		return false;
	}
	room_for_files();
	size_t mcap = 0, fcap = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			take(mf, t, dirfd(d), e->d_name, &mcap, &fcap);
	closedir(d);
	free(t);
	return true;
}

void
pmi_map_files_reopen(pm_map_files *mf, int self_fd, int null)
{
	for (size_t i = 0; i < mf->nfiles; i++) {
		pm_map_file *f = &mf->files[i];
		char name[16];
		struct stat st;
		snprintf(name, sizeof name, "%d", f->fd);
		int fd = self_fd >= 0 ? openat(self_fd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) : -1;
		bool same = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == f->dev &&
		            st.st_ino == f->ino;
		/* In its place, so that the numbers the core reader holds stay: the file,
		 * or nothing to read (never a number another open could take). */
		int put = same ? fd : null;
		f->readable = same && put >= 0 && dup3(put, f->fd, O_CLOEXEC) == f->fd;
		if (!f->readable && null >= 0)
			dup3(null, f->fd, O_CLOEXEC);
		if (fd >= 0)
			close(fd);
	}
}

size_t
pmi_map_files_readable(const pm_map_files *mf)
{
	size_t n = 0;
	for (size_t i = 0; i < mf->nfiles; i++)
		n += mf->files[i].readable;
	return n;
}

void
pmi_map_files_close(pm_map_files *mf)
{
	for (size_t i = 0; i < mf->nfiles; i++)
		close(mf->files[i].fd);
	free(mf->files);
	free(mf->m);
	*mf = (pm_map_files){ 0 };
}
