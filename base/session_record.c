/*
 * session_record.c — writing the runs file (session_record.h): a record's
 * text and claiming a free record.  No stdio: pm_install runs this at every
 * start, and a process's first snprintf pages in libc's printf engine.
 * NOT AS-safe.
 */
#include "session_record.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* A record's text, appended by pieces. */
typedef struct rec {
	char *p;
	size_t len, cap;
} rec;

static void
put(rec *r, const char *s)
{
	for (; *s && r->len < r->cap; s++)
		r->p[r->len++] = *s;
}

/* A value: on one line whatever it holds. */
static void
put_value(rec *r, const char *s)
{
	for (; s && *s && r->len < r->cap; s++)
		r->p[r->len++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
}

static void
put_u64(rec *r, uint64_t v)
{
	char d[24], *p = d + sizeof d;
	*--p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put(r, p);
}

static void
put_line(rec *r, const char *key, const char *value)
{
	put(r, key);
	put(r, " ");
	put_value(r, value);
	put(r, "\n");
}

size_t
pmi_run_format(char *buf, size_t cap, const pmi_run_start *s)
{
	rec r = { .p = buf, .cap = cap };
	put(&r, PMI_SESSION_MAGIC);
	put(&r, "pid ");
	put_u64(&r, (uint64_t)s->pid);
	put(&r, "\nstarted ");
	put_u64(&r, s->started_us);
	put(&r, "\n");
	put_line(&r, "app_id", s->app_id);
	put_line(&r, "app_version", s->app_version);
	put_line(&r, "exe", s->exe);
	if (s->oom_kills >= 0) {
		put(&r, "oom_kill ");
		put_u64(&r, (uint64_t)s->oom_kills);
		put_line(&r, "", s->oom_file);
	}
	/* A value cut short must still end its line. */
	if (r.len == r.cap)
		r.p[r.len - 1] = '\n';
	return r.len;
}

unsigned
pmi_run_first_slot(int64_t pid, uint64_t started_us)
{
	/* Knuth's multiplicative hash of the two. */
	uint64_t h = ((uint64_t)pid * 0x9e3779b97f4a7c15ull) ^ (started_us * 0xc2b2ae3d27d4eb4full);
	return (unsigned)(h >> 40) % PMI_RUN_SLOTS;
}

int
pmi_run_lock(int fd, unsigned slot, short type)
{
	struct flock l = { .l_type = type, .l_whence = SEEK_SET, .l_start = (off_t)slot * PMI_RUN_BYTES,
	                   .l_len = PMI_RUN_BYTES };
	return fcntl(fd, F_OFD_SETLK, &l);
}

bool
pmi_run_held(int fd, unsigned slot)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = (off_t)slot * PMI_RUN_BYTES,
	                   .l_len = PMI_RUN_BYTES };
	return fcntl(fd, F_OFD_GETLK, &l) == 0 && l.l_type != F_UNLCK;
}

int
pmi_run_next(int fd, unsigned slot)
{
	if (slot >= PMI_RUN_SLOTS)
		return -1;
	off_t at = lseek(fd, (off_t)slot * PMI_RUN_BYTES, SEEK_DATA);
	/* ENXIO: no data from there on.  Any other failure tells nothing: the record is to be read. */
	if (at < 0)
		return errno == ENXIO ? -1 : (int)slot;
	return at < (off_t)PMI_RUN_SLOTS * PMI_RUN_BYTES ? (int)(at / PMI_RUN_BYTES) : -1;
}

int
pmi_run_claim(int fd, unsigned first)
{
	for (unsigned i = 0; i < PMI_RUN_PROBES; i++) {
		unsigned slot = (first + i) % PMI_RUN_SLOTS;
		char c = 0;
		if (pmi_run_lock(fd, slot, F_WRLCK) != 0)
			continue;
		/* A hole (never written, or collected) is free without a read. */
		if (pmi_run_next(fd, slot) != (int)slot)
			return (int)slot;
		/* Past the end of the file, or a record collected where no hole could be made: free. */
		ssize_t n = pread(fd, &c, 1, (off_t)slot * PMI_RUN_BYTES);
		if (n == 0 || (n == 1 && c == 0))
			return (int)slot;
		pmi_run_lock(fd, slot, F_UNLCK);
		if (n < 0)
			return -1;
	}
	return -1;
}
