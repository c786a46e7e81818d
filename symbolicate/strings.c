/*
 * strings.c — copies of names and file names in the report's arena, one per
 * distinct string of the debug file.  A relative source file is put under its
 * unit's DW_AT_comp_dir, as addr2line, eu-addr2line and llvm-symbolizer print
 * it (Debian's packages build with -fdebug-prefix-map, which gives the odd
 * but faithful "./nptl/./nptl/pthread_kill.c").  Frames of many threads sit in the same
 * few functions, so the key is the string's address inside libelf/libdw's
 * mapped data, which is stable while the image is open.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symb.h"
#include "model.h"

static size_t
slot_of(const char *key, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15u;
	return (size_t)(h >> 20) & (cap - 1);
}

static bool
grow(pm_sy_strings *t)
{
	size_t cap = t->cap ? 2 * t->cap : 256;
	const char **keys = calloc(cap, sizeof *keys), **values = calloc(cap, sizeof *values);
	if (!keys || !values) {
		free(keys);
		free(values);
		return false;
	}
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->keys[i])
			continue;
		size_t j = slot_of(t->keys[i], cap);
		while (keys[j])
			j = (j + 1) & (cap - 1);
		keys[j] = t->keys[i];
		values[j] = t->values[i];
	}
	free(t->keys);
	free(t->values);
	t->keys = keys;
	t->values = values;
	t->cap = cap;
	return true;
}

/* The slot of key: where its copy is, or the empty slot for it; *ok is false when out of memory. */
static size_t
find(pm_sy_strings *t, const char *key, bool *ok)
{
	*ok = 2 * (t->count + 1) <= t->cap || grow(t);
	if (!*ok)
		return 0;
	size_t i = slot_of(key, t->cap);
	while (t->keys[i] && t->keys[i] != key)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static const char *
remember(pm_sy_strings *t, size_t i, const char *key, const char *copy)
{
	if (copy) {
		t->keys[i] = key;
		t->values[i] = copy;
		t->count++;
	}
	return copy;
}

const char *
pmi_sy_string(pm_sy_strings *t, const char *s, bool demangle)
{
	bool ok;
	size_t i = find(t, s, &ok);
	if (!ok || t->keys[i])
		return ok ? t->values[i] : NULL;
	char *plain = demangle ? pmi_sy_demangle(s) : NULL;
	const char *c = pmi_arena_strdup(t->arena, plain ? plain : s);
	free(plain);
	return remember(t, i, s, c);
}

const char *
pmi_sy_path(pm_sy_strings *t, const char *file, const char *dir)
{
	if (file[0] == '/' || !dir)
		return pmi_sy_string(t, file, false);
	bool ok;
	size_t i = find(t, file, &ok);
	if (!ok || t->keys[i])
		return ok ? t->values[i] : NULL;
	size_t n = strlen(dir) + strlen(file) + 2;
	char *c = pmi_arena_alloc(t->arena, n, 1);
	if (c)
		snprintf(c, n, "%s/%s", dir, file);
	return remember(t, i, file, c);
}

void
pmi_sy_strings_free(pm_sy_strings *t)
{
	free(t->keys);
	free(t->values);
	t->keys = t->values = NULL;
	t->count = t->cap = 0;
}
