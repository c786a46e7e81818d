#include "dfd_util.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

char *
dfd_path(const dfd_lab *l, const char *rel)
{
	return symb_fmt("%s/%s", l->dir, rel);
}

/* new_build_id.py: a copy of in with its build id flipped; the new id into id. */
static void
renamed_copy(const char *in, const char *out, char *id, size_t cap)
{
	char *cmd = symb_fmt("python3 '%s' '%s' '%s'", pm_test_source("tests/symbolicate/new_build_id.py"), in, out);
	char *printed;
	int status = pm_test_run(cmd, &printed);
	cr_assert_eq(status, 0, "%s: %s", cmd, printed);
	snprintf(id, cap, "%.*s", (int)strcspn(printed, "\n"), printed);
	free(printed);
	free(cmd);
}

static void
add_libc(dfd_lab *l)
{
	/* The libc this test runs with is the one the program would. */
	void *self = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	struct link_map *map = NULL;
	cr_assert(self && dlinfo(self, RTLD_DI_LINKMAP, &map) == 0 && map->l_name[0] == '/', "where is libc?");
	const char *libc = map->l_name;
	const char *old = crash_readelf_build_id(libc);
	char *dbg = symb_fmt("/usr/lib/debug/.build-id/%.2s/%s.debug", old, old + 2);
	char *lib = dfd_path(l, "lib/libc.so.6"), *served = dfd_path(l, "serve/libc.debug");
	char again[sizeof l->libc_id];
	renamed_copy(libc, lib, l->libc_id, sizeof l->libc_id);
	renamed_copy(dbg, served, again, sizeof again);
	cr_assert_str_eq(again, l->libc_id, "libc and its debug file got different ids");
	symb_sh("chmod +x '%s'", lib);
	dlclose(self);
	free(dbg);
	free(lib);
	free(served);
}

void
dfd_lab_make(dfd_lab *l, const char *arg, unsigned flags)
{
	memset(l, 0, sizeof *l);
	l->dir = pm_test_tmpdir();
	const char *prog = symb_program("symb_c");
	bool with_libc = flags & DFD_LIBC;
	symb_sh("cd '%s' && mkdir bin lib serve work cache && objcopy --strip-%s '%s' bin/symb_c"
	        " && objcopy --only-keep-debug '%s' serve/symb_c.debug",
	        l->dir, flags & DFD_STRIP_ALL ? "all" : "debug", prog, prog);
	l->bin = dfd_path(l, "bin/symb_c");
	snprintf(l->id, sizeof l->id, "%s", crash_readelf_build_id(l->bin));
	if (with_libc)
		add_libc(l);
	char *env = symb_fmt("LD_LIBRARY_PATH=%s%s%s", with_libc ? l->dir : "", with_libc ? "/lib:" : "",
	                     pm_test_build("."));
	const char *envp[] = { env, NULL }, *args[] = { arg, NULL };
	crash_run_program(&l->run, l->bin, args, envp);
	l->json = l->run.json_path;
	free(env);
}

void
dfd_lab_free(dfd_lab *l)
{
	crash_run_free(&l->run);
	free(l->bin);
	pm_test_rmdir(l->dir);
}

void
dfd_serve(dfd_server *s, const char *mode, const char *dir, const char *work)
{
	memset(s, 0, sizeof *s);
	int in[2], out[2];
	cr_assert(pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0);
	const char *script = pm_test_source("tests/symbolicate/serve_debug.py");
	s->pid = fork();
	cr_assert(s->pid >= 0);
	if (s->pid == 0) {
		/* Whatever ends the test ends the server: the script goes with us, debuginfod with it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(in[0], 0);
		dup2(out[1], 1);
		execlp("python3", "python3", script, mode, dir, work, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	s->in = in[1];
	size_t n = 0;
	ssize_t got;
	while (n + 1 < sizeof s->url && !memchr(s->url, '\n', n) &&
	       (got = read(out[0], s->url + n, sizeof s->url - 1 - n)) > 0)
		n += (size_t)got;
	close(out[0]);
	s->url[n] = '\0';
	s->url[strcspn(s->url, "\n")] = '\0';
	s->log = symb_fmt("%s/%s", work, strcmp(mode, "debuginfod") == 0 ? "debuginfod.log" : "requests.log");
	cr_assert(strncmp(s->url, "http://127.0.0.1:", 17) == 0, "serve_debug.py %s %s did not start (see %s)", mode,
	          dir, s->log);
}

void
dfd_lab_serve(const dfd_lab *l, dfd_server *s)
{
	char *serve = dfd_path(l, "serve"), *work = dfd_path(l, "work");
	dfd_serve(s, "debuginfod", serve, work);
	free(serve);
	free(work);
}

void
dfd_stop(dfd_server *s)
{
	if (s->pid <= 0)
		return;
	close(s->in);
	int status;
	while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
		;
	s->pid = 0;
}

void
dfd_server_free(dfd_server *s)
{
	dfd_stop(s);
	free(s->log);
	s->log = NULL;
}

unsigned
dfd_requests(const dfd_server *s, const char *id, const char *kind)
{
	char *text = pm_test_slurp(s->log, NULL);
	char *what = id ? symb_fmt("GET /buildid/%s/%s ", id, kind) : strdup("GET /buildid/");
	unsigned n = 0;
	for (const char *p = text; (p = strstr(p, what)) != NULL; p++)
		n++;
	free(what);
	free(text);
	return n;
}

static int
loopback_socket(uint16_t *port, bool listening)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	cr_assert(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
	          getsockname(fd, (struct sockaddr *)&a, &len) == 0);
	cr_assert(!listening || listen(fd, 64) == 0);
	*port = ntohs(a.sin_port);
	return fd;
}

int
dfd_refusing_port(uint16_t *port)
{
	return loopback_socket(port, false);
}

int
dfd_silent_port(uint16_t *port)
{
	return loopback_socket(port, true);
}

unsigned
dfd_connections(int fd)
{
	/* The kernel completes the handshake of each one and queues it, accepted or not. */
	cr_assert(fcntl(fd, F_SETFL, O_NONBLOCK) == 0);
	unsigned n = 0;
	int c;
	while ((c = accept(fd, NULL, NULL)) >= 0) {
		close(c);
		n++;
	}
	return n;
}

int
dfd_cli(const dfd_lab *l, const char *urls, const char *env, const char *args, char **out)
{
	char *cmd = symb_fmt("DEBUGINFOD_URLS='%s' DEBUGINFOD_CACHE_PATH='%s/cache' %s '%s' %s", urls, l->dir, env,
	                     pm_test_build("tools/postmortem"), args);
	int status = pm_test_run(cmd, out);
	cr_assert(WIFEXITED(status), "'%s' did not exit", cmd);
	free(cmd);
	return WEXITSTATUS(status);
}

int
dfd_symbolicate(const dfd_lab *l, const char *urls, const char *env, const char *args, pm_report *r, char **out)
{
	char *dest = dfd_path(l, "out.json");
	char *all = symb_fmt("symbolicate '%s' -o '%s' %s", l->json, dest, args);
	int rc = dfd_cli(l, urls, env, all, out);
	pm_read_error err = { 0 };
	pm_report_init(r);
	if (rc == 0)
		cr_assert_eq(pm_read_report_file(dest, r, &err), PM_OK, "%s: %s", dest, err.message);
	free(all);
	free(dest);
	return rc;
}
