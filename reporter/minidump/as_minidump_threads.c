/*
 * as_minidump_threads.c — AS-SAFE: ThreadList (each captured thread's
 * registers and stack), the Exception stream, and thread names.  Threads
 * that did not stop have no registers and are left out of the lists; the
 * .crash still names them.
 */
#include "as_minidump_threads.h"

#include "as_minidump_memory.h"
#include "model.h"

static uint32_t
listed_count(pm_md_writer *w)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < w->r->thread_count; i++)
		n += as_md_thread_context(w, &w->r->threads[i]);
	return n;
}

/* The list, then (outside the stream, which holds only the list) each listed
 * thread's context in the same order. */
void
as_md_thread_list(pm_md_writer *w)
{
	if (!w->ctx)
		return;
	uint32_t n = listed_count(w);
	uint8_t b[PM_MD_THREAD_SIZE];
	as_md_stream_begin(w, PM_MD_THREAD_LIST);
	pm_md_put32(b, n);
	pmi_out_put(w->o, (const char *)b, 4);
	uint32_t context_rva = as_md_rva(w) + n * PM_MD_THREAD_SIZE, k = 0;
	for (uint32_t i = 0; i < w->r->thread_count; i++) {
		const pm_thread *t = &w->r->threads[i];
		if (!as_md_thread_context(w, t))
			continue;
		for (size_t j = 0; j < sizeof b; j++)
			b[j] = 0;
		pm_md_put32(b, (uint32_t)t->id);
		as_md_stack_descriptor(w, as_md_context_sp(w), b + PM_MD_THREAD_STACK);
		as_md_put_location(b + PM_MD_THREAD_CONTEXT, w->ctx->size, context_rva + k++ * w->ctx->size);
		pmi_out_put(w->o, (const char *)b, sizeof b);
	}
	as_md_stream_end(w);
	for (uint32_t i = 0; i < w->r->thread_count; i++)
		if (as_md_thread_context(w, &w->r->threads[i]))
			pmi_out_put(w->o, w->chunk, w->ctx->size);
}

/* Only a crash has one: snapshots and hang reports carry no signal. */
void
as_md_exception(pm_md_writer *w)
{
	const pm_exception *x = &w->r->exception;
	int32_t crashed = pm_report_crashed_thread(w->r);
	if (w->r->kind != PM_KIND_CRASH || x->signal == 0 || crashed < 0)
		return;
	const pm_thread *t = &w->r->threads[crashed];
	bool has_context = as_md_thread_context(w, t);
	uint8_t b[PM_MD_EXCEPTION_SIZE] = { 0 };
	as_md_stream_begin(w, PM_MD_EXCEPTION);
	pm_md_put32(b, (uint32_t)t->id);
	pm_md_put32(b + PM_MD_EXC_CODE, (uint32_t)x->signal);
	pm_md_put32(b + PM_MD_EXC_FLAGS, x->has_si_code ? (uint32_t)x->si_code : 0);
	pm_md_put64(b + PM_MD_EXC_ADDRESS, x->has_address ? x->address : 0);
	if (has_context)
		as_md_put_location(b + PM_MD_EXC_CONTEXT, w->ctx->size, as_md_rva(w) + sizeof b);
	pmi_out_put(w->o, (const char *)b, sizeof b);
	as_md_stream_end(w);
	if (has_context)
		pmi_out_put(w->o, w->chunk, w->ctx->size);
}

/* MINIDUMP_THREAD_NAME_LIST: tid and a 64-bit rva per named thread, then the strings. */
void
as_md_thread_names(pm_md_writer *w)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < w->r->thread_count; i++)
		n += w->r->threads[i].name != NULL;
	uint8_t b[PM_MD_THREAD_NAME_SIZE];
	as_md_stream_begin(w, PM_MD_THREAD_NAMES);
	pm_md_put32(b, n);
	pmi_out_put(w->o, (const char *)b, 4);
	uint64_t rva = as_md_rva(w) + (uint64_t)n * PM_MD_THREAD_NAME_SIZE;
	for (uint32_t i = 0; i < w->r->thread_count; i++) {
		const pm_thread *t = &w->r->threads[i];
		if (!t->name)
			continue;
		pm_md_put32(b, (uint32_t)t->id);
		pm_md_put64(b + 4, rva);
		pmi_out_put(w->o, (const char *)b, sizeof b);
		rva += pmi_md_string_size(t->name);
	}
	as_md_stream_end(w);
	for (uint32_t i = 0; i < w->r->thread_count; i++)
		if (w->r->threads[i].name)
			pmi_md_put_string(w->o, w->r->threads[i].name);
}
