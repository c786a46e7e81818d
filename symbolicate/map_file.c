/*
 * map_file.c — a debug file mapped read-only, for the readers that take
 * it whole (Mach-O files, and the modules opened from them).
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symb.h"

/* Mach-O files past this are not debug files of one image. */
#define MAX_MACHO_BYTES ((uint64_t)4 << 30)

int
pmi_sy_map_file(const char *path, pm_sy_map *m)
{
	*m = (pm_sy_map){ 0 };
	int fd = pmi_sy_open_file(path);
	if (fd < 0)
		return errno == EINVAL ? ENOEXEC : errno;
	struct stat st;
	int err = 0;
	if (fstat(fd, &st) != 0)
		err = errno;
	else if (st.st_size == 0 || (uint64_t)st.st_size > MAX_MACHO_BYTES)
		err = ENOEXEC;
	if (!err) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			err = errno;
		else
			*m = (pm_sy_map){ .data = p, .len = (size_t)st.st_size };
	}
	close(fd);
	return err;
}

void
pmi_sy_unmap(pm_sy_map *m)
{
	if (m->data)
		munmap(m->data, m->len);
	*m = (pm_sy_map){ 0 };
}
