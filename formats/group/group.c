/*
 * group.c — AS-SAFE: a report's crash group, its signature and title
 * (docs/grouping.md).
 *
 * The signature is FNV-1a (64 bits, as 16 hex digits) of a few lines of
 * text: the algorithm's version, the kind of report, what ended it (the
 * signal, and an uncaught C++ exception's type), and the crashed thread's
 * first PM_GROUP_FRAMES frames of the app's own code once the crash
 * machinery is passed (group_skip.c), each as "image!function" (names
 * normalized, group_name.c), "image+0xOFFSET" where the frame has no name,
 * or "?" where it has neither.  Frames of the system's libraries count only
 * when no frame of the app's own does: whether a library's frame has a name
 * depends on the machine (a debug package installed or not), its offsets on
 * the library's version.  No address, build id or path: the same crash site
 * gives the same text at any load address, on any machine, in any build
 * whose functions on the way kept their names.  A report without frames
 * hashes its process's name instead.
 *
 * Everything comes from facts the .crash text and the JSON twin both hold,
 * so that either file gives the same group.
 */
#include "group.h"

#include <string.h>

#include "model.h"

#define SIGNATURE_VERSION "postmortem-signature 1"

enum {
	WHAT_MAX = 160,
	COMPONENT_MAX = 2 * PM_GROUP_NAME_MAX + 24,
};

static const uint64_t FNV_OFFSET = 14695981039346656037ull;
static const uint64_t FNV_PRIME = 1099511628211ull;

static void
hash(uint64_t *h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		*h ^= (unsigned char)s[i];
		*h *= FNV_PRIME;
	}
}

static void
hash_line(uint64_t *h, const char *s)
{
	hash(h, s, strlen(s));
	hash(h, "\n", 1);
}

/* A bounded string being built. */
typedef struct text {
	char *p;
	size_t cap, len;
} text;

static void
add(text *t, const char *s)
{
	for (; s && *s && t->len + 1 < t->cap; s++)
		t->p[t->len++] = *s;
	t->p[t->len] = '\0';
}

static void
add_hex(text *t, uint64_t v)
{
	char buf[20];
	size_t n = 0;
	do {
		buf[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v && n < sizeof buf);
	char out[24] = "0x";
	for (size_t i = 0; i < n; i++)
		out[2 + i] = buf[n - 1 - i];
	out[2 + n] = '\0';
	add(t, out);
}

static bool
known_name(const char *s)
{
	return s && *s && strcmp(s, "???") != 0;
}

static const pm_image *
image_of(const pm_report *r, const pm_frame *fr)
{
	return fr->image >= 0 && (uint32_t)fr->image < r->image_count ? &r->images[fr->image] : NULL;
}

static const char *
image_name(const pm_report *r, const pm_frame *fr)
{
	const pm_image *im = image_of(r, fr);
	const char *name = im && im->name ? im->name : fr->image_name;
	return known_name(name) ? name : NULL;
}

static bool
same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* Where the system's libraries live (Linux distributions, macOS): frames there are not the
 * app's own.  Arrays, not pointers: no relocation in libpostmortem (group_skip.c). */
static const char system_dirs[][16] = {
	"/lib/", "/lib32/", "/lib64/", "/usr/lib/", "/usr/lib32/", "/usr/lib64/", "/usr/libexec/", "/System/",
};

/* The frame is in a library of the system's rather than in the app's own code: its main
 * executable, the libraries it brings, code in no image. */
static bool
system_frame(const pm_report *r, const pm_frame *fr)
{
	const pm_image *im = image_of(r, fr);
	if (im && (im->is_app || same(im->path, r->header.process_path)))
		return false;
	const char *name = image_name(r, fr);
	if (same(name, r->header.process_name))
		return false;
	if (same(name, "[vdso]") || same(name, "linux-vdso.so.1") || same(name, "linux-gate.so.1"))
		return true;
	const char *path = im ? im->path : NULL;
	for (size_t i = 0; path && i < sizeof system_dirs / sizeof system_dirs[0]; i++)
		if (strncmp(path, system_dirs[i], strlen(system_dirs[i])) == 0)
			return true;
	return false;
}

/* One frame as a signature and a title see it. */
typedef struct gframe {
	char image[PM_GROUP_NAME_MAX];
	char function[PM_GROUP_NAME_MAX];
	bool named;          /* function holds a name */
	bool offset;         /* no name: the offset into its image */
	uint64_t off;
} gframe;

/* Fills g; false when the frame is the crash machinery's or postmortem's own. */
static bool
read_frame(const pm_report *r, const pm_frame *fr, gframe *g)
{
	g->image[0] = g->function[0] = '\0';
	g->named = g->offset = false;
	pmi_group_image(image_name(r, fr), g->image, sizeof g->image);
	if (pmi_group_own_image(g->image))
		return false;
	if (known_name(fr->symbol)) {
		g->named = pmi_group_function(fr->symbol, g->function, sizeof g->function) > 0;
		if (g->named && pmi_group_skipped(g->function))
			return false;
	}
	const pm_image *im = image_of(r, fr);
	if (!g->named && g->image[0] && im && fr->address >= im->start) {
		g->offset = true;
		g->off = fr->address - im->start;
	}
	return true;
}

/* "libc.so!strlen", "app+0x1234", "?": one line of the signature's text. */
static void
component(const gframe *g, char *out, size_t cap)
{
	text t = { out, cap, 0 };
	out[0] = '\0';
	if (!g->named && !g->offset && !g->image[0]) {
		add(&t, "?");
		return;
	}
	add(&t, g->image[0] ? g->image : "?");
	if (g->named) {
		add(&t, "!");
		add(&t, g->function);
	} else if (g->offset) {
		add(&t, "+");
		add_hex(&t, g->off);
	}
}

/* How the title names a frame: its function, else image+0xOFFSET, else ???. */
static void
frame_title(const gframe *g, text *t)
{
	if (g->named) {
		add(t, g->function);
	} else if (g->offset) {
		add(t, g->image);
		add(t, "+");
		add_hex(t, g->off);
	} else {
		add(t, "???");
	}
}

/* The type after "uncaught exception of type " in Application Specific Information (the
 * C++ runtime's words: postmortem's, libstdc++'s, libc++abi's), or Objective-C's
 * "uncaught exception 'Name'"; normalized into out. */
static bool
thrown_type(const pm_report *r, char *out, size_t cap)
{
	static const char cxx[] = "uncaught exception of type ", objc[] = "uncaught exception '";
	for (uint32_t i = 0; i < r->exception.asi_count && r->exception.asi; i++) {
		const char *line = r->exception.asi[i];
		for (const char *p = line; p && *p; p++) {
			bool is_cxx = strncmp(p, cxx, sizeof cxx - 1) == 0;
			if (!is_cxx && strncmp(p, objc, sizeof objc - 1) != 0)
				continue;
			const char *s = p + (is_cxx ? sizeof cxx - 1 : sizeof objc - 1);
			char type[PM_GROUP_NAME_MAX];
			size_t n = 0;
			while (s[n] && s[n] != '\n' && n + 1 < sizeof type &&
			       !(is_cxx ? s[n] == ':' && s[n + 1] == ' ' : s[n] == '\''))
				n++;
			memcpy(type, s, n);
			type[n] = '\0';
			return pmi_group_function(type, out, cap) > 0;
		}
	}
	return false;
}

/* The kind of report as both files tell it: the .crash text has no place for the kind, but
 * a hang names the watchdog and a snapshot says it is simulated. */
static pm_kind
kind_of(const pm_report *r)
{
	const pm_exception *e = &r->exception;
	if (r->kind == PM_KIND_HANG || same(e->term_namespace, "WATCHDOG"))
		return PM_KIND_HANG;
	if (r->kind == PM_KIND_SNAPSHOT || (e->note && strncmp(e->note, "SIMULATED", 9) == 0))
		return PM_KIND_SNAPSHOT;
	return PM_KIND_CRASH;
}

/* What the title starts with ("SIGSEGV", "std::runtime_error", "Hang") and the signature's
 * lines for it.  A hang is one whether the watchdog killed the process or it recovered. */
static void
what(const pm_report *r, uint64_t *h, char *title_what, size_t cap)
{
	text t = { title_what, cap, 0 };
	const pm_exception *e = &r->exception;
	title_what[0] = '\0';
	switch (kind_of(r)) {
	case PM_KIND_HANG:
		hash_line(h, "hang");
		add(&t, "Hang");
		return;
	case PM_KIND_SNAPSHOT:
		hash_line(h, "snapshot");
		add(&t, "Snapshot");
		return;
	default:
		hash_line(h, "crash");
		break;
	}
	char thrown[PM_GROUP_NAME_MAX];
	const char *sig = known_name(e->signal_name) ? e->signal_name : known_name(e->type) ? e->type : "?";
	hash_line(h, sig);
	if (thrown_type(r, thrown, sizeof thrown)) {
		hash_line(h, thrown);
		add(&t, thrown);
	} else {
		add(&t, strcmp(sig, "?") == 0 ? "Crash" : sig);
	}
}

/* Printable ASCII and UTF-8 as they are, control bytes as '?'; cut where a character
 * begins, so that the title stays valid text. */
static void
clean_title(char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = '?';
	if (n + 1 >= PM_TITLE_MAX) {
		size_t end = n;
		while (end > 0 && ((unsigned char)s[end - 1] & 0xc0) == 0x80)
			end--;
		if (end > 0 && (unsigned char)s[end - 1] >= 0xc0)
			end--; /* a lead byte whose sequence was cut */
		s[end] = '\0';
	}
}

/* The frames as a signature and a title take them, scanned once. */
typedef struct scan {
	uint64_t own, any;         /* the signature so far: of the app's own frames, of all */
	uint32_t own_used, any_used;
	char site[PM_TITLE_MAX];   /* the first frame with a name or in the app's own code */
	char app[PM_TITLE_MAX];    /* the first of the app's own with a name, else the first */
	int64_t site_at, app_at;   /* their indices, -1 while not found */
	bool app_named;
} scan;

static void
take_frame(scan *sc, const pm_report *r, const pm_frame *fr, uint32_t i, gframe *g)
{
	if (fr->inlined || !read_frame(r, fr, g))
		return;
	bool own = !system_frame(r, fr);
	if (sc->site_at < 0 && (own || g->named)) {
		frame_title(g, &(text){ sc->site, sizeof sc->site, 0 });
		sc->site_at = i;
	}
	if (own && (sc->app_at < 0 || (!sc->app_named && g->named))) {
		frame_title(g, &(text){ sc->app, sizeof sc->app, 0 });
		sc->app_at = i;
		sc->app_named = g->named;
	}
	char line[COMPONENT_MAX];
	component(g, line, sizeof line);
	if (own && sc->own_used < PM_GROUP_FRAMES) {
		hash_line(&sc->own, line);
		sc->own_used++;
	}
	if (sc->any_used < PM_GROUP_FRAMES) {
		hash_line(&sc->any, line);
		sc->any_used++;
	}
}

void
pmi_group_compute(const pm_report *r, char signature[PM_SIGNATURE_LEN + 1], char title[PM_TITLE_MAX])
{
	uint64_t h = FNV_OFFSET;
	char title_what[WHAT_MAX];
	hash_line(&h, SIGNATURE_VERSION);
	what(r, &h, title_what, sizeof title_what);

	int32_t k = pm_report_crashed_thread(r);
	const pm_thread *t = k >= 0 && r->threads ? &r->threads[k] : NULL;
	uint32_t frames = t && t->frames ? t->frame_count : 0;
	scan sc = { .own = h, .any = h, .site_at = -1, .app_at = -1 };
	gframe g;
	for (uint32_t i = 0; i < frames && i < PM_GROUP_SCAN && !(sc.own_used == PM_GROUP_FRAMES && sc.app_named); i++)
		take_frame(&sc, r, &t->frames[i], i, &g);
	if (sc.own_used > 0) {
		h = sc.own;
	} else if (sc.any_used > 0) {
		h = sc.any;
	} else {
		/* Nothing but the exception: the process's name keeps two programs apart. */
		hash(&h, "app ", 4);
		hash_line(&h, known_name(r->header.process_name) ? r->header.process_name : "?");
	}

	for (int i = 0; i < PM_SIGNATURE_LEN; i++)
		signature[i] = "0123456789abcdef"[(h >> (60 - 4 * i)) & 15];
	signature[PM_SIGNATURE_LEN] = '\0';

	text tt = { title, PM_TITLE_MAX, 0 };
	title[0] = '\0';
	add(&tt, title_what);
	if (sc.site_at >= 0) {
		add(&tt, " in ");
		add(&tt, sc.site);
		if (sc.app_at >= 0 && sc.app_at != sc.site_at) {
			add(&tt, " from ");
			add(&tt, sc.app);
		}
	} else if (sc.any_used > 0) {
		add(&tt, " in ");
		add(&tt, "???");
	} else if (known_name(r->header.process_name)) {
		add(&tt, " in ");
		add(&tt, r->header.process_name);
	}
	clean_title(title);
}

bool
pmi_group_signature_valid(const char *s)
{
	if (!s)
		return false;
	for (int i = 0; i < PM_SIGNATURE_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[PM_SIGNATURE_LEN] == '\0';
}

void
pm_report_group(const pm_report *r, char signature[PM_SIGNATURE_LEN + 1], char title[PM_TITLE_MAX])
{
	char computed_title[PM_TITLE_MAX];
	if (!r) {
		memset(signature, '0', PM_SIGNATURE_LEN);
		signature[PM_SIGNATURE_LEN] = '\0';
		title[0] = '\0';
		return;
	}
	if (!pmi_group_signature_valid(r->signature)) {
		pmi_group_compute(r, signature, title);
		return;
	}
	memcpy(signature, r->signature, PM_SIGNATURE_LEN + 1);
	if (r->title && r->title[0] && strlen(r->title) < PM_TITLE_MAX) {
		memcpy(title, r->title, strlen(r->title) + 1);
		clean_title(title);
		return;
	}
	char ignored[PM_SIGNATURE_LEN + 1];
	pmi_group_compute(r, ignored, computed_title);
	memcpy(title, computed_title, PM_TITLE_MAX);
}

bool
pmi_group_keep(pm_report *r)
{
	if (!r || pmi_group_signature_valid(r->signature))
		return true;
	char *room = pm_report_alloc(r, PM_SIGNATURE_LEN + 1 + PM_TITLE_MAX, 1);
	if (!room)
		return false;
	pmi_group_compute(r, room, room + PM_SIGNATURE_LEN + 1);
	r->signature = room;
	r->title = room + PM_SIGNATURE_LEN + 1;
	return true;
}
