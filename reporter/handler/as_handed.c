/*
 * as_handed.c — AS-SAFE: the words of a report whose fault a runtime's
 * handler was given first (see as_handed.h).
 */
#include "as_handed.h"

#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "as_capture.h"
#include "as_chain.h"
#include "as_memory.h"
#include "decode.h"
#include "model.h"

static void
put_signal(pm_out *o, int sig)
{
	const pm_signal_info *s = pmi_signal_by_number(PM_OS_LINUX, sig);
	if (s)
		pmi_out_str(o, s->name);
	else
		pmi_out_i64(o, sig);
}

/* "it called abort()" (SIGABRT: abort raises it), else "it raised SIGSEGV" */
static void
put_raised(pm_out *o, int sig)
{
	if (sig == SIGABRT) {
		pmi_out_str(o, "it called abort()");
	} else {
		pmi_out_str(o, "it raised ");
		put_signal(o, sig);
	}
}

/* "it called abort()", "it faulted itself (SIGSEGV)", … */
static void
put_how(pm_out *o, const as_chain_rec *h)
{
	switch (h->gave_up) {
	case AS_GAVE_UP_DEFAULT:
		pmi_out_str(o, "it put the default action back and returned");
		break;
	case AS_GAVE_UP_SIGNAL:
		put_raised(o, h->gave_up_arg);
		break;
	case AS_GAVE_UP_FAULT:
		pmi_out_str(o, "it faulted itself (");
		put_signal(o, h->gave_up_arg);
		pmi_out_ch(o, ')');
		break;
	case AS_GAVE_UP_EXIT:
		pmi_out_str(o, "it called _exit(");
		pmi_out_i64(o, h->gave_up_arg);
		pmi_out_ch(o, ')');
		break;
	case AS_GAVE_UP_HUNG:
		pmi_out_str(o, "it had not returned after ");
		pmi_out_i64(o, h->gave_up_arg);
		pmi_out_str(o, " ms");
		break;
	case AS_GAVE_UP_LOOP:
		pmi_out_str(o, "it kept returning while the same fault came back, for ");
		pmi_out_i64(o, h->gave_up_arg);
		pmi_out_str(o, " ms");
		break;
	case AS_GAVE_UP_MOVED:
		pmi_out_str(o, "moved the context to its own code and gave up there: ");
		put_raised(o, h->gave_up_arg);
		break;
	case AS_GAVE_UP_NOT:
		pmi_out_str(o, "it gave up");
		break;
	}
}

static const pm_image *
handler_image(const as_capture_ctx *c, uint64_t handler)
{
	int32_t i = pm_report_image_for(c->report, handler);
	return i < 0 ? NULL : &c->report->images[i];
}

static bool
exists(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* The JVM writes hs_err_pid<pid>.log in its working directory, or in /tmp
 * where it cannot (-XX:ErrorFile moves it: not looked for). */
static void
add_jvm_log(pm_report *r)
{
	static const char prefix[] = "The Java runtime's own crash log: ";
	char line[sizeof prefix + PATH_MAX + 32];
	char *path = line + sizeof prefix - 1;
	memcpy(line, prefix, sizeof prefix - 1);
	for (int i = 0; i < 2; i++) {
		long n = i == 0 ? as_sys_readlink("/proc/self/cwd", path, PATH_MAX - 1) : 4;
		if (n <= 0)
			continue;
		if (i == 1)
			memcpy(path, "/tmp", 4);
		pm_out o;
		pmi_out_init_buf(&o, path + n, 32);
		pmi_out_str(&o, "/hs_err_pid");
		pmi_out_i64(&o, getpid());
		pmi_out_str(&o, ".log");
		size_t len = (size_t)n + o.len;
		path[len] = '\0';
		if (exists(path)) {
			as_asi_add(r, line, sizeof prefix - 1 + len);
			return;
		}
	}
}

/* "Given first to a signal handler beside postmortem's (libjvm.so + 123), which " */
static void
put_handler(pm_out *o, const as_capture_ctx *c, uint64_t handler)
{
	const pm_image *img = handler_image(c, handler);
	pmi_out_str(o, "Given first to a signal handler beside postmortem's (");
	if (img && img->name) {
		pmi_out_str(o, img->name);
		pmi_out_str(o, " + ");
		pmi_out_u64(o, handler - img->start);
	} else {
		pmi_out_0x(o, handler, 16);
	}
	pmi_out_str(o, "), which ");
}

/* The crashed thread's frame, past frame 0, whose address is pc (the
 * handler's own code called as if from the faulting instruction); -1. */
static int
fault_frame(const pm_report *r, uint64_t pc)
{
	int32_t k = pm_report_crashed_thread(r);
	if (k < 0)
		return -1;
	const pm_thread *t = &r->threads[k];
	for (uint32_t i = 1; i < t->frame_count; i++)
		if (t->frames[i].address == pc)
			return (int)i;
	return -1;
}

/* A signal that came of a fault the handler moved the context of: that
 * fault is the crash.  The report keeps this signal's registers and
 * backtrace, which show the handler's code above the fault. */
static void
fill_moved(const as_capture_ctx *c, const as_chain_moved *m)
{
	pm_report *r = c->report;
	int i = fault_frame(r, m->pc);
	if (i < 0)
		return;
	siginfo_t fault;
	memset(&fault, 0, sizeof fault);
	fault.si_signo = m->sig;
	fault.si_code = m->code;
	fault.si_addr = (void *)(uintptr_t)m->addr;
	as_fill_exception(r, c->facts, m->sig, &fault, &c->target);
	as_chain_rec how = { .gave_up = AS_GAVE_UP_MOVED, .gave_up_arg = c->signal };
	char buf[384];
	pm_out o;
	pmi_out_init_buf(&o, buf, sizeof buf);
	put_handler(&o, c, m->handler);
	put_how(&o, &how);
	pmi_out_str(&o, " (frames 0-");
	pmi_out_i64(&o, i - 1);
	pmi_out_str(&o, " of the crashed thread; the fault is frame ");
	pmi_out_i64(&o, i);
	pmi_out_ch(&o, ')');
	r->exception.term_description = pmi_arena_strndup(r->arena, buf, o.len);
}

void
as_fill_handed(const as_capture_ctx *c)
{
	const as_chain_rec *h = c->handed;
	pm_report *r = c->report;
	if (!h) {
		if (c->moved)
			fill_moved(c, c->moved);
		return;
	}
	char buf[320];
	pm_out o;
	pmi_out_init_buf(&o, buf, sizeof buf);
	put_handler(&o, c, h->handler);
	pmi_out_str(&o, "gave up on it: ");
	put_how(&o, h);
	r->exception.term_description = pmi_arena_strndup(r->arena, buf, o.len);
	const pm_image *img = handler_image(c, h->handler);
	if (img && img->name && strcmp(img->name, "libjvm.so") == 0)
		add_jvm_log(r);
}
