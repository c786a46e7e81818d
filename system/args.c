/*
 * args.c — the handler's arguments: the values of PM_SYSTEM_SPECIFIERS, in
 * that order, as the kernel expanded them (%F, the pidfd, may be missing
 * or empty: a pattern from before it, a kernel before 6.16).  NOT AS-safe.
 */
#include "system.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool
number(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static bool
copy(const char *s, char *out, size_t cap)
{
	size_t n = strlen(s);
	if (n >= cap)
		return false;
	memcpy(out, s, n + 1);
	return true;
}

bool
pmi_crash_args_parse(int argc, char **argv, pm_crash_args *a, char *why, size_t cap)
{
	/* %F last: absent from a pattern written before it, "" where the kernel does not know it. */
	enum { WANT = 14 };
	a->pidfd = -1;
	if (argc != WANT && argc != WANT - 1) {
		snprintf(why, cap, "%d arguments, not the %d of \"%s\"", argc, WANT, PM_SYSTEM_SPECIFIERS);
		return false;
	}
	int64_t v[9];
	static const int64_t hi[9] = { INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, UINT32_MAX, UINT32_MAX, 128,
	                               INT64_MAX, 2 };
	for (int i = 0; i < 9; i++)
		if (!number(argv[i], i == 7 ? INT64_MIN : 0, hi[i], &v[i])) {
			snprintf(why, cap, "argument %d (%.40s) is not a number in range", i + 1, argv[i]);
			return false;
		}
	char *end;
	errno = 0;
	a->core_limit = strtoull(argv[9], &end, 10);
	if (errno || end == argv[9] || *end) {
		snprintf(why, cap, "argument 10 (%.40s) is not a number", argv[9]);
		return false;
	}
	int64_t pidfd = -1;
	if (argc == WANT && argv[13][0] && !number(argv[13], 3, INT32_MAX, &pidfd)) {
		snprintf(why, cap, "argument 14 (%.40s) is not a descriptor", argv[13]);
		return false;
	}
	a->pidfd = (int)pidfd;
	a->pid = (int)v[0];
	a->pid_ns = (int)v[1];
	a->tid = (int)v[2];
	a->tid_ns = (int)v[3];
	a->uid = (uint32_t)v[4];
	a->gid = (uint32_t)v[5];
	a->signal = (int)v[6];
	a->time = v[7];
	a->dumpable = (int)v[8];
	if (a->pid <= 0 || !copy(argv[10], a->host, sizeof a->host) || !copy(argv[11], a->comm, sizeof a->comm) ||
	    !copy(argv[12], a->exe_bang, sizeof a->exe_bang)) {
		snprintf(why, cap, "a pid of 0, or a host, comm or executable name too long");
		return false;
	}
	return true;
}
