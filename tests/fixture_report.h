/*
 * fixture_report.h — realistic report models for the writer and reader tests.
 *
 * Each builder fills a report prepared with pm_report_init(); strings are static
 * literals, arrays live in the report's arena (pm_report_free releases them).
 */
#ifndef PM_TESTS_FIXTURE_REPORT_H
#define PM_TESTS_FIXTURE_REPORT_H

#include "postmortem-tools.h"

/*
 * A Linux x86_64 SIGSEGV with every field of the model set at least once
 * (except esr_description, which belongs to arm64: see the next fixture):
 * three threads (the crashed one with registers and frames of every kind, one
 * not captured, one with frames_truncated), four images (the app with a
 * 20-byte build id, a 16-byte one, one with none), a last exception
 * backtrace, and strings that need JSON escaping (quotes, backslash, newline,
 * tab, control bytes) or carry UTF-8.
 */
void pm_fixture_linux_crash(pm_report *r);

/* A Darwin arm64 crash: x0–x28 fp lr sp pc cpsr far esr, esr_description, a dispatch queue. */
void pm_fixture_arm64_apple(pm_report *r);

#endif
