/*
 * symbols_setup.c — reserve and release the working memory of the in-handler
 * symbolizer (as_symbols.c), at install and uninstall.  NOT AS-safe.
 *
 * One mapping holds the pm_as_symbols struct, with its 32 KiB read buffer,
 * and the working memory after it.  MAP_NORESERVE and no touching: the pages
 * cost nothing until a crash writes a table into them.  The struct's own
 * pages are written here, so they are kept out of transparent huge pages:
 * with THP on, the first write would fault in, and zero, 2 MiB.
 */
#include <sys/mman.h>

#include "as_symbols_internal.h"

pm_as_symbols *
pmi_as_symbols_create(size_t bytes)
{
	size_t head = (sizeof(pm_as_symbols) + 63) & ~(size_t)63;
	if (bytes > SIZE_MAX - head)
		return NULL;
	void *p = mmap(NULL, head + bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
	               -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, head, MADV_NOHUGEPAGE);
	pm_as_symbols *s = p;
	s->map_size = head + bytes;
	s->work = s->area = (char *)p + head;
	s->work_size = s->area_size = bytes;
	return s;
}

void
pmi_as_symbols_destroy(pm_as_symbols *s)
{
	if (s)
		munmap(s, s->map_size);
}
