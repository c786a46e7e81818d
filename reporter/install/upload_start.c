/*
 * upload_start.c — pm_upload_start/pm_upload_stop in the app's library.
 *
 * The uploader needs libcurl, TLS and elfutils; an app that never crashed
 * should not load them.  So the app's library only looks (with libc) whether
 * the reports directory holds anything pending, and only then loads
 * libpostmortem-tools and starts its uploader; delivering to Sentry, also
 * when the sessions of earlier runs have waited long enough (session.h).
 * The same code starts uploads from libpostmortem-preload.so.
 */
#include "postmortem-tools.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "as_handler.h"
#include "as_memory.h"
#include "install.h"
#include "session.h"

#define TOOLS_SONAME "libpostmortem-tools.so.0"

typedef pm_err thread_start_fn(const char *reports_dir, const pm_upload_options *opt);
typedef void thread_stop_fn(uint32_t timeout_ms);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static thread_start_fn *start_fn;
static thread_stop_fn *stop_fn;
static bool running;

/* A report, a torn one or a minidump: any name in pending/ but . and ..
 * and .groups, where storm control counts crash groups (docs/store.md).
 * Looked at with a stack buffer and no snprintf: an app with nothing
 * pending pays a few system calls at start, not its first malloc and
 * libc's printf engine (issue 13). */
static bool
anything_pending(const char *reports_dir)
{
	char path[PATH_MAX], buf[1024];
	as_dirents d;
	if (pmi_path_join(path, sizeof path, reports_dir, "/pending") < 0 ||
	    !as_dirents_open(&d, path, buf, sizeof buf))
		return false;
	const char *name;
	bool found = false;
	while (!found && (name = as_dirents_next(&d)) != NULL)
		found = strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && strcmp(name, ".groups") != 0;
	as_dirents_close(&d);
	return found;
}

static void *
symbol(void *lib, const char *name)
{
	return lib ? dlsym(lib, name) : NULL;
}

/*
 * Beside the library this code is in (installed layout), one directory up
 * (the build tree, where the preload library sits in a subdirectory), then
 * wherever the loader finds it.  RTLD_LOCAL: the program never sees its
 * symbols.  Under lock.
 */
static bool
load_tools(void)
{
	static const char *const places[] = { "", "../" };
	static const char anchor; /* any address inside this library */
	if (start_fn)
		return true;
	void *lib = NULL;
	Dl_info self;
	char path[PATH_MAX];
	if (dladdr(&anchor, &self) && self.dli_fname) {
		const char *slash = strrchr(self.dli_fname, '/');
		int dir = slash ? (int)(slash - self.dli_fname + 1) : 0;
		for (size_t i = 0; !lib && i < sizeof places / sizeof places[0]; i++) {
			int n = snprintf(path, sizeof path, "%.*s%s%s", dir, self.dli_fname, places[i], TOOLS_SONAME);
			if (n > 0 && (size_t)n < sizeof path)
				lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		}
	}
	if (!lib)
		lib = dlopen(TOOLS_SONAME, RTLD_NOW | RTLD_LOCAL);
	void *start = symbol(lib, "pm_upload_thread_start"), *stop = symbol(lib, "pm_upload_thread_stop");
	if (!start || !stop)
		return false;
	memcpy(&start_fn, &start, sizeof start);
	memcpy(&stop_fn, &stop, sizeof stop);
	return true;
}

static int
errno_of(pm_err e)
{
	return e == PM_E_NOMEM ? ENOMEM : EINVAL;
}

int
pm_upload_start(const pm_upload_options *opt)
{
	char resolved[PATH_MAX];
	const char *dir = pm_reports_dir();
	if (!opt) {
		errno = EINVAL;
		return -1;
	}
	if (!*dir) {
		if (!pmi_config_reports_dir(NULL, resolved, sizeof resolved))
			return -1;
		dir = resolved;
	}
	if (!anything_pending(dir) && !(opt->dsn && pmi_sessions_waiting(dir)))
		return 0;
	pthread_mutex_lock(&lock);
	int err = running ? EBUSY : !load_tools() ? ELIBACC : 0;
	if (!err) {
		pm_err e = start_fn(dir, opt);
		err = e == PM_OK ? 0 : errno_of(e);
		running = e == PM_OK;
		as_upload_now.thread_here = running;
	}
	pthread_mutex_unlock(&lock);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

void
pm_upload_stop(uint32_t timeout_ms)
{
	pthread_mutex_lock(&lock);
	bool was = running;
	running = false;
	as_upload_now.thread_here = false;
	pthread_mutex_unlock(&lock);
	if (was)
		stop_fn(timeout_ms);
}
