/*
 * check_store.c — what must hold when the report store opens a directory
 * laid out from arbitrary bytes (checks.h).
 */
#include "fuzz/checks.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { MAX_CHUNKS = 32, NAME_MAX_LEN = 80, LISTING_MAX = 1 << 16 };
/* 2023-11-14: long before any run. */
static const time_t OLD_MTIME = 1700000000;
static const char *const places[] = { "pending", "sent", "quarantine", "" };

void
fuzz_remove_tree(const char *path)
{
	DIR *d = opendir(path);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			char sub[4096];
			snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
			struct stat st;
			if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
				fuzz_remove_tree(sub);
			else
				unlink(sub);
		}
		closedir(d);
	}
	rmdir(path);
}

/* One chunk into a file; names are cut at '/' and kept short. */
static void
lay_out_chunk(const char *root, const uint8_t *p, size_t n)
{
	if (n < 2)
		return;
	const char *place = places[p[0] % 4];
	const uint8_t *nl = memchr(p + 1, '\n', n - 1);
	size_t name_len = nl ? (size_t)(nl - (p + 1)) : n - 1;
	char name[NAME_MAX_LEN + 1];
	size_t k = 0;
	for (size_t i = 0; i < name_len && k < NAME_MAX_LEN; i++)
		name[k++] = p[1 + i] == '/' || p[1 + i] == 0 ? '_' : (char)p[1 + i];
	name[k] = '\0';
	if (k == 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return;
	char path[4096];
	snprintf(path, sizeof path, "%s/%s%s%s", root, place, *place ? "/" : "", name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	bool whole = true;
	if (nl) {
		size_t body = n - (size_t)(nl + 1 - p);
		whole = write(fd, nl + 1, body) == (ssize_t)body;
	}
	if (whole && !(p[0] & 4)) {
		const struct timespec old[2] = { { .tv_sec = OLD_MTIME }, { .tv_sec = OLD_MTIME } };
		futimens(fd, old);
	}
	close(fd);
}

static void
lay_out(const char *root, const uint8_t *data, size_t size)
{
	char path[4096];
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/%s", root, places[i]);
		mkdir(path, 0700);
	}
	size_t start = 0, chunks = 0;
	for (size_t i = 0; i + 1 < size && chunks < MAX_CHUNKS; i++) {
		if (data[i] == 0 && data[i + 1] == 0) {
			lay_out_chunk(root, data + start, i - start);
			chunks++;
			start = i + 2;
			i++;
		}
	}
	if (chunks < MAX_CHUNKS && start < size)
		lay_out_chunk(root, data + start, size - start);
}

/* "id state" a line, every state, in listing order, then "sid status errors" a session
 * (docs/store.md, "Sessions": the runs file at the top is collected); false when it does not fit. */
static bool
listing(pm_store *s, char *out, size_t cap)
{
	size_t len = 0;
	out[0] = '\0';
	for (int st = PM_STATE_PENDING; st <= PM_STATE_SENT; st++)
		for (size_t i = 0; i < pm_store_count(s, st); i++) {
			const pm_store_entry *e = pm_store_get(s, st, i);
			int w = snprintf(out + len, cap - len, "%s %d\n", e->id, st);
			if (w < 0 || (size_t)w >= cap - len)
				return false;
			len += (size_t)w;
		}
	for (size_t i = 0; i < pm_store_session_count(s); i++) {
		const pm_session *ss = pm_store_session_get(s, i);
		int w = snprintf(out + len, cap - len, "session %s %d %u\n", ss->sid, ss->status, ss->errors);
		if (w < 0 || (size_t)w >= cap - len)
			return false;
		len += (size_t)w;
	}
	return true;
}

/* A collected session is whole: an id Sentry takes, a known status, an end not before its start. */
static bool
sessions_sane(const pm_store *s, char *why, size_t cap)
{
	for (size_t i = 0; i < pm_store_session_count(s); i++) {
		const pm_session *ss = pm_store_session_get(s, i);
		if (strlen(ss->sid) != 36 || strspn(ss->sid, "0123456789abcdef-") != 36 || ss->pid <= 0)
			return fuzz_say(why, cap, "session %zu: sid '%s', pid %lld", i, ss->sid, (long long)ss->pid);
		if ((unsigned)ss->status > PM_SESSION_ABNORMAL || (ss->ended_us && ss->ended_us < ss->started_us))
			return fuzz_say(why, cap, "session %s: status %d, %lld to %lld", ss->sid, ss->status,
			                (long long)ss->started_us, (long long)ss->ended_us);
	}
	size_t n = 0, runs = 0;
	pm_release_stats *v = pm_store_release_stats(s, &n);
	for (size_t i = 0; i < n; i++)
		runs += v[i].runs;
	free(v);
	if (runs != pm_store_session_count(s))
		return fuzz_say(why, cap, "stats count %zu runs of %zu sessions", runs, pm_store_session_count(s));
	return true;
}

static bool
load_every_entry(pm_store *s, char *why, size_t cap)
{
	for (int st = PM_STATE_PENDING; st <= PM_STATE_SENT; st++)
		for (size_t i = 0; i < pm_store_count(s, st); i++) {
			const pm_store_entry *e = pm_store_get(s, st, i);
			pm_report r;
			pm_read_error err;
			memset(&err, 0, sizeof err);
			bool silent = pm_store_load(s, e->id, &r, &err) != PM_OK && err.message[0] == '\0';
			pm_report_free(&r);
			if (silent)
				return fuzz_say(why, cap, "listed report %s failed to load without saying why", e->id);
		}
	return true;
}

static bool
open_twice(const char *root, char *why, size_t cap)
{
	static char first[LISTING_MAX], second[LISTING_MAX];
	pm_store_options opt = { .dir = root };
	pm_store *s;
	if (pm_store_open(&s, &opt) != PM_OK)
		return true; /* refused as a whole: nothing listed, nothing to hold */
	bool listed = listing(s, first, sizeof first);
	bool ok = listed && load_every_entry(s, why, cap) && sessions_sane(s, why, cap);
	pm_store_close(s);
	if (!listed)
		return fuzz_say(why, cap, "listing too long");
	if (!ok)
		return false;
	if (pm_store_open(&s, &opt) != PM_OK)
		return fuzz_say(why, cap, "the second open failed");
	ok = listing(s, second, sizeof second);
	pm_store_close(s);
	if (!ok || strcmp(first, second) != 0)
		return fuzz_say(why, cap, "a second open lists differently:\n%s-- than the first:\n%s", second, first);
	return true;
}

bool
fuzz_check_store(const uint8_t *data, size_t size, char *why, size_t cap)
{
	char root[] = "/dev/shm/pm-fuzz-store-XXXXXX";
	if (!mkdtemp(root))
		return fuzz_say(why, cap, "mkdtemp %s failed", root);
	lay_out(root, data, size);
	bool ok = open_twice(root, why, cap);
	fuzz_remove_tree(root);
	return ok;
}

