/*
 * run_record.h — what the preload library tells `postmortem run` about the
 * program images of the run's own child: reporter/preload/run_record.c
 * writes it, tools/cli_run_why.c reads it to say why a crash left no report
 * (the child ended in an image postmortem was not in, or was in but never
 * ran).  NOT AS-safe.
 *
 * The run holds an unlinked file open and names it in the child's
 * environment as PMI_RUN_RECORD_VAR=/proc/<run's pid>/fd/<n>.  Each image of
 * the child (one pid, a new image at each exec) that the preload library
 * starts in replaces the file's bytes with its own record: fields separated
 * by NUL, in the order below, the image's arguments last.  Only the run's
 * child writes (its parent is the run); its own children never do.
 */
#ifndef PM_BASE_RUN_RECORD_H
#define PM_BASE_RUN_RECORD_H

#define PMI_RUN_RECORD_VAR "POSTMORTEM_RUN_RECORD"

enum {
	PMI_RR_STATE, /* PMI_RR_INSTALLED, PMI_RR_LINKED, or PMI_RR_FAILED and why */
	PMI_RR_COMM,  /* the kernel's name of the image, as exec set it (/proc/self/comm) */
	PMI_RR_EXE,   /* /proc/self/exe */
	PMI_RR_CWD,
	PMI_RR_PATH,  /* $PATH ("" unset) */
	PMI_RR_ARGS,  /* the first argument; the others follow, to the end */
	PMI_RR_MAX_BYTES = 16384, /* the arguments are cut short to fit */
};

#define PMI_RR_INSTALLED "installed"
/* The program links libpostmortem: installing it is left to the program. */
#define PMI_RR_LINKED "linked"
/* pm_install failed; a space and strerror's words follow. */
#define PMI_RR_FAILED "failed:"

#endif
