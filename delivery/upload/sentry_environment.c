/*
 * sentry_environment.c — the environment every event is filed under
 * (production, staging, ...): Sentry filters issues and releases by it.
 *
 * Reports do not record one: it is a property of where the reports are
 * delivered from, chosen at upload time.
 */
#include <stdlib.h>
#include <string.h>

#include "sentry.h"
#include "upload.h"

/* Sentry's rules for a name (its documentation, "Environments"): longer or
 * other names are dropped from the event, so they are refused here instead. */
static bool
acceptable(const char *name)
{
	size_t n = strlen(name);
	return n > 0 && n <= 64 && strcmp(name, "None") != 0 && !strpbrk(name, " \t\n\r\f\v/");
}

pm_err
pmi_sentry_environment(const char *given, const char **out)
{
	const char *var = getenv("POSTMORTEM_ENVIRONMENT");
	/* sentry-native's default, so that events of both kinds meet in one environment. */
	const char *name = given ? given : var && *var ? var : "production";
	if (!acceptable(name)) {
		pmi_upload_log("the environment must be 1 to 64 characters without spaces, line breaks or '/', and not "
		               "'None'");
		return PM_E_INVAL;
	}
	*out = name;
	return PM_OK;
}
