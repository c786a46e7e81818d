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
 * of its uid held waits for one, up to PM_SLOT_WAIT_MS, if it is one of the
 * uid's PM_SLOT_WAITERS_PER_UID waiters (<uid>.w<n>, held the same way): a
 * burst of crashes of one program (a pool of workers fed one bad input) is
 * reported in full, while one uid holds at most PM_SLOTS_PER_UID +
 * PM_SLOT_WAITERS_PER_UID of the kernel's handlers for long.  A crash past
 * both, or one whose wait ends, is counted in <uid>.over, whose count the
 * uid's next report says and resets.  The uid is the kernel's (%u): a process cannot
 * choose another.  A crash past its uid's slots and waiters serves the
 * previous handler only in one of the machine's PM_SLOTLESS_AT_ONCE places
 * past.<n>: one user's storm keeps at most that many more of the kernel's
 * handlers busy, whatever its rate.  NOT AS-safe.
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
#include <time.h>
#include <unistd.h>

enum { POLL_MS = 10 };

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

/* One of dir's files <prefix><n>, n < count, locked by this process: its descriptor,
 * PM_SLOT_FULL when every one is held, PM_SLOT_NONE when one is not root's alone. */
static int
lock_one(int dir, const char *prefix, int count)
{
	for (int i = 0; i < count; i++) {
		char name[48];
		snprintf(name, sizeof name, "%s%d", prefix, i);
		int fd = slot_file(dir, name);
		if (fd < 0)
			return PM_SLOT_NONE;
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		close(fd);
	}
	return PM_SLOT_FULL;
}

int
pmi_slot_take(const char *sysdir, uint32_t uid, int64_t *waited_ms, char *why, size_t cap)
{
	*waited_ms = 0;
	int dir = slots_dir(sysdir, why, cap);
	if (dir < 0)
		return PM_SLOT_NONE;
	char slots[24], waiters[24];
	snprintf(slots, sizeof slots, "%" PRIu32 ".", uid);
	snprintf(waiters, sizeof waiters, "%" PRIu32 ".w", uid);
	int held = lock_one(dir, slots, PM_SLOTS_PER_UID);
	int waiter = held == PM_SLOT_FULL ? lock_one(dir, waiters, PM_SLOT_WAITERS_PER_UID) : PM_SLOT_FULL;
	int64_t t0 = pmi_now_ms();
	static const struct timespec poll = { 0, POLL_MS * 1000000L };
	while (waiter >= 0 && held == PM_SLOT_FULL && pmi_now_ms() - t0 < PM_SLOT_WAIT_MS) {
		nanosleep(&poll, NULL);
		held = lock_one(dir, slots, PM_SLOTS_PER_UID);
	}
	if (waiter >= 0) {
		*waited_ms = pmi_now_ms() - t0;
		close(waiter);
	}
	if (held == PM_SLOT_NONE || waiter == PM_SLOT_NONE) {
		snprintf(why, cap, "a file of %s/slots is not root's alone", sysdir);
		if (held >= 0)
			close(held);
		held = PM_SLOT_NONE;
	}
	close(dir);
	return held;
}

int
pmi_slot_take_past(const char *sysdir, char *why, size_t cap)
{
	int dir = slots_dir(sysdir, why, cap);
	if (dir < 0)
		return PM_SLOT_NONE;
	int held = lock_one(dir, "past.", PM_SLOTLESS_AT_ONCE);
	if (held == PM_SLOT_NONE)
		snprintf(why, cap, "a file of %s/slots is not root's alone", sysdir);
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
