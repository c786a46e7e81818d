/*
 * upload_now.c — what the crash handler needs to start the uploader once a
 * report is durable (reporter/handler/as_upload_now.h), prepared at
 * pm_install.  NOT AS-safe.
 *
 * Armed when a destination is known: pm_config.upload (a url or a dsn),
 * else POSTMORTEM_DSN or POSTMORTEM_UPLOAD_URL in the environment.  Not with
 * POSTMORTEM_UPLOAD=next-launch (reports wait for the next launch, as they
 * did), not in a process whose credentials are not its user's (a
 * set-user-ID program: the uploader would run with them, on an
 * environment its user chose), not under a seccomp filter (it may kill
 * the handler's clone or execve: a SIGSYS death instead of the crash's
 * own), and not when no uploader is found.
 *
 * The uploader's environment is built here, never read at crash time (the
 * crash may have damaged environ): the destination as the POSTMORTEM_*
 * variables the uploader reads (in the environment, not in argv, which any
 * user may read in /proc: a header may hold a token), and what libcurl and
 * the loader need (proxies, CA bundles, LD_LIBRARY_PATH, HOME).  Never
 * LD_PRELOAD: under `postmortem run` the preload library would report the
 * uploader too, and a crash of it start another.  Nothing here runs unless
 * a destination is known: an app without one pays three getenv.
 */
#include "postmortem-tools.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <linux/seccomp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "as_handler.h"
#include "install.h"
#include "reports_dir.h"

/* The child's stack until its execve: a few system calls need far less. */
enum { CHILD_STACK = 16 * 1024 };

enum { ENV_MAX = PMI_UPLOAD_PASSED_VARS + PMI_UPLOAD_DESTINATION_VARS };

typedef struct env_list {
	const char *name[ENV_MAX], *value[ENV_MAX];
	size_t n;
} env_list;

static void
put(env_list *e, const char *name, const char *value)
{
	if (value && *value && e->n < ENV_MAX) {
		e->name[e->n] = name;
		e->value[e->n++] = value;
	}
}

static void
put_from_environ(env_list *e, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put(e, names[i], getenv(names[i]));
}

static const char *
env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

/* pm_config.upload's headers, one a line (none holds a line break: the uploader refuses those). */
static char *
join_headers(const pm_upload_options *o)
{
	size_t n = 1;
	for (size_t i = 0; i < o->header_count; i++)
		n += strlen(o->headers[i]) + 1;
	char *s = o->header_count ? malloc(n) : NULL;
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < o->header_count; i++) {
		if (i)
			strcat(s, "\n");
		strcat(s, o->headers[i]);
	}
	return s;
}

/* The destination: pm_config.upload, else the environment's.  False when there is none. */
static bool
destination(const pm_config *cfg, env_list *e, char **headers)
{
	const pm_upload_options *o = cfg ? cfg->upload : NULL;
	if (o && (o->url || o->dsn)) {
		put(e, "POSTMORTEM_DSN", o->dsn);
		put(e, "POSTMORTEM_UPLOAD_URL", o->dsn ? NULL : o->url);
		put(e, "POSTMORTEM_UPLOAD_HEADER", *headers = join_headers(o));
		put(e, "POSTMORTEM_UPLOAD_CA_FILE", o->ca_file);
		put(e, "POSTMORTEM_UPLOAD_ALLOW_HTTP", o->allow_http ? "1" : NULL);
		put(e, "POSTMORTEM_UPLOAD_INSECURE", o->insecure_tls ? "1" : NULL);
		put(e, "POSTMORTEM_UPLOAD_NO_GZIP", o->no_gzip ? "1" : NULL);
		put(e, "POSTMORTEM_UPLOAD_FINGERPRINT_SIGNATURE", o->fingerprint_signature ? "1" : NULL);
		put(e, "POSTMORTEM_ENVIRONMENT", o->environment ? o->environment : env("POSTMORTEM_ENVIRONMENT"));
		return true;
	}
	if (!env("POSTMORTEM_DSN") && !env("POSTMORTEM_UPLOAD_URL"))
		return false;
	put_from_environ(e, pmi_upload_destination_vars, PMI_UPLOAD_DESTINATION_VARS);
	return true;
}

/* a (n bytes of it) then b into out, NUL-terminated; false when it does not fit.  No printf:
 * its engine's first use pages in code a fresh process has not touched (issue 13). */
static bool
join(char *out, size_t cap, const char *a, size_t n, const char *b)
{
	size_t m = strlen(b);
	if (n + m >= cap)
		return false;
	memcpy(out, a, n);
	memcpy(out + n, b, m + 1);
	return true;
}

static bool
executable(const char *path, char *out, size_t cap)
{
	return access(path, X_OK) == 0 && join(out, cap, "", 0, path);
}

/*
 * POSTMORTEM_UPLOADER when set (taken as it is: a start that fails leaves
 * the report on disk, as without an uploader); else, from the directory of
 * the library this code is in, the build tree's (the library at its top,
 * the preload library one below) and the installed layout's
 * (<libexecdir>/postmortem, found from <libdir> whatever the prefix); then
 * the path `meson install` put it at.  As `postmortem system enable` finds
 * its handler: a build never starts an older installed copy.
 */
static bool
find_uploader(char *out, size_t cap)
{
	static const char *const near[] = { PM_UPLOADER_IN_BUILD, ("../" PM_UPLOADER_IN_BUILD), PM_UPLOADER_FROM_LIBDIR };
	static const char anchor;
	const char *forced = env("POSTMORTEM_UPLOADER");
	if (forced)
		return join(out, cap, "", 0, forced);
	Dl_info self;
	if (dladdr(&anchor, &self) && self.dli_fname && strchr(self.dli_fname, '/')) {
		size_t dir = (size_t)(strrchr(self.dli_fname, '/') - self.dli_fname + 1);
		for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
			char guess[PATH_MAX];
			if (join(guess, sizeof guess, self.dli_fname, dir, near[i]) && executable(guess, out, cap))
				return true;
		}
	}
	return executable(PM_UPLOADER_PATH, out, cap);
}

/* Copy s to *at, up to its NUL (keep: 1) or not (0); the copy. */
static char *
put_str(char **at, const char *s, bool end)
{
	size_t n = strlen(s) + end;
	char *d = memcpy(*at, s, n);
	*at += n;
	return d;
}

static char *
place(char **at, const char *s)
{
	return put_str(at, s, true);
}

/* The child's stack, then argv, envp and every string they point to, in one mapping: no
 * malloc (an app's first would set up its heap), one page written. */
static bool
lay_out(const char *program, const char *reports_dir, const env_list *e)
{
	static const char *const fixed[] = { "--dir", "--crashed" };
	size_t strings = strlen(program) + strlen(reports_dir) * 2 + sizeof "/upload.lock" + 2;
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		strings += strlen(fixed[i]) + 1;
	for (size_t i = 0; i < e->n; i++)
		strings += strlen(e->name[i]) + strlen(e->value[i]) + 2;
	size_t pointers = (AS_UPLOAD_ARGV_COUNT + e->n + 1) * sizeof(char *);
	size_t size = CHILD_STACK + pointers + strings;
	char *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
		return false;
	char **argv = (char **)(map + CHILD_STACK), **envp = argv + AS_UPLOAD_ARGV_COUNT, *at = (char *)(envp + e->n + 1);
	argv[0] = place(&at, program);
	argv[1] = place(&at, fixed[0]);
	argv[2] = place(&at, reports_dir);
	argv[3] = place(&at, fixed[1]);
	argv[AS_UPLOAD_ARGV_PID] = as_upload_now.pid_text;
	argv[AS_UPLOAD_ARGV_TAIL] = NULL; /* the crash writes the rest */
	for (size_t i = 0; i < e->n; i++) {
		envp[i] = put_str(&at, e->name[i], false);
		put_str(&at, "=", false);
		put_str(&at, e->value[i], true);
	}
	envp[e->n] = NULL;
	as_upload_now.lock_path = put_str(&at, reports_dir, false);
	put_str(&at, "/upload.lock", true);
	/* Made now, so that a crash only opens it: creating a file cost the handler 0.7 ms here. */
	int lock = open(as_upload_now.lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lock >= 0)
		close(lock);
	as_upload_now.argv = argv;
	as_upload_now.envp = envp;
	as_upload_now.map = map;
	as_upload_now.map_size = size;
	as_upload_now.stack_top = map + CHILD_STACK;
	return true;
}

void
pmi_upload_now_prepare(const pm_config *cfg, const char *reports_dir)
{
	pmi_upload_now_release();
	env_list e = { .n = 0 };
	char *headers = NULL, program[PATH_MAX];
	const char *when = getenv(PMI_UPLOAD_WHEN_VAR);
	/* Under a seccomp filter, the crash handler's clone or execve might be what it kills (the
	 * process would die of SIGSYS, not of its own signal): not armed. */
	if (destination(cfg, &e, &headers) && !(when && strcmp(when, PMI_UPLOAD_NEXT_LAUNCH) == 0) && getuid() == geteuid() &&
	    getgid() == getegid() && prctl(PR_GET_SECCOMP) != SECCOMP_MODE_FILTER &&
	    find_uploader(program, sizeof program)) {
		put_from_environ(&e, pmi_upload_passed_vars, PMI_UPLOAD_PASSED_VARS);
		as_upload_now.armed = lay_out(program, reports_dir, &e);
	}
	free(headers);
}

void
pmi_upload_now_release(void)
{
	as_upload_now.armed = false;
	if (as_upload_now.map)
		munmap(as_upload_now.map, as_upload_now.map_size);
	as_upload_now.map = as_upload_now.stack_top = NULL;
	as_upload_now.argv = as_upload_now.envp = NULL;
}
