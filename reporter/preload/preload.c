/*
 * preload.c — libpostmortem-preload.so: install the crash reporter into an
 * unmodified, dynamically linked program (LD_PRELOAD).
 *
 * Settings come from the environment: POSTMORTEM_DIR, POSTMORTEM_APP_ID and
 * POSTMORTEM_APP_VERSION as pm_install reads them, and for delivery
 * POSTMORTEM_UPLOAD_URL or POSTMORTEM_DSN (Sentry) with optional
 * POSTMORTEM_UPLOAD_HEADER (one "Name: value" header, e.g. an auth token),
 * POSTMORTEM_UPLOAD_CA_FILE, POSTMORTEM_UPLOAD_ALLOW_HTTP=1 and
 * POSTMORTEM_UPLOAD_FINGERPRINT_SIGNATURE=1.  The program
 * never notices us unless it crashes: a failure is one line on stderr, never
 * an exit, and never shows the URL, the DSN or the header (they may hold
 * credentials).
 *
 * The constructor runs in every program image the loader preloads us into:
 * each program started with LD_PRELOAD in its environment, and each one a
 * process becomes through exec (env, nice, a shell's exec, a shim), which
 * keeps the pid and the environment but nothing of the image before.
 * Whether this image is reported is this image's own memory
 * (pmi_preload_installed), never the environment's (docs/store.md, "One
 * reporter per program image").
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "install.h"
#include "postmortem.h"
#include "preload_sigaction.h"
#include "tell_run.h"

/* Whether this image's constructor installed postmortem.  It lives in the
 * image's memory: an exec starts with it false, a fork's child keeps it. */
static bool installed;

/* Exported (preload.map): a copy of libpostmortem that a library loaded
 * later brings asks it, and installs nothing when it is true (install.c). */
bool pmi_preload_installed(void);

bool
pmi_preload_installed(void)
{
	return installed;
}

/* A program that links libpostmortem itself installs it its own way; two
 * reporters would write each crash twice.  Ours is hidden, so any pm_install
 * visible to the program is the program's. */
static bool
program_has_postmortem(void)
{
	return dlsym(RTLD_DEFAULT, "pm_install") != NULL;
}

static const char *
env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

static void
start_upload(void)
{
	const char *header = env("POSTMORTEM_UPLOAD_HEADER");
	const char *allow = env("POSTMORTEM_UPLOAD_ALLOW_HTTP");
	const char *fingerprint = env("POSTMORTEM_UPLOAD_FINGERPRINT_SIGNATURE");
	pm_upload_options opt = {
		.url = env("POSTMORTEM_UPLOAD_URL"),
		.dsn = env("POSTMORTEM_DSN"),
		.headers = header ? &header : NULL,
		.header_count = header ? 1 : 0,
		.ca_file = env("POSTMORTEM_UPLOAD_CA_FILE"),
		.allow_http = allow && strcmp(allow, "1") == 0,
		.fingerprint_signature = fingerprint && strcmp(fingerprint, "1") == 0,
	};
	if (!opt.url && !opt.dsn)
		return;
	/* As in an app: libpostmortem-tools is loaded only when a report is pending. */
	if (pm_upload_start(&opt) != 0)
		fprintf(stderr, "postmortem-preload: uploads are off: %s\n", strerror(errno));
}

__attribute__((constructor)) static void
preload_install(void)
{
	if (program_has_postmortem()) {
		pmi_tell_run(PMI_RR_LINKED, NULL);
		return;
	}
	pmi_preload_sigaction_setup();
	if (pm_install(NULL) != 0) {
		const char *why = strerror(errno);
		fprintf(stderr, "postmortem-preload: crash reporting is off: %s\n", why);
		pmi_tell_run(PMI_RR_FAILED, why);
		return;
	}
	installed = true;
	pmi_tell_run(PMI_RR_INSTALLED, NULL);
	start_upload();
}
