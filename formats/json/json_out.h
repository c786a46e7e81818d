/*
 * json_out.h — AS-SAFE JSON emitter with the JSON twin's fixed layout.
 *
 * Two-space indentation, one member or element per line; a container opened
 * "one_line" (and everything inside it) stays on one line with ", " between
 * members.  Nothing is allocated: each open container's caller keeps what
 * pmi_jw_close needs on its own stack.
 */
#ifndef PM_FORMATS_JSON_OUT_H
#define PM_FORMATS_JSON_OUT_H

#include "model.h"

typedef struct pm_jw {
	pm_out *o;
	unsigned depth;  /* containers open */
	bool empty;      /* the innermost one has no member yet */
	bool one_line;   /* the innermost one is written on a single line */
	uint8_t os;      /* the report's pm_os: how images' debug ids read */
	/* Strings written before that needed no escape: they go in again
	 * without being measured or checked. */
	pmi_lens plain;
} pm_jw;

/* RFC 8259 string of s[0..n), quotes included. */
void pmi_jw_string(pm_out *o, const char *s, size_t n);
/* RFC 8259 string of s up to its NUL, quotes included. */
void pmi_jw_cstring(pm_jw *w, const char *s);
/* Whether s[0..n) needs no escape. */
bool pmi_jw_plain(const char *s, size_t n);
/* Whether s needs no escape, and then its length in *n. */
bool pmi_jw_plain_len(pm_jw *w, const char *s, size_t *n);
/* The most pmi_jw_sep writes. */
static inline size_t
pmi_jw_sep_max(const pm_jw *w)
{
	return 2 + (w->one_line ? 0 : 2 * (size_t)w->depth);
}

/* Separator and indentation before the next member or array element,
 * written at q (room for pmi_jw_sep_max bytes); returns their end. */
static inline char *
pmi_jw_sep(pm_jw *w, char *q)
{
	if (!w->empty)
		*q++ = ',';
	if (!w->one_line) {
		*q++ = '\n';
		for (unsigned i = 0; i < w->depth; i++, q += 2)
			memcpy(q, "  ", 2);
	} else if (!w->empty) {
		*q++ = ' ';
	}
	w->empty = false;
	return q;
}

/* pmi_jw_next when the buffer has no room for it. */
void pmi_jw_next_slow(pm_jw *w);

/* Separator and indentation before the next member or array element:
 * inline, as it comes before every frame and register. */
static inline void
pmi_jw_next(pm_jw *w)
{
	char *p = pmi_out_room(w->o, pmi_jw_sep_max(w));
	if (!p) {
		pmi_jw_next_slow(w);
		return;
	}
	pmi_out_wrote(w->o, pmi_jw_sep(w, p));
}
/* pmi_jw_next, then "key": — `key` is one of the writer's literals, which
 * need no escape: it is copied, not scanned. */
void pmi_jw_key(pm_jw *w, const char *key);

/* Open '{' or '['; pass the result to the matching pmi_jw_close. */
bool pmi_jw_open(pm_jw *w, char bracket, bool one_line);
void pmi_jw_close(pm_jw *w, char bracket, bool parent_one_line);

/* Members.  pmi_jw_str skips a NULL string, pmi_jw_flag a false flag, pmi_jw_strings an empty list. */
void pmi_jw_str(pm_jw *w, const char *key, const char *s);
void pmi_jw_u64(pm_jw *w, const char *key, uint64_t v);
void pmi_jw_i64(pm_jw *w, const char *key, int64_t v);
void pmi_jw_flag(pm_jw *w, const char *key, bool set);
/* An array of strings, one a line; a NULL element is written null. */
void pmi_jw_strings(pm_jw *w, const char *key, const char *const *s, uint32_t n);

#endif
