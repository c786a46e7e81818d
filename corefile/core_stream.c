/*
 * core_stream.c — a core read once, front to back, from a pipe: the
 * kernel's core_pattern handler gets it on stdin.  Nothing is held whole
 * and nothing seeks.  The ELF header and program headers come first, then
 * the notes (the kernel writes them before any segment); once the notes
 * are in, core_keep.c chooses the ranges to keep from the segments still
 * to come.  Every byte goes to the tee as it is read, and the stream is
 * read to its end whatever it holds: a pipe left unread would hold the
 * crashing process (and the kernel) until the handler exits.  NOT AS-safe.
 */
#include "core_internal.h"

#include <elf.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

enum { CHUNK = 64 << 10 };

/* Bytes of the stream wanted at [off, off + len) into dst. */
typedef struct gather {
	uint64_t off;
	size_t len;
	unsigned char *dst;
} gather;

typedef struct stream {
	pm_core *c;
	pm_core_stream_limits lim;
	pm_err err;               /* the first error; the stream is drained all the same */
	char *why;
	size_t cap;
	enum { HEAD, PHDRS, NOTES, KEEP, DONE } phase;
	unsigned char head[PM_CORE_EHDR];
	unsigned char *ph;
	uint32_t phnum;
	uint64_t phoff;
	pm_core_span *notes;
	size_t nnotes, notes_len;
	uint64_t notes_end;       /* where the last PT_NOTE ends */
	size_t *order;            /* the kept ranges by core offset */
	size_t next;              /* the first of them not yet filled */
} stream;

static void
copy(const gather *g, uint64_t off, const unsigned char *buf, size_t n)
{
	uint64_t lo = off > g->off ? off : g->off, hi = off + n < g->off + g->len ? off + n : g->off + g->len;
	if (lo < hi)
		memcpy(g->dst + (lo - g->off), buf + (lo - off), (size_t)(hi - lo));
}

static void
fail(stream *s, pm_err e)
{
	s->err = e;
	s->phase = DONE;
}

static void
after_head(stream *s)
{
	pm_core_ehdr h;
	pm_err e = pmi_core_parse_ehdr(s->head, sizeof s->head, &h, s->why, s->cap);
	if (e == PM_OK && h.phnum == PN_XNUM)
		e = pmi_core_fail(s->why, s->cap, PM_E_LIMIT, "more than 65534 program headers: too many mappings to stream");
	if (e != PM_OK)
		{
			fail(s, e);
			return;
		}
	s->c->arch = h.arch;
	s->phoff = h.phoff;
	s->phnum = h.phnum;
	if (!(s->ph = malloc((size_t)h.phnum * PM_CORE_PHDR)))
		{
			fail(s, pmi_core_fail(s->why, s->cap, PM_E_NOMEM, "out of memory for the program headers"));
			return;
		}
	s->phase = PHDRS;
}

static void
after_phdrs(stream *s)
{
	pm_err e = pmi_core_parse_phdrs(s->c, s->ph, s->phnum, &s->notes, &s->nnotes, s->why, s->cap);
	if (e != PM_OK)
		{
			fail(s, e);
			return;
		}
	uint64_t total = 0, phend = s->phoff + (uint64_t)s->phnum * PM_CORE_PHDR;
	for (size_t i = 0; i < s->nnotes; i++) {
		if (s->notes[i].offset < phend)
			{
			fail(s, pmi_core_fail(s->why, s->cap, PM_E_UNSUPPORTED,
			                             "notes before the program headers' end: this core needs a file, not a pipe"));
			return;
		}
		total += (s->notes[i].size + 3) & ~(uint64_t)3;
		if (total > s->lim.notes_bytes)
			{
			fail(s, pmi_core_fail(s->why, s->cap, PM_E_LIMIT, "notes larger than the %zu-byte limit",
			                             s->lim.notes_bytes));
			return;
		}
		if (s->notes[i].offset + s->notes[i].size > s->notes_end)
			s->notes_end = s->notes[i].offset + s->notes[i].size;
	}
	if (!(s->c->src->notes = calloc(1, total ? (size_t)total : 1)))
		{
			fail(s, pmi_core_fail(s->why, s->cap, PM_E_NOMEM, "out of memory for the notes"));
			return;
		}
	s->notes_len = (size_t)total;
	s->phase = NOTES;
}

static int
by_offset(const void *a, const void *b, void *kept)
{
	const pm_core_kept *k = kept;
	uint64_t x = k[*(const size_t *)a].offset, y = k[*(const size_t *)b].offset;
	return x < y ? -1 : x > y;
}

static void
after_notes(stream *s, uint64_t at)
{
	pm_core *c = s->c;
	pm_err e = pmi_core_parse_notes(c, c->src->notes, s->notes_len, s->why, s->cap);
	if (e == PM_OK)
		e = pmi_core_pick(c, &s->lim, at, s->why, s->cap);
	if (e == PM_OK && !(s->order = malloc((c->src->nkept ? c->src->nkept : 1) * sizeof *s->order)))
		e = pmi_core_fail(s->why, s->cap, PM_E_NOMEM, "out of memory");
	if (e != PM_OK)
		{
			fail(s, e);
			return;
		}
	for (size_t i = 0; i < c->src->nkept; i++)
		s->order[i] = i;
	qsort_r(s->order, c->src->nkept, sizeof *s->order, by_offset, c->src->kept);
	s->phase = KEEP;
}

/* The chunk buf of n bytes at offset off. */
static void
take(stream *s, uint64_t off, const unsigned char *buf, size_t n)
{
	uint64_t end = off + n;
	if (s->phase == HEAD) {
		copy(&(gather){ 0, sizeof s->head, s->head }, off, buf, n);
		if (end >= sizeof s->head)
			after_head(s);
	}
	if (s->phase == PHDRS) {
		gather g = { s->phoff, (size_t)s->phnum * PM_CORE_PHDR, s->ph };
		copy(&g, off, buf, n);
		if (end >= g.off + g.len)
			after_phdrs(s);
	}
	if (s->phase == NOTES) {
		size_t at = 0;
		for (size_t i = 0; i < s->nnotes; i++) {
			copy(&(gather){ s->notes[i].offset, (size_t)s->notes[i].size, s->c->src->notes + at }, off, buf, n);
			at += ((size_t)s->notes[i].size + 3) & ~(size_t)3;
		}
		if (end >= s->notes_end)
			after_notes(s, end);
	}
	if (s->phase == KEEP) {
		pm_core_src *src = s->c->src;
		for (size_t i = s->next; i < src->nkept; i++) {
			pm_core_kept *k = &src->kept[s->order[i]];
			if (k->offset >= end)
				break;
			copy(&(gather){ k->offset, k->len, k->data }, off, buf, n);
			k->got = end >= k->offset + k->len ? k->len : (size_t)(end - k->offset);
			if (k->got == k->len)
				s->next = i + 1;
		}
	}
}

/* The next bytes of fd into buf: their count, 0 at the end, -1 when it stalled or failed. */
static ssize_t
next_bytes(int fd, unsigned char *buf, size_t n, int stall_ms)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, stall_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			errno = ETIMEDOUT;
		if (r <= 0)
			return -1;
		ssize_t k = read(fd, buf, n);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		return k;
	}
}

pm_err
pmi_core_read_stream(int fd, const pm_core_options *opt, const pm_core_stream_limits *lim, pm_core_tee_fn *tee,
                     void *tee_ctx, pm_core **out, uint64_t *read_bytes, char *why, size_t cap)
{
	*out = NULL;
	*read_bytes = 0;
	stream s = { .c = pmi_core_new(opt), .why = why, .cap = cap };
	s.lim.notes_bytes = lim && lim->notes_bytes ? lim->notes_bytes : PM_CORE_STREAM_NOTES;
	s.lim.stack_bytes = lim && lim->stack_bytes ? lim->stack_bytes : PM_CORE_STREAM_STACK;
	s.lim.keep_bytes = lim && lim->keep_bytes ? lim->keep_bytes : PM_CORE_STREAM_KEEP;
	s.lim.stall_ms = lim && lim->stall_ms ? lim->stall_ms : PM_CORE_STREAM_STALL_MS;
	unsigned char *buf = malloc(CHUNK);
	if (!s.c || !buf)
		fail(&s, pmi_core_fail(why, cap, PM_E_NOMEM, "out of memory"));
	unsigned char spare[512];
	uint64_t off = 0;
	for (;;) {
		ssize_t k = next_bytes(fd, buf ? buf : spare, buf ? CHUNK : sizeof spare, s.lim.stall_ms);
		if (k < 0) {
			s.err = pmi_core_fail(why, cap, PM_E_IO, "the core stopped coming after %llu bytes: %s",
			                      (unsigned long long)off, strerror(errno));
			break;
		}
		if (k == 0)
			break;
		if (tee && !tee(tee_ctx, buf ? buf : spare, (size_t)k))
			tee = NULL;
		if (s.phase != DONE)
			take(&s, off, buf, (size_t)k);
		off += (uint64_t)k;
	}
	*read_bytes = off;
	if (s.err == PM_OK && s.phase != KEEP)
		s.err = pmi_core_fail(why, cap, PM_E_FORMAT, "the core ended after %llu bytes, before its notes",
		                      (unsigned long long)off);
	free(buf);
	free(s.ph);
	free(s.notes);
	free(s.order);
	if (s.err != PM_OK) {
		pmi_core_close(s.c);
		return s.err;
	}
	s.c->size = off;
	*out = s.c;
	return PM_OK;
}
