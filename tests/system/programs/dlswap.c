/*
 * dlswap.c — a process whose mapped files a test swaps under it while it
 * is dumped (tests/system/test_core_privsep.py): it loads the library
 * argv[1] (dlopen), maps the regular files argv[2..] (where root's files,
 * a device node and a FIFO will be found by their paths once the test has
 * swapped the directory), then calls into the library, which dereferences
 * NULL.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	void *lib = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL, *sym = lib ? dlsym(lib, "swap_enter") : NULL;
	void (*enter)(void) = NULL;
	memcpy(&enter, &sym, sizeof enter); /* ISO C has no cast from an object pointer to a function's */
	if (!enter) {
		fprintf(stderr, "dlswap: %s\n", dlerror());
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		if (fd < 0 || mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
			perror(argv[i]);
			return 2;
		}
		close(fd);
	}
	enter();
	return 0;
}
