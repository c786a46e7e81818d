/*
 * timing.c — see timing.h.
 */
#include "timing.h"

#include <stdlib.h>
#include <time.h>

double
timing_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void
timing_sort(double *v, size_t n)
{
	qsort(v, n, sizeof *v, by_value);
}

double
timing_quantile(double *v, size_t n, double q)
{
	timing_sort(v, n);
	return v[(size_t)(q * (double)(n - 1) + 0.5)];
}
