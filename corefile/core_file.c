/*
 * core_file.c — a core FILE, read with pread where it is needed: the
 * headers and the notes now, the segments when memory is read.  Nothing
 * bounds the file's size (a gcore of a large process is gigabytes); what
 * is held is bounded: the program headers and the notes a report needs
 * (core_notes.c).  NOT AS-safe.
 */
#include "core_internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

enum { NOTES_PIECE = 64 << 10 };

static long
fd_pread(void *ctx, void *buf, size_t n, uint64_t off)
{
	int fd = *(int *)ctx;
	size_t got = 0;
	while (got < n) {
		if (off + got > (uint64_t)INT64_MAX)
			break;
		ssize_t k = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return got ? (long)got : -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (long)got;
}

/* Exactly n bytes at off, or an error naming what. */
static pm_err
read_exact(pm_core_pread_fn *pr, void *ctx, uint64_t size, void *buf, size_t n, uint64_t off, const char *what,
           char *why, size_t cap)
{
	if (off > size || n > size - off)
		return pmi_core_fail(why, cap, PM_E_FORMAT, "%s (%zu bytes at %llu) lies past the end of the core (%llu bytes)",
		                     what, n, (unsigned long long)off, (unsigned long long)size);
	long k = pr(ctx, buf, n, off);
	if (k < 0)
		return pmi_core_fail(why, cap, PM_E_IO, "cannot read %s: %s", what, strerror(errno));
	if ((size_t)k != n)
		return pmi_core_fail(why, cap, PM_E_FORMAT, "%s cut short", what);
	return PM_OK;
}

/* The program header count of a core with PN_XNUM: section 0's sh_info. */
static pm_err
extended_phnum(pm_core_pread_fn *pr, void *ctx, uint64_t size, const pm_core_ehdr *h, uint32_t *n, char *why,
               size_t cap)
{
	unsigned char sh[PM_CORE_SHDR];
	pm_err e = read_exact(pr, ctx, size, sh, sizeof sh, h->shoff, "section header 0", why, cap);
	if (e == PM_OK)
		*n = pmi_core_u32(sh + 44);
	return e;
}

/* Every PT_NOTE, one after the other, each padded to 4 bytes, through the
 * notes' reader: read in pieces, what it will not look at sought over. */
static pm_err
read_notes(pm_core *c, pm_core_pread_fn *pr, void *ctx, uint64_t size, const pm_core_span *notes, size_t nn,
           char *why, size_t cap)
{
	for (size_t i = 0; i < nn; i++)
		if (notes[i].offset > size || notes[i].size > size - notes[i].offset)
			return pmi_core_fail(why, cap, PM_E_FORMAT,
			                     "the notes (%llu bytes at %llu) lie past the end of the core (%llu bytes)",
			                     (unsigned long long)notes[i].size, (unsigned long long)notes[i].offset,
			                     (unsigned long long)size);
	unsigned char *buf = malloc(NOTES_PIECE);
	if (!buf)
		return pmi_core_fail(why, cap, PM_E_NOMEM, "out of memory for the notes");
	static const unsigned char zeros[3];
	pm_core_notes r;
	pmi_core_notes_begin(&r, c);
	pm_err e = PM_OK;
	for (size_t i = 0; i < nn && e == PM_OK; i++) {
		uint64_t at = notes[i].offset, end = at + notes[i].size;
		while (at < end && e == PM_OK) {
			uint64_t skip = pmi_core_notes_skippable(&r);
			if (skip) {
				skip = skip < end - at ? skip : end - at;
				e = pmi_core_notes_feed(&r, NULL, skip, why, cap);
				at += skip;
				continue;
			}
			size_t n = end - at < NOTES_PIECE ? (size_t)(end - at) : NOTES_PIECE;
			if ((e = read_exact(pr, ctx, size, buf, n, at, "the notes", why, cap)) == PM_OK)
				e = pmi_core_notes_feed(&r, buf, n, why, cap);
			at += n;
		}
		if (e == PM_OK)
			e = pmi_core_notes_feed(&r, zeros, ((notes[i].size + 3) & ~(uint64_t)3) - notes[i].size, why, cap);
	}
	free(buf);
	if (e != PM_OK)
		r.err = e; /* end then only frees */
	return pmi_core_notes_end(&r, why, cap);
}

static pm_err
parse(pm_core *c, pm_core_pread_fn *pr, void *ctx, uint64_t size, char *why, size_t cap)
{
	unsigned char eh[PM_CORE_EHDR];
	long k = pr(ctx, eh, sizeof eh, 0);
	if (k < 0)
		return pmi_core_fail(why, cap, PM_E_IO, "cannot read the ELF header: %s", strerror(errno));
	pm_core_ehdr h;
	pm_err e = pmi_core_parse_ehdr(eh, (size_t)k, &h, why, cap);
	if (e != PM_OK)
		return e;
	c->arch = h.arch;
	uint32_t phnum = h.phnum;
	if (phnum == PN_XNUM && (e = extended_phnum(pr, ctx, size, &h, &phnum, why, cap)) != PM_OK)
		return e;
	if (phnum == 0 || phnum > PM_CORE_PHNUM_MAX)
		return pmi_core_fail(why, cap, PM_E_LIMIT, "%u program headers (at most %d are read)", phnum,
		                     PM_CORE_PHNUM_MAX);
	unsigned char *ph = malloc((size_t)phnum * PM_CORE_PHDR);
	if (!ph)
		return pmi_core_fail(why, cap, PM_E_NOMEM, "out of memory for %u program headers", phnum);
	pm_core_span *notes = NULL;
	size_t nn = 0;
	e = read_exact(pr, ctx, size, ph, (size_t)phnum * PM_CORE_PHDR, h.phoff, "the program headers", why, cap);
	if (e == PM_OK)
		e = pmi_core_parse_phdrs(c, ph, phnum, &notes, &nn, why, cap);
	free(ph);
	if (e == PM_OK)
		e = read_notes(c, pr, ctx, size, notes, nn, why, cap);
	free(notes);
	c->size = size;
	return e;
}

pm_err
pmi_core_open_pread(pm_core_pread_fn *pr, void *ctx, uint64_t size, const pm_core_options *opt, pm_core **out,
                    char *why, size_t cap)
{
	*out = NULL;
	pm_core *c = pmi_core_new(opt);
	if (!c)
		return pmi_core_fail(why, cap, PM_E_NOMEM, "out of memory");
	c->src->pread = pr;
	c->src->pread_ctx = ctx;
	pm_err e = parse(c, pr, ctx, size, why, cap);
	if (e != PM_OK) {
		pmi_core_close(c);
		return e;
	}
	*out = c;
	return PM_OK;
}

pm_err
pmi_core_open(const char *path, const pm_core_options *opt, pm_core **out, char *why, size_t cap)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return pmi_core_fail(why, cap, errno == ENOENT ? PM_E_NOTFOUND : PM_E_IO, "%s", strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return pmi_core_fail(why, cap, PM_E_IO, "not a regular file");
	}
	pm_core *c = pmi_core_new(opt);
	if (!c) {
		close(fd);
		return pmi_core_fail(why, cap, PM_E_NOMEM, "out of memory");
	}
	c->src->fd = fd;
	c->src->pread = fd_pread;
	c->src->pread_ctx = &c->src->fd;
	pm_err e = parse(c, fd_pread, &c->src->fd, (uint64_t)st.st_size, why, cap);
	if (e != PM_OK) {
		pmi_core_close(c);
		return e;
	}
	*out = c;
	return PM_OK;
}
