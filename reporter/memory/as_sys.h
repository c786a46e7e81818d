/*
 * as_sys.h — AS-SAFE raw system calls the crash path needs and libc does not
 * wrap (or wraps with locks or caches).  All return -errno on failure, like
 * the kernel, and never touch errno's meaning for the caller.
 */
#ifndef PM_REPORTER_AS_SYS_H
#define PM_REPORTER_AS_SYS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

pid_t as_sys_gettid(void);
/* The calling thread's id, asked of the kernel once per thread and kept in
 * thread-local storage of the initial-exec model (a fixed offset from the
 * thread pointer, nothing allocated): the system call cost a fifth of a
 * fault that a runtime's handler resolves (as_chain.h).  A forked child
 * forgets it (pmi_tid_cache_start).  A raw clone() thread that shares its
 * parent's thread pointer reads the parent's: where a report names a
 * thread, the crash path asks as_sys_gettid. */
pid_t as_sys_tid(void);
void as_sys_tid_forget(void);
long as_sys_tgkill(pid_t tgid, pid_t tid, int sig);
/* Queue sig with a full siginfo to one of our own threads (keeps si_code/si_addr). */
long as_sys_tgsigqueueinfo(pid_t tgid, pid_t tid, int sig, const siginfo_t *info);
long as_sys_getdents64(int fd, void *buf, size_t n);
long as_sys_process_vm_readv(pid_t pid, void *dst, uintptr_t src, size_t n);
/* n ranges at once: remote[i] into local[i]; the bytes read before the first that fails. */
long as_sys_process_vm_readv_iov(pid_t pid, const struct iovec *local, const struct iovec *remote, size_t n);
/* Wait while *word == expected, at most timeout_ns (0: forever). */
long as_sys_futex_wait(int *word, int expected, uint64_t timeout_ns);
long as_sys_futex_wake(int *word);
long as_sys_getcpu(unsigned *cpu);
long as_sys_getrandom(void *buf, size_t n);
/* Make [p, p + n) resident and writable in one system call (MADV_POPULATE_WRITE,
 * Linux 5.14) instead of one page fault per fresh page: several times cheaper per
 * page where faults are dear (virtual machines).  Where it is refused (older
 * kernels) the pages fault one by one as before. */
long as_sys_populate(void *p, size_t n);
/* Start writing fd's dirty pages to disk (sync_file_range SYNC_FILE_RANGE_WRITE)
 * and, when wait, until they are written: a later fsync then finds them written
 * or on their way.  Nothing is made durable by this alone (no metadata, no cache
 * flush). */
long as_sys_writeback(int fd, bool wait);
/* fstatfs(2) and readlinkat(AT_FDCWD, ...) without libc's wrappers' names (not on the allow-list). */
struct statfs;
long as_sys_fstatfs(int fd, struct statfs *st);
long as_sys_readlink(const char *path, char *buf, size_t n);
/* openat2(2) with its struct open_how; -ENOSYS on a kernel before 5.6. */
long as_sys_openat2(int dirfd, const char *path, uint64_t flags, uint64_t resolve);
/* End the process with status now (exit_group, as libc's _exit), whatever
 * runs: what _exit does once it has looked for a handler's call under way
 * (as_exit.c). */
_Noreturn void as_sys_exit(int status);
/* Sleep for ns nanoseconds (nanosleep is AS-safe; this only folds the struct). */
void as_sys_sleep_ns(uint64_t ns);
/* The calling thread's name (prctl PR_GET_NAME: what /proc/.../comm shows), NUL-terminated
 * in 16 bytes; an empty string when it cannot be had. */
void as_sys_thread_name(char name[16]);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t as_sys_now_ns(void);
/* Anonymous private read-write memory (flags added to MAP_PRIVATE | MAP_ANONYMOUS); NULL when refused. */
void *as_sys_map(size_t n, int flags);
long as_sys_unmap(void *p, size_t n);
long as_sys_protect(void *p, size_t n, int prot);
long as_sys_sigaltstack(const stack_t *ss, stack_t *old);
/* A POSIX timer of CLOCK_MONOTONIC that sends sig to the process with si_value tag
 * (SI_TIMER); its kernel id in *id.  Set it to fire once, ns from now (0: disarmed). */
long as_sys_timer_create(int sig, int tag, int *id);
long as_sys_timer_once(int id, uint64_t ns);
/* [p, p + n) reads as zeroes in a forked child (MADV_WIPEONFORK, Linux 4.14). */
long as_sys_wipe_on_fork(void *p, size_t n);
/* Nanoseconds from *since to now; *since moves to now (one phase after another). */
uint64_t as_sys_lap_ns(uint64_t *since);

#endif
