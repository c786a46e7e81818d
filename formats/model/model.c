/*
 * model.c — AS-SAFE helpers over the report model.
 */
#include "model.h"

#include <string.h>

void
pmi_report_reset(pm_report *r, pm_arena *a)
{
	memset(r, 0, sizeof *r);
	r->arena = a;
	r->header.pid = -1;
	r->header.parent_pid = -1;
	r->exception.terminating_pid = -1;
	r->exception.triggered_thread = -1;
}

void
pmi_report_init_fixed(pm_report *r, void *mem, size_t size)
{
	size_t pad = (size_t)(-(uintptr_t)mem & (_Alignof(pm_arena) - 1));
	pm_arena *a = NULL;
	if (mem && pad <= size && size - pad >= sizeof *a) {
		a = (pm_arena *)((char *)mem + pad);
		pmi_arena_init_fixed(a, a + 1, size - pad - sizeof *a);
	}
	pmi_report_reset(r, a);
}

void *
pm_report_alloc(pm_report *r, size_t n, size_t align)
{
	return pmi_arena_alloc(r->arena, n, align);
}

const char *
pm_report_strdup(pm_report *r, const char *s)
{
	return pmi_arena_strdup(r->arena, s);
}

int32_t
pm_report_crashed_thread(const pm_report *r)
{
	for (uint32_t i = 0; i < r->thread_count; i++)
		if (r->threads[i].crashed)
			return (int32_t)i;
	int32_t t = r->exception.triggered_thread;
	for (uint32_t i = 0; t >= 0 && i < r->thread_count; i++)
		if (r->threads[i].number == (uint64_t)t)
			return (int32_t)i;
	return -1;
}

int32_t
pm_report_image_for(const pm_report *r, uint64_t addr)
{
	for (uint32_t i = 0; i < r->image_count; i++) {
		const pm_image *im = &r->images[i];
		if (im->size != 0 && addr >= im->start && addr - im->start < im->size)
			return (int32_t)i;
	}
	return -1;
}

const char *
pm_strerror(pm_err e)
{
	switch (e) {
	case PM_OK: return "success";
	case PM_E_INVAL: return "invalid argument";
	case PM_E_NOMEM: return "out of memory";
	case PM_E_IO: return "input/output error";
	case PM_E_FORMAT: return "not a report in a known format";
	case PM_E_LIMIT: return "input exceeds a size limit";
	case PM_E_FAULT: return "memory could not be read";
	case PM_E_NOTFOUND: return "not found";
	case PM_E_UNSUPPORTED: return "not supported";
	}
	return "unknown error";
}
