/*
 * as_minidump_info.c — AS-SAFE: SystemInfo (CPU, OS and kernel), MiscInfo
 * (pid, start time) and the ModuleList, whose CodeView records carry each
 * image's ELF build id the way Breakpad does (CV_INFO_ELF): servers derive
 * the debug id from those bytes, so it matches the JSON twin's.
 */
#include "as_minidump_info.h"
#include "as_unwind.h"
#include "model.h"

void
as_md_system_info(pm_md_writer *w)
{
	const pm_facts *f = w->facts;
	uint8_t b[PM_MD_SYSTEM_INFO_SIZE] = { 0 };
	as_md_stream_begin(w, PM_MD_SYSTEM_INFO);
	pm_md_put16(b, w->ctx ? w->ctx->cpu : 0xffff);
	as_arch_minidump_cpu(b + 2, b + 4, b + 32);
	b[6] = f->late->cpu_count;
	pm_md_put32(b + 8, f->late->kernel_version[0]);
	pm_md_put32(b + 12, f->late->kernel_version[1]);
	pm_md_put32(b + 16, f->late->kernel_version[2]);
	pm_md_put32(b + 20, PM_MD_OS_LINUX);
	pm_md_put32(b + 24, as_md_rva(w) + sizeof b);
	pmi_out_put(w->o, (const char *)b, sizeof b);
	as_md_stream_end(w);
	pmi_md_put_string(w->o, f->late->kernel);
}

void
as_md_misc_info(pm_md_writer *w)
{
	const pm_header *h = &w->r->header;
	uint8_t b[PM_MD_MISC_INFO_SIZE] = { 0 };
	uint32_t flags = 0;
	as_md_stream_begin(w, PM_MD_MISC_INFO);
	pm_md_put32(b, sizeof b);
	if (h->pid >= 0) {
		flags |= PM_MD_MISC_PROCESS_ID;
		pm_md_put32(b + 8, (uint32_t)h->pid);
	}
	if (h->launch_time.set) {
		flags |= PM_MD_MISC_PROCESS_TIMES;
		pm_md_put32(b + 12, (uint32_t)h->launch_time.sec);
	}
	pm_md_put32(b + 4, flags);
	pmi_out_put(w->o, (const char *)b, sizeof b);
	as_md_stream_end(w);
}

static const char *
module_name(const pm_image *im)
{
	return im->path ? im->path : im->name ? im->name : "";
}

/* The list, then (outside the stream) each module's name and CodeView record. */
void
as_md_module_list(pm_md_writer *w)
{
	const pm_report *r = w->r;
	uint8_t b[PM_MD_MODULE_SIZE];
	as_md_stream_begin(w, PM_MD_MODULE_LIST);
	pm_md_put32(b, r->image_count);
	pmi_out_put(w->o, (const char *)b, 4);
	uint32_t rva = as_md_rva(w) + r->image_count * PM_MD_MODULE_SIZE;
	for (uint32_t i = 0; i < r->image_count; i++) {
		const pm_image *im = &r->images[i];
		for (size_t k = 0; k < sizeof b; k++)
			b[k] = 0;
		pm_md_put64(b, im->start);
		pm_md_put32(b + 8, im->size > UINT32_MAX ? UINT32_MAX : (uint32_t)im->size);
		pm_md_put32(b + PM_MD_MODULE_NAME, rva);
		rva += (uint32_t)pmi_md_string_size(module_name(im));
		if (im->build_id_len > 0) {
			as_md_put_location(b + PM_MD_MODULE_CV, 4u + im->build_id_len, rva);
			rva += 4u + im->build_id_len;
		}
		pmi_out_put(w->o, (const char *)b, sizeof b);
	}
	as_md_stream_end(w);
	for (uint32_t i = 0; i < r->image_count; i++) {
		const pm_image *im = &r->images[i];
		pmi_md_put_string(w->o, module_name(im));
		if (im->build_id_len > 0) {
			pm_md_put32(b, PM_MD_CV_ELF);
			pmi_out_put(w->o, (const char *)b, 4);
			pmi_out_put(w->o, (const char *)im->build_id, im->build_id_len);
		}
	}
}
