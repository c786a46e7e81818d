/*
 * arena.c — AS-SAFE bump allocator behind every report.
 *
 * A fixed arena (crash time) only hands out pieces of the block it was given.
 * A heap arena (readers, see arena_heap.c) has a grow callback; this file
 * never calls malloc itself, so the crash path can link it.
 */
#include "arena.h"

#include <string.h>

void
pmi_arena_init_fixed(pm_arena *a, void *mem, size_t size)
{
	memset(a, 0, sizeof *a);
	a->cur = mem;
	a->left = mem ? size : 0;
}

/* Uninitialised: the callers below fill every byte. */
static void *
take(pm_arena *a, size_t n, size_t align)
{
	if (!a)
		return NULL;
	if (align == 0)
		align = 1;
	for (int attempt = 0; attempt < 2; attempt++) {
		size_t pad = (size_t)(-(uintptr_t)a->cur & (align - 1));
		if (a->cur && pad <= a->left && n <= a->left - pad) {
			char *p = a->cur + pad;
			a->cur = p + n;
			a->left -= pad + n;
			return p;
		}
		if (!a->grow || n > SIZE_MAX / 2 || !a->grow(a, n + align))
			break;
	}
	a->exhausted = true;
	return NULL;
}

void *
pmi_arena_alloc(pm_arena *a, size_t n, size_t align)
{
	void *p = take(a, n, align);
	if (p)
		memset(p, 0, n);
	return p;
}

/* A crash's frame arrays are most of its arena: written once, not zeroed first. */
void *
pmi_arena_copy(pm_arena *a, const void *src, size_t n, size_t align)
{
	void *p = take(a, n, align);
	if (p && n > 0)
		memcpy(p, src, n);
	return p;
}

const char *
pmi_arena_strndup(pm_arena *a, const char *s, size_t n)
{
	char *p = take(a, n + 1, 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

const char *
pmi_arena_strdup(pm_arena *a, const char *s)
{
	return s ? pmi_arena_strndup(a, s, strlen(s)) : NULL;
}

bool
pmi_arena_exhausted(const pm_arena *a)
{
	return !a || a->exhausted;
}
