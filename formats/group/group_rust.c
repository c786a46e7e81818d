/*
 * group_rust.c — AS-SAFE: the path inside a Rust v0 mangled name (RFC 2603),
 * for signatures computed in the crash handler, which cannot call a
 * demangler.
 *
 * Only plain paths are read: a crate root (C) and the value and type
 * namespaces below it (N with a lower-case namespace), each an identifier;
 * the crate's disambiguator (its hash, which changes with the toolchain) is
 * dropped, as libiberty drops it.  Impl paths, generic arguments, closures
 * and shims, back-references and Punycode identifiers are declined, and the
 * name is then normalized as text, the same way on every path.  What is read
 * is what pmi_group_text_name makes of libiberty's demangling of the name
 * ("_RNvNtCs1234_3std7process5abort" is "std::process::abort");
 * tests/unit/test_group_names.c holds it to libiberty.
 */
#include "group.h"

#include <string.h>

enum { DEPTH_MAX = 64 };

typedef struct rp {
	const char *p;
	char *out;
	size_t cap, len;
	bool bad;
} rp;

static bool
digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool
base62(char c)
{
	return digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static void
put(rp *s, const char *t, size_t n)
{
	if (s->len + n + 1 > s->cap) {
		s->bad = true; /* cut short, it might not be the prefix the text path keeps */
		return;
	}
	memcpy(s->out + s->len, t, n);
	s->len += n;
}

/* [s <base-62-number>] <decimal> [_] <bytes>: the bytes into out. */
static void
identifier(rp *s)
{
	if (*s->p == 's') {
		s->p++;
		while (base62(*s->p))
			s->p++;
		if (*s->p++ != '_') {
			s->bad = true;
			return;
		}
	}
	if (!digit(*s->p) || (s->p[0] == '0' && digit(s->p[1]))) {
		s->bad = true; /* a 'u' (Punycode) lands here too */
		return;
	}
	size_t n = 0;
	for (int k = 0; digit(*s->p) && k < 9; k++)
		n = n * 10 + (size_t)(*s->p++ - '0');
	if (digit(*s->p) || n == 0) {
		s->bad = true;
		return;
	}
	if (*s->p == '_')
		s->p++;
	for (size_t i = 0; i < n; i++) {
		char c = s->p[i];
		if (!(digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')) {
			s->bad = true; /* the NUL ends the input early too */
			return;
		}
	}
	put(s, s->p, n);
	s->p += n;
}

static void
path(rp *s, unsigned depth)
{
	if (depth > DEPTH_MAX) {
		s->bad = true;
		return;
	}
	char c = *s->p++;
	if (c == 'C') {
		identifier(s);
	} else if (c == 'N' && *s->p >= 'a' && *s->p <= 'z') {
		s->p++;
		path(s, depth + 1);
		if (!s->bad)
			put(s, "::", 2);
		if (!s->bad)
			identifier(s);
	} else {
		s->bad = true;
	}
}

bool
pmi_group_rust_v0(const char *mangled, char *out, size_t cap)
{
	if (!mangled || cap == 0 || strncmp(mangled, "_R", 2) != 0)
		return false;
	rp s = { .p = mangled + 2, .out = out, .cap = cap };
	path(&s, 0); /* an encoding version (digits) is declined here too */
	/* What libiberty reads to the end: an instantiating crate, then nothing but a suffix. */
	if (!s.bad && *s.p == 'C') {
		size_t kept = s.len;
		s.p++;
		identifier(&s);
		s.len = kept;
	}
	if (s.bad || s.len == 0 || (*s.p && *s.p != '.'))
		return false;
	out[s.len] = '\0';
	return true;
}
