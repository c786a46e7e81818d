/*
 * as_dirents.c — AS-SAFE: reading a directory (see as_dirents.h).
 */
#include "as_dirents.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "as_sys.h"
#include "as_util.h"

bool
as_dirents_open(as_dirents *d, const char *path, char *buf, size_t cap)
{
	d->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d->buf = buf;
	d->cap = cap;
	d->got = d->off = 0;
	return d->fd >= 0;
}

const char *
as_dirents_next(as_dirents *d)
{
	for (;;) {
		if (d->off >= d->got) {
			d->got = as_sys_getdents64(d->fd, d->buf, d->cap);
			d->off = 0;
			if (d->got <= 0)
				return NULL;
		}
		const struct dirent64 *e = (const struct dirent64 *)(d->buf + d->off);
		if (e->d_reclen == 0) {
			d->got = 0; /* a broken record: read on from the directory's position */
			continue;
		}
		d->off += e->d_reclen;
		return e->d_name;
	}
}

bool
as_dirents_next_tid(as_dirents *d, pid_t *tid)
{
	const char *name;
	while ((name = as_dirents_next(d)) != NULL) {
		const char *p = name, *end = name + 256;
		uint64_t v;
		/* "." and ".." parse as no number; a tid fits a pid_t. */
		if (as_parse_dec(&p, end, &v) && *p == '\0' && v > 0 && v <= 0x3fffffff) {
			*tid = (pid_t)v;
			return true;
		}
	}
	return false;
}

void
as_dirents_close(as_dirents *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}
