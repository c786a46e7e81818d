/* install -> uninstall -> install must leave a working reporter;
 * with "uninstalled", the crash after pm_uninstall must leave no report
 * and die as if postmortem had never been there. */
#include <string.h>

#include "postmortem.h"

int *volatile null_pointer;

int
main(int argc, char **argv)
{
	bool end_uninstalled = argc > 1 && strcmp(argv[1], "uninstalled") == 0;
	if (pm_install(NULL) != 0)
		return 2;
	pm_uninstall();
	if (!end_uninstalled && pm_install(NULL) != 0)
		return 3;
	return *null_pointer;
}
