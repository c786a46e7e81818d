/*
 * chain.h — the handler that was there before `postmortem system enable`
 * keeps working (chain.c).  NOT AS-safe.
 */
#ifndef PM_SYSTEM_CHAIN_H
#define PM_SYSTEM_CHAIN_H

#include "system.h"

typedef struct pm_chain {
	pid_t pipe_pid;           /* the previous pipe handler, or -1 */
	int pipe_fd;              /* its standard input, or -1 once closed */
	bool pipe_stalled;        /* it stopped reading: the rest was not given to it */
	int file_fd;              /* the previous file pattern's core file, or -1 */
	uint64_t file_limit, file_written; /* file_written: the core's bytes taken, holes and the block below in */
	bool file_failed;
	size_t block_len;         /* the core file's last bytes, short of a whole block: a hole or not, once full */
	unsigned char block[4096];
	char what[PATH_MAX + 64]; /* what was done, for the crash's log line */
} pm_chain;

/* Start what the previous pattern (st->before, with the kernel settings it
 * had) would have had for this crash: its pipe handler, with the whole core
 * to come on its standard input (%F: the pinned process's pidfd), or its
 * core file, opened as the kernel would have (its working directory
 * through pin's directory). */
void pmi_chain_start(pm_chain *c, const pm_system_state *st, const pm_crash_args *a, const pm_proc *pin,
                     const pm_proc_facts *f);
/* Give it the next bytes of the core (a pm_core_tee_fn). */
bool pmi_chain_tee(void *ctx, const void *buf, size_t n);
/* The core is all read: close the pipe handler's input and the core file. */
void pmi_chain_close(pm_chain *c);
/* Wait for the pipe handler and what it started in its process group to
 * end, as the kernel would have, for at most deadline_ms; then kill the
 * group.  Call it before the core's pipe is closed: the kernel holds the
 * crashed process until then, and the previous handler may read its /proc. */
void pmi_chain_wait(pm_chain *c, int deadline_ms);

#endif
