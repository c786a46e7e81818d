/*
 * test_apple_fidelity.c — converting a real Apple report loses no thread and no frame.
 *
 * For every report in ../shared/samples/apple, the threads (by the number the report
 * gives them) and the address of every frame are listed twice: from the original, by a
 * reading written here (a few lines: "Thread N…:" headers, the first 0x token of each frame
 * line; an .ips body's threads array), and from postmortem's conversion to .crash text
 * (the same simple reading) and to the JSON twin (cJSON).  The listings must be equal.
 * The cases that once lost data have tests of their own below.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "postmortem-tools.h"
#include "formats/model/model.h"
#include "util.h"

/* A listing: "Thread N: addr addr …\n" per thread, in report order. */
typedef struct listing {
	char *s;
	size_t len, cap;
} listing;

static void
add(listing *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (l->len + (size_t)n + 1 > l->cap) {
		l->cap = (l->len + (size_t)n + 1) * 2;
		l->s = realloc(l->s, l->cap);
	}
	va_start(ap, fmt);
	vsnprintf(l->s + l->len, l->cap - l->len, fmt, ap);
	va_end(ap);
	l->len += (size_t)n;
}

/* "Thread 3:", "Thread 3 Crashed:", "Thread 3 Attributed:", "Thread 3 Crashed:: name". */
static bool
thread_header(const char *line, unsigned long long *n)
{
	if (strncmp(line, "Thread ", 7) != 0 || !isdigit((unsigned char)line[7]))
		return false;
	char *end;
	*n = strtoull(line + 7, &end, 10);
	if (strncmp(end, " Crashed", 8) == 0)
		end += 8;
	else if (strncmp(end, " Attributed", 11) == 0)
		end += 11;
	return *end == ':';
}

/* "<index> <image> <0xaddress> …": the first 0x token after a blank. */
static bool
frame_address(const char *line, unsigned long long *addr)
{
	if (!isdigit((unsigned char)line[0]))
		return false;
	for (const char *p = line + 1; *p && *p != '\n'; p++)
		if (isspace((unsigned char)p[-1]) && p[0] == '0' && p[1] == 'x') {
			*addr = strtoull(p, NULL, 16);
			return true;
		}
	return false;
}

static char *
text_listing(const char *text)
{
	listing l = { 0 };
	add(&l, "");
	bool in_thread = false;
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		unsigned long long v;
		if (thread_header(line, &v)) {
			add(&l, "%sThread %llu:", l.len ? "\n" : "", v);
			in_thread = true;
		} else if (in_thread && frame_address(line, &v)) {
			add(&l, " %llx", v);
		} else {
			in_thread = false;
		}
		line = nl ? nl + 1 : line + strlen(line);
	}
	add(&l, "\n");
	return l.s;
}

/* An .ips body: threads by position, each frame at its image's base + imageOffset. */
static char *
ips_listing(const cJSON *body)
{
	listing l = { 0 };
	add(&l, "");
	const cJSON *images = cJSON_GetObjectItem(body, "usedImages");
	unsigned n = 0;
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(body, "threads")) {
		add(&l, "%sThread %u:", n ? "\n" : "", n);
		n++;
		const cJSON *f;
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(t, "frames")) {
			const cJSON *img = cJSON_GetArrayItem(images,
			                                      cJSON_GetObjectItem(f, "imageIndex")->valueint);
			double base = cJSON_GetNumberValue(cJSON_GetObjectItem(img, "base"));
			double off = cJSON_GetNumberValue(cJSON_GetObjectItem(f, "imageOffset"));
			add(&l, " %llx", (unsigned long long)base + (unsigned long long)off);
		}
	}
	add(&l, "\n");
	return l.s;
}

/* The original's listing: an .ips JSON body after its metadata line, else text. */
static char *
original_listing(const char *data)
{
	const char *nl = strchr(data, '\n');
	cJSON *body = data[0] == '{' && nl ? cJSON_Parse(nl + 1) : NULL;
	char *l = body && cJSON_GetObjectItem(body, "threads") ? ips_listing(body) : text_listing(data);
	cJSON_Delete(body);
	return l;
}

static char *
twin_listing(const char *json)
{
	cJSON *root = cJSON_Parse(json);
	cr_assert_not_null(root, "the JSON twin does not parse");
	listing l = { 0 };
	add(&l, "");
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(root, "threads")) {
		add(&l, "%sThread %.0f:", l.len ? "\n" : "",
		    cJSON_GetNumberValue(cJSON_GetObjectItem(t, "number")));
		const cJSON *f;
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(t, "frames"))
			add(&l, " %llx",
			    (unsigned long long)cJSON_GetNumberValue(cJSON_GetObjectItem(f, "address")));
	}
	add(&l, "\n");
	cJSON_Delete(root);
	return l.s;
}

static char *
render(const pm_report *r, pm_format f)
{
	char *s = NULL;
	cr_assert_eq(pm_write_report_string(r, f, &s, NULL), PM_OK);
	return s;
}

static void
read_report(const char *data, pm_report *r)
{
	pm_read_error err;
	pm_report_init(r);
	cr_assert_eq(pm_read_report(data, strlen(data), r, &err), PM_OK, "%s (line %u)",
	             err.message, err.line);
}

/* The original, the .crash conversion and the JSON twin list the same threads and frames;
 * true when the original lists any thread. */
static bool
expect_faithful(const char *name, const char *data)
{
	pm_report r;
	read_report(data, &r);
	char *want = original_listing(data);
	char *text = render(&r, PM_FORMAT_TEXT), *json = render(&r, PM_FORMAT_JSON);
	char *got_text = text_listing(text), *got_json = twin_listing(json);
	bool threads = strstr(want, "Thread ") != NULL;
	cr_expect_str_eq(got_text, want, "%s: .crash conversion", name);
	cr_expect_str_eq(got_json, want, "%s: JSON twin", name);
	free(want);
	free(text);
	free(json);
	free(got_text);
	free(got_json);
	pm_report_free(&r);
	return threads;
}

/* A report of `threads` threads that converts faithfully, read for the checks that follow. */
static void
read_faithful(const char *name, const char *data, uint32_t threads, pm_report *r)
{
	cr_expect(expect_faithful(name, data));
	read_report(data, r);
	cr_assert_eq(r->thread_count, threads, "%s: %u threads", name, r->thread_count);
}

Test(apple_fidelity, every_shared_sample_keeps_its_threads_and_frames)
{
	const char *dir = pm_test_shared("samples/apple");
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "cannot list %s", dir);
	unsigned seen = 0, with_threads = 0;
	for (struct dirent *e; (e = readdir(d));) {
		const char *ext = strrchr(e->d_name, '.');
		if (!ext || !(strcmp(ext, ".txt") == 0 || strcmp(ext, ".ips") == 0 || strcmp(ext, ".crash") == 0))
			continue;
		char *data = pm_test_slurp(pm_test_shared("samples/apple/%s", e->d_name), NULL);
		with_threads += expect_faithful(e->d_name, data);
		free(data);
		seen++;
	}
	closedir(d);
	cr_expect_geq(seen, 14, "only %u samples found", seen);
	/* One sample (acrp__xcode16.txt) is a header alone. */
	cr_expect_geq(with_threads, seen - 1, "only %u samples list threads", with_threads);
}

/* ---- the defects found on held-out reports ------------------------------ */

/* Frame 0 of a thread in libsystem_kernel.dylib, two places in it. */
#define KERNEL_FRAME_A "0   libsystem_kernel.dylib        \t0x00000001c2f1a0c8 0x1c2f00000 + 106696\n"
#define KERNEL_FRAME_B "0   libsystem_kernel.dylib        \t0x00000001c2f1b2d0 0x1c2f00000 + 111312\n"

/* An EXC_RESOURCE CPU report: the attributed thread is the one that matters. */
static const char cpu_report[] =
	"Incident Identifier: 6B1A2C3D-0000-4000-8000-000000000001\n"
	"Process:             Worker [412]\n"
	"Code Type:           ARM-64 (Native)\n"
	"\n"
	"Exception Type:  EXC_RESOURCE\n"
	"Exception Subtype: CPU\n"
	"Exception Message: (Limit 80%) Observed 92% over 60 secs\n"
	"Triggered by Thread:  4\n"
	"\n"
	"Thread 4 Attributed:\n"
	KERNEL_FRAME_A
	"1   Worker                        \t0x0000000100f0b4a4 0x100f00000 + 46244\n"
	"2   libsystem_pthread.dylib       \t0x00000001dc2c5d28 0x1dc2c0000 + 23848\n"
	"\n"
	"Thread 7:\n"
	KERNEL_FRAME_B
	"\n"
	"Binary Images:\n"
	"0x100f00000 - 0x100f7ffff Worker arm64  <0f1e2d3c4b5a69788796a5b4c3d2e1f0> /private/var/Worker\n"
	"0x1c2f00000 - 0x1c2f3ffff libsystem_kernel.dylib arm64e  <a1b2c3d4e5f60718293a4b5c6d7e8f90> "
	"/usr/lib/system/libsystem_kernel.dylib\n"
	"0x1dc2c0000 - 0x1dc2cffff libsystem_pthread.dylib arm64e  <1234567890abcdef1234567890abcdef> "
	"/usr/lib/system/libsystem_pthread.dylib\n";

Test(apple_fidelity, attributed_thread_keeps_its_frames_and_number)
{
	pm_report r;
	read_faithful("cpu report", cpu_report, 2, &r);
	cr_expect_eq(r.threads[0].number, 4);
	cr_expect(r.threads[0].attributed);
	cr_expect(!r.threads[0].crashed);
	cr_expect_eq(r.threads[0].frame_count, 3);
	cr_expect_eq(r.threads[1].number, 7);
	cr_expect_eq(pm_report_crashed_thread(&r), 0, "the triggering thread is found by its number");
	char *text = render(&r, PM_FORMAT_TEXT);
	cr_expect(strstr(text, "Triggered by Thread:  4\n") != NULL);
	cr_expect(strstr(text, "\nThread 4 Attributed:\n0 ") != NULL, "%s", text);
	free(text);
	pm_report_free(&r);
}

/* A report pasted from Thread 2 on: the numbers stay, the triggering thread is not listed. */
Test(apple_fidelity, partial_report_keeps_thread_numbers)
{
	static const char partial[] =
		"Exception Type:  EXC_BAD_ACCESS (SIGSEGV)\n"
		"Triggered by Thread:  0\n"
		"\n"
		"Thread 2:\n"
		KERNEL_FRAME_A
		"\n"
		"Thread 3 name:  worker\n"
		"Thread 3:\n"
		KERNEL_FRAME_B;
	pm_report r;
	read_faithful("partial", partial, 2, &r);
	cr_expect_eq(r.threads[0].number, 2);
	cr_expect_eq(r.threads[1].number, 3);
	cr_expect_eq(r.exception.triggered_thread, 0);
	cr_expect_eq(pm_report_crashed_thread(&r), -1, "thread 0 is not in the report");
	char *text = render(&r, PM_FORMAT_TEXT);
	cr_expect(strstr(text, "Triggered by Thread:  0\n") != NULL);
	cr_expect(strstr(text, "Thread 3 name:  worker\nThread 3:\n") != NULL, "%s", text);
	free(text);
	/* The JSON twin carries the numbers through a round trip. */
	char *json = render(&r, PM_FORMAT_JSON);
	pm_report back;
	read_report(json, &back);
	const char *where = NULL;
	cr_expect(pmi_report_equal(&r, &back, &where), "differs at %s", where ? where : "?");
	free(json);
	pm_report_free(&back);
	pm_report_free(&r);
}

/* A wakeups report lists only the thread it is about. */
Test(apple_fidelity, a_lone_thread_is_the_triggered_one)
{
	pm_report r;
	static const char wakeups[] =
		"Exception Type:  EXC_RESOURCE\n"
		"Exception Subtype: WAKEUPS\n"
		"Triggered by Thread:  3\n"
		"\n"
		"Thread 3:\n"
		KERNEL_FRAME_A;
	read_faithful("wakeups", wakeups, 1, &r);
	cr_expect_eq(r.threads[0].number, 3);
	cr_expect_eq(pm_report_crashed_thread(&r), 0);
	char *explained = pm_explain(&r, false);
	cr_expect(strstr(explained, "thread: 3") != NULL, "%s", explained);
	free(explained);
	pm_report_free(&r);
}

/* A 32-bit report keeps its 8-digit addresses (KSCrash's "Code Type: ARM" sample). */
Test(apple_fidelity, thirty_two_bit_addresses_keep_their_width)
{
	char *data = pm_test_slurp(pm_test_shared("samples/apple/kscrash__BadPointer.txt"), NULL);
	pm_report r;
	read_report(data, &r);
	char *text = render(&r, PM_FORMAT_TEXT);
	const char *frame = strstr(text, "Crashed:\n0 ");
	cr_assert_not_null(frame, "%s", text);
	const char *addr = strstr(frame, "\t0x");
	cr_assert_not_null(addr);
	size_t digits = strspn(addr + 3, "0123456789abcdef");
	cr_expect_eq(digits, 8, "frame address: %.30s", addr);
	free(text);
	free(data);
	pm_report_free(&r);

	/* A 64-bit report keeps 16. */
	read_report(cpu_report, &r);
	text = render(&r, PM_FORMAT_TEXT);
	cr_expect(strstr(text, "\t0x00000001c2f1a0c8 ") != NULL);
	free(text);
	pm_report_free(&r);
}

/* An old SpringBoard kill highlights a thread; nothing triggered anything. */
Test(apple_fidelity, highlighted_thread_stays_highlighted)
{
	static const char kill[] =
		"Exception Type:  00000020\n"
		"Exception Codes: 0x8badf00d\n"
		"Highlighted Thread:  1\n"
		"\n"
		"Thread 0:\n"
		"0   ???                           \t0x0000000000000040 0 + 64\n"
		"\n"
		"Thread 1:\n"
		"0   ???                           \t0x0000000000000080 0 + 128\n";
	pm_report r;
	read_report(kill, &r);
	cr_expect(r.exception.highlighted);
	cr_expect_eq(r.exception.triggered_thread, 1);
	char *text = render(&r, PM_FORMAT_TEXT);
	cr_expect(strstr(text, "Highlighted Thread:  1\n") != NULL, "%s", text);
	cr_expect_null(strstr(text, "Triggered by Thread"));
	free(text);
	char *json = render(&r, PM_FORMAT_JSON);
	pm_report back;
	read_report(json, &back);
	cr_expect(back.exception.highlighted);
	cr_expect_eq(back.exception.triggered_thread, 1);
	free(json);
	pm_report_free(&back);
	pm_report_free(&r);
}
