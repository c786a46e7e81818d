/*
 * store_group_record.c — what storm control counted of one crash group:
 * pending/.groups/<signature> (docs/store.md, "Storm control").
 *
 *   postmortem-group 1
 *   signature 0123456789abcdef
 *   dropped 144             crashes whose report files storm control or the caps removed
 *   sent 6                  crashes delivered whose reports were then deleted
 *   told 140                of the dropped, how many a server was told of (upload)
 *   first 1732800000        when the first and the last of them all crashed
 *   last 1732800090
 *   app crasher             the app of the last
 *   title SIGSEGV in parse_header
 *
 * Written like every file the store writes (a hidden temporary, fsync,
 * rename), so a reader sees a whole record or the one before.  Read as
 * anyone may have written it: each line is taken only when it is one this
 * code writes, with a value in range; whatever does not read is rebuilt
 * (a count that does not read is 0: nothing else says what it was), and
 * the record is then written again whole.
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "group.h"

static const char magic[] = "postmortem-group 1";

enum {
	RECORD_MAX_BYTES = 4096,
	LOCK_TRIES = 200,            /* a millisecond apart: the lock is held for a few file writes */
};

/* Counts and times a record accepts: beyond them a value is not one this code wrote. */
static const uint64_t COUNT_MAX = UINT64_C(1) << 48;
static const int64_t TIME_MAX = INT64_C(1) << 40;

static bool
read_u64(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	if (n == 0 || n > 20 || (s[0] == '0' && n > 1))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (max - (uint64_t)(s[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

/* A text value: printable, without control bytes, shorter than cap. */
static bool
read_text(const char *s, size_t n, char *out, size_t cap)
{
	if (n == 0 || n >= cap)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	memcpy(out, s, n);
	out[n] = '\0';
	return true;
}

/* Which lines were seen, so that one written twice is not taken twice. */
enum { SEEN_SIGNATURE = 1, SEEN_DROPPED = 2, SEEN_TOLD = 4, SEEN_FIRST = 8, SEEN_LAST = 16, SEEN_APP = 32,
       SEEN_TITLE = 64, SEEN_SENT = 128 };

static bool
take_line(pm_group_record *rec, const char *key, size_t klen, const char *v, size_t n, unsigned *seen,
          const char *signature)
{
	uint64_t u;
#define KEY(k) (klen == sizeof k - 1 && memcmp(key, k, klen) == 0)
#define ONCE(bit) (!(*seen & (bit)) && (*seen |= (bit)))
	if (KEY("signature") && ONCE(SEEN_SIGNATURE))
		return n == PM_SIGNATURE_LEN && memcmp(v, signature, n) == 0;
	if (KEY("dropped") && ONCE(SEEN_DROPPED) && read_u64(v, n, COUNT_MAX, &u)) {
		rec->dropped = u;
		return true;
	}
	if (KEY("sent") && ONCE(SEEN_SENT) && read_u64(v, n, COUNT_MAX, &u)) {
		rec->sent = u;
		return true;
	}
	if (KEY("told") && ONCE(SEEN_TOLD) && read_u64(v, n, COUNT_MAX, &u)) {
		rec->told = u;
		return true;
	}
	if (KEY("first") && ONCE(SEEN_FIRST) && read_u64(v, n, (uint64_t)TIME_MAX, &u)) {
		rec->first = (int64_t)u;
		return true;
	}
	if (KEY("last") && ONCE(SEEN_LAST) && read_u64(v, n, (uint64_t)TIME_MAX, &u)) {
		rec->last = (int64_t)u;
		return true;
	}
	if (KEY("app") && ONCE(SEEN_APP))
		return read_text(v, n, rec->app, sizeof rec->app);
	if (KEY("title") && ONCE(SEEN_TITLE))
		return read_text(v, n, rec->title, sizeof rec->title);
	return false;
#undef KEY
#undef ONCE
}

/* What must hold of every record, whatever its file said. */
static bool
settle(pm_group_record *rec)
{
	bool ok = true;
	if (rec->told > rec->dropped) {
		rec->told = rec->dropped;
		ok = false;
	}
	if (rec->dropped == 0 && rec->sent == 0 && (rec->first || rec->last)) {
		rec->first = rec->last = 0;
		ok = false;
	}
	if (rec->first && rec->last && rec->first > rec->last) {
		int64_t t = rec->first;
		rec->first = rec->last;
		rec->last = t;
		ok = false;
	}
	return ok;
}

bool
pmi_group_record_parse(const char *data, size_t len, const char *signature, pm_group_record *rec)
{
	memset(rec, 0, sizeof *rec);
	memcpy(rec->signature, signature, PM_SIGNATURE_LEN + 1);
	bool whole = len <= RECORD_MAX_BYTES && len >= sizeof magic && memcmp(data, magic, sizeof magic - 1) == 0 &&
	             data[sizeof magic - 1] == '\n';
	if (!whole)
		return false; /* not a record of ours: nothing in it is taken */
	unsigned seen = 0;
	size_t at = sizeof magic;
	while (at < len) {
		const char *line = data + at;
		const char *nl = memchr(line, '\n', len - at);
		size_t n = nl ? (size_t)(nl - line) : len - at;
		at += n + 1;
		const char *sp = memchr(line, ' ', n);
		if (!nl || !sp) {
			whole = false; /* a line cut short, or no value */
			continue;
		}
		size_t klen = (size_t)(sp - line);
		if (!take_line(rec, line, klen, sp + 1, n - klen - 1, &seen, signature))
			whole = false;
		if (!whole && (seen & SEEN_SIGNATURE) && klen == 9 && memcmp(line, "signature", 9) == 0) {
			/* Another group's record under this one's name: nothing in it is this group's. */
			memset(rec, 0, sizeof *rec);
			memcpy(rec->signature, signature, PM_SIGNATURE_LEN + 1);
			return false;
		}
	}
	unsigned needed = SEEN_SIGNATURE | SEEN_DROPPED | SEEN_SENT | SEEN_TOLD | SEEN_FIRST | SEEN_LAST;
	whole &= (seen & needed) == needed;
	return settle(rec) && whole;
}

pm_err
pmi_group_record_format(const void *ctx, pm_out *o)
{
	const pm_group_record *rec = ctx;
	pmi_out_str(o, magic);
	pmi_out_str(o, "\nsignature ");
	pmi_out_str(o, rec->signature);
	pmi_out_str(o, "\ndropped ");
	pmi_out_u64(o, rec->dropped);
	pmi_out_str(o, "\nsent ");
	pmi_out_u64(o, rec->sent);
	pmi_out_str(o, "\ntold ");
	pmi_out_u64(o, rec->told);
	pmi_out_str(o, "\nfirst ");
	pmi_out_i64(o, rec->first);
	pmi_out_str(o, "\nlast ");
	pmi_out_i64(o, rec->last);
	pmi_out_ch(o, '\n');
	/* Text lines only when there is text: an empty value does not read back. */
	if (rec->app[0]) {
		pmi_out_str(o, "app ");
		pmi_out_str(o, rec->app);
		pmi_out_ch(o, '\n');
	}
	if (rec->title[0]) {
		pmi_out_str(o, "title ");
		pmi_out_str(o, rec->title);
		pmi_out_ch(o, '\n');
	}
	return PM_OK;
}

void
pmi_group_record_add(pm_group_record *rec, bool sent, int64_t time, const char *app, const char *title)
{
	uint64_t *count = sent ? &rec->sent : &rec->dropped;
	if (*count < COUNT_MAX)
		(*count)++;
	if (time > 0 && time <= TIME_MAX) {
		if (!rec->first || time < rec->first)
			rec->first = time;
		if (time > rec->last)
			rec->last = time;
	}
	if (app && *app)
		pmi_store_copy_printable(rec->app, sizeof rec->app, app);
	if (title && *title)
		pmi_store_copy_printable(rec->title, sizeof rec->title, title);
}

int
pmi_groups_open(int pending_fd, bool create)
{
	if (create && mkdirat(pending_fd, PM_GROUPS_DIR, 0700) != 0 && errno != EEXIST)
		return -1;
	int fd = openat(pending_fd, PM_GROUPS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	/* pending/ is ours alone (pmi_private_dir_open), so is what we made in it; anything
	 * else under this name is not ours to write into. */
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

bool
pmi_groups_lock(int groups_fd)
{
	for (int i = 0; i < LOCK_TRIES; i++) {
		if (flock(groups_fd, LOCK_EX | LOCK_NB) == 0)
			return true;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return false;
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
	return false;
}

bool
pmi_group_record_read(int groups_fd, const char *signature, pm_group_record *rec)
{
	char *data = NULL;
	size_t len = 0;
	pm_err e = pmi_store_slurp(groups_fd, signature, RECORD_MAX_BYTES + 1, true, &data, &len, NULL);
	if (e == PM_E_NOTFOUND) {
		memset(rec, 0, sizeof *rec);
		memcpy(rec->signature, signature, PM_SIGNATURE_LEN + 1);
		return true; /* none yet: nothing to rebuild */
	}
	bool whole = e == PM_OK && pmi_group_record_parse(data, len, signature, rec);
	if (e != PM_OK)
		pmi_group_record_parse("", 0, signature, rec);
	free(data);
	return whole;
}

pm_err
pmi_group_record_write(int groups_fd, const pm_group_record *rec)
{
	return pmi_store_write_file(groups_fd, rec->signature, pmi_group_record_format, rec);
}
