/*
 * as_target.c — AS-SAFE: the live target, and what every target shares:
 * its ids, its mappings (a mapping function, else its maps file) and its
 * /proc files (see as_target.h).
 */
#include "as_target.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

as_target
as_target_self(void)
{
	return (as_target){ .mem = as_mem_self(), .proc = "/proc/self" };
}

pid_t
as_target_pid(const as_target *t)
{
	return t->pid ? t->pid : getpid();
}

pid_t
as_target_ppid(const as_target *t)
{
	return t->pid ? t->ppid : getppid();
}

/* Past the field at p and the spaces after it. */
static const char *
skip_field(const char *p, const char *end)
{
	while (p < end && *p != ' ')
		p++;
	while (p < end && *p == ' ')
		p++;
	return p;
}

static bool
parse_map_line(const char *s, size_t n, as_mapping *m)
{
	const char *p = s, *end = s + n;
	if (!as_parse_hex(&p, end, &m->start) || p >= end || *p++ != '-' ||
	    !as_parse_hex(&p, end, &m->end) || end - p < 6)
		return false;
	p++;
	m->prot = (uint8_t)((p[0] == 'r' ? PROT_READ : 0) | (p[1] == 'w' ? PROT_WRITE : 0) |
	                    (p[2] == 'x' ? PROT_EXEC : 0));
	p += 5;
	if (!as_parse_hex(&p, end, &m->offset) || p >= end || *p != ' ')
		return false;
	/* The device and the inode are not used: skipped, not parsed (a line
	 * per mapping, two per thread's stack). */
	p = skip_field(skip_field(p + 1, end), end);
	m->path = p;
	m->path_len = (size_t)(end - p);
	return true;
}

bool
as_target_path(const as_target *t, const char *file, char *buf, size_t cap)
{
	if (!t->proc)
		return false;
	as_strlcpy(buf, t->proc, cap);
	as_strlcat(buf, "/", cap);
	return as_strlcat(buf, file, cap) < cap - 1;
}

bool
as_maps_open(as_maps *m, const as_target *t, char *buf, size_t cap)
{
	char path[64];
	m->t = t;
	m->next = 0;
	m->lines.fd = -1;
	if (t->mapping)
		return true;
	return as_target_path(t, "maps", path, sizeof path) && as_lines_open(&m->lines, path, buf, cap);
}

bool
as_maps_next(as_maps *m, as_mapping *out)
{
	if (m->t->mapping)
		return m->t->mapping(m->t->mapping_ctx, m->next++, out);
	const char *line;
	size_t len;
	while (as_lines_next(&m->lines, &line, &len))
		if (parse_map_line(line, len, out))
			return true;
	return false;
}

void
as_maps_close(as_maps *m)
{
	as_lines_close(&m->lines);
}

long
as_target_read(const as_target *t, pid_t tid, const char *file, char *buf, size_t cap)
{
	char path[64];
	if (!t->proc)
		return -1;
	if (tid == 0)
		return as_target_path(t, file, path, sizeof path) ? as_read_small_file(path, buf, cap) : -1;
	as_strlcpy(path, t->proc, sizeof path);
	as_strlcat(path, "/task/", sizeof path);
	return as_read_proc(path, tid, file, buf, cap);
}
