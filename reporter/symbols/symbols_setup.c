/*
 * symbols_setup.c — reserve and release the working memory of the in-handler
 * symbolizer (as_symbols.c), at install and uninstall.  NOT AS-safe.
 *
 * One mapping holds the head (pm_sym_work, with its 32 KiB read buffer) and
 * the working memory after it.  MAP_NORESERVE and no touching, not even the
 * head, which as_symbols_work sets up at the first capture: the pages cost
 * nothing until a crash writes into them.  The head is kept out of
 * transparent huge pages: with THP on, its first write would fault in, and
 * zero, 2 MiB.
 */
#include <sys/mman.h>

#include "as_symbols_internal.h"

pm_as_symbols
pmi_as_symbols_create(size_t bytes)
{
	if (bytes > SIZE_MAX - PM_SYM_HEAD)
		return (pm_as_symbols){ 0 };
	size_t size = PM_SYM_HEAD + bytes;
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return (pm_as_symbols){ 0 };
	madvise(p, PM_SYM_HEAD, MADV_NOHUGEPAGE);
	return (pm_as_symbols){ .work = p, .bytes = size };
}

void
pmi_as_symbols_destroy(pm_as_symbols *s)
{
	if (s->work)
		munmap(s->work, s->bytes);
	*s = (pm_as_symbols){ 0 };
}
