/*
 * as_minidump_stream.c — AS-SAFE: the bookkeeping every stream of a
 * minidump shares (see as_minidump_stream.h): where the next byte lands,
 * each stream's entry in the directory, a thread's registers as context
 * bytes.
 */
#include "as_minidump_stream.h"

#include "model.h"

uint32_t
as_md_rva(const pm_md_writer *w)
{
	return (uint32_t)w->o->total;
}

void
as_md_put_location(uint8_t *p, uint32_t size, uint32_t rva)
{
	pm_md_put32(p, size);
	pm_md_put32(p + 4, rva);
}

void
as_md_stream_begin(pm_md_writer *w, uint32_t type)
{
	w->stream_type = type;
	w->stream_start = w->o->total;
}

void
as_md_stream_end(pm_md_writer *w)
{
	if (w->dir_count == PM_MD_MAX_STREAMS)
		return;
	uint8_t *d = w->dir[w->dir_count++];
	pm_md_put32(d, w->stream_type);
	as_md_put_location(d + 4, (uint32_t)(w->o->total - w->stream_start), (uint32_t)w->stream_start);
}

bool
as_md_thread_context(pm_md_writer *w, const pm_thread *t)
{
	if (!w->ctx || !t->regs || t->regs->arch != w->ctx->arch || w->chunk_cap < w->ctx->size)
		return false;
	pmi_md_context_from_regs(w->ctx, t->regs, (uint8_t *)w->chunk);
	return true;
}

uint64_t
as_md_context_sp(const pm_md_writer *w)
{
	return pm_md_get64((const uint8_t *)w->chunk + w->ctx->sp_offset);
}
