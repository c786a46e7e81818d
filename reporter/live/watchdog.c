/*
 * watchdog.c — the hang watchdog.  NOT AS-safe: an ordinary thread.
 *
 * The watched thread (usually the main loop) calls pm_watchdog_heartbeat,
 * one relaxed atomic store.  The watchdog thread wakes sixteen times per
 * threshold, swaps the flag back to 0 and so learns when the last beat
 * came: a hang is seen at most a sixteenth of the threshold late, for a
 * few microseconds of CPU per wake.  A beat late by the threshold is a hang: a report of every thread
 * is written at once (so even an uncatchable kill afterwards leaves it on
 * disk), with the watched thread marked and the 0x8badf00d code.  Then:
 *   the thread beats again  -> keep the report as a non-fatal hang with its
 *                              duration, or retract it (configuration)
 *   kill_after_ms passes    -> final report, then SIGKILL
 *   the thread exits        -> the watchdog stops
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "as_capture.h"
#include "as_memory.h"
#include "live.h"
#include "model.h"

enum { DEFAULT_THRESHOLD_MS = 250, MIN_POLL_MS = 2, POLLS_PER_THRESHOLD = 16 };
static const uint64_t watchdog_code = 0x8badf00d;

static struct {
	pthread_t thread;
	bool running;
	int tid;
	atomic_int beat;
	pm_watchdog_config cfg;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	uint64_t notify_every_ns; /* systemd: half its WATCHDOG_USEC, 0 when it does not watch us */
} wd = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

/* One hang, from detection to its end. */
typedef struct hang {
	uint64_t since_ns;       /* last heartbeat before the hang */
	uint64_t lasted_ns;      /* how long it has lasted so far */
	enum { HANG_OPEN, HANG_RECOVERED, HANG_KILLED } state;
	pm_live_files files;
	bool reported;
} hang;

void
pm_watchdog_heartbeat(void)
{
	atomic_store_explicit(&wd.beat, 1, memory_order_relaxed);
}

static const char *
seconds(char *buf, size_t cap, uint64_t ns)
{
	snprintf(buf, cap, "%llu.%03llu s", (unsigned long long)(ns / 1000000000u),
	         (unsigned long long)(ns / 1000000u % 1000u));
	return buf;
}

static void
fill_hang(pm_report *r, void *ctx)
{
	const hang *h = ctx;
	pm_exception *e = &r->exception;
	int32_t t = pmi_live_thread_index(r, wd.tid);
	char lasted[32], limit[32], text[256];
	for (uint32_t i = 0; i < r->thread_count; i++)
		r->threads[i].crashed = (int32_t)i == t;
	e->triggered_thread = t;
	e->term_namespace = "WATCHDOG";
	e->has_term_code = true;
	e->term_code = watchdog_code;
	seconds(lasted, sizeof lasted, h->lasted_ns);
	seconds(limit, sizeof limit, (uint64_t)wd.cfg.threshold_ms * 1000000u);
	switch (h->state) {
	case HANG_OPEN:
		e->note = "SIMULATED (this is NOT a crash)";
		snprintf(text, sizeof text, "watchdog: thread %d sent no heartbeat for %s (threshold %s)", wd.tid,
		         lasted, limit);
		break;
	case HANG_RECOVERED:
		e->note = "NON-FATAL CONDITION (this is NOT a crash)";
		snprintf(text, sizeof text, "watchdog: thread %d was blocked for %s (threshold %s), then recovered",
		         wd.tid, lasted, limit);
		break;
	case HANG_KILLED:
		e->type = "EXC_CRASH";
		e->signal_name = "SIGKILL";
		e->signal = SIGKILL;
		e->codes = "0x0000000000000000, 0x0000000000000000";
		e->note = "EXC_CORPSE_NOTIFY";
		e->terminating_process = "postmortem watchdog";
		e->terminating_pid = getpid();
		snprintf(text, sizeof text, "watchdog: thread %d blocked for %s (threshold %s): killed", wd.tid,
		         lasted, limit);
		break;
	}
	e->term_description = pmi_arena_strdup(r->arena, text);
}

static void
report_hang(hang *h)
{
	int rc = h->reported ? pmi_live_rewrite(&h->files, fill_hang, h)
	                     : pmi_live_report(PM_KIND_HANG, fill_hang, h, &h->files);
	if (rc == 0)
		h->reported = true;
}

static void
end_hang(hang *h)
{
	if (!h->reported)
		return;
	if (wd.cfg.on_recovery == PM_WATCHDOG_RETRACT) {
		unlink(h->files.crash_path);
		unlink(h->files.json_path);
		if (h->files.minidump_path[0])
			unlink(h->files.minidump_path);
	} else {
		report_hang(h);
	}
}

/* systemd's own watchdog: tell it we are alive only while the thread is.
 * Never blocks: a full socket queue drops a notification, not the watchdog. */
static void
notify_systemd(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	if (!path || !*path)
		return;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(path);
	if (n >= sizeof sa.sun_path)
		return;
	memcpy(sa.sun_path, path, n);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0'; /* abstract socket */
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	(void)!sendto(fd, "WATCHDOG=1", 10, MSG_NOSIGNAL | MSG_DONTWAIT, (struct sockaddr *)&sa,
	              (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n));
	close(fd);
}

static bool
wait_tick(uint64_t poll_ns)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)(poll_ns / 1000000000u);
	until.tv_nsec += (long)(poll_ns % 1000000000u);
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&wd.lock);
	if (!wd.stop)
		pthread_cond_timedwait(&wd.wake, &wd.lock, &until);
	bool stop = wd.stop;
	pthread_mutex_unlock(&wd.lock);
	return !stop;
}

static void
on_late(hang *h, uint64_t now, uint64_t last_beat)
{
	uint64_t late = now - last_beat;
	uint64_t threshold = (uint64_t)wd.cfg.threshold_ms * 1000000u;
	uint64_t kill_after = (uint64_t)wd.cfg.kill_after_ms * 1000000u;
	if (late < threshold)
		return;
	h->since_ns = last_beat;
	h->lasted_ns = late;
	if (!h->reported) {
		h->state = HANG_OPEN;
		report_hang(h);
	}
	if (kill_after && late >= kill_after) {
		h->state = HANG_KILLED;
		report_hang(h);
		kill(getpid(), SIGKILL);
	}
}

static void *
watch(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "pm-watchdog");
	uint64_t poll_ms = wd.cfg.threshold_ms / POLLS_PER_THRESHOLD;
	if (poll_ms < MIN_POLL_MS)
		poll_ms = MIN_POLL_MS;
	uint64_t last_beat = as_sys_now_ns(), last_notify = 0;
	hang h = { 0 };
	while (wait_tick(poll_ms * 1000000u)) {
		uint64_t now = as_sys_now_ns();
		if (atomic_exchange_explicit(&wd.beat, 0, memory_order_relaxed)) {
			if (h.reported) {
				h.state = HANG_RECOVERED;
				h.lasted_ns = now - h.since_ns;
				end_hang(&h);
				memset(&h, 0, sizeof h);
			}
			last_beat = now;
			if (wd.notify_every_ns && now - last_notify >= wd.notify_every_ns) {
				notify_systemd();
				last_notify = now;
			}
		} else if (as_sys_tgkill(getpid(), wd.tid, 0) == -ESRCH) {
			break; /* the watched thread is gone */
		} else {
			on_late(&h, now, last_beat);
		}
	}
	return NULL;
}

int
pm_watchdog_start(const pm_watchdog_config *cfg)
{
	if (!as_g.installed) {
		errno = EINVAL;
		return -1;
	}
	pm_watchdog_stop();
	memset(&wd.cfg, 0, sizeof wd.cfg);
	if (cfg)
		wd.cfg = *cfg;
	if (wd.cfg.threshold_ms == 0)
		wd.cfg.threshold_ms = DEFAULT_THRESHOLD_MS;
	wd.tid = as_sys_gettid();
	wd.stop = false;
	/* systemd asks for a ping at least every WATCHDOG_USEC; half is its advice. */
	const char *usec = getenv("WATCHDOG_USEC");
	wd.notify_every_ns = wd.cfg.systemd_notify && usec ? strtoull(usec, NULL, 10) * 500u : 0;
	atomic_store(&wd.beat, 1);
	int rc = pthread_create(&wd.thread, NULL, watch, NULL);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	wd.running = true;
	return 0;
}

void
pm_watchdog_stop(void)
{
	if (!wd.running)
		return;
	pthread_mutex_lock(&wd.lock);
	wd.stop = true;
	pthread_cond_signal(&wd.wake);
	pthread_mutex_unlock(&wd.lock);
	if (!pthread_equal(pthread_self(), wd.thread))
		pthread_join(wd.thread, NULL);
	wd.running = false;
}
