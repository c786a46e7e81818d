/*
 * tell_run.h — the preload library's word to `postmortem run` about this
 * program image (base/run_record.h).  NOT AS-safe.
 */
#ifndef PM_REPORTER_TELL_RUN_H
#define PM_REPORTER_TELL_RUN_H

/* When this process is the child of a `postmortem run` that asked
 * (PMI_RUN_RECORD_VAR), replace its record with this image's: state is one
 * of run_record.h's, with `why` after it (NULL: nothing).  Silent: the
 * record only explains, and a program never notices it. */
void pmi_tell_run(const char *state, const char *why);

#endif
