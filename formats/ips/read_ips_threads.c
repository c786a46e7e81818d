/*
 * read_ips_threads.c — .ips threads, frames, thread state and the Last
 * Exception Backtrace -> pm_thread / pm_frame / pm_regs (§11.6).
 */
#include "model.h"
#include "read_ips.h"

#include <stdio.h>
#include <string.h>

#include "json.h"

/* imageIndex selects a usedImages entry; an index outside them leaves the image unknown. */
static void
read_frame(const cJSON *f, pm_report *r, pm_frame *out)
{
	pm_arena *a = r->arena;
	uint64_t index, offset = 0, u;
	pmi_json_get_u64(f, "imageOffset", &offset);
	out->image = -1;
	out->address = offset;
	if (pmi_json_get_u64(f, "imageIndex", &index) && index < r->image_count) {
		out->image = (int32_t)index;
		out->address = r->images[index].start + offset;
	}
	out->symbol = pmi_ips_str(a, f, "symbol");
	if (out->symbol && pmi_json_get_u64(f, "symbolLocation", &u)) {
		out->symbol_offset = u;
		out->has_offset = true;
	}
	out->file = pmi_ips_str(a, f, "sourceFile");
	if (pmi_json_get_u64(f, "sourceLine", &u) && u <= UINT32_MAX)
		out->line = (uint32_t)u;
	if (pmi_json_get_u64(f, "sourceColumn", &u) && u <= UINT32_MAX)
		out->column = (uint32_t)u;
	pmi_json_get_bool(f, "inline", &out->inlined);
}

static pm_frame *
read_frames(const cJSON *arr, pm_report *r, uint32_t *count, bool *cut)
{
	uint32_t n = pmi_ips_count(arr, PM_IPS_MAX_FRAMES, cut);
	pm_frame *frames = n ? pmi_arena_alloc(r->arena, n * sizeof *frames, _Alignof(pm_frame)) : NULL;
	if (!frames)
		return NULL;
	uint32_t i = 0;
	for (const cJSON *f = arr->child; f && i < n; f = f->next)
		read_frame(f, r, &frames[i++]);
	*count = n;
	return frames;
}

/* Register `name` from a {"value": N} object; skipped when it has no value. */
static void
add_reg(pm_regs *g, const char *name, const cJSON *reg)
{
	uint64_t v;
	if (g->count == PM_MAX_REGS || !pmi_json_get_u64(reg, "value", &v))
		return;
	pm_reg *out = &g->reg[g->count++];
	snprintf(out->name, sizeof out->name, "%s", name);
	out->value = v;
}

/* ARM_THREAD_STATE64: x0..x28 then fp lr sp pc cpsr far esr, Apple's text order. */
static void
read_arm64(const cJSON *st, pm_regs *g, pm_arena *a)
{
	static const char *const tail[] = { "fp", "lr", "sp", "pc", "cpsr", "far", "esr" };
	g->arch = PM_ARCH_ARM64;
	unsigned i = 0;
	const cJSON *x = pmi_json_get(st, "x");
	for (const cJSON *el = cJSON_IsArray(x) ? x->child : NULL; el && i < 29; el = el->next) {
		char name[PM_REG_NAME_MAX];
		snprintf(name, sizeof name, "x%u", i++);
		add_reg(g, name, el);
	}
	for (size_t k = 0; k < sizeof tail / sizeof tail[0]; k++)
		add_reg(g, tail[k], pmi_json_get(st, tail[k]));
	g->esr_description = pmi_ips_str(a, pmi_json_get(st, "esr"), "description");
}

/* x86_THREAD_STATE in Apple's text order; JSON "rflags" prints as "rfl". */
static void
read_x86_64(const cJSON *st, pm_regs *g, pm_arena *a)
{
	static const char *const keys[] = {
		"rax", "rbx", "rcx", "rdx", "rdi", "rsi", "rbp", "rsp", "r8", "r9", "r10",
		"r11", "r12", "r13", "r14", "r15", "rip", "rflags", "cr2",
	};
	g->arch = PM_ARCH_X86_64;
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
		add_reg(g, strcmp(keys[k], "rflags") == 0 ? "rfl" : keys[k], pmi_json_get(st, keys[k]));
	const cJSON *trap = pmi_json_get(st, "trap");
	uint64_t u;
	if (pmi_json_get_u64(trap, "value", &g->trap_number)) {
		g->has_trap = true;
		pmi_json_get_u64(pmi_json_get(st, "err"), "value", &g->error_code);
		g->trap_description = pmi_ips_str(a, trap, "description");
	}
	if (pmi_json_get_u64(pmi_json_get(st, "cpu"), "value", &u) && u <= UINT32_MAX) {
		g->has_cpu = true;
		g->logical_cpu = (uint32_t)u;
	}
}

static bool
flavor_is(const cJSON *st, const char *prefix, const char *fallback_key)
{
	const cJSON *fl = pmi_json_get(st, "flavor");
	if (cJSON_IsString(fl))
		return strncmp(fl->valuestring, prefix, strlen(prefix)) == 0;
	return pmi_json_get(st, fallback_key) != NULL;
}

/* threadState by flavor; NULL for a flavor we do not know. */
static pm_regs *
read_state(const cJSON *st, pm_arena *a)
{
	bool arm = flavor_is(st, "ARM_THREAD_STATE64", "x");
	if (!cJSON_IsObject(st) || (!arm && !flavor_is(st, "x86_THREAD_STATE", "rip")))
		return NULL;
	pm_regs *g = pmi_arena_alloc(a, sizeof *g, _Alignof(pm_regs));
	if (!g)
		return NULL;
	if (arm)
		read_arm64(st, g, a);
	else
		read_x86_64(st, g, a);
	return g;
}

static void
read_thread(const cJSON *t, pm_report *r, pm_thread *th)
{
	pm_arena *a = r->arena;
	pmi_json_get_u64(t, "id", &th->id);
	th->name = pmi_ips_str(a, t, "name");
	th->queue = pmi_ips_str(a, t, "queue");
	pmi_json_get_bool(t, "triggered", &th->crashed);
	/* Apple's reporter walked every thread it lists. */
	th->captured = true;
	th->frames = read_frames(pmi_json_get(t, "frames"), r, &th->frame_count, &th->frames_truncated);
	th->regs = read_state(pmi_json_get(t, "threadState"), a);
}

void
pmi_ips_threads(const cJSON *b, pm_report *r)
{
	const cJSON *arr = pmi_json_get(b, "threads");
	uint32_t n = pmi_ips_count(arr, PM_IPS_MAX_THREADS, &r->threads_truncated);
	r->threads = n ? pmi_arena_alloc(r->arena, n * sizeof *r->threads, _Alignof(pm_thread)) : NULL;
	if (r->threads) {
		uint32_t i = 0;
		/* .ips lists every thread: the number is the position. */
		for (const cJSON *t = arr->child; t && i < n; t = t->next, i++) {
			r->threads[i].number = i;
			read_thread(t, r, &r->threads[i]);
		}
		r->thread_count = n;
	}
	uint64_t ft;
	if (pmi_json_get_u64(b, "faultingThread", &ft) && ft < r->thread_count)
		r->exception.triggered_thread = (int32_t)ft;
	bool leb_cut = false;
	r->last_exception_backtrace = read_frames(pmi_json_get(b, "lastExceptionBacktrace"), r,
	                                          &r->leb_count, &leb_cut);
}
