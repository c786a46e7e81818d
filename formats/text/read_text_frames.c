/*
 * read_text_frames.c — thread headers (format reference §7.1), frame lines in
 * every layout of §7.2, and the Last Exception Backtrace (§6).
 *
 * A frame line is "<index> <image column> <address> <location>".  The image
 * column may hold spaces ("App Namespace"), so the address is found as the
 * first "0x…" token after it.  The location, read from its end, is one of
 *   symbol + off [(file:line)] [[inlined]]     symbol (file:line)
 *   0xBASE + off                                0 + addr
 *   0xBASE + off (symbol + off)                 (KSCrash side by side)
 */
#include "read_text.h"

/* ---- threads -------------------------------------------------------------- */

/* Append a thread with the number the text gives it; NULL at the limit. */
static pm_thread *
new_thread(tx_parser *p, uint64_t number)
{
	pm_report *r = p->r;
	if (r->thread_count >= TX_MAX_THREADS) {
		r->threads_truncated = true;
		return NULL;
	}
	pm_thread *t = pmi_tx_grow(r->arena, r->threads, r->thread_count, &p->thread_cap, sizeof *t);
	if (!t)
		return NULL;
	r->threads = t;
	t[r->thread_count].number = number;
	p->frame_cap = 0;
	return &t[r->thread_count++];
}

/* The thread a "Thread N name:" line just opened, when this line is about the same N. */
static pm_thread *
pending_thread(tx_parser *p, uint64_t number)
{
	pm_report *r = p->r;
	bool same = p->name_pending && r->thread_count > 0 &&
	            r->threads[r->thread_count - 1].number == number;
	p->name_pending = false;
	return same ? &r->threads[r->thread_count - 1] : NULL;
}

static void
set_name_queue(tx_parser *p, pm_thread *t, tx_span text)
{
	tx_span name, queue;
	pmi_tx_name_queue(text, &name, &queue);
	if (name.n)
		t->name = pmi_tx_copy(p->r->arena, name);
	if (queue.n)
		t->queue = pmi_tx_copy(p->r->arena, queue);
}

static void
thread_name(tx_parser *p, uint64_t number, tx_span text)
{
	pm_thread *t = pending_thread(p, number);
	if (!t)
		t = new_thread(p, number);
	if (!t)
		return;
	set_name_queue(p, t, text);
	p->name_pending = true;
}

static void
thread_header(tx_parser *p, uint64_t number, tx_span mark, tx_span text)
{
	pm_thread *t = pending_thread(p, number);
	if (!t)
		t = new_thread(p, number);
	if (!t) {
		/* Over the limit: drop its frames. */
		pmi_tx_begin_section(p, TX_SKIP);
		return;
	}
	t->crashed |= pmi_tx_eq(mark, "Crashed");
	t->attributed |= pmi_tx_eq(mark, "Attributed");
	set_name_queue(p, t, text);
	pmi_tx_begin_section(p, TX_THREAD);
}

/*
 * "Thread N:", "Thread N Crashed:", "Thread N Attributed:" (resource reports), macOS
 * "Thread N Crashed:: name Dispatch queue: q".
 */
static bool
header_line(tx_parser *p, uint64_t number, tx_span t)
{
	tx_span mark = pmi_tx_span(t.p, 0);
	if (pmi_tx_skip(&t, " ")) {
		mark = pmi_tx_span(t.p, pmi_tx_find_char(t, ':'));
		if (!pmi_tx_eq(mark, "Crashed") && !pmi_tx_eq(mark, "Attributed"))
			return false;
		t = pmi_tx_tail(t, mark.n);
	}
	if (!pmi_tx_skip(&t, ":"))
		return false;
	pmi_tx_skip(&t, ":");
	thread_header(p, number, mark, pmi_tx_trim(t));
	return true;
}

bool
pmi_tx_thread_line(tx_parser *p, tx_span t)
{
	uint64_t n;
	if (!pmi_tx_skip(&t, "Thread ") || !pmi_tx_take_dec(&t, &n))
		return false;
	if (pmi_tx_skip(&t, " name:"))
		thread_name(p, n, pmi_tx_trim(t));
	else if (pmi_tx_skip(&t, " crashed with "))
		pmi_tx_regs_begin(p, n, t);
	else if (pmi_tx_skip(&t, " instruction stream"))
		pmi_tx_begin_section(p, TX_SKIP);
	else if (!header_line(p, n, t))
		return false;
	pmi_tx_enter_phase(p, TX_PHASE_BODY);
	return true;
}

/* ---- frames --------------------------------------------------------------- */

/* "0x…", or the bare 16+ digit form an old report printed for a PC of 0. */
static bool
take_address(tx_span *s, uint64_t *v)
{
	tx_span t = *s;
	size_t digits;
	if (pmi_tx_take_hex(s, v))
		return true;
	if (!pmi_tx_take_xdigits(&t, v, &digits) || digits < 16)
		return false;
	*s = t;
	return true;
}

/* The first "0x…" token at or after byte `from` (>= 1) that follows a blank. */
static bool
find_address(tx_span s, size_t from, size_t *at, uint64_t *addr, tx_span *rest)
{
	for (size_t i = from; i < s.n; i++) {
		if (!pmi_tx_is_space(s.p[i - 1]) || pmi_tx_is_space(s.p[i]))
			continue;
		*rest = pmi_tx_tail(s, i);
		if (take_address(rest, addr) && (!rest->n || pmi_tx_is_space(rest->p[0]))) {
			*at = i;
			return true;
		}
	}
	return false;
}

/*
 * Split a frame line into its image column, address and location.  Apple puts
 * a TAB before the address, so an address after the first TAB is preferred:
 * an image column that itself holds " 0x…" cannot then be mistaken for it.
 */
static bool
split_frame(tx_span s, tx_span *image, uint64_t *addr, tx_span *loc)
{
	uint64_t index;
	size_t at;
	tx_span rest;
	s = pmi_tx_trim(s);
	if (!pmi_tx_take_dec(&s, &index) || !s.n || !pmi_tx_is_space(s.p[0]))
		return false;
	s = pmi_tx_ltrim(s);
	size_t tab = pmi_tx_find_char(s, '\t');
	if (!(tab < s.n && find_address(s, tab + 1, &at, addr, &rest)) &&
	    !find_address(s, 1, &at, addr, &rest))
		return false;
	*image = pmi_tx_trim(pmi_tx_head(s, at));
	*loc = pmi_tx_trim(rest);
	return true;
}

/* "symbol + 24" or "symbol". */
static void
symbol_part(pm_arena *a, tx_span s, pm_frame *f)
{
	s = pmi_tx_trim(s);
	size_t i = s.n;
	uint64_t off;
	while (i > 0 && pmi_tx_is_digit(s.p[i - 1]))
		i--;
	if (i < s.n && i >= 3 && pmi_tx_eq(pmi_tx_span(s.p + i - 3, 3), " + ") &&
	    pmi_tx_dec(pmi_tx_tail(s, i), &off)) {
		f->has_offset = true;
		f->symbol_offset = off;
		s = pmi_tx_rtrim(pmi_tx_head(s, i - 3));
	}
	f->symbol = pmi_tx_copy(a, s);
}

/* A trailing " (file:line)"; *loc loses it. */
static void
source_location(pm_arena *a, tx_span *loc, pm_frame *f)
{
	if (!loc->n || loc->p[loc->n - 1] != ')')
		return;
	size_t open = pmi_tx_rfind_char(*loc, '(');
	if (open == loc->n || (open > 0 && !pmi_tx_is_space(loc->p[open - 1])))
		return;
	tx_span inside = pmi_tx_span(loc->p + open + 1, loc->n - open - 2);
	size_t colon = pmi_tx_rfind_char(inside, ':');
	uint64_t line;
	if (colon == inside.n || colon == 0 || !pmi_tx_dec(pmi_tx_tail(inside, colon + 1), &line) ||
	    line == 0 || line > UINT32_MAX)
		return;
	f->file = pmi_tx_copy(a, pmi_tx_head(inside, colon));
	f->line = (uint32_t)line;
	*loc = pmi_tx_rtrim(pmi_tx_head(*loc, open));
}

/* "0xBASE + off" or "0 + addr": an unsymbolicated location. */
static bool
take_base_offset(tx_span *s)
{
	tx_span t = *s;
	uint64_t v;
	if (!pmi_tx_take_hex(&t, &v) && !(pmi_tx_take_dec(&t, &v) && v == 0))
		return false;
	if (!pmi_tx_skip(&t, " + ") || !pmi_tx_take_dec(&t, &v) || (t.n && !pmi_tx_is_space(t.p[0])))
		return false;
	*s = pmi_tx_trim(t);
	return true;
}

static void
parse_location(pm_arena *a, tx_span loc, pm_frame *f)
{
	if (pmi_tx_cut_suffix(&loc, "[inlined]")) {
		f->inlined = true;
		loc = pmi_tx_rtrim(loc);
	}
	if (take_base_offset(&loc)) {
		if (loc.n >= 2 && loc.p[0] == '(' && loc.p[loc.n - 1] == ')')
			symbol_part(a, pmi_tx_span(loc.p + 1, loc.n - 2), f);
		return;
	}
	source_location(a, &loc, f);
	symbol_part(a, loc, f);
}

/* The array the open section's frames go to, or NULL when it is full. */
static pm_frame *
frame_slot(tx_parser *p)
{
	pm_report *r = p->r;
	pm_frame **arr = &r->last_exception_backtrace;
	uint32_t *count = &r->leb_count, *cap = &p->leb_cap;
	bool *truncated = NULL;
	if (p->section == TX_THREAD) {
		pm_thread *t = &r->threads[r->thread_count - 1];
		arr = &t->frames;
		count = &t->frame_count;
		cap = &p->frame_cap;
		truncated = &t->frames_truncated;
	}
	if (*count >= TX_MAX_FRAMES || p->total_frames >= TX_MAX_TOTAL_FRAMES) {
		if (truncated)
			*truncated = true;
		return NULL;
	}
	pm_frame *n = pmi_tx_grow(r->arena, *arr, *count, cap, sizeof *n);
	if (!n)
		return NULL;
	*arr = n;
	p->total_frames++;
	return &n[(*count)++];
}

static void
add_frame(tx_parser *p, tx_span image, uint64_t addr, tx_span loc)
{
	pm_frame *f = frame_slot(p);
	if (!f)
		return;
	f->address = addr;
	f->image = -1;
	f->image_name = pmi_tx_copy_known(p->r->arena, image);
	parse_location(p->r->arena, loc, f);
}

bool
pmi_tx_frame_line(tx_parser *p, tx_span line)
{
	tx_span image, loc;
	uint64_t addr;
	if (!split_frame(line, &image, &addr, &loc))
		return false;
	add_frame(p, image, addr, loc);
	return true;
}

bool
pmi_tx_pc_list(tx_parser *p, tx_span t)
{
	t = pmi_tx_trim(t);
	if (!pmi_tx_skip(&t, "("))
		return false;
	pmi_tx_cut_suffix(&t, ")");
	for (;;) {
		uint64_t addr;
		tx_span tok = pmi_tx_token(&t);
		if (!pmi_tx_hex(tok, &addr))
			break;
		add_frame(p, pmi_tx_span(tok.p, 0), addr, pmi_tx_span(tok.p, 0));
	}
	return true;
}
