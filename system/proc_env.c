/*
 * proc_env.c — what the crashed process's own words say, read from the
 * snapshot's bytes (proc_snapshot.c) by the handler's children, never by
 * root: its environment (where pm_install would put reports, the app's id
 * and version, as pm_install reads them; where its reports are to be
 * delivered) and whether postmortem runs in it (a library of ours among
 * the paths of its maps).  NOT AS-safe.
 */
#include "system.h"

#include <stdio.h>
#include <string.h>

/* Its environment's value of name ("" when unset) into out; too long counts as unset. */
static void
env_value(const char *env, size_t len, const char *name, char *out, size_t cap)
{
	size_t k = strlen(name);
	out[0] = '\0';
	for (size_t at = 0; at < len;) {
		const char *e = env + at;
		size_t n = strnlen(e, len - at);
		if (n > k && e[k] == '=' && memcmp(e, name, k) == 0 && n - k - 1 < cap) {
			memcpy(out, e + k + 1, n - k - 1);
			out[n - k - 1] = '\0';
		}
		at += n + 1;
	}
}

bool
pmi_env_get(const pm_proc_snapshot *s, const char *name, char *out, size_t cap)
{
	out[0] = '\0';
	if (s->env)
		env_value(s->env, s->env_len, name, out, cap);
	return out[0] != '\0';
}

/* libpostmortem.so* or libpostmortem-preload.so among the paths of maps. */
static bool
maps_postmortem(const char *maps, size_t len)
{
	for (const char *line = maps, *end = maps + len; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *eol = nl ? nl : end, *slash = NULL;
		for (const char *p = line; p < eol; p++)
			if (*p == '/')
				slash = p;
		size_t n = slash ? (size_t)(eol - slash) : 0;
		if ((n >= 17 && memcmp(slash, "/libpostmortem.so", 17) == 0) ||
		    (n == 25 && memcmp(slash, "/libpostmortem-preload.so", 25) == 0))
			return true;
		line = eol + 1;
	}
	return false;
}

void
pmi_env_facts(const pm_proc_snapshot *s, int pid, pm_env_facts *out)
{
	memset(out, 0, sizeof *out);
	if (s->env) {
		env_value(s->env, s->env_len, "POSTMORTEM_DIR", out->dir, sizeof out->dir);
		env_value(s->env, s->env_len, "XDG_STATE_HOME", out->state, sizeof out->state);
		env_value(s->env, s->env_len, "HOME", out->home, sizeof out->home);
		env_value(s->env, s->env_len, "POSTMORTEM_APP_ID", out->app_id, sizeof out->app_id);
		env_value(s->env, s->env_len, "POSTMORTEM_APP_VERSION", out->app_version, sizeof out->app_version);
		env_value(s->env, s->env_len, "POSTMORTEM_STORM_KEEP", out->storm_keep, sizeof out->storm_keep);
	}
	char path[64];
	size_t len;
	snprintf(path, sizeof path, "/proc/%d/maps", pid);
	const char *maps = pmi_snapshot_bytes(s, path, &len);
	out->postmortem_mapped = maps && maps_postmortem(maps, len);
}
