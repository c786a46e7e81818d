/*
 * read_text_context.c — the app's own sections of a postmortem .crash:
 * "Annotations:" ("  key: value") and "Breadcrumbs:" ("  <time>  message"),
 * as write_text.c writes them (docs/text-format.md, "App context").
 */
#include "model.h"
#include "read_text.h"

#include <string.h>

void
pmi_tx_begin_annotations(tx_parser *p, tx_span value)
{
	(void)value;
	pmi_tx_begin_section(p, TX_ANNOTATIONS);
}

void
pmi_tx_begin_crumbs(tx_parser *p, tx_span value)
{
	(void)value;
	pmi_tx_begin_section(p, TX_CRUMBS);
}

/* The line without its two-space indent; false when it has none (the section ended). */
static bool
indented(tx_span raw, tx_span *rest)
{
	if (raw.n < 3 || raw.p[0] != ' ' || raw.p[1] != ' ')
		return false;
	*rest = (tx_span){ raw.p + 2, raw.n - 2 };
	if (rest->n && rest->p[rest->n - 1] == '\r')
		rest->n--;
	return true;
}

/* Room for one more element of a growing array of the report; NULL when full. */
static void *
push(tx_parser *p, void **arr, uint32_t *count, uint32_t *cap, size_t elem)
{
	if (*count >= TX_MAX_LINES)
		return NULL;
	char *a = pmi_tx_grow(p->r->arena, *arr, *count, cap, elem);
	if (!a)
		return NULL;
	*arr = a;
	return a + (size_t)(*count)++ * elem;
}

bool
pmi_tx_annotation_line(tx_parser *p, tx_span raw)
{
	tx_span t;
	if (!indented(raw, &t))
		return false;
	const char *colon = memchr(t.p, ':', t.n);
	pm_report *r = p->r;
	if (!colon || colon + 1 >= t.p + t.n || colon[1] != ' ')
		return true;
	pm_kv *kv = push(p, (void **)&r->annotations, &r->annotation_count, &p->annotation_cap, sizeof *kv);
	if (kv) {
		size_t kn = (size_t)(colon - t.p);
		kv->key = pmi_tx_strndup(r->arena, t.p, kn);
		kv->value = pmi_tx_strndup(r->arena, colon + 2, t.n - kn - 2);
	}
	return true;
}

/* The time is the first three words: date, time of day, offset. */
bool
pmi_tx_crumb_line(tx_parser *p, tx_span raw)
{
	tx_span t;
	if (!indented(raw, &t))
		return false;
	size_t end = 0;
	for (int words = 0; words < 3; words++) {
		while (end < t.n && t.p[end] == ' ')
			end++;
		while (end < t.n && t.p[end] != ' ')
			end++;
	}
	pm_report *r = p->r;
	pm_time time = { 0 };
	if (end + 2 > t.n || t.p[end] != ' ' || t.p[end + 1] != ' ' || !pmi_tx_time((tx_span){ t.p, end }, &time))
		return true;
	pm_crumb *c = push(p, (void **)&r->breadcrumbs, &r->breadcrumb_count, &p->crumb_cap, sizeof *c);
	if (c) {
		c->time = time;
		c->message = pmi_tx_strndup(r->arena, t.p + end + 2, t.n - end - 2);
	}
	return true;
}
