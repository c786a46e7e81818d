/*
 * debuginfod.c — what no local file gave, asked of the debuginfod servers
 * of $DEBUGINFOD_URLS through elfutils' own client (libdebuginfod): its
 * cache, its variables (DEBUGINFOD_CACHE_PATH, DEBUGINFOD_TIMEOUT,
 * DEBUGINFOD_PROGRESS, ...) and its HTTP.
 *
 * One symbolication asks each build id at most once for each kind of file
 * (the answer is kept), and stops asking at the first failure other than
 * "not there": a server that is down or silent costs its timeout once, not
 * once per image.  What a server sends is only a candidate: find_debug.c
 * checks its build id like any local file's, and a refused file is removed
 * from the cache, which would otherwise answer with it again.
 */
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symb.h"

void
pmi_sy_remote_init(pm_sy_remote *r, const pm_symbolicate_options *opt)
{
	memset(r, 0, sizeof *r);
	r->on = opt && opt->debuginfod;
	r->opt = opt;
}

static int
progress(debuginfod_client *c, long done, long total)
{
	const pm_sy_remote *r = debuginfod_get_user_data(c);
	/* total stays 0 until a server sends the file (done counts waits until then). */
	if (total > 0)
		r->opt->progress(r->opt->ctx, r->asking, done, total);
	return 0;
}

static bool
begin(pm_sy_remote *r)
{
	if (r->client)
		return true;
	r->client = debuginfod_begin();
	if (!r->client)
		return false;
	debuginfod_set_user_data(r->client, r);
	/* Without a progress function of ours, DEBUGINFOD_PROGRESS keeps the client's own. */
	if (r->opt->progress)
		debuginfod_set_progressfn(r->client, progress);
	return true;
}

/* Why a query failed, for the note that stops the asking. */
static void
failure(int err, char *buf, size_t cap)
{
	const char *timeout = getenv(DEBUGINFOD_TIMEOUT_ENV_VAR);
	switch (err) {
	case ETIME:
		snprintf(buf, cap, "no answer within %s s (DEBUGINFOD_TIMEOUT)", timeout ? timeout : "90");
		break;
	case ECONNREFUSED:
		snprintf(buf, cap, "connection refused");
		break;
	case EHOSTUNREACH:
		snprintf(buf, cap, "host not found");
		break;
	case EINVAL:
		snprintf(buf, cap, "a URL it cannot use");
		break;
	default:
		snprintf(buf, cap, "%s", strerror(err));
		break;
	}
}

static char *
failure_note(int err)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
	char why[128], *note;
	failure(err, why, sizeof why);
	if (asprintf(&note, "debuginfod %s: %s; not asked again for this report", urls ? urls : "", why) < 0)
		return NULL;
	return note;
}

static pm_sy_asked *
asked_before(const pm_sy_remote *r, const char *id_hex, bool executable)
{
	for (size_t i = 0; i < r->asked_count; i++)
		if (r->asked[i].executable == executable && strcmp(r->asked[i].id, id_hex) == 0)
			return &r->asked[i];
	return NULL;
}

/* Ask, and remember the answer. */
static pm_sy_asked *
ask(pm_sy_remote *r, const char *id_hex, bool executable)
{
	if (!pmi_grow((void **)&r->asked, &r->asked_cap, r->asked_count + 1, sizeof *r->asked))
		return NULL;
	pm_sy_asked *a = &r->asked[r->asked_count];
	memset(a, 0, sizeof *a);
	snprintf(a->id, sizeof a->id, "%s", id_hex);
	a->executable = executable;
	errno = 0;
	if (!begin(r)) {
		a->err = errno ? errno : EIO;
	} else {
		/* A hex id with length 0: the client takes it as it is. */
		int fd = (executable ? debuginfod_find_executable : debuginfod_find_debuginfo)(
			r->client, (const unsigned char *)id_hex, 0, &a->path);
		a->err = fd < 0 ? -fd : 0;
		if (fd >= 0)
			close(fd);
		const char *url = debuginfod_get_url(r->client);
		if (fd >= 0 && url && !(a->url = strdup(url)))
			a->err = ENOMEM;
	}
	r->asked_count++;
	return a;
}

int
pmi_sy_remote_find(pm_sy_remote *r, const char *id_hex, bool executable, const char *name, const pm_sy_asked **found,
                   char **note)
{
	*found = NULL;
	*note = NULL;
	const pm_sy_asked *a = asked_before(r, id_hex, executable);
	if (!a) {
		if (!r->on)
			return ENOSYS;
		r->asking = name ? name : id_hex;
		a = ask(r, id_hex, executable);
		if (!a)
			return ENOMEM;
		if (a->err == ENOSYS) {
			r->on = false;         /* no server set: nothing to say */
		} else if (a->err == EFBIG) {
			*note = strdup("debuginfod: the file is larger than DEBUGINFOD_MAXSIZE");
		} else if (a->err && a->err != ENOENT && a->err != ENOMEM) {
			r->on = false;
			*note = failure_note(a->err);
			if (*note && r->opt->unreachable)
				r->opt->unreachable(r->opt->ctx, *note);
		}
	}
	*found = a;
	return a->err;
}

void
pmi_sy_remote_refuse(const pm_sy_asked *a)
{
	unlink(a->path);
}

void
pmi_sy_remote_end(pm_sy_remote *r)
{
	for (size_t i = 0; i < r->asked_count; i++) {
		free(r->asked[i].path);
		free(r->asked[i].url);
	}
	free(r->asked);
	debuginfod_end(r->client);
	memset(r, 0, sizeof *r);
}
