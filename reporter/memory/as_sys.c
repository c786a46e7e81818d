/*
 * as_sys.c — AS-SAFE raw system calls (see as_sys.h).
 *
 * syscall(2) is a thin trap wrapper: no locks, no allocation.  errno is saved
 * and restored so the handler's caller never sees it change.
 */
#include "as_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* One trap; unused arguments are ignored by the kernel. */
static long
raw(long nr, long a, long b, long c, long d, long e, long f)
{
	int saved = errno;
	long r = syscall(nr, a, b, c, d, e, f);
	if (r < 0)
		r = -errno;
	errno = saved;
	return r;
}

#define RAW0(nr) raw(nr, 0, 0, 0, 0, 0, 0)
#define L(x) ((long)(x))

pid_t
as_sys_gettid(void)
{
	return (pid_t)RAW0(SYS_gettid);
}

static __thread pid_t cached_tid __attribute__((tls_model("initial-exec")));

pid_t
as_sys_tid(void)
{
	if (!cached_tid)
		cached_tid = as_sys_gettid();
	return cached_tid;
}

void
as_sys_tid_forget(void)
{
	cached_tid = 0;
}

long
as_sys_tgkill(pid_t tgid, pid_t tid, int sig)
{
	return raw(SYS_tgkill, tgid, tid, sig, 0, 0, 0);
}

long
as_sys_tgsigqueueinfo(pid_t tgid, pid_t tid, int sig, const siginfo_t *info)
{
	return raw(SYS_rt_tgsigqueueinfo, tgid, tid, sig, L(info), 0, 0);
}

long
as_sys_getdents64(int fd, void *buf, size_t n)
{
	return raw(SYS_getdents64, fd, L(buf), L(n), 0, 0, 0);
}

long
as_sys_process_vm_readv(pid_t pid, void *dst, uintptr_t src, size_t n)
{
	struct iovec lo = { .iov_base = dst, .iov_len = n };
	struct iovec re = { .iov_base = (void *)src, .iov_len = n };
	return as_sys_process_vm_readv_iov(pid, &lo, &re, 1);
}

long
as_sys_process_vm_readv_iov(pid_t pid, const struct iovec *local, const struct iovec *remote, size_t n)
{
	return raw(SYS_process_vm_readv, pid, L(local), L(n), L(remote), L(n), 0);
}

long
as_sys_futex_wait(int *word, int expected, uint64_t timeout_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(timeout_ns / 1000000000u),
	                       .tv_nsec = (long)(timeout_ns % 1000000000u) };
	return raw(SYS_futex, L(word), FUTEX_WAIT_PRIVATE, expected, timeout_ns ? L(&ts) : 0, 0, 0);
}

long
as_sys_futex_wake(int *word)
{
	return raw(SYS_futex, L(word), FUTEX_WAKE_PRIVATE, 0x7fffffff, 0, 0, 0);
}

long
as_sys_getcpu(unsigned *cpu)
{
	return raw(SYS_getcpu, L(cpu), 0, 0, 0, 0, 0);
}

long
as_sys_getrandom(void *buf, size_t n)
{
	return raw(SYS_getrandom, L(buf), L(n), 0x0001 /* GRND_NONBLOCK */, 0, 0, 0);
}

long
as_sys_populate(void *p, size_t n)
{
	/* madvise wants a page-aligned start; 4 KiB is the smallest page (where
	 * pages are larger, a misaligned start is refused and nothing changes). */
	uintptr_t start = (uintptr_t)p & ~(uintptr_t)4095, end = (uintptr_t)p + n;
	return raw(SYS_madvise, L(start), L(end - start), MADV_POPULATE_WRITE, 0, 0, 0);
}

long
as_sys_writeback(int fd, bool wait)
{
	unsigned flags = SYNC_FILE_RANGE_WRITE | (wait ? SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WAIT_AFTER : 0);
	/* offset 0, length 0: the whole file */
	return raw(SYS_sync_file_range, fd, 0, 0, flags, 0, 0);
}

long
as_sys_fstatfs(int fd, struct statfs *st)
{
	return raw(SYS_fstatfs, fd, L(st), 0, 0, 0, 0);
}

long
as_sys_readlink(const char *path, char *buf, size_t n)
{
	return raw(SYS_readlinkat, AT_FDCWD, L(path), L(buf), L(n), 0, 0);
}

long
as_sys_openat2(int dirfd, const char *path, uint64_t flags, uint64_t resolve)
{
	/* struct open_how: flags, mode, resolve (linux/openat2.h). */
	uint64_t how[3] = { flags, 0, resolve };
	return raw(SYS_openat2, dirfd, L(path), L(how), L(sizeof how), 0, 0);
}

void
as_sys_exit(int status)
{
	for (;;) {
		syscall(SYS_exit_group, status);
		syscall(SYS_exit, status);
	}
}

void
as_sys_sleep_ns(uint64_t ns)
{
	int e = errno;
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
	nanosleep(&ts, NULL);
	errno = e;
}

uint64_t
as_sys_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void *
as_sys_map(size_t n, int flags)
{
	long r = raw(SYS_mmap, 0, L(n), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
	/* Addresses in the last page of the address space are errors (-4095..-1). */
	return r < 0 && r >= -4095 ? NULL : (void *)r;
}

long
as_sys_unmap(void *p, size_t n)
{
	return raw(SYS_munmap, L(p), L(n), 0, 0, 0, 0);
}

long
as_sys_protect(void *p, size_t n, int prot)
{
	return raw(SYS_mprotect, L(p), L(n), prot, 0, 0, 0);
}

long
as_sys_sigaltstack(const stack_t *ss, stack_t *old)
{
	return raw(SYS_sigaltstack, L(ss), L(old), 0, 0, 0, 0);
}

long
as_sys_timer_create(int sig, int tag, int *id)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = sig;
	ev.sigev_value.sival_int = tag;
	/* The kernel writes an int (its timer_t), not libc's timer_t pointer. */
	return raw(SYS_timer_create, CLOCK_MONOTONIC, L(&ev), L(id), 0, 0, 0);
}

long
as_sys_timer_once(int id, uint64_t ns)
{
	struct itimerspec it;
	memset(&it, 0, sizeof it);
	it.it_value.tv_sec = (time_t)(ns / 1000000000u);
	it.it_value.tv_nsec = (long)(ns % 1000000000u);
	return raw(SYS_timer_settime, id, 0, L(&it), 0, 0, 0);
}

long
as_sys_wipe_on_fork(void *p, size_t n)
{
	return raw(SYS_madvise, L(p), L(n), MADV_WIPEONFORK, 0, 0, 0);
}

void
as_sys_thread_name(char name[16])
{
	name[0] = '\0';
	if (raw(SYS_prctl, PR_GET_NAME, L(name), 0, 0, 0, 0) != 0)
		name[0] = '\0';
	name[15] = '\0';
}

uint64_t
as_sys_lap_ns(uint64_t *since)
{
	uint64_t now = as_sys_now_ns(), d = now - *since;
	*since = now;
	return d;
}
