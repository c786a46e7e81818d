/* lazy_target.h — the library unwind_lazy_bind binds lazily (lazy_target.c). */
#ifndef PM_SAMPLE_LAZY_TARGET_H
#define PM_SAMPLE_LAZY_TARGET_H

/* Set while the dynamic linker runs lazy_target's resolver. */
extern volatile int lazy_resolving;
int lazy_target(void);

#endif
