/*
 * test_group_names.c — the names a signature is made of (formats/group,
 * docs/grouping.md): what the crash handler makes of a mangled name equals
 * what the readers make of the same name demangled by libiberty, over every
 * C++ and Rust symbol of the machine's libraries; and the normalizations
 * one by one.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/group/group.h"
#include "postmortem-tools.h"
#include "util.h"

static void
expect_function(const char *name, const char *want)
{
	char out[PM_GROUP_NAME_MAX];
	pmi_group_function(name, out, sizeof out);
	cr_expect_str_eq(out, want, "%s: %s, not %s", name, out, want);
}

Test(group_names, mangled)
{
	expect_function("_Z12parse_headerPKc", "parse_header");
	expect_function("_ZN2ns3Foo3barEi", "ns::Foo::bar");
	expect_function("_ZNK2ns3Foo3barEv", "ns::Foo::bar");
	expect_function("_ZNSt6vectorIiSaIiEE9push_backEOi", "std::vector::push_back");
	expect_function("_ZN3FooIiEC2Ev", "Foo::Foo");
	expect_function("_ZN3FooD0Ev", "Foo::~Foo");
	expect_function("_ZSt9terminatev", "std::terminate");
	expect_function("_Z3fooIiEvT_", "foo");
	expect_function("_ZN12_GLOBAL__N_15crashEv", "(anonymous namespace)::crash");
	expect_function("_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE10_M_replaceEmmPKcm",
	                "std::__cxx11::basic_string::_M_replace");
	expect_function("_ZN3fooB5cxx11Ev", "foo");
	expect_function("_ZL10file_localv", "file_local");
	expect_function("_Z3foov.cold", "foo");
	expect_function("_ZN4core9panicking5panic17h0123456789abcdefE", "core::panicking::panic");
	/* The C++ runtime's name for a thrown class. */
	expect_function("_ZSt13runtime_error", "std::runtime_error");
	expect_function("_ZN2ns5ErrorIiEE", "ns::Error");
	/* Outside the subset: kept as they are, clone suffixes and Rust's hash cut. */
	expect_function("_ZZ4mainENKUlvE_clEv", "_ZZ4mainENKUlvE_clEv");
	expect_function("_Znwm", "_Znwm");
	expect_function("_ZN50_$LT$alloc..string..String$u20$as$u20$core..fmt..Display$GT$3fmt17h3e1a5bd26ba3b6a4E",
	                "_ZN50_$LT$alloc..string..String$u20$as$u20$core..fmt..Display$GT$3fmt");
}

Test(group_names, demangled)
{
	expect_function("ns::Foo::bar(int) const", "ns::Foo::bar");
	expect_function("std::vector<int, std::allocator<int> >::push_back(int&&)", "std::vector::push_back");
	expect_function("void foo<int>(int)", "foo");
	expect_function("std::vector<int, std::allocator<int> > ns::make<int>()", "ns::make");
	expect_function("(anonymous namespace)::crash()", "(anonymous namespace)::crash");
	expect_function("foo[abi:cxx11]()", "foo");
	expect_function("foo(int) [clone .isra.0]", "foo");
	expect_function("Foo::operator()(int) const", "Foo::operator()");
	expect_function("Foo::operator<<(std::ostream&)", "Foo::operator<<");
	expect_function("operator new(unsigned long)", "operator new");
	expect_function("Foo::operator int() const", "Foo::operator int");
	expect_function("main::{lambda()#1}::operator()() const", "main::{lambda()#1}::operator()");
	expect_function("-[NSObject doesNotRecognizeSelector:]", "-[NSObject doesNotRecognizeSelector:]");
	expect_function("core::panicking::panic", "core::panicking::panic");
}

Test(group_names, rust_v0)
{
	expect_function("_RNvNtNtNtCsjrHSEGnQ3l9_3std3sys3pal4unix14abort_internal", "std::sys::pal::unix::abort_internal");
	expect_function("_RNvNtCs1234_3std7process5abort", "std::process::abort");
	expect_function("_RNvCs1234_10words_rust4main", "words_rust::main");
	/* Outside the plain paths: a closure, generics, an impl. */
	expect_function("_RNCNvCs1234_5krate4main0B3_", "_RNCNvCs1234_5krate4main0B3_");
}

Test(group_names, c_names)
{
	expect_function("parse_header", "parse_header");
	expect_function("parse_header.isra.0", "parse_header");
	expect_function("parse_header.constprop.0.isra.0", "parse_header");
	expect_function("parse_header.cold", "parse_header");
	expect_function("parse_header.part.0", "parse_header");
	expect_function("__GI_raise", "raise");
	expect_function("__GI___pthread_kill", "__pthread_kill");
	expect_function("__strlen_avx2", "strlen");
	expect_function("__strlen_evex", "strlen");
	expect_function("__memmove_avx_unaligned_erms", "memmove");
	expect_function("__strchr_sse2_no_bsf", "strchr");
	expect_function("__memcpy_simd", "memcpy");
	expect_function("__libc_start_main", "__libc_start_main");
	expect_function("__pthread_kill_implementation", "__pthread_kill_implementation");
	expect_function("memcpy@@GLIBC_2.14", "memcpy");
	expect_function("Foo.bar", "Foo.bar");
}

Test(group_names, images)
{
	static const char *const cases[][2] = {
		{ "/usr/lib/x86_64-linux-gnu/libc.so.6", "libc.so" },
		{ "libstdc++.so.6.0.30", "libstdc++.so" },
		{ "ld-linux-x86-64.so.2", "ld-linux-x86-64.so" },
		{ "libfoo.so", "libfoo.so" },
		{ "libfoo-1.2.so", "libfoo-1.2.so" },
		{ "crasher", "crasher" },
		{ "libsomething.so.6abc", "libsomething.so.6abc" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char out[PM_GROUP_NAME_MAX];
		pmi_group_image(cases[i][0], out, sizeof out);
		cr_expect_str_eq(out, cases[i][1], "%s", cases[i][0]);
	}
}

Test(group_names, skip_list)
{
	static const char *const skipped[] = {
		"raise", "abort", "__pthread_kill_implementation", "__assert_fail", "__stack_chk_fail",
		"malloc_printerr", "_int_free", "std::terminate", "__cxa_throw",
		"__gnu_cxx::__verbose_terminate_handler", "std::__throw_out_of_range_fmt", "__libc_start_call_main",
		"start_thread", "clone3", "core::panicking::panic", "operator new",
	};
	for (size_t i = 0; i < sizeof skipped / sizeof skipped[0]; i++)
		cr_expect(pmi_group_skipped(skipped[i]), "%s", skipped[i]);
	cr_expect(!pmi_group_skipped("parse_header"));
	cr_expect(!pmi_group_skipped("main"));
	cr_expect(!pmi_group_skipped("std::vector::push_back"));
	/* Through normalization: mangled and aliased names reach the same entries. */
	char out[PM_GROUP_NAME_MAX];
	pmi_group_function("_ZSt9terminatev", out, sizeof out);
	cr_expect(pmi_group_skipped(out));
	pmi_group_function("__GI_abort", out, sizeof out);
	cr_expect(pmi_group_skipped(out));
	pmi_group_function("_ZN9__gnu_cxx27__verbose_terminate_handlerEv", out, sizeof out);
	cr_expect(pmi_group_skipped(out));
}

/* Every mangled symbol of a library, through both paths. */
typedef struct tally {
	size_t seen, read, agreed;
	char first_bad[3][600];
} tally;

static void
compare_library(const char *path, bool dynamic, tally *t)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "nm %s --defined-only --format=posix '%s' 2>/dev/null", dynamic ? "-D" : "", path);
	FILE *f = popen(cmd, "r");
	cr_assert_not_null(f);
	char line[8192];
	while (fgets(line, sizeof line, f)) {
		char *sp = strchr(line, ' ');
		if (!sp || line[0] != '_' || (line[1] != 'Z' && line[1] != 'R'))
			continue;
		*sp = '\0';
		line[strcspn(line, "@")] = '\0'; /* nm's symbol version */
		t->seen++;
		char fast[PM_GROUP_NAME_MAX];
		if (line[1] == 'Z' ? !pmi_group_itanium(line, fast, sizeof fast) : !pmi_group_rust_v0(line, fast, sizeof fast))
			continue;
		t->read++;
		char *plain = pm_demangle(line);
		char slow[PM_GROUP_NAME_MAX];
		pmi_group_text_name(plain ? plain : line, slow, sizeof slow);
		if (strcmp(fast, slow) == 0) {
			t->agreed++;
		} else {
			for (size_t i = 0; i < 3; i++)
				if (!t->first_bad[i][0]) {
					snprintf(t->first_bad[i], sizeof t->first_bad[i], "%.120s: fast %.120s, libiberty %.120s (%.120s)", line,
					         fast, slow, plain ? plain : "-");
					break;
				}
		}
		free(plain);
	}
	pclose(f);
}

static const char *
find_rust_std(char *buf, size_t cap)
{
	FILE *f = popen("ls /usr/lib/rustlib/*/lib/libstd-*.so 2>/dev/null | head -1", "r");
	if (!f)
		return NULL;
	bool ok = fgets(buf, (int)cap, f) != NULL;
	pclose(f);
	if (!ok)
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* The crash handler's reading of a name and libiberty's agree wherever the first
 * reads one: libstdc++, LLVM (clang-14's: tens of thousands of C++ names), Rust's std
 * (legacy names), and a program of the tests' built with Rust's v0 names. */
Test(group_names, agrees_with_libiberty, .timeout = 120)
{
	char rust[512];
	const char *libs[] = {
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/usr/lib/aarch64-linux-gnu/libstdc++.so.6",
		"/usr/lib/llvm-14/lib/libLLVM-14.so.1",
		find_rust_std(rust, sizeof rust),
	};
	tally t = { 0 };
	size_t found = 0;
	for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
		FILE *f = libs[i] ? fopen(libs[i], "rb") : NULL;
		if (!f)
			continue;
		fclose(f);
		found++;
		compare_library(libs[i], true, &t);
	}
	/* Its symbol table: v0 names of Rust's std and of the program itself. */
	const char *v0 = pm_test_build("tests/crash_words_rust_v0");
	FILE *f = fopen(v0, "rb");
	if (f) {
		fclose(f);
		compare_library(v0, false, &t);
	}
	cr_assert(found >= 2, "libstdc++ and LLVM (make deps installs both)");
	cr_log_info("%zu mangled names, %zu read by the crash handler's reader, %zu agree with libiberty", t.seen,
	            t.read, t.agreed);
	for (size_t i = 0; i < 3; i++)
		cr_expect(!t.first_bad[i][0], "%s", t.first_bad[i]);
	cr_expect_eq(t.read, t.agreed);
	/* The subset is worth having: most names real code has are in it. */
	cr_expect(t.read * 2 > t.seen, "%zu of %zu", t.read, t.seen);
}
