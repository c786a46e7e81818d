/* Loaded by dlopen_after.c once postmortem is installed. */
int *volatile late_null;

__attribute__((noinline, noclone)) void
late_library_crash(void)
{
	*late_null = 1;
	__asm__ volatile("" ::: "memory");
}
