/*
 * cli_run_why.c — why `postmortem run`'s program died of a signal and left
 * no report, said from what the run can know: the signal; what the kernel
 * keeps of the child until it is reaped (the name of the program image it
 * died in, its credentials); the preload library's record of the last image
 * of the child it was in (base/run_record.h); and the program's file, found
 * from that record's arguments or from PROG.  A reason is named only when
 * these show it; otherwise the possible ones are.
 */
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "commands.h"
#include "enable.h"
#include "reports_dir.h"

/* Less free room than this where reports go, and no report: it did not fit
 * (a report with its JSON twin and minidump takes hundreds of KiB). */
#define NO_ROOM (1024 * 1024)

int
cli_run_record_open(char **entry)
{
	*entry = NULL;
	const char *tmp = getenv("TMPDIR");
	/* No name ever: nothing is left behind, and nobody else can open it by one. */
	int fd = open(tmp && *tmp == '/' ? tmp : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && tmp)
		fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 && asprintf(entry, "%s=/proc/%ld/fd/%d", PMI_RUN_RECORD_VAR, (long)getpid(), fd) < 0) {
		*entry = NULL;
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Line "<key>\t<real>\t<effective>..." of /proc/<pid>/status into ids. */
static void
status_ids(const char *status, const char *key, long ids[2])
{
	const char *at = strstr(status, key);
	if (!at || sscanf(at + strlen(key), "%ld %ld", &ids[0], &ids[1]) != 2)
		ids[0] = ids[1] = -1;
}

void
cli_run_end_read(pid_t pid, cli_run_end *end)
{
	memset(end, 0, sizeof *end);
	end->uid[0] = end->uid[1] = end->gid[0] = end->gid[1] = -1;
	char path[64], buf[2048];
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	/* "pid (comm) state ...": the name may hold parentheses, the last ')' ends it. */
	char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
	if (open_paren && close_paren && close_paren > open_paren &&
	    (size_t)(close_paren - open_paren - 1) < sizeof end->comm)
		memcpy(end->comm, open_paren + 1, (size_t)(close_paren - open_paren - 1));
	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	status_ids(buf, "\nUid:", end->uid);
	status_ids(buf, "\nGid:", end->gid);
}

/* The preload library's record of the child's last image it was in. */
typedef struct record {
	char bytes[PMI_RR_MAX_BYTES + 1];
	const char *field[PMI_RR_ARGS]; /* NULL: no record */
	const char *args, *args_end;    /* the arguments, each with its NUL */
} record;

static void
record_read(int fd, record *r)
{
	memset(r->field, 0, sizeof r->field);
	ssize_t n = fd >= 0 ? pread(fd, r->bytes, PMI_RR_MAX_BYTES, 0) : -1;
	if (n <= 0)
		return;
	r->bytes[n] = '\0';
	const char *p = r->bytes, *end = r->bytes + n;
	for (int i = 0; i < PMI_RR_ARGS; i++) {
		if (p >= end) {
			r->field[0] = NULL;
			return;
		}
		r->field[i] = p;
		p += strlen(p) + 1;
	}
	r->args = p;
	r->args_end = end;
}

/* Whether word names a program the kernel calls comm: comm is the base name
 * of what was executed, cut to 15 bytes. */
static bool
names(const char *word, size_t len, const char *comm)
{
	const char *base = word;
	for (size_t i = 0; i < len; i++)
		if (word[i] == '/')
			base = word + i + 1;
	size_t b = len - (size_t)(base - word), c = strlen(comm);
	return c > 0 && (c == 15 ? b >= c : b == c) && memcmp(base, comm, c) == 0;
}

static bool
is_program(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* word (len bytes) as an exec would find it from cwd and PATH, into out. */
static bool
resolve(const char *word, size_t len, const char *cwd, const char *path, char *out, size_t cap)
{
	if (memchr(word, '/', len)) {
		/* Relative to cwd (NULL: this process's, and left relative), without its leading "./". */
		bool rel = word[0] != '/' && cwd;
		while (len > 2 && word[0] == '.' && word[1] == '/') {
			word += 2;
			len -= 2;
		}
		int k = snprintf(out, cap, "%s%s%.*s", rel ? cwd : "", rel ? "/" : "", (int)len, word);
		return k > 0 && (size_t)k < cap && is_program(out);
	}
	/* With no PATH, as execvp: the default search path. */
	const char *p = path && *path ? path : "/bin:/usr/bin";
	while (*p) {
		size_t d = strcspn(p, ":");
		int k = snprintf(out, cap, "%.*s/%.*s", d ? (int)d : 1, d ? p : ".", (int)len, word);
		if (k > 0 && (size_t)k < cap && is_program(out))
			return true;
		p += d + (p[d] == ':');
	}
	return false;
}

/* The file of the program the child ended in, found from the last image
 * postmortem was in: a word of its arguments naming comm (env's, nice's,
 * `sh -c`'s), resolved from its directory and PATH. */
static bool
find_from_record(const record *r, const char *comm, char *out, size_t cap)
{
	static const char separators[] = " \t\n;&|()<>'\"`=";
	for (const char *a = r->args; a && a < r->args_end; a += strlen(a) + 1)
		for (const char *w = a; *w;) {
			size_t n = strcspn(w, separators);
			if (n && names(w, n, comm) && resolve(w, n, r->field[PMI_RR_CWD], r->field[PMI_RR_PATH], out, cap))
				return true;
			w += n + (w[n] != '\0');
		}
	return false;
}

typedef enum { PROGRAM_UNKNOWN, PROGRAM_DYNAMIC, PROGRAM_STATIC } program_kind;

/* Whether the loader runs for path (an interpreter, PT_INTERP: LD_PRELOAD
 * reaches it); a script is its interpreter's kind. */
static program_kind
kind_of(const char *path, int depth)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	char head[PATH_MAX];
	ssize_t n = fd >= 0 ? pread(fd, head, sizeof head - 1, 0) : -1;
	program_kind kind = PROGRAM_UNKNOWN;
	if (n > 2 && head[0] == '#' && head[1] == '!') {
		head[n] = '\0';
		char *interp = head + 2 + strspn(head + 2, " \t");
		interp[strcspn(interp, " \t\n")] = '\0';
		if (fd >= 0)
			close(fd);
		return depth < 2 && *interp == '/' ? kind_of(interp, depth + 1) : PROGRAM_UNKNOWN;
	}
	elf_version(EV_CURRENT);
	Elf *elf = n > 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t count;
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &count) == 0) {
		kind = PROGRAM_STATIC;
		GElf_Phdr ph;
		for (size_t i = 0; i < count && i < 4096; i++)
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
				kind = PROGRAM_DYNAMIC;
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return kind;
}

/* Why the loader ignores LD_PRELOAD in the program the child ended in (its
 * file, NULL when not found): the kernel's credentials of the child, else
 * the file's set-user-ID or set-group-ID bit (for a user it changes) or
 * capabilities.  NULL: nothing says so. */
static const char *
secure_why(const char *file, const cli_run_end *end)
{
	if (end->uid[0] >= 0 && (end->uid[0] != end->uid[1] || end->gid[0] != end->gid[1]))
		return "it ran with other credentials than its user's (set-user-ID or set-group-ID)";
	struct stat st;
	if (!file || stat(file, &st) != 0)
		return NULL;
	if ((st.st_mode & S_ISUID) && st.st_uid != geteuid())
		return "it is set-user-ID";
	if ((st.st_mode & S_ISGID) && st.st_gid != getegid())
		return "it is set-group-ID";
	if (geteuid() != 0 && getxattr(file, "security.capability", NULL, 0) > 0)
		return "it has file capabilities";
	return NULL;
}

/* pm_install's signals when pm_config.signals is NULL (include/postmortem.h). */
static bool
caught_by_default(int sig)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS };
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		if (sigs[i] == sig)
			return true;
	return false;
}

/* The one other way to a report: the system reporter, outside the process. */
static void
suggest_system(void)
{
	char pattern[PM_PATTERN_MAX + 1];
	if (pmi_sysctl_read("kernel/core_pattern", pattern, sizeof pattern) && pmi_pattern_is_ours(pattern))
		cli_error("run", "the system reporter is on: it writes a report of this crash where the program's "
		                 "own would go (docs/system-reporter.md)");
	else
		cli_error("run", "`postmortem system enable` (as root) reports the crashes in-process capture cannot "
		                 "reach, from outside the process");
}

/* Free bytes of the file system of the reports directory (dir, NULL: the default
 * as pm_install finds it), or -1 unknown. */
static long long
free_bytes(const char *dir)
{
	pm_config cfg = { .reports_dir = dir };
	char path[PATH_MAX];
	struct statvfs st;
	if (!pmi_config_reports_dir(&cfg, path, sizeof path) || statvfs(path, &st) != 0)
		return -1;
	return (long long)st.f_bavail * (long long)st.f_frsize;
}

/* The child ended in the image postmortem was last in: it was there, and
 * the crash did not reach its handler, or found no room, or it could not
 * install.  Whether the system reporter is the way to a report. */
static bool
say_reached(const record *r, pid_t pid, const char *signame, const char *dir)
{
	const char *state = r->field[PMI_RR_STATE], *exe = r->field[PMI_RR_EXE];
	long long room = free_bytes(dir);
	if (strcmp(state, PMI_RR_INSTALLED) == 0 && room >= 0 && room < NO_ROOM) {
		cli_error("run", "no report: postmortem was installed in %s (process %ld), but the reports directory's "
		                 "file system has %lld KiB free: no room for a report",
		          exe, (long)pid, room / 1024);
		return false;
	}
	if (strcmp(state, PMI_RR_INSTALLED) == 0)
		cli_error("run", "no report: postmortem was installed in %s (process %ld), and %s never reached its "
		                 "handler: the program took the signal back (a raw rt_sigaction system call does) or blocked "
		                 "it when it struck",
		          exe, (long)pid, signame);
	else if (strcmp(state, PMI_RR_LINKED) == 0)
		cli_error("run", "no report: %s (process %ld) links libpostmortem, so installing it was left to the program: "
		                 "it had not called pm_install, or it took the signal back",
		          exe, (long)pid);
	else {
		/* Its own words came first (the preload library's line on stderr): that is to be fixed. */
		cli_error("run", "no report: postmortem could not install itself in %s (process %ld): %s", exe, (long)pid,
		          state + strlen(PMI_RR_FAILED) + (state[strlen(PMI_RR_FAILED)] == ' '));
		return false;
	}
	return true;
}

/* The child ended in an image postmortem was never in. */
static void
say_not_reached(const record *r, const char *prog, pid_t pid, const cli_run_end *end)
{
	char file[PATH_MAX];
	bool found = r->field[0] ? find_from_record(r, end->comm, file, sizeof file)
	                         : names(prog, strlen(prog), end->comm) && resolve(prog, strlen(prog), NULL, getenv("PATH"),
	                                                                        file, sizeof file);
	const char *secure = secure_why(found ? file : NULL, end);
	program_kind kind = found ? kind_of(file, 0) : PROGRAM_UNKNOWN;
	char what[PATH_MAX + 64];
	if (found)
		snprintf(what, sizeof what, "%s", file);
	else
		snprintf(what, sizeof what, "a program the kernel calls '%s'", end->comm[0] ? end->comm : "?");
	const char *last = r->field[0] ? r->field[PMI_RR_EXE] : NULL, *lead = "which postmortem was not in";
	char why[PATH_MAX + 200];
	if (secure)
		snprintf(why, sizeof why, "%s, and the loader ignores LD_PRELOAD in such a program", secure);
	else if (kind == PROGRAM_STATIC)
		snprintf(why, sizeof why, "it is statically linked, and LD_PRELOAD reaches dynamically linked programs alone");
	else if (kind == PROGRAM_DYNAMIC && last)
		snprintf(why, sizeof why, "its environment no longer had LD_PRELOAD, cleared after %s (as env -i and sudo "
		                          "clear it)", last);
	else if (kind == PROGRAM_DYNAMIC) {
		lead = "and postmortem's library sent no word from it";
		snprintf(why, sizeof why, "the loader did not load it (its message would be above), or its record could "
		                          "not be written");
	} else
		snprintf(why, sizeof why, "its environment was cleared (as env -i and sudo clear it), or it is statically "
		                          "linked or set-user-ID%s%s%s", last ? " (postmortem was in " : "", last ? last : "",
		         last ? " before)" : "");
	cli_error("run", "no report: process %ld ended in %s, %s: %s", (long)pid, what, lead, why);
}

void
cli_run_why(const char *prog, const char *dir, pid_t pid, int sig, const char *signame, const cli_run_end *end,
            int record_fd)
{
	if (sig == SIGKILL) {
		cli_error("run", "no report: SIGKILL ends a process before any handler can run (kill -9, the OOM killer)");
		return;
	}
	if (!caught_by_default(sig)) {
		cli_error("run", "no report: %s is not among the signals postmortem reports (SIGSEGV, SIGBUS, SIGILL, "
		                 "SIGFPE, SIGABRT, SIGTRAP and SIGSYS, unless a program that links it chose others)",
		          signame);
		return;
	}
	record *r = malloc(sizeof *r);
	if (!r)
		return;
	record_read(record_fd, r);
	/* The last image postmortem was in is the one the child died in when the kernel names it so. */
	bool outside = true;
	if (r->field[0] && (!end->comm[0] || strcmp(r->field[PMI_RR_COMM], end->comm) == 0))
		outside = say_reached(r, pid, signame, dir);
	else
		say_not_reached(r, prog, pid, end);
	free(r);
	if (outside)
		suggest_system();
}
