/*
 * as_session.c — AS-SAFE: the line that ends this run's session record, from
 * exit()'s hook (session.c) or from _exit (as_exit.c), which a signal handler
 * may call.  Its cost is the process's exit's: one clock read (vDSO), an
 * fstat, an lseek and a write (no pwrite: lseek and write are on the crash
 * path's allow-list, and the descriptor is this record's alone).
 */
#include "as_session.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "as_memory.h"

/* In .data beside what install writes first (start_data.h). */
PM_START_DATA as_session_state as_session = { .fd = -1 };

void
as_session_end(int status)
{
	/* A vfork's child shares this memory: it must not take the parent's record. */
	int fd = atomic_load(&as_session.fd);
	if (fd < 0 || getpid() != as_session.pid || !atomic_compare_exchange_strong(&as_session.fd, &fd, -1))
		return;
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_dev != as_session.dev || st.st_ino != as_session.ino)
		return;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	/* "end exit <code> <us>\n", built from its end. */
	char line[64], *p = line + sizeof line;
	*--p = '\n';
	p = as_put_dec(p, (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u);
	*--p = ' ';
	p = as_put_dec(p, (unsigned)status & 0xff);
	static const char head[] = "end exit ";
	p -= sizeof head - 1;
	for (size_t i = 0; i < sizeof head - 1; i++)
		p[i] = head[i];
	if (lseek(fd, as_session.end_at, SEEK_SET) == as_session.end_at)
		(void)!write(fd, p, (size_t)(line + sizeof line - p));
}
