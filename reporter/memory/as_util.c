/*
 * as_util.c — AS-SAFE helpers (see as_util.h).  Only open/read/close and
 * memcpy/memmove/strlen are called.
 */
#include "as_util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

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

int
as_open_ro(const char *path)
{
	int fd;
	do
		fd = open(path, O_RDONLY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	return fd;
}

long
as_read_small_file(const char *path, char *buf, size_t cap)
{
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
