/*
 * model_equal.c — deep comparison of two reports, for round-trip tests and
 * the fuzzers' lossless property.  Names the first field that differs.
 */
#include "model.h"

#include <stdio.h>
#include <string.h>

static _Thread_local char where_buf[160];

static bool
differ(const char **where, const char *what, long i, long j)
{
	if (where) {
		if (i >= 0 && j >= 0)
			snprintf(where_buf, sizeof where_buf, "%s [%ld][%ld]", what, i, j);
		else if (i >= 0)
			snprintf(where_buf, sizeof where_buf, "%s [%ld]", what, i);
		else
			snprintf(where_buf, sizeof where_buf, "%s", what);
		*where = where_buf;
	}
	return false;
}

static bool
str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Each CHECK returns from the enclosing function on the first difference. */
#define CHECK(cond, what, i, j) \
	do { if (!(cond)) return differ(where, what, i, j); } while (0)
#define CHECK_STR(a, b, what, i, j) CHECK(str_eq(a, b), what, i, j)

static bool
time_eq(const pm_time *a, const pm_time *b)
{
	if (a->set != b->set)
		return false;
	return !a->set || (a->sec == b->sec && a->usec == b->usec &&
	                   a->tz_min == b->tz_min && a->digits == b->digits);
}

static bool
frames_eq(const pm_frame *a, const pm_frame *b, uint32_t n, long t, const char **where)
{
	for (uint32_t k = 0; k < n; k++) {
		const pm_frame *x = &a[k], *y = &b[k];
		CHECK(x->address == y->address, "frame.address", t, k);
		CHECK(x->image == y->image, "frame.image", t, k);
		CHECK_STR(x->image_name, y->image_name, "frame.image_name", t, k);
		CHECK_STR(x->symbol, y->symbol, "frame.symbol", t, k);
		CHECK(x->has_offset == y->has_offset, "frame.has_offset", t, k);
		CHECK(!x->has_offset || x->symbol_offset == y->symbol_offset, "frame.symbol_offset", t, k);
		CHECK(x->inlined == y->inlined, "frame.inlined", t, k);
		CHECK(x->how == y->how, "frame.how", t, k);
		CHECK_STR(x->file, y->file, "frame.file", t, k);
		CHECK(x->line == y->line, "frame.line", t, k);
		CHECK(x->column == y->column, "frame.column", t, k);
	}
	return true;
}

static bool
regs_eq(const pm_regs *a, const pm_regs *b, long t, const char **where)
{
	CHECK(!a == !b, "thread.regs", t, -1);
	if (!a)
		return true;
	CHECK(a->arch == b->arch, "regs.arch", t, -1);
	CHECK(a->count == b->count, "regs.count", t, -1);
	for (unsigned k = 0; k < a->count; k++) {
		CHECK(strcmp(a->reg[k].name, b->reg[k].name) == 0, "regs.name", t, k);
		CHECK(a->reg[k].value == b->reg[k].value, "regs.value", t, k);
	}
	CHECK(a->has_trap == b->has_trap, "regs.has_trap", t, -1);
	CHECK(!a->has_trap || (a->trap_number == b->trap_number &&
	                       a->error_code == b->error_code), "regs.trap", t, -1);
	CHECK(a->has_cpu == b->has_cpu, "regs.has_cpu", t, -1);
	CHECK(!a->has_cpu || a->logical_cpu == b->logical_cpu, "regs.logical_cpu", t, -1);
	CHECK_STR(a->trap_description, b->trap_description, "regs.trap_description", t, -1);
	CHECK_STR(a->esr_description, b->esr_description, "regs.esr_description", t, -1);
	return true;
}

static bool
header_eq(const pm_header *a, const pm_header *b, const char **where)
{
	CHECK_STR(a->incident_id, b->incident_id, "header.incident_id", -1, -1);
	CHECK_STR(a->crash_reporter_key, b->crash_reporter_key, "header.crash_reporter_key", -1, -1);
	CHECK_STR(a->hardware_model, b->hardware_model, "header.hardware_model", -1, -1);
	CHECK_STR(a->process_name, b->process_name, "header.process_name", -1, -1);
	CHECK(a->pid == b->pid, "header.pid", -1, -1);
	CHECK_STR(a->process_path, b->process_path, "header.process_path", -1, -1);
	CHECK_STR(a->identifier, b->identifier, "header.identifier", -1, -1);
	CHECK_STR(a->version, b->version, "header.version", -1, -1);
	CHECK_STR(a->code_type, b->code_type, "header.code_type", -1, -1);
	CHECK_STR(a->role, b->role, "header.role", -1, -1);
	CHECK_STR(a->parent_name, b->parent_name, "header.parent_name", -1, -1);
	CHECK(a->parent_pid == b->parent_pid, "header.parent_pid", -1, -1);
	CHECK_STR(a->responsible, b->responsible, "header.responsible", -1, -1);
	CHECK_STR(a->coalition, b->coalition, "header.coalition", -1, -1);
	CHECK_STR(a->user_id, b->user_id, "header.user_id", -1, -1);
	CHECK(time_eq(&a->time, &b->time), "header.time", -1, -1);
	CHECK(time_eq(&a->launch_time, &b->launch_time), "header.launch_time", -1, -1);
	CHECK(a->start_ticks == b->start_ticks, "header.start_ticks", -1, -1);
	CHECK_STR(a->os_version, b->os_version, "header.os_version", -1, -1);
	CHECK_STR(a->release_type, b->release_type, "header.release_type", -1, -1);
	CHECK_STR(a->baseband_version, b->baseband_version, "header.baseband_version", -1, -1);
	CHECK_STR(a->report_version, b->report_version, "header.report_version", -1, -1);
	CHECK(a->extra_count == b->extra_count, "header.extra_count", -1, -1);
	for (uint32_t i = 0; i < a->extra_count; i++) {
		CHECK_STR(a->extra[i].key, b->extra[i].key, "header.extra.key", i, -1);
		CHECK_STR(a->extra[i].value, b->extra[i].value, "header.extra.value", i, -1);
	}
	return true;
}

static bool
strs_eq(const char **a, uint32_t na, const char **b, uint32_t nb)
{
	if (na != nb)
		return false;
	for (uint32_t i = 0; i < na; i++)
		if (!str_eq(a[i], b[i]))
			return false;
	return true;
}

static bool
exception_eq(const pm_exception *a, const pm_exception *b, const char **where)
{
	CHECK_STR(a->type, b->type, "exception.type", -1, -1);
	CHECK_STR(a->signal_name, b->signal_name, "exception.signal_name", -1, -1);
	CHECK(a->signal == b->signal, "exception.signal", -1, -1);
	CHECK(a->has_si_code == b->has_si_code, "exception.has_si_code", -1, -1);
	CHECK(!a->has_si_code || a->si_code == b->si_code, "exception.si_code", -1, -1);
	CHECK(a->has_address == b->has_address, "exception.has_address", -1, -1);
	CHECK(!a->has_address || a->address == b->address, "exception.address", -1, -1);
	CHECK_STR(a->subtype, b->subtype, "exception.subtype", -1, -1);
	CHECK_STR(a->message, b->message, "exception.message", -1, -1);
	CHECK_STR(a->codes, b->codes, "exception.codes", -1, -1);
	CHECK(a->raw_code_count == b->raw_code_count, "exception.raw_code_count", -1, -1);
	for (uint32_t i = 0; i < a->raw_code_count && i < 4; i++)
		CHECK(a->raw_codes[i] == b->raw_codes[i], "exception.raw_codes", i, -1);
	CHECK_STR(a->note, b->note, "exception.note", -1, -1);
	CHECK_STR(a->vm_region_info, b->vm_region_info, "exception.vm_region_info", -1, -1);
	CHECK_STR(a->term_namespace, b->term_namespace, "exception.term_namespace", -1, -1);
	CHECK(a->has_term_code == b->has_term_code, "exception.has_term_code", -1, -1);
	CHECK(!a->has_term_code || a->term_code == b->term_code, "exception.term_code", -1, -1);
	CHECK_STR(a->term_indicator, b->term_indicator, "exception.term_indicator", -1, -1);
	CHECK(strs_eq(a->term_reasons, a->term_reason_count, b->term_reasons, b->term_reason_count),
	      "exception.term_reasons", -1, -1);
	CHECK_STR(a->term_description, b->term_description, "exception.term_description", -1, -1);
	CHECK(a->term_flags == b->term_flags, "exception.term_flags", -1, -1);
	CHECK_STR(a->terminating_process, b->terminating_process, "exception.terminating_process", -1, -1);
	CHECK(a->terminating_pid == b->terminating_pid, "exception.terminating_pid", -1, -1);
	CHECK(a->triggered_thread == b->triggered_thread, "exception.triggered_thread", -1, -1);
	CHECK(a->highlighted == b->highlighted, "exception.highlighted", -1, -1);
	CHECK(strs_eq(a->asi, a->asi_count, b->asi, b->asi_count), "exception.asi", -1, -1);
	CHECK_STR(a->kernel_triage, b->kernel_triage, "exception.kernel_triage", -1, -1);
	return true;
}

static bool
image_eq(const pm_image *a, const pm_image *b, long i, const char **where)
{
	CHECK(a->start == b->start, "image.start", i, -1);
	CHECK(a->size == b->size, "image.size", i, -1);
	CHECK_STR(a->name, b->name, "image.name", i, -1);
	CHECK_STR(a->arch, b->arch, "image.arch", i, -1);
	CHECK_STR(a->path, b->path, "image.path", i, -1);
	CHECK_STR(a->version, b->version, "image.version", i, -1);
	CHECK(a->build_id_len == b->build_id_len &&
	      memcmp(a->build_id, b->build_id, a->build_id_len) == 0, "image.build_id", i, -1);
	CHECK(a->is_app == b->is_app, "image.is_app", i, -1);
	CHECK(a->source == b->source, "image.source", i, -1);
	CHECK_STR(a->debug_file, b->debug_file, "image.debug_file", i, -1);
	CHECK_STR(a->note, b->note, "image.note", i, -1);
	return true;
}

static bool
context_eq(const pm_report *a, const pm_report *b, const char **where)
{
	CHECK(a->annotation_count == b->annotation_count, "annotation_count", -1, -1);
	for (uint32_t i = 0; i < a->annotation_count; i++) {
		CHECK_STR(a->annotations[i].key, b->annotations[i].key, "annotation.key", i, -1);
		CHECK_STR(a->annotations[i].value, b->annotations[i].value, "annotation.value", i, -1);
	}
	CHECK(a->breadcrumb_count == b->breadcrumb_count, "breadcrumb_count", -1, -1);
	for (uint32_t i = 0; i < a->breadcrumb_count; i++) {
		CHECK(time_eq(&a->breadcrumbs[i].time, &b->breadcrumbs[i].time), "breadcrumb.time", i, -1);
		CHECK_STR(a->breadcrumbs[i].message, b->breadcrumbs[i].message, "breadcrumb.message", i, -1);
	}
	return true;
}

bool
pmi_report_equal(const pm_report *a, const pm_report *b, const char **where)
{
	CHECK(a->kind == b->kind, "kind", -1, -1);
	CHECK(a->os == b->os, "os", -1, -1);
	CHECK(a->complete == b->complete, "complete", -1, -1);
	CHECK_STR(a->os_name, b->os_name, "os_name", -1, -1);
	CHECK_STR(a->signature, b->signature, "signature", -1, -1);
	CHECK_STR(a->title, b->title, "title", -1, -1);
	if (!header_eq(&a->header, &b->header, where))
		return false;
	if (!exception_eq(&a->exception, &b->exception, where) || !context_eq(a, b, where))
		return false;
	CHECK(a->thread_count == b->thread_count, "thread_count", -1, -1);
	CHECK(a->threads_truncated == b->threads_truncated, "threads_truncated", -1, -1);
	for (uint32_t i = 0; i < a->thread_count; i++) {
		const pm_thread *x = &a->threads[i], *y = &b->threads[i];
		CHECK(x->id == y->id, "thread.id", i, -1);
		CHECK(x->number == y->number, "thread.number", i, -1);
		CHECK_STR(x->name, y->name, "thread.name", i, -1);
		CHECK_STR(x->queue, y->queue, "thread.queue", i, -1);
		CHECK(x->crashed == y->crashed, "thread.crashed", i, -1);
		CHECK(x->attributed == y->attributed, "thread.attributed", i, -1);
		CHECK(x->captured == y->captured, "thread.captured", i, -1);
		CHECK_STR(x->note, y->note, "thread.note", i, -1);
		CHECK(x->frames_truncated == y->frames_truncated, "thread.frames_truncated", i, -1);
		if (!regs_eq(x->regs, y->regs, i, where))
			return false;
		CHECK(x->frame_count == y->frame_count, "thread.frame_count", i, -1);
		if (!frames_eq(x->frames, y->frames, x->frame_count, i, where))
			return false;
	}
	CHECK(a->image_count == b->image_count, "image_count", -1, -1);
	CHECK(a->images_truncated == b->images_truncated, "images_truncated", -1, -1);
	for (uint32_t i = 0; i < a->image_count; i++)
		if (!image_eq(&a->images[i], &b->images[i], i, where))
			return false;
	CHECK(a->leb_count == b->leb_count, "leb_count", -1, -1);
	return frames_eq(a->last_exception_backtrace, b->last_exception_backtrace, a->leb_count, -1, where);
}
