/*
 * seam.c — the capture engine over a recorded target (see seam.h).
 */
#include "seam.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "reporter/symbols/as_symbols.h"
#include "reporter/unwind/as_unwind.h"

enum {
	MAX_THREADS = 4,
	MAX_FRAMES = 512,
	ARENA_BYTES = 4 << 20,
	IMAGE_CAP = 4096,
	MAP_CAP = 65536,
	SCRATCH_CAP = 64 << 10,
	IO_CAP = 64 << 10,
	RANGE_CAP = MAX_THREADS + PM_MD_EXTRA_RANGES,
	SYMBOL_BYTES = 48 << 20,
};

static void *
zalloc(size_t n)
{
	void *p = calloc(1, n);
	if (!p)
		abort();
	return p;
}

void
seam_storage_init(seam_storage *s, const char *exe_path)
{
	memset(s, 0, sizeof *s);
	s->facts.exe_path = exe_path;
	const char *slash = strrchr(exe_path, '/');
	snprintf(s->facts.exe_name, sizeof s->facts.exe_name, "%s", slash ? slash + 1 : exe_path);
	snprintf(s->facts.app_id, sizeof s->facts.app_id, "%s", s->facts.exe_name);
	snprintf(s->facts.os_name, sizeof s->facts.os_name, "Linux");
	s->facts.late = &s->late;
	s->arena = zalloc(ARENA_BYTES);
	s->tids = zalloc(MAX_THREADS * sizeof *s->tids);
	s->frames = zalloc(MAX_FRAMES * sizeof *s->frames);
	s->model_images = zalloc(IMAGE_CAP * sizeof *s->model_images);
	s->as_images = zalloc(IMAGE_CAP * sizeof *s->as_images);
	s->as_maps = zalloc(MAP_CAP * sizeof *s->as_maps);
	s->mem_cache = zalloc(sizeof *s->mem_cache);
	s->cfi_cache = zalloc(as_cfi_cache_size());
	s->scratch = zalloc(SCRATCH_CAP);
	s->io_buf = zalloc(IO_CAP);
	s->md_ranges = zalloc(RANGE_CAP * sizeof *s->md_ranges);
	s->symbols = pmi_as_symbols_create(SYMBOL_BYTES);
}

void
seam_storage_free(seam_storage *s)
{
	pmi_as_symbols_destroy(&s->symbols);
	free(s->arena);
	free(s->tids);
	free(s->frames);
	free(s->model_images);
	free(s->as_images);
	free(s->as_maps);
	free(s->mem_cache);
	free(s->cfi_cache);
	free(s->scratch);
	free(s->io_buf);
	free(s->md_ranges);
}

as_capture_ctx
seam_ctx(seam_storage *s, const as_target *t, pid_t tid, const mcontext_t *mc, const char *dir, int dir_fd)
{
	pm_capture_state *cap = &s->state;
	memset(&cap->crash_info, 0, sizeof cap->crash_info);
	cap->crash_info.si_signo = SIGSEGV;
	cap->crash_info.si_code = SEGV_MAPERR;
	cap->crash_mc = *mc;
	s->thread = (pm_slot){ .tid = tid, .state = SLOT_CAPTURED, .mc = *mc };
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	return (as_capture_ctx){
		.target = *t, .stopped = &s->thread,
		.tid = tid, .signal = SIGSEGV, .info = &cap->crash_info, .mc = &cap->crash_mc, .now = now,
		.facts = &s->facts, .pending_dir = dir, .max_threads = MAX_THREADS, .max_frames = MAX_FRAMES,
		.minidump = true,
		.report = &cap->report, .arena = s->arena, .arena_size = ARENA_BYTES,
		.tids = s->tids, .frame_tmp = s->frames, .model_images = s->model_images,
		.images = &cap->images, .as_images = s->as_images, .as_maps = s->as_maps,
		.image_cap = IMAGE_CAP, .map_cap = MAP_CAP,
		.mem_cache = s->mem_cache, .cfi_cache = s->cfi_cache, .mem = &s->mem,
		.symbols = s->symbols.work ? &s->symbols : NULL,
		.scratch = s->scratch, .scratch_cap = SCRATCH_CAP, .io_buf = s->io_buf, .io_cap = IO_CAP,
		.md_ranges = s->md_ranges, .md_range_cap = RANGE_CAP,
		.phases = &cap->phases, .generation = &s->generation,
		.crash_path = cap->crash_path, .json_path = cap->json_path, .minidump_path = cap->minidump_path,
		.dir_fd = dir_fd,
	};
}

/* ---- the recorder ---------------------------------------------------------- */

static void
keep(seam_record *r, uint64_t addr, const void *bytes, size_t n)
{
	if (r->count == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 1024;
		r->spans = realloc(r->spans, r->cap * sizeof *r->spans);
		if (!r->spans)
			abort();
	}
	unsigned char *copy = malloc(n ? n : 1);
	if (!copy)
		abort();
	memcpy(copy, bytes, n);
	r->spans[r->count++] = (seam_span){ .addr = addr, .len = n, .bytes = copy };
}

static bool
recorded_read(void *ctx, uint64_t addr, void *dst, size_t n)
{
	seam_record *r = ctx;
	if (!pm_mem_read(&r->under, addr, dst, n))
		return false;
	keep(r, addr, dst, n);
	return true;
}

/* The mappings parsed from r->maps ("start-end perms offset dev inode path"). */
static void
parse_maps(seam_record *r)
{
	size_t lines = 0;
	for (size_t i = 0; i < r->maps_len; i++)
		lines += r->maps[i] == '\n';
	r->mappings = calloc(lines + 1, sizeof *r->mappings);
	r->mapping_count = 0;
	for (char *p = r->maps, *end = r->maps + r->maps_len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *eol = nl ? nl : end;
		as_mapping *m = &r->mappings[r->mapping_count];
		char perms[5] = "";
		unsigned long long start, stop, offset;
		int path_at = 0;
		if (sscanf(p, "%llx-%llx %4s %llx %*s %*s %n", &start, &stop, perms, &offset, &path_at) == 4 && path_at) {
			*m = (as_mapping){ .start = start, .end = stop, .offset = offset,
			                   .prot = (uint8_t)((perms[0] == 'r' ? PROT_READ : 0) |
			                                     (perms[1] == 'w' ? PROT_WRITE : 0) |
			                                     (perms[2] == 'x' ? PROT_EXEC : 0)),
			                   .path = p + path_at < eol ? p + path_at : eol,
			                   .path_len = p + path_at < eol ? (size_t)(eol - (p + path_at)) : 0 };
			r->mapping_count++;
		}
		p = eol + 1;
	}
}

static bool
mapping_at(void *ctx, size_t i, as_mapping *out)
{
	const seam_record *r = ctx;
	if (i >= r->mapping_count)
		return false;
	*out = r->mappings[i];
	return true;
}

as_target
seam_recorder(seam_record *r, const pm_mem *under, const char *maps, size_t maps_len)
{
	memset(r, 0, sizeof *r);
	r->under = *under;
	r->maps = malloc(maps_len + 1);
	if (!r->maps)
		abort();
	memcpy(r->maps, maps, maps_len);
	r->maps[maps_len] = '\0';
	r->maps_len = maps_len;
	parse_maps(r);
	/* No batch of windows: each is one read, kept as read.  No /proc
	 * directory, as the buffer has none: the two captures see the same. */
	return (as_target){ .mem = { .read = recorded_read, .ctx = r }, .mapping = mapping_at, .mapping_ctx = r };
}

/* ---- the file -------------------------------------------------------------- */

static const char magic[8] = "PMSEAM1\n";

static bool
put(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n;
}

static bool
get(FILE *f, void *p, size_t n)
{
	return fread(p, 1, n, f) == n;
}

bool
seam_save(const seam_record *r, const char *path)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	uint64_t maps_len = r->maps_len, count = r->count;
	bool ok = put(f, magic, sizeof magic) && put(f, &r->pid, sizeof r->pid) && put(f, &r->tid, sizeof r->tid) &&
	          put(f, &r->mc, sizeof r->mc) && put(f, &maps_len, sizeof maps_len) && put(f, r->maps, r->maps_len) &&
	          put(f, &count, sizeof count);
	for (size_t i = 0; ok && i < r->count; i++) {
		uint64_t len = r->spans[i].len;
		ok = put(f, &r->spans[i].addr, sizeof r->spans[i].addr) && put(f, &len, sizeof len) &&
		     put(f, r->spans[i].bytes, r->spans[i].len);
	}
	return fclose(f) == 0 && ok;
}

static int
by_addr(const void *a, const void *b)
{
	const seam_span *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* One span per run of overlapping or touching spans: a read is answered
 * only from within one of them. */
static void
merge(seam_record *r)
{
	qsort(r->spans, r->count, sizeof *r->spans, by_addr);
	size_t n = 0;
	for (size_t i = 0; i < r->count; i++) {
		seam_span *s = &r->spans[i];
		seam_span *last = n ? &r->spans[n - 1] : NULL;
		if (!last || s->addr > last->addr + last->len) {
			r->spans[n++] = *s;
			continue;
		}
		uint64_t end = s->addr + s->len;
		if (end > last->addr + last->len) {
			size_t len = (size_t)(end - last->addr);
			last->bytes = realloc(last->bytes, len);
			if (!last->bytes)
				abort();
			memcpy(last->bytes + (s->addr - last->addr), s->bytes, s->len);
			last->len = len;
		}
		free(s->bytes);
	}
	r->count = n;
}

bool
seam_load(seam_record *r, const char *path)
{
	memset(r, 0, sizeof *r);
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char m[sizeof magic];
	uint64_t maps_len, count;
	bool ok = get(f, m, sizeof m) && memcmp(m, magic, sizeof m) == 0 && get(f, &r->pid, sizeof r->pid) &&
	          get(f, &r->tid, sizeof r->tid) && get(f, &r->mc, sizeof r->mc) && get(f, &maps_len, sizeof maps_len) &&
	          maps_len < (64u << 20) && (r->maps = malloc(maps_len + 1)) != NULL && get(f, r->maps, maps_len) &&
	          get(f, &count, sizeof count) && count < (1u << 24);
	if (ok) {
		r->maps[maps_len] = '\0';
		r->maps_len = maps_len;
		r->spans = calloc(count + 1, sizeof *r->spans);
		ok = r->spans != NULL;
	}
	for (uint64_t i = 0; ok && i < count; i++) {
		uint64_t addr, len;
		ok = get(f, &addr, sizeof addr) && get(f, &len, sizeof len) && len < (64u << 20) &&
		     (r->spans[i].bytes = malloc(len ? len : 1)) != NULL && get(f, r->spans[i].bytes, len);
		r->spans[i].addr = addr;
		r->spans[i].len = len;
		r->count = i + 1;
	}
	fclose(f);
	if (!ok) {
		errno = errno ? errno : EINVAL;
		return false;
	}
	parse_maps(r);
	r->reads = malloc((r->count + 1) * sizeof *r->reads);
	if (!r->reads)
		abort();
	for (size_t i = 0; i < r->count; i++)
		r->reads[i] = (seam_span){ .addr = r->spans[i].addr, .len = r->spans[i].len };
	r->read_count = r->count;
	merge(r);
	return true;
}

/* ---- the buffer ------------------------------------------------------------ */

static bool
buffer_read(void *ctx, uint64_t addr, void *dst, size_t n)
{
	const seam_record *r = ctx;
	size_t lo = 0, hi = r->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->spans[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr + n < addr)
		return false;
	const seam_span *s = &r->spans[lo - 1];
	if (addr + n > s->addr + s->len)
		return false;
	memcpy(dst, s->bytes + (addr - s->addr), n);
	return true;
}

as_target
seam_buffer(seam_record *r)
{
	return (as_target){ .mem = { .read = buffer_read, .ctx = r }, .pid = r->pid,
	                    .mapping = mapping_at, .mapping_ctx = r };
}

void
seam_record_free(seam_record *r)
{
	for (size_t i = 0; i < r->count; i++)
		free(r->spans[i].bytes);
	free(r->spans);
	free(r->reads);
	free(r->maps);
	free(r->mappings);
	memset(r, 0, sizeof *r);
}
