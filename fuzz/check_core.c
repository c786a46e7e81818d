/*
 * check_core.c — the core reader (corefile/) on arbitrary bytes, both ways
 * in: as a file (pread over the bytes) and as a stream (the same bytes
 * read once from a descriptor).  Whatever the bytes, neither may crash,
 * hang or read out of bounds (the sanitizers watch); what reads must hold
 * together (threads, mappings in order, NUL-terminated paths), memory reads
 * at each thread's registers must stay inside the bytes given, the tee must
 * see every byte, and a stream that reads must agree with the file.  The
 * stream is also read as far as its notes (no byte past them, nothing
 * kept), then the rest: the same answer, and every byte teed once.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "corefile/core.h"
#include "corefile/core_internal.h"
#include "fuzz/checks.h"

long
fuzz_bytes_pread(void *ctx, void *buf, size_t n, uint64_t off)
{
	const fuzz_bytes *b = ctx;
	if (off >= b->n)
		return 0;
	size_t k = b->n - off < n ? (size_t)(b->n - off) : n;
	memcpy(buf, b->p + off, k);
	return (long)k;
}

static bool
count(void *ctx, const void *buf, size_t n)
{
	(void)buf;
	*(uint64_t *)ctx += n;
	return true;
}

static bool
holds_together(pm_core *c, char *why, size_t cap)
{
	if (c->nthreads == 0) {
		snprintf(why, cap, "a core that reads without threads");
		return false;
	}
	for (size_t i = 0; i < c->nmaps; i++)
		if (c->maps[i].start >= c->maps[i].end || (i && c->maps[i - 1].start > c->maps[i].start) ||
		    strlen(c->maps[i].path) > (1u << 26)) {
			snprintf(why, cap, "mapping %zu out of order or empty", i);
			return false;
		}
	for (size_t i = 0; i < c->nthreads; i++) {
		unsigned char buf[512];
		pmi_core_mem_read(c, c->threads[i].sp, buf, sizeof buf);
		pmi_core_mem_read(c, c->threads[i].pc, buf, 16);
	}
	for (size_t i = 0; i < c->nmaps && i < 64; i++) {
		unsigned char buf[64];
		pmi_core_mem_read(c, c->maps[i].start, buf, sizeof buf);
	}
	return true;
}

/* The bytes as a descriptor read front to back (a memfd: no pipe's size to wait on). */
static int
as_fd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("core", MFD_CLOEXEC);
	if (fd >= 0 && (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The two readings of a core that read agree (the first thread is the crashed one). */
static bool
same(const pm_core *a, const pm_core *b)
{
	return a->nthreads == b->nthreads && a->threads[0].tid == b->threads[0].tid && a->nmaps == b->nmaps;
}

bool
fuzz_check_core(const uint8_t *data, size_t size, char *why, size_t cap)
{
	/* No file of the host is opened for a mapping the bytes name. */
	pm_core_options opt = { .sysroot = "/nonexistent-fuzz-sysroot", .mem_fd = -1 };
	fuzz_bytes b = { data, size };
	pm_core *file = NULL, *stream = NULL, *notes = NULL;
	char w[256];
	pm_err fe = pmi_core_open_pread(fuzz_bytes_pread, &b, size, &opt, &file, w, sizeof w);
	bool ok = fe != PM_OK || holds_together(file, why, cap);
	int fd = ok ? as_fd(data, size) : -1, fd2 = ok ? as_fd(data, size) : -1;
	if (ok && (fd < 0 || fd2 < 0))
		ok = fuzz_say(why, cap, "cannot make the stream's descriptor");
	uint64_t teed = 0, read_bytes = 0, teed2 = 0, head_bytes = 0, rest_bytes = 0;
	pm_core_stream_limits lim = { .keep_bytes = 1 << 20, .stall_ms = 1000 };
	pm_err se = PM_E_IO, ne = PM_E_IO;
	if (ok) {
		se = pmi_core_read_stream(fd, &opt, &lim, count, &teed, &stream, &read_bytes, w, sizeof w);
		ne = pmi_core_read_stream_notes(fd2, &opt, &lim, count, &teed2, &notes, &head_bytes, w, sizeof w);
		if (teed != size || read_bytes != size)
			ok = fuzz_say(why, cap, "the stream read %llu bytes and teed %llu of %zu", (unsigned long long)read_bytes,
			              (unsigned long long)teed, size);
		else if (teed2 != head_bytes || lseek(fd2, 0, SEEK_CUR) != (off_t)head_bytes)
			ok = fuzz_say(why, cap, "the notes' reading read %llu bytes, teed %llu, left the descriptor at %lld",
			              (unsigned long long)head_bytes, (unsigned long long)teed2,
			              (long long)lseek(fd2, 0, SEEK_CUR));
		else if ((se == PM_OK) != (ne == PM_OK))
			ok = fuzz_say(why, cap, "the stream %s, its notes alone %s", se == PM_OK ? "read" : "did not",
			              ne == PM_OK ? "read" : "did not");
	}
	if (ok && ne == PM_OK) {
		pm_err re = pmi_core_stream_rest(fd2, head_bytes, &lim, count, &teed2, &rest_bytes, w, sizeof w);
		if (re != PM_OK || teed2 != size || head_bytes + rest_bytes != size)
			ok = fuzz_say(why, cap, "the rest read %llu bytes after %llu (%s), teed %llu of %zu",
			              (unsigned long long)rest_bytes, (unsigned long long)head_bytes, re == PM_OK ? "ok" : w,
			              (unsigned long long)teed2, size);
		else if (notes->src->nkept != 0)
			ok = fuzz_say(why, cap, "the notes' reading kept %zu ranges of memory", notes->src->nkept);
		else if (!holds_together(notes, why, cap))
			ok = false;
		else if (!same(stream, notes))
			ok = fuzz_say(why, cap, "the notes alone read %zu threads, the whole stream %zu", notes->nthreads,
			              stream->nthreads);
	}
	if (ok && se == PM_OK && !holds_together(stream, why, cap))
		ok = false;
	else if (ok && se == PM_OK && (fe != PM_OK || !same(file, stream)))
		ok = fuzz_say(why, cap, "the stream read %zu threads, the file %s", stream->nthreads,
		              fe == PM_OK ? "others" : "none");
	if (fd >= 0)
		close(fd);
	if (fd2 >= 0)
		close(fd2);
	pmi_core_close(file);
	pmi_core_close(stream);
	pmi_core_close(notes);
	return ok;
}
