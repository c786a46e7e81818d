/*
 * test_seam.c — the capture engine reads its target through one seam
 * (reporter/memory/as_target.h): a thread of another process, captured
 * live through a recorder (record_capture.c), is captured again here from
 * nothing but the bytes that capture read, saved to a file, behind a
 * target over a buffer (seam.c).  Same frames, same images, the same
 * memory in the minidump, and the same reads in the same order: a read
 * that went around the seam (to our own memory, which this process maps
 * elsewhere) would be missing from one of them.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash/crash_util.h"
#include "formats/minidump/minidump.h"
#include "reporter/landing/as_landing.h"
#include "seam.h"
#include "util.h"

/* The paths record_capture printed: its .crash, .json and .dmp. */
static void
run_recorder(const char *dir, const char *record, char paths[3][4096])
{
	char *cmd, *out;
	cr_assert(asprintf(&cmd, "'%s' '%s' '%s'", pm_test_build("tests/seam_record_capture"), dir, record) > 0);
	int status = pm_test_run(cmd, &out);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "record_capture failed: %s", out);
	cr_assert_eq(sscanf(out, "%4095s %4095s %4095s", paths[0], paths[1], paths[2]), 3, "record_capture said: %s", out);
	free(cmd);
	free(out);
}

static void
read_report(const char *path, pm_report *r)
{
	pm_report_init(r);
	pm_read_error err = { 0 };
	cr_assert_eq(pm_read_report_file(path, r, &err), PM_OK, "%s: %s", path, err.message);
}

static const pm_image *
image_of(const pm_report *r, const pm_frame *f)
{
	return f->image >= 0 && (uint32_t)f->image < r->image_count ? &r->images[f->image] : NULL;
}

/* The crashed thread of each report: every frame alike (address, how,
 * image, symbol). */
static void
check_same_frames(const pm_report *live, const pm_report *again)
{
	int32_t a = pm_report_crashed_thread(live), b = pm_report_crashed_thread(again);
	cr_assert(a >= 0 && b >= 0, "no crashed thread");
	const pm_thread *x = &live->threads[a], *y = &again->threads[b];
	cr_assert(x->frame_count >= 6, "the live walk found %u frames (%s)", x->frame_count, x->note ? x->note : "");
	cr_assert(crash_frame_index(live, x, "seam_inner") >= 0 && crash_frame_index(live, x, "seam_outer") >= 0,
	          "the live walk did not go through the worker's calls");
	cr_expect_eq(y->frame_count, x->frame_count, "%u frames from the buffer, %u live (%s)", y->frame_count,
	             x->frame_count, y->note ? y->note : "no note");
	for (uint32_t i = 0; i < x->frame_count && i < y->frame_count; i++) {
		const pm_frame *f = &x->frames[i], *g = &y->frames[i];
		const pm_image *fi = image_of(live, f), *gi = image_of(again, g);
		cr_expect_eq(g->address, f->address, "frame %u: 0x%llx, live 0x%llx", i, (unsigned long long)g->address,
		             (unsigned long long)f->address);
		cr_expect_eq(g->how, f->how, "frame %u: found by %d, live by %d", i, g->how, f->how);
		cr_expect(fi && gi && strcmp(fi->path, gi->path) == 0, "frame %u: not in the same image", i);
		cr_expect(f->symbol && g->symbol && strcmp(f->symbol, g->symbol) == 0 && f->symbol_offset == g->symbol_offset,
		          "frame %u: %s+%llu, live %s+%llu", i, g->symbol ? g->symbol : "?",
		          (unsigned long long)g->symbol_offset, f->symbol ? f->symbol : "?",
		          (unsigned long long)f->symbol_offset);
	}
}

/* Every image, at the same place, with the same build id. */
static void
check_same_images(const pm_report *live, const pm_report *again)
{
	cr_expect_eq(again->image_count, live->image_count, "%u images from the buffer, %u live", again->image_count,
	             live->image_count);
	for (uint32_t i = 0; i < live->image_count && i < again->image_count; i++) {
		const pm_image *a = &live->images[i], *b = &again->images[i];
		cr_expect(strcmp(a->path, b->path) == 0 && a->start == b->start && a->size == b->size &&
		          a->build_id_len == b->build_id_len && memcmp(a->build_id, b->build_id, a->build_id_len) == 0,
		          "image %u: %s at 0x%llx, live %s at 0x%llx", i, b->path, (unsigned long long)b->start, a->path,
		          (unsigned long long)a->start);
	}
}

/* The memory ranges a minidump keeps (its MemoryList: start, size, rva). */
static const uint8_t *
memory_list(const uint8_t *d, size_t len, uint32_t *count)
{
	cr_assert(len >= PM_MD_HEADER_SIZE && pm_md_get32(d) == PM_MD_SIGNATURE, "not a minidump");
	uint32_t streams = pm_md_get32(d + 8), dir = pm_md_get32(d + 12);
	for (uint32_t i = 0; i < streams && dir + (i + 1) * PM_MD_DIR_ENTRY_SIZE <= len; i++) {
		const uint8_t *e = d + dir + i * PM_MD_DIR_ENTRY_SIZE;
		uint32_t at = pm_md_get32(e + 8);
		if (pm_md_get32(e) == PM_MD_MEMORY_LIST && at + 4 <= len) {
			*count = pm_md_get32(d + at);
			cr_assert(at + 4 + (size_t)*count * PM_MD_MEMORY_DESC_SIZE <= len);
			return d + at + 4;
		}
	}
	cr_assert_fail("no MemoryList");
	return NULL;
}

/* The minidumps keep the same memory, byte for byte: the crashed thread's
 * stack and what its registers point at, read through the seam too. */
static void
check_same_memory(const char *live_path, const char *again_path)
{
	size_t a_len, b_len;
	char *a = pm_test_slurp(live_path, &a_len), *b = pm_test_slurp(again_path, &b_len);
	uint32_t a_n, b_n;
	const uint8_t *ad = (const uint8_t *)a, *bd = (const uint8_t *)b;
	const uint8_t *al = memory_list(ad, a_len, &a_n), *bl = memory_list(bd, b_len, &b_n);
	cr_assert_gt(a_n, 0, "the live minidump keeps no memory");
	cr_assert_eq(b_n, a_n, "%u ranges from the buffer, %u live", b_n, a_n);
	for (uint32_t i = 0; i < a_n; i++) {
		const uint8_t *x = al + i * PM_MD_MEMORY_DESC_SIZE, *y = bl + i * PM_MD_MEMORY_DESC_SIZE;
		uint32_t size = pm_md_get32(x + 8), xa = pm_md_get32(x + 12), ya = pm_md_get32(y + 12);
		cr_assert(pm_md_get64(x) == pm_md_get64(y) && size == pm_md_get32(y + 8), "range %u differs", i);
		cr_assert(xa + size <= a_len && ya + size <= b_len);
		cr_expect(memcmp(ad + xa, bd + ya, size) == 0, "range %u at 0x%llx: other bytes", i,
		          (unsigned long long)pm_md_get64(x));
	}
	free(a);
	free(b);
}

Test(seam, a_recorded_capture_reads_back_the_same_frames_from_a_buffer, .timeout = 120)
{
	char *dir = pm_test_tmpdir(), *again_dir = pm_test_tmpdir(), *record, paths[3][4096];
	cr_assert(asprintf(&record, "%s/capture.seam", dir) > 0);
	run_recorder(dir, record, paths);

	static seam_record saved;
	static seam_storage storage;
	cr_assert(seam_load(&saved, record), "%s: %s", record, strerror(errno));
	cr_assert_gt(saved.count, 0);
	cr_assert_gt(saved.mapping_count, 0);
	/* The buffer, read through a recorder of its own. */
	as_target buffer = seam_buffer(&saved);
	static seam_record replay;
	as_target target = seam_recorder(&replay, &buffer.mem, saved.maps, saved.maps_len);
	target.pid = saved.pid;
	int fd = open(again_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	char *exe = realpath(pm_test_build("tests/seam_record_capture"), NULL);
	cr_assert_not_null(exe);
	seam_storage_init(&storage, exe);
	as_capture_ctx c = seam_ctx(&storage, &target, saved.tid, &saved.mc, again_dir, fd);
	as_capture_stopped(&c, 1);
	cr_assert(as_write_report(&c), "the capture from the buffer was not written");
	cr_assert(as_write_minidump(&c), "its minidump was not written");

	pm_report live, again;
	read_report(paths[1], &live);
	read_report(c.json_path, &again);
	check_same_frames(&live, &again);
	check_same_images(&live, &again);
	check_same_memory(paths[2], c.minidump_path);
	cr_expect_eq(replay.count, saved.read_count, "%zu reads from the buffer, %zu recorded", replay.count,
	             saved.read_count);
	for (size_t i = 0; i < replay.count && i < saved.read_count; i++)
		cr_assert(replay.spans[i].addr == saved.reads[i].addr && replay.spans[i].len == saved.reads[i].len,
		          "read %zu: %zu bytes at 0x%llx, recorded %zu at 0x%llx", i, replay.spans[i].len,
		          (unsigned long long)replay.spans[i].addr, saved.reads[i].len,
		          (unsigned long long)saved.reads[i].addr);

	pm_report_free(&live);
	pm_report_free(&again);
	free(exe);
	close(fd);
	seam_storage_free(&storage);
	seam_record_free(&replay);
	seam_record_free(&saved);
	free(record);
	pm_test_rmdir(again_dir);
	pm_test_rmdir(dir);
}
