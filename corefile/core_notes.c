/*
 * core_notes.c — a core's notes: each thread's NT_PRSTATUS (and the
 * NT_FPREGSET and NT_SIGINFO after it), NT_PRPSINFO, NT_AUXV, NT_FILE.
 * Every size and count is checked against the note that holds it; a note
 * of another kind or owner is passed over.
 *
 * The notes are read as they come, in pieces of any size — a stream's
 * chunks as they go by, a file's reads — by the one reader both ways in
 * share: a note the report needs is held whole (one at a time, at most
 * PM_CORE_NOTE_MAX bytes), what it keeps of it taken at once; every other
 * note (NT_X86_XSTATE, SVE and the rest: most of the notes' bytes) goes by
 * unheld, and a file's reader seeks over it.  So what the notes cost grows
 * with the threads' registers, never with the notes' bytes.  NOT AS-safe.
 */
#include "core_internal.h"

#include <elf.h>
#include <stdlib.h>

#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif
#ifndef NT_SIGINFO
#define NT_SIGINFO 0x53494749
#endif

enum { SIGINFO_SIZE = 128, PSINFO_SIZE = 136 };

static void
take_siginfo(const unsigned char *d, pm_core_siginfo *si)
{
	si->signo = (int32_t)pmi_core_u32(d);
	si->err = (int32_t)pmi_core_u32(d + 4);
	si->code = (int32_t)pmi_core_u32(d + 8);
	si->addr = pmi_core_u64(d + 16);
	si->sender_pid = (int32_t)pmi_core_u32(d + 16);
	si->sender_uid = pmi_core_u32(d + 20);
}

static pm_err
take_prstatus(pm_core *c, const unsigned char *d, size_t n, char *why, size_t cap)
{
	size_t size, reg_off, reg_len;
	pmi_core_prstatus_layout(c->arch, &size, &reg_off, &reg_len);
	if (n < reg_off + reg_len)
		return pmi_core_fail(why, cap, PM_E_FORMAT, "NT_PRSTATUS of %zu bytes, not %zu", n, size);
	if (c->nthreads == PM_CORE_THREADS_MAX) {
		c->threads_dropped++;
		return PM_OK;
	}
	if ((c->nthreads & (c->nthreads - 1)) == 0) { /* 0, 1, 2, 4, ...: double */
		size_t room = c->nthreads ? c->nthreads * 2 : 1;
		pm_core_thread *t = realloc(c->threads, room * sizeof *t);
		if (!t)
			return pmi_core_fail(why, cap, PM_E_NOMEM, "out of memory for %zu threads", room);
		c->threads = t;
	}
	pm_core_thread *t = &c->threads[c->nthreads];
	memset(t, 0, sizeof *t);
	t->signal = (int16_t)pmi_core_u16(d + 12);
	t->sigpend = pmi_core_u64(d + 16);
	t->sighold = pmi_core_u64(d + 24);
	t->tid = (int32_t)pmi_core_u32(d + 32);
	if (!pmi_core_take_regs(c->arch, d + reg_off, reg_len, t))
		return pmi_core_fail(why, cap, PM_E_FORMAT, "NT_PRSTATUS registers of %zu bytes", reg_len);
	c->nthreads++;
	return PM_OK;
}

static void
take_psinfo(pm_core *c, const unsigned char *d, size_t n)
{
	if (n < PSINFO_SIZE)
		return;
	pm_core_psinfo *ps = &c->psinfo;
	ps->state = (char)d[1];
	ps->uid = pmi_core_u32(d + 16);
	ps->gid = pmi_core_u32(d + 20);
	ps->pid = (int32_t)pmi_core_u32(d + 24);
	ps->ppid = (int32_t)pmi_core_u32(d + 28);
	ps->pgrp = (int32_t)pmi_core_u32(d + 32);
	ps->sid = (int32_t)pmi_core_u32(d + 36);
	memcpy(ps->fname, d + 40, 16);
	ps->fname[16] = '\0';
	memcpy(ps->args, d + 56, 80);
	ps->args[80] = '\0';
	c->has_psinfo = true;
}

static pm_err
take_auxv(pm_core *c, const unsigned char *d, size_t n, char *why, size_t cap)
{
	size_t pairs = n / 16;
	if (c->auxv || pairs == 0)
		return PM_OK;
	c->auxv = malloc(pairs * 16);
	if (!c->auxv)
		return pmi_core_fail(why, cap, PM_E_NOMEM, "out of memory for the auxiliary vector");
	for (size_t i = 0; i < pairs; i++) {
		c->auxv[2 * i] = pmi_core_u64(d + 16 * i);
		c->auxv[2 * i + 1] = pmi_core_u64(d + 16 * i + 8);
		c->auxv_pairs = i + 1;
		if (c->auxv[2 * i] == AT_NULL)
			break;
	}
	return PM_OK;
}

/* NT_FILE: count, page size, count (start, end, page offset) triples, then count paths. */
static pm_err
take_files(pm_core *c, const unsigned char *d, size_t n, char *why, size_t cap)
{
	if (c->maps)
		return PM_OK;
	if (n < 16)
		return pmi_core_fail(why, cap, PM_E_FORMAT, "NT_FILE of %zu bytes", n);
	uint64_t count = pmi_core_u64(d), page = pmi_core_u64(d + 8);
	if (count > (n - 16) / 24)
		return pmi_core_fail(why, cap, PM_E_FORMAT, "NT_FILE says %llu files in %zu bytes",
		                     (unsigned long long)count, n);
	if (page == 0 || (page & (page - 1)) || page > (1u << 30))
		return pmi_core_fail(why, cap, PM_E_FORMAT, "NT_FILE's page size %llu", (unsigned long long)page);
	c->maps = calloc(count ? count : 1, sizeof *c->maps);
	if (!c->maps)
		return pmi_core_fail(why, cap, PM_E_NOMEM, "out of memory for %llu mapped files", (unsigned long long)count);
	const unsigned char *name = d + 16 + count * 24, *end = d + n;
	for (uint64_t i = 0; i < count; i++) {
		const unsigned char *e = d + 16 + i * 24;
		uint64_t start = pmi_core_u64(e), stop = pmi_core_u64(e + 8), pgoff = pmi_core_u64(e + 16);
		const unsigned char *nul = name < end ? memchr(name, '\0', (size_t)(end - name)) : NULL;
		if (!nul)
			return pmi_core_fail(why, cap, PM_E_FORMAT, "NT_FILE's path %llu runs past the note",
			                     (unsigned long long)i);
		if (start >= stop || pgoff > UINT64_MAX / page)
			return pmi_core_fail(why, cap, PM_E_FORMAT, "NT_FILE's mapping %llu: [%#llx, %#llx) offset %llu pages",
			                     (unsigned long long)i, (unsigned long long)start, (unsigned long long)stop,
			                     (unsigned long long)pgoff);
		c->maps[c->nmaps++] = (pm_core_mapping){ start, stop, pgoff * page, (const char *)name };
		name = nul + 1;
	}
	c->page_size = page;
	return PM_OK;
}

static pm_err
take_note(pm_core *c, uint32_t type, const unsigned char *d, size_t n, char *why, size_t cap)
{
	pm_core_thread *last = c->nthreads ? &c->threads[c->nthreads - 1] : NULL;
	switch (type) {
	case NT_PRSTATUS:
		return take_prstatus(c, d, n, why, cap);
	case NT_PRPSINFO:
		take_psinfo(c, d, n);
		return PM_OK;
	case NT_AUXV:
		return take_auxv(c, d, n, why, cap);
	case NT_FILE:
		return take_files(c, d, n, why, cap);
	case NT_SIGINFO:
		if (n < SIGINFO_SIZE)
			return PM_OK;
		if (!c->has_siginfo) {
			take_siginfo(d, &c->siginfo);
			c->has_siginfo = true;
		}
		if (last && !last->has_siginfo && !c->threads_dropped) {
			take_siginfo(d, &last->siginfo);
			last->has_siginfo = true;
		}
		return PM_OK;
	case NT_FPREGSET:
		if (last && !c->threads_dropped && n <= PM_CORE_FPREGS_MAX && !last->fpregs_len) {
			memcpy(last->fpregs, d, n);
			last->fpregs_len = (uint16_t)n;
		}
		return PM_OK;
	default:
		return PM_OK;
	}
}

static uint64_t
align4(uint64_t n)
{
	return (n + 3) & ~(uint64_t)3;
}

/* The notes a report needs (take_note's); every other note goes by unheld. */
static bool
wanted(uint32_t type)
{
	return type == NT_PRSTATUS || type == NT_PRPSINFO || type == NT_AUXV || type == NT_FILE ||
	       type == NT_SIGINFO || type == NT_FPREGSET;
}

void
pmi_core_notes_begin(pm_core_notes *r, pm_core *c)
{
	memset(r, 0, sizeof *r);
	r->c = c;
	r->need = sizeof r->head;
}

/* The next part of a note: its `need` bytes, or at once the one after when it has none. */
static void
next_part(pm_core_notes *r, int part, uint64_t need, char *why, size_t cap);

static void
desc_done(pm_core_notes *r, char *why, size_t cap)
{
	if (r->keep) {
		r->err = take_note(r->c, r->type, r->desc, r->descsz, why, cap);
		if (r->type == NT_FILE && !r->c->src->file_note) { /* the maps' paths point into it */
			r->c->src->file_note = r->desc;
			r->desc = NULL;
			r->desc_cap = 0;
		}
	}
	if (r->err == PM_OK)
		next_part(r, PM_NOTE_PAD, align4(r->descsz) - r->descsz, why, cap);
}

static void
name_done(pm_core_notes *r, char *why, size_t cap)
{
	bool core_owner = r->namesz == 5 && memcmp(r->name, "CORE", 5) == 0;
	r->keep = core_owner && wanted(r->type);
	if (r->keep && r->descsz > PM_CORE_NOTE_MAX) {
		r->err = pmi_core_fail(why, cap, PM_E_LIMIT, "a note of type %#x of %u bytes (at %llu): more than the %d-byte limit",
		                       r->type, r->descsz, (unsigned long long)r->at, PM_CORE_NOTE_MAX);
		return;
	}
	/* One byte at least: take_note's memcpy never gets a NULL. */
	if (r->keep && r->descsz >= r->desc_cap) {
		unsigned char *d = realloc(r->desc, (size_t)r->descsz + 1);
		if (!d) {
			r->err = pmi_core_fail(why, cap, PM_E_NOMEM, "out of memory for a note of %u bytes", r->descsz);
			return;
		}
		r->desc = d;
		r->desc_cap = (size_t)r->descsz + 1;
	}
	next_part(r, PM_NOTE_DESC, r->descsz, why, cap);
}

static void
head_done(pm_core_notes *r, char *why, size_t cap)
{
	r->namesz = pmi_core_u32(r->head);
	r->descsz = pmi_core_u32(r->head + 4);
	r->type = pmi_core_u32(r->head + 8);
	memset(r->name, 0, sizeof r->name);
	next_part(r, PM_NOTE_NAME, align4(r->namesz), why, cap);
}

static void
next_part(pm_core_notes *r, int part, uint64_t need, char *why, size_t cap)
{
	r->part = part;
	r->have = 0;
	if (part == PM_NOTE_HEAD)
		r->note_at = r->at;
	r->need = part == PM_NOTE_HEAD ? sizeof r->head : need;
	if (r->need)
		return;
	if (part == PM_NOTE_NAME)
		name_done(r, why, cap);
	else if (part == PM_NOTE_DESC)
		desc_done(r, why, cap);
	else if (part == PM_NOTE_PAD)
		next_part(r, PM_NOTE_HEAD, 0, why, cap);
}

uint64_t
pmi_core_notes_skippable(const pm_core_notes *r)
{
	bool unheld = r->part == PM_NOTE_PAD || (r->part == PM_NOTE_DESC && !r->keep);
	return r->err == PM_OK && unheld ? r->need - r->have : 0;
}

pm_err
pmi_core_notes_feed(pm_core_notes *r, const unsigned char *p, uint64_t n, char *why, size_t cap)
{
	while (n && r->err == PM_OK) {
		uint64_t k = r->need - r->have < n ? r->need - r->have : n;
		if (r->part == PM_NOTE_HEAD)
			memcpy(r->head + r->have, p, (size_t)k);
		else if (r->part == PM_NOTE_NAME && r->have < sizeof r->name)
			memcpy(r->name + r->have, p, (size_t)(k < sizeof r->name - r->have ? k : sizeof r->name - r->have));
		else if (r->part == PM_NOTE_DESC && r->keep)
			memcpy(r->desc + r->have, p, (size_t)k);
		r->have += k;
		r->at += k;
		n -= k;
		if (p)
			p += k;
		if (r->have < r->need)
			continue;
		if (r->part == PM_NOTE_HEAD)
			head_done(r, why, cap);
		else if (r->part == PM_NOTE_NAME)
			name_done(r, why, cap);
		else if (r->part == PM_NOTE_DESC)
			desc_done(r, why, cap);
		else
			next_part(r, PM_NOTE_HEAD, 0, why, cap);
	}
	return r->err;
}

pm_err
pmi_core_notes_end(pm_core_notes *r, char *why, size_t cap)
{
	pm_core *c = r->c;
	free(r->desc);
	r->desc = NULL;
	if (r->err != PM_OK)
		return r->err;
	if (r->part == PM_NOTE_NAME)
		return pmi_core_fail(why, cap, PM_E_FORMAT, "a note's name runs past the notes (at %llu)",
		                     (unsigned long long)r->note_at);
	if (r->part == PM_NOTE_DESC)
		return pmi_core_fail(why, cap, PM_E_FORMAT, "a note of %u bytes runs past the notes (at %llu)", r->descsz,
		                     (unsigned long long)r->note_at);
	if (c->nthreads == 0)
		return pmi_core_fail(why, cap, PM_E_FORMAT, "a core without threads (no NT_PRSTATUS)");
	if (c->has_siginfo)
		pmi_core_set_fault_address(c->arch, &c->threads[0], &c->siginfo);
	pm_err e = pmi_core_exe_maps(c);
	return e == PM_OK ? pmi_core_index_files(c) : e;
}
