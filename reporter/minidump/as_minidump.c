/*
 * as_minidump.c — AS-SAFE: the minidump's frame — header, directory, the
 * order of the streams (each its own file's, on as_minidump_stream.c's
 * bookkeeping).
 */
#include "as_minidump.h"

#include <unistd.h>

#include "as_capture.h"
#include "as_minidump_info.h"
#include "as_minidump_memory.h"
#include "as_minidump_proc.h"
#include "as_minidump_threads.h"
#include "as_unwind.h"
#include "model.h"

static void
put_header(pm_md_writer *w, uint32_t stream_count)
{
	uint8_t h[PM_MD_HEADER_SIZE] = { 0 };
	pm_md_put32(h, PM_MD_SIGNATURE);
	pm_md_put32(h + 4, PM_MD_VERSION);
	pm_md_put32(h + 8, stream_count);
	pm_md_put32(h + 12, PM_MD_HEADER_SIZE);
	pm_md_put32(h + 20, (uint32_t)w->r->header.time.sec);
	pmi_out_put(w->o, (const char *)h, sizeof h);
}

/* The header and directory again, now that every stream's place is known. */
static bool
patch_front(pm_md_writer *w)
{
	if (!pmi_out_flush(w->o) || lseek(w->o->fd, 0, SEEK_SET) != 0)
		return false;
	put_header(w, w->dir_count);
	pmi_out_put(w->o, (const char *)w->dir, sizeof w->dir);
	return pmi_out_flush(w->o);
}

pm_err
as_minidump(const as_capture_ctx *c, pm_out *o)
{
	pm_md_writer w = {
		.o = o, .r = c->report, .ctx = pmi_md_context_for_arch(as_arch_id),
		.ranges = c->md_ranges, .range_cap = c->md_range_cap,
		.chunk = c->scratch, .chunk_cap = c->scratch_cap,
		.target = &c->target, .images = c->images, .facts = c->facts, .environ = c->minidump_environ,
	};
	if (o->fd < 0)
		return PM_E_INVAL;
	as_facts_read_minidump(c->facts, c->scratch, c->scratch_cap);
	put_header(&w, 0);
	pmi_out_put(o, (const char *)w.dir, sizeof w.dir);
	as_md_memory_plan(&w);
	as_md_memory_bytes(&w);
	as_md_thread_list(&w);
	as_md_memory_list(&w);
	as_md_exception(&w);
	as_md_module_list(&w);
	as_md_system_info(&w);
	as_md_misc_info(&w);
	as_md_thread_names(&w);
	as_md_proc_streams(&w);
	/* RVAs are 32-bit: a file past 4 GiB cannot be read back (the caps keep it far below). */
	bool too_big = o->total > UINT32_MAX;
	if (!patch_front(&w))
		return PM_E_IO;
	return o->failed || too_big ? PM_E_IO : PM_OK;
}
