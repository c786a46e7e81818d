/*
 * no_install.c — for the store's fuzz target, which links no reporter
 * (under its pthread_create wrapper LeakSanitizer takes libFuzzer's own
 * thread start for a leak): no pm_install ran, so the store goes by the
 * directory it is given.
 */
#include "postmortem.h"

const char *
pm_reports_dir(void)
{
	return "";
}
