/*
 * grow.c — growable arrays (see grow.h).  NOT AS-safe: realloc.
 */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>

bool
pmi_grow(void **v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t cap2 = *cap ? *cap : 64;
	while (cap2 < need) {
		if (cap2 > SIZE_MAX / 2)
			return false;
		cap2 *= 2;
	}
	if (cap2 > SIZE_MAX / size)
		return false;
	void *p = realloc(*v, cap2 * size);
	if (!p)
		return false;
	*v = p;
	*cap = cap2;
	return true;
}
