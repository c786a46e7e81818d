/*
 * read_json_threads.c — the JSON twin's thread, frame and image objects.
 */
#include "model.h"
#include "read_json.h"

#include <string.h>

#include "json_util.h"

void
pmi_jr_frame_elem(pm_jr *c, const cJSON *it, void *dst)
{
	pm_frame *f = dst;
	f->image = -1;
	const cJSON *o = pmi_jr_object(c, it, NULL);
	if (!o)
		return;
	pmi_jr_u64(c, o, "address", &f->address);
	/* An index that points at no image is as good as none. */
	int64_t image;
	if (pmi_jr_i64(c, o, "image", &image) && image >= 0 && (uint64_t)image < c->r->image_count)
		f->image = (int32_t)image;
	f->image_name = pmi_jr_str(c, o, "image_name");
	f->symbol = pmi_jr_str(c, o, "symbol");
	f->has_offset = pmi_jr_u64(c, o, "offset", &f->symbol_offset);
	f->file = pmi_jr_str(c, o, "file");
	pmi_jr_u32(c, o, "line", &f->line);
	pmi_jr_u32(c, o, "column", &f->column);
	f->inlined = pmi_jr_flag(c, o, "inlined");
	f->how = pmi_jr_enum(c, o, "how", &pmi_json_hows);
}

/* Keeps the first PM_MAX_REGS values in order; a name the model cannot hold is skipped. */
static void
read_reg_values(pm_jr *c, const cJSON *regs, pm_regs *g)
{
	const cJSON *values = pmi_jr_object(c, regs, "values");
	if (!values)
		return;
	size_t mark = pmi_jr_enter(c, "values");
	for (const cJSON *it = values->child; it && g->count < PM_MAX_REGS; it = it->next) {
		const char *name = pmi_json_key(it);
		size_t len = strlen(name);
		size_t m = pmi_jr_enter(c, name);
		uint64_t v;
		if (pmi_jr_u64(c, it, NULL, &v) && len < PM_REG_NAME_MAX) {
			pm_reg *reg = &g->reg[g->count++];
			memcpy(reg->name, name, len);
			reg->value = v;
		}
		pmi_jr_leave(c, m);
	}
	pmi_jr_leave(c, mark);
}

static pm_regs *
read_regs(pm_jr *c, const cJSON *thread)
{
	const cJSON *o = pmi_jr_object(c, thread, "registers");
	if (!o)
		return NULL;
	pm_regs *g = pmi_arena_alloc(c->r->arena, sizeof *g, _Alignof(pm_regs));
	if (!g) {
		pmi_jr_nomem(c);
		return NULL;
	}
	size_t mark = pmi_jr_enter(c, "registers");
	g->arch = pmi_jr_enum(c, o, "arch", &pmi_json_arches);
	read_reg_values(c, o, g);
	g->has_trap = pmi_jr_u64(c, o, "trap", &g->trap_number);
	if (g->has_trap)
		pmi_jr_u64(c, o, "error_code", &g->error_code);
	g->has_cpu = pmi_jr_u32(c, o, "cpu", &g->logical_cpu);
	g->trap_description = pmi_jr_str(c, o, "trap_description");
	g->esr_description = pmi_jr_str(c, o, "esr_description");
	pmi_jr_leave(c, mark);
	return g;
}

void
pmi_jr_thread_elem(pm_jr *c, const cJSON *it, void *dst)
{
	pm_thread *t = dst;
	const cJSON *o = pmi_jr_object(c, it, NULL);
	if (!o)
		return;
	/* Twins written before threads carried numbers numbered them by position. */
	if (!pmi_jr_u64(c, o, "number", &t->number))
		t->number = c->index;
	pmi_jr_u64(c, o, "id", &t->id);
	t->name = pmi_jr_str(c, o, "name");
	t->queue = pmi_jr_str(c, o, "queue");
	t->crashed = pmi_jr_flag(c, o, "crashed");
	t->attributed = pmi_jr_flag(c, o, "attributed");
	t->captured = pmi_jr_flag(c, o, "captured");
	t->note = pmi_jr_str(c, o, "note");
	t->frames_truncated = pmi_jr_flag(c, o, "frames_truncated");
	t->regs = read_regs(c, o);
	t->frames = pmi_jr_list(c, o, "frames", PM_JR_MAX_FRAMES, sizeof *t->frames,
	                       pmi_jr_frame_elem, &t->frame_count, &t->frames_truncated);
}

static int
hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/*
 * Hex of any even length; bytes past PM_BUILD_ID_MAX are dropped like other capacities.
 * Twins written before debug ids existed call it build_id (docs/identifiers.md).
 */
static void
read_build_id(pm_jr *c, const cJSON *o, pm_image *im)
{
	const char *key = pmi_jr_get(c, o, "code_id") ? "code_id" : "build_id";
	const char *s = pmi_jr_text(c, o, key);
	if (!s)
		return;
	size_t n = strlen(s);
	bool hex = n % 2 == 0;
	for (size_t i = 0; hex && i < n; i++)
		hex = hex_digit(s[i]) >= 0;
	if (!hex) {
		pmi_jr_fail(c, key, "expected an even number of hex digits");
		return;
	}
	uint8_t len = 0;
	for (size_t i = 0; i + 1 < n && len < PM_BUILD_ID_MAX; i += 2)
		im->build_id[len++] = (uint8_t)(hex_digit(s[i]) << 4 | hex_digit(s[i + 1]));
	im->build_id_len = len;
}

static void
read_source(pm_jr *c, const cJSON *o, pm_image *im)
{
	const char *s = pmi_jr_text(c, o, "source");
	if (s && (s[0] == '\0' || s[1] != '\0'))
		pmi_jr_fail(c, "source", "expected a one-byte string");
	else if (s)
		im->source = s[0];
}

void
pmi_jr_image_elem(pm_jr *c, const cJSON *it, void *dst)
{
	pm_image *im = dst;
	const cJSON *o = pmi_jr_object(c, it, NULL);
	if (!o)
		return;
	pmi_jr_u64(c, o, "start", &im->start);
	pmi_jr_u64(c, o, "size", &im->size);
	im->name = pmi_jr_str(c, o, "name");
	im->path = pmi_jr_str(c, o, "path");
	im->arch = pmi_jr_str(c, o, "arch");
	im->version = pmi_jr_str(c, o, "version");
	read_build_id(c, o, im);
	im->is_app = pmi_jr_flag(c, o, "app");
	read_source(c, o, im);
	im->debug_file = pmi_jr_str(c, o, "debug_file");
	im->note = pmi_jr_str(c, o, "note");
}
