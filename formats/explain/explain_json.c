/*
 * explain_json.c — the JSON rendering of a diagnosis: the same facts as the
 * text, as members.  Integers are exact (written raw, never through double),
 * like every other JSON postmortem writes.
 */
#include "explain.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "json.h"

/* A tree under construction; `ok` turns false at the first failed allocation. */
typedef struct jtree {
	bool ok;
} jtree;

static cJSON *
check(jtree *j, cJSON *item)
{
	if (!item)
		j->ok = false;
	return item;
}

static void
add_str(jtree *j, cJSON *obj, const char *key, const char *s)
{
	if (obj && s)
		check(j, cJSON_AddStringToObject(obj, key, s));
}

static void
add_u64(jtree *j, cJSON *obj, const char *key, uint64_t v)
{
	char num[24];
	snprintf(num, sizeof num, "%llu", (unsigned long long)v);
	if (obj)
		check(j, cJSON_AddRawToObject(obj, key, num));
}

static void
add_bool(jtree *j, cJSON *obj, const char *key, bool v)
{
	if (obj)
		check(j, cJSON_AddBoolToObject(obj, key, v));
}

static cJSON *
add_object(jtree *j, cJSON *obj, const char *key)
{
	return obj ? check(j, cJSON_AddObjectToObject(obj, key)) : NULL;
}

static cJSON *
frame_object(jtree *j, const pm_report *r, const pm_frame *fr, uint32_t index)
{
	cJSON *o = check(j, cJSON_CreateObject());
	add_u64(j, o, "index", index);
	add_str(j, o, "image", pmi_explain_frame_image(r, fr));
	add_u64(j, o, "address", fr->address);
	add_str(j, o, "symbol", fr->symbol);
	if (fr->symbol && fr->has_offset)
		add_u64(j, o, "offset", fr->symbol_offset);
	add_str(j, o, "file", fr->file);
	if (fr->line)
		add_u64(j, o, "line", fr->line);
	add_bool(j, o, "in_app", pmi_explain_frame_in_app(r, fr));
	pm_sbuf line = { 0 };
	pmi_explain_frame_line(&line, r, fr, index);
	char *text = pmi_sbuf_take(&line);
	if (!text)
		j->ok = false;
	add_str(j, o, "text", text);
	free(text);
	return o;
}

static void
add_frame(jtree *j, cJSON *obj, const char *key, const pm_report *r, const pm_frame *fr,
          uint32_t index)
{
	cJSON *o = frame_object(j, r, fr, index);
	if (o && obj && !cJSON_AddItemToObject(obj, key, o)) {
		cJSON_Delete(o);
		j->ok = false;
	}
}

static void
add_termination(jtree *j, cJSON *root, const pm_explain_facts *f)
{
	const pm_explain_term *t = &f->term;
	if (!f->has_term)
		return;
	cJSON *o = add_object(j, root, "termination");
	add_str(j, o, "namespace", t->ns);
	if (t->has_code) {
		char hex[24];
		snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)t->code);
		add_u64(j, o, "code", t->code);
		add_str(j, o, "code_hex", hex);
	}
	add_str(j, o, "name", t->name);
	add_str(j, o, "meaning", t->meaning);
	add_str(j, o, "cause", t->magic ? t->magic->cause : NULL);
}

static void
add_asi(jtree *j, cJSON *root, const pm_exception *e)
{
	if (e->asi_count == 0)
		return;
	cJSON *a = check(j, cJSON_AddArrayToObject(root, "asi"));
	for (uint32_t i = 0; a && i < e->asi_count; i++) {
		cJSON *s = check(j, cJSON_CreateString(e->asi[i]));
		if (s)
			cJSON_AddItemToArray(a, s);
	}
}

static void
add_context(jtree *j, cJSON *root, const pm_report *r)
{
	if (r->annotation_count > 0) {
		cJSON *a = check(j, cJSON_AddObjectToObject(root, "annotations"));
		for (uint32_t i = 0; a && i < r->annotation_count; i++)
			add_str(j, a, r->annotations[i].key, r->annotations[i].value);
	}
	if (r->breadcrumb_count == 0)
		return;
	cJSON *a = check(j, cJSON_AddArrayToObject(root, "breadcrumbs"));
	for (uint32_t i = pmi_explain_first_crumb(r); a && i < r->breadcrumb_count; i++) {
		cJSON *o = check(j, cJSON_CreateObject());
		if (!o)
			return;
		cJSON_AddItemToArray(a, o);
		char when[48];
		pmi_explain_crumb_time(&r->breadcrumbs[i], when, sizeof when);
		add_str(j, o, "time", when);
		add_str(j, o, "message", r->breadcrumbs[i].message);
	}
}

static void
add_thread(jtree *j, cJSON *root, const pm_explain_facts *f)
{
	const pm_thread *t = pmi_explain_thread(f);
	if (!t)
		return;
	cJSON *o = add_object(j, root, "thread");
	add_u64(j, o, "index", (uint64_t)f->thread);
	add_u64(j, o, "number", t->number);
	if (t->id)
		add_u64(j, o, "id", t->id);
	add_str(j, o, "name", t->name);
	add_str(j, o, "queue", t->queue);
	cJSON *frames = check(j, cJSON_AddArrayToObject(root, "frames"));
	for (uint32_t i = 0; frames && i < f->top_frames; i++) {
		cJSON *fo = frame_object(j, f->r, &t->frames[i], i);
		if (fo)
			cJSON_AddItemToArray(frames, fo);
	}
	if (f->thrown_at >= 0)
		add_frame(j, root, "thrown_at", f->r, &f->r->last_exception_backtrace[f->thrown_at],
		          (uint32_t)f->thrown_at);
	if (t->frame_count == 0)
		return;
	cJSON *img = add_object(j, root, "crashed_image");
	if (f->crash_image_known)
		add_str(j, img, "name", pmi_explain_frame_image(f->r, &t->frames[0]));
	add_bool(j, img, "is_app", f->crash_in_app);
	if (f->first_app_frame >= 0)
		add_frame(j, root, "first_app_frame", f->r, &t->frames[f->first_app_frame],
		          (uint32_t)f->first_app_frame);
}

static void
build(jtree *j, cJSON *root, const pm_explain_facts *f)
{
	add_str(j, root, "kind", pmi_json_name_of(&pmi_json_kinds, f->r->kind));
	add_str(j, root, "summary", f->summary);
	add_str(j, root, "signature", f->signature);
	add_str(j, root, "title", f->title);
	if (f->sig) {
		add_str(j, root, "signal", f->sig->name);
		add_u64(j, root, "signal_number", (uint64_t)f->sig->number);
	}
	add_str(j, root, "exception_type", f->exc_type);
	if (f->has_address)
		add_u64(j, root, "address", f->address);
	add_asi(j, root, &f->r->exception);
	add_context(j, root, f->r);
	add_termination(j, root, f);
	add_thread(j, root, f);
}

char *
pmi_explain_json(const pm_explain_facts *f)
{
	jtree j = { .ok = true };
	cJSON *root = check(&j, cJSON_CreateObject());
	build(&j, root, f);
	char *printed = j.ok ? cJSON_Print(root) : NULL;
	cJSON_Delete(root);
	if (!printed)
		return NULL;
	pm_sbuf b = { 0 };
	pmi_sbuf_printf(&b, "%s\n", printed);
	cJSON_free(printed);
	return pmi_sbuf_take(&b);
}
