// throw_cost.cpp — issue 16 (1): the time of one C++ throw and catch, at
// three stack depths.  Built twice: plain, and linked with libpostmortem,
// whose __cxa_throw hook keeps each throw's type, what() and backtrace
// (reporter/capture/cxx_throw.c); throw_cost.py prints the two side by side.
//
// usage: bench_throw_cost_{plain,hooked} [ITERATIONS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

static volatile int sink;

__attribute__((noinline)) static void
dive(int depth)
{
	if (depth <= 1)
		throw std::runtime_error("bench");
	dive(depth - 1);
	sink = sink + 1; // not a tail call: each level keeps its frame
}

static double
ns_per_throw(int depth, long iterations)
{
	auto start = std::chrono::steady_clock::now();
	for (long i = 0; i < iterations; i++) {
		try {
			dive(depth);
		} catch (const std::runtime_error &) {
			sink = sink + 1;
		}
	}
	std::chrono::duration<double, std::nano> d = std::chrono::steady_clock::now() - start;
	return d.count() / (double)iterations;
}

int
main(int argc, char **argv)
{
	long iterations = argc > 1 ? std::atol(argv[1]) : 20000;
	const int depths[] = { 1, 10, 50 };
	for (int depth : depths) {
		double v[7];
		for (double &x : v)
			x = ns_per_throw(depth, iterations);
		std::sort(v, v + 7);
		std::printf("%d %.0f\n", depth, v[3]);
	}
	return 0;
}
