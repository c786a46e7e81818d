/*
 * explain_frames.c — what both renderings of a diagnosis (text in
 * explain.c, JSON in explain_json.c) and its summary (explain_what.c) show
 * alike: the diagnosed thread, a frame's image and line, whether a frame is
 * the app's, and the breadcrumbs shown.
 */
#include "explain.h"

#include <string.h>

#include "model.h"

const pm_thread *
pmi_explain_thread(const pm_explain_facts *f)
{
	return f->thread >= 0 ? &f->r->threads[f->thread] : NULL;
}

static const pm_image *
frame_image(const pm_report *r, const pm_frame *fr)
{
	return fr->image >= 0 && (uint32_t)fr->image < r->image_count ? &r->images[fr->image] : NULL;
}

const char *
pmi_explain_frame_image(const pm_report *r, const pm_frame *fr)
{
	const pm_image *im = frame_image(r, fr);
	const char *name = im && im->name ? im->name : fr->image_name;
	return name ? name : "???";
}

void
pmi_explain_frame_line(pm_sbuf *b, const pm_report *r, const pm_frame *fr, uint32_t index)
{
	pmi_sbuf_printf(b, "  %u  %s  ", index, pmi_explain_frame_image(r, fr));
	if (fr->symbol && fr->has_offset)
		pmi_sbuf_printf(b, "%s + %llu", fr->symbol, (unsigned long long)fr->symbol_offset);
	else if (fr->symbol)
		pmi_sbuf_printf(b, "%s", fr->symbol);
	else
		pmi_sbuf_printf(b, "0x%016llx", (unsigned long long)fr->address);
	if (fr->file && fr->line)
		pmi_sbuf_printf(b, " (%s:%u)", fr->file, fr->line);
	else if (fr->file)
		pmi_sbuf_printf(b, " (%s)", fr->file);
	if (fr->inlined)
		pmi_sbuf_printf(b, " [inlined]");
}

bool
pmi_explain_same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* The main executable: flagged, or the process's own path or name. */
bool
pmi_explain_frame_in_app(const pm_report *r, const pm_frame *fr)
{
	const pm_image *im = frame_image(r, fr);
	if (im && (im->is_app || pmi_explain_same(im->path, r->header.process_path)))
		return true;
	return pmi_explain_same(pmi_explain_frame_image(r, fr), r->header.process_name);
}

void
pmi_explain_crumb_time(const pm_crumb *c, char *buf, size_t cap)
{
	pm_out o;
	pmi_out_init_buf(&o, buf, cap - 1);
	pmi_out_time(&o, &c->time);
	buf[o.len] = '\0';
}

uint32_t
pmi_explain_first_crumb(const pm_report *r)
{
	return r->breadcrumb_count > PM_EXPLAIN_CRUMBS ? r->breadcrumb_count - PM_EXPLAIN_CRUMBS : 0;
}
