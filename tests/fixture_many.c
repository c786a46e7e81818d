/*
 * fixture_many.c — the many-thread report model of fixture_many.h.
 *
 * Values come from the thread and frame numbers alone (a small mixing
 * function, no random source), so the golden files never change.
 */
#include "fixture_many.h"

#include <stdio.h>
#include <string.h>

#define COUNT(a) (sizeof a / sizeof a[0])

/* A well-mixed 64-bit value of (a, b): numbers of every width, the same on every run. */
static uint64_t
mix(uint64_t a, uint64_t b)
{
	uint64_t x = a * 0x9e3779b97f4a7c15u ^ (b + 0x632be59bd9b4e019u);
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9u;
	x ^= x >> 29;
	return x;
}

/* A value of about `bits` bits (0 gives 0). */
static uint64_t
of_width(uint64_t a, uint64_t b, unsigned bits)
{
	return bits == 0 ? 0 : mix(a, b) >> (64 - bits);
}

static const char *
dup(pm_report *r, const char *s)
{
	return pm_report_strdup(r, s);
}

static const char *const x86_64_names[] = {
	"rax", "rbx", "rcx", "rdx", "rdi", "rsi", "rbp", "rsp", "r8", "r9",
	"r10", "r11", "r12", "r13", "r14", "r15", "rip", "rfl", "cr2",
};

static pm_regs *
regs(pm_report *r, uint32_t t)
{
	pm_regs *g = pm_report_alloc(r, sizeof *g, 16);
	if (!g)
		return NULL;
	memset(g, 0, sizeof *g);
	g->arch = PM_ARCH_X86_64;
	for (unsigned i = 0; i < COUNT(x86_64_names); i++) {
		strcpy(g->reg[i].name, x86_64_names[i]);
		g->reg[i].value = of_width(t, i, (unsigned)(mix(i, t) % 65));
	}
	g->count = COUNT(x86_64_names);
	return g;
}

/* Image names the frames point at; index 2 has none, 3 is a pseudo-file. */
enum { IMAGES = 8 };

static bool
images(pm_report *r)
{
	pm_image *im = pm_report_alloc(r, IMAGES * sizeof *im, 16);
	if (!im)
		return false;
	memset(im, 0, IMAGES * sizeof *im);
	static const struct { const char *name, *path, *arch, *version; uint8_t id_len; } spec[IMAGES] = {
		{ "bench_app", "/opt/app/bin/bench_app", "x86_64", "3.1", 20 },
		{ "libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6", "x86_64", NULL, 20 },
		{ NULL, NULL, NULL, NULL, 0 },
		{ "[vdso]", "[vdso]", "x86_64", NULL, 16 },
		{ "libplug \"\xce\xb2\".so", "/opt/app/plug-ins/\303\234n\303\257code dir/libplug \"\xce\xb2\".so",
		  "x86_64", NULL, 20 },
		{ "libvery_long_name_of_a_shared_object_that_overflows_the_column.so.1.2.3",
		  "/usr/lib/x86_64-linux-gnu/some/deep/tree/of/folders/with/a/long/path/"
		  "libvery_long_name_of_a_shared_object_that_overflows_the_column.so.1.2.3",
		  "x86_64", "1.2.3 - 45", 32 },
		{ "libtab\tand\\back.so", "/tmp/libtab\tand\\back.so", "x86_64", NULL, 8 },
		{ "libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6", "x86_64", NULL, 20 },
	};
	for (uint32_t i = 0; i < IMAGES; i++) {
		im[i].start = 0x7f0000000000u + (uint64_t)i * 0x1000000u + (i == 0 ? 0 : 0x1000u * i);
		if (i == 0)
			im[i].start = 0x55d0c0de0000u;
		im[i].size = 0x1000u + of_width(i, 1, 22);
		im[i].name = spec[i].name;
		im[i].path = spec[i].path;
		im[i].arch = spec[i].arch;
		im[i].version = spec[i].version;
		im[i].build_id_len = spec[i].id_len;
		for (unsigned b = 0; b < spec[i].id_len; b++)
			im[i].build_id[b] = (uint8_t)mix(i, b);
	}
	im[0].is_app = true;
	im[0].source = 'P';
	im[6].source = '"';
	im[1].debug_file = "/usr/lib/debug/.build-id/e5/b2a8cd8f6f4f3d5d1f5a0b6b9d3b1d6e2c4a70.debug";
	im[7].note = "no debug information: install libc6-dbg \"now\"";
	r->images = im;
	r->image_count = IMAGES;
	r->images_truncated = true;
	return true;
}

static const char *const symbols[] = {
	"park_descend",
	"__futex_abstimed_wait_common",
	"std::vector<std::basic_string<char, std::char_traits<char>, std::allocator<char> >, "
	"std::allocator<std::basic_string<char> > >::_M_realloc_insert<char const (&) [6]>",
	"operator\"\" _quoted",
	"weird\\name\twith\x01" "control",
	"g\303\266\303\237e_\342\206\222",
	"main",
};

static const char *const files[] = {
	"/src/app/park.c",
	"../sysdeps/nptl/futex-internal.c",
	"/src/app/dir with \"quotes\"/x.h",
};

/* Frame j of thread t: its kind is chosen by (t + j), so every thread mixes them. */
static void
frame(pm_report *r, pm_frame *f, uint32_t t, uint32_t j)
{
	const pm_image *im = r->images;
	uint32_t kind = (t + j) % 11, img = (uint32_t)(mix(t, j) % IMAGES);
	memset(f, 0, sizeof *f);
	f->image = (int32_t)img;
	f->address = im[img].start + of_width(t, j + 100, (unsigned)(4 + mix(j, t) % 18));
	f->how = (uint8_t)((t * 3 + j) % 6); /* 5: past the names the JSON knows */
	switch (kind) {
	case 0: /* the common frame of a capture */
	case 1:
	case 2:
		f->symbol = symbols[j % 2];
		f->has_offset = true;
		f->symbol_offset = of_width(t, j, (unsigned)(j % 14));
		break;
	case 3: /* symbolicated: file, line and column */
		f->symbol = symbols[(t + j) % COUNT(symbols)];
		f->has_offset = (j & 1) != 0;
		f->symbol_offset = j;
		f->file = files[j % COUNT(files)];
		f->line = 1 + (uint32_t)of_width(t, j, 17);
		f->column = j % 3 == 0 ? 0 : j;
		break;
	case 4: /* inlined, and a file without its line */
		f->symbol = symbols[(t * 7 + j) % COUNT(symbols)];
		f->inlined = true;
		f->file = files[(t + j) % COUNT(files)];
		f->line = j % 2 ? 0 : 7;
		break;
	case 5: /* no symbol: image + offset */
		break;
	case 6: /* outside every image, with a name */
		f->image = -1;
		f->image_name = t % 2 ? "[heap]" : "anon \"mapping\"";
		f->address = of_width(t, j, 47);
		break;
	case 7: /* outside every image, no name */
		f->image = -1;
		f->address = of_width(t, j, (unsigned)(j % 33));
		break;
	case 8: /* an index past the images: the name the frame carries */
		f->image = 99;
		f->image_name = "gone.so";
		f->symbol = symbols[2];
		f->has_offset = true;
		f->symbol_offset = 0;
		break;
	case 9: /* an image without a name */
		f->image = 2;
		f->address = im[2].start + j;
		break;
	default: /* long symbols past the writers' short-string path */
		f->symbol = symbols[2 + (j % 5)];
		f->has_offset = true;
		f->symbol_offset = UINT64_MAX - j;
		break;
	}
}

static const char *
thread_name(pm_report *r, uint32_t t)
{
	char b[160];
	switch (t % 7) {
	case 0:
		return "bench_crash_tar";
	case 1:
		snprintf(b, sizeof b, "worker-%u", t);
		return dup(r, b);
	case 2:
		return NULL;
	case 3:
		snprintf(b, sizeof b, "a thread whose name runs far past the fifteen bytes Linux keeps, "
		         "and past the writers' short strings too: %u of them", t);
		return dup(r, b);
	case 4:
		snprintf(b, sizeof b, "io \"%u\"\t\\pool\x1f\n", t);
		return dup(r, b);
	case 5:
		return "gr\303\266\303\237e \342\206\222";
	default:
		return "";
	}
}

static bool
thread(pm_report *r, pm_thread *th, uint32_t t, uint32_t frames)
{
	memset(th, 0, sizeof *th);
	th->number = t;
	th->id = t % 13 == 12 ? 0 : 100000u + t;
	th->name = thread_name(r, t);
	th->queue = t % 9 == 4 ? "com.example.queue \"q\"" : NULL;
	th->crashed = t == 0;
	th->attributed = t == 3;
	if (t % 17 == 16) {
		th->note = "not captured: the thread did not stop within 100 ms";
		return true;
	}
	th->captured = true;
	th->regs = regs(r, t);
	if (!th->regs)
		return false;
	uint32_t n = frames > t % 5 ? frames - t % 5 : 0;
	if (n == 0)
		return true;
	th->frames = pm_report_alloc(r, n * sizeof *th->frames, 16);
	if (!th->frames)
		return false;
	for (uint32_t j = 0; j < n; j++)
		frame(r, &th->frames[j], t, j);
	th->frame_count = n;
	th->frames_truncated = t % 4 == 1;
	if (t % 6 == 5)
		th->note = "stack walk stopped: \"pc\" outside every image";
	return true;
}

/* A few header fields and a signal: the header and exception blocks have
 * tests of their own (fixture_report.c), threads are what this model is for. */
static void
header(pm_report *r)
{
	static const pm_header h = {
		.incident_id = "8FF8145C-DEED-4D2A-9066-151A358AC785",
		.process_name = "bench_crash_target",
		.pid = 20661,
		.code_type = "X86-64 (Native)",
		.time = { .sec = 1795930820, .usec = 134512, .tz_min = -330, .digits = 6, .set = true },
	};
	r->header = h;
	r->exception.type = "EXC_BAD_ACCESS";
	r->exception.signal_name = "SIGSEGV";
	r->exception.triggered_thread = 0;
}

static bool
context(pm_report *r)
{
	static const pm_kv annotations[] = {
		{ "build", "1234" },
		{ "quote \"key\"", "tab\there\\ and \x02" },
	};
	static const char *const crumbs[] = { "started", "loading \"level\"\n2", "" };
	r->annotations = pm_report_alloc(r, sizeof annotations, 16);
	r->breadcrumbs = pm_report_alloc(r, COUNT(crumbs) * sizeof *r->breadcrumbs, 16);
	if (!r->annotations || !r->breadcrumbs)
		return false;
	memcpy(r->annotations, annotations, sizeof annotations);
	r->annotation_count = COUNT(annotations);
	for (uint32_t i = 0; i < COUNT(crumbs); i++)
		r->breadcrumbs[i] = (pm_crumb){
			.time = { .sec = 1795930800 + i, .usec = 1000 * i, .tz_min = 60, .digits = (uint8_t)(3 * i),
			          .set = true },
			.message = crumbs[i],
		};
	r->breadcrumb_count = COUNT(crumbs);
	return true;
}

bool
pm_fixture_many(pm_report *r, uint32_t threads, uint32_t frames)
{
	r->kind = PM_KIND_CRASH;
	r->os = PM_OS_LINUX;
	r->os_name = "Linux";
	header(r);
	if (!images(r) || !context(r))
		return false;
	r->threads = pm_report_alloc(r, threads * sizeof *r->threads, 16);
	if (!r->threads)
		return false;
	for (uint32_t t = 0; t < threads; t++)
		if (!thread(r, &r->threads[t], t, frames))
			return false;
	r->thread_count = threads;
	r->threads[0].regs->has_trap = true;
	r->threads[0].regs->trap_number = 14;
	r->threads[0].regs->error_code = 4;
	r->threads[0].regs->has_cpu = true;
	r->threads[0].regs->logical_cpu = 1;
	r->threads[0].regs->trap_description = "(no mapping for user data read)";
	r->threads_truncated = true;
	/* A backtrace that shares a thread's frames, as models read back may. */
	r->last_exception_backtrace = r->threads[1 % threads].frames;
	r->leb_count = r->threads[1 % threads].frame_count < 5 ? r->threads[1 % threads].frame_count : 5;
	r->complete = true;
	return true;
}
