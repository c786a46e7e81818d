/*
 * group.h — the door of formats/group: a report's crash group, its
 * signature and title (docs/grouping.md), and the pieces they are made of.
 *
 * AS-SAFE, all of it: the crash handler computes the group from the frames
 * it has (names from .symtab and .dynsym, mangled) and writes it into the
 * JSON twin; the readers compute it with the same code from the same frames
 * for a report that does not carry it.  No heap, no locale, no stdio; every
 * loop is bounded by its input or a constant.
 */
#ifndef PM_FORMATS_GROUP_H
#define PM_FORMATS_GROUP_H

#include <stdbool.h>
#include <stddef.h>

#include "postmortem-tools.h"

/* Frames of the crashed thread a signature is made of, once the crash
 * machinery is passed. */
#define PM_GROUP_FRAMES 3
/* Frames looked at, at most, for those and for the title's app frame. */
#define PM_GROUP_SCAN 128
/* A normalized name, NUL included; longer ones are cut (the same way on
 * every path, so a cut name still compares equal). */
#define PM_GROUP_NAME_MAX 256

/* ---- group.c ---- */

/* The group computed from r's crashed thread and exception, never the one it
 * carries: signature (PM_SIGNATURE_LEN hex digits and a NUL) and title
 * (NUL-terminated, at most PM_TITLE_MAX bytes). */
void pmi_group_compute(const pm_report *r, char signature[PM_SIGNATURE_LEN + 1], char title[PM_TITLE_MAX]);
/* Before a report's frames are renamed (symbolicated, demangled): it keeps the group its
 * frames as captured give, the one it carries or else the one computed now, so that the
 * report stays in its group whoever reads it later.  False when out of memory. */
bool pmi_group_keep(pm_report *r);
/* True when s is a signature as this library writes it: PM_SIGNATURE_LEN
 * lower-case hex digits. */
bool pmi_group_signature_valid(const char *s);

/* ---- group_name.c: names as a signature sees them ---- */

/*
 * A function's name normalized: a C++ or legacy Rust mangled name read by
 * pmi_group_itanium (else kept as it is), a demangled one without its
 * parameters, template arguments, return type, ABI tags and clone notes;
 * GCC's and LLVM's clone suffixes (.cold, .isra.0, ...), glibc's __GI_
 * alias prefix and its CPU variants (__strlen_avx2 is strlen) taken off.
 * Returns the length written to out (cap > 0; always NUL-terminated).
 */
size_t pmi_group_function(const char *name, char *out, size_t cap);
/* The same for a name that is not mangled (or that pmi_group_itanium
 * declined): the demangled-text path alone. */
size_t pmi_group_text_name(const char *name, char *out, size_t cap);
/* c is one of the characters of set (never the NUL). */
bool pmi_group_one_of(char c, const char *set);
/* An image's name as a signature sees it: its file name, without a shared
 * object's version ("libc.so.6" is "libc.so"). */
size_t pmi_group_image(const char *name, char *out, size_t cap);

/* ---- group_itanium.c ---- */

/*
 * The qualified name an Itanium C++ mangled name (or legacy Rust's, its hash
 * dropped) names, without template arguments, parameters or return type —
 * what pmi_group_text_name makes of the name libiberty demangles it to
 * ("_ZNSt6vectorIiSaIiEE9push_backEOi" is "std::vector::push_back").  Also a
 * type as the C++ runtime names it ("_ZSt13runtime_error").  False, with
 * nothing promised of out, for any form outside the subset it reads
 * (operators, local names, lambdas, special names, substitutions other than
 * std::): those names are normalized as text.  tests/unit/test_group.c holds
 * it to libiberty over every C++ and Rust symbol of the machine's libraries.
 */
bool pmi_group_itanium(const char *mangled, char *out, size_t cap);

/* ---- group_rust.c ---- */

/* The path a Rust v0 mangled name ("_R...") names, without the crate's hash: what
 * pmi_group_text_name makes of libiberty's demangling.  False for any form outside the
 * plain paths it reads (impls, generics, closures, back-references, Punycode). */
bool pmi_group_rust_v0(const char *mangled, char *out, size_t cap);

/* ---- group_skip.c: the crash machinery ---- */

/* True when a frame of this normalized function name belongs to the crash
 * machinery (signal trampolines, raise and abort, assert, the stack
 * protector and fortify, the allocator's internals, C++ and Rust runtimes'
 * terminate and panic paths) or to a thread's entry (_start, start_thread,
 * clone): never part of a signature. */
bool pmi_group_skipped(const char *function);
/* True for an image of postmortem's own (its frames are the capture's). */
bool pmi_group_own_image(const char *image);

#endif
