/* A library loaded after pm_install crashes: the report must list it (the
 * image table is read at crash time) and name its function. */
#include <dlfcn.h>
#include <stdio.h>

#include "postmortem.h"

int
main(int argc, char **argv)
{
	if (argc < 2 || pm_install(NULL) != 0)
		return 2;
	void *lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "%s\n", dlerror());
		return 3;
	}
	void *sym = dlsym(lib, "late_library_crash");
	void (*fn)(void);
	__builtin_memcpy(&fn, &sym, sizeof sym);
	fn();
	return 0;
}
