/*
 * test_symbols.c — the in-handler symbolizer (reporter/symbols/as_symbols.h) on this
 * very process: its own static functions, libc (.dynsym, and .symtab from
 * libc6-dbg when installed), the vdso, and a library whose file was
 * replaced by another build.  Expected addresses come from readelf and the
 * dynamic loader, never from the code under test.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/model/model.h"
#include "reporter/images/as_images.h"
#include "reporter/memory/as_mem.h"
#include "reporter/symbols/as_symbols.h"
#include "reporter/symbols/as_symbols_internal.h"
#include "util.h"

enum { MAX_IMAGES = 512, MAX_MAPS = 8192, MAX_FRAMES = 64, WORK_BYTES = 32 << 20 };

static char arena_mem[16 << 20];
static pm_report rep;
static pm_as_image as_images[MAX_IMAGES];
static pm_as_map maps_table[MAX_MAPS];
static pm_as_images im;
static pm_thread thread;
static pm_frame frames[MAX_FRAMES];
static pm_frame leb[MAX_FRAMES];
static pm_mem mem;

/* ---- the process as the handler would see it ---- */

static void
scan_process(void)
{
	static char exe[PATH_MAX], line[4096];
	cr_assert(pmi_as_mem_setup(), "no fault-free memory reader");
	mem = as_mem_self();
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	cr_assert(n > 0);
	exe[n] = '\0';
	pmi_report_init_fixed(&rep, arena_mem, sizeof arena_mem);
	rep.images = pmi_arena_alloc(rep.arena, MAX_IMAGES * sizeof *rep.images, _Alignof(pm_image));
	cr_assert_not_null(rep.images);
	im = (pm_as_images){ .images = as_images, .cap = MAX_IMAGES, .maps = maps_table, .map_cap = MAX_MAPS };
	as_target self = as_target_self();
	as_images_scan(&im, &rep, &self, exe, line, sizeof line);
	cr_assert(im.count > 0, "no image found in /proc/self/maps");
	memset(&thread, 0, sizeof thread);
	thread.frames = frames;
	rep.threads = &thread;
	rep.thread_count = 1;
}

/* Append a frame as the unwinder would: frame 0 and CONTEXT frames are exact pcs. */
static pm_frame *
add_frame_to(pm_frame *list, uint32_t *count, uint64_t address, uint8_t how)
{
	cr_assert(*count < MAX_FRAMES);
	uint32_t i = (*count)++;
	uint64_t lookup = i == 0 || how == PM_HOW_CONTEXT ? address : address - 1;
	list[i] = (pm_frame){ .address = address, .image = pm_report_image_for(&rep, lookup), .how = how };
	return &list[i];
}

static pm_frame *
add_frame(uint64_t address, uint8_t how)
{
	return add_frame_to(frames, &thread.frame_count, address, how);
}

static void
symbolize(size_t work_bytes)
{
	pm_as_symbols h = pmi_as_symbols_create(work_bytes);
	cr_assert_not_null(h.work);
	as_symbolize(&h, &rep, &im, &mem);
	pmi_as_symbols_destroy(&h);
}

static void
expect_named(const pm_frame *f, const char *name, uint64_t offset)
{
	cr_assert_not_null(f->symbol, "frame at %#llx: no name, expected %s", (unsigned long long)f->address, name);
	cr_expect_str_eq(f->symbol, name);
	cr_expect_eq(f->symbol_offset, offset, "%s: offset %llu, expected %llu", name,
	             (unsigned long long)f->symbol_offset, (unsigned long long)offset);
	cr_expect(f->has_offset);
}

static void
expect_unnamed(const pm_frame *f)
{
	cr_expect_null(f->symbol, "frame at %#llx named %s, expected no name", (unsigned long long)f->address,
	               f->symbol ? f->symbol : "");
}

/* The scanned image named `name` ("libc.so.6", "[vdso]"). */
static const pm_as_image *
image_named(const char *name)
{
	for (size_t i = 0; i < im.count; i++)
		if (strcmp(rep.images[as_images[i].model_index].name, name) == 0)
			return &as_images[i];
	cr_assert_fail("image %s is not loaded", name);
	return NULL;
}

static const pm_image *
model_of(const pm_as_image *ai)
{
	return &rep.images[ai->model_index];
}

/* ---- independent facts: readelf and the dynamic loader ---- */

typedef struct ref_sym {
	uint64_t value, size;
	char name[256];
} ref_sym;

typedef struct ref_syms {
	ref_sym *v;
	size_t n, cap;
} ref_syms;

/* The defined, sized function symbols of an ELF file (.dynsym and .symtab),
 * names without their version, as readelf lists them. */
static void
ref_load(ref_syms *out, const char *path)
{
	char cmd[PATH_MAX + 64], line[4096];
	snprintf(cmd, sizeof cmd, "readelf -sW '%s' 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof line, p)) {
		char value[32], size[32], type[16], bind[16], vis[16], ndx[16], name[sizeof out->v->name];
		if (sscanf(line, " %*u: %31s %31s %15s %15s %15s %15s %255s", value, size, type, bind, vis, ndx,
		           name) != 7 ||
		    (strcmp(type, "FUNC") != 0 && strcmp(type, "IFUNC") != 0) || strcmp(ndx, "UND") == 0 ||
		    strcmp(ndx, "ABS") == 0 || strtoull(size, NULL, 0) == 0)
			continue;
		if (out->n == out->cap) {
			out->cap = out->cap ? 2 * out->cap : 1024;
			out->v = realloc(out->v, out->cap * sizeof *out->v);
			cr_assert_not_null(out->v);
		}
		ref_sym *r = &out->v[out->n++];
		r->value = strtoull(value, NULL, 16);
		r->size = strtoull(size, NULL, 0);
		name[strcspn(name, "@")] = '\0';
		memcpy(r->name, name, sizeof r->name);
	}
	pclose(p);
}

static const ref_sym *
ref_find(const ref_syms *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].name, name) == 0)
			return &r->v[i];
	return NULL;
}

/* True when some function of r covers the link-time address a. */
static bool
ref_covers(const ref_syms *r, uint64_t a)
{
	for (size_t i = 0; i < r->n; i++)
		if (a >= r->v[i].value && a - r->v[i].value < r->v[i].size)
			return true;
	return false;
}

/* True when r has a function starting at the link-time address a called name. */
static bool
ref_has(const ref_syms *r, uint64_t a, const char *name, size_t len)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].value == a && strlen(r->v[i].name) == len && memcmp(r->v[i].name, name, len) == 0)
			return true;
	return false;
}

/* Load bias of a loaded library, from the dynamic loader. */
static uint64_t
loader_bias(void *handle)
{
	struct link_map *lm = NULL;
	cr_assert_eq(dlinfo(handle, RTLD_DI_LINKMAP, &lm), 0);
	return lm->l_addr;
}

static void *
libc_handle(void)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	cr_assert_not_null(h, "libc.so.6 is not loaded: %s", dlerror());
	return h;
}

/* /usr/lib/debug/.build-id/xx/rest.debug of libc, or NULL when libc6-dbg is missing. */
static const char *
libc_debug_file(void)
{
	static char path[256];
	const pm_image *img = model_of(image_named("libc.so.6"));
	cr_assert(img->build_id_len >= 2);
	int n = snprintf(path, sizeof path, "/usr/lib/debug/.build-id/%02x/", img->build_id[0]);
	for (unsigned i = 1; i < img->build_id_len; i++)
		n += snprintf(path + n, sizeof path - (size_t)n, "%02x", img->build_id[i]);
	snprintf(path + n, sizeof path - (size_t)n, ".debug");
	if (access(path, R_OK) != 0) {
		cr_log_warn("%s is missing (install libc6-dbg): skipping the libc .symtab checks", path);
		return NULL;
	}
	return path;
}

/* libc's functions: its .dynsym, plus the debug file's .symtab when installed. */
static void
libc_reference(ref_syms *r)
{
	ref_load(r, model_of(image_named("libc.so.6"))->path);
	const char *debug = libc_debug_file();
	if (debug)
		ref_load(r, debug);
	cr_assert(r->n > 100, "readelf listed too few libc functions");
}

/* ---- this test binary's own .symtab ---- */

__attribute__((noinline)) static int
local_target(volatile int *v)
{
	int sum = 0;
	for (int i = 0; i < *v; i++)
		sum += i * *v;
	return sum;
}

Test(symbols, names_a_static_function_of_the_program)
{
	volatile int v = 3;
	cr_assert_eq(local_target(&v), 9);
	scan_process();
	uint64_t fn = (uint64_t)(uintptr_t)&local_target;
	pm_frame *pc = add_frame(fn, PM_HOW_CONTEXT);
	pm_frame *ret = add_frame(fn + 5, PM_HOW_CFI);
	symbolize(WORK_BYTES);
	expect_named(pc, "local_target", 0);
	expect_named(ret, "local_target", 5);
}

/* ---- libc ---- */

Test(symbols, names_a_libc_export_in_threads_and_exception_backtrace)
{
	scan_process();
	uint64_t fn = (uint64_t)(uintptr_t)dlsym(libc_handle(), "getpid");
	cr_assert(fn != 0);
	pm_frame *pc = add_frame(fn + 1, PM_HOW_CONTEXT);
	pm_frame *ret = add_frame(fn + 1, PM_HOW_CFI);
	rep.last_exception_backtrace = leb;
	rep.leb_count = 0;
	pm_frame *in_leb = add_frame_to(leb, &rep.leb_count, fn + 1, PM_HOW_UNKNOWN);
	symbolize(WORK_BYTES);
	expect_named(pc, "getpid", 1);
	expect_named(ret, "getpid", 1);
	expect_named(in_leb, "getpid", 1);
}

Test(symbols, names_a_static_libc_function_from_the_debug_file)
{
	scan_process();
	const char *debug = libc_debug_file();
	if (!debug)
		return;
	ref_syms ref = { 0 };
	ref_load(&ref, debug);
	const ref_sym *st = ref_find(&ref, "start_thread");
	cr_assert_not_null(st, "readelf finds no start_thread in %s", debug);
	uint64_t at = loader_bias(libc_handle()) + st->value;
	pm_frame *f0 = add_frame(at + 40, PM_HOW_CONTEXT);
	pm_frame *f1 = add_frame(at + 3, PM_HOW_CFI);
	symbolize(WORK_BYTES);
	expect_named(f0, "start_thread", 40);
	expect_named(f1, "start_thread", 3);

	/* .dynsym alone does not know it, and must not name it after a neighbour. */
	pm_as_symbols h = pmi_as_symbols_create(WORK_BYTES);
	pm_sym_work *s = as_symbols_work(&h);
	const pm_as_image *libc = image_named("libc.so.6");
	cr_assert(as_symtab_from_dynamic(s, model_of(libc), libc, &mem));
	cr_expect_null(as_symtab_lookup(&s->table, at + 3));
	pmi_as_symbols_destroy(&h);
	free(ref.v);
}

Test(symbols, leaves_padding_and_the_space_after_the_last_function_unnamed)
{
	scan_process();
	ref_syms ref = { 0 };
	libc_reference(&ref);
	const pm_as_image *libc = image_named("libc.so.6");
	uint64_t bias = loader_bias(libc_handle());
	/* A gap: the byte after a function that no function covers, between two functions. */
	uint64_t gap = 0, last_end = 0;
	for (size_t i = 0; i < ref.n; i++) {
		uint64_t end = ref.v[i].value + ref.v[i].size;
		if (end > last_end)
			last_end = end;
		if (!gap && !ref_covers(&ref, end) && ref_covers(&ref, end + 16))
			gap = end;
	}
	cr_assert(gap != 0, "no padding between libc functions found");
	pm_frame *in_gap = add_frame(bias + gap, PM_HOW_CONTEXT);
	pm_frame *after_gap = add_frame(bias + gap + 1, PM_HOW_CFI);
	pm_frame *past_last = NULL;
	if (bias + last_end < libc->end)
		past_last = add_frame(bias + last_end, PM_HOW_CONTEXT);
	else
		cr_log_warn("libc's last function ends its image: no address past it to check");
	symbolize(WORK_BYTES);
	expect_unnamed(in_gap);
	expect_unnamed(after_gap);
	if (past_last)
		expect_unnamed(past_last);
	free(ref.v);
}

/* ---- the vdso: .dynsym from memory, link-time dynamic entries ---- */

static int
find_vdso_bias(struct dl_phdr_info *info, size_t size, void *out)
{
	(void)size;
	if (strcmp(info->dlpi_name, "linux-vdso.so.1") != 0)
		return 0;
	*(uint64_t *)out = info->dlpi_addr;
	return 1;
}

Test(symbols, names_a_vdso_function_from_its_dynsym)
{
	scan_process();
	uint64_t base = getauxval(AT_SYSINFO_EHDR), bias = 0;
	cr_assert(base != 0, "no vdso");
	cr_assert(dl_iterate_phdr(find_vdso_bias, &bias) == 1, "the loader does not list the vdso");
	const pm_as_image *vdso = image_named("[vdso]");
	char *dir = pm_test_tmpdir(), path[PATH_MAX];
	snprintf(path, sizeof path, "%s/vdso.so", dir);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite((const void *)(uintptr_t)base, 1, vdso->end - vdso->start, f), vdso->end - vdso->start);
	fclose(f);
	ref_syms ref = { 0 };
	ref_load(&ref, path);
	const ref_sym *cg = ref_find(&ref, "__vdso_clock_gettime");
	cr_assert_not_null(cg, "no __vdso_clock_gettime in the vdso");
	pm_frame *fr = add_frame(bias + cg->value + 7, PM_HOW_CFI);
	symbolize(WORK_BYTES);
	/* The public weak alias wins over the global reserved one (as_symtab.c). */
	expect_named(fr, ref_find(&ref, "clock_gettime") ? "clock_gettime" : "__vdso_clock_gettime", 7);
	free(ref.v);
	pm_test_rmdir(dir);
}

/* ---- a library whose file was replaced by another build ---- */

static const char probe_source[] =
	"__attribute__((noinline, used)) static int HELPER(volatile int *v)\n"
	"{ int s = 0; for (int i = 0; i < *v; i++) s += i * *v; return s; }\n"
	"int pm_probe_entry(int n) { volatile int v = n; return HELPER(&v) + 1; }\n";

static void
build_probe(const char *dir, const char *helper, const char *build_id, const char *out)
{
	char cmd[4 * PATH_MAX], *log = NULL;
	snprintf(cmd, sizeof cmd,
	         "cc -shared -fPIC -O1 -DHELPER=%s -Wl,--build-id=0x%s -o '%s' '%s/probe.c'", helper, build_id,
	         out, dir);
	int st = pm_test_run(cmd, &log);
	cr_assert_eq(st, 0, "%s\n%s", cmd, log);
	free(log);
}

Test(symbols, ignores_the_symtab_of_a_replaced_file)
{
	char *dir = pm_test_tmpdir(), src[PATH_MAX], good[PATH_MAX], other[PATH_MAX], lib[PATH_MAX];
	snprintf(src, sizeof src, "%s/probe.c", dir);
	snprintf(good, sizeof good, "%s/good.so", dir);
	snprintf(other, sizeof other, "%s/other.so", dir);
	snprintf(lib, sizeof lib, "%s/libprobe.so", dir);
	FILE *f = fopen(src, "w");
	cr_assert_not_null(f);
	fputs(probe_source, f);
	fclose(f);
	build_probe(dir, "hidden_helper", "11111111111111111111111111111111aaaaaaaa", good);
	build_probe(dir, "decoy_helper", "22222222222222222222222222222222bbbbbbbb", other);
	ref_syms good_ref = { 0 }, other_ref = { 0 };
	ref_load(&good_ref, good);
	ref_load(&other_ref, other);
	const ref_sym *hidden = ref_find(&good_ref, "hidden_helper"), *entry = ref_find(&good_ref, "pm_probe_entry");
	const ref_sym *decoy = ref_find(&other_ref, "decoy_helper");
	cr_assert(hidden && entry && decoy);
	cr_assert_eq(hidden->value, decoy->value, "the two builds must differ only in names and build id");

	cr_assert_eq(rename(good, lib), 0);
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(h, "%s", dlerror());
	uint64_t bias = loader_bias(h);
	scan_process();
	pm_frame *in_hidden = add_frame(bias + hidden->value + 2, PM_HOW_CONTEXT);
	pm_frame *in_entry = add_frame(bias + entry->value + 2, PM_HOW_CONTEXT);

	/* While the file is the loaded build, its .symtab names the static helper. */
	symbolize(WORK_BYTES);
	expect_named(in_hidden, "hidden_helper", 2);
	expect_named(in_entry, "pm_probe_entry", 2);

	/* Replaced (as a package upgrade does): the other build's .symtab would say
	 * decoy_helper; only the mapped .dynsym may be used. */
	cr_assert_eq(rename(other, lib), 0);
	*in_hidden = (pm_frame){ .address = in_hidden->address, .image = in_hidden->image, .how = in_hidden->how };
	*in_entry = (pm_frame){ .address = in_entry->address, .image = in_entry->image, .how = in_entry->how };
	symbolize(WORK_BYTES);
	expect_unnamed(in_hidden);
	expect_named(in_entry, "pm_probe_entry", 2);
	dlclose(h);
	free(good_ref.v);
	free(other_ref.v);
	pm_test_rmdir(dir);
}

/* ---- the table itself ---- */

static uint64_t
random_u64(void)
{
	return (uint64_t)rand() << 42 ^ (uint64_t)rand() << 21 ^ (uint64_t)rand();
}

Test(symbols, libc_table_is_sorted_and_binary_search_agrees_with_a_scan)
{
	scan_process();
	ref_syms ref = { 0 };
	libc_reference(&ref);
	const pm_as_image *libc = image_named("libc.so.6");
	pm_as_symbols h = pmi_as_symbols_create(WORK_BYTES);
	pm_sym_work *s = as_symbols_work(&h);
	cr_assert(as_symbols_load(s, model_of(libc), libc, &mem));
	const pm_symtab *t = &s->table;
	cr_assert(t->count > 100);
	cr_expect(!t->truncated);
	for (size_t i = 1; i < t->count; i++)
		cr_assert(t->syms[i - 1].start < t->syms[i].start, "entry %zu is out of order", i);
	srand(12345);
	size_t named = 0;
	for (int k = 0; k < 10000; k++) {
		uint64_t a = libc->start + random_u64() % (libc->end - libc->start);
		const pm_sym *want = NULL;
		for (size_t i = 0; i < t->count && t->syms[i].start <= a; i++)
			want = &t->syms[i];
		if (want && a - want->start >= want->size)
			want = NULL;
		const pm_sym *got = as_symtab_lookup(t, a);
		cr_assert_eq(got, want, "lookup of %#llx disagrees with a linear scan", (unsigned long long)a);
		if (!got)
			continue;
		named++;
		size_t len;
		const char *name = as_symtab_name(t, got, &len);
		cr_assert(ref_has(&ref, got->start - t->bias, name, len), "%.*s at %#llx is not a libc function",
		          (int)len, name, (unsigned long long)got->start);
	}
	cr_expect(named > 1000, "only %zu of 10000 addresses in libc fell in a function", named);
	pmi_as_symbols_destroy(&h);
	free(ref.v);
}

/* A hand-made table: names, then symbols relative to an image at 0x10000. */
static const char alias_names[] =
	"\0__getpid\0getpid\0__GI_getpid\0__libc_malloc\0malloc\0__malloc\0"
	"cb\0__default_cb\0memcpy@@GLIBC_2.14\0nosize\0data\0undef\0outside\0";

static bool
read_alias_names(const void *ctx, uint64_t at, void *dst, size_t n)
{
	(void)ctx;
	if (at > sizeof alias_names - 1 || n > sizeof alias_names - 1 - at)
		return false;
	memcpy(dst, alias_names + at, n);
	return true;
}

static const pm_sym_names alias_source = { .read = read_alias_names };

static Elf64_Word
name_at(const char *name)
{
	for (size_t i = 1; i < sizeof alias_names; i += strlen(alias_names + i) + 1)
		if (strcmp(alias_names + i, name) == 0)
			return (Elf64_Word)i;
	cr_assert_fail("no name %s", name);
	return 0;
}

static Elf64_Sym
fn(const char *name, unsigned bind, uint64_t value, uint64_t size)
{
	return (Elf64_Sym){ .st_name = name_at(name), .st_info = ELF64_ST_INFO(bind, STT_FUNC), .st_shndx = 1,
	                    .st_value = value, .st_size = size };
}

static void
expect_lookup(const pm_symtab *t, uint64_t a, const char *name)
{
	const pm_sym *sym = as_symtab_lookup(t, a);
	if (!name) {
		cr_expect_null(sym, "%#llx should have no name", (unsigned long long)a);
		return;
	}
	cr_assert_not_null(sym, "%#llx has no name, expected %s", (unsigned long long)a, name);
	size_t len;
	const char *got = as_symtab_name(t, sym, &len);
	cr_expect(len == strlen(name) && memcmp(got, name, len) == 0, "%#llx: %.*s, expected %s",
	          (unsigned long long)a, (int)len, got, name);
}

static uint32_t want_first[PM_SYM_WANT_BUCKETS + 1];

/* The wanted addresses pcs[0..n), sorted, over room for them, indexed. */
static pm_sym_want
want_for(const uint64_t *pcs, size_t n, pm_sym *room, uint64_t *kept)
{
	for (size_t i = 0; i < n; i++)
		room[i] = (pm_sym){ .start = pcs[i] };
	return (pm_sym_want){ .pcs = room, .kept = kept, .count = n, .first = want_first };
}

/* Each of pcs[0..n) gets the same symbol (start, size, name) from both tables. */
static void
expect_named_alike(const pm_symtab *full, const pm_symtab *part, const uint64_t *pcs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const pm_sym *a = as_symtab_lookup(full, pcs[i]), *b = as_symtab_lookup(part, pcs[i]);
		cr_expect_eq(a == NULL, b == NULL, "%#llx: named in one table only", (unsigned long long)pcs[i]);
		if (!a || !b)
			continue;
		size_t la, lb;
		const char *na = as_symtab_name(full, a, &la), *nb = as_symtab_name(part, b, &lb);
		cr_expect(a->start == b->start && a->size == b->size && la == lb && memcmp(na, nb, la) == 0,
		          "%#llx: %.*s in the full table, %.*s in the wanted one", (unsigned long long)pcs[i], (int)la,
		          na, (int)lb, nb);
	}
}

Test(symbols, aliases_resolve_as_documented)
{
	Elf64_Sym syms[] = {
		fn("__getpid", STB_GLOBAL, 0x100, 8),
		fn("getpid", STB_WEAK, 0x100, 8),
		fn("__GI_getpid", STB_LOCAL, 0x100, 8),
		fn("__malloc", STB_LOCAL, 0x200, 16),
		fn("malloc", STB_GLOBAL, 0x200, 16),
		fn("__libc_malloc", STB_GLOBAL, 0x200, 32), /* the group keeps the largest size */
		fn("cb", STB_LOCAL, 0x300, 8),
		fn("__default_cb", STB_GLOBAL, 0x300, 8),
		fn("memcpy@@GLIBC_2.14", STB_GLOBAL, 0x400, 8),
		fn("nosize", STB_GLOBAL, 0x500, 0),
		fn("undef", STB_GLOBAL, 0x600, 8),
		fn("outside", STB_GLOBAL, 0x100000, 8),
		{ .st_name = name_at("data"), .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT), .st_shndx = 1,
		  .st_value = 0x700, .st_size = 8 },
	};
	syms[10].st_shndx = SHN_UNDEF;
	static char area[4096];
	pm_as_image ai = { .start = 0x10000, .end = 0x20000, .bias = 0x10000 };
	pm_symtab t;
	as_symtab_reset(&t, &ai, NULL);
	cr_assert(as_symtab_place(&t, area, sizeof area, sizeof alias_names - 1));
	cr_assert(as_symtab_add(&t, syms, sizeof syms / sizeof syms[0]));
	as_symtab_finish(&t, &alias_source);
	cr_expect_eq(t.count, 4);
	expect_lookup(&t, 0x10100, "getpid");  /* weak public name over global reserved one */
	expect_lookup(&t, 0x10200, "malloc");  /* fewest underscores, then shortest */
	expect_lookup(&t, 0x1021f, "malloc");
	expect_lookup(&t, 0x10220, NULL);
	expect_lookup(&t, 0x10300, "__default_cb"); /* exported over local */
	expect_lookup(&t, 0x10404, "memcpy"); /* version dropped */
	expect_lookup(&t, 0x10500, NULL);      /* size 0 */
	expect_lookup(&t, 0x10600, NULL);      /* undefined */
	expect_lookup(&t, 0x10700, NULL);      /* not a function */
	expect_lookup(&t, 0x10000, NULL);
}

/* A table built for a few addresses names each of them exactly as the table of
 * every symbol does: aliases of different sizes, a function nested in another
 * (its address past the inner one stays unnamed, as in the full table), starts
 * in any order, an address below every symbol and one past the last; the
 * symbols that cannot name any of them are left out. */
Test(symbols, table_for_wanted_addresses_names_them_as_the_full_table)
{
	Elf64_Sym syms[] = {
		fn("cb", STB_LOCAL, 0x300, 8),
		fn("__malloc", STB_LOCAL, 0x200, 16),
		fn("malloc", STB_GLOBAL, 0x200, 8),
		fn("__libc_malloc", STB_GLOBAL, 0x200, 0x100), /* the group's size reaches 0x2ff */
		fn("getpid", STB_WEAK, 0x100, 0x100),
		fn("__getpid", STB_GLOBAL, 0x150, 0x10),       /* nested in getpid */
		fn("__default_cb", STB_GLOBAL, 0x300, 8),
		fn("memcpy@@GLIBC_2.14", STB_GLOBAL, 0x400, 8),
		fn("nosize", STB_GLOBAL, 0x180, 4),
		fn("undef", STB_GLOBAL, 0x120, 4),             /* __getpid is nearer below 0x152 */
		fn("outside", STB_GLOBAL, 0x600, 8),           /* above every address */
	};
	const uint64_t pcs[] = { 0x10050, 0x10100, 0x10152, 0x10170, 0x10182, 0x10190, 0x10204, 0x102f0,
	                         0x10304, 0x10404, 0x10500 };
	enum { N = sizeof pcs / sizeof pcs[0] };
	static char full_area[4096], want_area[4096];
	pm_sym want_pcs[N];
	uint64_t kept[N];
	pm_sym_want want = want_for(pcs, N, want_pcs, kept);
	pm_as_image ai = { .start = 0x10000, .end = 0x20000, .bias = 0x10000 };
	pm_symtab full, part;
	as_symtab_reset(&full, &ai, NULL);
	as_symtab_reset(&part, &ai, &want);
	cr_assert(as_symtab_place(&full, full_area, sizeof full_area, sizeof alias_names - 1));
	cr_assert(as_symtab_place(&part, want_area, sizeof want_area, sizeof alias_names - 1));
	cr_assert(as_symtab_add(&full, syms, sizeof syms / sizeof syms[0]));
	cr_assert(as_symtab_add(&part, syms, sizeof syms / sizeof syms[0]));
	as_symtab_finish(&full, &alias_source);
	as_symtab_finish(&part, &alias_source);
	cr_expect_lt(part.count, full.count, "the wanted addresses need fewer entries");
	expect_named_alike(&full, &part, pcs, N);
	expect_lookup(&part, 0x10152, "__getpid");
	expect_lookup(&part, 0x10170, NULL);
	expect_lookup(&part, 0x102f0, "malloc");
}

static uint64_t
next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int
compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Over a large image, whose index buckets hold none, one or many of the
 * wanted addresses: 3000 symbols at random starts and of random sizes
 * (aliases and nested functions among them, bindings mixed), in no order,
 * and 300 addresses, 40 of them packed into a few hundred bytes; every one
 * is named as the table of every symbol names it. */
Test(symbols, wanted_addresses_over_a_large_image_are_named_as_by_the_full_table)
{
	enum { SYMS = 3000, PCS = 300, PACKED = 40, SPAN = 4 << 20 };
	static const char *const names[] = { "getpid", "__getpid", "__GI_getpid", "malloc", "__malloc",
		                             "cb", "__default_cb", "outside" };
	static const unsigned binds[] = { STB_LOCAL, STB_GLOBAL, STB_WEAK };
	static Elf64_Sym syms[SYMS];
	static char full_area[256 << 10], want_area[256 << 10];
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (size_t i = 0; i < SYMS; i++) {
		uint64_t at = next_random(&x) % SPAN, size = 1 + next_random(&x) % 8192;
		syms[i] = fn(names[next_random(&x) % 8], binds[next_random(&x) % 3], at, size);
	}
	uint64_t pcs[PCS];
	for (size_t i = 0; i < PCS; i++)
		pcs[i] = 0x10000 + (i < PACKED ? SPAN / 2 + i * 7 : next_random(&x) % SPAN);
	qsort(pcs, PCS, sizeof pcs[0], compare_u64);
	size_t n = 0;
	for (size_t i = 0; i < PCS; i++)
		if (n == 0 || pcs[n - 1] != pcs[i])
			pcs[n++] = pcs[i];
	pm_sym want_pcs[PCS];
	uint64_t kept[PCS];
	pm_sym_want want = want_for(pcs, n, want_pcs, kept);
	pm_as_image ai = { .start = 0x10000, .end = 0x10000 + SPAN, .bias = 0x10000 };
	pm_symtab full, part;
	as_symtab_reset(&full, &ai, NULL);
	as_symtab_reset(&part, &ai, &want);
	cr_assert(as_symtab_place(&full, full_area, sizeof full_area, sizeof alias_names - 1));
	cr_assert(as_symtab_place(&part, want_area, sizeof want_area, sizeof alias_names - 1));
	cr_assert(as_symtab_add(&full, syms, SYMS));
	cr_assert(as_symtab_add(&part, syms, SYMS));
	as_symtab_finish(&full, &alias_source);
	as_symtab_finish(&part, &alias_source);
	cr_assert(!full.truncated && !part.truncated);
	cr_expect_lt(part.count, full.count / 4, "%zu entries of %zu kept", part.count, full.count);
	expect_named_alike(&full, &part, pcs, n);
	size_t named = 0;
	for (size_t i = 0; i < n; i++)
		named += as_symtab_lookup(&full, pcs[i]) != NULL;
	cr_expect_gt(named, n / 2, "only %zu of %zu addresses have a name: the test checks little", named, n);
}

/* A string table of 64 KiB: a few names far apart, one of 5000 bytes. */
enum { BIG_STRTAB = 64 << 10, LONG_NAME = 5000 };
static char big_strtab[BIG_STRTAB];
static size_t big_reads, big_bytes;

static bool
read_big_strtab(const void *ctx, uint64_t at, void *dst, size_t n)
{
	(void)ctx;
	if (at > sizeof big_strtab || n > sizeof big_strtab - at)
		return false;
	memcpy(dst, big_strtab + at, n);
	big_reads++;
	big_bytes += n;
	return true;
}

static Elf64_Sym
fn_at(Elf64_Word name, uint64_t value)
{
	return (Elf64_Sym){ .st_name = name, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), .st_shndx = 1,
	                    .st_value = value, .st_size = 0x10 };
}

/* Only the names the wanted addresses need are read, in runs, each whole
 * however long; with too little room a name is missing, never wrong. */
Test(symbols, reads_only_the_names_it_needs)
{
	memset(big_strtab, 0, sizeof big_strtab);
	const Elf64_Word near = 100, close_by = 300, far = 40000, tail = BIG_STRTAB - 10, unused = 20000;
	strcpy(big_strtab + near, "near");
	strcpy(big_strtab + close_by, "close_by");
	memset(big_strtab + far, 'x', LONG_NAME);
	strcpy(big_strtab + tail, "tail");
	strcpy(big_strtab + unused, "unused");
	Elf64_Sym syms[] = { fn_at(far, 0x300), fn_at(unused, 0x500), fn_at(near, 0x100), fn_at(close_by, 0x200),
		             fn_at(tail, 0x400) };
	const uint64_t pcs[] = { 0x10104, 0x10208, 0x10300, 0x10404 };
	enum { N = sizeof pcs / sizeof pcs[0] };
	pm_sym want_pcs[N];
	uint64_t kept[N];
	pm_sym_want want = want_for(pcs, N, want_pcs, kept);
	pm_as_image ai = { .start = 0x10000, .end = 0x20000, .bias = 0x10000 };
	const pm_sym_names source = { .read = read_big_strtab };
	static char area[16 << 10];
	const size_t rooms[] = { sizeof area, 5 * sizeof(pm_sym) + 4 * sizeof(pm_sym) + 64 };
	for (size_t r = 0; r < sizeof rooms / sizeof rooms[0]; r++) {
		pm_symtab t;
		as_symtab_reset(&t, &ai, &want);
		cr_assert(as_symtab_place(&t, area, rooms[r], sizeof big_strtab));
		cr_assert(as_symtab_add(&t, syms, sizeof syms / sizeof syms[0]));
		big_reads = big_bytes = 0;
		as_symtab_finish(&t, &source);
		cr_expect_eq(t.count, 4, "the entry no address finds is dropped");
		if (r == 0) {
			expect_lookup(&t, pcs[0], "near");
			expect_lookup(&t, pcs[1], "close_by");
			expect_lookup(&t, pcs[3], "tail");
			size_t len;
			const char *name = as_symtab_name(&t, as_symtab_lookup(&t, pcs[2]), &len);
			cr_expect_eq(len, LONG_NAME);
			cr_expect_eq(strspn(name, "x"), LONG_NAME);
			cr_expect(!t.truncated);
			/* near and close_by share a read, tail has one; the long name takes its
			 * run's read, then 1, 2 and 4 KiB read again whole. */
			cr_expect_eq(big_reads, 6, "%zu reads", big_reads);
			cr_expect_lt(big_bytes, 2 * LONG_NAME, "%zu bytes read of %d", big_bytes, BIG_STRTAB);
			continue;
		}
		/* Room for the entries and a few short names only. */
		cr_expect(t.truncated);
		for (size_t i = 0; i < N; i++) {
			const pm_sym *sym = as_symtab_lookup(&t, pcs[i]);
			cr_assert_not_null(sym);
			size_t len;
			const char *name = as_symtab_name(&t, sym, &len);
			const char *expected[] = { "near", "close_by", NULL, "tail" };
			if (len > 0)
				cr_expect(expected[i] && len == strlen(expected[i]) && memcmp(name, expected[i], len) == 0,
				          "%#llx named %.*s", (unsigned long long)pcs[i], (int)len, name);
		}
	}
}

Test(symbols, libc_aliases_resolve_as_documented)
{
	scan_process();
	void *libc = libc_handle();
	pm_frame *m = add_frame((uint64_t)(uintptr_t)dlsym(libc, "__libc_malloc") + 4, PM_HOW_CONTEXT);
	pm_frame *p = add_frame((uint64_t)(uintptr_t)dlsym(libc, "__getpid") + 2, PM_HOW_CONTEXT);
	symbolize(WORK_BYTES);
	expect_named(m, "malloc", 4);
	expect_named(p, "getpid", 2);
}

/* Pages of [p, p + n) the kernel holds for us (mincore). */
static size_t
resident_pages(void *p, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), count = (n + page - 1) / page, resident = 0;
	unsigned char *vec = calloc(count, 1);
	cr_assert_not_null(vec);
	cr_assert_eq(mincore(p, n, vec), 0);
	for (size_t i = 0; i < count; i++)
		resident += vec[i] & 1;
	free(vec);
	return resident;
}

/* pm_install reserves the working memory in every app: no page of it, not
 * even its head, may be touched before a capture uses it. */
Test(symbols, reservation_is_untouched_until_the_first_capture)
{
	scan_process();
	pm_as_symbols h = pmi_as_symbols_create(WORK_BYTES);
	cr_assert_not_null(h.work);
	cr_expect_eq(resident_pages(h.work, h.bytes), 0, "creating the reservation touched it");
	pm_frame *f = add_frame((uint64_t)(uintptr_t)&local_target + 1, PM_HOW_CONTEXT);
	as_symbolize(&h, &rep, &im, &mem);
	expect_named(f, "local_target", 1);
	cr_expect_gt(resident_pages(h.work, h.bytes), 0);
	pmi_as_symbols_destroy(&h);
	cr_expect_null(h.work);
}

/* ---- not enough memory, broken input ---- */

/* A table cut short may lack the preferred alias of a function, never name
 * another function: each name must be one readelf gives for its start. */
static void
expect_alias(const ref_syms *libc_ref, uint64_t libc_bias, const pm_frame *f, const char *preferred,
             size_t work_bytes)
{
	cr_expect_eq(f->symbol_offset, 1, "with %zu bytes: %s + %llu", work_bytes, f->symbol,
	             (unsigned long long)f->symbol_offset);
	if (strcmp(preferred, "local_target") == 0 || work_bytes >= (1 << 20))
		cr_expect_str_eq(f->symbol, preferred, "with %zu bytes", work_bytes);
	else
		cr_expect(ref_has(libc_ref, f->address - 1 - libc_bias, f->symbol, strlen(f->symbol)),
		          "with %zu bytes: %s is not an alias of %s", work_bytes, f->symbol, preferred);
}

/* The scanned image of this program. */
static const pm_as_image *
the_program(void)
{
	const pm_as_image *self = NULL;
	for (size_t i = 0; i < im.count; i++)
		if (model_of(&as_images[i])->is_app)
			self = &as_images[i];
	cr_assert_not_null(self);
	return self;
}

/* Threads stopped at the same addresses, and more distinct addresses than
 * the memory of those seen has slots: every frame gets the same name
 * whether the addresses fit in the working memory (each looked up once) or
 * not (each frame looked up in its image's table of every symbol). */
enum { MANY_THREADS = 3, MANY_FRAMES = 1500 };
static pm_thread many[MANY_THREADS];
static pm_frame many_frames[MANY_THREADS][MANY_FRAMES];
static const char *many_names[2][MANY_THREADS][MANY_FRAMES];

Test(symbols, repeated_and_many_addresses_name_as_each_alone)
{
	scan_process();
	const pm_as_image *self = the_program();
	for (size_t t = 0; t < MANY_THREADS; t++) {
		/* Threads 0 and 1 alike, thread 2 at addresses of its own. */
		for (size_t i = 0; i < MANY_FRAMES; i++) {
			uint64_t step = (t == 2 ? 61 : 37) * (uint64_t)(i + 1);
			uint64_t at = self->start + 1 + step % (self->end - self->start - 1);
			many_frames[t][i] = (pm_frame){ .address = at, .image = (int32_t)self->model_index, .how = PM_HOW_CFI };
		}
		many[t] = (pm_thread){ .frames = many_frames[t], .frame_count = MANY_FRAMES };
	}
	rep.threads = many;
	rep.thread_count = MANY_THREADS;
	/* Room for every address, then too little: a quarter of 256 KiB holds
	 * about 1,600, not the 3,000 distinct ones here (the program's own table
	 * of every symbol still fits in the rest). */
	const size_t sizes[] = { WORK_BYTES, 256 << 10 };
	for (size_t k = 0; k < 2; k++) {
		for (size_t t = 0; t < MANY_THREADS; t++)
			for (size_t i = 0; i < MANY_FRAMES; i++)
				many_frames[t][i].symbol = NULL;
		symbolize(sizes[k]);
		for (size_t t = 0; t < MANY_THREADS; t++)
			for (size_t i = 0; i < MANY_FRAMES; i++)
				many_names[k][t][i] = many_frames[t][i].symbol;
	}
	size_t named = 0;
	for (size_t t = 0; t < MANY_THREADS; t++)
		for (size_t i = 0; i < MANY_FRAMES; i++) {
			const char *a = many_names[0][t][i], *b = many_names[1][t][i];
			cr_assert((a == NULL) == (b == NULL) && (!a || strcmp(a, b) == 0),
			          "thread %zu frame %zu at %#llx: %s, with less memory %s", t, i,
			          (unsigned long long)many_frames[t][i].address, a ? a : "(none)", b ? b : "(none)");
			named += a != NULL;
			if (t == 1)
				cr_assert_eq(a, many_names[0][0][i], "thread 1 frame %zu is named apart from thread 0's", i);
		}
	cr_expect_gt(named, MANY_THREADS * MANY_FRAMES / 2, "only %zu frames named", named);
}

/* Threads stopped alike (a pool's workers), and threads that differ from
 * the one before them at one depth, by an address or by a name the unwinder
 * gave (a signal trampoline's): each frame is named as when its thread is
 * symbolized alone. */
enum { ALIKE_THREADS = 4, ALIKE_FRAMES = 12 };
static pm_thread alike[ALIKE_THREADS];
static pm_frame alike_frames[ALIKE_THREADS][ALIKE_FRAMES];

Test(symbols, threads_stopped_alike_are_named_as_each_alone)
{
	scan_process();
	const pm_as_image *self = the_program();
	/* Inside functions of this program, two bytes in. */
	const uint64_t in[] = { (uintptr_t)scan_process, (uintptr_t)add_frame_to, (uintptr_t)symbolize,
		                (uintptr_t)expect_named, (uintptr_t)image_named, (uintptr_t)model_of };
	enum { IN = sizeof in / sizeof in[0] };
	for (size_t t = 0; t < ALIKE_THREADS; t++) {
		for (size_t i = 0; i < ALIKE_FRAMES; i++)
			alike_frames[t][i] = (pm_frame){ .address = in[i % IN] + 2, .image = (int32_t)self->model_index,
			                                 .how = PM_HOW_CFI };
		alike[t] = (pm_thread){ .frames = alike_frames[t], .frame_count = ALIKE_FRAMES };
	}
	alike_frames[2][6].address = alike_frames[3][6].address = in[1] + 2;
	alike_frames[2][3].symbol = "given";
	pm_frame want[ALIKE_THREADS][ALIKE_FRAMES];
	for (size_t t = 0; t < ALIKE_THREADS; t++) {
		memcpy(want[t], alike_frames[t], sizeof want[t]);
		pm_thread one = { .frames = want[t], .frame_count = ALIKE_FRAMES };
		rep.threads = &one;
		rep.thread_count = 1;
		symbolize(WORK_BYTES);
	}
	rep.threads = alike;
	rep.thread_count = ALIKE_THREADS;
	symbolize(WORK_BYTES);
	size_t named = 0;
	for (size_t t = 0; t < ALIKE_THREADS; t++)
		for (size_t i = 0; i < ALIKE_FRAMES; i++) {
			const pm_frame *a = &want[t][i], *b = &alike_frames[t][i];
			cr_expect((a->symbol == NULL) == (b->symbol == NULL) && (!a->symbol || strcmp(a->symbol, b->symbol) == 0) &&
			                  a->symbol_offset == b->symbol_offset && a->has_offset == b->has_offset,
			          "thread %zu frame %zu: %s+%llu alone, %s+%llu with the others", t, i,
			          a->symbol ? a->symbol : "(none)", (unsigned long long)a->symbol_offset,
			          b->symbol ? b->symbol : "(none)", (unsigned long long)b->symbol_offset);
			named += b->symbol != NULL;
		}
	cr_expect_str_eq(alike_frames[2][3].symbol, "given");
	cr_expect_neq(alike_frames[3][3].symbol, alike_frames[2][3].symbol, "thread 3 took the name given to thread 2");
	cr_expect_gt(named, ALIKE_THREADS * ALIKE_FRAMES / 2, "only %zu frames named", named);
}

Test(symbols, small_working_area_names_what_fits)
{
	scan_process();
	ref_syms ref = { 0 };
	libc_reference(&ref);
	void *libc = libc_handle();
	uint64_t bias = loader_bias(libc);
	const char *names[] = { "local_target", "getpid", "malloc", "write", "pthread_create", "qsort" };
	enum { N = sizeof names / sizeof names[0] };
	uint64_t at[N] = { (uint64_t)(uintptr_t)&local_target };
	for (size_t i = 1; i < N; i++)
		at[i] = (uint64_t)(uintptr_t)dlsym(libc, names[i]);
	const size_t sizes[] = { 0, 64, 4096, 40 << 10, 64 << 10, 160 << 10, 1 << 20, WORK_BYTES };
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		thread.frame_count = 0;
		for (size_t i = 0; i < N; i++)
			add_frame(at[i] + 1, PM_HOW_CONTEXT);
		size_t named = 0;
		symbolize(sizes[k]);
		for (size_t i = 0; i < N; i++) {
			if (!frames[i].symbol)
				continue;
			named++;
			expect_alias(&ref, bias, &frames[i], names[i], sizes[k]);
		}
		cr_log_info("%zu bytes of working memory: %zu of %d frames named", sizes[k], named, N);
		if (sizes[k] >= (1 << 20))
			cr_expect_eq(named, N, "with %zu bytes", sizes[k]);
		if (sizes[k] == (64 << 10))
			cr_expect(named > 0, "64 KiB names nothing");
	}
	free(ref.v);
}

/* A pm_mem over a byte buffer that stands for an image at 0x10000. */
typedef struct fake_image {
	uint8_t bytes[4096];
} fake_image;

static bool
fake_read(void *ctx, uint64_t addr, void *dst, size_t n)
{
	fake_image *f = ctx;
	if (addr < 0x10000 || addr - 0x10000 > sizeof f->bytes || n > sizeof f->bytes - (addr - 0x10000))
		return false;
	memcpy(dst, f->bytes + (addr - 0x10000), n);
	return true;
}

static void
put_dyn(fake_image *f, size_t at, const Elf64_Dyn *d, size_t n)
{
	memcpy(f->bytes + at, d, n * sizeof *d);
}

Test(symbols, hostile_dynamic_sections_end_quickly)
{
	static fake_image f;
	pm_mem fm = { .read = fake_read, .ctx = &f };
	pm_as_image ai = { .start = 0x10000, .end = 0x11000, .bias = 0x10000, .dynamic = 0x10000 };
	pm_image img = { .path = "[fake]" };
	pm_as_symbols h = pmi_as_symbols_create(1 << 20);
	pm_sym_work *s = as_symbols_work(&h);
	/* DT_HASH claims four billion symbols; the table would run off the image. */
	memset(&f, 0, sizeof f);
	Elf64_Dyn huge[] = { { DT_HASH, { 0x200 } }, { DT_SYMTAB, { 0x300 } }, { DT_STRTAB, { 0x100 } },
		             { DT_STRSZ, { 16 } }, { DT_SYMENT, { sizeof(Elf64_Sym) } }, { DT_NULL, { 0 } } };
	put_dyn(&f, 0, huge, 6);
	uint32_t nchain[2] = { 1, 0xffffffffu };
	memcpy(f.bytes + 0x200, nchain, sizeof nchain);
	cr_expect(!as_symtab_from_dynamic(s, &img, &ai, &fm));
	/* DT_GNU_HASH whose last chain never ends, and a dynamic section with no DT_NULL. */
	memset(&f, 0, sizeof f);
	Elf64_Dyn gnu[] = { { DT_GNU_HASH, { 0x200 } }, { DT_SYMTAB, { 0x300 } }, { DT_STRTAB, { 0x100 } },
		            { DT_STRSZ, { 16 } }, { DT_SYMENT, { sizeof(Elf64_Sym) } }, { DT_NULL, { 0 } } };
	put_dyn(&f, 0, gnu, 6);
	uint32_t gh[6] = { 1, 1, 0, 6, 1, 0 }; /* one bucket starting at symbol 1; chain words all even */
	memcpy(f.bytes + 0x200, gh, sizeof gh);
	cr_expect(!as_symtab_from_dynamic(s, &img, &ai, &fm));
	memset(f.bytes, 0xff, sizeof f.bytes);
	cr_expect(!as_symtab_from_dynamic(s, &img, &ai, &fm));
	pmi_as_symbols_destroy(&h);
}

Test(symbols, hostile_files_are_refused)
{
	scan_process();
	const pm_as_image *self = &as_images[0];
	for (size_t i = 0; i < im.count; i++)
		if (model_of(&as_images[i])->is_app)
			self = &as_images[i];
	pm_image img = *model_of(self);
	char *dir = pm_test_tmpdir(), path[PATH_MAX], cmd[2 * PATH_MAX], *log = NULL;
	snprintf(path, sizeof path, "%s/cut", dir);
	/* The program's own file cut short: same build id, section headers past the end. */
	snprintf(cmd, sizeof cmd, "head -c 8192 '%s' > '%s'", img.path, path);
	cr_assert_eq(pm_test_run(cmd, &log), 0, "%s", log);
	free(log);
	img.path = path;
	pm_as_symbols h = pmi_as_symbols_create(1 << 20);
	pm_sym_work *s = as_symbols_work(&h);
	cr_expect(!as_symtab_from_image_file(s, &img, self, &mem));
	img.path = "/nonexistent/file";
	cr_expect(!as_symtab_from_image_file(s, &img, self, &mem));
	pmi_as_symbols_destroy(&h);
	pm_test_rmdir(dir);
}
