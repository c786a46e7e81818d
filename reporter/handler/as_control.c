/*
 * as_control.c — AS-SAFE: the control signal's handler routes each signal
 * to the crash-path piece it is for (see as_handler.h).
 */
#include "as_handler.h"

#include <stdatomic.h>
#include <unistd.h>

#include "as_altstack.h"
#include "as_capture.h"
#include "as_chain.h"
#include "as_memory.h"
#include "as_sample.h"

/* Sent with rt_tgsigqueueinfo and this value (pmi_control_send); the
 * kernel's own tgkill cannot forge SI_QUEUE. */
static bool
tagged(const siginfo_t *info, int tag)
{
	return info->si_code == SI_QUEUE && info->si_value.sival_int == tag;
}

/* The watch timer of handlers given a fault first (as_chain.h): each
 * thread whose call has lasted too long is sent a probe, which its own
 * handler of this signal takes inside that call. */
static void
on_watch(int sig)
{
	pid_t tids[16];
	size_t n = as_chain_overdue(tids, sizeof tids / sizeof tids[0], sig, as_g.handler_timeout_ms);
	pid_t pid = getpid();
	for (size_t i = 0; i < n; i++) {
		siginfo_t probe;
		as_control_info(&probe, sig, AS_CHAIN_PROBE, pid, (uid_t)tids[i]);
		as_sys_tgsigqueueinfo(pid, tids[i], sig, &probe);
	}
}

void
as_on_control(int sig, siginfo_t *info, void *uctx)
{
	if (info->si_code == SI_TIMER && info->si_value.sival_int == AS_CHAIN_WATCH)
		on_watch(sig);
	else if (tagged(info, AS_CHAIN_PROBE))
		as_on_chain_probe((pid_t)info->si_uid, uctx);
	else if (tagged(info, PM_CONTROL_SAMPLE))
		as_on_sample(uctx);
	else if (tagged(info, PM_CONTROL_SETUP))
		as_altstack_on_setup((pid_t)info->si_uid, uctx);
	else if (tagged(info, PM_CONTROL_FREEZE) && atomic_load(&as_g.owner) != 0)
		as_on_freeze(sig, info, uctx);
}
