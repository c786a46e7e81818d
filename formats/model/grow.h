/*
 * grow.h — growable arrays for the code that may allocate (readers, store,
 * symbolication, upload).  Never on the crash path.
 */
#ifndef PM_FORMATS_GROW_H
#define PM_FORMATS_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* Make *v (of *cap elements of `size` bytes) hold at least `need`, doubling;
 * false on overflow or out of memory (*v is then unchanged). */
bool pmi_grow(void **v, size_t *cap, size_t need, size_t size);

#endif
