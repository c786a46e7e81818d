/*
 * symb_run.c — run one symbolizer as a child process (standard input from a
 * file, standard output captured) with its wall time, time to the first
 * output byte and peak memory; and read what it printed.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "symb_bench.h"

extern char **environ;

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
collect(int fd, double t0, sb_proc *p)
{
	size_t cap = 1 << 20;
	p->out = malloc(cap + 1);
	p->len = 0;
	ssize_t got;
	while (p->out && (got = read(fd, p->out + p->len, cap - p->len)) > 0) {
		if (p->len == 0)
			p->first_s = now() - t0;
		p->len += (size_t)got;
		if (p->len == cap) {
			char *bigger = realloc(p->out, (cap *= 2) + 1);
			if (!bigger)
				free(p->out);
			p->out = bigger;
		}
	}
	if (p->out)
		p->out[p->len] = '\0';
}

bool
sb_run(char *const argv[], const char *in_path, sb_proc *p)
{
	int pipefd[2];
	memset(p, 0, sizeof *p);
	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return false;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, in_path, O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	double t0 = now();
	int err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (err == 0)
		collect(pipefd[0], t0, p);
	close(pipefd[0]);
	if (err != 0)
		return false;
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) != pid)
		return false;
	p->wall_s = now() - t0;
	p->maxrss_kb = ru.ru_maxrss;
	return p->out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

char *
sb_frame_text(char *prev, const char *func, const char *file, uint32_t line)
{
	char *s;
	if (asprintf(&s, "%s%s%s @ %s:%u", prev ? prev : "", prev ? " <- " : "", func ? func : "??",
	             file ? file : "??", line) < 0)
		s = NULL;
	free(prev);
	return s;
}

static bool
is_address_line(const char *s, size_t n)
{
	if (n < 3 || s[0] != '0' || s[1] != 'x')
		return false;
	for (size_t i = 2; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]))
			return false;
	return true;
}

/* Cut a trailing ":<digits>" off s[0..*n); true when there was one. */
static bool
cut_number(const char *s, size_t *n, uint32_t *value)
{
	size_t i = *n;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i == *n || i == 0 || s[i - 1] != ':')
		return false;
	*value = (uint32_t)strtoul(s + i, NULL, 10);
	*n = i - 1;
	return true;
}

/* "file:line[:column]" (or "file:line (discriminator N)") into file and line. */
static char *
location(sb_style style, const char *s, size_t n, uint32_t *line)
{
	const char *disc = style == SB_GNU ? strstr(s, " (discriminator ") : NULL;
	if (disc && (size_t)(disc - s) < n)
		n = (size_t)(disc - s);
	uint32_t col, ln = 0;
	size_t m = n;
	if (style != SB_GNU && cut_number(s, &m, &col) && cut_number(s, &m, &ln))
		n = m;
	else if (!cut_number(s, &n, &ln) && n >= 2 && s[n - 1] == '?' && s[n - 2] == ':')
		n -= 2;
	*line = ln;
	return n == 2 && s[0] == '?' && s[1] == '?' ? NULL : strndup(s, n);
}

static char *
function(sb_style style, const char *s, size_t n)
{
	const char *inl = style == SB_ELFUTILS ? strstr(s, " inlined at ") : NULL;
	if (inl && (size_t)(inl - s) < n)
		n = (size_t)(inl - s);
	return n == 2 && s[0] == '?' && s[1] == '?' ? NULL : strndup(s, n);
}

size_t
sb_parse(sb_style style, const char *out, size_t len, char **answers, const size_t *index, size_t count)
{
	size_t k = 0;
	bool started = false;
	char *func = NULL;
	bool want_func = true;
	for (const char *p = out, *end = out + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (is_address_line(p, n)) {
			if (started && ++k == count)
				break;
			started = true;
			want_func = true;
		} else if (n > 0 && started) {
			if (want_func) {
				func = function(style, p, n);
			} else {
				uint32_t line;
				char *file = location(style, p, n, &line);
				answers[index[k]] = sb_frame_text(answers[index[k]], func, file, line);
				free(file);
				free(func);
				func = NULL;
			}
			want_func = !want_func;
		}
		p += n + 1;
	}
	free(func);
	return started ? (k < count ? k + 1 : k) : 0;
}
