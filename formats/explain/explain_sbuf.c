/*
 * explain_sbuf.c — the growing string both renderings of a diagnosis write
 * into (explain.h).
 */
#include "explain.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void
pmi_sbuf_printf(pm_sbuf *b, const char *fmt, ...)
{
	if (b->failed)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = true;
		return;
	}
	if (b->p && (size_t)n < b->cap - b->len) {
		b->len += (size_t)n;
		return;
	}
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len <= (size_t)n)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p) {
		b->failed = true;
		return;
	}
	b->p = p;
	b->cap = cap;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *
pmi_sbuf_take(pm_sbuf *b)
{
	char *p = b->failed ? NULL : b->p ? b->p : calloc(1, 1);
	if (b->failed)
		free(b->p);
	*b = (pm_sbuf){ 0 };
	return p;
}
