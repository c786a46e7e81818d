/*
 * test_system_bounds.c — the core handler's rules for what no user may
 * push past (docs/system-reporter.md, "Bounds", "One crash, one report"):
 * a report a process wrote itself is known by its pid and its start
 * (system/destination.c), never by a name a process chose; a spool at its
 * cap of reports or bytes takes no more (system/spool_caps.c); a uid has at
 * most PM_SLOTS_PER_UID reports under way, the crashes past them are
 * counted, and the machine has PM_SLOTLESS_AT_ONCE places for them to serve
 * the previous handler in (system/slots.c).  The slots' directory must be
 * root's: those tests run as root alone (the system suite runs them for
 * real).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "handler.h"
#include "util.h"

static char *root;
static int dir;

static void
make_root(void)
{
	root = pm_test_tmpdir();
	dir = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static void
remove_root(void)
{
	close(dir);
	pm_test_rmdir(root);
}

TestSuite(system_bounds, .init = make_root, .fini = remove_root);

static void
put(const char *name, const char *text, off_t size)
{
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0, "%s: %s", name, strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	if (size)
		cr_assert_eq(ftruncate(fd, size), 0);
	close(fd);
}

static bool
has(int pid, uint64_t ticks)
{
	char id[256];
	return pmi_dest_has_report(dir, pid, ticks, 0, id, sizeof id);
}

Test(system_bounds, its_own_report_by_pid_and_start)
{
	put("A0000000-0000-4000-8000-000000000001.json",
	    "{\"schema\":\"postmortem\",\"schema_version\":1,\"header\":{\"pid\":4242,\"start_ticks\":987654}}\n", 0);
	cr_expect(has(4242, 987654), "the JSON twin of its pid and start");
	cr_expect(!has(4242, 987655), "its pid, another start: a process before it with the same pid");
	cr_expect(!has(4243, 987654), "another pid");
	char id[256];
	cr_assert(pmi_dest_has_report(dir, 4242, 987654, 0, id, sizeof id));
	cr_expect_str_eq(id, "A0000000-0000-4000-8000-000000000001.crash");
}

Test(system_bounds, never_by_a_name)
{
	/* A .crash whose Process: line names the pid (a name with a newline wrote it), no twin. */
	put("B0000000-0000-4000-8000-000000000002.crash", "Process:               x [4242]\nPath: /x\n", 0);
	put(".B0000000-0000-4000-8000-000000000003.crash.tmp", "Process:               x [4242]\n", 0);
	/* A twin of no start (a writer before start_ticks), and one of another schema. */
	put("C0000000-0000-4000-8000-000000000004.json", "{\"schema\":\"postmortem\",\"header\":{\"pid\":4242}}", 0);
	put("D0000000-0000-4000-8000-000000000005.json",
	    "{\"schema\":\"other\",\"header\":{\"pid\":4242,\"start_ticks\":987654}}", 0);
	cr_expect(!has(4242, 987654));
}

Test(system_bounds, no_link_followed)
{
	char real[256];
	snprintf(real, sizeof real, "%s/../pm-twin-elsewhere.json", root);
	FILE *f = fopen(real, "w");
	cr_assert(f);
	fputs("{\"schema\":\"postmortem\",\"header\":{\"pid\":4242,\"start_ticks\":987654}}", f);
	fclose(f);
	cr_assert_eq(symlinkat(real, dir, "E0000000-0000-4000-8000-000000000006.json"), 0);
	cr_expect(!has(4242, 987654), "a link to a twin elsewhere is not this directory's");
	unlink(real);
}

Test(system_bounds, a_spool_at_its_caps)
{
	char why[256] = "", name[64];
	for (int i = 0; i < PM_SPOOL_MAX_REPORTS - 1; i++) {
		snprintf(name, sizeof name, "%08X-0000-4000-8000-000000000000.crash", i);
		put(name, "x", 0);
	}
	cr_expect(!pmi_spool_full(dir, why, sizeof why), "%d reports: room for one more (%s)",
	          PM_SPOOL_MAX_REPORTS - 1, why);
	put("FFFFFFFF-0000-4000-8000-000000000000.crash", "x", 0);
	cr_expect(pmi_spool_full(dir, why, sizeof why), "%d reports: full", PM_SPOOL_MAX_REPORTS);
	cr_expect(strstr(why, "at its cap") != NULL, "%s", why);
}

Test(system_bounds, a_spool_at_its_bytes)
{
	char why[256] = "";
	/* Blocks on the disk are what is counted: a sparse file takes none. */
	put("00000000-0000-4000-8000-000000000000.dmp", "", (off_t)PM_SPOOL_MAX_BYTES * 4);
	cr_expect(!pmi_spool_full(dir, why, sizeof why), "a hole takes no room (%s)", why);
	static char block[1 << 20];
	memset(block, 'x', sizeof block);
	int fd = openat(dir, "00000000-0000-4000-8000-000000000001.json", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	for (int i = 0; i < PM_SPOOL_MAX_BYTES >> 20; i++)
		cr_assert_eq(write(fd, block, sizeof block), (ssize_t)sizeof block);
	close(fd);
	cr_expect(pmi_spool_full(dir, why, sizeof why), "%d MiB written: full", PM_SPOOL_MAX_BYTES >> 20);
}

Test(system_bounds, a_uids_slots)
{
	if (geteuid() != 0)
		cr_skip_test("the slots' directory must be root's: run as root");
	char why[256];
	int64_t waited;
	int held[PM_SLOTS_PER_UID];
	for (int i = 0; i < PM_SLOTS_PER_UID; i++) {
		held[i] = pmi_slot_take(root, 4242, &waited, why, sizeof why);
		cr_assert_geq(held[i], 0, "slot %d: %s", i, why);
		cr_expect_eq(waited, 0, "a free slot is not waited for");
	}
	cr_expect_eq(pmi_slot_take(root, 4242, &waited, why, sizeof why), PM_SLOT_FULL, "one past them: none in time");
	cr_expect_geq(waited, PM_SLOT_WAIT_MS, "after waiting its time (%lld ms)", (long long)waited);
	int other = pmi_slot_take(root, 4343, &waited, why, sizeof why);
	cr_expect_geq(other, 0, "another uid has its own: %s", why);
	close(other);
	close(held[1]);
	int again = pmi_slot_take(root, 4242, &waited, why, sizeof why);
	cr_expect_geq(again, 0, "a slot let go is taken again: %s", why);
	cr_expect_eq(pmi_slot_count_over(root, 4242), 1);
	cr_expect_eq(pmi_slot_count_over(root, 4242), 2);
	cr_expect_eq(pmi_slot_take_over(root, 4242), 2, "the count said");
	cr_expect_eq(pmi_slot_take_over(root, 4242), 0, "and reset");
	struct stat st;
	char slots[256];
	snprintf(slots, sizeof slots, "%s/slots", root);
	cr_expect(stat(slots, &st) == 0 && st.st_uid == 0 && (st.st_mode & 0777) == 0700, "slots/ is root's, 0700");
	close(again);
	for (int i = 0; i < PM_SLOTS_PER_UID; i++)
		if (i != 1)
			close(held[i]);
}

typedef struct waiter {
	pthread_t thread;
	int slot;
	int64_t waited;
} waiter;

static void *
wait_for_slot(void *arg)
{
	waiter *w = arg;
	char why[256];
	w->slot = pmi_slot_take(root, 4444, &w->waited, why, sizeof why);
	return NULL;
}

/* Crashes past the slots wait in line, as many as the waiters, and get the slots let go. */
Test(system_bounds, a_uids_waiters)
{
	if (geteuid() != 0)
		cr_skip_test("the slots' directory must be root's: run as root");
	char why[256];
	int64_t waited;
	int held[PM_SLOTS_PER_UID];
	for (int i = 0; i < PM_SLOTS_PER_UID; i++)
		cr_assert_geq(held[i] = pmi_slot_take(root, 4444, &waited, why, sizeof why), 0, "%s", why);
	waiter w[PM_SLOT_WAITERS_PER_UID];
	for (int i = 0; i < PM_SLOT_WAITERS_PER_UID; i++)
		cr_assert_eq(pthread_create(&w[i].thread, NULL, wait_for_slot, &w[i]), 0);
	/* Every waiter's file held (each locks it before its first look at the slots): one more is turned away at once. */
	usleep(200 * 1000);
	cr_expect_eq(pmi_slot_take(root, 4444, &waited, why, sizeof why), PM_SLOT_FULL, "past the waiters: none");
	cr_expect_eq(waited, 0, "and not kept waiting");
	for (int i = 0; i < PM_SLOTS_PER_UID; i++)
		close(held[i]);
	int got = 0;
	for (int i = 0; i < PM_SLOT_WAITERS_PER_UID; i++) {
		pthread_join(w[i].thread, NULL);
		if (w[i].slot >= 0) {
			got++;
			cr_expect_gt(w[i].waited, 0, "a waiter that got one waited for it");
		}
	}
	/* The four let go go to four of them, who hold them to the end. */
	cr_expect_eq(got, PM_SLOTS_PER_UID, "%d waiters got a slot", got);
	for (int i = 0; i < PM_SLOT_WAITERS_PER_UID; i++)
		if (w[i].slot >= 0)
			close(w[i].slot);
}

/* Past its uid's slots and waiters, a crash serves the previous handler only
 * in one of the machine's PM_SLOTLESS_AT_ONCE places, whatever the uid: a
 * user's storm holds no more of the kernel's core_pipe_limit than those. */
Test(system_bounds, the_places_past_the_slots)
{
	if (geteuid() != 0)
		cr_skip_test("the slots' directory must be root's: run as root");
	char why[256];
	int64_t waited;
	int held[PM_SLOTLESS_AT_ONCE];
	for (int i = 0; i < PM_SLOTLESS_AT_ONCE; i++) {
		held[i] = pmi_slot_take_past(root, why, sizeof why);
		cr_assert_geq(held[i], 0, "place %d: %s", i, why);
	}
	cr_expect_eq(pmi_slot_take_past(root, why, sizeof why), PM_SLOT_FULL, "one past them: none");
	int mine = pmi_slot_take(root, 4545, &waited, why, sizeof why);
	cr_expect_geq(mine, 0, "a uid's own slots are not those: %s", why);
	close(mine);
	close(held[3]);
	held[3] = pmi_slot_take_past(root, why, sizeof why);
	cr_expect_geq(held[3], 0, "a place let go is taken again: %s", why);
	for (int i = 0; i < PM_SLOTLESS_AT_ONCE; i++)
		close(held[i]);
}
