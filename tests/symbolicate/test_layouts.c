/*
 * test_layouts.c — where debug information comes from: a split debug file
 * through .gnu_debuglink, a .build-id tree and a plain directory given as
 * debug dirs; a stripped binary with nothing to find; files with the wrong
 * build id, which must be refused and named in the note.  Each test copies
 * a program into a temporary directory, rearranges it with objcopy and
 * crashes the copy.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symb_util.h"
#include "util.h"

static const char other_id[] = "0badc0de0badc0de0badc0de0badc0de0badc0de";

typedef struct layout {
	char *dir;               /* temporary directory */
	char *bin;               /* the copy that crashes: dir/name */
	char *dbg;               /* dir/dbg, for debug dirs */
	char id[256];            /* the copy's build id */
	char *id_path;           /* .build-id/xx/rest.debug for it */
	crash_run run;
} layout;

/* Copy program `name` to DIR/name, treated with objcopy `strip` (e.g.
 * "--strip-debug"); its debug info goes to DIR/name.full.debug first. */
static void
layout_make(layout *l, const char *name, const char *strip)
{
	l->dir = pm_test_tmpdir();
	l->bin = symb_fmt("%s/%s", l->dir, name);
	l->dbg = symb_fmt("%s/dbg", l->dir);
	const char *src = symb_program(name);
	symb_sh("objcopy --only-keep-debug '%s' '%s.full.debug' && objcopy %s '%s' '%s' && mkdir '%s'", src, l->bin,
	        strip, src, l->bin, l->dbg);
	snprintf(l->id, sizeof l->id, "%s", crash_readelf_build_id(l->bin));
	l->id_path = symb_fmt(".build-id/%.2s/%s.debug", l->id, l->id + 2);
	symb_sh("mkdir -p '%s/.build-id/%.2s'", l->dbg, l->id);
}

static void
layout_free(layout *l)
{
	crash_run_free(&l->run);
	symb_sh("rm -rf '%s'", l->dir);
	free(l->dir);
	free(l->bin);
	free(l->dbg);
	free(l->id_path);
}

/* Symbolicate the crash with dbg as the one debug dir. */
static void
layout_symbolicate(layout *l)
{
	const char *dirs[] = { "/nonexistent", l->dbg };
	pm_symbolicate_options opt = { .debug_dirs = dirs, .debug_dir_count = 2 };
	cr_assert_eq(pm_symbolicate(&l->run.json, &opt), PM_OK);
}

static void
expect_cxx_frames(const pm_report *r)
{
	const pm_thread *t = symb_crashed(r);
	uint32_t i = symb_frame(t, "ns::Widget::explode(int)");
	symb_expect_frame(&t->frames[i], "ns::Widget::explode(int)", "programs/symb_cpp.cpp",
	                  symb_marker_line("symb_cpp.cpp", "explode"), false);
}

static void
expect_debug_file(const pm_report *r, char *want)
{
	const pm_image *app = symb_app_image(r);
	cr_expect_str_eq(app->debug_file ? app->debug_file : "(none)", want, "note: %s", app->note ? app->note : "");
	free(want);
}

static void
expect_note(const pm_report *r, char *part)
{
	const pm_image *app = symb_app_image(r);
	cr_expect(app->note && strstr(app->note, part), "note '%s' lacks '%s'", app->note ? app->note : "(none)", part);
	free(part);
}

Test(layouts, split_debug_file_through_debuglink)
{
	layout l;
	layout_make(&l, "symb_cpp", "--strip-debug");
	symb_sh("cd '%s' && mv symb_cpp.full.debug symb_cpp.debug && objcopy --add-gnu-debuglink=symb_cpp.debug symb_cpp",
	        l.dir);
	symb_crash(&l.run, l.bin, NULL);
	cr_assert_eq(pm_symbolicate(&l.run.json, NULL), PM_OK);
	expect_debug_file(&l.run.json, symb_fmt("%s/symb_cpp.debug", l.dir));
	expect_cxx_frames(&l.run.json);
	layout_free(&l);
}

Test(layouts, build_id_tree_in_a_debug_dir)
{
	layout l;
	layout_make(&l, "symb_cpp", "--strip-debug");
	symb_sh("mv '%s.full.debug' '%s/%s'", l.bin, l.dbg, l.id_path);
	symb_crash(&l.run, l.bin, NULL);
	layout_symbolicate(&l);
	expect_debug_file(&l.run.json, symb_fmt("%s/%s", l.dbg, l.id_path));
	expect_cxx_frames(&l.run.json);
	layout_free(&l);
}

Test(layouts, plain_debug_dir)
{
	layout l;
	layout_make(&l, "symb_cpp", "--strip-all");
	symb_sh("mv '%s.full.debug' '%s/symb_cpp.debug'", l.bin, l.dbg);
	symb_crash(&l.run, l.bin, NULL);
	layout_symbolicate(&l);
	expect_debug_file(&l.run.json, symb_fmt("%s/symb_cpp.debug", l.dbg));
	expect_cxx_frames(&l.run.json);
	layout_free(&l);
}

Test(layouts, stripped_binary_says_why)
{
	layout l;
	layout_make(&l, "symb_c", "--strip-all");
	symb_crash(&l.run, l.bin, "segv");
	pm_report *r = &l.run.json;
	const pm_frame before = symb_crashed(r)->frames[0];
	layout_symbolicate(&l);
	cr_expect_null(symb_app_image(r)->debug_file);
	expect_note(r, symb_fmt("no debug file with build id %s found", l.id));
	expect_note(r, symb_fmt("stripped: no .debug_info in %s", l.bin));
	const pm_frame *after = &symb_crashed(r)->frames[0];
	cr_expect_null(after->file);
	cr_expect_str_eq(after->symbol ? after->symbol : "(none)", before.symbol ? before.symbol : "(none)",
	                 "frames keep the names the handler gave");
	layout_free(&l);
}

Test(layouts, wrong_build_id_is_refused)
{
	layout l;
	layout_make(&l, "symb_c", "--strip-debug");
	cr_assert_str_neq(l.id, other_id);
	const char *other = symb_program("symb_c_other");
	symb_sh("cp '%s' '%s/symb_c.debug' && cp '%s' '%s/%s'", other, l.dbg, other, l.dbg, l.id_path);
	symb_crash(&l.run, l.bin, "segv");
	layout_symbolicate(&l);
	cr_expect_null(symb_app_image(&l.run.json)->debug_file, "a file with another build id was used");
	expect_note(&l.run.json, symb_fmt("build id mismatch: %s/symb_c.debug has %s", l.dbg, other_id));
	expect_note(&l.run.json, symb_fmt("build id mismatch: %s/%s has %s", l.dbg, l.id_path, other_id));
	cr_expect_null(symb_crashed(&l.run.json)->frames[0].file, "no line may come from the wrong file");
	layout_free(&l);
}

Test(layouts, rebuilt_binary_at_the_recorded_path)
{
	layout l;
	layout_make(&l, "symb_c", "--strip-debug");
	symb_crash(&l.run, l.bin, "segv");
	/* After the crash the program is rebuilt (another build id); its old debug file is kept. */
	symb_sh("cp '%s' '%s' && mv '%s.full.debug' '%s/%s'", symb_program("symb_c_other"), l.bin, l.bin, l.dbg,
	        l.id_path);
	layout_symbolicate(&l);
	expect_debug_file(&l.run.json, symb_fmt("%s/%s", l.dbg, l.id_path));
	expect_note(&l.run.json, symb_fmt("build id mismatch: %s has %s", l.bin, other_id));
	const pm_thread *t = symb_crashed(&l.run.json);
	symb_expect_frame(&t->frames[symb_frame(t, "symb_crash_here")], "symb_crash_here", "programs/symb_c.c",
	                  symb_marker_line("symb_c.c", "crash_here"), false);
	layout_free(&l);
}
