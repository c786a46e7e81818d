/*
 * A program that never heard of postmortem: a read through a NULL pointer
 * (SIGSEGV).  Only LD_PRELOAD of libpostmortem-preload.so can report it.
 */
#include <stdio.h>

int *volatile plain_null;

__attribute__((noinline)) static int
plain_crash_here(void)
{
	return *plain_null;
}

int
main(int argc, char **argv)
{
	(void)argv;
	printf("plain_null_deref: about to crash\n");
	fflush(stdout);
	return plain_crash_here() + argc;
}
