#include "store_util.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crash/crash_util.h"
#include "util.h"

void
su_real_report(pm_report *r, char **crash, size_t *crash_len, char **json, size_t *json_len)
{
	crash_run run;
	crash_run_sample(&run, "null_deref", NULL);
	if (crash)
		*crash = pm_test_slurp(run.crash_path, crash_len);
	if (json)
		*json = pm_test_slurp(run.json_path, json_len);
	*r = run.json;
	pm_report_init(&run.json); /* ownership moves to r */
	crash_run_free(&run);
}

char *
su_reports_dir(void)
{
	char *dir = pm_test_tmpdir();
	cr_assert_eq(mkdir(su_path(dir, "pending", ""), 0700), 0);
	return dir;
}

void
su_rm(const char *dir)
{
	char *cmd;
	cr_assert(asprintf(&cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", dir, dir) > 0);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", dir);
	free(cmd);
}

const char *
su_path(const char *dir, const char *sub, const char *name)
{
	static char buf[2][4096];
	static int which;
	which ^= 1;
	snprintf(buf[which], sizeof buf[which], "%s/%s/%s", dir, sub, name);
	return buf[which];
}

void
su_write(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert(fd >= 0, "cannot create %s", path);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void
write_with(const char *path, const pm_report *r, pm_format f)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert(fd >= 0, "cannot create %s", path);
	cr_assert_eq(pm_write_report_fd(r, f, fd), PM_OK);
	close(fd);
}

void
su_put(const char *dir, const pm_report *model, const char *id, const char *app, int64_t time,
       int64_t launch, int64_t pid, bool text, bool json)
{
	pm_report r = *model; /* shallow: the strings stay the model's */
	r.header.incident_id = id;
	r.header.process_name = app;
	r.header.pid = pid;
	r.header.time.sec = time;
	r.header.time.set = true;
	r.header.launch_time = r.header.time;
	r.header.launch_time.sec = launch;
	r.complete = true;
	char name[256];
	if (text) {
		snprintf(name, sizeof name, "%s.crash", id);
		write_with(su_path(dir, "pending", name), &r, PM_FORMAT_TEXT);
	}
	if (json) {
		snprintf(name, sizeof name, "%s.json", id);
		write_with(su_path(dir, "pending", name), &r, PM_FORMAT_JSON);
	}
}

void
su_age(const char *path, int seconds)
{
	struct timespec t[2];
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= seconds;
	t[1] = t[0];
	cr_assert_eq(utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW), 0, "cannot age %s", path);
}

pm_store *
su_open(const char *dir, const pm_store_options *opt)
{
	pm_store_options o = opt ? *opt : (pm_store_options){ 0 };
	o.dir = dir;
	pm_store *s = NULL;
	pm_err e = pm_store_open(&s, &o);
	cr_assert_eq(e, PM_OK, "pm_store_open(%s): %s", dir, pm_strerror(e));
	return s;
}

const pm_store_entry *
su_find(const pm_store *s, const char *id)
{
	for (int st = PM_STATE_PENDING; st <= PM_STATE_SENT; st++)
		for (size_t i = 0; i < pm_store_count(s, st); i++)
			if (strcmp(pm_store_get(s, st, i)->id, id) == 0)
				return pm_store_get(s, st, i);
	return NULL;
}

char *
su_open_logged(pm_store **s, const char *dir, const pm_store_options *opt)
{
	char log_path[] = "/tmp/pm-store-log-XXXXXX";
	int log = mkstemp(log_path);
	cr_assert(log >= 0);
	fflush(stderr);
	int saved = dup(STDERR_FILENO);
	dup2(log, STDERR_FILENO);
	*s = su_open(dir, opt);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(log);
	char *text = pm_test_slurp(log_path, NULL);
	unlink(log_path);
	return text;
}

bool
su_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

unsigned
su_mode(const char *path)
{
	struct stat st;
	cr_assert_eq(lstat(path, &st), 0, "%s does not exist", path);
	return st.st_mode & 07777;
}
