/*
 * json_prefix.c — close a torn JSON document after its last whole value.
 *
 * A writer killed mid-write leaves a JSON prefix.  Scanning it with a small
 * state machine tells where the last value ended and which containers were
 * open there; cutting at that point and appending their closing brackets
 * gives a document any JSON parser accepts, holding every member that was
 * written whole.  A key without its value, a half-written string or number
 * is cut off.
 */
#include "json_prefix.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 64 };

/* What the scanner expects next at the current depth. */
typedef enum expect {
	EXPECT_VALUE,      /* a value (array element, object member value, the document) */
	EXPECT_KEY,        /* a member name, or '}' right after '{' */
	EXPECT_COLON,
	EXPECT_SEPARATOR,  /* ',' or the closing bracket */
} expect;

typedef struct scanner {
	char stack[MAX_DEPTH];  /* '{' or '[' per open container */
	int depth;
	expect want;
	size_t cut;             /* the prefix to keep ends here ... */
	int cut_depth;          /* ... with this many containers open */
	bool in_string, escaped, string_is_key, in_scalar;
	bool just_opened;       /* nothing yet in the innermost container */
} scanner;

/* A value ended at pos: the document can be cut here. */
static void
value_done(scanner *s, size_t pos)
{
	s->want = EXPECT_SEPARATOR;
	s->cut = pos;
	s->cut_depth = s->depth;
}

static bool
scalar_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-' || c == '+' || c == '.' ||
	       (c >= 'A' && c <= 'Z');
}

static void
string_char(scanner *s, char c, size_t i)
{
	if (s->escaped) {
		s->escaped = false;
	} else if (c == '\\') {
		s->escaped = true;
	} else if (c == '"') {
		s->in_string = false;
		if (s->string_is_key)
			s->want = EXPECT_COLON;
		else
			value_done(s, i + 1);
	}
}

static bool
open_container(scanner *s, char c, size_t i)
{
	if (s->want != EXPECT_VALUE || s->depth == MAX_DEPTH)
		return false;
	s->stack[s->depth++] = c;
	s->want = c == '{' ? EXPECT_KEY : EXPECT_VALUE;
	/* An empty container is a whole value once closed. */
	s->cut = i + 1;
	s->cut_depth = s->depth;
	s->just_opened = true;
	return true;
}

/* was_empty: the container was opened by the previous token ("{}", "[]"). */
static bool
close_container(scanner *s, char c, size_t i, bool was_empty)
{
	if (s->depth == 0 || s->stack[s->depth - 1] != (c == '}' ? '{' : '['))
		return false;
	if (s->want != EXPECT_SEPARATOR && !was_empty)
		return false;
	s->depth--;
	value_done(s, i + 1);
	return true;
}

/* One byte outside strings; false when the input stops being JSON. */
static bool
structural(scanner *s, char c, size_t i)
{
	if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
		return true;
	bool was_open = s->just_opened;
	s->just_opened = false;
	switch (c) {
	case '{': case '[':
		return open_container(s, c, i);
	case '}': case ']':
		return close_container(s, c, i, was_open);
	case ':':
		if (s->want != EXPECT_COLON)
			return false;
		s->want = EXPECT_VALUE;
		return true;
	case ',':
		if (s->want != EXPECT_SEPARATOR || s->depth == 0)
			return false;
		s->want = s->stack[s->depth - 1] == '{' ? EXPECT_KEY : EXPECT_VALUE;
		return true;
	case '"':
		if (s->want != EXPECT_VALUE && s->want != EXPECT_KEY)
			return false;
		s->in_string = true;
		s->string_is_key = s->want == EXPECT_KEY;
		return true;
	default:
		if (s->want != EXPECT_VALUE || s->depth == 0 || !scalar_char(c))
			return false;
		s->in_scalar = true;
		return true;
	}
}

static void
scan(scanner *s, const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = data[i];
		if (s->in_string) {
			string_char(s, c, i);
			continue;
		}
		if (s->in_scalar) {
			if (scalar_char(c))
				continue;
			/* A scalar is whole only once something follows it. */
			s->in_scalar = false;
			value_done(s, i);
		}
		if (!structural(s, c, i))
			return;
		if (s->depth == 0 && s->cut_depth == 0 && s->cut > 0)
			return; /* the document closed: anything after it is not ours */
	}
}

char *
pmi_json_close_prefix(const char *data, size_t len, size_t *out_len)
{
	scanner s;
	memset(&s, 0, sizeof s);
	s.want = EXPECT_VALUE;
	scan(&s, data, len);
	if (s.cut == 0)
		return NULL;
	char *out = malloc(s.cut + (size_t)s.cut_depth + 2);
	if (!out)
		return NULL;
	memcpy(out, data, s.cut);
	size_t n = s.cut;
	for (int d = s.cut_depth - 1; d >= 0; d--)
		out[n++] = s.stack[d] == '{' ? '}' : ']';
	out[n++] = '\n';
	out[n] = '\0';
	*out_len = n;
	return out;
}
