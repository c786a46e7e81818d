#include "sample.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "postmortem.h"

int *volatile sample_null;
void (*volatile sample_null_fn)(void);
volatile int sample_zero;

void
sample_install(void)
{
	if (pm_install(NULL) != 0) {
		fprintf(stderr, "sample: pm_install failed: %s\n", strerror(errno));
		exit(2);
	}
}
