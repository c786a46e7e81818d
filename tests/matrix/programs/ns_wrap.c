/*
 * ns_wrap MODE PROGRAM ARGS... — run PROGRAM in a private mount namespace
 * (root only) where its environment is hostile, then let the test see what
 * it left.  $POSTMORTEM_DIR is the reports directory.
 *
 *   noproc    an empty tmpfs over /proc (the dynamic loader cannot expand
 *             $ORIGIN then: PROGRAM finds its libraries through
 *             LD_LIBRARY_PATH, which meson test sets)
 *   full      a 64 KiB tmpfs over the reports directory, filled up after
 *             pending/ is made; when PROGRAM has died, the tmpfs is
 *             detached and what pending/ holds is copied into the real
 *             reports directory
 *   readonly  the reports directory (with pending/) bound read-only
 *
 * Exits as PROGRAM did: dies of its signal or exits with its status.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int
fill(const char *dir)
{
	char path[4096], block[4096];
	snprintf(path, sizeof path, "%s/filler", dir);
	memset(block, 'x', sizeof block);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	while (write(fd, block, sizeof block) > 0)
		;
	/* The last partial block too: not one byte is left. */
	while (write(fd, block, 1) > 0)
		;
	return close(fd);
}

/* Copy every entry of pending/ under the detached tmpfs (fd) into dir/pending. */
static int
copy_out(int tmpfs_fd, const char *dir)
{
	char dst[4096];
	snprintf(dst, sizeof dst, "%s/pending", dir);
	if (mkdir(dst, 0700) != 0)
		return -1;
	int src = openat(tmpfs_fd, "pending", O_RDONLY | O_DIRECTORY);
	DIR *d = src >= 0 ? fdopendir(src) : NULL;
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char to[8192], buf[65536];
		snprintf(to, sizeof to, "%s/%s", dst, e->d_name);
		int in = openat(src, e->d_name, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_EXCL, 0600);
		ssize_t n;
		while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
			if (write(out, buf, (size_t)n) != n)
				return -1;
		close(in);
		close(out);
	}
	closedir(d);
	return 0;
}

static int
prepare(const char *mode, const char *dir, char *pending)
{
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return -1;
	if (strcmp(mode, "noproc") == 0)
		return mount("none", "/proc", "tmpfs", 0, "size=4k");
	if (strcmp(mode, "full") == 0)
		return mount("none", dir, "tmpfs", 0, "size=64k,mode=0700") != 0 || mkdir(pending, 0700) != 0 ||
		       fill(dir) != 0;
	if (strcmp(mode, "readonly") == 0)
		return (mkdir(pending, 0700) != 0 || mount(dir, dir, NULL, MS_BIND, NULL) != 0 ||
		        mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) != 0) ? -1 : 0;
	return -1;
}

int
main(int argc, char **argv)
{
	const char *dir = getenv("POSTMORTEM_DIR");
	char pending[4096];
	if (argc < 3 || !dir)
		return 100;
	snprintf(pending, sizeof pending, "%s/pending", dir);
	if (prepare(argv[1], dir, pending) != 0) {
		perror("ns_wrap: cannot prepare the namespace (root needed)");
		return 100;
	}
	pid_t pid = fork();
	if (pid == 0) {
		execv(argv[2], argv + 2);
		_exit(101);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 100;
	if (strcmp(argv[1], "full") == 0) {
		int fd = open(dir, O_RDONLY | O_DIRECTORY);
		if (fd < 0 || umount2(dir, MNT_DETACH) != 0 || copy_out(fd, dir) != 0)
			return 100;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	signal(WTERMSIG(status), SIG_DFL);
	raise(WTERMSIG(status));
	return 100;
}
