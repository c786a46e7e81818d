/*
 * explain_runtime.c — frames of a language runtime's own abort path.
 *
 * A C++ exception that nobody catches, a Rust panic and a failed assert()
 * all end in abort(); the frames between the raise and the app's code belong
 * to the runtime (statically linked into the app, for Rust) and say nothing
 * about where the app went wrong, so "first frame in your code" passes them.
 * Names are matched as symbolicate and show print them (demangled), and in
 * their C++/legacy-Rust mangled form for reports nobody demangled.
 */
#include "explain.h"

#include <string.h>

/* Names that begin so belong to the runtime. */
static const char *const prefixes[] = {
	/* Rust's standard library and its panic runtimes. */
	"std::", "core::", "alloc::", "panic_abort::", "panic_unwind::",
	"rust_begin_unwind", "rust_panic", "__rust_", "__rustc::",
	"_ZN3std", "_ZN4core", "_ZN5alloc", "_ZN11panic_abort", "_ZN12panic_unwind",
	/* libstdc++ and its ABI library: std::terminate, the terminate handler, __cxa_throw. */
	"__cxa_", "__cxxabiv1::", "__gnu_cxx::__verbose_terminate_handler",
	"_ZSt", "_ZNSt", "_ZN10__cxxabiv1", "_ZN9__gnu_cxx27__verbose_terminate_handler",
	/* glibc's abort, raise and assert, under their internal names too. */
	"__assert_", "__GI_", "__pthread_kill", "__libc_message",
};

/* Names that are exactly these. */
static const char *const names[] = {
	"abort", "raise", "pthread_kill", "gsignal",
};

bool
pmi_explain_frame_in_runtime(const pm_frame *fr)
{
	const char *s = fr->symbol;
	if (!s)
		return false;
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(s, names[i]) == 0)
			return true;
	return false;
}
