/*
 * test_debuginfod.c — symbols from debuginfod (issue 34), end to end: a
 * program stripped of its DWARF crashes into a report, its debug file is
 * served by Debian's debuginfod on a loopback port started here, and the
 * real `postmortem` binary symbolicates the report: function, file:line and
 * inlined frames from a cold cache, then from the cache with the server
 * gone; the program gone from disk; only its executable served.  Servers
 * that refuse, never answer, or send garbage or another build's file;
 * libc from libc6-dbg's files through the server (with the progress line a
 * terminal shows); `symbols build --build-id`; the options.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dfd_util.h"
#include "util.h"

static uint32_t
line_c(const char *marker)
{
	return symb_marker_line("symb_c.c", marker);
}

static unsigned
count(const char *text, const char *needle)
{
	unsigned n = 0;
	for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/* The inline test's frames, each with its line: only DWARF gives them. */
static void
expect_inline_chain(const pm_report *r)
{
	const pm_thread *t = symb_crashed(r);
	uint32_t i = symb_frame(t, "inline_level3");
	cr_assert_lt(i + 3, t->frame_count);
	symb_expect_frame(&t->frames[i], "inline_level3", "programs/symb_c.c", line_c("inline3"), true);
	symb_expect_frame(&t->frames[i + 1], "inline_level2", "programs/symb_c.c", line_c("inline2"), true);
	symb_expect_frame(&t->frames[i + 2], "inline_level1", "programs/symb_c.c", line_c("inline1"), true);
	symb_expect_frame(&t->frames[i + 3], "symb_inlined_host", "programs/symb_c.c", line_c("inline_host"), false);
}

/* The frame named symbol has its name but no file: what the report had, nothing from DWARF. */
static void
expect_name_only(const pm_report *r, const char *symbol)
{
	const pm_thread *t = symb_crashed(r);
	const pm_frame *f = &t->frames[symb_frame(t, symbol)];
	cr_expect_null(f->file, "%s has a file (%s) without debug information", symbol, f->file);
}

/* Debug files the client's cache holds (the files it keeps are named for their kind). */
static unsigned
cached_debug_files(const dfd_lab *l)
{
	char *cmd = symb_fmt("find '%s/cache' -type f -name debuginfo | wc -l", l->dir), *out;
	cr_assert_eq(pm_test_run(cmd, &out), 0, "%s", out);
	unsigned n = (unsigned)strtoul(out, NULL, 10);
	free(out);
	free(cmd);
	return n;
}

static void
expect_in_cache(const dfd_lab *l, const pm_image *img)
{
	char *cache = dfd_path(l, "cache/");
	cr_expect(img->debug_file && strncmp(img->debug_file, cache, strlen(cache)) == 0,
	          "%s: debug file %s, not from the debuginfod cache", img->name, img->debug_file);
	cr_expect_null(img->note, "%s: %s", img->name, img->note);
	free(cache);
}

Test(debuginfod, cold_cache_then_the_cache_alone)
{
	dfd_lab l;
	dfd_lab_make(&l, "inline", 0);
	char *out;
	dfd_server s;
	dfd_lab_serve(&l, &s);
	pm_report r;
	cr_assert_eq(dfd_symbolicate(&l, s.url, "", "", &r, &out), 0, "%s", out);
	expect_inline_chain(&r);
	expect_in_cache(&l, symb_app_image(&r));
	cr_expect_eq(count(out, "symb_c:"), 0, "a note for the app: %s", out);
	pm_report_free(&r);
	free(out);
	dfd_stop(&s);
	cr_expect_eq(dfd_requests(&s, l.id, "debuginfo"), 1, "the debug file was asked once");
	cr_expect_eq(dfd_requests(&s, NULL, NULL), 1, "an image with local debug information (libc) was asked for");

	/* The server is gone: the cache answers, before any connection. */
	cr_assert_eq(dfd_symbolicate(&l, s.url, "", "", &r, &out), 0, "%s", out);
	expect_inline_chain(&r);
	expect_in_cache(&l, symb_app_image(&r));
	pm_report_free(&r);
	free(out);

	/* Local files only: the program has no DWARF, so that is where the lines came from. */
	cr_assert_eq(dfd_symbolicate(&l, s.url, "", "--no-debuginfod", &r, &out), 0, "%s", out);
	expect_name_only(&r, "symb_inlined_host");
	cr_expect(strstr(out, "symb_c: no debug file with build id "), "%s", out);
	pm_report_free(&r);
	free(out);
	dfd_server_free(&s);
	dfd_lab_free(&l);
}

Test(debuginfod, a_program_no_longer_on_disk)
{
	dfd_lab l;
	dfd_lab_make(&l, "segv", 0);
	cr_assert_eq(unlink(l.bin), 0);
	char *out;
	dfd_server s;
	dfd_lab_serve(&l, &s);
	pm_report r;
	/* Program headers and symbols come from the debug file, which keeps both. */
	cr_assert_eq(dfd_symbolicate(&l, s.url, "", "", &r, &out), 0, "%s", out);
	const pm_thread *t = symb_crashed(&r);
	uint32_t i = symb_frame(t, "symb_crash_here");
	symb_expect_frame(&t->frames[i], "symb_crash_here", "programs/symb_c.c", line_c("crash_here"), false);
	symb_expect_frame(&t->frames[i + 1], "symb_caller", "programs/symb_c.c", line_c("call_crash"), false);
	expect_in_cache(&l, symb_app_image(&r));
	pm_report_free(&r);
	free(out);
	dfd_server_free(&s);
	dfd_lab_free(&l);
}

Test(debuginfod, only_the_executable_served)
{
	/* The program ran without a symbol table, and is gone; the server has it with one, not its DWARF. */
	dfd_lab l;
	dfd_lab_make(&l, "segv", DFD_STRIP_ALL);
	const pm_thread *t = symb_crashed(&l.run.json);
	cr_assert_lt(crash_frame_index(&l.run.json, t, "symb_crash_here"), 0, "the report names symb_crash_here");
	cr_assert_eq(unlink(l.bin), 0);
	symb_sh("cd '%s' && rm serve/symb_c.debug && objcopy --strip-debug '%s' serve/symb_c", l.dir,
	        symb_program("symb_c"));
	char *out;
	dfd_server s;
	dfd_lab_serve(&l, &s);
	pm_report r;
	cr_assert_eq(dfd_symbolicate(&l, s.url, "", "", &r, &out), 0, "%s", out);
	expect_name_only(&r, "symb_crash_here");
	const pm_image *app = symb_app_image(&r);
	cr_expect(app->note && strstr(app->note, "no debug file on debuginfod") &&
	          strstr(app->note, "stripped: no .debug_info in http://127.0.0.1:"), "note: %s", app->note);
	pm_report_free(&r);
	free(out);
	dfd_stop(&s);
	cr_expect_eq(dfd_requests(&s, l.id, "debuginfo"), 1);
	cr_expect_eq(dfd_requests(&s, l.id, "executable"), 1);
	dfd_server_free(&s);
	dfd_lab_free(&l);
}

/*
 * Two images need the network (the program and libc under a new id); a server that refuses,
 * and one that takes the connection and never answers, each get one question in a run, the
 * run ends with exit 0 after DEBUGINFOD_TIMEOUT at most once, and the report's names stay.
 */
Test(debuginfod, dead_servers_are_asked_once_and_names_stay)
{
	dfd_lab l;
	dfd_lab_make(&l, "abort", DFD_LIBC);
	uint16_t port;
	int refusing = dfd_refusing_port(&port);
	char *url = symb_fmt("http://127.0.0.1:%u", port), *out;
	pm_report r;
	cr_assert_eq(dfd_symbolicate(&l, url, "DEBUGINFOD_TIMEOUT=1", "", &r, &out), 0, "%s", out);
	cr_expect_eq(count(out, "connection refused; not asked again for this report"), 1, "%s", out);
	expect_name_only(&r, "symb_abort");
	expect_name_only(&r, "abort");
	pm_report_free(&r);
	free(out);
	free(url);
	close(refusing);

	int silent = dfd_silent_port(&port);
	url = symb_fmt("http://127.0.0.1:%u", port);
	cr_assert_eq(dfd_symbolicate(&l, url, "DEBUGINFOD_TIMEOUT=1", "", &r, &out), 0, "%s", out);
	cr_expect_eq(count(out, "no answer within 1 s (DEBUGINFOD_TIMEOUT); not asked again for this report"), 1, "%s",
	             out);
	cr_expect_eq(dfd_connections(silent), 1, "the silent server was asked more than once");
	expect_name_only(&r, "symb_abort");
	expect_name_only(&r, "abort");
	pm_report_free(&r);
	free(out);

	/* The client's own retries, when DEBUGINFOD_RETRY_LIMIT asks for them. */
	cr_assert_eq(dfd_symbolicate(&l, url, "DEBUGINFOD_TIMEOUT=1 DEBUGINFOD_RETRY_LIMIT=1", "", &r, &out), 0, "%s",
	             out);
	cr_expect_eq(dfd_connections(silent), 2, "one question, tried twice");
	pm_report_free(&r);
	free(out);

	/* explain says it once too, and explains. */
	char *args = symb_fmt("explain '%s'", l.json);
	cr_assert_eq(dfd_cli(&l, url, "DEBUGINFOD_TIMEOUT=1", args, &out), 0, "%s", out);
	cr_expect_eq(count(out, "postmortem explain: debuginfod http://127.0.0.1:"), 1, "%s", out);
	cr_expect(strstr(out, "Top frames:"), "%s", out);
	cr_expect_eq(dfd_connections(silent), 1);
	free(out);
	free(args);
	free(url);
	close(silent);
	dfd_lab_free(&l);
}

Test(debuginfod, a_wrong_file_or_garbage_is_refused_and_not_kept)
{
	dfd_lab l;
	dfd_lab_make(&l, "segv", 0);
	char *plain = dfd_path(&l, "plain"), *work = dfd_path(&l, "work"), *out;
	char *served = symb_fmt("%s/buildid/%s/debuginfo", plain, l.id);
	symb_sh("mkdir -p '%s/buildid/%s' && objcopy --only-keep-debug '%s' '%s'", plain, l.id,
	        symb_program("symb_c_other"), served);
	dfd_server s;
	dfd_serve(&s, "plain", plain, work);
	pm_report r;
	cr_assert_eq(dfd_symbolicate(&l, s.url, "", "", &r, &out), 0, "%s", out);
	expect_name_only(&r, "symb_crash_here");
	char *want = symb_fmt("build id mismatch: %s/buildid/%s/debuginfo has 0badc0de0badc0de", s.url, l.id);
	cr_expect(strstr(out, want), "no '%s' in\n%s", want, out);
	cr_expect_eq(cached_debug_files(&l), 0, "the refused file stays in the cache");
	pm_report_free(&r);
	free(out);
	free(want);

	symb_sh("echo 'this is not a debug file' > '%s'", served);
	cr_assert_eq(dfd_symbolicate(&l, s.url, "", "", &r, &out), 0, "%s", out);
	expect_name_only(&r, "symb_crash_here");
	want = symb_fmt("%s/buildid/%s/debuginfo: not an ELF file", s.url, l.id);
	cr_expect(strstr(out, want), "no '%s' in\n%s", want, out);
	cr_expect_eq(cached_debug_files(&l), 0, "the garbage stays in the cache");
	pm_report_free(&r);
	free(out);
	free(want);

	/* Nothing bad was kept: once the server has the right file, it is asked again and used. */
	symb_sh("cp '%s/serve/symb_c.debug' '%s'", l.dir, served);
	cr_assert_eq(dfd_symbolicate(&l, s.url, "", "", &r, &out), 0, "%s", out);
	const pm_thread *t = symb_crashed(&r);
	symb_expect_frame(&t->frames[symb_frame(t, "symb_crash_here")], "symb_crash_here", "programs/symb_c.c",
	                  line_c("crash_here"), false);
	cr_expect_eq(cached_debug_files(&l), 1, "the right file is not kept (or not where this test looks)");
	pm_report_free(&r);
	free(out);
	dfd_stop(&s);
	cr_expect_eq(dfd_requests(&s, l.id, "debuginfo"), 3, "one question a run");
	dfd_server_free(&s);
	free(served);
	free(plain);
	free(work);
	dfd_lab_free(&l);
}

/* The crashed thread's libc frames as "name file:line" lines (malloc'd). */
static char *
libc_frames(const pm_report *r)
{
	const pm_thread *t = symb_crashed(r);
	char *text = strdup("");
	for (uint32_t i = 0; i < t->frame_count; i++) {
		const pm_frame *f = &t->frames[i];
		if (f->image < 0 || !symb_ends_with(r->images[f->image].path, "/libc.so.6"))
			continue;
		char *more = symb_fmt("%s%s %s:%u\n", text, f->symbol ? f->symbol : "?", f->file ? f->file : "?", f->line);
		free(text);
		text = more;
	}
	return text;
}

Test(debuginfod, libc_from_libc6_dbg_through_the_server, .timeout = 600)
{
	/* What libc6-dbg's file gives from /usr/lib/debug, for the same crash. */
	crash_run local;
	symb_crash(&local, symb_program("symb_c"), "abort");
	cr_assert_eq(pm_symbolicate(&local.json, NULL), PM_OK);
	char *want = libc_frames(&local.json);
	cr_assert(strstr(want, "abort ") && strstr(want, ".c:"), "libc6-dbg gave no lines:\n%s", want);
	crash_run_free(&local);

	dfd_lab l;
	dfd_lab_make(&l, "abort", DFD_LIBC);
	char *dest = dfd_path(&l, "out.json"), *out;
	dfd_server s;
	dfd_lab_serve(&l, &s);
	/* On a terminal (script(1) gives it one), a progress line while libc's 4 MB come.  script
	 * runs nothing when its standard input is closed (as CI may leave ours). */
	char *cmd = symb_fmt("script -qec \"DEBUGINFOD_URLS='%s' DEBUGINFOD_CACHE_PATH='%s/cache' '%s' symbolicate '%s'"
	                     " -o '%s'\" /dev/null < /dev/null",
	                     s.url, l.dir, pm_test_build("tools/postmortem"), l.json, dest);
	cr_assert_eq(pm_test_run(cmd, &out), 0, "%s", out);
	cr_expect(strstr(out, "\033[Kpostmortem symbolicate: downloading libc.so.6 from debuginfod: "),
	          "no progress line on the terminal:\n%s", out);
	cr_expect(symb_ends_with(out, " MiB\r\033[K"), "the progress line is not cleared:\n%s", out);
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	cr_assert_eq(pm_read_report_file(dest, &r, &err), PM_OK, "%s", err.message);
	char *got = libc_frames(&r);
	cr_expect_str_eq(got, want);
	expect_in_cache(&l, crash_find_image(&r, "/libc.so.6"));
	pm_report_free(&r);
	free(got);
	free(out);

	/* Not on a terminal: no progress line; a cold cache again, the same frames. */
	symb_sh("rm -rf '%s/cache'", l.dir);
	cr_assert_eq(dfd_symbolicate(&l, s.url, "", "", &r, &out), 0, "%s", out);
	cr_expect_eq(count(out, "downloading"), 0, "%s", out);
	got = libc_frames(&r);
	cr_expect_str_eq(got, want);
	pm_report_free(&r);
	free(got);
	free(out);
	dfd_stop(&s);
	cr_expect_eq(dfd_requests(&s, l.libc_id, "debuginfo"), 2, "once a run");
	dfd_server_free(&s);
	free(cmd);
	free(want);
	free(dest);
	dfd_lab_free(&l);
}

Test(debuginfod, symbols_build_by_build_id)
{
	dfd_lab l;
	dfd_lab_make(&l, "segv", 0);
	char *tables = dfd_path(&l, "tables"), *out;
	symb_sh("mkdir '%s'", tables);
	dfd_server s;
	dfd_lab_serve(&l, &s);
	char *args = symb_fmt("symbols build --build-id %s --build-id %s -o '%s'", l.id, l.id, tables);
	cr_assert_eq(dfd_cli(&l, s.url, "", args, &out), 0, "%s", out);
	char *table = symb_fmt("%s/%s.pmsym", tables, l.id);
	cr_expect(strstr(out, table), "%s", out);
	free(out);
	free(args);
	dfd_stop(&s);
	cr_expect_eq(dfd_requests(&s, l.id, "debuginfo"), 1, "each id once");

	/* The table answers, with no debug file, before the (now dead) server would be asked. */
	pm_report r;
	args = symb_fmt("--debug-dir '%s'", tables);
	cr_assert_eq(dfd_symbolicate(&l, s.url, "", args, &r, &out), 0, "%s", out);
	const pm_thread *t = symb_crashed(&r);
	symb_expect_frame(&t->frames[symb_frame(t, "symb_crash_here")], "symb_crash_here", "programs/symb_c.c",
	                  line_c("crash_here"), false);
	cr_expect_str_eq(symb_app_image(&r)->debug_file, table);
	cr_expect_eq(count(out, "debuginfod"), 0, "the server was asked: %s", out);
	pm_report_free(&r);
	free(out);
	free(args);

	cr_expect_eq(dfd_cli(&l, "", "", "symbols build --build-id 00112233445566778899aabbccddeeff00112233", &out), 1,
	             "%s", out);
	cr_expect(strstr(out, "postmortem symbols: 00112233445566778899aabbccddeeff00112233: no debug file with build id"),
	          "%s", out);
	cr_expect_eq(count(out, "\n"), 1, "%s", out);
	free(out);
	cr_expect_eq(dfd_cli(&l, "", "", "symbols build --build-id xyz", &out), 2, "%s", out);
	cr_expect(strstr(out, "not a build id"), "%s", out);
	free(out);
	dfd_server_free(&s);
	free(table);
	free(tables);
	dfd_lab_free(&l);
}

Test(debuginfod, the_options_override_the_environment)
{
	dfd_lab l;
	dfd_lab_make(&l, "inline", 0);
	char *out;
	dfd_server s;
	dfd_lab_serve(&l, &s);
	uint16_t port;
	int refusing = dfd_refusing_port(&port);
	char *dead = symb_fmt("http://127.0.0.1:%u", port);

	/* --no-debuginfod: the server of the environment is not asked. */
	pm_report r;
	cr_assert_eq(dfd_symbolicate(&l, s.url, "", "--no-debuginfod", &r, &out), 0, "%s", out);
	expect_name_only(&r, "symb_inlined_host");
	pm_report_free(&r);
	free(out);

	/* --debuginfod URL instead of the environment's (dead) server. */
	char *args = symb_fmt("--debuginfod %s", s.url);
	cr_assert_eq(dfd_symbolicate(&l, dead, "", args, &r, &out), 0, "%s", out);
	expect_inline_chain(&r);
	cr_expect_eq(count(out, "connection refused"), 0, "%s", out);
	pm_report_free(&r);
	free(out);
	free(args);

	/* explain too. */
	symb_sh("rm -rf '%s/cache'", l.dir);
	args = symb_fmt("explain '%s' --debuginfod %s", l.json, s.url);
	cr_assert_eq(dfd_cli(&l, dead, "", args, &out), 0, "%s", out);
	char *want = symb_fmt("symb_c.c:%u) [inlined]", line_c("inline3"));
	cr_expect(strstr(out, want), "no '%s' in\n%s", want, out);
	free(want);
	free(out);
	free(args);
	dfd_stop(&s);
	cr_expect_eq(dfd_requests(&s, l.id, "debuginfo"), 2, "asked by symbolicate and explain, not with --no-debuginfod");
	dfd_server_free(&s);
	close(refusing);
	free(dead);
	dfd_lab_free(&l);
}
