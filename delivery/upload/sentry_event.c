/*
 * sentry_event.c — a report model as a Sentry event (docs/sentry.md maps every
 * field).  Addresses are "0x…" strings and 64-bit numbers are written as raw
 * decimal text: cJSON keeps numbers as doubles, which would round them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "decode.h"
#include "sentry.h"
#include "sessions.h"

static bool
add_str(cJSON *o, const char *key, const char *s)
{
	return !s || cJSON_AddStringToObject(o, key, s);
}

static bool
add_u64(cJSON *o, const char *key, uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%" PRIu64, v);
	return cJSON_AddRawToObject(o, key, buf) != NULL;
}

static bool
add_addr(cJSON *o, const char *key, uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "0x%" PRIx64, v);
	return cJSON_AddStringToObject(o, key, buf) != NULL;
}

static bool
add_bool(cJSON *o, const char *key, bool v)
{
	return cJSON_AddBoolToObject(o, key, v) != NULL;
}

/* RFC 3339 in UTC, as Sentry's timestamps want. */
static bool
add_time(cJSON *o, const char *key, const pm_time *t)
{
	char buf[PMI_SENTRY_TIME_MAX];
	if (!t->set || !pmi_sentry_time((int64_t)t->sec * 1000000 + t->usec, buf))
		return true;
	return cJSON_AddStringToObject(o, key, buf) != NULL;
}

static const char *
known(const char *s)
{
	return s && *s && strcmp(s, "???") != 0 ? s : NULL;
}

static bool
add_release(cJSON *ev, const pm_header *h)
{
	char buf[PMI_SENTRY_RELEASE_MAX];
	const char *app = known(h->identifier) ? h->identifier : known(h->process_name);
	if (!pmi_sentry_release(app, h->version, buf, sizeof buf))
		return true;
	return cJSON_AddStringToObject(ev, "release", buf) != NULL;
}

static const pm_image *
image_of(const pm_report *r, const pm_frame *f)
{
	return f->image >= 0 && (uint32_t)f->image < r->image_count ? &r->images[f->image] : NULL;
}

/* Sentry's `function` is the name people read, `symbol` the one the binary has. */
static bool
add_names(cJSON *o, const char *symbol)
{
	if (!symbol)
		return true;
	char *plain = pm_demangle(symbol);
	bool ok = add_str(o, "function", plain ? plain : symbol) && add_str(o, "symbol", symbol);
	free(plain);
	return ok;
}

static bool
add_frame(cJSON *frames, const pm_report *r, const pm_frame *f)
{
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddItemToArray(frames, o))
		return cJSON_Delete(o), false;
	const pm_image *im = image_of(r, f);
	bool ok = add_addr(o, "instruction_addr", f->address);
	if (im) {
		ok = ok && add_str(o, "package", im->path ? im->path : im->name) && add_addr(o, "image_addr", im->start) &&
		     add_bool(o, "in_app", im->is_app);
	} else {
		ok = ok && add_str(o, "package", known(f->image_name));
	}
	ok = ok && add_names(o, f->symbol);
	if (f->symbol && f->has_offset)
		ok = ok && add_addr(o, "symbol_addr", f->address - f->symbol_offset);
	ok = ok && add_str(o, "filename", f->file);
	if (f->line)
		ok = ok && add_u64(o, "lineno", f->line);
	if (f->column)
		ok = ok && add_u64(o, "colno", f->column);
	return ok;
}

static bool
add_registers(cJSON *st, const pm_regs *regs)
{
	cJSON *o = cJSON_AddObjectToObject(st, "registers");
	bool ok = o != NULL;
	for (unsigned i = 0; ok && i < regs->count; i++)
		ok = add_addr(o, regs->reg[i].name, regs->reg[i].value);
	return ok;
}

/*
 * th's frames under `key` of o, caller first (the model is innermost first),
 * with its registers when it crashed.  The innermost frame taken from the
 * thread's registers is the pc itself; every other is a return address:
 * "all_but_first" tells Sentry's symbolicator to step back into the call only
 * for those.
 */
static bool
add_stacktrace(cJSON *o, const pm_report *r, const pm_thread *th)
{
	if (th->frame_count == 0)
		return true;
	cJSON *st = cJSON_AddObjectToObject(o, "stacktrace");
	cJSON *frames = st ? cJSON_AddArrayToObject(st, "frames") : NULL;
	bool ok = frames != NULL;
	for (uint32_t i = th->frame_count; ok && i-- > 0;)
		ok = add_frame(frames, r, &th->frames[i]);
	if (ok && th->frames[0].how == PM_HOW_CONTEXT)
		ok = add_str(st, "instruction_addr_adjustment", "all_but_first");
	if (ok && th->crashed && th->regs && th->regs->count)
		ok = add_registers(st, th->regs);
	return ok;
}

/* Sentry's {"values": [...]} interfaces (exception, threads, breadcrumbs): the array. */
static cJSON *
add_values(cJSON *ev, const char *key)
{
	cJSON *o = cJSON_AddObjectToObject(ev, key);
	return o ? cJSON_AddArrayToObject(o, "values") : NULL;
}

static bool
add_threads(cJSON *ev, const pm_report *r)
{
	if (r->thread_count == 0)
		return true;
	cJSON *values = add_values(ev, "threads");
	bool ok = values != NULL;
	for (uint32_t i = 0; ok && i < r->thread_count; i++) {
		const pm_thread *th = &r->threads[i];
		cJSON *t = cJSON_CreateObject();
		ok = t && cJSON_AddItemToArray(values, t);
		if (!ok) {
			cJSON_Delete(t);
			break;
		}
		/* Without a thread id, the position in the report stands in for it. */
		ok = add_u64(t, "id", th->id ? th->id : i) && add_str(t, "name", th->name) &&
		     add_bool(t, "crashed", th->crashed) && add_bool(t, "current", th->crashed) &&
		     add_stacktrace(t, r, th);
	}
	return ok;
}

static bool
add_signal_meta(cJSON *meta, const pm_report *r)
{
	const pm_exception *e = &r->exception;
	const pm_signal_info *si = e->signal ? pmi_signal_by_number(r->os, e->signal) : NULL;
	if (!e->signal)
		return true;
	cJSON *s = cJSON_AddObjectToObject(meta, "signal");
	bool ok = s && add_u64(s, "number", (uint64_t)e->signal);
	if (ok && e->has_si_code) {
		const pm_si_code_info *ci = r->os == PM_OS_LINUX ? pmi_si_code_by_number(e->signal, e->si_code) : NULL;
		ok = cJSON_AddNumberToObject(s, "code", e->si_code) && add_str(s, "code_name", ci ? ci->name : NULL);
	}
	return ok && add_str(s, "name", e->signal_name ? e->signal_name : si ? si->name : NULL);
}

/* Apple reports: the Mach exception behind the signal. */
static bool
add_mach_meta(cJSON *meta, const pm_report *r)
{
	const pm_exception *e = &r->exception;
	const pm_mach_exc_info *mi = e->type ? pmi_mach_exc_by_name(e->type) : NULL;
	if (r->os != PM_OS_DARWIN || !mi)
		return true;
	cJSON *m = cJSON_AddObjectToObject(meta, "mach_exception");
	bool ok = m && add_u64(m, "exception", (uint64_t)mi->number) && add_str(m, "name", mi->name);
	if (ok && e->raw_code_count > 0)
		ok = add_u64(m, "code", e->raw_codes[0]);
	if (ok && e->raw_code_count > 1)
		ok = add_u64(m, "subcode", e->raw_codes[1]);
	return ok;
}

static const char *const kind_type[] = { [PM_KIND_CRASH] = "signal", [PM_KIND_SNAPSHOT] = "snapshot",
	                                 [PM_KIND_HANG] = "watchdog" };
static const char *const kind_level[] = { [PM_KIND_CRASH] = "fatal", [PM_KIND_SNAPSHOT] = "info",
	                                  [PM_KIND_HANG] = "error" };

static uint8_t
kind_of(const pm_report *r)
{
	return r->kind <= PM_KIND_HANG ? r->kind : PM_KIND_CRASH;
}

/* "EXC_BAD_ACCESS (SIGSEGV): KERN_INVALID_ADDRESS at 0x0", or the hang's or snapshot's own words. */
static void
describe(const pm_report *r, char *buf, size_t cap)
{
	const pm_exception *e = &r->exception;
	const char *parts[] = { e->type, e->subtype ? e->subtype : e->codes, e->message, e->term_description,
		                e->asi_count ? e->asi[0] : NULL, e->note };
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof parts / sizeof parts[0] && n < cap; i++) {
		if (!parts[i])
			continue;
		bool type_with_signal = i == 0 && e->signal_name && !strstr(parts[0], e->signal_name);
		int w = snprintf(buf + n, cap - n, "%s%s%s%s%s", n ? ": " : "", parts[i],
		                 type_with_signal ? " (" : "", type_with_signal ? e->signal_name : "",
		                 type_with_signal ? ")" : "");
		n += w > 0 ? (size_t)w : 0;
	}
}

static bool
add_exception(cJSON *ev, const pm_report *r, int32_t crashed)
{
	static const char *const kind_name[] = { [PM_KIND_CRASH] = "Crash", [PM_KIND_SNAPSHOT] = "Snapshot",
		                                 [PM_KIND_HANG] = "Hang" };
	const pm_exception *e = &r->exception;
	uint8_t k = kind_of(r);
	char value[1024];
	describe(r, value, sizeof value);
	cJSON *values = add_values(ev, "exception");
	cJSON *v = values ? cJSON_CreateObject() : NULL;
	if (!v || !cJSON_AddItemToArray(values, v))
		return cJSON_Delete(v), false;
	const char *type = k == PM_KIND_CRASH && e->signal_name ? e->signal_name
	                   : k == PM_KIND_CRASH && e->type   ? e->type
	                                                     : kind_name[k];
	bool ok = add_str(v, "type", type) && add_str(v, "value", value[0] ? value : NULL);
	/* The crashed thread's stack on the exception too: Sentry shows and groups by it there. */
	if (ok && crashed >= 0)
		ok = add_u64(v, "thread_id", r->threads[crashed].id ? r->threads[crashed].id : (uint64_t)crashed) &&
		     add_stacktrace(v, r, &r->threads[crashed]);
	cJSON *mech = ok ? cJSON_AddObjectToObject(v, "mechanism") : NULL;
	ok = mech && add_str(mech, "type", kind_type[k]) && add_bool(mech, "handled", k == PM_KIND_SNAPSHOT);
	/* A signal's type and value say little about where it broke: Sentry groups such by the frames. */
	if (ok && k == PM_KIND_CRASH && e->signal)
		ok = add_bool(mech, "synthetic", true);
	cJSON *meta = ok ? cJSON_AddObjectToObject(mech, "meta") : NULL;
	return meta && add_signal_meta(meta, r) && add_mach_meta(meta, r);
}

static bool
add_images(cJSON *ev, const pm_report *r)
{
	cJSON *dm = cJSON_AddObjectToObject(ev, "debug_meta");
	cJSON *images = dm ? cJSON_AddArrayToObject(dm, "images") : NULL;
	bool ok = images != NULL;
	for (uint32_t i = 0; ok && i < r->image_count; i++) {
		const pm_image *im = &r->images[i];
		uint8_t id[16];
		const char *file = im->path ? im->path : im->name;
		/* Sentry names an image by its debug id: one without cannot be symbolicated. */
		if (!pm_image_debug_id(im, r->os, id) || !file)
			continue;
		char hex[2 * PM_BUILD_ID_MAX + 1], uuid[40];
		for (unsigned b = 0; b < im->build_id_len; b++)
			snprintf(hex + 2 * b, 3, "%02x", im->build_id[b]);
		pm_out o;
		pmi_out_init_buf(&o, uuid, sizeof uuid);
		pmi_out_uuid(&o, id, true);
		cJSON *d = cJSON_CreateObject();
		ok = d && cJSON_AddItemToArray(images, d);
		if (!ok) {
			cJSON_Delete(d);
			break;
		}
		ok = add_str(d, "type", r->os == PM_OS_DARWIN ? "macho" : "elf") &&
		     add_str(d, "code_id", r->os == PM_OS_DARWIN ? NULL : hex) && add_str(d, "debug_id", uuid) &&
		     add_str(d, "code_file", file) && add_addr(d, "image_addr", im->start) &&
		     add_u64(d, "image_size", im->size) && add_str(d, "arch", im->arch);
	}
	return ok;
}

/* "Debian GNU/Linux 12 (bookworm) (Linux 6.1.0-26-amd64)": the kernel release in the last parentheses. */
static bool
add_kernel(cJSON *os, const char *os_version)
{
	const char *k = os_version ? strstr(os_version, "(Linux ") : NULL;
	if (!k)
		return true;
	k += 7;
	size_t n = strcspn(k, ")");
	char buf[128];
	snprintf(buf, sizeof buf, "%.*s", (int)n, k);
	return cJSON_AddStringToObject(os, "kernel_version", buf) != NULL;
}

static bool
add_contexts(cJSON *ev, const pm_report *r, int32_t crashed)
{
	static const char *const arch_names[] = { [PM_ARCH_X86_64] = "x86_64", [PM_ARCH_ARM64] = "arm64",
		                                  [PM_ARCH_ARM32] = "arm", [PM_ARCH_X86] = "x86" };
	const pm_header *h = &r->header;
	const pm_regs *regs = crashed >= 0 ? r->threads[crashed].regs : NULL;
	const char *arch = regs && regs->arch && regs->arch <= PM_ARCH_X86 ? arch_names[regs->arch] : NULL;
	cJSON *c = cJSON_AddObjectToObject(ev, "contexts");
	cJSON *os = c ? cJSON_AddObjectToObject(c, "os") : NULL;
	bool ok = os && add_str(os, "type", "os") &&
	          add_str(os, "name", r->os_name ? r->os_name : r->os == PM_OS_LINUX ? "Linux" : NULL) &&
	          add_str(os, "raw_description", h->os_version) && add_kernel(os, h->os_version);
	cJSON *dev = ok ? cJSON_AddObjectToObject(c, "device") : NULL;
	ok = dev && add_str(dev, "type", "device") && add_str(dev, "model", h->hardware_model) &&
	     add_str(dev, "arch", arch);
	cJSON *app = ok ? cJSON_AddObjectToObject(c, "app") : NULL;
	return app && add_str(app, "type", "app") && add_str(app, "app_identifier", known(h->identifier)) &&
	       add_str(app, "app_name", known(h->process_name)) && add_str(app, "app_version", known(h->version)) &&
	       add_time(app, "app_start_time", &h->launch_time);
}

/* Sentry's rules for a tag (its documentation, "Tags"): a key of at most 32
 * letters, digits and "_.:-", a value of at most 200 bytes on one line.
 * Other annotations would be dropped as tags, so they stay in extra only. */
enum { TAG_KEY_MAX = 32, TAG_VALUE_MAX = 200 };

static bool
taggable(const pm_kv *kv)
{
	size_t k = strlen(kv->key);
	return k > 0 && k <= TAG_KEY_MAX && strspn(kv->key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") == k &&
	       strlen(kv->value) <= TAG_VALUE_MAX && !strchr(kv->value, '\n');
}

/* Annotations: every one in extra, those that fit Sentry's limits also as tags;
 * the Application Specific Information lines in extra too. */
static bool
add_annotations(cJSON *ev, cJSON *tags, const pm_report *r)
{
	const pm_exception *e = &r->exception;
	if (r->annotation_count == 0 && e->asi_count == 0)
		return true;
	cJSON *extra = cJSON_AddObjectToObject(ev, "extra");
	bool ok = extra != NULL;
	for (uint32_t i = 0; ok && i < r->annotation_count; i++) {
		const pm_kv *kv = &r->annotations[i];
		ok = add_str(extra, kv->key, kv->value);
		if (ok && taggable(kv))
			ok = add_str(tags, kv->key, kv->value);
	}
	if (ok && e->asi_count > 0) {
		cJSON *asi = cJSON_CreateStringArray(e->asi, (int)e->asi_count);
		ok = asi && cJSON_AddItemToObject(extra, "application_specific_information", asi);
	}
	return ok;
}

/* A time in seconds as Sentry's timestamps (RFC 3339); nothing when unknown. */
static bool
add_seconds(cJSON *o, const char *key, int64_t sec)
{
	char buf[PMI_SENTRY_TIME_MAX];
	if (sec <= 0 || !pmi_sentry_time(sec * 1000000, buf))
		return true;
	return cJSON_AddStringToObject(o, key, buf) != NULL;
}

/* The crash group (docs/sentry.md, "Crash groups"): its signature a tag (and the fingerprint
 * when asked), and on its latest report what storm control counted without sending. */
static bool
add_group(cJSON *ev, cJSON *tags, const pm_report *r, const pmi_group_note *g)
{
	char sig[PM_SIGNATURE_LEN + 1], title[PM_TITLE_MAX];
	pm_report_group(r, sig, title);
	if (!add_str(tags, "postmortem.signature", sig))
		return false;
	if (g && g->fingerprint) {
		const char *fp[] = { "postmortem.signature", sig };
		cJSON *a = cJSON_CreateStringArray(fp, 2);
		if (!a || !cJSON_AddItemToObject(ev, "fingerprint", a)) {
			cJSON_Delete(a);
			return false;
		}
	}
	if (!g || g->not_sent == 0)
		return true;
	cJSON *extra = cJSON_GetObjectItemCaseSensitive(ev, "extra");
	if (!extra)
		extra = cJSON_AddObjectToObject(ev, "extra");
	cJSON *o = extra ? cJSON_AddObjectToObject(extra, "postmortem.crash_group") : NULL;
	return o && add_str(o, "signature", sig) && add_str(o, "title", title) &&
	       add_u64(o, "crashes", g->reports + g->not_sent) && add_u64(o, "not_sent", g->not_sent) &&
	       add_seconds(o, "first_not_sent", g->first) && add_seconds(o, "last_not_sent", g->last);
}

static bool
add_breadcrumbs(cJSON *ev, const pm_report *r)
{
	if (r->breadcrumb_count == 0)
		return true;
	cJSON *values = add_values(ev, "breadcrumbs");
	bool ok = values != NULL;
	for (uint32_t i = 0; ok && i < r->breadcrumb_count; i++) {
		cJSON *o = cJSON_CreateObject();
		ok = o && cJSON_AddItemToArray(values, o) && add_time(o, "timestamp", &r->breadcrumbs[i].time) &&
		     add_str(o, "message", r->breadcrumbs[i].message) && add_str(o, "category", "app") &&
		     add_str(o, "level", "info");
	}
	return ok;
}

cJSON *
pmi_sentry_event(const pm_report *r, const char *event_id, const char *environment, const pmi_group_note *group)
{
	cJSON *ev = cJSON_CreateObject();
	int32_t crashed = pm_report_crashed_thread(r);
	uint8_t k = kind_of(r);
	cJSON *sdk = ev ? cJSON_AddObjectToObject(ev, "sdk") : NULL;
	cJSON *tags = sdk ? cJSON_AddObjectToObject(ev, "tags") : NULL;
	static const char *const kind_tag[] = { [PM_KIND_CRASH] = "crash", [PM_KIND_SNAPSHOT] = "snapshot",
		                                [PM_KIND_HANG] = "hang" };
	bool ok = tags && add_str(ev, "event_id", event_id) && add_str(ev, "level", kind_level[k]) &&
	          add_str(ev, "platform", "native") && add_time(ev, "timestamp", &r->header.time) &&
	          add_release(ev, &r->header) && add_str(ev, "environment", environment) &&
	          add_str(sdk, "name", "postmortem") &&
	          add_str(sdk, "version", PM_VERSION) && add_str(tags, "postmortem.kind", kind_tag[k]) &&
	          add_exception(ev, r, crashed) && add_threads(ev, r) && add_images(ev, r) &&
	          add_contexts(ev, r, crashed) && add_annotations(ev, tags, r) && add_group(ev, tags, r, group) &&
	          add_breadcrumbs(ev, r);
	if (!ok) {
		cJSON_Delete(ev);
		return NULL;
	}
	return ev;
}
