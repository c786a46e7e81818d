/*
 * map_files.h — the files the crashed process maps, as descriptors of the
 * inodes mapped (map_files.c).  NOT AS-safe.
 */
#ifndef PM_SYSTEM_MAP_FILES_H
#define PM_SYSTEM_MAP_FILES_H

#include <sys/types.h>

#include "core.h"
#include "system.h"

/* One inode mapped. */
typedef struct pm_map_file {
	int fd;                   /* O_PATH until reopened, then for reading (or nothing to read) */
	dev_t dev;
	ino_t ino;
	bool readable;            /* reopened for reading */
} pm_map_file;

typedef struct pm_map_files {
	pm_core_mapped *m;        /* each file mapping kept, with its inode's descriptor */
	size_t n;
	pm_map_file *files;       /* the inodes, each once */
	size_t nfiles;
	size_t not_files;         /* mappings of a device, a socket, an anonymous inode: left out */
	size_t left_out;          /* regular files past the bound: left out */
} pm_map_files;

/* As root: /proc/<pid>/map_files/ through the pinned directory, each entry
 * opened O_PATH, the regular files kept once per inode.  False (why says)
 * when the directory cannot be listed. */
bool pmi_map_files_open(const pm_proc *p, pm_map_files *mf, char *why, size_t cap);
/* Each file opened for reading, as this process's credentials may,
 * through self_fd (a descriptor of /proc/self/fd), in place of its O_PATH
 * descriptor (the same number); one that cannot be is replaced by null (a
 * descriptor of /dev/null: it reads nothing). */
void pmi_map_files_reopen(pm_map_files *mf, int self_fd, int null);
/* How many were reopened. */
size_t pmi_map_files_readable(const pm_map_files *mf);
void pmi_map_files_close(pm_map_files *mf);

#endif
