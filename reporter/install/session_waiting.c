/*
 * session_waiting.c — whether the sessions of earlier runs are worth waking
 * the uploader for (session.h).  pm_upload_start asks it when it delivers to
 * Sentry and no report is pending, with libc only: the records of the runs
 * file (base/session_record.h) that nobody holds any more, and the sessions
 * the store collected into sessions/ and has not sent.  Waiting for an hour
 * or for an envelope's worth keeps a program started often from loading
 * the uploader (libcurl, TLS) at every start for one session each time.
 * NOT AS-safe.
 */
#include "session.h"

#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "as_memory.h"
#include "reports_dir.h"

enum {
	WAIT_SECONDS = 3600,     /* the oldest ended run waits this long at most */
	ENVELOPE_SESSIONS = 100, /* Relay's sessions per envelope: a full one goes at once */
};

typedef struct waiting {
	unsigned ended;
	time_t oldest;
} waiting;

static void
count(waiting *w, time_t t)
{
	w->ended++;
	if (w->oldest == 0 || t < w->oldest)
		w->oldest = t;
}

/* The value of the line of rec (n bytes) that starts with key, or NULL. */
static const char *
value_of(const char *rec, size_t n, const char *key)
{
	size_t k = strlen(key);
	for (const char *p = rec; p && p + k < rec + n;) {
		if (strncmp(p, key, k) == 0)
			return p + k;
		p = memchr(p, '\n', (size_t)(rec + n - p));
		p = p ? p + 1 : NULL;
	}
	return NULL;
}

/* Word `word` (from 0) of a value, as a number; 0 when there is none. */
static uint64_t
word_of(const char *v, const char *end, int word)
{
	uint64_t out = 0;
	for (int i = 0; v && i < word; i++) {
		v = memchr(v, ' ', (size_t)(end - v));
		v = v ? v + 1 : NULL;
	}
	return v && as_parse_dec(&v, end, &out) ? out : 0;
}

/* Record slot of the runs file fd: when nobody holds it, its run is over; it ended at
 * its end line's time, or (ended without one) is as old as its start. */
static void
look_at_record(waiting *w, int fd, unsigned slot)
{
	char rec[PMI_RUN_TEXT] = { 0 };
	if (pmi_run_held(fd, slot) || pread(fd, rec, sizeof rec - 1, (off_t)slot * PMI_RUN_BYTES) <= 0 || rec[0] == 0)
		return;
	const char *stop = rec + sizeof rec;
	/* "end exit <code> <us>", "end signal <n> <us>": the time is the third word. */
	uint64_t end = word_of(value_of(rec, sizeof rec, "end "), stop, 2);
	uint64_t start = word_of(value_of(rec, sizeof rec, "started "), stop, 0);
	count(w, (time_t)((end ? end : start) / 1000000u));
}

static void
look_at_runs(waiting *w, const char *reports_dir)
{
	char path[PATH_MAX];
	if (pmi_path_join(path, sizeof path, reports_dir, "/" PMI_RUNS_FILE) < 0)
		return;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	/* Only the file's data: a record never written, or collected, is a hole. */
	for (int slot = pmi_run_next(fd, 0); slot >= 0 && w->ended < ENVELOPE_SESSIONS;
	     slot = pmi_run_next(fd, (unsigned)slot + 1))
		look_at_record(w, fd, (unsigned)slot);
	close(fd);
}

/* The sessions the store collected and has not sent: <sid>.session in sessions/. */
static void
look_at_collected(waiting *w, const char *reports_dir)
{
	char path[PATH_MAX], buf[2048];
	as_dirents d;
	if (pmi_path_join(path, sizeof path, reports_dir, "/" PMI_SESSIONS_DIR) < 0 || !as_dirents_open(&d, path, buf, sizeof buf))
		return;
	for (const char *name; w->ended < ENVELOPE_SESSIONS && (name = as_dirents_next(&d)) != NULL;) {
		size_t n = strlen(name);
		struct stat st;
		if (n > 8 && strcmp(name + n - 8, ".session") == 0 && fstatat(d.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode))
			count(w, st.st_mtime);
	}
	as_dirents_close(&d);
}

bool
pmi_sessions_waiting(const char *reports_dir)
{
	waiting w = { 0 };
	look_at_runs(&w, reports_dir);
	look_at_collected(&w, reports_dir);
	return w.ended >= ENVELOPE_SESSIONS || (w.ended > 0 && w.oldest <= time(NULL) - WAIT_SECONDS);
}
