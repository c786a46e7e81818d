/*
 * upload_thread.c — pm_upload_thread_start/pm_upload_thread_stop: delivery on a
 * background thread (libpostmortem's pm_upload_start calls them once a report is pending).
 *
 * The caller's thread only checks the options and copies them; opening the
 * store and every byte of network I/O happen on the uploader thread, so
 * starting it never delays the application.  The thread runs a pass at
 * once, then one every UPLOAD_INTERVAL_MS (longer when a server asked us
 * to stay away), because non-fatal reports (snapshots, hangs) appear while
 * the program runs.  Each run is the directory's one uploader's
 * (upload_dir.c): when another uploader holds the directory (a crash's, or
 * another process's thread), this run sends nothing; that one takes every
 * report it finds.  pm_upload_stop wakes it; a transfer in flight is
 * aborted from curl's progress callback.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "upload.h"

#define UPLOAD_INTERVAL_MS (5u * 60u * 1000u)

typedef struct uploader {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;      /* CLOCK_MONOTONIC */
	atomic_bool stopping;
	bool finished;            /* under lock: the thread is leaving */
	bool detached;            /* under lock: nobody will join; the thread frees this */
	upload_stop stop;
	pm_upload_options opt;    /* strings point into the copies below */
	const char *dir;          /* the reports directory, in strings too */
	const char **headers;
	char *strings;
} uploader;

static pthread_mutex_t current_lock = PTHREAD_MUTEX_INITIALIZER;
static uploader *current;

static void
uploader_free(uploader *u)
{
	pthread_cond_destroy(&u->wake);
	pthread_mutex_destroy(&u->lock);
	free(u->headers);
	free(u->strings);
	free(u);
}

/* Copy s into the string block at *at; NULL stays NULL. */
static const char *
copy_str(char **at, const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *d = memcpy(*at, s, n);
	*at += n;
	return d;
}

static size_t
str_size(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

/* The options, strings and all: the caller's memory may go away once we return. */
static bool
copy_options(uploader *u, const char *dir, const pm_upload_options *in)
{
	size_t total = str_size(dir) + str_size(in->url) + str_size(in->dsn) + str_size(in->app_name) + str_size(in->app_version)
	               + str_size(in->environment) + str_size(in->ca_file);
	for (size_t i = 0; i < in->header_count; i++)
		total += str_size(in->headers[i]);
	u->strings = malloc(total ? total : 1);
	u->headers = calloc(in->header_count ? in->header_count : 1, sizeof *u->headers);
	if (!u->strings || !u->headers)
		return false;
	char *at = u->strings;
	u->dir = copy_str(&at, dir);
	u->opt = *in;
	u->opt.url = copy_str(&at, in->url);
	u->opt.dsn = copy_str(&at, in->dsn);
	u->opt.app_name = copy_str(&at, in->app_name);
	u->opt.app_version = copy_str(&at, in->app_version);
	u->opt.environment = copy_str(&at, in->environment);
	u->opt.ca_file = copy_str(&at, in->ca_file);
	for (size_t i = 0; i < in->header_count; i++)
		u->headers[i] = copy_str(&at, in->headers[i]);
	u->opt.headers = u->headers;
	return true;
}

static uploader *
uploader_new(const char *dir, const pm_upload_options *opt)
{
	uploader *u = calloc(1, sizeof *u);
	if (!u)
		return NULL;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&u->wake, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&u->lock, NULL);
	atomic_init(&u->stopping, false);
	u->stop = (upload_stop){ .lock = &u->lock, .cond = &u->wake, .flag = &u->stopping };
	if (!copy_options(u, dir, opt)) {
		uploader_free(u);
		return NULL;
	}
	return u;
}

/* One run over the directory; how long to wait before the next (a server may have asked for more). */
static uint32_t
run_pass(uploader *u)
{
	upload_dir_run run = { .dir = u->dir, .opt = &u->opt, .stop = &u->stop, .lock_fd = -1 };
	upload_dir_result out;
	pm_err e = pmi_upload_dir(&run, NULL, &out);
	if (e != PM_OK && e != PM_E_INVAL)
		pmi_upload_log("cannot open the reports directory: %s", pm_strerror(e));
	int64_t asked = out.hold.events_until_ms - pmi_upload_now_ms();
	return asked > UPLOAD_INTERVAL_MS ? (uint32_t)(asked < UINT32_MAX ? asked : UINT32_MAX) : UPLOAD_INTERVAL_MS;
}

static void *
run(void *arg)
{
	uploader *u = arg;
	pthread_setname_np(pthread_self(), "pm-upload");
	while (pmi_upload_sleep(&u->stop, run_pass(u)))
		;
	pthread_mutex_lock(&u->lock);
	u->finished = true;
	bool detached = u->detached;
	pthread_mutex_unlock(&u->lock);
	if (detached)
		uploader_free(u);
	return NULL;
}

/* The thread takes no asynchronous signals (they are the application's), only faults. */
static int
spawn(uploader *u)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS };
	sigset_t all, old;
	sigfillset(&all);
	for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
		sigdelset(&all, faults[i]);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&u->thread, NULL, run, u);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

pm_err
pm_upload_thread_start(const char *reports_dir, const pm_upload_options *opt)
{
	pm_upload_options checked;
	if (!reports_dir || pmi_upload_options_resolve(opt, &checked) != PM_OK)
		return PM_E_INVAL;
	/* The resolved options: the environment variables are read here, on the caller's thread. */
	uploader *u = uploader_new(reports_dir, &checked);
	if (!u)
		return PM_E_NOMEM;
	pthread_mutex_lock(&current_lock);
	int rc = current ? EBUSY : spawn(u);
	if (rc == 0)
		current = u;
	pthread_mutex_unlock(&current_lock);
	if (rc != 0) {
		uploader_free(u);
		return rc == EAGAIN ? PM_E_NOMEM : PM_E_INVAL;
	}
	return PM_OK;
}

void
pm_upload_thread_stop(uint32_t timeout_ms)
{
	pthread_mutex_lock(&current_lock);
	uploader *u = current;
	current = NULL;
	pthread_mutex_unlock(&current_lock);
	if (!u)
		return;
	pthread_mutex_lock(&u->lock);
	atomic_store(&u->stopping, true);
	pthread_cond_broadcast(&u->wake);
	pthread_mutex_unlock(&u->lock);

	/* pthread_timedjoin_np measures against CLOCK_REALTIME. */
	struct timespec deadline = pmi_upload_deadline(CLOCK_REALTIME, timeout_ms);
	if (pthread_timedjoin_np(u->thread, NULL, &deadline) == 0) {
		uploader_free(u);
		return;
	}
	pthread_mutex_lock(&u->lock);
	bool finished = u->finished;
	if (!finished) {
		u->detached = true;
		pthread_detach(u->thread);
	}
	pthread_mutex_unlock(&u->lock);
	if (finished) {
		pthread_join(u->thread, NULL);
		uploader_free(u);
	} else {
		pmi_upload_log("the upload thread did not stop within %u ms; it ends on its own", timeout_ms);
	}
}
