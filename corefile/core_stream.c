/*
 * core_stream.c — a core read once, front to back, from a pipe: the
 * kernel's core_pattern handler gets it on stdin.  Nothing is held whole
 * and nothing seeks.  The ELF header and program headers come first, then
 * the notes (the kernel writes them before any segment), read as they go
 * by (core_notes.c); once the notes are in, core_keep.c chooses the ranges
 * to keep from the segments still to come.  Every byte goes to the tee as
 * it is read.  Three ways to read: to the end (a pipe left unread would
 * hold the crashing process, and the kernel, until the handler exits), to
 * the notes' end and no further (the rest later, or never), and the rest
 * of a stream read that far.  Each stops at a cap of bytes and of wall
 * time, so a core that streams zeros for hours cannot hold the reader.
 * NOT AS-safe.
 */
#include "core_internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum { CHUNK = 256 << 10, PIPE_BYTES = 1 << 20 };

/* Bytes of the stream wanted at [off, off + len) into dst. */
typedef struct gather {
	uint64_t off;
	size_t len;
	unsigned char *dst;
} gather;

typedef struct stream {
	pm_core *c;               /* NULL: the rest of a stream, only teed */
	pm_core_stream_limits lim;
	bool notes_only;          /* stop where the notes end */
	pm_err err;               /* the first error; the stream is drained all the same (unless notes_only) */
	char *why;
	size_t cap;
	enum { HEAD, PHDRS, NOTES, KEEP, DONE } phase;
	unsigned char head[PM_CORE_EHDR];
	unsigned char *ph;
	uint32_t phnum;
	uint64_t phoff;
	pm_core_span *notes;      /* in stream order, none overlapping */
	size_t nnotes, ni;        /* the PT_NOTE being read */
	uint64_t ni_fed;          /* its bytes fed to the notes' reader */
	uint64_t notes_end;       /* where the last PT_NOTE ends */
	pm_core_notes nr;
	bool nr_open;
	size_t *order;            /* the kept ranges by core offset */
	size_t next;              /* the first of them not yet filled */
	int stall_errno;          /* why a read failed */
} stream;

/* How a read of the stream ended. */
typedef enum { ENDED, WANTS_NO_MORE, MAX_BYTES, MAX_TIME, STALLED } ending;

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
	if (e != PM_OK) {
		fail(s, e);
		return;
	}
	s->c->arch = h.arch;
	s->phoff = h.phoff;
	s->phnum = h.phnum;
	if (!(s->ph = malloc((size_t)h.phnum * PM_CORE_PHDR))) {
		fail(s, pmi_core_fail(s->why, s->cap, PM_E_NOMEM, "out of memory for the program headers"));
		return;
	}
	s->phase = PHDRS;
}

/* The notes must come after the program headers, in order: a stream cannot go back. */
static void
after_phdrs(stream *s)
{
	pm_err e = pmi_core_parse_phdrs(s->c, s->ph, s->phnum, &s->notes, &s->nnotes, s->why, s->cap);
	if (e != PM_OK) {
		fail(s, e);
		return;
	}
	uint64_t at = s->phoff + (uint64_t)s->phnum * PM_CORE_PHDR;
	for (size_t i = 0; i < s->nnotes; i++) {
		if (s->notes[i].offset < at) {
			fail(s, pmi_core_fail(s->why, s->cap, PM_E_UNSUPPORTED,
			                      "notes before the program headers' or the previous notes' end: this core "
			                      "needs a file, not a pipe"));
			return;
		}
		at = s->notes[i].offset + s->notes[i].size;
	}
	s->notes_end = at;
	pmi_core_notes_begin(&s->nr, s->c);
	s->nr_open = true;
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
after_notes(stream *s)
{
	pm_core *c = s->c;
	s->nr_open = false;
	pm_err e = pmi_core_notes_end(&s->nr, s->why, s->cap);
	if (e == PM_OK && s->notes_only) {
		s->phase = DONE;
		return;
	}
	if (e == PM_OK)
		e = pmi_core_pick(c, &s->lim, s->notes_end, s->why, s->cap);
	if (e == PM_OK && !(s->order = malloc((c->src->nkept ? c->src->nkept : 1) * sizeof *s->order)))
		e = pmi_core_fail(s->why, s->cap, PM_E_NOMEM, "out of memory");
	if (e != PM_OK) {
		fail(s, e);
		return;
	}
	for (size_t i = 0; i < c->src->nkept; i++)
		s->order[i] = i;
	qsort_r(s->order, c->src->nkept, sizeof *s->order, by_offset, c->src->kept);
	s->phase = KEEP;
}

/* What of the chunk [off, off + n) lies in the notes, to their reader, in order. */
static void
feed_notes(stream *s, uint64_t off, const unsigned char *buf, size_t n)
{
	static const unsigned char zeros[3];
	uint64_t end = off + n;
	while (s->ni < s->nnotes) {
		const pm_core_span *sp = &s->notes[s->ni];
		uint64_t lo = sp->offset + s->ni_fed, hi = end < sp->offset + sp->size ? end : sp->offset + sp->size;
		if (lo < hi) {
			s->nr.err = pmi_core_notes_feed(&s->nr, buf + (lo - off), hi - lo, s->why, s->cap);
			s->ni_fed += hi - lo;
		}
		/* Whole once the stream has come to its end, as a file's reader wants it inside the file
		 * (an empty note past the stream's end too). */
		if (s->nr.err == PM_OK && end >= sp->offset + sp->size) {
			pmi_core_notes_feed(&s->nr, zeros, ((sp->size + 3) & ~(uint64_t)3) - sp->size, s->why, s->cap);
			s->ni++;
			s->ni_fed = 0;
			continue;
		}
		if (s->nr.err != PM_OK) {
			s->nr_open = false;
			fail(s, pmi_core_notes_end(&s->nr, s->why, s->cap));
		}
		return;
	}
	after_notes(s);
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
	if (s->phase == NOTES)
		feed_notes(s, off, buf, n);
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

static int64_t
now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The next bytes of fd into buf: their count, 0 at the end, -1 when it
 * failed or stalled (errno ETIMEDOUT), -2 at the deadline. */
static ssize_t
next_bytes(int fd, unsigned char *buf, size_t n, int stall_ms, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0)
			return -2;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, left < stall_ms ? (int)left : stall_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 && left < stall_ms)
			return -2;
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

/* How many bytes the next read may take: a stream read to its notes' end
 * reads no byte past it (nor past the headers before it is known). */
static uint64_t
may_read(const stream *s, uint64_t off)
{
	if (!s->notes_only)
		return CHUNK;
	uint64_t stop = s->phase == HEAD    ? sizeof s->head
	                : s->phase == PHDRS ? s->phoff + (uint64_t)s->phnum * PM_CORE_PHDR
	                : s->phase == NOTES ? s->notes_end
	                                    : off;
	return stop - off < CHUNK ? stop - off : CHUNK;
}

/* Read fd from offset *off on, every byte to tee and to the core's reader,
 * until it ends, a cap, or (notes_only) the reader is done; how it ended. */
static ending
pump(stream *s, int fd, uint64_t *off, pm_core_tee_fn *tee, void *tee_ctx)
{
	unsigned char spare[512];
	unsigned char *buf = malloc(CHUNK);
	if (!buf && s->c)
		fail(s, pmi_core_fail(s->why, s->cap, PM_E_NOMEM, "out of memory"));
	/* A larger pipe (root may ask for it; anyone else gets what the system
	 * allows) wakes this reader and the kernel's dump a quarter as often:
	 * 1 GB read in two thirds of the time (docs/benchmarks.md). */
	fcntl(fd, F_SETPIPE_SZ, PIPE_BYTES);
	int64_t deadline = now_ms() + s->lim.max_ms;
	ending how = ENDED;
	for (;;) {
		uint64_t want = may_read(s, *off);
		if (s->notes_only && (s->phase == DONE || want == 0))
			break;
		if (*off >= s->lim.max_bytes) {
			how = MAX_BYTES;
			break;
		}
		if (want > s->lim.max_bytes - *off)
			want = s->lim.max_bytes - *off;
		ssize_t k = next_bytes(fd, buf ? buf : spare, buf ? (size_t)want : (want < sizeof spare ? (size_t)want : sizeof spare),
		                       s->lim.stall_ms, deadline);
		if (k == -2) {
			how = MAX_TIME;
			break;
		}
		if (k < 0) {
			s->stall_errno = errno;
			how = STALLED;
			break;
		}
		if (k == 0)
			break;
		if (tee && !tee(tee_ctx, buf ? buf : spare, (size_t)k)) {
			tee = NULL;
			if (!s->c) {
				*off += (uint64_t)k;
				how = WANTS_NO_MORE;
				break;
			}
		}
		if (s->phase != DONE && buf)
			take(s, *off, buf, (size_t)k);
		*off += (uint64_t)k;
	}
	free(buf);
	return how;
}

static const char *
said(ending how)
{
	return how == MAX_BYTES ? "its byte limit" : how == MAX_TIME ? "its time limit" : "";
}

static void
set_limits(stream *s, const pm_core_stream_limits *lim)
{
	s->lim.stack_bytes = lim && lim->stack_bytes ? lim->stack_bytes : PM_CORE_STREAM_STACK;
	s->lim.keep_bytes = lim && lim->keep_bytes ? lim->keep_bytes : PM_CORE_STREAM_KEEP;
	s->lim.stall_ms = lim && lim->stall_ms > 0 ? lim->stall_ms : PM_CORE_STREAM_STALL_MS;
	s->lim.max_bytes = lim && lim->max_bytes ? lim->max_bytes : PM_CORE_STREAM_MAX_BYTES;
	s->lim.max_ms = lim && lim->max_ms > 0 ? lim->max_ms : PM_CORE_STREAM_MAX_MS;
}

static pm_err
read_stream(int fd, bool notes_only, const pm_core_options *opt, const pm_core_stream_limits *lim,
            pm_core_tee_fn *tee, void *tee_ctx, pm_core **out, uint64_t *read_bytes, char *why, size_t cap)
{
	*out = NULL;
	stream s = { .c = pmi_core_new(opt), .notes_only = notes_only, .why = why, .cap = cap };
	set_limits(&s, lim);
	if (!s.c)
		fail(&s, pmi_core_fail(why, cap, PM_E_NOMEM, "out of memory"));
	uint64_t off = 0;
	ending how = pump(&s, fd, &off, tee, tee_ctx);
	*read_bytes = off;
	bool notes_in = s.phase == KEEP || (notes_only && s.phase == DONE && s.err == PM_OK);
	if (s.err == PM_OK && how == STALLED)
		s.err = pmi_core_fail(why, cap, PM_E_IO, "the core stopped coming after %llu bytes: %s",
		                      (unsigned long long)off, strerror(s.stall_errno));
	else if (s.err == PM_OK && !notes_in && (how == MAX_BYTES || how == MAX_TIME))
		s.err = pmi_core_fail(why, cap, PM_E_LIMIT, "the core reached %s after %llu bytes, before its notes' end",
		                      said(how), (unsigned long long)off);
	else if (s.err == PM_OK && !notes_in)
		s.err = pmi_core_fail(why, cap, PM_E_FORMAT, "the core ended after %llu bytes, before its notes' end",
		                      (unsigned long long)off);
	if (s.nr_open) {
		s.nr.err = s.err != PM_OK ? s.err : PM_E_FORMAT; /* only frees */
		pmi_core_notes_end(&s.nr, NULL, 0);
	}
	free(s.ph);
	free(s.notes);
	free(s.order);
	if (s.err != PM_OK) {
		pmi_core_close(s.c);
		return s.err;
	}
	s.c->size = off;
	s.c->stopped = how == MAX_BYTES || how == MAX_TIME;
	*out = s.c;
	return PM_OK;
}

pm_err
pmi_core_read_stream(int fd, const pm_core_options *opt, const pm_core_stream_limits *lim, pm_core_tee_fn *tee,
                     void *tee_ctx, pm_core **out, uint64_t *read_bytes, char *why, size_t cap)
{
	return read_stream(fd, false, opt, lim, tee, tee_ctx, out, read_bytes, why, cap);
}

pm_err
pmi_core_read_stream_notes(int fd, const pm_core_options *opt, const pm_core_stream_limits *lim,
                           pm_core_tee_fn *tee, void *tee_ctx, pm_core **out, uint64_t *read_bytes, char *why,
                           size_t cap)
{
	return read_stream(fd, true, opt, lim, tee, tee_ctx, out, read_bytes, why, cap);
}

pm_err
pmi_core_stream_rest(int fd, uint64_t at, const pm_core_stream_limits *lim, pm_core_tee_fn *tee, void *tee_ctx,
                     uint64_t *read_bytes, char *why, size_t cap)
{
	stream s = { .phase = DONE, .why = why, .cap = cap };
	set_limits(&s, lim);
	uint64_t off = at;
	ending how = pump(&s, fd, &off, tee, tee_ctx);
	*read_bytes = off - at;
	if (how == STALLED)
		return pmi_core_fail(why, cap, PM_E_IO, "the core stopped coming after %llu bytes: %s",
		                     (unsigned long long)off, strerror(s.stall_errno));
	if (how == MAX_BYTES || how == MAX_TIME)
		return pmi_core_fail(why, cap, PM_E_LIMIT, "the core reached %s after %llu bytes", said(how),
		                     (unsigned long long)off);
	return PM_OK;
}
