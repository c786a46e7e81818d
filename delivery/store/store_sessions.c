/*
 * store_sessions.c — sessions in the store (docs/store.md, "Sessions").
 *
 * pm_store_open collects the runs that are over from the runs file
 * (base/session_record.h): a record nobody holds any more is closed into a
 * session (session_close.c), written to sessions/<sid>.session and then
 * freed in the runs file, under the record's own lock, so that a run is
 * collected once even when two stores open at the same moment (the session
 * id comes from the record: a collection cut short between the two steps
 * writes the same file again, not a second session).  Delivered sessions move
 * to sessions/sent/, the history `postmortem stats` reads.  Both directories
 * are held to caps, as pending/ and sent/ are: nothing grows without bound.
 * A read-only store collects in memory and writes nothing.
 */
#include "sessions.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"
#include "reports_dir.h"
#include "store.h"

enum {
	MAX_WAITING = 1000,      /* sessions waiting for delivery */
	MAX_SENT = 1000,         /* delivered ones kept for `stats` */
	SESSION_FILE_MAX = 64 * 1024,
};

enum { WAITING = 0, SENT = 1 };
static const char *const dir_names[2] = { PMI_SESSIONS_DIR, "sent" };

static void
open_dirs(pm_store *s)
{
	char why[256];
	int at = s->root;
	for (int d = WAITING; d <= SENT && at >= 0; d++) {
		s->session_dir[d] = s->read_only ? pmi_private_dir_open(at, dir_names[d], false, why, sizeof why)
		                                 : pmi_store_open_subdir(at, dir_names[d], why, sizeof why);
		if (s->session_dir[d] < 0 && !(s->read_only && errno == ENOENT))
			pmi_store_log("no sessions: refusing %s/%s%s: %s", s->root_path, d == SENT ? PMI_SESSIONS_DIR "/" : "",
			              dir_names[d], why);
		at = s->session_dir[d];
	}
	int runs = openat(s->root, PMI_RUNS_FILE, (s->read_only ? O_RDONLY : O_RDWR) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (runs >= 0 && (fstat(runs, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(runs);
		runs = -1;
	}
	s->runs = runs;
}

static bool
valid_sid(const char *sid)
{
	size_t n = strlen(sid);
	return n == 36 && strspn(sid, "0123456789abcdef-") == n;
}

static pm_session *
add(pm_store *s, const pm_session *ss, bool sent)
{
	if (!pmi_grow((void **)&s->sessions, &s->session_cap, s->session_n + 1, sizeof *s->sessions))
		return NULL;
	pm_session *to = &s->sessions[s->session_n++];
	*to = *ss;
	to->sent = sent;
	return to;
}

static bool
listed(const pm_store *s, const char *sid)
{
	for (size_t i = 0; i < s->session_n; i++)
		if (strcmp(s->sessions[i].sid, sid) == 0)
			return true;
	return false;
}

/* One file of sessions/ or sessions/sent/ (any other name is not ours: left alone). */
static void
load_file(pm_store *s, int d, const char *name)
{
	int dfd = s->session_dir[d];
	char *text;
	size_t len;
	pm_session ss;
	if (strlen(name) != 36 + 8 || strcmp(name + 36, ".session") != 0 ||
	    pmi_store_slurp(dfd, name, SESSION_FILE_MAX, false, &text, &len, NULL) != PM_OK)
		return;
	bool ok = pmi_session_from_json(text, len, &ss) && valid_sid(ss.sid) && strncmp(name, ss.sid, 36) == 0;
	free(text);
	if (ok && !listed(s, ss.sid))
		add(s, &ss, d == SENT);
	else if (!ok && !s->read_only && pmi_store_unlink(dfd, name) == PM_OK)
		pmi_store_log("removed %s/%s: not a session postmortem wrote", dir_names[d], name);
}

static void
load_dir(pm_store *s, int d)
{
	int fd = s->session_dir[d] >= 0 ? dup(s->session_dir[d]) : -1;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (struct dirent *de; (de = readdir(dir)) != NULL;)
		load_file(s, d, de->d_name);
	closedir(dir);
}

static pm_err
fill_session(const void *ctx, pm_out *o)
{
	char *text = pmi_session_to_json(ctx);
	if (!text)
		return PM_E_NOMEM;
	pmi_out_str(o, text);
	pmi_out_ch(o, '\n');
	free(text);
	return PM_OK;
}

/* Free record slot of the runs file: a hole again where the file system can make one. */
static void
free_record(int runs, unsigned slot)
{
	off_t at = (off_t)slot * PMI_RUN_BYTES;
	if (fallocate(runs, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, at, PMI_RUN_BYTES) != 0) {
		static const char zeros[PMI_RUN_TEXT];
		(void)!pwrite(runs, zeros, sizeof zeros, at);
	}
}

/* A run that is over: its session, written (writable) and its record freed. */
static void
collect_record(pm_store *s, pmi_system *sys, const char *rec, unsigned slot)
{
	pmi_run run;
	if (!pmi_run_parse(rec, PMI_RUN_TEXT, &run)) {
		/* Locked by nobody and not whole: its writer died inside its write. */
		if (!s->read_only) {
			pmi_store_log("dropped run record %u of %s/%s: cut short or damaged", slot, s->root_path, PMI_RUNS_FILE);
			free_record(s->runs, slot);
		}
		return;
	}
	pm_session ss;
	pmi_session_close(s, &run, sys, &ss);
	if (listed(s, ss.sid)) {
		if (!s->read_only)
			free_record(s->runs, slot); /* collected before, its record not freed */
		return;
	}
	if (s->read_only) {
		add(s, &ss, false);
		return;
	}
	char name[64];
	pmi_session_file_name(&ss, name, sizeof name);
	if (s->session_dir[WAITING] >= 0 && pmi_store_write_file(s->session_dir[WAITING], name, fill_session, &ss) == PM_OK) {
		add(s, &ss, false);
		free_record(s->runs, slot);
	}
}

/* Whether nobody holds record slot (its run is over).  A writable store takes the
 * record's lock, so that no other store collects it meanwhile; unlock it afterwards. */
static bool
take(pm_store *s, unsigned slot)
{
	return s->read_only ? !pmi_run_held(s->runs, slot) : pmi_run_lock(s->runs, slot, F_WRLCK) == 0;
}

static void
collect(pm_store *s)
{
	if (s->runs < 0)
		return;
	pmi_system sys;
	bool sys_read = false;
	/* Only the file's data: records never written, or freed, are holes. */
	for (int slot = pmi_run_next(s->runs, 0); slot >= 0; slot = pmi_run_next(s->runs, (unsigned)slot + 1)) {
		char rec[PMI_RUN_TEXT] = { 0 };
		if (!take(s, (unsigned)slot))
			continue;
		if (pread(s->runs, rec, sizeof rec, (off_t)slot * PMI_RUN_BYTES) > 0 && rec[0] != 0) {
			if (!sys_read)
				pmi_system_init(&sys);
			sys_read = true;
			collect_record(s, &sys, rec, (unsigned)slot);
		}
		if (!s->read_only)
			pmi_run_lock(s->runs, (unsigned)slot, F_UNLCK);
	}
	if (sys_read)
		pmi_system_free(&sys);
}

static int
oldest_first(const void *a, const void *b)
{
	const pm_session *x = a, *y = b;
	if (x->sent != y->sent)
		return x->sent ? 1 : -1;
	if (x->started_us != y->started_us)
		return x->started_us < y->started_us ? -1 : 1;
	return strcmp(x->sid, y->sid);
}

/* Drop the oldest of sessions/ (or sent/) beyond max, saying how many on stderr. */
static void
cap(pm_store *s, int d, size_t max)
{
	size_t n = 0, dropped = 0;
	for (size_t i = 0; i < s->session_n; i++)
		n += s->sessions[i].sent == (d == SENT);
	/* Sorted oldest first: the first of the kind go. */
	for (size_t i = 0; i < s->session_n && n - dropped > max; i++) {
		pm_session *ss = &s->sessions[i];
		char name[64];
		pmi_session_file_name(ss, name, sizeof name);
		if (ss->sent != (d == SENT) || pmi_store_unlink(s->session_dir[d], name) != PM_OK)
			continue;
		ss->pid = 0; /* marks it dropped */
		dropped++;
	}
	if (dropped)
		pmi_store_log("dropped the %zu oldest sessions of %s/%s (over the cap of %zu)", dropped, s->root_path,
		              d == SENT ? PMI_SESSIONS_DIR "/sent" : PMI_SESSIONS_DIR, max);
	size_t k = 0;
	for (size_t i = 0; i < s->session_n; i++)
		if (s->sessions[i].pid != 0)
			s->sessions[k++] = s->sessions[i];
	s->session_n = k;
}

void
pmi_store_sessions_load(pm_store *s)
{
	s->sessions_loaded = true;
	s->runs = s->session_dir[WAITING] = s->session_dir[SENT] = -1;
	open_dirs(s);
	load_dir(s, WAITING);
	load_dir(s, SENT);
	collect(s);
	if (s->session_n)
		qsort(s->sessions, s->session_n, sizeof *s->sessions, oldest_first);
	if (!s->read_only) {
		cap(s, WAITING, MAX_WAITING);
		cap(s, SENT, MAX_SENT);
	}
	s->session_waiting = 0;
	while (s->session_waiting < s->session_n && !s->sessions[s->session_waiting].sent)
		s->session_waiting++;
}

void
pmi_store_sessions_free(pm_store *s)
{
	for (int d = WAITING; d <= SENT; d++)
		if (s->session_dir[d] >= 0)
			close(s->session_dir[d]);
	if (s->runs >= 0)
		close(s->runs);
	free(s->sessions);
	s->sessions = NULL;
	s->session_n = 0;
}

pm_err
pmi_store_session_mark_sent(pm_store *s, size_t i)
{
	if (s->read_only || !s->sessions_loaded || i >= s->session_n || s->session_dir[SENT] < 0)
		return PM_E_INVAL;
	pm_session *ss = &s->sessions[i];
	if (ss->sent)
		return PM_OK;
	char name[64];
	pmi_session_file_name(ss, name, sizeof name);
	pm_err e = pmi_store_move(s->session_dir[WAITING], name, s->session_dir[SENT], name);
	if (e == PM_OK)
		ss->sent = true;
	return e;
}

bool
pmi_store_session_waits(const pm_store *s, size_t i)
{
	struct stat st;
	char name[64];
	if (i >= s->session_n || s->sessions[i].sent || s->session_dir[WAITING] < 0)
		return false;
	pmi_session_file_name(&s->sessions[i], name, sizeof name);
	return fstatat(s->session_dir[WAITING], name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

bool
pmi_runs_held_by(int root, int64_t pid)
{
	int runs = openat(root, PMI_RUNS_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	bool held = false;
	for (int slot = runs < 0 ? -1 : pmi_run_next(runs, 0); !held && slot >= 0;
	     slot = pmi_run_next(runs, (unsigned)slot + 1)) {
		char rec[PMI_RUN_TEXT] = { 0 };
		pmi_run run;
		held = pread(runs, rec, sizeof rec, (off_t)slot * PMI_RUN_BYTES) > 0 && pmi_run_parse(rec, sizeof rec, &run) &&
		       run.pid == pid && pmi_run_held(runs, (unsigned)slot);
	}
	if (runs >= 0)
		close(runs);
	return held;
}

/* A read-only store collects when first asked (store.c); the reports it looks at are the
 * same then, and nothing on disk changes: a const store stays the same to its caller. */
static const pm_store *
loaded(const pm_store *s)
{
	if (s && !s->sessions_loaded)
		pmi_store_sessions_load((pm_store *)s);
	return s;
}

size_t
pmi_store_sessions_waiting(const pm_store *s)
{
	return loaded(s) ? s->session_waiting : 0;
}

size_t
pm_store_session_count(const pm_store *s)
{
	return loaded(s) ? s->session_n : 0;
}

const pm_session *
pm_store_session_get(const pm_store *s, size_t i)
{
	return loaded(s) && i < s->session_n ? &s->sessions[i] : NULL;
}
