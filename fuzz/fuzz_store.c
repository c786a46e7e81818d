/*
 * fuzz_store.c — libFuzzer target for the report store reading a reports
 * directory it did not write: any names, torn and hostile files.
 *
 * The input describes a directory: chunks separated by a NUL pair, each
 * "<place byte><name>\n<content>", the place byte choosing pending/, sent/,
 * quarantine/ or the top, and whether the file is as old as a report left
 * by an earlier launch (a fixed date, so runs repeat) or just written.  The
 * target lays it out under /dev/shm and opens
 * the store there.  Properties: nothing crashes; every listed report loads
 * or says why not; and a second open finds the same reports in the same
 * states (the first one salvaged and quarantined all there was to).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "postmortem.h"

enum { MAX_CHUNKS = 32, NAME_MAX_LEN = 80 };
/* 2023-11-14: long before any run of this target. */
static const time_t OLD_MTIME = 1700000000;

static const char *const places[] = { "pending", "sent", "quarantine", "" };

static void
fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_store: %s: %s\n", what, detail);
	abort();
}

static void
remove_tree(const char *path)
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
				remove_tree(sub);
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
	if (nl) {
		size_t body = n - (size_t)(nl + 1 - p);
		if (write(fd, nl + 1, body) != (ssize_t)body)
			fail("write", path);
	}
	if (!(p[0] & 4)) {
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

/* "id state" per entry, every state, in listing order. */
static size_t
listing(pm_store *s, char *out, size_t cap)
{
	size_t len = 0;
	out[0] = '\0';
	for (int st = PM_STATE_PENDING; st <= PM_STATE_SENT; st++)
		for (size_t i = 0; i < pm_store_count(s, st); i++) {
			const pm_store_entry *e = pm_store_get(s, st, i);
			int w = snprintf(out + len, cap - len, "%s %d\n", e->id, st);
			if (w < 0 || (size_t)w >= cap - len)
				fail("listing", "too long");
			len += (size_t)w;
		}
	return len;
}

static void
load_every_entry(pm_store *s)
{
	for (int st = PM_STATE_PENDING; st <= PM_STATE_SENT; st++)
		for (size_t i = 0; i < pm_store_count(s, st); i++) {
			const pm_store_entry *e = pm_store_get(s, st, i);
			pm_report r;
			pm_read_error err;
			memset(&err, 0, sizeof err);
			if (pm_store_load(s, e->id, &r, &err) != PM_OK && err.message[0] == '\0')
				fail("a listed report failed to load without saying why", e->id);
			pm_report_free(&r);
		}
}

/* The reporter is not linked (under its pthread_create wrapper LeakSanitizer
 * takes libFuzzer's own thread start for a leak): no pm_install ran here. */
const char *
pm_reports_dir(void)
{
	return "";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char root[] = "/dev/shm/pm-fuzz-store-XXXXXX";
	if (!mkdtemp(root))
		fail("mkdtemp", root);
	lay_out(root, data, size);

	pm_store_options opt = { .dir = root };
	static char first[1 << 16], second[1 << 16];
	pm_store *s;
	if (pm_store_open(&s, &opt) == PM_OK) {
		listing(s, first, sizeof first);
		load_every_entry(s);
		pm_store_close(s);
		if (pm_store_open(&s, &opt) != PM_OK)
			fail("second open", root);
		listing(s, second, sizeof second);
		pm_store_close(s);
		if (strcmp(first, second) != 0)
			fail("a second open lists differently", second);
	}
	remove_tree(root);
	return 0;
}
