/*
 * demangle.c — C++ names as people read them.
 *
 * elfutils has no demangler of its own: its tools (eu-addr2line -C, eu-stack)
 * call __cxa_demangle from libstdc++, and so does this file, which is why
 * the library links libstdc++.  binutils' addr2line uses the same code
 * (libiberty's cp-demangle), so names read as they do there.
 */
#include <stdlib.h>
#include <string.h>

#include "symb.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *
pm_sy_demangle(const char *s)
{
	if (strncmp(s, "_Z", 2) != 0)
		return NULL;
	int status = 0;
	char *plain = __cxa_demangle(s, NULL, NULL, &status);
	if (status != 0) {
		free(plain);
		return NULL;
	}
	return plain;
}
