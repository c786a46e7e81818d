/*
 * vec.c — growable arrays for the symbolicator's indexes and results.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "symb.h"

pm_sy_loc *
pmi_sy_locs_push(pm_sy_locs *l)
{
	if (!pmi_grow((void **)&l->v, &l->cap, l->len + 1, sizeof *l->v))
		return NULL;
	pm_sy_loc *loc = &l->v[l->len++];
	memset(loc, 0, sizeof *loc);
	return loc;
}
