/*
 * checks.h — what the fuzz targets check, as functions the unit tests call
 * too (tests/unit/test_fuzz_regressions.c replays every saved input and
 * every seed through them).  Each returns false with the reason in why.
 */
#ifndef PM_FUZZ_CHECKS_H
#define PM_FUZZ_CHECKS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "postmortem-tools.h"

/* A report a reader accepted: both renderings stay inside the model, and the
 * round trip through the JSON twin (model → JSON → model) keeps it whole. */
bool fuzz_check_report(const pm_report *r, char *why, size_t cap);

/* Bytes through one reader (pm_read_text, pm_read_ips, pm_read_json or
 * pm_read_report); what reads gets fuzz_check_report. */
typedef pm_err fuzz_read_fn(const char *data, size_t len, pm_report *r, pm_read_error *err);
bool fuzz_check_read(fuzz_read_fn *read, const uint8_t *data, size_t size, char *why, size_t cap);

/*
 * A reports directory described by data: chunks separated by a NUL pair,
 * each "<place byte><name>\n<content>".  The place byte chooses pending/,
 * sent/, quarantine/ or the top (its value mod 4), and whether the file is
 * as old as a report left by an earlier launch (bit 2 clear: a fixed date,
 * so runs repeat) or just written.  Laid out under /dev/shm, the store opens
 * it: every listed report must load or say why not, and a second open must
 * list the same reports in the same states and order (the first salvaged
 * and quarantined all there was to), and the same sessions: a runs file at
 * the top is collected by the first (each session whole, the release stats
 * counting every one) and its sessions loaded from their files by the second.
 */
bool fuzz_check_store(const uint8_t *data, size_t size, char *why, size_t cap);

/*
 * Bytes as a crash group's record (pending/.groups/<signature>, docs/store.md "Storm
 * control"): what reads of it is a sane record (its own signature, told not above dropped,
 * times in order and only with crashes, one printable line of app and title), which
 * written and read again comes back whole and the same; in a store beside one report of its
 * group, a looking store and a writing one count that report and the crashes that read,
 * and the writing one leaves the record rebuilt whole.
 */
bool fuzz_check_group_record(const uint8_t *data, size_t size, char *why, size_t cap);

/* A server's answer header value, read as Retry-After (the wait is unreadable
 * (-1) or within [0, the cap], and plain digits are exactly that many seconds,
 * capped) and as X-Sentry-Rate-Limits (no limit (-1) or within [0, the cap]). */
bool fuzz_check_answer(const uint8_t *data, size_t size, char *why, size_t cap);

/* Bytes as a Mach-O file (after a first byte that picks the architecture asked
 * for): what symbolicate/macho.c accepts points only inside the file, and its
 * symbols come sorted. */
bool fuzz_check_macho(const uint8_t *data, size_t size, char *why, size_t cap);

/* Bytes as a pre-parsed symbol table (symbolicate/table.c): what the check
 * accepts answers lookups anywhere without reading outside the bytes. */
bool fuzz_check_table(const uint8_t *data, size_t size, char *why, size_t cap);

/* The core reader (corefile/), as a file and as a stream (check_core.c). */
bool fuzz_check_core(const uint8_t *data, size_t size, char *why, size_t cap);
/* Bytes in memory read as a core file (a pm_core_pread_fn over a fuzz_bytes). */
typedef struct fuzz_bytes {
	const uint8_t *p;
	size_t n;
} fuzz_bytes;
long fuzz_bytes_pread(void *ctx, void *buf, size_t n, uint64_t off);

/* The whole report of a core (check_core_report.c): a little-endian u32 n,
 * n bytes of core, then the bytes of the executable it maps; the report the
 * engine makes of it must hold (fuzz_check_report) and land. */
bool fuzz_check_core_report(const uint8_t *data, size_t size, char *why, size_t cap);

/* Remove a directory tree the checks laid out (check_store.c), never following a link. */
void fuzz_remove_tree(const char *path);

/* Writes the reason into why; always false, so a check can return it. */
static inline bool __attribute__((format(printf, 3, 4)))
fuzz_say(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return false;
}

#endif
