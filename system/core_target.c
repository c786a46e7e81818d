/*
 * core_target.c — a core as the process the capture engine reads (see
 * core_target.h).  The kernel writes one PT_LOAD per mapping and one
 * NT_FILE entry per file mapping, so that their union is what
 * /proc/<pid>/maps said when the process died; gcore leaves the segments
 * it need not keep out, and their files then stand alone.  NOT AS-safe.
 */
#include "core_target.h"

#include <elf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static uint8_t
prot_of(uint32_t flags)
{
	return (uint8_t)((flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) |
	                 (flags & PF_X ? PROT_EXEC : 0));
}

static int
by_start(const void *a, const void *b)
{
	const as_mapping *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The first of the n file mappings (sorted) that ends past addr. */
static size_t
first_ending_after(const as_mapping *files, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (files[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
add_anon(pm_core_maps *out, uint64_t start, uint64_t end, uint8_t prot, uint64_t vdso)
{
	if (start >= end)
		return;
	bool is_vdso = vdso >= start && vdso < end;
	out->m[out->n++] = (as_mapping){ .start = start, .end = end, .prot = prot, .path = is_vdso ? "[vdso]" : "",
	                                 .path_len = is_vdso ? 6 : 0 };
}

/* Where the core reader reads the file of NT_FILE entry i; the path the core names unless it moved. */
static const char *
local_path(const pm_core *c, size_t i, pm_core_maps *out)
{
	const char *path = c->maps[i].path;
	char local[PATH_MAX];
	if (out->nmoved && strcmp(out->moved[out->nmoved - 1].path, path) == 0)
		return out->moved[out->nmoved - 1].local;
	if (!pmi_core_local_path(c, path, local, sizeof local) || strcmp(local, path) == 0)
		return path;
	char *copy = strdup(local);
	if (!copy)
		return path;
	out->moved[out->nmoved++] = (pm_core_moved){ copy, path };
	return copy;
}

bool
pmi_core_maps_build(const pm_core *c, pm_core_maps *out)
{
	*out = (pm_core_maps){ 0 };
	/* Each segment adds at most one anonymous piece more than the files in it. */
	out->m = calloc(c->nsegs + 2 * c->nmaps + 1, sizeof *out->m);
	out->moved = calloc(c->nmaps + 1, sizeof *out->moved);
	as_mapping *files = calloc(c->nmaps + 1, sizeof *files);
	if (!out->m || !out->moved || !files) {
		free(files);
		pmi_core_maps_free(out);
		return false;
	}
	for (size_t i = 0; i < c->nmaps; i++) {
		const char *path = local_path(c, i, out);
		files[i] = (as_mapping){ .start = c->maps[i].start, .end = c->maps[i].end, .offset = c->maps[i].offset,
		                         .prot = PROT_READ | PROT_EXEC, .path = path, .path_len = strlen(path) };
	}
	qsort(files, c->nmaps, sizeof *files, by_start);
	uint64_t vdso = pmi_core_auxv(c, AT_SYSINFO_EHDR);
	for (size_t s = 0; s < c->nsegs; s++) {
		const pm_core_segment *seg = &c->segs[s];
		uint64_t at = seg->vaddr, end = seg->vaddr + seg->memsz;
		if (end <= at)
			continue;
		for (size_t f = first_ending_after(files, c->nmaps, at); f < c->nmaps && files[f].start < end; f++) {
			if (files[f].start >= seg->vaddr)
				files[f].prot = prot_of(seg->flags);
			add_anon(out, at, files[f].start, prot_of(seg->flags), vdso);
			if (files[f].end > at)
				at = files[f].end;
		}
		add_anon(out, at, end, prot_of(seg->flags), vdso);
	}
	memcpy(out->m + out->n, files, c->nmaps * sizeof *files);
	out->n += c->nmaps;
	free(files);
	qsort(out->m, out->n, sizeof *out->m, by_start);
	return true;
}

const char *
pmi_core_maps_named(const pm_core_maps *m, const char *path)
{
	for (size_t i = 0; path && i < m->nmoved; i++)
		if (strcmp(m->moved[i].local, path) == 0)
			return m->moved[i].path;
	return path;
}

void
pmi_core_maps_free(pm_core_maps *m)
{
	for (size_t i = 0; i < m->nmoved; i++)
		free(m->moved[i].local);
	free(m->moved);
	free(m->m);
	*m = (pm_core_maps){ 0 };
}

static bool
mapping_at(void *ctx, size_t i, as_mapping *out)
{
	const pm_core_maps *m = ctx;
	if (i >= m->n)
		return false;
	*out = m->m[i];
	return true;
}

as_target
pmi_core_target(pm_core *c, pm_core_maps *m, const char *proc)
{
	pid_t pid = c->has_psinfo ? c->psinfo.pid : c->threads[0].tid;
	return (as_target){ .mem = { .read = pmi_core_mem_read, .ctx = c }, .pid = pid,
	                    .ppid = c->has_psinfo ? c->psinfo.ppid : 0, .proc = proc,
	                    .mapping = mapping_at, .mapping_ctx = m };
}

void
pmi_core_slots(const pm_core *c, bool have_proc, pm_slot *slots)
{
	for (size_t i = 0; i < c->nthreads; i++) {
		const pm_core_thread *t = &c->threads[i];
		pm_slot *s = &slots[i];
		memset(s, 0, sizeof *s);
		s->tid = t->tid;
		s->state = SLOT_CAPTURED;
		pmi_core_thread_mcontext(c, t, &s->mc);
		if (!have_proc && c->has_psinfo && t->tid == c->psinfo.pid)
			as_strlcpy(s->name, c->psinfo.fname, sizeof s->name);
	}
}

bool
pmi_core_fault(const pm_core *c, siginfo_t *info)
{
	pm_core_siginfo si = c->has_siginfo ? c->siginfo
	                                    : (pm_core_siginfo){ .signo = c->threads[0].signal, .code = SI_KERNEL };
	if (si.signo <= 0 || si.signo == SIGSTOP)
		return false;
	memset(info, 0, sizeof *info);
	info->si_signo = si.signo;
	info->si_errno = si.err;
	info->si_code = si.code;
	/* The kernel's faults carry an address; a signal a process sent, its sender. */
	if (si.code > 0)
		info->si_addr = (void *)(uintptr_t)si.addr;
	else {
		info->si_pid = si.sender_pid;
		info->si_uid = si.sender_uid;
	}
	return true;
}
