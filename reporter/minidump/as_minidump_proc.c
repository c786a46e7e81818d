/*
 * as_minidump_proc.c — AS-SAFE: Breakpad's Linux streams, each a file of
 * the target's /proc directory (none without one) or of the system,
 * copied byte for byte (a bounded number of bytes).  The environment only
 * when asked for: it holds tokens and passwords more often than clues.
 */
#include <errno.h>
#include <unistd.h>

#include "as_minidump_proc.h"
#include "as_memory.h"
#include "model.h"

/* Large enough for the maps of a big process (tens of thousands of mappings). */
static const uint64_t file_cap = 16u * 1024 * 1024;

/* Copy one file into its stream; nothing (no stream) when it cannot be opened. */
static void
copy_file(pm_md_writer *w, uint32_t type, const char *path)
{
	if (as_files_served()) {
		/* A snapshot's bytes (as_util.h: a reader that may open nothing). */
		size_t len;
		const char *b = as_files_bytes(path, &len);
		if (b) {
			as_md_stream_begin(w, type);
			pmi_out_put(w->o, b, len < file_cap ? len : (size_t)file_cap);
			as_md_stream_end(w);
		}
		return;
	}
	int fd = as_open_ro(path);
	if (fd < 0)
		return;
	as_md_stream_begin(w, type);
	uint64_t copied = 0;
	/* Bounded: each pass copies bytes or ends, except for EINTR, which a
	 * handler that blocks nothing but our own signals rarely sees twice. */
	for (int interrupted = 0; copied < file_cap && interrupted < 8;) {
		size_t want = w->chunk_cap;
		if (want > file_cap - copied)
			want = (size_t)(file_cap - copied);
		ssize_t n = read(fd, w->chunk, want);
		if (n < 0 && errno == EINTR) {
			interrupted++;
			continue;
		}
		if (n <= 0)
			break;
		pmi_out_put(w->o, w->chunk, (size_t)n);
		copied += (uint64_t)n;
	}
	close(fd);
	as_md_stream_end(w);
}

/* The target's <proc>/<file>, when it has a /proc directory. */
static void
copy_proc_file(pm_md_writer *w, uint32_t type, const char *file)
{
	char path[64];
	if (as_target_path(w->target, file, path, sizeof path))
		copy_file(w, type, path);
}

void
as_md_proc_streams(pm_md_writer *w)
{
	copy_proc_file(w, PM_MD_LINUX_PROC_STATUS, "status");
	copy_proc_file(w, PM_MD_LINUX_CMD_LINE, "cmdline");
	if (w->environ)
		copy_proc_file(w, PM_MD_LINUX_ENVIRON, "environ");
	copy_proc_file(w, PM_MD_LINUX_AUXV, "auxv");
	copy_proc_file(w, PM_MD_LINUX_MAPS, "maps");
	/* Debian and most distributions now ship only os-release; the stream's
	 * readers take either (KEY=value lines). */
	/* /etc/os-release is a link to /usr/lib/os-release (Debian's), which no
	 * open follows (as_open_ro). */
	static const char *const release[] = { "/etc/lsb-release", "/etc/os-release", "/usr/lib/os-release" };
	int before = (int)w->dir_count;
	for (size_t i = 0; i < sizeof release / sizeof *release && (int)w->dir_count == before; i++)
		copy_file(w, PM_MD_LINUX_LSB_RELEASE, release[i]);
}
