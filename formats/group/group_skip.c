/*
 * group_skip.c — AS-SAFE: the frames a signature passes (docs/grouping.md,
 * "The skip list").
 *
 * What runs between the bug and the signal says nothing about the bug: the
 * signal trampoline, raise and abort, assert's and the stack protector's
 * reporting, the allocator's checks that found a corrupted heap, the C++
 * runtime's terminate path and Rust's panic path.  Neither do the frames
 * that start every process and thread.  Names are matched normalized
 * (group_name.c), so __GI_raise and raise, _ZSt9terminatev and
 * std::terminate() are one entry each.  The same list serves every
 * signature, so changing it changes signatures: docs/grouping.md keeps it.
 */
#include "group.h"

#include <string.h>

enum { NAME_LEN = 48 };

/* Names that are exactly these.  Arrays of characters, not pointers: a pointer in a
 * static table is a relocation the loader applies at every start of every program that
 * links libpostmortem (docs/architecture.md, formats/decode). */
static const char exact[][NAME_LEN] = {
	/* signal trampolines */
	"__restore_rt", "__kernel_rt_sigreturn", "_sigtramp", "__sigreturn",
	/* raising a signal, aborting */
	"raise", "gsignal", "abort", "pthread_kill", "__pthread_kill", "__pthread_kill_implementation",
	"__pthread_kill_internal", "tgkill", "__abort_with_payload", "abort_with_payload",
	/* assert, the stack protector, fortify, glibc's fatal messages */
	"__assert_fail", "__assert_fail_base", "__assert_perror_fail", "__assert", "__assert_rtn",
	"__stack_chk_fail", "__stack_chk_fail_local", "__fortify_fail", "__fortify_fail_abort", "__chk_fail",
	"__libc_message", "__libc_message_impl", "__libc_fatal", "__libc_assert_fail",
	/* the allocator: entries and the internals whose checks abort on a corrupted heap */
	"malloc", "free", "calloc", "realloc", "reallocarray", "memalign", "posix_memalign", "aligned_alloc",
	"valloc", "pvalloc", "cfree", "__libc_malloc", "__libc_free", "__libc_calloc", "__libc_realloc",
	"__libc_memalign", "_mid_memalign", "malloc_printerr", "_int_malloc", "_int_free", "_int_free_merge_chunk",
	"_int_free_create_chunk", "_int_free_maybe_consolidate", "_int_realloc", "_int_memalign",
	"malloc_consolidate", "unlink_chunk", "sysmalloc", "tcache_get", "tcache_put", "tcache_init",
	"tcache_get_n", "tcache_put_n", "_Znwm", "_Znam", "_ZdlPv", "_ZdlPvm", "_ZdaPv", "_ZdaPvm",
	"_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t", "operator new", "operator new[]", "operator delete",
	"operator delete[]",
	/* the C++ runtime's terminate and throw paths */
	"std::terminate", "__cxxabiv1::__terminate", "__cxxabiv1::__unexpected", "std::unexpected",
	"__gnu_cxx::__verbose_terminate_handler", "__cxa_throw", "__cxa_rethrow", "__cxa_pure_virtual",
	"__cxa_deleted_virtual", "__cxa_call_terminate", "__cxa_call_unexpected", "__cxa_bad_cast",
	"__cxa_bad_typeid", "__cxa_throw_bad_array_new_length", "_Unwind_Resume", "_Unwind_RaiseException",
	"_Unwind_Resume_or_Rethrow", "std::rethrow_exception", "std::__terminate", "demangling_terminate_handler",
	/* the Objective-C and Swift runtimes' throw and trap paths, libc++abi's abort (Apple) */
	"objc_exception_throw", "_objc_terminate", "objc_terminate", "__exceptionPreprocess", "abort_message",
	"__abort", "_assertionFailure", "_fatalErrorMessage", "swift_unexpectedError",
	/* Rust's panic path */
	"rust_panic", "rust_begin_unwind", "__rust_start_panic", "__rust_abort", "__rust_drop_panic",
	"__rust_foreign_exception", "std::process::abort", "core::result::unwrap_failed",
	"core::option::unwrap_failed", "core::option::expect_failed",
	/* where every process and thread begins */
	"_start", "__libc_start_main", "__libc_start_call_main", "__libc_start_main_impl", "start_thread",
	"clone", "clone3", "__clone", "__clone3", "__clone_internal", "thread_start", "_pthread_start", "start",
	"__start",
};

/* Names that begin so. */
static const char prefixes[][NAME_LEN] = {
	"std::__throw_",          /* libstdc++'s throwers: std::__throw_out_of_range_fmt, ... */
	"__cxxabiv1::",           /* the C++ ABI library's own: __terminate, failed_throw, ... */
	"std::panicking::", "core::panicking::", "std::sys::pal::unix::abort_internal", "std::sys::abort_internal",
	"panic_abort::", "panic_unwind::", "std::rt::lang_start",
};

bool
pmi_group_skipped(const char *function)
{
	if (!function)
		return false;
	for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
		if (strcmp(function, exact[i]) == 0)
			return true;
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (strncmp(function, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

bool
pmi_group_own_image(const char *image)
{
	return image && strncmp(image, "libpostmortem", 13) == 0;
}
