/*
 * as_symtab_sort.c — AS-SAFE: entries in order of their start, by a
 * heapsort: in place, no recursion, O(n log n) even on hostile input.
 * Shared by the table (as_symtab.c: its entries by address) and the
 * reading of its names (as_symtab_names.c: the entries' name offsets, in
 * string-table order).
 */
#include "as_symbols_internal.h"

static void
swap_syms(pm_sym *a, pm_sym *b)
{
	pm_sym tmp = *a;
	*a = *b;
	*b = tmp;
}

static void
sift_down(pm_sym *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && v[child].start < v[child + 1].start)
			child++;
		if (v[root].start >= v[child].start)
			return;
		swap_syms(&v[root], &v[child]);
		root = child;
	}
}

void
as_symtab_sort(pm_sym *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n; end-- > 1;) {
		swap_syms(&v[0], &v[end]);
		sift_down(v, 0, end);
	}
}
