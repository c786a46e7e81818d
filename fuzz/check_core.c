/*
 * check_core.c — the core reader (corefile/) on arbitrary bytes, both ways
 * in: as a file (pread over the bytes) and as a stream (the same bytes
 * read once from a descriptor).  Whatever the bytes, neither may crash,
 * hang or read out of bounds (the sanitizers watch); what reads must hold
 * together (threads, mappings in order, NUL-terminated paths), memory reads
 * at each thread's registers must stay inside the bytes given, the tee must
 * see every byte, and a stream that reads must agree with the file.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "corefile/core.h"
#include "fuzz/checks.h"

typedef struct bytes {
	const uint8_t *p;
	size_t n;
} bytes;

static long
mem_pread(void *ctx, void *buf, size_t n, uint64_t off)
{
	const bytes *b = ctx;
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

bool
fuzz_check_core(const uint8_t *data, size_t size, char *why, size_t cap)
{
	/* No file of the host is opened for a mapping the bytes name. */
	pm_core_options opt = { .sysroot = "/nonexistent-fuzz-sysroot", .mem_fd = -1 };
	bytes b = { data, size };
	pm_core *file = NULL, *stream = NULL;
	char w[256];
	pm_err fe = pmi_core_open_pread(mem_pread, &b, size, &opt, &file, w, sizeof w);
	if (fe == PM_OK && !holds_together(file, why, cap)) {
		pmi_core_close(file);
		return false;
	}
	int fd = memfd_create("core", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0) {
		snprintf(why, cap, "cannot make the stream's descriptor");
		if (fd >= 0)
			close(fd);
		pmi_core_close(file);
		return false;
	}
	bool ok = true;
	uint64_t teed = 0, read_bytes = 0;
	pm_core_stream_limits lim = { .notes_bytes = 1 << 20, .keep_bytes = 1 << 20, .stall_ms = 1000 };
	pm_err se = pmi_core_read_stream(fd, &opt, &lim, count, &teed, &stream, &read_bytes, w, sizeof w);
	close(fd);
	if (teed != size || read_bytes != size) {
		snprintf(why, cap, "the stream read %llu bytes and teed %llu of %zu", (unsigned long long)read_bytes,
		         (unsigned long long)teed, size);
		ok = false;
	} else if (se == PM_OK && !holds_together(stream, why, cap))
		ok = false;
	else if (se == PM_OK && (fe != PM_OK || file->nthreads != stream->nthreads ||
	                         file->threads[0].tid != stream->threads[0].tid)) {
		snprintf(why, cap, "the stream read %zu threads, the file %s", stream->nthreads,
		         fe == PM_OK ? "others" : "none");
		ok = false;
	}
	pmi_core_close(file);
	pmi_core_close(stream);
	return ok;
}
