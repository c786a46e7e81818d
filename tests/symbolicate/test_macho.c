/*
 * test_macho.c — Apple reports symbolicated with dSYMs found by UUID.
 *
 * programs/symb_macho.c is built as real arm64 and x86_64 macOS executables
 * with Debian's LLVM (tests/symbolicate/meson.build), and dsymutil gathers
 * their DWARF.  The tests put those files into .dSYM bundles in a fresh
 * directory, write Apple .crash reports whose frames point into the programs
 * at an ASLR slide, and symbolicate them.  What the report must say is taken
 * from LLVM's own tools, never from postmortem: UUIDs from llvm-dwarfdump,
 * addresses from llvm-nm and llvm-objdump, and llvm-symbolizer's answer for
 * every instruction; the LINE: markers of the source for the inlined chain.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "symb_util.h"
#include "util.h"

#define LOAD 0x104900000ull   /* where the report says the image was loaded */
#define TEXT 0x100000000ull   /* its __TEXT address at link time */
#define MAX_INSNS 64

/* Output of a shell command that must succeed (malloc'd). */
static char *
sh_out(const char *cmd)
{
	char *out;
	int st = pm_test_run(cmd, &out);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %s", cmd, out);
	return out;
}

static const char *
built(const char *name)
{
	return symb_program(name);
}

/* The UUID llvm-dwarfdump gives the slice `arch` of path, as 32 hex digits. */
static void
uuid_of(const char *path, const char *arch, char hex[33])
{
	char *cmd = symb_fmt("llvm-dwarfdump-14 --uuid '%s'", path);
	char *out = sh_out(cmd);
	char *want = symb_fmt("(%s)", arch);
	const char *line = out;
	for (; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *end = strchr(line, '\n');
		const char *at = strstr(line, want);
		if (strncmp(line, "UUID: ", 6) == 0 && at && (!end || at < end))
			break;
	}
	cr_assert_not_null(line, "no %s UUID in: %s", arch, out);
	size_t n = 0;
	for (const char *p = line + 6; n < 32 && *p != ' '; p++)
		if (*p != '-')
			hex[n++] = (char)(*p >= 'A' && *p <= 'F' ? *p - 'A' + 'a' : *p);
	hex[n] = '\0';
	cr_assert_eq(n, 32);
	free(want);
	free(out);
	free(cmd);
}

/* A symbol's address from llvm-nm ("_start"). */
static uint64_t
nm_addr(const char *path, const char *sym)
{
	char *cmd = symb_fmt("llvm-nm-14 '%s'", path);
	char *out = sh_out(cmd);
	char *key = symb_fmt(" T %s\n", sym);
	const char *at = strstr(out, key);
	cr_assert_not_null(at, "no %s in %s", sym, out);
	while (at > out && at[-1] != '\n')
		at--;
	uint64_t v = strtoull(at, NULL, 16);
	free(key);
	free(out);
	free(cmd);
	return v;
}

/* Instruction addresses of path's code, from llvm-objdump; *ret gets the return address of
 * the call start makes (the instruction after it). */
static size_t
instructions(const char *path, uint64_t *addrs, uint64_t *ret)
{
	char *cmd = symb_fmt("llvm-objdump-14 -d --no-show-raw-insn '%s'", path);
	char *out = sh_out(cmd);
	size_t n = 0;
	bool after_call = false;
	*ret = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char *colon;
		uint64_t a = strtoull(line, &colon, 16);
		if (colon == line || *colon != ':' || n == MAX_INSNS)
			continue;
		if (after_call && !*ret)
			*ret = a;
		after_call = strstr(colon, "\tbl\t") || strstr(colon, "call");
		addrs[n++] = a;
	}
	cr_assert_gt(n, 4, "%s", out);
	cr_assert_neq(*ret, 0, "no call in start");
	free(out);
	free(cmd);
	return n;
}

/* An Apple .crash report: thread 0 crashed at pc with caller ret (both link-time addresses),
 * then one thread per extra address, each a single exact pc. */
static char *
report(const char *name, const char *arch, const char *uuid, uint64_t pc, uint64_t ret, const uint64_t *extra,
       size_t n_extra)
{
	char *frames = symb_fmt("Thread 0 Crashed:\n"
	                        "0   %-30s\t0x%016llx 0x%llx + %llu\n"
	                        "1   %-30s\t0x%016llx 0x%llx + %llu\n",
	                        name, (unsigned long long)(pc - TEXT + LOAD), LOAD, (unsigned long long)(pc - TEXT),
	                        name, (unsigned long long)(ret - TEXT + LOAD), LOAD, (unsigned long long)(ret - TEXT));
	for (size_t i = 0; i < n_extra; i++) {
		char *more = symb_fmt("%s\nThread %zu:\n0   %-30s\t0x%016llx 0x%llx + %llu\n", frames, i + 1, name,
		                      (unsigned long long)(extra[i] - TEXT + LOAD), LOAD,
		                      (unsigned long long)(extra[i] - TEXT));
		free(frames);
		frames = more;
	}
	char *text = symb_fmt("Incident Identifier: 0B3C5E7A-1D2F-4A6B-9C8D-0E1F2A3B4C5D\n"
	                      "Process:             %s [4242]\n"
	                      "Code Type:           %s (Native)\n"
	                      "OS Version:          macOS 11.0 (20A2411)\n"
	                      "\n"
	                      "Exception Type:  EXC_BAD_ACCESS (SIGSEGV)\n"
	                      "Triggered by Thread:  0\n"
	                      "\n"
	                      "%s\n"
	                      "Binary Images:\n"
	                      "0x%llx - 0x%llx %s %s  <%s> /Applications/Symb.app/Contents/MacOS/%s\n",
	                      name, strcmp(arch, "arm64") == 0 ? "ARM-64" : "X86-64", frames, LOAD, LOAD + 0x3fff,
	                      name, arch, uuid, name);
	free(frames);
	return text;
}

static void
read_text(const char *text, pm_report *r)
{
	pm_read_error err;
	pm_report_init(r);
	cr_assert_eq(pm_read_report(text, strlen(text), r, &err), PM_OK, "%s", err.message);
}

static void
symbolicate(pm_report *r, const char *dir)
{
	const char *dirs[] = { dir };
	pm_symbolicate_options opt = { .debug_dirs = dirs, .debug_dir_count = 1 };
	cr_assert_eq(pm_symbolicate(r, &opt), PM_OK);
}

/* A debug dir holding `file` (built) as the bundle <bundle>.dSYM's DWARF file <bundle>. */
static char *
dsym_dir(const char *file, const char *bundle)
{
	char *dir = pm_test_tmpdir();
	symb_sh("mkdir -p '%s/%s.dSYM/Contents/Resources/DWARF' && cp '%s' '%s/%s.dSYM/Contents/Resources/DWARF/%s'",
	        dir, bundle, built(file), dir, bundle, bundle);
	return dir;
}

/* The crashed thread's frames: macho_inner, macho_middle (inlined) in macho_leaf; the caller start. */
static void
expect_chain(const pm_report *r)
{
	const pm_thread *t = &r->threads[0];
	cr_assert_eq(t->frame_count, 4, "frames: %u", t->frame_count);
	symb_expect_frame(&t->frames[0], "macho_inner", "programs/symb_macho.c", symb_marker_line("symb_macho.c", "inner"),
	                  true);
	symb_expect_frame(&t->frames[1], "macho_middle", "programs/symb_macho.c",
	                  symb_marker_line("symb_macho.c", "middle"), true);
	symb_expect_frame(&t->frames[2], "macho_leaf", "programs/symb_macho.c", symb_marker_line("symb_macho.c", "leaf"),
	                  false);
	symb_expect_frame(&t->frames[3], "start", "programs/symb_macho.c", symb_marker_line("symb_macho.c", "call"),
	                  false);
	cr_expect_gt(t->frames[0].column, 0);
	cr_expect_eq(t->frames[0].address, t->frames[2].address, "inlined frames share the address");
}

/* llvm-symbolizer's chain at an address, as "function file:line:column" lines. */
static char *
llvm_answer(const char *dwarf, uint64_t addr)
{
	char *cmd = symb_fmt("llvm-symbolizer-14 --obj='%s' --inlining --output-style=LLVM 0x%llx", dwarf,
	                     (unsigned long long)addr);
	char *out = sh_out(cmd);
	free(cmd);
	/* Pairs of lines (function, file:line:column); an empty line ends each address. */
	char *answer = strdup("");
	bool name = true;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char *more = symb_fmt("%s%s%s", answer, line, name ? " " : "\n");
		free(answer);
		answer = more;
		name = !name;
	}
	free(out);
	return answer;
}

static char *
our_answers(const pm_report *r)
{
	char *answer = strdup("");
	for (uint32_t i = 1; i < r->thread_count; i++)
		for (uint32_t k = 0; k < r->threads[i].frame_count; k++) {
			const pm_frame *f = &r->threads[i].frames[k];
			char *more = symb_fmt("%s%s %s:%u:%u\n", answer, f->symbol ? f->symbol : "??",
			                      f->file ? f->file : "??", f->line, f->column);
			free(answer);
			answer = more;
		}
	return answer;
}

/* Every instruction's answer equals llvm-symbolizer's; the crashed thread reads as the source says. */
static void
check_program(const char *arch, const char *exe, const char *dwarf, const char *debug_file, const char *dir)
{
	char uuid[33];
	uuid_of(built(exe), arch, uuid);
	uint64_t insns[MAX_INSNS], ret, pc = 0;
	size_t n = instructions(built(exe), insns, &ret);
	char *want = strdup("");
	for (size_t i = 0; i < n; i++) {
		char *one = llvm_answer(built(dwarf), insns[i]);
		/* The crashed thread stops where the innermost inlined function runs. */
		if (!pc && strncmp(one, "macho_inner ", 12) == 0)
			pc = insns[i];
		char *more = symb_fmt("%s%s", want, one);
		free(want);
		free(one);
		want = more;
	}
	cr_assert_neq(pc, 0, "no instruction of macho_inner: %s", want);
	char *text = report(exe, arch, uuid, pc, ret, insns, n);
	pm_report r;
	read_text(text, &r);
	symbolicate(&r, dir);
	cr_assert_not_null(r.images[0].debug_file, "note: %s", r.images[0].note ? r.images[0].note : "none");
	cr_expect(symb_ends_with(r.images[0].debug_file, debug_file), "%s", r.images[0].debug_file);
	expect_chain(&r);
	char *got = our_answers(&r);
	cr_expect_str_eq(got, want);
	free(want);
	free(got);
	pm_report_free(&r);
	free(text);
}

Test(macho, dsym_by_uuid_gives_functions_lines_and_inlined_frames)
{
	char *dir = dsym_dir("symb_macho_arm64.dwarf", "symb_macho_arm64");
	check_program("arm64", "symb_macho_arm64", "symb_macho_arm64.dwarf",
	              "symb_macho_arm64.dSYM/Contents/Resources/DWARF/symb_macho_arm64", dir);
	symb_sh("rm -rf '%s'", dir);
	free(dir);
}

/* A universal dSYM (arm64 + x86_64) under a bundle name the image does not have: found by
 * scanning the directory, and the slice is the report's arch. */
Test(macho, universal_dsym_gives_the_slice_of_the_report_arch)
{
	char *dir = dsym_dir("symb_macho_universal.dwarf", "Symb");
	check_program("x86_64", "symb_macho_x86_64", "symb_macho_x86_64.dwarf", "Symb.dSYM/Contents/Resources/DWARF/Symb",
	              dir);
	check_program("arm64", "symb_macho_arm64", "symb_macho_arm64.dwarf", "Symb.dSYM/Contents/Resources/DWARF/Symb",
	              dir);
	symb_sh("rm -rf '%s'", dir);
	free(dir);
}

static void
expect_untouched(const pm_report *r)
{
	cr_assert_eq(r->threads[0].frame_count, 2);
	for (uint32_t k = 0; k < 2; k++) {
		cr_expect_null(r->threads[0].frames[k].symbol);
		cr_expect_null(r->threads[0].frames[k].file);
	}
}

/* The same program built again has another UUID: its dSYM is refused, and the note says so. */
Test(macho, a_dsym_with_another_uuid_is_refused)
{
	char *dir = dsym_dir("symb_macho_other.dwarf", "symb_macho_arm64");
	char uuid[33], other[33];
	uuid_of(built("symb_macho_arm64"), "arm64", uuid);
	uuid_of(built("symb_macho_other"), "arm64", other);
	cr_assert_str_neq(uuid, other);
	uint64_t leaf = nm_addr(built("symb_macho_arm64"), "_macho_leaf");
	char *text = report("symb_macho_arm64", "arm64", uuid, leaf, nm_addr(built("symb_macho_arm64"), "_start") + 8,
	                    NULL, 0);
	pm_report r;
	read_text(text, &r);
	symbolicate(&r, dir);
	expect_untouched(&r);
	cr_expect_null(r.images[0].debug_file);
	char *want = symb_fmt("UUID mismatch: %s/symb_macho_arm64.dSYM/Contents/Resources/DWARF/symb_macho_arm64 has %s",
	                      dir, other);
	cr_assert_not_null(r.images[0].note);
	cr_expect(strstr(r.images[0].note, want) != NULL, "note: %s", r.images[0].note);
	cr_expect(strstr(r.images[0].note, "no debug file with UUID") != NULL, "note: %s", r.images[0].note);
	pm_report_free(&r);

	/* The right dSYM for another arch's slice is no answer either: a universal dSYM without
	 * an arm64 slice of this UUID. */
	symb_sh("rm -rf '%s'/* && cp '%s' '%s/symb_macho_arm64'", dir, built("symb_macho_x86_64.dwarf"), dir);
	read_text(text, &r);
	symbolicate(&r, dir);
	expect_untouched(&r);
	cr_expect(strstr(r.images[0].note, "no arm64 slice") != NULL, "note: %s", r.images[0].note);
	pm_report_free(&r);
	free(want);
	free(text);
	symb_sh("rm -rf '%s'", dir);
	free(dir);
}

/* Without a dSYM the executable's own LC_SYMTAB still names the functions. */
Test(macho, the_symbol_table_names_frames_without_a_dsym)
{
	char *dir = pm_test_tmpdir();
	symb_sh("cp '%s' '%s/symb_macho_arm64'", built("symb_macho_arm64"), dir);
	char uuid[33];
	uuid_of(built("symb_macho_arm64"), "arm64", uuid);
	uint64_t leaf = nm_addr(built("symb_macho_arm64"), "_macho_leaf");
	uint64_t start = nm_addr(built("symb_macho_arm64"), "_start");
	char *text = report("symb_macho_arm64", "arm64", uuid, leaf + 4, start + 12, NULL, 0);
	pm_report r;
	read_text(text, &r);
	symbolicate(&r, dir);
	const pm_thread *t = &r.threads[0];
	cr_assert_eq(t->frame_count, 2);
	cr_expect_str_eq(t->frames[0].symbol, "macho_leaf");
	cr_expect(t->frames[0].has_offset && t->frames[0].symbol_offset == 4);
	cr_expect_null(t->frames[0].file);
	cr_expect_str_eq(t->frames[1].symbol, "start");
	cr_expect_eq(t->frames[1].symbol_offset, 12);
	cr_expect(strstr(r.images[0].note, "no DWARF in") != NULL, "note: %s", r.images[0].note);
	pm_report_free(&r);
	free(text);
	symb_sh("rm -rf '%s'", dir);
	free(dir);
}

/* The arm64 program with its dSYM in a debug dir; the crash is at macho_leaf's first
 * instruction, the load of macho_inner (a leaf function has no prologue on arm64). */
typedef struct arm64_case {
	char *dir;
	char uuid[33];
	uint64_t leaf, ret;
} arm64_case;

static void
arm64_begin(arm64_case *c)
{
	c->dir = dsym_dir("symb_macho_arm64.dwarf", "symb_macho_arm64");
	uuid_of(built("symb_macho_arm64"), "arm64", c->uuid);
	uint64_t insns[MAX_INSNS];
	instructions(built("symb_macho_arm64"), insns, &c->ret);
	c->leaf = nm_addr(built("symb_macho_arm64"), "_macho_leaf");
}

static void
arm64_end(arm64_case *c)
{
	symb_sh("rm -rf '%s'", c->dir);
	free(c->dir);
}

/* An .ips report (Apple's JSON format: frames as image index + offset) reads into the same
 * model and gets the same answers. */
Test(macho, ips_reports_are_symbolicated_too)
{
	arm64_case c;
	arm64_begin(&c);
	char *ips = symb_fmt(
		"{\"app_name\":\"symb_macho_arm64\",\"bug_type\":\"309\",\"os_version\":\"macOS 11.0 (20A2411)\"}\n"
		"{\"procName\":\"symb_macho_arm64\",\"pid\":4242,\"cpuType\":\"ARM-64\",\"faultingThread\":0,"
		"\"osVersion\":{\"train\":\"macOS 11.0\",\"build\":\"20A2411\"},"
		"\"exception\":{\"type\":\"EXC_BAD_ACCESS\",\"signal\":\"SIGSEGV\"},"
		"\"threads\":[{\"triggered\":true,\"frames\":[{\"imageOffset\":%llu,\"imageIndex\":0},"
		"{\"imageOffset\":%llu,\"imageIndex\":0}]}],"
		"\"usedImages\":[{\"source\":\"P\",\"arch\":\"arm64\",\"base\":%llu,\"size\":16384,"
		"\"uuid\":\"%.8s-%.4s-%.4s-%.4s-%.12s\",\"name\":\"symb_macho_arm64\","
		"\"path\":\"/Applications/Symb.app/Contents/MacOS/symb_macho_arm64\"}]}\n",
		(unsigned long long)(c.leaf - TEXT), (unsigned long long)(c.ret - TEXT), LOAD, c.uuid, c.uuid + 8,
		c.uuid + 12, c.uuid + 16, c.uuid + 20);
	pm_report r;
	read_text(ips, &r);
	cr_assert_eq(r.format, PM_FORMAT_IPS);
	symbolicate(&r, c.dir);
	expect_chain(&r);
	pm_report_free(&r);
	free(ips);
	arm64_end(&c);
}

/* Tables built from the universal dSYM (one per slice) give llvm-symbolizer's answers too. */
Test(macho, tables_answer_as_the_dsym_does)
{
	char *dir = pm_test_tmpdir();
	symb_sh("'%s' symbols build '%s' -o '%s' > /dev/null", pm_test_build("tools/postmortem"),
	        built("symb_macho_universal.dwarf"), dir);
	check_program("x86_64", "symb_macho_x86_64", "symb_macho_x86_64.dwarf", ".pmsym", dir);
	check_program("arm64", "symb_macho_arm64", "symb_macho_arm64.dwarf", ".pmsym", dir);
	symb_sh("rm -rf '%s'", dir);
	free(dir);
}

/* The command line: a .crash report in, the JSON twin out, with the inlined chain. */
Test(macho, cli_symbolicates_an_apple_report)
{
	arm64_case c;
	arm64_begin(&c);
	char *text = report("symb_macho_arm64", "arm64", c.uuid, c.leaf, c.ret, NULL, 0);
	char *in = symb_fmt("%s/in.crash", c.dir), *out = symb_fmt("%s/out.json", c.dir);
	FILE *f = fopen(in, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	char *cmd = symb_fmt("'%s' symbolicate '%s' --debug-dir '%s' --to json -o '%s'", pm_test_build("tools/postmortem"),
	                     in, c.dir, out);
	free(sh_out(cmd));
	pm_report r;
	pm_read_error err;
	pm_report_init(&r);
	cr_assert_eq(pm_read_report_file(out, &r, &err), PM_OK, "%s", err.message);
	expect_chain(&r);
	pm_report_free(&r);
	free(cmd);
	free(in);
	free(out);
	free(text);
	arm64_end(&c);
}
