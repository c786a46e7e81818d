/* pm_config.upload: the destination given in code (argv[1], a URL), with two
 * headers and no gzip, instead of the environment's; then a crash. */
#include "postmortem.h"

int *volatile null_pointer;

int
main(int argc, char **argv)
{
	static const char *const headers[] = { "Authorization: Bearer t0ken-in-code", "X-Second: 2" };
	pm_upload_options up = { .url = argc > 1 ? argv[1] : NULL, .headers = headers, .header_count = 2, .no_gzip = true };
	pm_config cfg = { .upload = &up };
	if (pm_install(&cfg) != 0)
		return 2;
	return *null_pointer;
}
