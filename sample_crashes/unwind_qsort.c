/* A crash in a qsort comparator: the stack runs from the callback through
 * libc's merge sort (built without frame pointers) back to main. */
#include <stdlib.h>

#include "sample.h"

SAMPLE_FRAME static int
compare_and_crash(const void *a, const void *b)
{
	return *sample_null + *(const int *)a - *(const int *)b;
}

SAMPLE_FRAME static void
sort_things(int *v, size_t n)
{
	qsort(v, n, sizeof *v, compare_and_crash);
	SAMPLE_KEEP_FRAME();
}

int
main(void)
{
	/* Enough elements for msort_with_tmp to recurse a few levels first. */
	int v[16] = { 9, 4, 12, 1, 15, 7, 3, 11, 0, 14, 6, 10, 2, 13, 5, 8 };
	sample_install();
	sort_things(v, sizeof v / sizeof v[0]);
	return v[0];
}
