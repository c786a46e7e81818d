#ifndef PM_TESTS_REFUSE_THREADS_H
#define PM_TESTS_REFUSE_THREADS_H

#include <stdbool.h>

/* While on, every pthread_create that reaches the shim fails with EAGAIN. */
void refuse_threads(bool on);
/* How many it has refused. */
int threads_refused(void);

#endif
