/*
 * read_ips_header.c — .ips body members -> pm_header, following the
 * JSON -> text mapping of apple-crash-format.md §12.
 */
#include "model.h"
#include "read_ips.h"

#include <string.h>

#include "json.h"

/* Header lines Apple prints that the model has no field for (at most this many). */
enum { EXTRA_MAX = 8 };

/* "name [id]", "name", "??? [id]" or NULL, as Apple prints process and coalition pairs. */
static const char *
name_and_id(pm_arena *a, const cJSON *b, const char *name_key, const char *id_key)
{
	const char *name = pmi_ips_str(a, b, name_key);
	int64_t id;
	if (!pmi_json_get_i64(b, id_key, &id))
		return name;
	return pmi_ips_printf(a, "%s [%lld]", name ? name : "???", (long long)id);
}

/* Identifier and "short (bundle)" Version from bundleInfo. */
static void
read_bundle(const cJSON *b, pm_report *r)
{
	pm_arena *a = r->arena;
	const cJSON *bi = pmi_json_get(b, "bundleInfo");
	const char *shortv = pmi_ips_str(a, bi, "CFBundleShortVersionString");
	const char *build = pmi_ips_str(a, bi, "CFBundleVersion");
	r->header.identifier = pmi_ips_str(a, bi, "CFBundleIdentifier");
	if (!r->header.identifier)
		r->header.identifier = r->header.process_name;
	if (shortv && build)
		r->header.version = pmi_ips_printf(a, "%s (%s)", shortv, build);
	else
		r->header.version = shortv ? shortv : build;
}

static const char *
code_type(pm_arena *a, const cJSON *b)
{
	const char *cpu = pmi_ips_str(a, b, "cpuType");
	if (!cpu)
		return NULL;
	bool translated = false;
	pmi_json_get_bool(b, "translated", &translated);
	return pmi_ips_printf(a, "%s (%s)", cpu, translated ? "Translated" : "Native");
}

/* "train (build)", or the train alone when the build is empty. */
static const char *
train_and_build(pm_arena *a, const cJSON *v)
{
	const char *train = pmi_ips_str(a, v, "train");
	const char *build = pmi_ips_str(a, v, "build");
	if (train && build)
		return pmi_ips_printf(a, "%s (%s)", train, build);
	return train;
}

/* OS Version, Release Type and the Report Version Apple's translation prints; true for iOS-family. */
static bool
read_os(const cJSON *b, pm_report *r)
{
	pm_arena *a = r->arena;
	const cJSON *v = pmi_json_get(b, "osVersion");
	r->header.os_version = train_and_build(a, v);
	r->header.release_type = pmi_ips_str(a, v, "releaseType");
	bool embedded = false;
	if (!pmi_json_get_bool(v, "isEmbedded", &embedded)) {
		/* Older macOS bodies omit isEmbedded; the train still says which family. */
		const char *train = r->header.os_version;
		embedded = train && strncmp(train, "macOS", 5) != 0 && strncmp(train, "Mac OS", 6) != 0;
	}
	r->header.report_version = embedded ? "104" : "12";
	return embedded;
}

static void
add_extra(pm_header *h, const char *key, const char *value)
{
	if (value && h->extra_count < EXTRA_MAX)
		h->extra[h->extra_count++] = (pm_kv){ key, value };
}

static const char *
seconds(pm_arena *a, const cJSON *b, const char *key)
{
	uint64_t s;
	if (!pmi_json_get_u64(b, key, &s))
		return NULL;
	return pmi_ips_printf(a, "%llu seconds", (unsigned long long)s);
}

/*
 * Lines Apple's translation prints that have no pm_header field, in its
 * order; the wake, uptime and SIP lines only on macOS, as Apple does.
 */
static void
read_extra(const cJSON *b, bool embedded, pm_report *r)
{
	pm_arena *a = r->arena;
	pm_header *h = &r->header;
	h->extra = pmi_arena_alloc(a, EXTRA_MAX * sizeof *h->extra, _Alignof(pm_kv));
	if (!h->extra)
		return;
	const cJSON *store = pmi_json_get(b, "storeInfo");
	bool beta = false;
	pmi_json_get_bool(store, "entitledBeta", &beta);
	add_extra(h, "AppStoreTools", pmi_ips_str(a, pmi_json_get(b, "bundleInfo"), "DTAppStoreToolsBuild"));
	add_extra(h, "AppVariant", pmi_ips_str(a, store, "applicationVariant"));
	if (beta)
		add_extra(h, "Beta Identifier", pmi_ips_str(a, store, "deviceIdentifierForVendor"));
	if (!embedded) {
		add_extra(h, "Bridge OS Version", train_and_build(a, pmi_json_get(b, "bridgeVersion")));
		add_extra(h, "Sleep/Wake UUID", pmi_ips_str(a, b, "sleepWakeUUID"));
		add_extra(h, "Time Awake Since Boot", seconds(a, b, "uptime"));
		add_extra(h, "Time Since Wake", seconds(a, b, "wakeTime"));
		add_extra(h, "System Integrity Protection", pmi_ips_str(a, b, "sip"));
	}
	if (h->extra_count == 0)
		h->extra = NULL;
}

void
pmi_ips_header(const cJSON *b, pm_report *r)
{
	pm_arena *a = r->arena;
	pm_header *h = &r->header;
	int64_t n;
	h->incident_id = pmi_ips_str(a, b, "incident");
	h->crash_reporter_key = pmi_ips_str(a, b, "crashReporterKey");
	h->hardware_model = pmi_ips_str(a, b, "modelCode");
	h->process_name = pmi_ips_str(a, b, "procName");
	if (pmi_json_get_i64(b, "pid", &n))
		h->pid = n;
	h->process_path = pmi_ips_str(a, b, "procPath");
	read_bundle(b, r);
	h->code_type = code_type(a, b);
	h->role = pmi_ips_str(a, b, "procRole");
	h->parent_name = pmi_ips_str(a, b, "parentProc");
	if (pmi_json_get_i64(b, "parentPid", &n))
		h->parent_pid = n;
	h->responsible = name_and_id(a, b, "responsibleProc", "responsiblePid");
	h->coalition = name_and_id(a, b, "coalitionName", "coalitionID");
	if (pmi_json_get_i64(b, "userID", &n))
		h->user_id = pmi_ips_printf(a, "%lld", (long long)n);
	pmi_ips_time(b, "captureTime", &h->time);
	pmi_ips_time(b, "procLaunch", &h->launch_time);
	bool embedded = read_os(b, r);
	h->baseband_version = pmi_ips_str(a, b, "basebandVersion");
	read_extra(b, embedded, r);
}
