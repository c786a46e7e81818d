/*
 * as_context.c — AS-SAFE: the app's own words for a crash that may come
 * later (pm_set_crash_message, pm_annotate, pm_breadcrumb), kept in fixed
 * storage, and their copy into the report at crash time.
 *
 * Every item is a sequence lock whose writer never waits: it claims the item
 * by moving the count from even to odd with one CAS, copies, and makes it
 * even again.  A writer that finds the item claimed gives up: the two calls
 * overlapped, so the other's value is the later one.  The crash-time reader
 * never waits either: the writer may be a thread it has stopped, or itself.
 */
#include "as_context.h"
#include "model.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

typedef struct text_item {
	_Atomic uint32_t seq;     /* odd while a writer copies */
	uint32_t len;
	char text[];
} text_item;

#define TEXT_ITEM(cap) struct { _Atomic uint32_t seq; uint32_t len; char text[cap]; }

/* What every crash reads, on one page: the crash message's head (as_asi.c
 * reads it), a bit for each annotation slot ever claimed and the count of
 * breadcrumbs ever added.  The crash reads no other page of the tables
 * below unless a call wrote it: a first read of a page is a fault, tens
 * of microseconds on a paravirtualized guest. */
static struct {
	_Atomic uint32_t annotations_claimed;
	_Atomic uint64_t crumb_next;
	TEXT_ITEM(PM_CRASH_MESSAGE_MAX) crash_message;
} hot __attribute__((aligned(64)));

static struct annotation {
	_Atomic uint64_t hash;    /* 0: free; claims the slot for one key */
	_Atomic bool key_ready;
	char key[PM_ANNOTATION_KEY_MAX + 1];
	TEXT_ITEM(PM_ANNOTATION_VALUE_MAX) value;
} annotations[PM_ANNOTATIONS_MAX];
_Static_assert(PM_ANNOTATIONS_MAX <= 32, "annotations_claimed has a bit per slot");

static struct crumb {
	struct timespec time;
	TEXT_ITEM(PM_BREADCRUMB_MAX) text;
} crumbs[PM_BREADCRUMBS_MAX];

static const char ellipsis[] = "\xe2\x80\xa6"; /* … */

/* Copy src into dst (cap bytes, no NUL): control characters become spaces
 * (newlines too, unless kept: the crash message's lines become ASI lines),
 * and text that does not fit is cut on a UTF-8 boundary and ends with "…". */
static uint32_t
copy_text(char *dst, size_t cap, const char *src, bool keep_newlines)
{
	size_t n = 0;
	while (src[n] && n < cap)
		n++;
	if (src[n]) {
		n = cap - (sizeof ellipsis - 1);
		while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
			n--;
	}
	for (size_t i = 0; i < n; i++)
		dst[i] = (src[i] == '\n' && keep_newlines) || ((unsigned char)src[i] >= 0x20 && src[i] != 0x7f)
		                 ? src[i]
		                 : ' ';
	if (src[n] == '\0')
		return (uint32_t)n;
	memcpy(dst + n, ellipsis, sizeof ellipsis - 1);
	return (uint32_t)(n + sizeof ellipsis - 1);
}

/* Write text (NULL: empty) into item unless another writer holds it. */
static void
set_text(text_item *item, size_t cap, const char *text, bool keep_newlines)
{
	uint32_t s = atomic_load_explicit(&item->seq, memory_order_relaxed);
	if ((s & 1) || !atomic_compare_exchange_strong_explicit(&item->seq, &s, s + 1, memory_order_acquire,
	                                                        memory_order_relaxed))
		return;
	atomic_thread_fence(memory_order_release);
	item->len = text ? copy_text(item->text, cap, text, keep_newlines) : 0;
	atomic_store_explicit(&item->seq, s + 2, memory_order_release);
}

void
pm_set_crash_message(const char *message)
{
	set_text((text_item *)&hot.crash_message, sizeof hot.crash_message.text, message, true);
}

static bool
key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '.' || c == '-';
}

/* FNV-1a, never 0 (0 marks a free slot). */
static uint64_t
key_hash(const char *key, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)key[i]) * 0x100000001b3u;
	return h ? h : 1;
}

/* The slot of key: found, or claimed when free; NULL when all are taken.
 * Equal hashes mean the same key unless a published key says otherwise. */
static struct annotation *
annotation_slot(const char *key, size_t n)
{
	uint64_t h = key_hash(key, n);
	for (size_t probe = 0; probe < PM_ANNOTATIONS_MAX; probe++) {
		size_t slot = (h + probe) % PM_ANNOTATIONS_MAX;
		struct annotation *a = &annotations[slot];
		uint64_t seen = 0;
		if (atomic_compare_exchange_strong(&a->hash, &seen, h)) {
			atomic_fetch_or(&hot.annotations_claimed, 1u << slot);
			memcpy(a->key, key, n);
			a->key[n] = '\0';
			atomic_store_explicit(&a->key_ready, true, memory_order_release);
			return a;
		}
		if (seen == h && (!atomic_load_explicit(&a->key_ready, memory_order_acquire) ||
		                  (strncmp(a->key, key, n) == 0 && a->key[n] == '\0')))
			return a;
	}
	return NULL;
}

int
pm_annotate(const char *key, const char *value)
{
	size_t n = 0;
	while (key && key[n] && key_char(key[n]) && n <= PM_ANNOTATION_KEY_MAX)
		n++;
	if (n > PM_ANNOTATION_KEY_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!key || n == 0 || key[n]) {
		errno = EINVAL;
		return -1;
	}
	struct annotation *a = annotation_slot(key, n);
	if (!a) {
		errno = ENOSPC;
		return -1;
	}
	set_text((text_item *)&a->value, sizeof a->value.text, value, false);
	return 0;
}

void
pm_breadcrumb(const char *message)
{
	uint64_t ticket = atomic_fetch_add(&hot.crumb_next, 1);
	struct crumb *c = &crumbs[ticket % PM_BREADCRUMBS_MAX];
	/* A writer a whole ring behind still holds this slot: ours is newer, theirs gives way. */
	uint32_t s = atomic_load_explicit(&c->text.seq, memory_order_relaxed);
	if ((s & 1) || !atomic_compare_exchange_strong(&c->text.seq, &s, s + 1))
		return;
	clock_gettime(CLOCK_REALTIME, &c->time);
	c->text.len = message ? copy_text(c->text.text, sizeof c->text.text, message, false) : 0;
	atomic_store_explicit(&c->text.seq, s + 2, memory_order_release);
}

/* ---- crash time ----------------------------------------------------------- */

static const char torn_mark[] = " [being written]";

/* Copy item's text into buf, marked when a write was under way; its length (0: empty). */
static size_t
read_text(const text_item *item, char *buf, size_t cap)
{
	uint32_t s = atomic_load_explicit(&item->seq, memory_order_acquire);
	size_t len = item->len < cap ? item->len : cap;
	if (len == 0 && !(s & 1))
		return 0;
	memcpy(buf, item->text, len);
	atomic_thread_fence(memory_order_acquire);
	if ((s & 1) || atomic_load_explicit(&item->seq, memory_order_relaxed) != s) {
		size_t m = len + sizeof torn_mark - 1 <= cap ? sizeof torn_mark - 1 : 0;
		memcpy(buf + len, torn_mark, m);
		len += m;
	}
	return len;
}

/* An arena copy of item's text, NULL when empty. */
static const char *
copy_item(pm_arena *arena, const text_item *item, char *buf, size_t cap)
{
	size_t len = read_text(item, buf, cap);
	return len ? pmi_arena_strndup(arena, buf, len) : NULL;
}

size_t
as_context_message(char *buf, size_t cap)
{
	return read_text((const text_item *)&hot.crash_message, buf, cap);
}

void
as_fill_context(pm_report *r, int16_t tz_min, char *buf, size_t cap)
{
	pm_arena *arena = r->arena;
	uint32_t claimed = atomic_load(&hot.annotations_claimed);
	r->annotations = claimed ? pmi_arena_alloc(arena, PM_ANNOTATIONS_MAX * sizeof *r->annotations, _Alignof(pm_kv))
	                         : NULL;
	for (size_t i = 0; r->annotations && i < PM_ANNOTATIONS_MAX; i++) {
		const struct annotation *a = &annotations[i];
		if (!(claimed & (1u << i)) || !atomic_load_explicit(&a->key_ready, memory_order_acquire))
			continue;
		const char *v = copy_item(arena, (const text_item *)&a->value, buf, cap);
		if (v)
			r->annotations[r->annotation_count++] = (pm_kv){ pmi_arena_strdup(arena, a->key), v };
	}
	uint64_t end = atomic_load(&hot.crumb_next);
	uint64_t start = end > PM_BREADCRUMBS_MAX ? end - PM_BREADCRUMBS_MAX : 0;
	r->breadcrumbs = end ? pmi_arena_alloc(arena, PM_BREADCRUMBS_MAX * sizeof *r->breadcrumbs, _Alignof(pm_crumb))
	                     : NULL;
	for (uint64_t t = start; r->breadcrumbs && t < end; t++) {
		const struct crumb *c = &crumbs[t % PM_BREADCRUMBS_MAX];
		const char *m = copy_item(arena, (const text_item *)&c->text, buf, cap);
		if (!m)
			continue;
		r->breadcrumbs[r->breadcrumb_count++] = (pm_crumb){
			.time = { .sec = c->time.tv_sec, .usec = (uint32_t)(c->time.tv_nsec / 1000000) * 1000, .tz_min = tz_min,
			          .digits = 3, .set = true },
			.message = m,
		};
	}
}
