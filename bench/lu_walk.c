#define UNW_LOCAL_ONLY
#include "lu_walk.h"

#include <libunwind.h>

uint32_t
lu_walk(ucontext_t *uc, uint64_t *pcs, uint32_t max, int *end)
{
	unw_cursor_t cursor;
	unw_word_t ip;
	uint32_t n = 0;
	/* arm64's unw_context_t is a ucontext_t with a shorter __reserved: the same prefix. */
	if ((*end = unw_init_local2(&cursor, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME)) != 0)
		return 0;
	for (;;) {
		if (n == max) {
			*end = LU_MORE;
			return n;
		}
		if ((*end = unw_get_reg(&cursor, UNW_REG_IP, &ip)) != 0)
			return n;
		pcs[n++] = ip;
		int r = unw_step(&cursor);
		if (r <= 0) {
			*end = r;
			return n;
		}
	}
}

const char *
lu_end_text(int end)
{
	return end == 0 ? "outermost frame" : end == LU_MORE ? "frame limit" : unw_strerror(end);
}

void
lu_forget(void)
{
	unw_flush_cache(unw_local_addr_space, 0, 0);
}

void
lu_caching(bool on)
{
	unw_set_caching_policy(unw_local_addr_space, on ? UNW_CACHE_GLOBAL : UNW_CACHE_NONE);
}
