/*
 * as_tasks.c — AS-SAFE: listing /proc/self/task (see as_tasks.h).
 */
#include "as_tasks.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "as_sys.h"
#include "as_util.h"

bool
as_tasks_open(as_tasks *t, char *buf, size_t cap)
{
	t->fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t->buf = buf;
	t->cap = cap;
	t->got = t->off = 0;
	return t->fd >= 0;
}

bool
as_tasks_next(as_tasks *t, pid_t *tid)
{
	for (;;) {
		if (t->off >= t->got) {
			t->got = as_sys_getdents64(t->fd, t->buf, t->cap);
			t->off = 0;
			if (t->got <= 0)
				return false;
		}
		const struct dirent64 *d = (const struct dirent64 *)(t->buf + t->off);
		if (d->d_reclen == 0) {
			t->got = 0;
			continue;
		}
		t->off += d->d_reclen;
		const char *p = d->d_name, *end = p + sizeof d->d_name;
		uint64_t v;
		/* "." and ".." parse as no number; a tid fits a pid_t. */
		if (as_parse_dec(&p, end, &v) && *p == '\0' && v > 0 && v <= 0x3fffffff) {
			*tid = (pid_t)v;
			return true;
		}
	}
}

void
as_tasks_close(as_tasks *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}
