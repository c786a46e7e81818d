/*
 * test_read_ips_wrapped.c — .ips containers whose body is not a plain
 * bug_type 309 JSON document: text bodies (bug_type 109, Xcode's export with
 * a metadata line), Console's "Translated Report" and fragments.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "postmortem-tools.h"
#include "tests/util.h"

static const char META_309[] =
	"{\"app_name\":\"Demo\",\"bug_type\":\"309\",\"app_version\":\"4.2\",\"build_version\":\"77\","
	"\"incident_id\":\"11111111-2222-3333-4444-555555555555\",\"bundleID\":\"com.example.demo\","
	"\"os_version\":\"iPhone OS 17.1 (21B74)\",\"timestamp\":\"2023-11-02 09:15:04.00 +0100\"}\n";

static char *
shared(const char *rel, size_t *len)
{
	return pm_test_slurp(pm_test_shared("%s", rel), len);
}

/* NULL-terminated list of strings joined into one malloc'd buffer. */
static char *
concat(size_t *len, ...)
{
	va_list ap;
	size_t n = 0;
	va_start(ap, len);
	for (const char *s; (s = va_arg(ap, const char *)) != NULL;)
		n += strlen(s);
	va_end(ap);
	char *out = malloc(n + 1);
	cr_assert_not_null(out);
	out[0] = '\0';
	va_start(ap, len);
	for (const char *s; (s = va_arg(ap, const char *)) != NULL;)
		strcat(out, s);
	va_end(ap);
	*len = n;
	return out;
}

static pm_err
read_ips(const char *data, size_t len, pm_report *r, pm_read_error *err)
{
	memset(err, 0, sizeof *err);
	pm_report_init(r);
	return pm_read_ips(data, len, r, err);
}

Test(read_ips_wrapped, watchdog_termination_reasons)
{
	/* Example F is two body members; wrap them into a body of their own. */
	size_t n;
	char *frag = shared("docs/examples/F_watchdog_ips_fragment.json", &n);
	char *comma = strrchr(frag, ',');
	cr_assert_not_null(comma);
	*comma = '\0';
	char *data = concat(&n, META_309, "{\n", frag, "\n}\n", (char *)NULL);
	pm_report r;
	pm_read_error err;
	cr_assert_eq(read_ips(data, n, &r, &err), PM_OK, "line %u: %s", err.line, err.message);
	const pm_exception *x = &r.exception;
	cr_expect_str_eq(x->type, "EXC_CRASH");
	cr_expect_eq(x->signal, 9);
	cr_expect_str_eq(x->term_namespace, "FRONTBOARD");
	cr_expect_eq(x->term_code, 0x8badf00du);
	cr_expect_eq(x->term_flags, 6);
	cr_expect_null(x->term_indicator);
	cr_assert_eq(x->term_reason_count, 9);
	cr_expect(strncmp(x->term_reasons[0], "<RBSTerminateContext| domain:10 code:0x8BADF00D ", 48) == 0);
	cr_expect_str_eq(x->term_reasons[6],
	                 "\"Elapsed total CPU time (seconds): 15.290 (user 15.290, system 0.000), 28% CPU\",");
	cr_expect_str_eq(x->term_reasons[8], ") reportType:CrashLog maxTerminationResistance:Interactive>");
	/* The body has no header members: the metadata line fills them. */
	cr_expect_str_eq(r.header.process_name, "Demo");
	cr_expect_str_eq(r.header.identifier, "com.example.demo");
	cr_expect_str_eq(r.header.version, "4.2 (77)");
	cr_expect_str_eq(r.header.incident_id, "11111111-2222-3333-4444-555555555555");
	cr_expect_str_eq(r.header.os_version, "iPhone OS 17.1 (21B74)");
	cr_expect_eq(r.header.time.digits, 2);
	cr_expect_eq(r.thread_count, 0);
	pm_report_free(&r);
	free(data);
	free(frag);
}

Test(read_ips_wrapped, json_body_of_another_bug_type_is_unsupported)
{
	static const char data[] = "{\"bug_type\":\"288\"}\n{\"threads\":[]}\n";
	pm_report r;
	pm_read_error err;
	cr_expect_eq(read_ips(data, sizeof data - 1, &r, &err), PM_E_UNSUPPORTED);
	cr_expect(strstr(err.message, "288") != NULL, "%s", err.message);
	pm_report_free(&r);
}

/* Console's export: banner, translated text, "Full Report" banner, the raw .ips, a profile line. */
static char *
translated_export(const char *full_report, size_t *len)
{
	size_t n;
	char *text = shared("docs/examples/E_ios_sigtrap_translated.crash", &n);
	char *out = concat(len, "-------------------------------------\n"
	                   "Translated Report (Full Report Below)\n"
	                   "-------------------------------------\n\n",
	                   text, "\n-----------\nFull Report\n-----------\n\n", full_report,
	                   "\nModel: iPhone14,2, BootROM 8419.0.42\n", (char *)NULL);
	free(text);
	return out;
}

Test(read_ips_wrapped, translated_export_prefers_the_full_report)
{
	size_t n;
	char *ips = shared("docs/examples/E_ios_sigtrap.ips", &n);
	char *data = translated_export(ips, &n);
	cr_expect_eq(pm_detect_format(data, n), PM_FORMAT_TRANSLATED);
	pm_report r;
	pm_read_error err;
	cr_assert_eq(read_ips(data, n, &r, &err), PM_OK, "line %u: %s", err.line, err.message);
	cr_expect_eq(r.format, PM_FORMAT_TRANSLATED);
	/* Only the JSON knows image source letters and the second thread's id. */
	cr_assert_eq(r.image_count, 6);
	cr_expect_eq(r.images[0].source, 'P');
	cr_assert_eq(r.thread_count, 2);
	cr_expect_eq(r.threads[1].id, 90240);
	cr_expect_str_eq(r.header.identifier, "com.example.CrashDemo");
	pm_report_free(&r);
	free(data);
	free(ips);
}

Test(read_ips_wrapped, translated_export_with_a_broken_full_report_reads_the_text)
{
	size_t n;
	char *data = translated_export("{\"bug_type\":\"309\"}\n{ \"threads\" : [ {\"id\"", &n);
	pm_report r;
	pm_read_error err;
	cr_assert_eq(read_ips(data, n, &r, &err), PM_OK, "line %u: %s", err.line, err.message);
	cr_expect_eq(r.format, PM_FORMAT_TRANSLATED);
	cr_expect_str_eq(r.exception.type, "EXC_BREAKPOINT");
	cr_expect_str_eq(r.header.process_name, "CrashDemo");
	cr_expect_eq(r.thread_count, 2);
	pm_report_free(&r);
	free(data);
}

static void
read_shared(const char *rel, pm_report *r)
{
	size_t n;
	char *data = shared(rel, &n);
	pm_read_error err;
	cr_assert_eq(read_ips(data, n, r, &err), PM_OK, "%s: line %u: %s", rel, err.line, err.message);
	free(data);
}

Test(read_ips_wrapped, ios14_bug_type_109_symbolicated)
{
	pm_report r;
	read_shared("samples/apple/pycrashreport__user_mode_crash_report_ios14_symbolicated.ips", &r);
	cr_expect_eq(r.format, PM_FORMAT_IPS_TEXT);
	cr_expect_eq(r.os, PM_OS_DARWIN);
	cr_expect_str_eq(r.exception.type, "EXC_CRASH");
	cr_expect_str_eq(r.exception.signal_name, "SIGABRT");
	cr_expect_str_eq(r.header.process_name, "kaki");
	cr_expect_str_eq(r.header.incident_id, "2416C26A-72A8-4687-AFAA-7FCEB9D77458");
	cr_assert_eq(r.thread_count, 1);
	cr_expect_eq(r.threads[0].frame_count, 6);
	cr_expect_eq(pm_report_crashed_thread(&r), 0);
	pm_report_free(&r);
}

Test(read_ips_wrapped, ios14_bug_type_109_unsymbolicated)
{
	static const uint32_t frames[] = { 9, 9, 1, 1, 1, 1, 1, 15, 1 };
	pm_report r;
	read_shared("samples/apple/pycrashreport__user_mode_crash_report_ios14_non_symbolicated_abort.ips", &r);
	cr_expect_eq(r.format, PM_FORMAT_IPS_TEXT);
	cr_expect_str_eq(r.exception.type, "EXC_CRASH");
	cr_expect_str_eq(r.header.process_name, "itunescloudd");
	cr_assert_eq(r.thread_count, 9);
	for (uint32_t i = 0; i < 9; i++)
		cr_expect_eq(r.threads[i].frame_count, frames[i], "thread %u", i);
	cr_expect_eq(pm_report_crashed_thread(&r), 7);
	pm_report_free(&r);
}

Test(read_ips_wrapped, ips_and_its_translation_agree)
{
	pm_report j, t;
	read_shared("samples/apple/macsymbolicator__ios-crash-in-ips-format.ips", &j);
	read_shared("samples/apple/macsymbolicator__ios-crash-with-json-header.crash", &t);
	cr_expect_eq(j.format, PM_FORMAT_IPS);
	cr_expect_eq(t.format, PM_FORMAT_IPS_TEXT);
	cr_expect_str_eq(t.exception.type, j.exception.type);
	cr_expect_str_eq(t.exception.signal_name, j.exception.signal_name);
	cr_expect_eq(t.exception.signal, j.exception.signal);
	cr_assert_eq(t.thread_count, j.thread_count);
	for (uint32_t i = 0; i < j.thread_count; i++) {
		cr_expect_eq(t.threads[i].frame_count, j.threads[i].frame_count, "thread %u", i);
		cr_expect_eq(t.threads[i].crashed, j.threads[i].crashed, "thread %u", i);
	}
	cr_expect_eq(t.threads[0].frames[2].address, j.threads[0].frames[2].address);
	cr_expect_eq(t.image_count, j.image_count);
	pm_report_free(&j);
	pm_report_free(&t);
}
