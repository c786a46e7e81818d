/*
 * write_golden.c — writes the writers' golden files: `write_golden DIR`
 * renders each model of golden_render.c as DIR/<name>.crash and .json.
 * Run once, from the writers the files are to pin (tests/golden/README.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/golden_render.h"

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	static const pm_format formats[] = { PM_FORMAT_TEXT, PM_FORMAT_JSON };
	for (size_t m = 0; m < golden_model_count; m++) {
		pm_report r;
		pm_report_init(&r);
		golden_models[m].build(&r);
		for (size_t i = 0; i < 2; i++) {
			size_t len;
			char *s = golden_render(&r, formats[i], 64 * 1024, &len);
			char path[4096];
			snprintf(path, sizeof path, "%s/%s%s", argv[1], golden_models[m].name, golden_ext(formats[i]));
			FILE *f = fopen(path, "wb");
			if (!s || !f || fwrite(s, 1, len, f) != len || fclose(f) != 0) {
				fprintf(stderr, "write_golden: %s: failed\n", path);
				return 1;
			}
			free(s);
		}
		pm_report_free(&r);
	}
	return 0;
}
