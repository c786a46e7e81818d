#include "spotlight_util.h"

#include <criterion/criterion.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* How long a server may take to listen, and a command to say what it was asked. */
enum { START_MS = 30000, CLI_MS = 30000, PAGE_MS = 60000, STREAM_MS = 30000 };

/* The process groups started here and not yet reaped. */
static pid_t running[8];

static void
track(pid_t pid, bool on)
{
	for (size_t i = 0; i < sizeof running / sizeof running[0]; i++)
		if (on ? running[i] == 0 : running[i] == pid) {
			running[i] = on ? pid : 0;
			return;
		}
	cr_assert(!on, "more than %zu Spotlight processes at once", sizeof running / sizeof running[0]);
}

static void
kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
	track(pid, false);
}

void
spotlight_stop_all(void)
{
	for (size_t i = 0; i < sizeof running / sizeof running[0]; i++)
		if (running[i])
			kill_group(running[i]);
}

static const char *
node_modules(void)
{
	const char *m = getenv("PM_NODE_MODULES");
	char probe[4096];
	snprintf(probe, sizeof probe, "%s/@spotlightjs/spotlight/package.json", m ? m : "");
	cr_assert(m && access(probe, R_OK) == 0,
	          "Spotlight's npm packages are not in %s (tests/meson.build runs npm ci for "
	          "tests/ecosystem/spotlight/package.json: see the build log)", m ? m : "$PM_NODE_MODULES");
	return m;
}

static uint64_t
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * `node SCRIPT ARGS...` in dir, in a group of its own that dies with us;
 * standard output to out_fd, standard error appended to dir/spotlight.log.
 */
static pid_t
spawn_node(const char *dir, const char *script, const char *const *args, int out_fd)
{
	const char *argv[24] = { "node", script };
	size_t n = 2;
	for (; args && *args; args++) {
		cr_assert_lt(n, sizeof argv / sizeof argv[0] - 1);
		argv[n++] = *args;
	}
	argv[n] = NULL;
	char log[4096];
	snprintf(log, sizeof log, "%s/spotlight.log", dir);
	setenv("PM_NODE_MODULES", node_modules(), 1);
	pid_t parent = getpid(), pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int err = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		if (getppid() != parent || err < 0 || chdir(dir) != 0 || dup2(out_fd, 1) < 0 || dup2(err, 2) < 0)
			_exit(126);
		execvp("node", (char *const *)argv);
		static const char msg[] = "cannot run node: is it installed (make deps)?\n";
		(void)!write(2, msg, sizeof msg - 1);
		_exit(127);
	}
	setpgid(pid, pid);
	track(pid, true);
	return pid;
}

static char *
log_of(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/spotlight.log", dir);
	return access(path, R_OK) == 0 ? pm_test_slurp(path, NULL) : strdup("(no log)");
}

void
spotlight_start(spotlight *s)
{
	s->dir = pm_test_tmpdir();
	s->port = 0;
	char log[4096];
	snprintf(log, sizeof log, "%s/spotlight.log", s->dir);
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	/* Port 0: the kernel picks a free one, and Spotlight logs which. */
	static const char *const args[] = { "-p", "0", NULL };
	s->pid = spawn_node(s->dir, pm_test_source("tests/ecosystem/spotlight/spotlight.mjs"), args, fd);
	close(fd);
	for (uint64_t end = now_ms() + START_MS; !s->port && now_ms() < end;) {
		char *text = log_of(s->dir);
		const char *at = strstr(text, "Spotlight listening on ");
		if (at)
			s->port = (unsigned)strtoul(at + strlen("Spotlight listening on "), NULL, 10);
		free(text);
		if (!s->port && waitpid(s->pid, NULL, WNOHANG) == s->pid) {
			track(s->pid, false);
			cr_assert_fail("Spotlight ended before it listened:\n%s", log_of(s->dir));
		}
		struct timespec ts = { 0, 50000000 };
		nanosleep(&ts, NULL);
	}
	cr_assert(s->port, "Spotlight did not listen within %d s:\n%s", START_MS / 1000, log_of(s->dir));
}

void
spotlight_stop(spotlight *s)
{
	kill_group(s->pid);
	pm_test_rmdir(s->dir);
	s->dir = NULL;
}

char *
spotlight_dsn_args(const spotlight *s, const char *key, unsigned project)
{
	char *args;
	cr_assert(asprintf(&args, "--dsn http://%s@127.0.0.1:%u/%u", key, s->port, project) > 0);
	return args;
}

/* Run a script, reading its standard output until done() (NULL: its end) or ms pass; *status as waitpid's. */
static char *
run_node(const spotlight *s, const char *script, const char *const *args, bool (*done)(const char *, void *),
         void *ctx, int ms, int *status)
{
	int p[2];
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = spawn_node(s->dir, script, args, p[1]);
	close(p[1]);
	size_t len = 0, cap = 4096;
	char *out = malloc(cap);
	out[0] = '\0';
	uint64_t end = now_ms() + (uint64_t)ms;
	while (!(done && done(out, ctx))) {
		uint64_t t = now_ms();
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		if (t >= end || poll(&pfd, 1, (int)(end - t)) <= 0)
			break;
		if (cap - len < 2048)
			cr_assert(out = realloc(out, cap *= 2));
		ssize_t n = read(p[0], out + len, cap - len - 1);
		if (n <= 0)
			break;
		out[len += (size_t)n] = '\0';
	}
	close(p[0]);
	/* A command that said enough is stopped; a script that ended is reaped, within the time it had. */
	*status = -1;
	for (;;) {
		if (waitpid(pid, status, WNOHANG) == pid) {
			track(pid, false);
			break;
		}
		if ((done && done(out, ctx)) || now_ms() >= end) {
			kill_group(pid);
			break;
		}
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	return out;
}

char *
spotlight_cli(const spotlight *s, const char *const *args, bool (*done)(const char *out, void *ctx), void *ctx)
{
	char port[16];
	snprintf(port, sizeof port, "%u", s->port);
	const char *argv[20];
	size_t n = 0;
	for (; args && *args && n < sizeof argv / sizeof argv[0] - 3; args++)
		argv[n++] = *args;
	argv[n++] = "-p";
	argv[n++] = port;
	argv[n] = NULL;
	int status;
	return run_node(s, pm_test_source("tests/ecosystem/spotlight/spotlight.mjs"), argv, done, ctx, CLI_MS, &status);
}

char *
spotlight_error_page(const spotlight *s, const char *event_id, const char *screenshot, char **why)
{
	char port[16];
	snprintf(port, sizeof port, "%u", s->port);
	const char *argv[] = { port, event_id, screenshot, NULL };
	int status;
	char *out = run_node(s, pm_test_source("tests/ecosystem/spotlight/error_page.mjs"), argv, NULL, NULL, PAGE_MS,
	                     &status);
	*why = NULL;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return out;
	free(out);
	*why = log_of(s->dir);
	return NULL;
}

/* The stream read so far: its bytes, the envelopes parsed from whole events, when to stop. */
typedef struct stream {
	char *text;
	size_t len, used;
	cJSON *envelopes;
	bool (*done)(const cJSON *, void *);
	void *ctx;
	uint64_t end_ms;
} stream;

/* Take every whole event ("...\n\n") of the text: its data line is one envelope. */
static void
take_events(stream *st)
{
	for (char *ev; (ev = strstr(st->text + st->used, "\n\n")) != NULL;) {
		*ev = '\0';
		const char *block = st->text + st->used;
		st->used = (size_t)(ev + 2 - st->text);
		const char *data = strstr(block, "data: ");
		if (!strstr(block, "event: application/x-sentry-envelope") || !data)
			continue;
		cJSON *env = cJSON_Parse(data + strlen("data: "));
		cr_assert(env, "Spotlight streamed an envelope that is not JSON: %.200s", data);
		cJSON_AddItemToArray(st->envelopes, env);
	}
}

static size_t
on_stream(char *p, size_t size, size_t n, void *ctx)
{
	stream *st = ctx;
	size_t k = size * n;
	cr_assert(st->text = realloc(st->text, st->len + k + 1));
	memcpy(st->text + st->len, p, k);
	st->text[st->len += k] = '\0';
	take_events(st);
	return k;
}

/* Ends the transfer once the caller has what it needs, or the time is up. */
static int
stream_progress(void *ctx, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	(void)a, (void)b, (void)c, (void)d;
	stream *st = ctx;
	return (st->done && st->done(st->envelopes, st->ctx)) || now_ms() >= st->end_ms;
}

cJSON *
spotlight_stream(const spotlight *s, bool (*done)(const cJSON *envelopes, void *ctx), void *ctx)
{
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%u/stream", s->port);
	stream st = { .envelopes = cJSON_CreateArray(), .done = done, .ctx = ctx, .end_ms = now_ms() + STREAM_MS };
	CURL *c = curl_easy_init();
	cr_assert(c && st.envelopes);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_stream);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &st);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, stream_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, &st);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_perform(c); /* ends when stream_progress says so: an "aborted" transfer */
	curl_easy_cleanup(c);
	free(st.text);
	return st.envelopes;
}
