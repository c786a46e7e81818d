/*
 * read_minidump_streams.c — each minidump stream the model has a place
 * for: SystemInfo, MiscInfo, ModuleList, Exception, ThreadList and thread
 * names.  A stream that does not fit the file is a format error; one the
 * model has no place for is skipped.
 */
#include <stdio.h>
#include <string.h>

#include "decode.h"
#include "model.h"
#include "read_minidump.h"

static pm_err
bad(pm_mdr *m, const char *stream)
{
	return pmi_read_fail(m->err, 0, "minidump %s stream lies outside the file or is malformed", stream);
}

/* The stream's bytes if it holds at least `need`. */
static const uint8_t *
body(const pm_mdr *m, const uint8_t *dir, uint32_t need)
{
	uint32_t size = pm_md_get32(dir + 4);
	return size < need ? NULL : pmi_mdr_span(m, pm_md_get32(dir + 8), size);
}

/* One list entry into element i of the model's array. */
typedef void entry_fn(pm_mdr *m, const uint8_t *entry, uint32_t i);

/* A list stream into a zeroed model array (elem bytes an element), its count
 * in *count, each entry through fn. */
static pm_err
read_list(pm_mdr *m, const uint8_t *dir, const char *stream, uint32_t entry_size, uint32_t max, size_t elem,
          size_t align, void **arr, uint32_t *count, entry_fn *fn)
{
	uint32_t n;
	uint64_t at;
	if (!pmi_mdr_list(m, dir, entry_size, max, &n, &at))
		return bad(m, stream);
	*arr = pmi_arena_alloc(m->r->arena, (size_t)n * elem, align);
	if (n && !*arr)
		return PM_E_NOMEM;
	for (uint32_t i = 0; i < n; i++, at += entry_size) {
		*count = i + 1;
		fn(m, pmi_mdr_span(m, at, entry_size), i);
	}
	return PM_OK;
}

pm_err
pmi_mdr_system_info(pm_mdr *m, const uint8_t *dir)
{
	const uint8_t *p = body(m, dir, PM_MD_SYSTEM_INFO_SIZE);
	if (!p)
		return bad(m, "SystemInfo");
	m->ctx = pmi_md_context_for_cpu(pm_md_get16(p));
	if (pm_md_get32(p + 20) == PM_MD_OS_LINUX) {
		m->r->os = PM_OS_LINUX;
		m->r->os_name = "Linux";
	}
	m->r->header.os_version = pmi_mdr_string(m, pm_md_get32(p + 24));
	if (m->ctx && m->ctx->arch == PM_ARCH_X86_64)
		m->r->header.code_type = "X86-64 (Native)";
	return PM_OK;
}

pm_err
pmi_mdr_misc_info(pm_mdr *m, const uint8_t *dir)
{
	const uint8_t *p = body(m, dir, PM_MD_MISC_INFO_SIZE);
	if (!p)
		return bad(m, "MiscInfo");
	uint32_t flags = pm_md_get32(p + 4);
	if (flags & PM_MD_MISC_PROCESS_ID)
		m->r->header.pid = pm_md_get32(p + 8);
	if ((flags & PM_MD_MISC_PROCESS_TIMES) && pm_md_get32(p + 12) != 0) {
		m->r->header.launch_time.sec = pm_md_get32(p + 12);
		m->r->header.launch_time.set = true;
	}
	return PM_OK;
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The build id of a CodeView record: Breakpad's ELF form (the raw id) or a
 * PDB 7.0 GUID and age. */
static void
read_cv(pm_mdr *m, const uint8_t *mod, pm_image *im)
{
	uint32_t size = pm_md_get32(mod + PM_MD_MODULE_CV);
	const uint8_t *cv = pmi_mdr_span(m, pm_md_get32(mod + PM_MD_MODULE_CV + 4), size);
	if (!cv || size < 4)
		return;
	uint32_t n = size - 4;
	if (pm_md_get32(cv) == PM_MD_CV_ELF) {
		im->build_id_len = (uint8_t)(n < PM_BUILD_ID_MAX ? n : PM_BUILD_ID_MAX);
		memcpy(im->build_id, cv + 4, im->build_id_len);
	} else if (pm_md_get32(cv) == 0x53445352 && n >= 20) { /* "RSDS": GUID, age */
		im->build_id_len = 16;
		memcpy(im->build_id, cv + 4, 16);
	}
}

static void
read_module(pm_mdr *m, const uint8_t *mod, uint32_t i)
{
	pm_image *im = &m->r->images[i];
	im->start = pm_md_get64(mod);
	im->size = pm_md_get32(mod + 8);
	im->path = pmi_mdr_string(m, pm_md_get32(mod + PM_MD_MODULE_NAME));
	im->name = im->path ? base_name(im->path) : NULL;
	im->arch = m->ctx && m->ctx->arch == PM_ARCH_X86_64 ? "x86_64" : NULL;
	im->is_app = i == 0; /* Breakpad and postmortem list the executable first */
	read_cv(m, mod, im);
}

pm_err
pmi_mdr_modules(pm_mdr *m, const uint8_t *dir)
{
	pm_report *r = m->r;
	pm_err e = read_list(m, dir, "ModuleList", PM_MD_MODULE_SIZE, PM_MDR_MAX_MODULES, sizeof *r->images,
	                     _Alignof(pm_image), (void **)&r->images, &r->image_count, read_module);
	if (e != PM_OK)
		return e;
	if (r->image_count > 0 && r->images[0].path) {
		r->header.process_path = r->images[0].path;
		r->header.process_name = r->images[0].name;
		r->header.identifier = r->images[0].name;
	}
	return PM_OK;
}

static const char *
printed(pm_arena *a, const char *fmt, const char *s, uint64_t addr)
{
	char buf[128];
	snprintf(buf, sizeof buf, fmt, s, (unsigned long long)addr);
	return pmi_arena_strdup(a, buf);
}

/* Linux: the signal and its si_code, worded as postmortem words a crash. */
pm_err
pmi_mdr_exception(pm_mdr *m, const uint8_t *dir)
{
	const uint8_t *p = body(m, dir, PM_MD_EXCEPTION_SIZE);
	if (!p)
		return bad(m, "Exception");
	pm_exception *e = &m->r->exception;
	pm_arena *a = m->r->arena;
	int sig = (int)pm_md_get32(p + PM_MD_EXC_CODE), code = (int)pm_md_get32(p + PM_MD_EXC_FLAGS);
	const pm_signal_info *s = pmi_signal_by_number(PM_OS_LINUX, sig);
	const pm_si_code_info *c = pmi_si_code_by_number(sig, code);
	m->has_exception = true;
	m->crashed_tid = pm_md_get32(p);
	m->r->kind = PM_KIND_CRASH;
	e->signal = sig;
	e->signal_name = s ? s->name : NULL;
	e->type = s ? s->mach_type : "EXC_CRASH";
	e->has_si_code = true;
	e->si_code = code;
	/* 0x80 is SI_KERNEL: no address (as the crash path decides). */
	e->has_address = code > 0 && code != 0x80 && pmi_signal_has_address(PM_OS_LINUX, sig);
	e->address = e->has_address ? pm_md_get64(p + PM_MD_EXC_ADDRESS) : 0;
	char name[32];
	snprintf(name, sizeof name, "UNKNOWN_%d", code);
	const char *cname = c ? c->name : name;
	e->codes = e->has_address ? printed(a, "%s at 0x%016llx", cname, e->address) : pmi_arena_strdup(a, cname);
	if (e->has_address && c && c->subtype[0])
		e->subtype = printed(a, "%s at 0x%016llx", c->subtype, e->address);
	e->term_namespace = "SIGNAL";
	e->has_term_code = true;
	e->term_code = (uint64_t)sig;
	return PM_OK;
}

static void
read_thread(pm_mdr *m, const uint8_t *t, uint32_t i)
{
	pm_report *r = m->r;
	pm_thread *out = &r->threads[i];
	out->id = pm_md_get32(t);
	out->crashed = m->has_exception && out->id == m->crashed_tid;
	if (out->crashed)
		r->exception.triggered_thread = (int32_t)i;
	uint32_t size = pm_md_get32(t + PM_MD_THREAD_CONTEXT);
	const uint8_t *ctx = pmi_mdr_span(m, pm_md_get32(t + PM_MD_THREAD_CONTEXT + 4), size);
	if (!m->ctx || !ctx || size < m->ctx->size) {
		out->note = "no registers this reader knows";
		return;
	}
	out->captured = true;
	out->regs = pmi_arena_alloc(r->arena, sizeof *out->regs, _Alignof(pm_regs));
	out->frames = pmi_arena_alloc(r->arena, sizeof *out->frames, _Alignof(pm_frame));
	if (!out->regs || !out->frames)
		return;
	pmi_md_regs_from_context(m->ctx, ctx, out->regs);
	uint64_t pc = pm_md_get64(ctx + m->ctx->pc_offset);
	out->frames[0] = (pm_frame){ .address = pc, .image = pm_report_image_for(r, pc), .how = PM_HOW_CONTEXT };
	out->frame_count = 1;
	out->note = "frames past the first need the stack unwound with the binaries";
}

pm_err
pmi_mdr_threads(pm_mdr *m, const uint8_t *dir)
{
	pm_report *r = m->r;
	return read_list(m, dir, "ThreadList", PM_MD_THREAD_SIZE, PM_MDR_MAX_THREADS, sizeof *r->threads,
	                 _Alignof(pm_thread), (void **)&r->threads, &r->thread_count, read_thread);
}

pm_err
pmi_mdr_thread_names(pm_mdr *m, const uint8_t *dir)
{
	uint32_t n;
	uint64_t at;
	if (!pmi_mdr_list(m, dir, PM_MD_THREAD_NAME_SIZE, PM_MDR_MAX_THREADS, &n, &at))
		return bad(m, "ThreadNames");
	for (uint32_t i = 0; i < n; i++, at += PM_MD_THREAD_NAME_SIZE) {
		const uint8_t *e = pmi_mdr_span(m, at, PM_MD_THREAD_NAME_SIZE);
		uint32_t tid = pm_md_get32(e);
		for (uint32_t k = 0; k < m->r->thread_count; k++)
			if (m->r->threads[k].id == tid && !m->r->threads[k].name)
				m->r->threads[k].name = pmi_mdr_string(m, pm_md_get64(e + 4));
	}
	return PM_OK;
}
