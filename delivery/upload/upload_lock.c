/*
 * upload_lock.c — one uploader at a time per reports directory, and what
 * servers asked of the next one.
 *
 * <reports_dir>/upload.lock: its first byte is locked, with an
 * open-file-description lock (F_OFD_SETLK), by whoever delivers the
 * directory's reports: the background thread, `postmortem upload`, the
 * uploader a crash started, whose crash handler took the lock before it
 * started it and handed it over (reporter/handler/as_upload_now.c locks the
 * same byte).  The kernel lets it go with the last descriptor of it, so an
 * uploader that died leaves nothing taken.
 *
 * The file also keeps what a server asked for beyond one pass, so that the
 * next uploader honours it though it is another process (a Retry-After of
 * an hour, Sentry's limit on sessions) when it delivers to that server,
 * written only under the lock:
 *   endpoint <scheme://host[:port]/path of the server that asked>
 *   events_until <ms since the epoch>
 *   sessions_until <ms since the epoch>
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "upload.h"

#define LOCK_FILE "upload.lock"
/* How often a waiting `postmortem upload` asks again. */
#define WAIT_STEP_MS 20u

static struct flock
first_byte(short type)
{
	return (struct flock){ .l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
}

static bool
try_lock(int fd)
{
	struct flock fl = first_byte(F_WRLCK);
	return fcntl(fd, F_OFD_SETLK, &fl) == 0;
}

static int
open_lock_file(int root)
{
	int fd = openat(root, LOCK_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

upload_lock_state
pmi_upload_lock_take(upload_lock *l, int root, uint32_t wait_ms)
{
	l->fd = open_lock_file(root);
	if (l->fd < 0) {
		pmi_upload_log("cannot open %s of the reports directory: %s", LOCK_FILE, strerror(errno));
		return UPLOAD_LOCK_ERROR;
	}
	for (uint32_t waited = 0;; waited += WAIT_STEP_MS) {
		if (try_lock(l->fd))
			return UPLOAD_LOCK_TAKEN;
		if (errno != EAGAIN && errno != EACCES) {
			pmi_upload_log("cannot lock %s: %s", LOCK_FILE, strerror(errno));
			break;
		}
		if (waited >= wait_ms) {
			if (wait_ms)
				pmi_upload_log("another uploader still delivers this directory's reports after %u s: they are its",
				               (wait_ms + 999) / 1000);
			pmi_upload_lock_close(l);
			return UPLOAD_LOCK_BUSY;
		}
		if (waited == 0)
			pmi_upload_log("another uploader is delivering this directory's reports: waiting for it (at most %u s)",
			               (wait_ms + 999) / 1000);
		struct timespec ts = { 0, WAIT_STEP_MS * 1000000L };
		nanosleep(&ts, NULL);
	}
	pmi_upload_lock_close(l);
	return UPLOAD_LOCK_ERROR;
}

int
pmi_upload_lock_for_start(int root, bool *busy)
{
	upload_lock l;
	upload_lock_state st = pmi_upload_lock_take(&l, root, 0);
	*busy = st == UPLOAD_LOCK_BUSY;
	return st == UPLOAD_LOCK_TAKEN ? l.fd : -1;
}

bool
pmi_upload_lock_adopt(upload_lock *l, int root, int fd)
{
	struct stat given, ours;
	int probe = open_lock_file(root);
	struct flock fl = first_byte(F_WRLCK);
	/* The same file, and locked: a description of our own sees the lock as another's. */
	bool ok = probe >= 0 && fstat(fd, &given) == 0 && fstat(probe, &ours) == 0 && given.st_dev == ours.st_dev &&
	          given.st_ino == ours.st_ino && fcntl(probe, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
	if (probe >= 0)
		close(probe);
	l->fd = ok ? fd : -1;
	if (ok)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	return ok;
}

bool
pmi_upload_lock_retake(upload_lock *l)
{
	return l->fd >= 0 && try_lock(l->fd);
}

void
pmi_upload_lock_release(upload_lock *l)
{
	struct flock fl = first_byte(F_UNLCK);
	if (l->fd >= 0)
		fcntl(l->fd, F_OFD_SETLK, &fl);
}

void
pmi_upload_lock_close(upload_lock *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

void
pmi_upload_hold_read(const upload_lock *l, upload_hold *h)
{
	char text[512];
	ssize_t n = pread(l->fd, text, sizeof text - 1, 0);
	long long events = 0, sessions = 0;
	text[n > 0 ? n : 0] = '\0';
	memset(h, 0, sizeof *h);
	if (sscanf(text, "endpoint %255s\nevents_until %lld\nsessions_until %lld", h->endpoint, &events, &sessions) != 3)
		h->endpoint[0] = '\0';
	else if (events > 0 || sessions > 0) {
		h->events_until_ms = events > 0 ? events : 0;
		h->sessions_until_ms = sessions > 0 ? sessions : 0;
	}
}

void
pmi_upload_hold_write(const upload_lock *l, const upload_hold *h)
{
	upload_hold now;
	pmi_upload_hold_read(l, &now);
	if (strcmp(now.endpoint, h->endpoint) == 0 && now.events_until_ms == h->events_until_ms &&
	    now.sessions_until_ms == h->sessions_until_ms)
		return;
	char text[512];
	int n = snprintf(text, sizeof text, "endpoint %s\nevents_until %lld\nsessions_until %lld\n",
	                 h->endpoint[0] ? h->endpoint : "-", (long long)h->events_until_ms, (long long)h->sessions_until_ms);
	if (n < 0 || (size_t)n >= sizeof text || pwrite(l->fd, text, (size_t)n, 0) != n || ftruncate(l->fd, n) != 0)
		pmi_upload_log("cannot keep what the server asked in %s: %s; the next uploader may ask it again",
		               LOCK_FILE, strerror(errno));
}

int64_t
pmi_upload_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
