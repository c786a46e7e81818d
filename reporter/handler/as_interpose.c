/*
 * as_interpose.c — AS-SAFE: a handler the program installs, after
 * postmortem, for a signal postmortem owns (its fatal signals and the
 * control signal) under the preload library (preload_sigaction.c).
 *
 * Postmortem's handler stays in the kernel; the program's becomes the
 * handler beside it, which as_handler.c calls first for a fault the kernel
 * raised (a runtime may resolve it) or once the report is written, and the
 * caller is told what it would have seen without postmortem: the handler
 * before it.  So a language runtime (the JVM, V8, Go, Python's
 * faulthandler) keeps its own faults and crash output, and postmortem
 * still sees the original fault.
 * A runtime may set a handler from inside its own (Go puts SIG_DFL back
 * before it dies of a signal): nothing here may allocate or lock.  The
 * copies race with a handler reading them only while a program sets a
 * handler at the moment another thread crashes.
 */
#include "as_interpose.h"

#include "as_capture.h"

static bool active;

void
as_interpose_start(void)
{
	active = true;
}

bool
as_interpose_active(void)
{
	return active;
}

static struct sigaction *
recorded_for(int sig)
{
	if (!as_g.installed || sig <= 0)
		return NULL;
	if (sig == as_g.freeze_signal)
		return &as_g.previous_freeze;
	for (size_t i = 0; i < as_g.signal_count; i++)
		if (as_g.signals[i] == sig)
			return &as_g.previous[i];
	return NULL;
}

bool
as_interpose_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction *rec = recorded_for(sig);
	if (!rec)
		return false;
	struct sigaction was = *rec;
	if (act)
		*rec = *act;
	if (old)
		*old = was;
	return true;
}
