/*
 * as_symtab_names.c — AS-SAFE: read from an image's string table only the
 * names a finished table's entries need.
 *
 * The entries' name offsets are visited in string-table order and read in
 * runs: names less than PM_SYM_NAMES_GAP apart share one read, which ends
 * PM_SYM_NAME_TAIL bytes past the run's last name.  A name still running at
 * the end of its run (a long C++ name) is read again on its own, to its NUL,
 * so that every name is whole, as alias folding compares whole names.  The
 * copies go after the entries, each ending with a NUL; an entry whose name
 * did not fit or could not be read gets the empty name at names[0] and
 * marks the table truncated.
 */
#include <string.h>

#include "as_symbols_internal.h"

enum { LONG_NAME_CHUNK = 1024 };

typedef struct name_buf {
	char *p;
	size_t used, cap;
} name_buf;

static char no_room[1];

/* Read the name at string-table offset `off` to its NUL (or the table's
 * end) into b; its place in b, or 0 when it does not fit or the read fails. */
static size_t
read_whole_name(const pm_symtab *t, const pm_sym_names *src, uint64_t off, name_buf *b)
{
	size_t start = b->used, chunk = LONG_NAME_CHUNK;
	/* Each read twice the last: a name of n bytes takes about log2(n / 1024) reads. */
	for (; off < t->names_len; chunk *= 2) {
		size_t n = t->names_len - off < chunk ? (size_t)(t->names_len - off) : chunk;
		if (n >= b->cap - b->used || !src->read(src->ctx, src->at + off, b->p + b->used, n)) {
			b->used = start;
			return 0;
		}
		const char *nul = memchr(b->p + b->used, '\0', n);
		if (nul) {
			b->used = (size_t)(nul - b->p) + 1;
			return start;
		}
		b->used += n;
		off += n;
	}
	if (b->used == start || b->used >= b->cap) {
		b->used = start;
		return 0; /* off was past the table (not for a kept entry) */
	}
	b->p[b->used++] = '\0';
	return start;
}

/* The end of the run that starts at refs[i]: the index after its last name,
 * and in *to the string-table offset its read ends at, within the room left. */
static size_t
run_end(const pm_symtab *t, const pm_sym *refs, size_t count, size_t i, size_t room, uint64_t *to)
{
	uint64_t from = refs[i].start;
	size_t j = i + 1;
	*to = from + PM_SYM_NAME_TAIL;
	while (j < count && refs[j].start <= *to + PM_SYM_NAMES_GAP && refs[j].start + PM_SYM_NAME_TAIL - from < room)
		*to = refs[j++].start + PM_SYM_NAME_TAIL;
	if (*to > t->names_len)
		*to = t->names_len;
	return j;
}

/* Read refs[i..j) as one run [from, to) and point their entries at the copies. */
static void
read_run(pm_symtab *t, const pm_sym_names *src, const pm_sym *refs, size_t i, size_t j, uint64_t to,
         name_buf *b)
{
	uint64_t from = refs[i].start;
	size_t len = (size_t)(to - from), at = b->used;
	if (len >= b->cap - b->used || !src->read(src->ctx, src->at + from, b->p + at, len)) {
		for (size_t k = i; k < j; k++)
			t->syms[refs[k].size].name = 0;
		t->truncated = true;
		return;
	}
	b->p[at + len] = '\0';
	b->used += len + 1;
	for (size_t k = i; k < j; k++) {
		size_t local = at + (size_t)(refs[k].start - from), left = at + len - local;
		/* A name cut by the run's end is read again whole; the table's own end is its end. */
		if (to < t->names_len && !memchr(b->p + local, '\0', left))
			local = read_whole_name(t, src, refs[k].start, b);
		if (local == 0)
			t->truncated = true;
		t->syms[refs[k].size].name = (unsigned)local;
	}
}

/* Where the sorted offsets go, after the entries; NULL when they and a
 * byte of names past them do not fit. */
static pm_sym *
refs_place(const pm_symtab *t)
{
	char *after = (char *)(t->syms + t->count);
	char *at = after + (-(uintptr_t)after & (_Alignof(pm_sym) - 1));
	if (at >= t->end || (size_t)(t->end - at) / sizeof(pm_sym) <= t->count)
		return NULL;
	return (pm_sym *)(void *)at;
}

void
as_symtab_read_names(pm_symtab *t, const pm_sym_names *src)
{
	size_t n = t->count;
	pm_sym *refs = n > 0 ? refs_place(t) : NULL;
	t->names = no_room;
	if (!refs) {
		for (size_t i = 0; i < n; i++)
			t->syms[i].name = 0;
		t->truncated = t->truncated || n > 0;
		return;
	}
	/* The offsets in string-table order, each with its entry's index. */
	for (size_t i = 0; i < n; i++)
		refs[i] = (pm_sym){ .start = t->syms[i].name, .size = (uint32_t)i };
	as_symtab_sort(refs, n);
	name_buf b = { .p = (char *)(refs + n), .used = 1 };
	b.cap = (size_t)(t->end - b.p);
	b.p[0] = '\0';
	t->names = b.p;
	for (size_t i = 0; i < n;) {
		uint64_t to;
		size_t j = run_end(t, refs, n, i, b.cap - b.used, &to);
		read_run(t, src, refs, i, j, to, &b);
		i = j;
	}
}
