/*
 * state.c — what `postmortem system enable` replaced, kept in the system
 * reporter's directory (/var/lib/postmortem/state): the previous
 * kernel.core_pattern, core_pipe_limit and suid_dumpable, and the pattern
 * enable set.  Values are written in hex, so that `disable` puts back
 * exactly the bytes that were there; the analysis identity (uid:gid); and
 * the machine-wide delivery `enable --dsn` asked for (the DSN, which holds
 * the project's key: the file is 0600 root's).  The handler trusts the file
 * only when root owns it and nobody else may write to it, its directory or
 * any directory above (root_path.c).  NOT AS-safe.
 */
#include "system.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char header[] = "# postmortem system reporter: what `postmortem system enable` replaced "
                             "(values in hex; docs/system-reporter.md)\n";

static void
put_hex(FILE *f, const char *key, const char *v)
{
	fprintf(f, "%s ", key);
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		fprintf(f, "%02x", *p);
	fputc('\n', f);
}

static bool
get_hex(const char *hex, char *out, size_t cap)
{
	size_t n = strlen(hex);
	if (n % 2 || n / 2 >= cap)
		return false;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1 || v == 0)
			return false;
		out[i] = (char)v;
	}
	out[n / 2] = '\0';
	return true;
}

/* "uid:gid", neither of them root's. */
static bool
get_ids(const char *s, uid_t *uid, gid_t *gid)
{
	unsigned long u, g;
	int end = 0;
	if (sscanf(s, "%lu:%lu%n", &u, &g, &end) != 2 || s[end] || u == 0 || g == 0 || u >= (uid_t)-1 ||
	    g >= (gid_t)-1)
		return false;
	*uid = (uid_t)u;
	*gid = (gid_t)g;
	return true;
}

/* "1" or "0". */
static bool
get_flag(const char *s, bool *out)
{
	if ((s[0] != '0' && s[0] != '1') || s[1])
		return false;
	*out = s[0] == '1';
	return true;
}

/* The values kept in hex; `required` ones are in every state. */
#define HEX(key, field, required) { key, offsetof(pm_system_state, field), sizeof ((pm_system_state *)0)->field, required }
static const struct {
	const char *key;
	size_t at, size;
	bool required;
} hex_fields[] = {
	HEX("core_pattern", before.pattern, true), HEX("core_pipe_limit", before.pipe_limit, true),
	HEX("suid_dumpable", before.suid_dumpable, true), HEX("ours", ours, true),
	HEX("dsn", dsn, false), HEX("environment", environment, false),
};
enum { N_HEX = sizeof hex_fields / sizeof *hex_fields, N_REQUIRED = 4 };

/* One line "key value": false when a known key's value is bad; *required counts the required ones. */
static bool
take(char *line, pm_system_state *st, unsigned *required)
{
	char *value = strchr(line, ' ');
	if (line[0] == '#' || !value)
		return true;
	*value++ = '\0';
	for (size_t i = 0; i < N_HEX; i++)
		if (strcmp(line, hex_fields[i].key) == 0) {
			*required += hex_fields[i].required;
			return get_hex(value, (char *)st + hex_fields[i].at, hex_fields[i].size);
		}
	if (strcmp(line, "analysis_ids") == 0)
		return get_ids(value, &st->analysis_uid, &st->analysis_gid);
	if (strcmp(line, "upload_private") == 0)
		return get_flag(value, &st->upload_private);
	return true; /* a later version's: kept to itself */
}

pm_err
pmi_state_read(const char *dir, pm_system_state *st, char *why, size_t cap)
{
	memset(st, 0, sizeof *st);
	int dfd = pmi_root_path_open(dir, PMI_PATH_DIR, why, cap);
	if (dfd < 0)
		return errno == ENOENT ? PM_E_NOTFOUND : PM_E_IO;
	int fd = openat(dfd, PM_SYSTEM_STATE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	close(dfd);
	struct stat sb;
	if (fd < 0) {
		int e = errno;
		snprintf(why, cap, "%s/%s: %s", dir, PM_SYSTEM_STATE, strerror(e));
		return e == ENOENT ? PM_E_NOTFOUND : PM_E_IO;
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_uid != 0 || (sb.st_mode & 022)) {
		close(fd);
		snprintf(why, cap, "%s/%s: not a regular file root alone may write", dir, PM_SYSTEM_STATE);
		return PM_E_IO;
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return PM_E_NOMEM;
	}
	/* The longest line: a key and a DSN in hex. */
	char line[2 * PM_SYSTEM_DSN_MAX + 64];
	unsigned required = 0;
	bool ok = true;
	while (ok && fgets(line, sizeof line, f)) {
		size_t n = strlen(line);
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		else if (!feof(f))
			ok = false; /* longer than any line enable writes */
		ok = ok && take(line, st, &required);
	}
	fclose(f);
	if (!ok || required != N_REQUIRED) {
		snprintf(why, cap, "%s/%s: damaged (a value is missing or not hex)", dir, PM_SYSTEM_STATE);
		return PM_E_FORMAT;
	}
	return PM_OK;
}

static void
fill(FILE *f, const void *arg)
{
	const pm_system_state *st = arg;
	fputs(header, f);
	for (size_t i = 0; i < N_HEX; i++)
		if (hex_fields[i].required || st->dsn[0])
			put_hex(f, hex_fields[i].key, (const char *)st + hex_fields[i].at);
	if (st->analysis_uid)
		fprintf(f, "analysis_ids %lu:%lu\n", (unsigned long)st->analysis_uid, (unsigned long)st->analysis_gid);
	if (st->dsn[0])
		fprintf(f, "upload_private %d\n", st->upload_private);
}

pm_err
pmi_state_write(const char *dir, const pm_system_state *st, char *why, size_t cap)
{
	return pmi_root_file_write(dir, PM_SYSTEM_STATE, 0600, fill, st, why, cap);
}

pm_err
pmi_state_remove(const char *dir, char *why, size_t cap)
{
	return pmi_root_file_remove(dir, PM_SYSTEM_STATE, why, cap);
}
