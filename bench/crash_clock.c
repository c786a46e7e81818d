#include "crash_clock.h"

#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "fault_counter.h"
#include "postmortem.h"

static int *volatile null_ptr;
static struct timespec fault_time;
/* The faulting thread's page faults (perf's software counter: faults taken,
 * not pages populated ahead) and its minor faults (getrusage: every page
 * made resident, populated or faulted), at the fault. */
static int fault_counter = -1;
static long minflt_at_fault;

/* AS-safe decimal: the callback runs in the crash handler, where stdio is off limits. */
static size_t
format_u64(char *out, uint64_t v)
{
	char tmp[24];
	size_t n = 0, k = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n > 0)
		out[k++] = tmp[--n];
	return k;
}

static void
on_crash(const pm_crash_info *info, void *ctx)
{
	struct timespec end;
	char line[256];
	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &end);
	int64_t ns = (int64_t)(end.tv_sec - fault_time.tv_sec) * 1000000000 + (end.tv_nsec - fault_time.tv_nsec);
	const pm_crash_phases *p = &info->phases;
	const uint64_t phases[] = { p->freeze, p->images, p->threads, p->symbols, p->write, p->fsync, p->minidump, p->upload };
	size_t n = format_u64(line, (uint64_t)ns);
	line[n++] = ' ';
	line[n++] = info->written ? '1' : '0';
	for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++) {
		line[n++] = ' ';
		n += format_u64(line + n, phases[i]);
	}
	line[n++] = '\n';
	if (write(STDOUT_FILENO, line, n) < 0)
		_exit(3);
	/* On stderr, which crash_vs_gdb.py does not parse: "faults TAKEN RESIDENT"
	 * (TAKEN -1 when perf counters are refused). */
	uint64_t taken = 0;
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	n = 0;
	memcpy(line, "faults ", 7);
	n = 7;
	if (fault_counter >= 0 && read(fault_counter, &taken, sizeof taken) == sizeof taken)
		n += format_u64(line + n, taken);
	else
		line[n++] = '-', line[n++] = '1';
	line[n++] = ' ';
	n += format_u64(line + n, (uint64_t)(ru.ru_minflt - minflt_at_fault));
	line[n++] = '\n';
	/* "fault_at NS": the fault on CLOCK_MONOTONIC, which every process reads alike, for a
	 * driver that times what happens after in other processes (upload_now.py). */
	memcpy(line + n, "fault_at ", 9);
	n += 9;
	n += format_u64(line + n, (uint64_t)fault_time.tv_sec * 1000000000u + (uint64_t)fault_time.tv_nsec);
	line[n++] = '\n';
	(void)!write(STDERR_FILENO, line, n);
}

int
crash_clock_install(uint32_t max_threads)
{
	pm_config cfg = { .on_crash = on_crash, .max_threads = max_threads };
	return pm_install(&cfg);
}

void
crash_clock_fault(void *unused)
{
	(void)unused;
	struct rusage ru;
	fault_counter = fault_counter_open(true);
	getrusage(RUSAGE_THREAD, &ru);
	minflt_at_fault = ru.ru_minflt;
	clock_gettime(CLOCK_MONOTONIC, &fault_time);
	*null_ptr = 1;
}
