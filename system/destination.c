/*
 * destination.c — where a crash's report goes, and as whom
 * (docs/system-reporter.md, "Where reports go").  As root, from what the
 * kernel says: a process that changed credentials goes to the private
 * spool, root's alone.  Every other one is resolved as its own user: the
 * pending/ its pm_install holds open; else where pm_install would put
 * reports from its environment (POSTMORTEM_DIR, XDG_STATE_HOME, HOME,
 * with pm_install's own code); a user with no home of their own gets the
 * per-uid spool.  The process is reached through its pinned /proc
 * directory (proc_pin.c), its environment through the snapshot's bytes,
 * both only by the child that runs as its user.  Whether the process
 * reported itself is decided by what the kernel knows it by, its pid and
 * its start, against the JSON twins in the pending/ its own pm_install
 * holds open: no other process, and no name, can stand for it.
 * NOT AS-safe.
 */
#include "destination.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "reports_dir.h"

pm_dest_kind
pmi_dest_first(const pm_crash_args *a, const pm_proc_facts *f, const char **reason)
{
	*reason = NULL;
	if (a->dumpable != 1) {
		*reason = "the kernel marks it not dumpable by its user (set-user-ID or changed credentials)";
		return PM_DEST_PRIVATE;
	}
	for (int i = 1; i < 4; i++)
		if (f->uid[i] != f->uid[0] || f->gid[i] != f->gid[0]) {
			*reason = "its real, effective, saved and filesystem ids differ";
			return PM_DEST_PRIVATE;
		}
	if (!f->same_mount_ns) {
		*reason = "it runs in another mount namespace, where its paths name other places";
		return PM_DEST_SPOOL;
	}
	return PM_DEST_OWN;
}

pm_creds
pmi_dest_creds(const pm_proc_facts *f)
{
	return (pm_creds){ f->uid[0], f->gid[0], f->groups, f->ngroups };
}

/* Its home is its own: an absolute HOME other than "/" that is a directory the user owns. */
static bool
own_home(const char *home, uid_t uid)
{
	struct stat st;
	return home[0] == '/' && home[1] != '\0' && stat(home, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid;
}

pm_dest_kind
pmi_dest_resolve(int proc_dir, const pm_env_facts *env, uid_t uid, char *dir, size_t cap)
{
	bool configured = env->dir[0] || env->state[0] == '/';
	if (!configured && !own_home(env->home, uid))
		return PM_DEST_SPOOL;
	/* pm_install's resolution, from its environment and its working directory
	 * (its cwd through the pinned /proc directory, as this user may reach it). */
	int cwd = openat(proc_dir, "cwd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool in_cwd = cwd >= 0 && fchdir(cwd) == 0;
	if (cwd >= 0)
		close(cwd);
	if (clearenv() != 0 || !in_cwd || (env->dir[0] && setenv("POSTMORTEM_DIR", env->dir, 1) != 0) ||
	    (env->state[0] && setenv("XDG_STATE_HOME", env->state, 1) != 0) ||
	    (env->home[0] && setenv("HOME", env->home, 1) != 0) || !pmi_config_reports_dir(NULL, dir, cap))
		return PM_DEST_NONE;
	return PM_DEST_OWN;
}

/* A descriptor of it that is a directory named pending: pm_install holds its pending/ open. */
static int
pending_descriptor(int proc_dir)
{
	int fdd = openat(proc_dir, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fdd >= 0 ? fdopendir(fdd) : NULL;
	if (!d) {
		if (fdd >= 0)
			close(fdd);
		return -1;
	}
	int found = -1;
	struct dirent *e;
	for (int seen = 0; found < 0 && seen < PM_DEST_SCAN_MAX && (e = readdir(d)); seen++) {
		char target[PATH_MAX];
		struct stat st;
		ssize_t k = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
		if (k < 9)
			continue;
		target[k] = '\0';
		if (strcmp(target + k - 8, "/pending") == 0 && fstatat(dirfd(d), e->d_name, &st, 0) == 0 &&
		    S_ISDIR(st.st_mode))
			found = atoi(e->d_name);
	}
	closedir(d);
	return found;
}

int
pmi_dest_app_pending(int proc_dir, const pm_env_facts *env)
{
	int n = env->postmortem_mapped ? pending_descriptor(proc_dir) : -1;
	if (n < 0)
		return -1;
	char name[32];
	snprintf(name, sizeof name, "fd/%d", n);
	int fd = openat(proc_dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_uid != geteuid() || (st.st_mode & 077))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* sysdir/sub/<uid>: sysdir and sub root's (sub of top_mode), the spool made
 * by root below them and given to owner:group (0700), or, for root's own
 * (owner 0), left to the one who opens it; its path into dir. */
static bool
spool_at(const char *sysdir, const char *sub, mode_t top_mode, uint32_t uid, uid_t owner, gid_t group, char *dir,
         size_t cap, char *why, size_t wcap)
{
	char top[PATH_MAX];
	int n = snprintf(top, sizeof top, "%s/%s", sysdir, sub);
	int k = snprintf(dir, cap, "%s/%u", top, (unsigned)uid);
	if (n < 0 || (size_t)n >= sizeof top || k < 0 || (size_t)k >= cap) {
		snprintf(why, wcap, "the spool's path is too long");
		return false;
	}
	/* The modes are set, not left to the handler's umask. */
	const char *const dirs[] = { sysdir, top };
	const mode_t modes[] = { 0755, top_mode };
	for (int i = 0; i < 2; i++) {
		struct stat st;
		bool made = mkdir(dirs[i], modes[i]) == 0;
		if ((!made && errno != EEXIST) || lstat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
		    (!made && (st.st_mode & 022)) || (made && chmod(dirs[i], modes[i]) != 0)) {
			snprintf(why, wcap, "%s is not a directory of root's alone", dirs[i]);
			return false;
		}
	}
	if (owner == 0)
		return true;
	/* The owner's own directory, made by root below a directory only root may write. */
	if (mkdir(dir, 0700) == 0 && chown(dir, owner, group) != 0) {
		snprintf(why, wcap, "cannot give %s to uid %u: %s", dir, (unsigned)owner, strerror(errno));
		return false;
	}
	struct stat st;
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != owner) {
		snprintf(why, wcap, "%s is not a directory of uid %u", dir, (unsigned)owner);
		return false;
	}
	return true;
}

bool
pmi_dest_spool(const char *sysdir, pm_dest_kind kind, const pm_proc_facts *f, char *dir, size_t cap, char *why,
               size_t wcap)
{
	/* users/ may be listed by all (each user finds their own below it), private/ by root alone. */
	if (kind == PM_DEST_PRIVATE)
		return spool_at(sysdir, "private", 0700, f->uid[0], 0, 0, dir, cap, why, wcap);
	return spool_at(sysdir, "users", 0755, f->uid[0], f->uid[0], f->gid[0], dir, cap, why, wcap);
}

bool
pmi_dest_private_upload(const char *sysdir, uint32_t uid, uid_t ana_uid, gid_t ana_gid, char *dir, size_t cap,
                        char *why, size_t wcap)
{
	/* Searched by the analysis identity (its own spools below), listed by root alone. */
	return spool_at(sysdir, "private-upload", 0711, uid, ana_uid, ana_gid, dir, cap, why, wcap);
}

/* A JSON twin's header, pid and start: true when name (a regular file of at
 * most PM_DEST_TWIN_MAX bytes) holds both and they are pid's and ticks'. */
static bool
twin_of(int dfd, const char *name, int pid, uint64_t ticks)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= PM_DEST_TWIN_MAX &&
	    (buf = malloc((size_t)st.st_size + 1)))
		n = pmi_read_fd(fd, buf, (size_t)st.st_size);
	if (fd >= 0)
		close(fd);
	cJSON *root = buf && n ? cJSON_ParseWithLength(buf, n) : NULL;
	free(buf);
	const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(root, "header");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(h, "pid");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(h, "start_ticks");
	bool same = cJSON_IsString(schema) && strcmp(schema->valuestring, "postmortem") == 0 && cJSON_IsNumber(p) &&
	            cJSON_IsNumber(t) && p->valuedouble == (double)pid && ticks && t->valuedouble == (double)ticks;
	cJSON_Delete(root);
	return same;
}

bool
pmi_dest_has_report(int pending_fd, int pid_ns, uint64_t start_ticks, uint64_t since, char *id, size_t cap)
{
	int dup_fd = openat(pending_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return false;
	}
	bool found = false;
	struct dirent *e;
	for (int seen = 0; !found && seen < PM_DEST_SCAN_MAX && (e = readdir(d)); seen++) {
		size_t n = strlen(e->d_name);
		struct stat st;
		if (n <= 5 || e->d_name[0] == '.' || strcmp(e->d_name + n - 5, ".json") != 0 ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
		    (uint64_t)st.st_mtime + 1 < since)
			continue;
		if (twin_of(dirfd(d), e->d_name, pid_ns, start_ticks)) {
			snprintf(id, cap, "%.*s.crash", (int)(n - 5), e->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}
