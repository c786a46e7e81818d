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

#include "out.h"

typedef struct pm_jw {
	pm_out *o;
	unsigned depth;  /* containers open */
	bool empty;      /* the innermost one has no member yet */
	bool one_line;   /* the innermost one is written on a single line */
	uint8_t os;      /* the report's pm_os: how images' debug ids read */
} pm_jw;

/* RFC 8259 string of s[0..n), quotes included. */
void pmi_jw_string(pm_out *o, const char *s, size_t n);
/* RFC 8259 string of s up to its NUL, quotes included. */
void pmi_jw_cstring(pm_out *o, const char *s);
/* Separator and indentation before the next member or array element. */
void pmi_jw_next(pm_jw *w);
/* pmi_jw_key when the buffer has no room for it. */
void pmi_jw_key_slow(pm_jw *w, const char *key, size_t n);

/*
 * pmi_jw_next, then "key": — `key` is one of the writer's literals, which
 * need no escape.  Inline, so that a key's length is known where it is
 * written and a member costs one room check and a few stores, not a scan
 * of its key (a JSON twin has about five keys a frame).
 */
static inline void
pmi_jw_key(pm_jw *w, const char *key)
{
	size_t n = strlen(key), indent = w->one_line ? 0 : 2 * (size_t)w->depth;
	char *p = pmi_out_room(w->o, indent + n + 6), *q = p;
	if (!p) {
		pmi_jw_key_slow(w, key, n);
		return;
	}
	if (!w->empty)
		*q++ = ',';
	if (!w->one_line) {
		*q++ = '\n';
		memset(q, ' ', indent);
		q += indent;
	} else if (!w->empty) {
		*q++ = ' ';
	}
	*q++ = '"';
	memcpy(q, key, n);
	memcpy(q + n, "\": ", 3);
	pmi_out_wrote(w->o, q + n + 3);
	w->empty = false;
}

/* Open '{' or '['; pass the result to the matching pmi_jw_close. */
bool pmi_jw_open(pm_jw *w, char bracket, bool one_line);
void pmi_jw_close(pm_jw *w, char bracket, bool parent_one_line);

/* Members.  pmi_jw_str skips a NULL string, pmi_jw_flag a false flag, pmi_jw_strings an empty list. */
static inline void
pmi_jw_str(pm_jw *w, const char *key, const char *s)
{
	if (!s)
		return;
	pmi_jw_key(w, key);
	pmi_jw_cstring(w->o, s);
}

static inline void
pmi_jw_u64(pm_jw *w, const char *key, uint64_t v)
{
	pmi_jw_key(w, key);
	pmi_out_u64(w->o, v);
}

static inline void
pmi_jw_i64(pm_jw *w, const char *key, int64_t v)
{
	pmi_jw_key(w, key);
	pmi_out_i64(w->o, v);
}

static inline void
pmi_jw_flag(pm_jw *w, const char *key, bool set)
{
	if (!set)
		return;
	pmi_jw_key(w, key);
	pmi_out_put(w->o, "true", 4);
}

/* An array of strings, one a line; a NULL element is written null. */
void pmi_jw_strings(pm_jw *w, const char *key, const char *const *s, uint32_t n);

#endif
