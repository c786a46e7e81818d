/*
 * arena_heap.c — the growing arena readers use, and reports that live on
 * it.  NOT AS-safe (malloc).
 */
#include "model.h"

#include <stdlib.h>
#include <string.h>

/* Chunks are chained through their first bytes. */
struct chunk {
	struct chunk *next;
};

enum { CHUNK_MIN = 64 * 1024 };

static bool
grow(pm_arena *a, size_t need)
{
	size_t size = need + sizeof(struct chunk) + 16;
	if (size < CHUNK_MIN)
		size = CHUNK_MIN;
	struct chunk *c = malloc(size);
	if (!c)
		return false;
	c->next = a->chunks;
	a->chunks = c;
	a->cur = (char *)(c + 1);
	a->left = size - sizeof *c;
	return true;
}

void
pmi_arena_init_heap(pm_arena *a)
{
	memset(a, 0, sizeof *a);
	a->grow = grow;
}

void
pmi_arena_free(pm_arena *a)
{
	struct chunk *c = a->chunks;
	while (c) {
		struct chunk *next = c->next;
		free(c);
		c = next;
	}
	pm_arena_grow_fn *g = a->grow;
	memset(a, 0, sizeof *a);
	a->grow = g;
}

void
pm_report_init(pm_report *r)
{
	/* Out of memory leaves no arena: the first allocation fails, as when full. */
	pm_arena *a = malloc(sizeof *a);
	if (a)
		pmi_arena_init_heap(a);
	pmi_report_reset(r, a);
}

void
pm_report_free(pm_report *r)
{
	/* A fixed arena (crash path, pmi_report_init_fixed) lives in its caller's block. */
	if (r->arena && r->arena->grow) {
		pmi_arena_free(r->arena);
		free(r->arena);
	}
	pmi_report_reset(r, NULL);
}
