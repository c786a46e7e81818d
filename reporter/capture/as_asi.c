/*
 * as_asi.c — AS-SAFE: Application Specific Information, the crash in the
 * app's own words: the app's crash message (pm_set_crash_message), the
 * uncaught C++ exception (as_cxx_exception.c), then glibc's last
 * assert/abort message (docs/text-format.md).
 */
#include "as_asi.h"
#include "model.h"

#include "as_context.h"
#include "as_cxx_exception.h"
#include "as_memory.h"

enum {
	MAX_ASI_LINES = 16,
	MAX_ABORT_MSG = 2048, /* glibc's messages are a line or two; a longer one is cut */
	READ_CHUNK = 256,     /* the message may end near an unmapped page: read it in pieces */
};

/* glibc's struct abort_msg_s: the mapping's size, then the NUL-terminated text. */
struct abort_msg {
	unsigned int size;
	char msg[];
};

/* Copy the NUL-terminated string at addr into buf (at most cap - 1 bytes); its length. */
static size_t
read_cstring(const pm_mem *mem, uint64_t addr, char *buf, size_t cap)
{
	size_t len = 0;
	while (len + 1 < cap) {
		size_t want = cap - 1 - len < READ_CHUNK ? cap - 1 - len : READ_CHUNK;
		/* Shrink the piece until it reads: the string may end just before a hole. */
		while (want > 0 && !pm_mem_read(mem, addr + len, buf + len, want))
			want /= 2;
		if (want == 0)
			break;
		for (size_t i = 0; i < want; i++)
			if (buf[len + i] == '\0')
				return len + i;
		len += want;
	}
	buf[len] = '\0';
	return len;
}

/* Append each non-empty line of text[0..len) to the report's ASI list. */
static void
add_lines(pm_report *r, const char **lines, uint32_t cap, const char *text, size_t len)
{
	size_t start = 0;
	for (size_t i = 0; i <= len && r->exception.asi_count < cap; i++) {
		if (i < len && text[i] != '\n')
			continue;
		if (i > start) {
			const char *s = pmi_arena_strndup(r->arena, text + start, i - start);
			if (s)
				lines[r->exception.asi_count++] = s;
		}
		start = i + 1;
	}
}

void
as_asi_add(pm_report *r, const char *text, size_t len)
{
	if (r->exception.asi)
		add_lines(r, r->exception.asi, MAX_ASI_LINES, text, len);
}

void
as_fill_asi(pm_report *r, const pm_facts *f, pid_t tid, const pm_mem *mem, char *scratch, size_t scratch_cap)
{
	const char **lines = pmi_arena_alloc(r->arena, MAX_ASI_LINES * sizeof *lines, _Alignof(const char *));
	if (!lines)
		return;
	r->exception.asi = lines;
	r->exception.asi_count = 0;
	add_lines(r, lines, MAX_ASI_LINES, scratch, as_context_message(scratch, scratch_cap));
	add_lines(r, lines, MAX_ASI_LINES, scratch, as_cxx_exception_text(r, tid, scratch, scratch_cap));
	uint64_t msg_ptr = 0;
	if (f->abort_msg_var && pm_mem_u64(mem, f->abort_msg_var, &msg_ptr) && msg_ptr) {
		size_t cap = scratch_cap < MAX_ABORT_MSG ? scratch_cap : MAX_ABORT_MSG;
		size_t len = read_cstring(mem, msg_ptr + offsetof(struct abort_msg, msg), scratch, cap);
		add_lines(r, lines, MAX_ASI_LINES, scratch, len);
	}
}
