/*
 * pattern.c — kernel.core_pattern as the kernel reads it: ours, and the one
 * it replaced, expanded for a crash the way the kernel would have expanded
 * it (core(5); fs/coredump.c's format_corename): a pipe's words split at
 * spaces before their specifiers are expanded, a file's path with
 * core_uses_pid's ".PID" when the pattern names no pid.  The values that
 * may hold a '/' (%h, %e, %E) come from the kernel already escaped.
 * NOT AS-safe.
 */
#include "system.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HANDLER_NAME "/postmortem-core-handler "

bool
pmi_pattern_ours(const char *handler, const char *dir, char *out, size_t cap)
{
	int n = dir ? snprintf(out, cap, "|%s -d %s %s", handler, dir, PM_SYSTEM_SPECIFIERS)
	            : snprintf(out, cap, "|%s %s", handler, PM_SYSTEM_SPECIFIERS);
	return n > 0 && (size_t)n < cap && n < PM_PATTERN_MAX;
}

bool
pmi_pattern_is_ours(const char *pattern)
{
	const char *sp = strchr(pattern, ' ');
	size_t k = strlen(HANDLER_NAME) - 1;
	return pattern[0] == '|' && sp && (size_t)(sp - pattern) >= k && memcmp(sp - k, HANDLER_NAME, k) == 0;
}

/* Append the expansion of specifier c to out; false when out is full. */
static bool
expand(char c, const pm_crash_args *a, const char *exe_name, int pidfd, char *out, size_t cap, size_t *at)
{
	char num[32];
	const char *s = num;
	switch (c) {
	case '%': s = "%"; break;
	case 'p': snprintf(num, sizeof num, "%d", a->pid_ns); break;
	case 'P': snprintf(num, sizeof num, "%d", a->pid); break;
	case 'i': snprintf(num, sizeof num, "%d", a->tid_ns); break;
	case 'I': snprintf(num, sizeof num, "%d", a->tid); break;
	case 'u': snprintf(num, sizeof num, "%" PRIu32, a->uid); break;
	case 'g': snprintf(num, sizeof num, "%" PRIu32, a->gid); break;
	case 'd': snprintf(num, sizeof num, "%d", a->dumpable); break;
	case 's': snprintf(num, sizeof num, "%d", a->signal); break;
	case 't': snprintf(num, sizeof num, "%" PRId64, a->time); break;
	case 'c': snprintf(num, sizeof num, "%" PRIu64, a->core_limit); break;
	case 'F': snprintf(num, sizeof num, "%d", pidfd); break;
	case 'h': s = a->host; break;
	case 'e': s = a->comm; break;
	case 'E': s = a->exe_bang; break;
	case 'f': s = exe_name; break;
	default: s = ""; break; /* the kernel drops what it does not know */
	}
	size_t n = strlen(s);
	if (n >= cap - *at)
		return false;
	memcpy(out + *at, s, n + 1);
	*at += n;
	return true;
}

/* Expand pattern[0..len) into out. */
static bool
expand_word(const char *p, size_t len, const pm_crash_args *a, const char *exe_name, int pidfd, char *out,
            size_t cap)
{
	size_t at = 0;
	out[0] = '\0';
	for (size_t i = 0; i < len; i++) {
		if (p[i] != '%') {
			if (at + 1 >= cap)
				return false;
			out[at++] = p[i];
			out[at] = '\0';
		} else if (i + 1 < len && !expand(p[++i], a, exe_name, pidfd, out, cap, &at))
			return false;
	}
	return true;
}

void
pmi_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

char **
pmi_pattern_argv(const char *pattern, const pm_crash_args *a, const char *exe_name, int pidfd)
{
	if (pattern[0] != '|')
		return NULL;
	size_t words = 0;
	const char *p = pattern + 1;
	for (const char *q = p; *q; q++)
		words += !isspace((unsigned char)*q) && (q == p || isspace((unsigned char)q[-1]));
	char **argv = calloc(words + 1, sizeof *argv);
	if (!argv || words == 0) {
		free(argv);
		return NULL;
	}
	size_t n = 0;
	while (*p) {
		while (*p && isspace((unsigned char)*p))
			p++;
		size_t len = 0;
		while (p[len] && !isspace((unsigned char)p[len]))
			len++;
		if (!len)
			break;
		char word[PATH_MAX + 256];
		if (!expand_word(p, len, a, exe_name, pidfd, word, sizeof word) || !(argv[n++] = strdup(word))) {
			pmi_argv_free(argv);
			return NULL;
		}
		p += len;
	}
	return argv;
}

bool
pmi_pattern_path(const char *pattern, const pm_crash_args *a, const char *exe_name, bool uses_pid, char *out,
                 size_t cap)
{
	if (pattern[0] == '|' || !expand_word(pattern, strlen(pattern), a, exe_name, -1, out, cap))
		return false;
	bool pid_in = false;
	for (const char *q = pattern; *q; q++)
		if (q[0] == '%' && q[1]) {
			pid_in |= q[1] == 'p';
			q++;
		}
	if (uses_pid && !pid_in) {
		size_t at = strlen(out);
		int k = snprintf(out + at, cap - at, ".%d", a->pid_ns);
		return k > 0 && (size_t)k < cap - at;
	}
	return out[0] != '\0';
}
