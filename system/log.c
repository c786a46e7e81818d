/*
 * log.c — the handler's lines: one per crash, and one for each thing it
 * refuses.  The kernel starts it with no descriptor but the core, so the
 * lines go to the kernel's log (/dev/kmsg, which journald and syslog read
 * too), and to stderr when it was open at start (run by hand, or by a
 * test).  NOT AS-safe.
 */
#include "system.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

static int kmsg = -1;
static bool to_stderr;

void
pmi_syslog_open(void)
{
	struct stat st;
	to_stderr = fstat(2, &st) == 0 && (!S_ISCHR(st.st_mode) || isatty(2));
	/* Descriptors 1 and 2 closed (as the kernel starts it) would be the next files opened. */
	for (int fd = 1; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR | O_NOCTTY) != fd)
			break;
	kmsg = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
}

void
pmi_log_escape(const char *name, char *out, size_t cap)
{
	size_t at = 0;
	for (const unsigned char *p = (const unsigned char *)name; *p && at + 5 < cap; p++) {
		if (*p >= 0x20 && *p < 0x7f && *p != '\\')
			out[at++] = (char)*p;
		else
			at += (size_t)snprintf(out + at, cap - at, "\\x%02x", *p);
	}
	out[at] = '\0';
}

void
pmi_syslog(int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	char line[1100];
	/* LOG_DAEMON's facility, as <priority> of the kernel's log takes it. */
	int n = snprintf(line, sizeof line, "<%d>postmortem-core[%d]: %s\n", LOG_DAEMON | level, (int)getpid(), msg);
	if (kmsg >= 0 && write(kmsg, line, (size_t)n) < 0) {
		/* The kernel's log is all there is; nothing else to tell. */
	}
	if (to_stderr)
		dprintf(2, "postmortem-core: %s\n", msg);
}
