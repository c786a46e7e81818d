/*
 * test_table.c — pre-parsed symbol tables (`postmortem symbols build`) give
 * exactly what symbolicating from the DWARF gives, and a table of another
 * build is refused.  (Apple images: test_macho.c checks a table against
 * llvm-symbolizer at every instruction.)
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "symb_util.h"
#include "util.h"

/* `postmortem symbols build FILE -o DIR`; the test fails unless it succeeds. */
static void
build_tables(const char *file, const char *dir)
{
	symb_sh("'%s' symbols build '%s' -o '%s' > /dev/null", pm_test_build("tools/postmortem"), file, dir);
}

static void
copy_report(const pm_report *from, pm_report *to)
{
	char *text = symb_text(from);
	pm_read_error err;
	pm_report_init(to);
	cr_assert_eq(pm_read_report(text, strlen(text), to, &err), PM_OK, "%s", err.message);
	free(text);
}

/* The same crash, symbolicated from the program's DWARF and from its table. */
Test(table, elf_table_answers_as_the_dwarf_does)
{
	crash_run run;
	symb_crash(&run, symb_program("symb_c"), "inline");
	char *dir = pm_test_tmpdir();
	build_tables(symb_program("symb_c"), dir);
	pm_report from_table;
	copy_report(&run.json, &from_table);
	cr_assert_eq(pm_symbolicate(&run.json, NULL), PM_OK);
	const char *dirs[] = { dir };
	pm_symbolicate_options opt = { .debug_dirs = dirs, .debug_dir_count = 1 };
	cr_assert_eq(pm_symbolicate(&from_table, &opt), PM_OK);
	const pm_thread *t = symb_crashed(&from_table);
	uint32_t i = symb_frame(t, "inline_level3");
	symb_expect_frame(&t->frames[i], "inline_level3", "programs/symb_c.c", symb_marker_line("symb_c.c", "inline3"),
	                  true);
	/* Everything else is the same, frame by frame; only where it came from differs. */
	uint32_t used = 0;
	for (uint32_t k = 0; k < from_table.image_count; k++) {
		pm_image *a = &run.json.images[k], *b = &from_table.images[k];
		if (b->debug_file && symb_ends_with(b->debug_file, ".pmsym")) {
			used++;
			a->debug_file = b->debug_file;
			a->note = b->note;
		}
	}
	cr_expect_eq(used, 1, "the program's image used its table");
	char *want = symb_text(&run.json), *got = symb_text(&from_table);
	cr_expect_str_eq(got, want);
	free(want);
	free(got);
	pm_report_free(&from_table);
	symb_sh("rm -rf '%s'", dir);
	free(dir);
	crash_run_free(&run);
}

/* A table renamed to another build's id is refused, and the DWARF answers instead. */
Test(table, a_table_of_another_build_is_refused)
{
	crash_run run;
	symb_crash(&run, symb_program("symb_c"), "segv");
	char *dir = pm_test_tmpdir();
	build_tables(symb_program("symb_c_other"), dir);
	const pm_thread *t = symb_crashed(&run.json);
	const pm_image *app = &run.json.images[t->frames[symb_frame(t, "symb_crash_here")].image];
	char hex[2 * PM_BUILD_ID_MAX + 1];
	for (unsigned k = 0; k < app->build_id_len; k++)
		snprintf(hex + 2 * k, 3, "%02x", app->build_id[k]);
	symb_sh("mv '%s'/*.pmsym '%s/%s.pmsym'", dir, dir, hex);
	const char *dirs[] = { dir };
	pm_symbolicate_options opt = { .debug_dirs = dirs, .debug_dir_count = 1 };
	cr_assert_eq(pm_symbolicate(&run.json, &opt), PM_OK);
	t = symb_crashed(&run.json);
	const pm_frame *f = &t->frames[symb_frame(t, "symb_crash_here")];
	app = &run.json.images[f->image];
	cr_expect(!symb_ends_with(app->debug_file, ".pmsym"), "debug file %s", app->debug_file);
	cr_assert_not_null(app->note);
	cr_expect(strstr(app->note, "id mismatch: the table holds 0badc0de") != NULL, "note: %s", app->note);
	symb_expect_frame(f, "symb_crash_here", "programs/symb_c.c", symb_marker_line("symb_c.c", "crash_here"), false);
	symb_sh("rm -rf '%s'", dir);
	free(dir);
	crash_run_free(&run);
}

/* Bad input: a clear error and a non-zero exit, never a crash. */
Test(table, symbols_build_refuses_what_it_cannot_read)
{
	char *dir = pm_test_tmpdir(), *out;
	char *cmd = symb_fmt("'%s' symbols build '%s' -o '%s'", pm_test_build("tools/postmortem"),
	                     pm_test_source("README.md"), dir);
	int st = pm_test_run(cmd, &out);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 1, "%s", out);
	cr_expect(strstr(out, "not an ELF file, nor a 64-bit Mach-O file") != NULL, "%s", out);
	free(out);
	free(cmd);
	/* A damaged table is refused as the DWARF takes over. */
	char magic[200] = "PMSYMTB1";
	char *bad = symb_fmt("%s/0000.pmsym", dir);
	FILE *f = fopen(bad, "wb");
	cr_assert_not_null(f);
	fwrite(magic, 1, sizeof magic, f);
	fclose(f);
	pm_report r;
	pm_report_init(&r);
	pm_image im = { .name = "x", .build_id = { 0, 0 }, .build_id_len = 2 };
	r.images = &im;
	r.image_count = 1;
	pm_frame fr = { .address = 0x10, .image = 0 };
	pm_thread th = { .frames = &fr, .frame_count = 1 };
	r.threads = &th;
	r.thread_count = 1;
	const char *dirs[] = { dir };
	pm_symbolicate_options opt = { .debug_dirs = dirs, .debug_dir_count = 1 };
	cr_assert_eq(pm_symbolicate(&r, &opt), PM_OK);
	cr_assert_not_null(im.note);
	cr_expect(strstr(im.note, "damaged symbol table") != NULL, "note: %s", im.note);
	r.images = NULL;
	r.image_count = 0;
	r.threads = NULL;
	r.thread_count = 0;
	pm_report_free(&r);
	symb_sh("rm -rf '%s'", dir);
	free(bad);
	free(dir);
}
