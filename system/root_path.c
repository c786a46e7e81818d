/*
 * root_path.c — paths only root can change: the core handler the kernel runs
 * as root at every crash, the state directory the handler trusts, the sysctl
 * drop-in's directory.  A path is walked from / one component at a time
 * through descriptors, following no link, and each step is judged on what
 * was opened, so that nothing can change between the check and the use:
 * every component root's; a directory on the way that group or others may
 * write only when it is sticky (/tmp: nobody but root may then rename or
 * remove what root owns in it, and what follows must be root's); the last
 * component not writable by group or others at all.  A directory with an
 * ACL shows its mask as its group bits, so an ACL entry that lets a user
 * write is refused as group-writable.  A file in such a directory (the
 * state, the drop-in) is written whole: a temporary, made durable, renamed.
 * NOT AS-safe.
 */
#include "system.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "uid 1000 (alice)"; the name only when asked: the handler asks no
 * name service anything (a remote one could make it wait). */
static void
owner_name(uid_t uid, bool names, char *out, size_t cap)
{
	struct passwd *pw = names ? getpwuid(uid) : NULL;
	if (pw)
		snprintf(out, cap, "uid %u (%s)", (unsigned)uid, pw->pw_name);
	else
		snprintf(out, cap, "uid %u", (unsigned)uid);
}

/* Whether what fd opened (shown, for messages) may stand at this place of the path. */
static bool
judge(int fd, const char *shown, bool last, int how, char *why, size_t cap)
{
	struct stat st;
	char who[320];
	if (fstat(fd, &st) != 0) {
		snprintf(why, cap, "%s: %s", shown, strerror(errno));
		return false;
	}
	bool names = how & PMI_PATH_NAMES;
	if (S_ISLNK(st.st_mode)) {
		snprintf(why, cap, "%s is a symbolic link: name the place it leads to instead", shown);
		return false;
	}
	if (st.st_uid != 0) {
		owner_name(st.st_uid, names, who, sizeof who);
		snprintf(why, cap, "%s is %s's, not root's", shown, who);
		return false;
	}
	if (last && (how & PMI_PATH_FILE) && !S_ISREG(st.st_mode)) {
		snprintf(why, cap, "%s is not a regular file", shown);
		return false;
	}
	bool sticky_dir = S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX);
	if ((st.st_mode & 022) && (last || !sticky_dir)) {
		struct group *gr = st.st_mode & 002 || !names ? NULL : getgrgid(st.st_gid);
		if (st.st_mode & 002)
			snprintf(who, sizeof who, "every user");
		else if (gr)
			snprintf(who, sizeof who, "group %s", gr->gr_name);
		else
			snprintf(who, sizeof who, "group %u", (unsigned)st.st_gid);
		snprintf(why, cap, "%s may be written by %s (mode %04o)", shown, who, (unsigned)(st.st_mode & 07777));
		return false;
	}
	return true;
}

/* Why name (in the directory dfd, shown as shown) could not be opened. */
static void
why_not_opened(int dfd, const char *name, const char *shown, int err, char *why, size_t cap)
{
	struct stat st;
	if ((err == ELOOP || err == ENOTDIR) && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		snprintf(why, cap, "%s is a symbolic link: name the place it leads to instead", shown);
	else if (err == ENOTDIR)
		snprintf(why, cap, "%s is not a directory", shown);
	else
		snprintf(why, cap, "%s: %s", shown, strerror(err));
}

int
pmi_root_path_open(const char *path, int how, char *why, size_t cap)
{
	char shown[PATH_MAX];
	size_t len = strlen(path);
	if (path[0] != '/' || len >= sizeof shown) {
		snprintf(why, cap, "%s: not an absolute path", path);
		errno = EINVAL;
		return -1;
	}
	int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(shown, sizeof shown, "/");
	const char *p = path;
	while (*p == '/')
		p++;
	if (fd < 0 || !judge(fd, shown, *p == '\0', how & ~PMI_PATH_FILE, why, cap)) {
		int e = fd < 0 ? errno : EPERM;
		if (fd < 0)
			snprintf(why, cap, "/: %s", strerror(e));
		else
			close(fd);
		errno = e;
		return -1;
	}
	while (*p) {
		const char *end = strchrnul(p, '/');
		const char *next = end;
		while (*next == '/')
			next++;
		bool last = *next == '\0';
		char name[NAME_MAX + 1];
		size_t n = (size_t)(end - p);
		size_t at = strlen(shown);
		snprintf(shown + at, sizeof shown - at, "%s%.*s", at > 1 ? "/" : "", (int)n, p);
		if (n > NAME_MAX || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			snprintf(why, cap, "%s: not a plain path (no '.', '..' or names longer than %d)", path, NAME_MAX);
			close(fd);
			errno = EINVAL;
			return -1;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		bool file = last && (how & PMI_PATH_FILE);
		/* A file is looked at, never opened: it may be a device or a FIFO. */
		int flags = O_CLOEXEC | O_NOFOLLOW | (file ? O_PATH : O_RDONLY | O_DIRECTORY);
		int sub = openat(fd, name, flags);
		bool made = false;
		if (sub < 0 && errno == ENOENT && !file && (how & PMI_PATH_CREATE)) {
			made = mkdirat(fd, name, 0755) == 0;
			sub = openat(fd, name, flags);
		}
		int e = errno;
		if (sub < 0)
			why_not_opened(fd, name, shown, e, why, cap);
		close(fd);
		if (sub < 0) {
			errno = e;
			return -1;
		}
		/* What this process's umask took off: the spools below must be searchable. */
		if (made && fchmod(sub, 0755) != 0) {
			e = errno;
			snprintf(why, cap, "cannot make %s searchable: %s", shown, strerror(e));
			close(sub);
			errno = e;
			return -1;
		}
		if (!judge(sub, shown, last, how, why, cap)) {
			close(sub);
			errno = EPERM;
			return -1;
		}
		fd = sub;
		p = next;
	}
	return fd;
}

pm_err
pmi_root_file_write(const char *dir, const char *name, mode_t mode, void (*fill)(FILE *f, const void *arg),
                    const void *arg, char *why, size_t cap)
{
	int dfd = pmi_root_path_open(dir, PMI_PATH_DIR | PMI_PATH_CREATE | PMI_PATH_NAMES, why, cap);
	if (dfd < 0)
		return PM_E_IO;
	char tmp[NAME_MAX + 1];
	snprintf(tmp, sizeof tmp, ".%s.tmp", name);
	unlinkat(dfd, tmp, 0);
	int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	/* Exactly mode, whatever the umask took off. */
	bool ok = f != NULL && fchmod(fd, mode) == 0;
	if (f) {
		fill(f, arg);
		ok = fflush(f) == 0 && fsync(fd) == 0 && ok;
		ok = fclose(f) == 0 && ok;
	} else if (fd >= 0)
		close(fd);
	ok = ok && renameat(dfd, tmp, dfd, name) == 0 && fsync(dfd) == 0;
	if (!ok) {
		snprintf(why, cap, "cannot write %s/%s: %s", dir, name, strerror(errno));
		unlinkat(dfd, tmp, 0);
	}
	close(dfd);
	return ok ? PM_OK : PM_E_IO;
}

pm_err
pmi_root_file_remove(const char *dir, const char *name, char *why, size_t cap)
{
	int dfd = pmi_root_path_open(dir, PMI_PATH_DIR | PMI_PATH_NAMES, why, cap);
	if (dfd < 0)
		return errno == ENOENT ? PM_OK : PM_E_IO;
	bool ok = (unlinkat(dfd, name, 0) == 0 || errno == ENOENT) && fsync(dfd) == 0;
	if (!ok)
		snprintf(why, cap, "cannot remove %s/%s: %s", dir, name, strerror(errno));
	close(dfd);
	return ok ? PM_OK : PM_E_IO;
}
