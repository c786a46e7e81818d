/*
 * group_itanium.c — AS-SAFE: the qualified name inside an Itanium C++
 * mangled name (and legacy Rust's), for signatures computed in the crash
 * handler, which cannot call a demangler (libiberty allocates).
 *
 * Only the <name> at the front of an <encoding> is read: nested names of
 * identifiers, std::, constructors and destructors, ABI tags, and template
 * arguments, which are skipped (a balanced parse of the type grammar, since
 * their bytes hold lengths, literals and nested names).  Parameters and
 * everything after the name are never looked at.  Any other form (operators,
 * local names and lambdas, special names such as thunks, substitutions other
 * than std::, expressions in template arguments) is declined: the caller
 * then treats the name as text, the same way on every path.  Recursion and
 * output are bounded.
 */
#include "group.h"

#include <string.h>

enum {
	DEPTH_MAX = 48,       /* nesting of types in template arguments */
	RUST_HASH_LEN = 17,   /* "h" and 16 hex digits */
};

typedef struct itp {
	const char *p;        /* next byte; the input is NUL-terminated */
	char *out;
	size_t cap, len;
	bool bad;
	unsigned depth;
	const char *last;     /* the last identifier of the name, for a constructor */
	size_t last_len;
	size_t components;
	bool plain;           /* identifiers alone: no template, constructor or std:: */
	size_t last_start;    /* where the last component begins in out */
} itp;

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool
is_lower(char c)
{
	return c >= 'a' && c <= 'z';
}

static bool
is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

static bool
is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f');
}

static bool
ident_char(char c)
{
	return is_digit(c) || is_lower(c) || is_upper(c) || c == '_' || c == '$';
}

static void
decline(itp *s)
{
	s->bad = true;
}

static void
put(itp *s, const char *text, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s->len + 1 >= s->cap) {
			decline(s); /* a name cut short might not be the prefix the text path keeps */
			return;
		}
		s->out[s->len++] = text[i];
	}
}

/* <number>: decimal, no leading zero unless it is 0. */
static size_t
number(itp *s)
{
	size_t v = 0, digits = 0;
	if (!is_digit(*s->p)) {
		decline(s);
		return 0;
	}
	if (s->p[0] == '0' && is_digit(s->p[1]))
		decline(s);
	for (; is_digit(*s->p) && digits < 9; s->p++, digits++)
		v = v * 10 + (size_t)(*s->p - '0');
	if (is_digit(*s->p))
		decline(s);
	return v;
}

/* <source-name> ::= <length> <identifier>; its bytes in *id. */
static bool
source_name(itp *s, const char **id, size_t *n)
{
	size_t len = number(s);
	if (s->bad || len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!ident_char(s->p[i])) {
			decline(s); /* a NUL ends the input early too */
			return false;
		}
	*id = s->p;
	*n = len;
	s->p += len;
	return true;
}

/* libiberty names an identifier _GLOBAL_[._$]N... the anonymous namespace. */
static bool
anonymous_namespace(const char *id, size_t n)
{
	return n >= 10 && memcmp(id, "_GLOBAL_", 8) == 0 && (id[8] == '.' || id[8] == '_' || id[8] == '$') &&
	       id[9] == 'N';
}

static void
separator(itp *s)
{
	if (s->components++ > 0)
		put(s, "::", 2);
	s->last_start = s->len;
}

static void
emit_identifier(itp *s, const char *id, size_t n)
{
	separator(s);
	if (anonymous_namespace(id, n)) {
		put(s, "(anonymous namespace)", 21);
		s->plain = false;
	} else {
		put(s, id, n);
	}
	s->last = id;
	s->last_len = n;
}

/* ABI tags after a name: B <source-name>, printed by libiberty as [abi:tag]. */
static void
abi_tags(itp *s)
{
	const char *id;
	size_t n;
	while (!s->bad && *s->p == 'B') {
		s->p++;
		source_name(s, &id, &n);
		s->plain = false;
	}
}

static void skip_type(itp *s);
static void skip_args(itp *s);

/* <substitution> or <template-param> in a type: S_, S<seq>_, St<name>, Sa.., T_, T<n>_. */
static void
skip_reference(itp *s)
{
	char kind = *s->p++;
	if (kind == 'S' && *s->p == 't') {
		s->p++;
		const char *id;
		size_t n;
		source_name(s, &id, &n);
	} else if (kind == 'S' && pmi_group_one_of(*s->p, "absiod")) {
		s->p++;
	} else {
		while (is_digit(*s->p) || is_upper(*s->p))
			s->p++;
		if (*s->p != '_') {
			decline(s);
			return;
		}
		s->p++;
	}
	if (!s->bad && *s->p == 'I')
		skip_args(s);
}

/* A nested name inside a type: N [r][V][K] [R|O] <prefix> E. */
static void
skip_nested(itp *s)
{
	s->p++;
	while (*s->p == 'r' || *s->p == 'V' || *s->p == 'K')
		s->p++;
	if (*s->p == 'R' || *s->p == 'O')
		s->p++;
	size_t parts = 0;
	while (!s->bad && *s->p != 'E') {
		const char *id;
		size_t n;
		if (is_digit(*s->p))
			source_name(s, &id, &n);
		else if (*s->p == 'S' || *s->p == 'T')
			skip_reference(s);
		else if (*s->p == 'I' && parts > 0)
			skip_args(s);
		else if (*s->p == 'B' && parts > 0)
			abi_tags(s);
		else if (*s->p == 'L' && is_digit(s->p[1]))
			s->p++;
		else
			decline(s);
		parts++;
	}
	if (!s->bad)
		s->p++;
}

/* D<x> types: char8_t and friends, pack expansions, vectors, _FloatN. */
static void
skip_d_type(itp *s)
{
	char c = s->p[1];
	s->p += 2;
	if (c == 'p') {
		skip_type(s);
	} else if (c == 'v') {
		number(s);
		if (*s->p != '_') {
			decline(s);
			return;
		}
		s->p++;
		skip_type(s);
	} else if (c == 'F') {
		number(s);
		if (*s->p == 'x')
			s->p++;
		if (*s->p == '_')
			s->p++;
	} else if (!pmi_group_one_of(c, "acdefhinsux")) {
		decline(s);
	}
}

/* F [Y] <return type> <parameter types> [R|O] E */
static void
skip_function_type(itp *s)
{
	s->p++;
	if (*s->p == 'Y')
		s->p++;
	skip_type(s);
	while (!s->bad && *s->p != 'E') {
		if ((*s->p == 'R' || *s->p == 'O') && s->p[1] == 'E')
			s->p++;
		else
			skip_type(s);
	}
	if (!s->bad)
		s->p++;
}

static void
skip_type(itp *s)
{
	if (++s->depth > DEPTH_MAX) {
		decline(s);
		return;
	}
	char c = *s->p;
	const char *id;
	size_t n;
	if (pmi_group_one_of(c, "vwbcahstijlmxynofdegz")) {
		s->p++;
	} else if (c == 'r' || c == 'V' || c == 'K' || c == 'P' || c == 'R' || c == 'O' || c == 'C' || c == 'G') {
		s->p++;
		skip_type(s);
	} else if (c == 'u') {
		s->p++;
		source_name(s, &id, &n);
	} else if (c == 'F') {
		skip_function_type(s);
	} else if (c == 'A') {
		s->p++;
		if (is_digit(*s->p))
			number(s);
		if (*s->p != '_') {
			decline(s);
		} else {
			s->p++;
			skip_type(s);
		}
	} else if (c == 'M') {
		s->p++;
		skip_type(s);
		skip_type(s);
	} else if (c == 'S' || c == 'T') {
		skip_reference(s);
	} else if (c == 'N') {
		skip_nested(s);
	} else if (is_digit(c)) {
		source_name(s, &id, &n);
		abi_tags(s);
		if (!s->bad && *s->p == 'I')
			skip_args(s);
	} else if (c == 'D') {
		skip_d_type(s);
	} else {
		decline(s);
	}
	s->depth--;
}

/* L <type> <value> E, or LDnE (nullptr); an L_Z <encoding> E is declined. */
static void
skip_literal(itp *s)
{
	s->p++;
	if (*s->p == '_') {
		decline(s);
		return;
	}
	skip_type(s);
	if (*s->p == 'n')
		s->p++;
	while (is_digit(*s->p) || is_lower(*s->p))
		s->p++;
	if (*s->p != 'E')
		decline(s);
	else
		s->p++;
}

static void
skip_arg(itp *s)
{
	if (*s->p == 'L') {
		skip_literal(s);
	} else if (*s->p == 'J') {
		s->p++;
		while (!s->bad && *s->p != 'E')
			skip_arg(s);
		if (!s->bad)
			s->p++;
	} else {
		skip_type(s);
	}
}

/* I <template-arg>+ E */
static void
skip_args(itp *s)
{
	if (++s->depth > DEPTH_MAX) {
		decline(s);
		return;
	}
	s->p++;
	if (*s->p == 'E')
		decline(s);
	while (!s->bad && *s->p != 'E')
		skip_arg(s);
	if (!s->bad)
		s->p++;
	s->depth--;
}

/* C1..C5 (a constructor) or D0..D5 (a destructor), named after the last identifier. */
static void
structor(itp *s)
{
	char c = s->p[0], k = s->p[1];
	bool ok = c == 'C' ? k >= '1' && k <= '5' : k == '0' || k == '1' || k == '2' || k == '4' || k == '5';
	if (!ok || !s->last) {
		decline(s);
		return;
	}
	s->p += 2;
	separator(s);
	if (c == 'D')
		put(s, "~", 1);
	put(s, s->last, s->last_len);
	s->plain = false;
	abi_tags(s);
}

/* One component of a nested name, in the name itself (written out). */
static void
component(itp *s, bool first)
{
	const char *id;
	size_t n;
	char c = *s->p;
	if (c == 'S' && s->p[1] == 't' && first) {
		s->p += 2;
		separator(s);
		put(s, "std", 3);
		s->plain = false;
	} else if (c == 'L' && is_digit(s->p[1])) {
		s->p++;
	} else if (is_digit(c)) {
		if (source_name(s, &id, &n))
			emit_identifier(s, id, n);
		abi_tags(s);
	} else if (c == 'I' && !first) {
		skip_args(s);
		s->plain = false;
	} else if ((c == 'C' || c == 'D') && !first) {
		structor(s);
	} else {
		decline(s);
	}
}

static void
nested_name(itp *s)
{
	s->p++;
	while (*s->p == 'r' || *s->p == 'V' || *s->p == 'K')
		s->p++;
	if (*s->p == 'R' || *s->p == 'O')
		s->p++;
	for (bool first = true; !s->bad && *s->p != 'E'; first = false)
		component(s, first);
	if (!s->bad)
		s->p++;
}

/* An unscoped name: [L] <source-name> [abi tags] [<template-args>], or St <source-name> .... */
static void
unscoped_name(itp *s)
{
	if (s->p[0] == 'S' && s->p[1] == 't') {
		s->p += 2;
		separator(s);
		put(s, "std", 3);
		s->plain = false;
	}
	if (*s->p == 'L')
		s->p++;
	const char *id;
	size_t n;
	if (!is_digit(*s->p) || !source_name(s, &id, &n)) {
		decline(s);
		return;
	}
	emit_identifier(s, id, n);
	abi_tags(s);
	if (!s->bad && *s->p == 'I') {
		skip_args(s);
		s->plain = false;
	}
}

/* Legacy Rust: _ZN <identifiers> 17h<16 hex> E and nothing after but a '.' suffix: libiberty
 * tries Rust first, tells it from C++ so, and drops the hash.  It also wants five different
 * digits in the hash. */
static void
rust_legacy(itp *s)
{
	size_t n = s->len - s->last_start;
	const char *hash = s->out + s->last_start;
	if (!s->plain || s->components < 2 || n != RUST_HASH_LEN || hash[0] != 'h')
		return;
	if (*s->p && *s->p != '.')
		return;
	for (const char *q = s->p; *q; q++)
		if (!ident_char(*q) && *q != '.' && *q != ':' && *q != '@')
			return;
	unsigned seen = 0, distinct = 0;
	for (size_t i = 1; i < n; i++) {
		if (!is_hex(hash[i]))
			return;
		seen |= 1u << (is_digit(hash[i]) ? hash[i] - '0' : hash[i] - 'a' + 10);
	}
	for (; seen; seen >>= 1)
		distinct += seen & 1;
	if (distinct >= 5)
		s->len = s->last_start - 2;
}

bool
pmi_group_itanium(const char *mangled, char *out, size_t cap)
{
	if (!mangled || cap == 0 || mangled[0] != '_' || mangled[1] != 'Z')
		return false;
	itp s = { .p = mangled + 2, .out = out, .cap = cap, .plain = true };
	if (*s.p == 'N') {
		nested_name(&s);
		if (!s.bad)
			rust_legacy(&s);
	} else {
		unscoped_name(&s);
	}
	if (s.bad || s.components == 0)
		return false;
	/* '$' is Rust's escape, which libiberty decodes: not ours to mimic. */
	for (size_t i = 0; i < s.len; i++)
		if (out[i] == '$')
			return false;
	out[s.len] = '\0';
	return true;
}
