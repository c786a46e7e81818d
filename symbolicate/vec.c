/*
 * vec.c — growable arrays for the symbolicator's indexes and results.
 */
#include <stdlib.h>
#include <string.h>

#include "symb.h"

bool
pm_sy_reserve(void **v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t cap2 = *cap ? *cap : 64;
	while (cap2 < need)
		cap2 *= 2;
	if (cap2 > SIZE_MAX / size)
		return false;
	void *p = realloc(*v, cap2 * size);
	if (!p)
		return false;
	*v = p;
	*cap = cap2;
	return true;
}

pm_sy_loc *
pm_sy_locs_push(pm_sy_locs *l)
{
	if (!pm_sy_reserve((void **)&l->v, &l->cap, l->len + 1, sizeof *l->v))
		return NULL;
	pm_sy_loc *loc = &l->v[l->len++];
	memset(loc, 0, sizeof *loc);
	return loc;
}
