/*
 * as_util.c — AS-SAFE helpers (see as_util.h).  Only open/openat/read/
 * fstat/close, raw system calls and memcpy/memmove/strlen are called.
 */
#include "as_util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "as_sys.h"

static const as_file_server *file_server;

void
as_files_serve(const as_file_server *server)
{
	file_server = server;
}

bool
as_files_served(void)
{
	return file_server != NULL;
}

const char *
as_files_bytes(const char *path, size_t *len)
{
	*len = 0;
	return file_server ? file_server->bytes(file_server->ctx, path, len) : NULL;
}

size_t
as_strlcpy(char *dst, const char *src, size_t cap)
{
	if (cap == 0)
		return 0;
	size_t n = src ? strlen(src) : 0;
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
	return n;
}

size_t
as_strlcat(char *dst, const char *src, size_t cap)
{
	size_t have = strlen(dst);
	if (have >= cap)
		return have;
	return have + as_strlcpy(dst + have, src, cap - have);
}

const char *
as_basename(const char *path)
{
	const char *b = path;
	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1])
			b = p + 1;
	return b;
}

static int
hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool
as_parse_hex(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = *p;
	while (s < end && hex_value(*s) >= 0)
		v = (v << 4) | (uint64_t)hex_value(*s++);
	if (s == *p)
		return false;
	*p = s;
	*out = v;
	return true;
}

bool
as_parse_dec(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = *p;
	while (s < end && *s >= '0' && *s <= '9')
		v = v * 10 + (uint64_t)(*s++ - '0');
	if (s == *p)
		return false;
	*p = s;
	*out = v;
	return true;
}

char *
as_put_dec(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

int
as_open_ro(const char *path)
{
	int fd;
	if (file_server) {
		errno = ENOENT;
		return -1;
	}
	/* No open waits (a FIFO), none makes a terminal ours. */
	do
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
	while (fd < 0 && errno == EINTR);
	return fd;
}

enum { OPEN_READ = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY };

/* Whether only slashes are left at p. */
static bool
at_end(const char *p)
{
	while (*p == '/')
		p++;
	return *p == '\0';
}

/* path walked one component at a time from dirfd, none a link (the last
 * opened with `flags | O_NOFOLLOW`: a link fails, or is opened as itself
 * under O_PATH, which is no regular file), ".." refused beneath: openat2's
 * rules where the kernel has none.  A descriptor, or -1. */
static int
walk_no_links(int dirfd, const char *path, bool beneath, int flags)
{
	int cur = path[0] == '/' && !beneath ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC) : dirfd;
	const char *p = path;
	for (;;) {
		while (*p == '/')
			p++;
		size_t n = 0;
		while (p[n] && p[n] != '/')
			n++;
		char name[256];
		if (cur < 0 || n == 0 || n >= sizeof name || (beneath && n == 2 && p[0] == '.' && p[1] == '.'))
			break;
		memcpy(name, p, n);
		name[n] = '\0';
		bool last = at_end(p + n);
		int next = openat(cur, name, last ? flags | O_NOFOLLOW : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cur != dirfd)
			close(cur);
		if (last)
			return next;
		cur = next;
		p += n;
	}
	if (cur >= 0 && cur != dirfd)
		close(cur);
	return -1;
}

/* path opened with flags as how says it may be walked; a descriptor, or -1. */
static int
open_walked(int dirfd, const char *path, int how, int flags)
{
	bool beneath = how & AS_OPEN_BENEATH;
	if (beneath)
		while (*path == '/')
			path++;
	long fd;
	if (how == AS_OPEN_FOLLOW) {
		do
			fd = openat(dirfd, path, flags);
		while (fd < 0 && errno == EINTR);
		return (int)fd;
	}
	uint64_t resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | (beneath ? RESOLVE_BENEATH : 0);
	do
		fd = as_sys_openat2(dirfd, path, (uint64_t)flags, resolve);
	while (fd == -EINTR || fd == -EAGAIN);
	if (fd == -ENOSYS)
		return walk_no_links(dirfd, path, beneath, flags);
	return fd < 0 ? -1 : (int)fd;
}

bool
as_path_climbs(const char *path)
{
	for (const char *p = path; *p; p++)
		if (p[0] == '.' && p[1] == '.' && (p == path || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
			return true;
	return false;
}

int
as_open_file(int dirfd, const char *path, int how)
{
	if (file_server && !(how & AS_OPEN_UNSERVED))
		return file_server->open(file_server->ctx, path);
	how &= ~AS_OPEN_UNSERVED;
	if ((how & AS_OPEN_NO_LINKS) && as_path_climbs(path))
		return -1;
	int saved = errno;
	int o = open_walked(dirfd, path, how, O_PATH | O_CLOEXEC), fd = -1;
	struct stat ps, st;
	if (o >= 0 && fstat(o, &ps) == 0 && S_ISREG(ps.st_mode)) {
		/* The regular file found, opened for reading as itself. */
		char self[40] = "/proc/self/fd/", num[16];
		size_t k = 0, at = strlen(self);
		for (unsigned v = (unsigned)o; k == 0 || v; v /= 10)
			num[k++] = (char)('0' + v % 10);
		while (k)
			self[at++] = num[--k];
		self[at] = '\0';
		fd = open(self, OPEN_READ);
		/* No /proc (a chroot, a filter): the path again, kept when it is the same
		 * file (one swapped in between had its open, which O_NONBLOCK keeps from waiting). */
		if (fd < 0 && errno != EACCES)
			fd = open_walked(dirfd, path, how, OPEN_READ);
		if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_dev != ps.st_dev || st.st_ino != ps.st_ino)) {
			close(fd);
			fd = -1;
		}
	}
	if (o >= 0)
		close(o);
	errno = saved;
	return fd;
}

long
as_read_small_file(const char *path, char *buf, size_t cap)
{
	if (file_server) {
		size_t len;
		const char *b = as_files_bytes(path, &len);
		if (!b || cap == 0)
			return -1;
		if (len > cap - 1)
			len = cap - 1;
		memcpy(buf, b, len);
		if (len > 0 && buf[len - 1] == '\n')
			len--;
		buf[len] = '\0';
		return (long)len;
	}
	int saved = errno;
	int fd = as_open_ro(path);
	long n = -1;
	if (fd >= 0 && cap > 0) {
		size_t got = 0;
		ssize_t r;
		while (got < cap - 1 && ((r = read(fd, buf + got, cap - 1 - got)) > 0 || (r < 0 && errno == EINTR)))
			if (r > 0)
				got += (size_t)r;
		buf[got] = '\0';
		if (got > 0 && buf[got - 1] == '\n')
			buf[--got] = '\0';
		n = (long)got;
	}
	if (fd >= 0)
		close(fd);
	errno = saved;
	return n;
}

long
as_read_proc(const char *prefix, long id, const char *file, char *buf, size_t cap)
{
	char path[96], num[24];
	size_t n = 0;
	long v = id;
	do {
		num[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0 && n < sizeof num - 1);
	as_strlcpy(path, prefix, sizeof path);
	size_t at = strlen(path);
	for (size_t i = 0; i < n && at + 1 < sizeof path; i++)
		path[at++] = num[n - 1 - i];
	path[at] = '\0';
	as_strlcat(path, "/", sizeof path);
	as_strlcat(path, file, sizeof path);
	return as_read_small_file(path, buf, cap);
}

bool
as_lines_open(pm_as_lines *l, const char *path, char *buf, size_t cap)
{
	memset(l, 0, sizeof *l);
	l->buf = buf;
	l->cap = cap;
	l->fd = as_open_ro(path);
	return l->fd >= 0;
}

static void
refill(pm_as_lines *l)
{
	if (l->pos > 0) {
		memmove(l->buf, l->buf + l->pos, l->len - l->pos);
		l->len -= l->pos;
		l->pos = 0;
	}
	while (!l->eof && l->len < l->cap) {
		ssize_t r = read(l->fd, l->buf + l->len, l->cap - l->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			l->eof = true;
			break;
		}
		l->len += (size_t)r;
		if (memchr(l->buf + l->pos, '\n', l->len - l->pos))
			break;
	}
}

bool
as_lines_next(pm_as_lines *l, const char **line, size_t *len)
{
	if (l->fd < 0)
		return false;
	const char *nl = memchr(l->buf + l->pos, '\n', l->len - l->pos);
	if (!nl) {
		refill(l);
		nl = memchr(l->buf + l->pos, '\n', l->len - l->pos);
	}
	if (l->pos >= l->len)
		return false;
	size_t end = nl ? (size_t)(nl - l->buf) : l->len;
	*line = l->buf + l->pos;
	*len = end - l->pos;
	l->pos = nl ? end + 1 : end;
	return true;
}

void
as_lines_close(pm_as_lines *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}
