/*
 * late_install.c — a library that links libpostmortem and installs it when
 * called, as a JNI library or a node addon does, loaded (dlopen) by a
 * program that did not (exec_chain.c, "late").  Its reports would say
 * "late-library".
 */
#include "postmortem.h"

int late_install(void);

int
late_install(void)
{
	pm_config cfg = { .app_id = "late-library" };
	return pm_install(&cfg);
}
