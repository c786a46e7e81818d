/*
 * test_symbolicate.c — pm_symbolicate on reports of real crashes of programs
 * built with -g -O2: known functions, files and lines; an always_inline
 * chain three deep; demangled C++; libc through libc6-dbg; and reports that
 * must pass through (twice symbolicated, Apple, empty).
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symb_util.h"
#include "formats/model/model.h"
#include "util.h"

static uint32_t
line_c(const char *marker)
{
	return symb_marker_line("symb_c.c", marker);
}

Test(symbolicate, known_functions_files_and_lines)
{
	crash_run run;
	symb_crash(&run, symb_program("symb_c"), "segv");
	pm_report *r = &run.json;
	const pm_thread *t = symb_crashed(r);
	uint32_t i = symb_frame(t, "symb_crash_here");
	uint64_t handler_offset = t->frames[i].symbol_offset;
	cr_assert_eq(pm_symbolicate(r, NULL), PM_OK);
	t = symb_crashed(r);
	i = symb_frame(t, "symb_crash_here");
	const pm_frame *f = &t->frames[i];
	symb_expect_frame(f, "symb_crash_here", "programs/symb_c.c", line_c("crash_here"), false);
	cr_expect_gt(f->column, 0);
	cr_expect_eq(f->symbol_offset, handler_offset, "the offset is from the symbol, as the handler wrote it");
	symb_expect_frame(&t->frames[i + 1], "symb_caller", "programs/symb_c.c", line_c("call_crash"), false);
	char exe[PATH_MAX];
	cr_assert(realpath(symb_program("symb_c"), exe));
	const pm_image *app = &r->images[f->image];
	cr_expect_str_eq(app->debug_file ? app->debug_file : "(none)", exe);
	cr_expect_null(app->note, "note: %s", app->note);
	crash_run_free(&run);
}

/*
 * A twin written before debug ids (build_id, uuid) and a .crash read without its
 * twin (debug ids only: the first 16 build-id bytes) find the same debug
 * information, for the app and for libc (libc6-dbg, by the whole build id).
 */
Test(symbolicate, old_twins_and_crash_text_alone)
{
	crash_run run;
	symb_crash(&run, symb_program("symb_c"), "segv");
	char *old = symb_fmt("%s/old.json", run.dir);
	symb_sh("sed -e 's/\"code_id\"/\"build_id\"/' -e 's/\"debug_id\"/\"uuid\"/' '%s' > '%s'", run.json_path, old);
	const char *const paths[] = { old, run.crash_path };
	for (size_t n = 0; n < 2; n++) {
		pm_report r;
		pm_read_error err;
		pm_report_init(&r);
		cr_assert_eq(pm_read_report_file(paths[n], &r, &err), PM_OK, "%s: %s", paths[n], err.message);
		cr_assert_eq(pm_symbolicate(&r, NULL), PM_OK);
		const pm_thread *t = symb_crashed(&r);
		uint32_t i = symb_frame(t, "symb_crash_here");
		symb_expect_frame(&t->frames[i], "symb_crash_here", "programs/symb_c.c", line_c("crash_here"), false);
		const pm_image *libc = crash_find_image(&r, "/libc.so.6");
		cr_assert(libc);
		cr_expect(libc->debug_file && strstr(libc->debug_file, "/usr/lib/debug/"), "%s: libc debug file %s",
		          paths[n], libc->debug_file ? libc->debug_file : libc->note);
		pm_report_free(&r);
	}
	free(old);
	crash_run_free(&run);
}

Test(symbolicate, always_inline_chain_shows_every_level)
{
	crash_run run;
	symb_crash(&run, symb_program("symb_c"), "inline");
	pm_report *r = &run.json;
	cr_assert_eq(pm_symbolicate(r, NULL), PM_OK);
	const pm_thread *t = symb_crashed(r);
	uint32_t i = symb_frame(t, "inline_level3");
	cr_assert_lt(i + 3, t->frame_count);
	const pm_frame *f = &t->frames[i];
	symb_expect_frame(&f[0], "inline_level3", "programs/symb_c.c", line_c("inline3"), true);
	symb_expect_frame(&f[1], "inline_level2", "programs/symb_c.c", line_c("inline2"), true);
	symb_expect_frame(&f[2], "inline_level1", "programs/symb_c.c", line_c("inline1"), true);
	symb_expect_frame(&f[3], "symb_inlined_host", "programs/symb_c.c", line_c("inline_host"), false);
	for (int k = 1; k < 4; k++) {
		cr_expect_eq(f[k].address, f[0].address, "every inlined level has the same address");
		cr_expect_eq(f[k].how, f[0].how);
		cr_expect_eq(f[k].image, f[0].image);
	}
	char *text = symb_text(r);
	const char *levels[][2] = {
		{ "inline_level3", "inline3" }, { "inline_level2", "inline2" }, { "inline_level1", "inline1" },
	};
	for (size_t k = 0; k < 3; k++) {
		char want[128];
		snprintf(want, sizeof want, "symb_c.c:%u) [inlined]\n", line_c(levels[k][1]));
		const char *at = strstr(text, want);
		cr_expect(at != NULL, "no line ending '%s' in\n%s", want, text);
		const char *bol = at;
		while (bol > text && bol[-1] != '\n')
			bol--;
		cr_expect(strstr(bol, levels[k][0]) && strstr(bol, levels[k][0]) < at, "%s is not on its line", levels[k][0]);
	}
	char host[128];
	snprintf(host, sizeof host, "symb_c.c:%u)\n", line_c("inline_host"));
	cr_expect(strstr(text, host), "the host frame is not printed with its line:\n%s", text);
	free(text);
	crash_run_free(&run);
}

Test(symbolicate, cxx_names_are_demangled)
{
	crash_run run;
	symb_crash(&run, symb_program("symb_cpp"), NULL);
	cr_assert_eq(pm_symbolicate(&run.json, NULL), PM_OK);
	const pm_thread *t = symb_crashed(&run.json);
	uint32_t i = symb_frame(t, "ns::Widget::explode(int)");
	symb_expect_frame(&t->frames[i], "ns::Widget::explode(int)", "programs/symb_cpp.cpp",
	                  symb_marker_line("symb_cpp.cpp", "explode"), false);
	symb_expect_frame(&t->frames[i + 1], "ns::Widget::run(int)", "programs/symb_cpp.cpp",
	                  symb_marker_line("symb_cpp.cpp", "run"), false);
	crash_run_free(&run);
}

Test(symbolicate, libc_frames_from_libc6_dbg)
{
	crash_run run;
	symb_crash(&run, symb_program("symb_c"), "abort");
	pm_report *r = &run.json;
	cr_assert_eq(pm_symbolicate(r, NULL), PM_OK);
	const pm_thread *t = symb_crashed(r);
	uint32_t i = symb_frame(t, "__pthread_kill_implementation");
	const pm_frame *f = &t->frames[i];
	cr_expect(symb_ends_with(f->file, "/pthread_kill.c"), "file %s", f->file ? f->file : "(none)");
	cr_expect_gt(f->line, 0);
	const pm_image *libc = &r->images[f->image];
	cr_expect(symb_ends_with(libc->path, "/libc.so.6"));
	cr_expect(libc->debug_file && strncmp(libc->debug_file, "/usr/lib/debug/.build-id/", 25) == 0,
	          "libc's debug file: %s (note: %s)", libc->debug_file ? libc->debug_file : "(none)",
	          libc->note ? libc->note : "(none)");
	symb_expect_frame(&t->frames[symb_frame(t, "symb_abort")], "symb_abort", "programs/symb_c.c", line_c("abort"),
	                  false);
	crash_run_free(&run);
}

Test(symbolicate, twice_is_the_same_as_once)
{
	crash_run run;
	symb_crash(&run, symb_program("symb_c"), "inline");
	pm_report again;
	pm_read_error err;
	pm_report_init(&again);
	cr_assert_eq(pm_read_report_file(run.json_path, &again, &err), PM_OK);
	cr_assert_eq(pm_symbolicate(&run.json, NULL), PM_OK);
	cr_assert_eq(pm_symbolicate(&again, NULL), PM_OK);
	cr_assert_eq(pm_symbolicate(&again, NULL), PM_OK);
	const char *where = NULL;
	cr_expect(pmi_report_equal(&run.json, &again, &where), "differs at %s", where);
	pm_report_free(&again);
	crash_run_free(&run);
}

/* Without its dSYMs an Apple report keeps every frame, and its images say why. */
Test(symbolicate, apple_reports_without_dsyms_keep_their_frames_demangled)
{
	const char *path = pm_test_shared("samples/apple/kscrash__BadPointer.txt");
	pm_report a, b;
	pm_read_error err;
	pm_report_init(&a);
	pm_report_init(&b);
	cr_assert_eq(pm_read_report_file(path, &a, &err), PM_OK);
	cr_assert_eq(pm_read_report_file(path, &b, &err), PM_OK);
	cr_assert_eq(a.os, PM_OS_DARWIN);
	cr_assert_eq(pm_symbolicate(&a, NULL), PM_OK);
	uint32_t noted = 0;
	for (uint32_t i = 0; i < a.image_count; i++) {
		if (a.images[i].note && strstr(a.images[i].note, "no debug file with UUID "))
			noted++;
		a.images[i].note = NULL;
	}
	cr_expect_gt(noted, 0, "no image says its dSYM was not found");
	/* Names are demangled all the same (WebCore's "_ZL12RunWebThreadPv"). */
	cr_expect_str_eq(a.threads[4].frames[5].symbol, "RunWebThread(void*)");
	cr_assert_eq(pm_demangle_report(&b), PM_OK);
	const char *where = NULL;
	cr_expect(pmi_report_equal(&a, &b, &where), "differs at %s", where);
	pm_report_free(&a);
	pm_report_free(&b);
}

Test(symbolicate, names_of_each_language_demangled)
{
	static const struct {
		const char *mangled, *plain;
	} cases[] = {
		{ "_ZN3app12parse_configEi", "app::parse_config(int)" },
		/* Legacy Rust: a C++-style name whose hash Rust's demangler drops. */
		{ "_ZN4core9panicking9panic_fmt17h0123456789abcdefE", "core::panicking::panic_fmt" },
		{ "_RNvNtCs1234_7mycrate3app12parse_config", "mycrate::app::parse_config" },
		{ "_D3std5stdio7writelnFZv", "std.stdio.writeln()" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *plain = pm_demangle(cases[i].mangled);
		cr_expect(plain && strcmp(plain, cases[i].plain) == 0, "%s: %s", cases[i].mangled, plain ? plain : "NULL");
		free(plain);
	}
	static const char *const plain_already[] = { "main", "_DYNAMIC", "_Z", "_R", "_start", "" };
	for (size_t i = 0; i < sizeof plain_already / sizeof *plain_already; i++)
		cr_expect_null(pm_demangle(plain_already[i]), "%s", plain_already[i]);
	cr_expect_null(pm_demangle(NULL));
}

Test(symbolicate, any_report_is_safe)
{
	pm_report r;
	pm_report_init(&r);
	cr_expect_eq(pm_symbolicate(&r, NULL), PM_OK, "a report without images or threads");
	cr_expect_eq(pm_symbolicate(NULL, NULL), PM_E_INVAL);
	pm_symbolicate_options bad = { .debug_dirs = NULL, .debug_dir_count = 1 };
	cr_expect_eq(pm_symbolicate(&r, &bad), PM_E_INVAL);
	pm_report_free(&r);
}

/* Paths from a report that are no files to read (a FIFO would block an open), and frames
 * pointing at no image, must not hang or crash anything. */
Test(symbolicate, hostile_paths_and_indexes)
{
	char *dir = pm_test_tmpdir(), *fifo = symb_fmt("%s/fifo", dir);
	symb_sh("mkfifo '%s'", fifo);
	const char *paths[] = { fifo, "/dev/zero", "/", "relative/lib.so", NULL };
	pm_image images[5] = { 0 };
	pm_frame frames[7] = { 0 };
	for (int i = 0; i < 5; i++) {
		images[i] = (pm_image){ .start = 0x1000 * (uint64_t)(i + 1), .size = 0x1000, .path = paths[i],
		                        .name = "lib.so", .build_id_len = i == 4 ? 0 : 20 };
		memset(images[i].build_id, 0xa0 + i, images[i].build_id_len);
		frames[i] = (pm_frame){ .address = images[i].start + 8, .image = i };
	}
	frames[5] = (pm_frame){ .address = 0x99, .image = 99 };
	frames[6] = (pm_frame){ .address = 0x98, .image = -1 };
	pm_thread t = { .frames = frames, .frame_count = 7 };
	pm_report r;
	pm_report_init(&r);
	r.os = PM_OS_LINUX;
	r.images = images;
	r.image_count = 5;
	r.threads = &t;
	r.thread_count = 1;
	cr_assert_eq(pm_symbolicate(&r, NULL), PM_OK);
	for (int i = 0; i < 5; i++)
		cr_expect(images[i].note && !images[i].debug_file, "image %d: note %s", i, images[i].note);
	cr_expect(strstr(images[4].note, "no build id"), "%s", images[4].note);
	cr_expect_eq(t.frame_count, 7);
	r.images = NULL;
	r.threads = NULL;
	pm_report_free(&r);
	symb_sh("rm -rf '%s'", dir);
	free(fifo);
	free(dir);
}
