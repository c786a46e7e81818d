/*
 * fake_uploader.c — stands in for postmortem-uploader (POSTMORTEM_UPLOADER)
 * in the tests of the crash handler's start: it writes how it was started
 * into <DIR>/fake-uploader.txt (DIR: its --dir), before it opens anything
 * else — its argv, pid, parent, session, process group, signal mask, every
 * descriptor it holds and where it leads, its environment, whether the
 * crashed process (its --crashed) had ended — and then,
 * when <DIR>/fake-uploader.hang exists, sleeps until killed (an uploader
 * that never ends: the crashed process must not wait for it).
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int
main(int argc, char **argv)
{
	/* What it holds, read before anything opens a descriptor of its own: fds 0 to 63. */
	char fds[16384] = "";
	for (int fd = 0; fd < 64; fd++) {
		char link[64], to[1024];
		snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
		ssize_t n = readlink(link, to, sizeof to - 1);
		if (n < 0)
			continue;
		to[n] = '\0';
		size_t at = strlen(fds);
		snprintf(fds + at, sizeof fds - at, "fd %d %s\n", fd, to);
	}
	sigset_t blocked;
	sigprocmask(SIG_SETMASK, NULL, &blocked);
	const char *dir = NULL, *crashed = "0";
	for (int i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "--dir") == 0)
			dir = argv[i + 1];
		else if (strcmp(argv[i], "--crashed") == 0)
			crashed = argv[i + 1];
	/* Whether the crashed process had ended (a zombie, or gone) when this one started. */
	char stat_path[64], state = 'X';
	snprintf(stat_path, sizeof stat_path, "/proc/%s/stat", crashed);
	FILE *st = fopen(stat_path, "r");
	if (st && fscanf(st, "%*d (%*[^)]) %c", &state) != 1)
		state = '?';
	if (st)
		fclose(st);
	if (!dir)
		return 2;
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	snprintf(path, sizeof path, "%s/fake-uploader.txt", dir);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return 1;
	fprintf(f, "argv");
	for (int i = 0; i < argc; i++)
		fprintf(f, " %s", argv[i]);
	fprintf(f, "\npid %ld\nppid %ld\nsid %ld\npgid %ld\nsigsegv_blocked %d\ncrashed_ended %d\n%s", (long)getpid(),
	        (long)getppid(), (long)getsid(0), (long)getpgid(0), sigismember(&blocked, SIGSEGV),
	        state == 'Z' || state == 'X', fds);
	for (char **e = environ; *e; e++)
		fprintf(f, "env %s\n", *e);
	fclose(f);
	rename(tmp, path);
	snprintf(path, sizeof path, "%s/fake-uploader.hang", dir);
	if (access(path, F_OK) == 0)
		for (;;)
			pause();
	return 0;
}
