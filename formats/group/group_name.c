/*
 * group_name.c — AS-SAFE: function and image names as a signature sees
 * them (docs/grouping.md, "Names").
 *
 * A name from the crash handler (.symtab, .dynsym: mangled; C++ and legacy
 * Rust read by group_itanium.c, Rust v0 by group_rust.c), from DWARF or
 * a demangler (C++ as libiberty prints it), or from another tool's report
 * comes out as the qualified name alone, so that the same function gives
 * the same text whoever named it: parameters, template arguments, return
 * types, ABI tags and clone notes go, and so do the suffixes compilers give
 * a function's copies (.cold, .isra.0, .constprop.0, ...), glibc's internal
 * alias prefix (__GI_) and the CPU variant a string function's ifunc chose
 * (__strlen_avx2 on one machine, __strlen_evex on another: strlen).
 */
#include "group.h"

#include <string.h>

typedef struct sbuf {
	char *p;
	size_t cap, len;
} sbuf;

static void
put(sbuf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n && b->len + 1 < b->cap; i++)
		b->p[b->len++] = s[i];
	b->p[b->len] = '\0';
}

static bool
ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

bool
pmi_group_one_of(char c, const char *set)
{
	for (; c && *set; set++)
		if (*set == c)
			return true;
	return false;
}

static bool
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Past the bracket that closes the one at s (open/close), or the end of s when none does. */
static const char *
past_balanced(const char *s, char open, char close)
{
	unsigned depth = 0;
	for (; *s; s++) {
		if (*s == open)
			depth++;
		else if (*s == close && --depth == 0)
			return s + 1;
	}
	return s;
}

/* "operator" and its operator, at s; returns where the name goes on. */
static const char *
copy_operator(sbuf *b, const char *s)
{
	put(b, "operator", 8);
	s += 8;
	if ((s[0] == '(' && s[1] == ')') || (s[0] == '[' && s[1] == ']')) {
		put(b, s, 2);
		return s + 2;
	}
	if (*s == ' ') {
		/* new, delete, a conversion's type: up to the parameters. */
		const char *q = s;
		unsigned angle = 0;
		while (*q && !(*q == '(' && angle == 0)) {
			angle += *q == '<';
			angle -= *q == '>' && angle > 0;
			q++;
		}
		put(b, s, (size_t)(q - s));
		return q;
	}
	size_t n = 0;
	while (n < 3 && pmi_group_one_of(s[n], "+-*/%^&|~!=<>,"))
		n++;
	put(b, s, n);
	return s + n;
}

/* The demangled text's name: up to its parameters, templates and tags dropped, and only
 * what follows the last space at the top level (a template function's return type goes). */
static void
demangled_name(sbuf *b, const char *s)
{
	bool comp_start = true;
	while (*s) {
		if (*s == '(' && comp_start && starts(s, "(anonymous namespace)")) {
			put(b, s, 21);
			s += 21;
			comp_start = false;
		} else if (*s == '(') {
			break; /* the parameters: the name ends */
		} else if (*s == '<') {
			s = past_balanced(s, '<', '>');
		} else if (*s == '[' && starts(s, "[abi:")) {
			s = past_balanced(s, '[', ']');
		} else if (*s == '[' && starts(s, "[clone ")) {
			break;
		} else if (*s == '{') {
			const char *end = past_balanced(s, '{', '}');
			put(b, s, (size_t)(end - s));
			s = end;
			comp_start = false;
		} else if (comp_start && starts(s, "operator") && !ident_char(s[8])) {
			s = copy_operator(b, s);
			comp_start = false;
		} else if (*s == ' ') {
			b->len = 0; /* what came before was a return type */
			b->p[0] = '\0';
			comp_start = true;
			s++;
		} else if (s[0] == ':' && s[1] == ':') {
			put(b, "::", 2);
			s += 2;
			comp_start = true;
		} else {
			put(b, s, 1);
			comp_start = *s == '~';
			s++;
		}
	}
}

/* Suffixes GCC and LLVM give a function's copies: foo.cold, foo.isra.0, foo.constprop.0.isra.0. */
static const char clone_words[][12] = {
	"cold", "isra", "constprop", "part", "lto_priv", "localalias", "clone", "llvm", "specialized",
};

static void
cut_clone_suffix(sbuf *b)
{
	for (size_t i = 1; i < b->len; i++) {
		if (b->p[i] != '.')
			continue;
		const char *w = b->p + i + 1;
		for (size_t k = 0; k < sizeof clone_words / sizeof clone_words[0]; k++) {
			size_t n = strlen(clone_words[k]);
			if (strncmp(w, clone_words[k], n) == 0 && !ident_char(w[n]) && w[n] != '$') {
				b->len = i;
				b->p[i] = '\0';
				return;
			}
		}
	}
}

/* The CPU variants of glibc's string and memory functions, by the first word after the name:
 * __memmove_avx_unaligned_erms, __strlen_evex, __memcpy_simd, __strchr_sse2_no_bsf. */
static const char isa_words[][10] = {
	"sse2", "sse3", "ssse3", "sse4", "sse42", "avx", "avx2", "avx512", "avx512f", "avx512bw", "avx512vl",
	"evex", "evex512", "erms", "unaligned", "aligned", "rtm", "fsrm", "generic", "simd", "asimd", "nosimd",
	"sve", "mops", "mte", "thunderx", "thunderx2", "falkor", "kunpeng", "emag", "a64fx", "oryon1", "zva64",
	"power7", "power8", "power9", "power10", "z13", "z15", "vx", "ia32", "x86_64",
};

static void
cut_cpu_variant(sbuf *b)
{
	if (b->len < 4 || b->p[0] != '_' || b->p[1] != '_')
		return;
	size_t w = 2;
	while (w < b->len && ((b->p[w] >= 'a' && b->p[w] <= 'z') || (b->p[w] >= '0' && b->p[w] <= '9')))
		w++;
	if (w == 2 || w >= b->len || b->p[w] != '_')
		return;
	const char *isa = b->p + w + 1;
	size_t n = 0;
	while (isa[n] && isa[n] != '_')
		n++;
	for (size_t k = 0; k < sizeof isa_words / sizeof isa_words[0]; k++) {
		if (strlen(isa_words[k]) == n && strncmp(isa, isa_words[k], n) == 0) {
			memmove(b->p, b->p + 2, w - 2);
			b->len = w - 2;
			b->p[b->len] = '\0';
			return;
		}
	}
}

/* What every name goes through last: a symbol version, clone suffixes, glibc's alias prefix
 * and its CPU variants. */
static void
finish(sbuf *b)
{
	const char *at = memchr(b->p, '@', b->len);
	if (at && at > b->p) {
		b->len = (size_t)(at - b->p);
		b->p[b->len] = '\0';
	}
	cut_clone_suffix(b);
	if (b->len > 5 && strncmp(b->p, "__GI_", 5) == 0) {
		memmove(b->p, b->p + 5, b->len - 5 + 1);
		b->len -= 5;
	}
	cut_cpu_variant(b);
	while (b->len > 0 && b->p[b->len - 1] == ' ')
		b->p[--b->len] = '\0';
}

size_t
pmi_group_text_name(const char *name, char *out, size_t cap)
{
	sbuf b = { out, cap, 0 };
	out[0] = '\0';
	if (!name)
		return 0;
	if ((name[0] == '-' || name[0] == '+') && name[1] == '[') {
		put(&b, name, strlen(name)); /* Objective-C: the method's name is all of it */
		return b.len;
	}
	demangled_name(&b, name);
	finish(&b);
	if (b.len == 0) {
		/* Nothing a name is made of (a function pointer's type): the text as it is. */
		put(&b, name, strlen(name));
		finish(&b);
	}
	return b.len;
}

static bool
is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* A declined legacy Rust name still drops its hash, "17h" and 16 hex digits before the
 * final E, which changes with every build. */
static void
cut_rust_hash(sbuf *b)
{
	enum { TAIL = 20 }; /* 17h + 16 + E */
	if (b->len <= TAIL + 3 || strncmp(b->p, "_ZN", 3) != 0 || b->p[b->len - 1] != 'E')
		return;
	const char *t = b->p + b->len - TAIL;
	if (strncmp(t, "17h", 3) != 0)
		return;
	for (size_t i = 3; i < TAIL - 1; i++)
		if (!is_hex(t[i]))
			return;
	b->len -= TAIL;
	b->p[b->len] = '\0';
}

size_t
pmi_group_function(const char *name, char *out, size_t cap)
{
	out[0] = '\0';
	if (!name)
		return 0;
	if (name[0] == '_' && name[1] == 'R' && pmi_group_rust_v0(name, out, cap))
		return strlen(out);
	if (name[0] == '_' && name[1] == 'Z') {
		if (pmi_group_itanium(name, out, cap))
			return strlen(out);
		sbuf b = { out, cap, 0 };
		put(&b, name, strlen(name));
		cut_clone_suffix(&b);
		cut_rust_hash(&b);
		return b.len;
	}
	return pmi_group_text_name(name, out, cap);
}

size_t
pmi_group_image(const char *name, char *out, size_t cap)
{
	sbuf b = { out, cap, 0 };
	out[0] = '\0';
	if (!name)
		return 0;
	const char *base = name;
	for (const char *p = name; *p; p++)
		if (*p == '/')
			base = p + 1;
	put(&b, base, strlen(base));
	/* libstdc++.so.6.0.30 is libstdc++.so: the version differs between machines. */
	for (size_t i = 0; i + 3 <= b.len; i++) {
		if (strncmp(b.p + i, ".so", 3) != 0 || (b.p[i + 3] != '.' && b.p[i + 3] != '\0'))
			continue;
		size_t k = i + 3;
		while (k < b.len && (b.p[k] == '.' || (b.p[k] >= '0' && b.p[k] <= '9')))
			k++;
		if (k == b.len) {
			b.len = i + 3;
			b.p[b.len] = '\0';
			break;
		}
	}
	return b.len;
}
