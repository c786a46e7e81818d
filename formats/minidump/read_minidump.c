/*
 * read_minidump.c — a minidump (Breakpad, Crashpad, postmortem) into the
 * report model: the header and directory (bounds-checked access and
 * strings in read_minidump_access.c, the streams in read_minidump_streams.c).
 *
 * What a minidump cannot give the model without the binaries: frames past
 * the first.  Each thread gets its registers and frame 0 (its pc); the
 * stack memory stays in the file for a debugger to unwind.
 */
#include "read_minidump.h"
#include "model.h"

#include <string.h>

typedef pm_err stream_fn(pm_mdr *m, const uint8_t *dir);

/* In this order: SystemInfo says how to read contexts, the modules come
 * before the threads' frames point into them, the exception marks a thread. */
static const struct {
	uint32_t type;
	stream_fn *fn;
} readers[] = {
	{ PM_MD_SYSTEM_INFO, pmi_mdr_system_info },
	{ PM_MD_MISC_INFO, pmi_mdr_misc_info },
	{ PM_MD_MODULE_LIST, pmi_mdr_modules },
	{ PM_MD_EXCEPTION, pmi_mdr_exception },
	{ PM_MD_THREAD_LIST, pmi_mdr_threads },
	{ PM_MD_THREAD_NAMES, pmi_mdr_thread_names },
};

/* The first directory entry of a stream type, or NULL. */
static const uint8_t *
find_stream(const uint8_t *dir, uint32_t count, uint32_t type)
{
	for (uint32_t i = 0; i < count; i++)
		if (pm_md_get32(dir + (size_t)i * PM_MD_DIR_ENTRY_SIZE) == type)
			return dir + (size_t)i * PM_MD_DIR_ENTRY_SIZE;
	return NULL;
}

pm_err
pm_read_minidump(const char *data, size_t len, pm_report *r, pm_read_error *err)
{
	pm_err checked = pmi_read_check_input(data, len, r, err);
	if (checked != PM_OK)
		return checked;
	pm_mdr m = { .data = (const uint8_t *)data, .len = len, .r = r, .err = err };
	const uint8_t *h = pmi_mdr_span(&m, 0, PM_MD_HEADER_SIZE);
	if (!h || pm_md_get32(h) != PM_MD_SIGNATURE)
		return pmi_read_fail(err, 0, "not a minidump: no MDMP signature");
	if ((pm_md_get32(h + 4) & 0xffff) != PM_MD_VERSION)
		return pmi_read_fail(err, 0, "minidump version 0x%x is not 0xa793", pm_md_get32(h + 4) & 0xffff);
	uint32_t count = pm_md_get32(h + 8);
	const uint8_t *dir = pmi_mdr_span(&m, pm_md_get32(h + 12), (uint64_t)count * PM_MD_DIR_ENTRY_SIZE);
	if (!dir)
		return pmi_read_fail(err, 0, "minidump directory (%u streams) lies outside the file", count);
	r->format = PM_FORMAT_MINIDUMP;
	r->kind = PM_KIND_SNAPSHOT;
	r->header.time.sec = pm_md_get32(h + 20);
	r->header.time.set = r->header.time.sec != 0;
	for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
		const uint8_t *d = find_stream(dir, count, readers[i].type);
		if (!d)
			continue;
		pm_err e = readers[i].fn(&m, d);
		if (e != PM_OK)
			return e;
	}
	if (pmi_arena_exhausted(r->arena))
		return PM_E_NOMEM;
	r->complete = true;
	return PM_OK;
}
