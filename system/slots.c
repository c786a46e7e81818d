/*
 * slots.c — how many reports of one uid are made at once, across handler
 * instances (docs/system-reporter.md, "Bounds").  The kernel runs one
 * handler per crash and skips the core of any crash past
 * kernel.core_pipe_limit handlers at once ("over core_pipe_limit, skipping
 * core dump"): whoever could keep 64 handlers busy would leave the next
 * crash, root's included, unreported.  So a report is made only in one of
 * its uid's PM_SLOTS_PER_UID slots: the files <sysdir>/slots/<uid>.<n>
 * (root's, in a directory of root's alone), each held by a handler with
 * flock until it closes the core's pipe (the kernel lets the lock go with
 * the last descriptor, however the handler ends).  A crash that finds every slot
 * of its uid held is counted in <uid>.over, whose count the uid's next
 * report says and resets.  The uid is the kernel's (%u): a process cannot
 * choose another.  NOT AS-safe.
 */
#include "handler.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* <sysdir>/slots, root's alone (made when missing); -1 (why says) when it is not. */
static int
slots_dir(const char *sysdir, char *why, size_t cap)
{
	int sys = pmi_root_path_open(sysdir, PMI_PATH_DIR, why, cap);
	if (sys < 0)
		return -1;
	if (mkdirat(sys, "slots", 0700) != 0 && errno != EEXIST) {
		snprintf(why, cap, "cannot make %s/slots: %s", sysdir, strerror(errno));
		close(sys);
		return -1;
	}
	int fd = openat(sys, "slots", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(sys);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || st.st_uid != 0 || (st.st_mode & 077)) {
		snprintf(why, cap, "%s/slots is not a directory of root's alone", sysdir);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* dir/name, a regular file of root's with one link (made when missing), open for reading and writing. */
static int
slot_file(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 || st.st_nlink != 1)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int
pmi_slot_take(const char *sysdir, uint32_t uid, char *why, size_t cap)
{
	int dir = slots_dir(sysdir, why, cap);
	if (dir < 0)
		return PM_SLOT_NONE;
	int held = PM_SLOT_FULL;
	for (int i = 0; i < PM_SLOTS_PER_UID && held == PM_SLOT_FULL; i++) {
		char name[32];
		snprintf(name, sizeof name, "%" PRIu32 ".%d", uid, i);
		int fd = slot_file(dir, name);
		if (fd < 0) {
			snprintf(why, cap, "%s/slots/%s is not a file of root's alone", sysdir, name);
			held = PM_SLOT_NONE;
		} else if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			held = fd;
		else
			close(fd);
	}
	close(dir);
	return held;
}

/* <uid>.over's count plus add, written back (0: reset); the count before. */
static uint64_t
over_count(const char *sysdir, uint32_t uid, int add)
{
	char why[256], name[32], buf[32] = "";
	int dir = slots_dir(sysdir, why, sizeof why);
	if (dir < 0)
		return 0;
	snprintf(name, sizeof name, "%" PRIu32 ".over", uid);
	int fd = slot_file(dir, name);
	close(dir);
	if (fd < 0)
		return 0;
	uint64_t n = 0;
	/* Root's handlers alone take this lock, each for a read and a write. */
	if (flock(fd, LOCK_EX) == 0 && pread(fd, buf, sizeof buf - 1, 0) > 0)
		n = strtoull(buf, NULL, 10);
	int len = snprintf(buf, sizeof buf, "%" PRIu64 "\n", add ? n + 1 : 0);
	if (pwrite(fd, buf, (size_t)len, 0) != len || ftruncate(fd, len) != 0) {
		/* A count not kept is one fewer said: nothing else depends on it. */
	}
	close(fd);
	return n;
}

uint64_t
pmi_slot_count_over(const char *sysdir, uint32_t uid)
{
	return over_count(sysdir, uid, 1) + 1;
}

uint64_t
pmi_slot_take_over(const char *sysdir, uint32_t uid)
{
	return over_count(sysdir, uid, 0);
}
