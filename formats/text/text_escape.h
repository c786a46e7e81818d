/*
 * text_escape.h — how a name stays on its line in the .crash text
 * (text_escape.c; docs/text-format.md, "Escapes"): the writer's side is
 * AS-safe, the reader's undoes it.
 */
#ifndef PM_FORMATS_TEXT_ESCAPE_H
#define PM_FORMATS_TEXT_ESCAPE_H

#include "model.h"

/* Whether s[0..n) goes into the text as it is. */
bool pmi_text_plain(const char *s, size_t n);
/* s escaped (NULL: nothing); its length as written. */
void pmi_text_put(pm_out *o, const char *s);
/* The same, '[' escaped too: a name before " [pid]". */
void pmi_text_put_proc(pm_out *o, const char *s);
size_t pmi_text_len(const char *s);
/* s escaped, left-justified in a field of `width` (never truncated). */
void pmi_text_lpad(pm_out *o, const char *s, size_t width);
/* The escapes of s[0..n) undone in place; the new length (never more than n). */
size_t pmi_text_unescape(char *s, size_t n);

#endif
