/*
 * cgroup_oom.c — how many processes the kernel's OOM killer has ended in
 * this process's memory cgroup: read when a run starts and again once it
 * ended without a word, so that a count that rose names the OOM killer as
 * the likely end (docs/store.md, "Sessions").  open and read only, into
 * small buffers: pm_install calls it at every start.  NOT AS-safe.
 */
#include "cgroup_oom.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Read a small file whole into buf (NUL-terminated); its length or -1. */
static long
read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	size_t len = 0;
	for (ssize_t n; len + 1 < cap && (n = read(fd, buf + len, cap - 1 - len)) > 0;)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	return (long)len;
}

static bool
join(char *out, size_t cap, const char *a, const char *b, size_t b_len, const char *c)
{
	size_t la = strlen(a), lc = strlen(c);
	if (la + b_len + lc >= cap)
		return false;
	memcpy(out, a, la);
	memcpy(out + la, b, b_len);
	memcpy(out + la + b_len, c, lc + 1);
	return true;
}

/* Whether a v1 line's controller list (comma-separated) names memory. */
static bool
names_memory(const char *list, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = i;
		while (k < n && list[k] != ',')
			k++;
		if (k - i == 6 && memcmp(list + i, "memory", 6) == 0)
			return true;
		i = k + 1;
	}
	return false;
}

bool
pmi_cgroup_oom_file_of(const char *proc_cgroup, char *out, size_t cap)
{
	const char *v2 = NULL;
	size_t v2_len = 0;
	for (const char *line = proc_cgroup; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		/* "<id>:<controllers>:<path>" */
		const char *c1 = memchr(line, ':', n);
		const char *c2 = c1 ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - line)) : NULL;
		if (c2 && c2[1] == '/') {
			const char *path = c2 + 1;
			size_t path_len = n - (size_t)(path - line);
			if (names_memory(c1 + 1, (size_t)(c2 - c1 - 1)))
				return join(out, cap, "/sys/fs/cgroup/memory", path, path_len, "/memory.oom_control");
			if (c2 == c1 + 1 && c1 - line == 1 && line[0] == '0') {
				v2 = path;
				v2_len = path_len;
			}
		}
		line = end ? end + 1 : NULL;
	}
	return v2 && join(out, cap, "/sys/fs/cgroup", v2, v2_len, "/memory.events");
}

int64_t
pmi_cgroup_oom_count(const char *text)
{
	/* v2's memory.events and v1's memory.oom_control both have a line "oom_kill <n>". */
	for (const char *p = text; p && *p;) {
		if (strncmp(p, "oom_kill ", 9) == 0) {
			int64_t v = 0;
			const char *d = p + 9;
			if (*d < '0' || *d > '9')
				return -1;
			for (; *d >= '0' && *d <= '9' && v < INT64_MAX / 10 - 9; d++)
				v = v * 10 + (*d - '0');
			return v;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return -1;
}

bool
pmi_cgroup_oom_file(char *out, size_t cap)
{
	char text[1024];
	return read_small("/proc/self/cgroup", text, sizeof text) > 0 && pmi_cgroup_oom_file_of(text, out, cap);
}

int64_t
pmi_cgroup_oom_kills(const char *file)
{
	char text[512];
	return read_small(file, text, sizeof text) > 0 ? pmi_cgroup_oom_count(text) : -1;
}
