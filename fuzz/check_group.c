/*
 * check_group.c — what must hold when a crash group's record
 * (pending/.groups/<signature>, delivery/store/store_group_record.c) holds
 * arbitrary bytes (checks.h).
 */
#include "fuzz/checks.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "delivery/store/store.h"

static const char SIG[] = "0123456789abcdef";

static bool
printable(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);
	if (n == cap)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

/* What every record holds, whatever its file said. */
static bool
sane(const pm_group_record *r, char *why, size_t cap)
{
	if (strcmp(r->signature, SIG) != 0)
		return fuzz_say(why, cap, "the record is of %.20s, not %s", r->signature, SIG);
	if (r->told > r->dropped)
		return fuzz_say(why, cap, "told %llu of %llu dropped", (unsigned long long)r->told,
		                (unsigned long long)r->dropped);
	if (r->first < 0 || r->last < 0 || (r->first && r->last && r->first > r->last))
		return fuzz_say(why, cap, "first %lld, last %lld", (long long)r->first, (long long)r->last);
	if (r->dropped == 0 && r->sent == 0 && (r->first || r->last))
		return fuzz_say(why, cap, "times without crashes");
	if (!printable(r->app, sizeof r->app) || !printable(r->title, sizeof r->title))
		return fuzz_say(why, cap, "app or title not one printable line");
	return true;
}

static bool
same_record(const pm_group_record *a, const pm_group_record *b)
{
	return strcmp(a->signature, b->signature) == 0 && a->dropped == b->dropped && a->sent == b->sent &&
	       a->told == b->told && a->first == b->first && a->last == b->last && strcmp(a->app, b->app) == 0 &&
	       strcmp(a->title, b->title) == 0;
}

/* Written and read again, a record comes back whole and the same. */
static bool
round_trip(const pm_group_record *r, char *why, size_t cap)
{
	static char buf[8192];
	pm_out o;
	pmi_out_init_buf(&o, buf, sizeof buf);
	pmi_group_record_format(r, &o);
	if (o.overflow)
		return fuzz_say(why, cap, "a record does not fit in 8 KiB");
	pm_group_record again;
	if (!pmi_group_record_parse(buf, o.len, SIG, &again))
		return fuzz_say(why, cap, "a record as written does not read whole:\n%.*s", (int)o.len, buf);
	if (!same_record(r, &again))
		return fuzz_say(why, cap, "a record read back differs:\n%.*s", (int)o.len, buf);
	return true;
}

/* One pending report that carries the signature. */
static bool
write_report(const char *pending)
{
	pm_report r;
	pm_report_init(&r);
	r.kind = PM_KIND_CRASH;
	r.os = PM_OS_LINUX;
	r.complete = true;
	r.signature = SIG;
	r.title = "SIGSEGV in fuzzed";
	r.header.incident_id = "R";
	r.header.process_name = "app";
	r.header.pid = -1;
	r.header.parent_pid = -1;
	r.header.time = (pm_time){ .sec = 1700000000, .set = true };
	r.exception.terminating_pid = -1;
	r.exception.triggered_thread = -1;
	char path[4300];
	snprintf(path, sizeof path, "%.4096s/R.json", pending);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	bool ok = fd >= 0 && pm_write_report_fd(&r, PM_FORMAT_JSON, fd) == PM_OK;
	if (fd >= 0)
		close(fd);
	pm_report_free(&r);
	return ok;
}

static bool
group_count(const char *root, bool read_only, uint64_t *count)
{
	pm_store_options opt = { .dir = root, .read_only = read_only };
	pm_store *s;
	if (pm_store_open(&s, &opt) != PM_OK)
		return false;
	pm_store_group *g;
	size_t n;
	bool ok = pm_store_groups(s, NULL, &g, &n) == PM_OK && n == 1 && strcmp(g[0].signature, SIG) == 0;
	*count = ok ? g[0].count : 0;
	free(g);
	pm_store_close(s);
	return ok;
}

/* In a store beside a report of its group: counted as it reads, and once a store that may
 * write has opened, written again whole. */
static bool
in_a_store(const uint8_t *data, size_t size, const pm_group_record *parsed, char *why, size_t cap)
{
	char root[] = "/dev/shm/pm-fuzz-group-XXXXXX", path[256];
	if (!mkdtemp(root))
		return fuzz_say(why, cap, "mkdtemp failed");
	snprintf(path, sizeof path, "%s/pending", root);
	mkdir(path, 0700);
	bool ok = write_report(path);
	snprintf(path, sizeof path, "%s/pending/%s", root, PM_GROUPS_DIR);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/pending/%s/%s", root, PM_GROUPS_DIR, SIG);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ok = ok && fd >= 0 && write(fd, data, size) == (ssize_t)size;
	if (fd >= 0)
		close(fd);
	uint64_t count, want = 1 + parsed->dropped + parsed->sent;
	if (ok && (!group_count(root, true, &count) || count != want))
		ok = fuzz_say(why, cap, "a looking store counts %llu, not %llu", (unsigned long long)count,
		              (unsigned long long)want);
	else if (ok && (!group_count(root, false, &count) || count != want))
		ok = fuzz_say(why, cap, "a writing store counts %llu, not %llu", (unsigned long long)count,
		              (unsigned long long)want);
	if (ok) {
		char *text;
		size_t len;
		pm_group_record rec;
		snprintf(path, sizeof path, "%s/pending/%s", root, PM_GROUPS_DIR);
		int groups = open(path, O_RDONLY | O_DIRECTORY);
		if (pmi_store_slurp(groups, SIG, 1 << 16, false, &text, &len, NULL) != PM_OK ||
		    !pmi_group_record_parse(text, len, SIG, &rec) || !same_record(&rec, parsed))
			ok = fuzz_say(why, cap, "the record was not rebuilt whole by a store that may write");
		if (groups >= 0)
			close(groups);
		free(text);
	}
	fuzz_remove_tree(root);
	return ok;
}

bool
fuzz_check_group_record(const uint8_t *data, size_t size, char *why, size_t cap)
{
	pm_group_record rec;
	pmi_group_record_parse((const char *)data, size, SIG, &rec);
	return sane(&rec, why, cap) && round_trip(&rec, why, cap) && in_a_store(data, size, &rec, why, cap);
}
