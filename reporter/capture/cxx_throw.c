/*
 * cxx_throw.c — C++ exceptions as they are thrown, for the report of the
 * crash an uncaught one ends in (as KSCrash does on Apple platforms).
 *
 * libpostmortem defines __cxa_throw, which every `throw` calls, so a C++
 * program that loads it (linked, or LD_PRELOADed) calls this first.  It keeps
 * the type's name, what() when the object is a std::exception, and the
 * throw site's backtrace in the thrower's slot, then calls the real
 * __cxa_throw (the next definition: libstdc++'s).  The library stays C and
 * needs nothing from libstdc++: it is found with dlsym at the first throw,
 * and a C program never calls any of this.  Runs at throw time, in the
 * throwing thread: may use backtrace() (libgcc's unwinder, loaded already by
 * a program that throws) and dlsym, never in a signal handler.
 *
 * It lives in a section of its own so that the crash path can tell from a
 * stack whether the thread is still inside it: an exception nobody caught
 * ends in std::terminate called from within __cxa_throw.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "as_memory.h"
#include "cxx_throw.h"

#define HOOK __attribute__((section("pm_cxx_hook"), noinline))

extern char __start_pm_cxx_hook[], __stop_pm_cxx_hook[];

typedef void (*throw_fn)(void *obj, void *tinfo, void (*dest)(void *));
/* type_info::__do_catch(thrown type, &object, outer): the Itanium ABI's
 * virtual, slot 4 of a type_info's vtable (two destructors, __is_pointer_p,
 * __is_function_p); true when a handler of this type catches the object,
 * which it adjusts to the base subobject. */
typedef bool (*do_catch_fn)(const void *self, const void *thrown, void **obj, unsigned outer);
/* std::exception::what(), slot 2 of its vtable (after two destructors). */
typedef const char *(*what_fn)(const void *self);

/* ISO C has no cast from an object pointer to a function pointer; POSIX
 * (dlsym) and the ABI (vtables) make the copy meaningful. */
#define AS_FN(fn, ptr) do { void *p_ = (ptr); memcpy(&(fn), &p_, sizeof(fn)); } while (0)

static _Atomic(throw_fn) real_throw;
static const void *std_exception_ti; /* typeid(std::exception), NULL when there is none */
static HOOK throw_fn
resolve(void)
{
	throw_fn f = atomic_load_explicit(&real_throw, memory_order_acquire);
	if (f)
		return f;
	/* The next definition; RTLD_DEFAULT could find this one. */
	AS_FN(f, dlsym(RTLD_NEXT, "__cxa_throw"));
	std_exception_ti = dlsym(RTLD_DEFAULT, "_ZTISt9exception");
	/* The thread's id, asked of the kernel once per thread: a system call
	 * costs as much as the rest of the record. */
	pmi_tid_cache_start();
	atomic_store(&as_cxx_hook_lo, (uintptr_t)__start_pm_cxx_hook);
	atomic_store(&as_cxx_hook_hi, (uintptr_t)__stop_pm_cxx_hook);
	atomic_store_explicit(&real_throw, f, memory_order_release);
	return f;
}

/* The thread's slot: its own, else a free one near its hash, else the hashed one. */
static pm_cxx_throw *
slot_for(int32_t tid)
{
	uint32_t h = (uint32_t)tid * 2654435761u % PM_CXX_SLOTS;
	for (uint32_t i = 0; i < PM_CXX_PROBE; i++) {
		pm_cxx_throw *s = &as_cxx_throws[(h + i) % PM_CXX_SLOTS];
		int32_t owner = atomic_load_explicit(&s->tid, memory_order_relaxed);
		if (owner == tid || (owner == 0 && atomic_compare_exchange_strong(&s->tid, &owner, tid)))
			return s;
	}
	pm_cxx_throw *s = &as_cxx_throws[h];
	atomic_store(&s->tid, tid);
	return s;
}

static void
copy_cut(char *dst, size_t cap, const char *src, bool *cut)
{
	size_t n = strnlen(src, cap);
	*cut = n == cap;
	if (n == cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void
record_what(pm_cxx_throw *s, void *obj, const void *tinfo)
{
	s->has_what = false;
	if (!std_exception_ti)
		return;
	void *const *ti_vtable = *(void *const *const *)std_exception_ti;
	void *base = obj;
	do_catch_fn do_catch;
	AS_FN(do_catch, ti_vtable[4]);
	if (!do_catch(std_exception_ti, tinfo, &base, 1))
		return;
	void *const *vtable = *(void *const *const *)base;
	what_fn what_of;
	AS_FN(what_of, vtable[2]);
	const char *what = what_of(base);
	if (!what)
		return;
	copy_cut(s->what, sizeof s->what, what, &s->what_cut);
	s->has_what = true;
}

/* Inlined, so the backtrace's first frame is __cxa_throw itself. */
static inline __attribute__((always_inline)) void
record(void *obj, const void *tinfo)
{
	pm_cxx_throw *s = slot_for(as_sys_tid());
	atomic_fetch_add_explicit(&s->seq, 1, memory_order_acq_rel);
	void *frames[PM_CXX_FRAMES];
	int n = backtrace(frames, PM_CXX_FRAMES);
	s->frame_count = n > 0 ? (uint32_t)n : 0;
	for (uint32_t i = 0; i < s->frame_count; i++)
		s->frames[i] = (uintptr_t)frames[i];
	/* std::type_info: a vtable, then the mangled name ('*' first when local to its unit). */
	const char *name = ((const char *const *)tinfo)[1];
	bool cut;
	copy_cut(s->type, sizeof s->type, name && name[0] == '*' ? name + 1 : name ? name : "", &cut);
	record_what(s, obj, tinfo);
	atomic_fetch_add_explicit(&s->seq, 1, memory_order_release);
}

HOOK __attribute__((visibility("default"), noreturn)) void
__cxa_throw(void *obj, void *tinfo, void (*dest)(void *))
{
	throw_fn real = resolve();
	if (!real)
		abort();
	record(obj, tinfo);
	/* Called, not jumped to: this frame must stay on the stack. */
	real(obj, tinfo, dest);
	abort();
}
