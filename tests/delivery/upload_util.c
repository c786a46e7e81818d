/*
 * upload_util.c — helpers of upload_util.h.
 */
#include "upload_util.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixture_report.h"
#include "http_server.h"
#include "util.h"

const char *
upload_id(size_t i)
{
	static char id[32];
	snprintf(id, sizeof id, "report-%04zu", i);
	return id;
}

const char *
upload_path(const char *dir, const char *sub, const char *id, const char *ext)
{
	static char path[4096];
	snprintf(path, sizeof path, "%s/%s/%s%s", dir, sub, id, ext);
	return path;
}

bool
upload_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void
write_file(const char *path, const pm_report *r, pm_format f)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert(fd >= 0, "cannot create %s", path);
	cr_assert_eq(pm_write_report_fd(r, f, fd), PM_OK, "cannot write %s", path);
	close(fd);
}

void
upload_write_report(const char *dir, const char *id, const pm_report *r)
{
	write_file(upload_path(dir, "pending", id, ".json"), r, PM_FORMAT_JSON);
	write_file(upload_path(dir, "pending", id, ".crash"), r, PM_FORMAT_TEXT);
}

/* Text that compresses like real report data rather than like a run of one byte. */
static void
add_padding(pm_report *r, size_t pad)
{
	char *text = pm_report_alloc(r, pad + 1, 1);
	const char **asi = pm_report_alloc(r, (r->exception.asi_count + 1) * sizeof *asi, 8);
	cr_assert(text && asi);
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < pad; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		text[i] = "0123456789abcdef"[x & 15];
	}
	memcpy(asi, r->exception.asi, r->exception.asi_count * sizeof *asi);
	asi[r->exception.asi_count++] = text;
	r->exception.asi = asi;
}

char *
upload_make_reports(size_t n, size_t pad)
{
	char *dir = pm_test_tmpdir();
	char pending[4096];
	snprintf(pending, sizeof pending, "%s/pending", dir);
	cr_assert(mkdir(pending, 0700) == 0);
	chmod(dir, 0700);
	pm_report r;
	pm_report_init(&r);
	pm_fixture_linux_crash(&r);
	if (pad)
		add_padding(&r, pad);
	for (size_t i = 0; i < n; i++) {
		r.header.incident_id = upload_id(i);
		upload_write_report(dir, upload_id(i), &r);
	}
	pm_report_free(&r);
	return dir;
}

static int
remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

void
upload_remove(char *dir)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

pm_store *
upload_store(const char *dir)
{
	/* Copies of one crash: storm control, which would keep six, is not what these tests are about. */
	pm_store_options so = { .dir = dir, .max_pending = 5000, .max_bytes = 1ull << 32, .storm_first = UINT32_MAX };
	pm_store *s = NULL;
	cr_assert_eq(pm_store_open(&s, &so), PM_OK, "cannot open the store in %s", dir);
	return s;
}

pm_upload_options
upload_options(const char *url)
{
	return (pm_upload_options){
		.url = url,
		.connect_timeout_ms = 5000,
		.timeout_ms = 20000,
		.max_attempts = 3,
		.backoff_ms = 1,
		.backoff_max_ms = 20,
	};
}

int
upload_cli(const char *dir, const char *args, char **out)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "%s upload --dir %s %s", pm_test_build("tools/postmortem"), dir, args) > 0);
	int status = pm_test_run(cmd, out);
	free(cmd);
	cr_assert(WIFEXITED(status), "postmortem upload did not exit normally");
	return WEXITSTATUS(status);
}

bool
upload_preloaded_sleep(const char *dir, const char *key, http_server *srv, size_t n)
{
	char *preload, *pm_dir, *dsn;
	cr_assert(asprintf(&preload, "LD_PRELOAD=%s", pm_test_build("reporter/libpostmortem-preload.so")) > 0);
	cr_assert(asprintf(&pm_dir, "POSTMORTEM_DIR=%s", dir) > 0);
	cr_assert(asprintf(&dsn, "POSTMORTEM_DSN=http://%s@127.0.0.1:%u/42", key, http_server_port(srv)) > 0);
	char *const argv[] = { "sleep", "60", NULL };
	char *const envp[] = { preload, pm_dir, dsn, NULL };
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execve("/bin/sleep", argv, envp);
		_exit(127);
	}
	bool arrived = http_server_wait(srv, n, 60000);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	free(preload);
	free(pm_dir);
	free(dsn);
	return arrived;
}

void
upload_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

char *
upload_file(const char *dir, const char *name)
{
	char *p;
	cr_assert(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

/* The uploaders' log of dir ("" when none), malloc'd. */
char *
uploader_log(const char *dir)
{
	char *path = upload_file(dir, "upload.log");
	char *text = access(path, F_OK) == 0 ? pm_test_slurp(path, NULL) : strdup("");
	free(path);
	return text;
}

unsigned
text_count(const char *text, const char *needle)
{
	unsigned n = 0;
	for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* Whether someone holds dir's upload lock (the byte every uploader locks). */
bool
lock_taken(const char *dir)
{
	char *path = upload_file(dir, "upload.lock");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return false;
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
	cr_assert_eq(fcntl(fd, F_OFD_GETLK, &fl), 0);
	close(fd);
	return fl.l_type != F_UNLCK;
}

/* At least `started` uploaders have started in dir and every one has ended (as many "end:"
 * lines as "start" lines, the lock free, twice in a row); 30 s at most.  Their log. */
char *
uploaders_done(const char *dir, unsigned started)
{
	for (int i = 0, quiet = 0; i < 3000; i++) {
		char *log = uploader_log(dir);
		unsigned starts = text_count(log, "]: start");
		bool done = starts >= started && starts == text_count(log, "]: end:") && !lock_taken(dir);
		if (done && ++quiet == 2)
			return log;
		if (!done)
			quiet = 0;
		free(log);
		upload_sleep_ms(10);
	}
	char *log = uploader_log(dir);
	cr_assert_fail("the uploaders of %s did not end within 30 s:\n%s", dir, log);
	return log;
}

