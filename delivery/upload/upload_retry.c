/*
 * upload_retry.c — how long to wait before trying a report again.
 *
 * Backoff is exponential with full jitter (a uniform delay between zero and
 * the doubled ceiling), so many clients that failed together do not come
 * back together.  A server's Retry-After overrides it.  Waits can be cut
 * short by pm_upload_stop.
 */
#include <ctype.h>
#include <errno.h>
#include <sys/random.h>
#include <time.h>

#include "upload.h"

static uint64_t
random_u64(void)
{
	uint64_t r;
	if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r)
		return r;
	/* No entropy yet (early boot): the clock still spreads clients apart. */
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15u ^ (uint64_t)ts.tv_sec;
}

uint32_t
pmi_upload_backoff(const pm_upload_options *opt, uint32_t attempt)
{
	uint64_t ceiling = opt->backoff_ms;
	for (uint32_t i = 1; i < attempt && ceiling < opt->backoff_max_ms; i++)
		ceiling *= 2;
	if (ceiling > opt->backoff_max_ms)
		ceiling = opt->backoff_max_ms;
	return (uint32_t)(random_u64() % (ceiling + 1));
}

int64_t
pmi_upload_retry_after_ms(const char *value, int64_t now)
{
	const int64_t cap = UPLOAD_RETRY_AFTER_MAX_MS;
	while (*value == ' ' || *value == '\t')
		value++;
	if (!isdigit((unsigned char)*value)) {
		time_t when = curl_getdate(value, NULL);
		if (when == -1)
			return -1;
		int64_t delta = (int64_t)when - now;
		return delta <= 0 ? 0 : delta >= cap / 1000 ? cap : delta * 1000;
	}
	int64_t sec = 0;
	for (; isdigit((unsigned char)*value); value++)
		if (sec < cap / 1000)
			sec = sec * 10 + (*value - '0');
	while (*value == ' ' || *value == '\t')
		value++;
	if (*value != '\0')
		return -1;
	return sec >= cap / 1000 ? cap : sec * 1000;
}

bool
pmi_upload_stopping(const upload_stop *stop)
{
	return stop && atomic_load(stop->flag);
}

struct timespec
pmi_upload_deadline(clockid_t clock, uint32_t ms)
{
	struct timespec t;
	clock_gettime(clock, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

bool
pmi_upload_sleep(const upload_stop *stop, uint32_t ms)
{
	struct timespec deadline = pmi_upload_deadline(CLOCK_MONOTONIC, ms);
	if (!stop) {
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == EINTR)
			;
		return true;
	}
	pthread_mutex_lock(stop->lock);
	while (!atomic_load(stop->flag)
	       && pthread_cond_timedwait(stop->cond, stop->lock, &deadline) != ETIMEDOUT)
		;
	bool stopped = atomic_load(stop->flag);
	pthread_mutex_unlock(stop->lock);
	return !stopped;
}
