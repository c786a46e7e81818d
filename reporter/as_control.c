/*
 * as_control.c — AS-SAFE: the control signal's handler routes each signal
 * to the crash-path piece it is for (see as_control.h).
 */
#include "as_control.h"

#include <stdatomic.h>
#include <string.h>

#include "as_altstack.h"
#include "as_freeze.h"
#include "as_sample.h"
#include "state.h"

/* Sent with rt_tgsigqueueinfo and this value (pmi_control_send); the
 * kernel's own tgkill cannot forge SI_QUEUE. */
static bool
tagged(const siginfo_t *info, int tag)
{
	return info->si_code == SI_QUEUE && info->si_value.sival_int == tag;
}

void
as_on_control(int sig, siginfo_t *info, void *uctx)
{
	if (tagged(info, PM_CONTROL_SAMPLE))
		as_on_sample(uctx);
	else if (tagged(info, PM_CONTROL_SETUP))
		as_altstack_on_setup((pid_t)info->si_uid, uctx);
	else if (tagged(info, PM_CONTROL_FREEZE) && atomic_load(&as_g.owner) != 0)
		as_on_freeze(sig, info, uctx);
}

void
as_control_info(siginfo_t *info, int sig, int tag, pid_t pid, uid_t uid)
{
	memset(info, 0, sizeof *info);
	info->si_signo = sig;
	info->si_code = SI_QUEUE;
	info->si_pid = pid;
	info->si_uid = uid;
	info->si_value.sival_int = tag;
}
