/*
 * upload_dir.c — the passes over one reports directory, by its one
 * uploader (upload_dir.h).
 *
 * Nothing is sent twice by two uploaders: the directory's lock is taken
 * (upload_lock.c) before the store lists it, so what a pass lists nobody
 * else delivers meanwhile; a store the caller opened earlier
 * (pm_upload_pending's) listed what it found then, and the pass looks for
 * each report and session again before it goes.
 *
 * Nothing is left behind by one: a crash whose handler finds the directory
 * taken starts no uploader (reporter/handler/as_upload_now.c), so the
 * holder, once its pass is done, lets the lock go and looks at pending/
 * once more.  A report no pass listed is then one whose crash found the
 * lock taken (its files were in place before it tried): the lock is taken
 * again and another pass made — unless another uploader has the lock by
 * now, which lists after taking it and so sends that report, or the pass
 * was cut short (offline, a hold, its deadline), or the time is up.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "reports_dir.h"
#include "store.h"
#include "upload.h"

/* The ids the passes listed. */
typedef struct seen {
	char (*id)[PM_ID_MAX];
	size_t n, cap;
} seen;

static bool
was_seen(const seen *s, const char *id)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->id[i], id) == 0)
			return true;
	return false;
}

static void
note_listing(seen *s, const pm_store *st)
{
	for (int k = PM_STATE_PENDING; k <= PM_STATE_PARTIAL; k++)
		for (size_t i = 0; i < pm_store_count(st, (pm_report_state)k); i++) {
			const char *id = pm_store_get(st, (pm_report_state)k, i)->id;
			if (!was_seen(s, id) && pmi_grow((void **)&s->id, &s->cap, s->n + 1, sizeof *s->id))
				snprintf(s->id[s->n++], PM_ID_MAX, "%s", id);
		}
}

/* A report in pending/ that no pass listed. */
static bool
unseen_pending(int root, const seen *s)
{
	int fd = openat(root, pmi_sdir_names[PM_SDIR_PENDING], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	bool found = false;
	char id[PM_ID_MAX];
	for (struct dirent *de; !found && (de = readdir(d)) != NULL;) {
		pm_skind k = pmi_store_parse_name(de->d_name, id);
		found = (k == PM_SK_CRASH || k == PM_SK_JSON) && !was_seen(s, id);
	}
	closedir(d);
	return found;
}

static uint32_t
ms_since(const struct timespec *start)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t ms = ((int64_t)now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
	return ms <= 0 ? 0 : ms >= UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
}

/* What one pass adds to the run's result: what it sent and quarantined adds up, what it kept is
 * the latest word (a later pass lists the same kept reports again). */
static void
add_up(pm_upload_result *sum, const pm_upload_result *pass)
{
	sum->sent += pass->sent;
	sum->quarantined += pass->quarantined;
	sum->kept = pass->kept;
	sum->sessions_sent += pass->sessions_sent;
	sum->sessions_kept = pass->sessions_kept;
	sum->sessions_unversioned += pass->sessions_unversioned;
}

/* The reports directory the run delivers, opened as the store opens it (ours alone). */
static int
open_root(const upload_dir_run *run, char *path, size_t cap)
{
	if (run->store)
		return fcntl(run->store->root, F_DUPFD_CLOEXEC, 0);
	char why[256];
	if (!pmi_store_resolve_dir(run->dir, path, cap)) {
		errno = EINVAL;
		return -1;
	}
	int root = pmi_private_dir_open(AT_FDCWD, path, true, why, sizeof why);
	if (root < 0 && errno != ENOENT)
		pmi_upload_log("refusing the reports directory %s: %s", path, why);
	return root;
}

static upload_lock_state
take_lock(const upload_dir_run *run, int root, upload_lock *lock, uint32_t wait_ms)
{
	if (run->lock_fd < 0)
		return pmi_upload_lock_take(lock, root, run->wait_for_lock ? wait_ms : 0);
	if (pmi_upload_lock_adopt(lock, root, run->lock_fd))
		return UPLOAD_LOCK_TAKEN;
	pmi_upload_log("descriptor %d is not this directory's upload lock, held: taking it here", run->lock_fd);
	return pmi_upload_lock_take(lock, root, 0);
}

pm_err
pmi_upload_dir(const upload_dir_run *run, pm_upload_result *res, upload_dir_result *out)
{
	pm_upload_result unused;
	upload_dir_result unused_out;
	pm_upload_options opt;
	res = res ? res : &unused;
	out = out ? out : &unused_out;
	memset(res, 0, sizeof *res);
	memset(out, 0, sizeof *out);
	pm_err e = pmi_upload_options_resolve(run->opt, &opt);
	if (e != PM_OK)
		return e;
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	uint32_t deadline = run->deadline_ms ? run->deadline_ms : opt.pass_timeout_ms;
	char path[PATH_MAX];
	int root = open_root(run, path, sizeof path);
	if (root < 0)
		return errno == ENOENT ? PM_E_NOTFOUND : PM_E_IO;
	upload_lock lock = { .fd = -1 };
	upload_lock_state got = take_lock(run, root, &lock, deadline);
	out->busy = got == UPLOAD_LOCK_BUSY;
	if (out->busy && run->store)
		res->kept = (uint32_t)(pm_store_count(run->store, PM_STATE_PENDING) + pm_store_count(run->store, PM_STATE_PARTIAL));
	seen listed = { 0 };
	pm_store_options so = run->store_opt;
	so.dir = run->store ? run->store->root_path : path;
	pm_store *s = run->store;
	for (bool first = true; got == UPLOAD_LOCK_TAKEN; first = false) {
		if (!s && (e = pm_store_open(&s, &so)) != PM_OK) {
			pmi_upload_log("cannot open the reports directory: %s", pm_strerror(e));
			pmi_upload_lock_close(&lock);
			break;
		}
		note_listing(&listed, s);
		/* A first pass of the options' own deadline keeps it whole (its log names it); a later
		 * one, or one within the run's deadline, gets what is left. */
		uint32_t spent = ms_since(&start);
		upload_pass_ctl ctl = { .stop = run->stop,
		                        .deadline_ms = first && !run->deadline_ms ? 0
		                                       : spent < deadline         ? deadline - spent
		                                                                  : 1 };
		pmi_upload_hold_read(&lock, &ctl.hold);
		pm_upload_result one;
		e = pmi_upload_pass(s, run->opt, &one, &ctl);
		add_up(res, &one);
		out->hold = ctl.hold;
		pmi_upload_hold_write(&lock, &ctl.hold);
		if (s != run->store)
			pm_store_close(s);
		s = NULL;
		pmi_upload_lock_release(&lock);
		if (e != PM_OK || ctl.cut_short || ms_since(&start) >= deadline || !unseen_pending(root, &listed) ||
		    !pmi_upload_lock_retake(&lock))
			break;
	}
	pmi_upload_lock_close(&lock);
	free(listed.id);
	close(root);
	return got == UPLOAD_LOCK_ERROR ? PM_E_IO : e;
}

pm_err
pm_upload_pending(pm_store *s, const pm_upload_options *opt, pm_upload_result *res)
{
	if (!s) {
		if (res)
			memset(res, 0, sizeof *res);
		return PM_E_INVAL;
	}
	upload_dir_run run = {
		.store = s,
		.store_opt = { .max_pending = s->max_pending, .max_bytes = s->max_bytes, .keep_sent = s->keep_sent,
		               .crash_loop_count = s->loop_count, .crash_loop_seconds = s->loop_seconds },
		.opt = opt, .lock_fd = -1, .wait_for_lock = true,
	};
	return pmi_upload_dir(&run, res, NULL);
}
