/*
 * timing.h — the clock and the order statistics the install benchmarks
 * print their tables with.
 */
#ifndef PM_BENCH_TIMING_H
#define PM_BENCH_TIMING_H

#include <stddef.h>

/* CLOCK_MONOTONIC in microseconds. */
double timing_now_us(void);
/* Sort v ascending. */
void timing_sort(double *v, size_t n);
/* The sample at quantile q (0: the least, 1: the greatest) of v, which is sorted here. */
double timing_quantile(double *v, size_t n, double q);

#endif
